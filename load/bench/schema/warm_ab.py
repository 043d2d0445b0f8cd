#!/usr/bin/python3
"""Two builds of rosetta compared on the JSON Schema data sets, warm and in-process.

    warm_ab.py A_WARM B_WARM DATA_DIR SET[,SET...] [ROUNDS]

A_WARM and B_WARM are two builds' rosetta-schema-warm; DATA_DIR holds the data sets as
schemadata.py writes them (`schemadata.py bench --out DATA_DIR --seed 42 --count 1000`).
Each round runs A, B, B, A (`warm S FILE --runs 3`), pinned to one CPU (taskset -c 1: this
machine's two vCPUs run at different speeds for minutes at a time), and takes the ratio
of B's two medians to A's; the median of the rounds' ratios is printed with the quartiles.
Below 1: B is faster.
"""
import json
import statistics
import subprocess
import sys


def run(binary, data_dir, name, fmt="json", ext="jsonl"):
    out = subprocess.run(
        ["taskset", "-c", "1", binary, "warm", f"{data_dir}/{name}.schema.json",
         f"{data_dir}/{name}.{ext}", "--format", fmt, "--runs", "3", "--warmup-s", "0.2",
         "--min-run-s", "0.05"],
        capture_output=True, text=True, check=True).stdout
    return json.loads(out.strip().splitlines()[-1])["median_s"]


def paired(run_a, run_b, rounds):
    """The median and quartiles of B/A over rounds of A, B, B, A (each a timing call)."""
    ratios = []
    for _ in range(rounds):
        a1 = run_a()
        b1 = run_b()
        b2 = run_b()
        a2 = run_a()
        ratios.append((b1 + b2) / (a1 + a2))
    ratios.sort()
    return (f"{statistics.median(ratios):.3f} (quartiles {ratios[len(ratios) // 4]:.3f} "
            f"{ratios[3 * len(ratios) // 4]:.3f}, {rounds} rounds)")


def main():
    if len(sys.argv) < 5:
        sys.exit(__doc__)
    a, b, data_dir, sets = sys.argv[1:5]
    rounds = int(sys.argv[5]) if len(sys.argv) > 5 else 9
    for name in sets.split(","):
        ratio = paired(lambda: run(a, data_dir, name), lambda: run(b, data_dir, name), rounds)
        print(f"{name}: B/A {ratio}", flush=True)


if __name__ == "__main__":
    main()
