#!/usr/bin/python3
"""One build of rosetta compared with itself: CBOR and MessagePack against JSON, warm and
in-process, on the JSON Schema data sets.

    format_ab.py WARM DATA_DIR SET[,SET...] [ROUNDS]

WARM is a build's rosetta-schema-warm; DATA_DIR holds the data sets as schemadata.py
writes them (`schemadata.py bench --out DATA_DIR --seed 42 --count 1000`: the same records
as NAME.jsonl, NAME.cbor-seq and NAME.msgpack-seq). Each round runs JSON, X, X, JSON
(`warm S FILE --format F --runs 3`), pinned to one CPU (taskset -c 1, as warm_ab.py), and
takes the ratio of X's two medians to JSON's; the median of the rounds' ratios is printed
with the quartiles, for X = CBOR and X = MessagePack. Below 1: X is faster than JSON.
"""
import sys

from warm_ab import paired, run


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    binary, data_dir, sets = sys.argv[1:4]
    rounds = int(sys.argv[4]) if len(sys.argv) > 4 else 5
    for name in sets.split(","):
        for fmt, ext in (("cbor", "cbor-seq"), ("msgpack", "msgpack-seq")):
            ratio = paired(lambda: run(binary, data_dir, name),
                           lambda: run(binary, data_dir, name, fmt, ext), rounds)
            print(f"{name}: {fmt} / json {ratio}", flush=True)


if __name__ == "__main__":
    main()
