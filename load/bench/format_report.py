#!/usr/bin/python3
"""The format report for the data sets and the corpus: one markdown table.

For each document, `rosetta-compare --tsv` gives, for JSON, CBOR, MessagePack (and
protobuf for the data sets, which have a schema): the size as rosetta writes it, the zstd
size, encode MB/s (CBOR events into the format) and decode MB/s (Validate).

usage: format_report.py --compare BUILD/load/rosetta-compare --datasets DIR [--data-dir DIR]
                        [--runs N] [--min-time S] [--raw OUT.tsv]
The corpus is DATA_DIR/corpus/*.json, DATA_DIR from --data-dir, else $ROSETTA_DATA_DIR,
else ../shared/data next to the project root.
"""
import argparse
import glob
import os
import subprocess
import sys

DATASETS = [  # name, message type (load/tools/datasets.h)
    ("log", "rosetta.bench.log.Logs"),
    ("mesh", "rosetta.bench.mesh.Mesh"),
    ("minecraft_savedata", "rosetta.bench.minecraft_savedata.Players"),
    ("mk48", "rosetta.bench.mk48.Updates"),
]
# Tried in turn when the codec refuses a corpus document with its defaults.
FALLBACKS = [[], ["--allow-duplicate-keys"], ["--allow-duplicate-keys", "--nonfinite-as-null", "--bignum-as-double"]]


def compare(tool, path, extra, runs, min_time):
    argv = [tool, "--tsv", "--runs", str(runs), "--min-time", str(min_time)] + extra + [path]
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        return None, p.stderr.strip().splitlines()[-1] if p.stderr.strip() else f"exit {p.returncode}"
    lines = p.stdout.strip().splitlines()
    header = lines[0].split("\t")
    return [dict(zip(header, l.split("\t"))) for l in lines[1:]], None


def main():
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    ap = argparse.ArgumentParser()
    ap.add_argument("--compare", required=True, help="BUILD/load/rosetta-compare")
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--data-dir", default=os.environ.get("ROSETTA_DATA_DIR") or os.path.join(root, "..", "shared", "data"))
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--min-time", type=float, default=0.1)
    ap.add_argument("--raw")
    args = ap.parse_args()

    docs = []  # (group, label, path, [(compare arguments, mapping flags they set)] tried in turn)
    for name, message_type in DATASETS:
        schema = ["--descriptor-set", os.path.join(args.datasets, "datasets.desc"), "--message-type", message_type]
        docs.append(("dataset", name, os.path.join(args.datasets, name + ".json"), [(schema, [])]))
    for path in sorted(glob.glob(os.path.join(args.data_dir, "corpus", "*.json"))):
        docs.append(("corpus", os.path.basename(path)[:-5], path, [(f, f) for f in FALLBACKS]))

    raw = ["group\tdocument\toptions\tformat\tbytes\tzstd_bytes\tencode_mb_s\tencode_us\tdecode_mb_s\tdecode_us"]
    out = {"dataset": [], "corpus": []}
    for group, label, path, option_sets in docs:
        print(f"format_report: {label}", file=sys.stderr)
        rows, error, used = None, None, []
        for extra, flags in option_sets:
            rows, error = compare(args.compare, path, extra, args.runs, args.min_time)
            if rows is not None:
                used = flags
                break
        if rows is None:
            out[group].append(f"| {label} | — | refused: {error} | | | | | | | |")
            continue
        mark = ""
        if used:
            mark = " †" if used == ["--allow-duplicate-keys"] else " ‡"
        json_bytes = float(rows[0]["bytes"])
        for i, r in enumerate(rows):
            raw.append("\t".join([group, label, " ".join(used), r["format"], r["bytes"], r["zstd_bytes"], r["encode_mb_s"],
                                  r["encode_us"], r["decode_mb_s"], r["decode_us"]]))
            out[group].append(f"| {label + mark if i == 0 else ''} | {r['format']} | {int(r['bytes']):,} | "
                       f"{100 * int(r['bytes']) / json_bytes:.0f}% | {int(r['zstd_bytes']):,} | "
                       f"{100 * int(r['zstd_bytes']) / json_bytes:.0f}% | {float(r['encode_mb_s']):.0f} | "
                       f"{float(r['decode_mb_s']):.0f} | {float(r['encode_us']):,.0f} | {float(r['decode_us']):,.0f} |")
    if args.raw:
        with open(args.raw, "w") as f:
            f.write("\n".join(raw) + "\n")

    header = ("| document | format | bytes | vs JSON | zstd -3 bytes | zstd vs JSON | encode MB/s | decode MB/s "
              "| encode µs | decode µs |\n|---|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    print("### Data sets (protobuf with their load/proto schemas)\n")
    print(header)
    print("\n".join(out["dataset"]))
    print(f"\n### Corpus ({os.path.relpath(args.data_dir, root)}/corpus; no schema, so no protobuf)\n")
    print(header)
    print("\n".join(out["corpus"]))
    print()
    print("bytes: the document as rosetta writes the format (JSON minified); vs JSON: of the JSON row. "
          "MB/s are of the format's own bytes (10^6 B/s); µs per document. encode: `Transcode` from the document's CBOR "
          "form into the format (the CBOR read included); decode: `Validate` of the format (read and checked, nothing "
          f"written). Thread CPU time (not wall time: the machine is shared), medians of {args.runs} runs of >= "
          f"{args.min_time} s each.")
    print("† refused with the default options (duplicate keys); measured with `--allow-duplicate-keys`. "
          "‡ also `--nonfinite-as-null --bignum-as-double`.")


if __name__ == "__main__":
    main()
