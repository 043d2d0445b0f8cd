#!/usr/bin/python3
"""Two rosettad binaries side by side, in paired rounds: the before/after figure of a change.

Both servers run at once (each on 127.0.0.1 port 0); each round drives A then B (B then A
in odd rounds) with the same rosetta-load, closed loop, for every transport given. Reports
per transport the median throughput and server CPU per request of each, and the paired
B/A ratios with their spread, which is what a change is judged by on a shared machine.

usage: service_pair.py --a ROSETTAD_A --b ROSETTAD_B --load ROSETTA_LOAD --datasets DIR
                       [--rounds 4] [--duration 8] [--transports grpc,tcp]
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Rosettad  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--a", required=True, help="rosettad before")
    ap.add_argument("--b", required=True, help="rosettad after")
    ap.add_argument("--load", required=True, help="rosetta-load")
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--rounds", type=int, default=4)
    ap.add_argument("--duration", type=float, default=8)
    ap.add_argument("--transports", default="grpc,tcp")
    args = ap.parse_args()
    out = tempfile.mkdtemp(prefix="service_pair_")
    transports = args.transports.split(",")
    results = {(side, t): [] for side in "ab" for t in transports}
    servers = {}
    try:
        for side, binary in (("a", args.a), ("b", args.b)):
            servers[side] = Rosettad(binary, stderr_path=os.path.join(out, f"rosettad_{side}.stderr")).__enter__()
        for rnd in range(args.rounds):
            for t in transports:
                for side in ("ab" if rnd % 2 == 0 else "ba"):
                    server = servers[side]
                    path = os.path.join(out, f"{side}_{t}_{rnd}.json")
                    cpu0 = server.cpu_seconds()
                    p = subprocess.run([args.load, "--transport", t, "--address", getattr(server, t),
                                        "--connections", "4", "--inflight", "16", "--duration", f"{args.duration:g}",
                                        "--warmup", "2", "--dataset", "log_1k", "--dataset-dir", args.datasets,
                                        "--from", "json", "--to", "cbor", "--quiet", "--json", path],
                                       capture_output=True, text=True)
                    if p.returncode != 0:
                        sys.exit(f"service_pair: rosetta-load failed: {p.stderr}")
                    r = json.load(open(path))
                    cpu = 1e6 * (server.cpu_seconds() - cpu0) / max(1, r["completed_all"])
                    results[(side, t)].append((r["throughput_rps"], cpu, r["latency_us"]["p99"]))
                    print(f"service_pair: round {rnd} {t} {side}: {r['throughput_rps']:.0f} req/s, "
                          f"server {cpu:.2f} us CPU/request, p99 {r['latency_us']['p99']:.0f} us, "
                          f"errors {r['errors']}", file=sys.stderr)
    finally:
        for server in servers.values():
            server.stop()
    print("| transport | A req/s | B req/s | B/A req/s (paired: median, range) | A CPU µs/req | B CPU µs/req | "
          "B/A CPU (paired: median, range) |")
    print("|---|---:|---:|---|---:|---:|---|")
    for t in transports:
        a, b = results[("a", t)], results[("b", t)]
        tput = [y[0] / x[0] for x, y in zip(a, b)]
        cpu = [y[1] / x[1] for x, y in zip(a, b)]
        print(f"| {t} | {statistics.median(x[0] for x in a):.0f} | {statistics.median(x[0] for x in b):.0f} | "
              f"{statistics.median(tput):.3f} ({min(tput):.3f}-{max(tput):.3f}) | "
              f"{statistics.median(x[1] for x in a):.2f} | {statistics.median(x[1] for x in b):.2f} | "
              f"{statistics.median(cpu):.3f} ({min(cpu):.3f}-{max(cpu):.3f}) |")


if __name__ == "__main__":
    main()
