#!/usr/bin/python3
"""What the per-request metrics cost: rosettad with --request-metrics 1 and 0, side by side.

Both servers run at once; rosetta-load drives each in turn (gRPC, closed loop, the ~1 KiB
log_1k JSON -> CBOR), REPS rounds in alternating order. Reported per server: the median
throughput and the median server CPU per request (/proc/PID/stat around each run), and
the paired ratios (metrics on / off) of each round.

usage: load/bench/metrics_cost.py --build BUILD --datasets DIR [--reps 4] [--duration 8]
                            [--transport grpc|tcp]
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
    ap.add_argument("--build", required=True)
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--reps", type=int, default=4)
    ap.add_argument("--duration", type=float, default=8)
    ap.add_argument("--transport", default="grpc", choices=["grpc", "tcp"])
    args = ap.parse_args()
    out = tempfile.mkdtemp(prefix="metrics_cost_")
    servers = {}
    for on in ("1", "0"):
        server = Rosettad(f"{args.build}/service/rosettad", "--request-metrics", on,
                          stderr_path=os.path.join(out, f"rosettad{on}.stderr")).__enter__()
        servers[on] = (server, server.grpc if args.transport == "grpc" else server.tcp)
    results = {"1": [], "0": []}
    try:
        for rep in range(args.reps):
            for on in (("1", "0") if rep % 2 == 0 else ("0", "1")):
                server, address = servers[on]
                path = os.path.join(out, f"run_{on}_{rep}.json")
                cpu0 = server.cpu_seconds()
                p = subprocess.run([f"{args.build}/load/rosetta-load", "--transport", args.transport, "--address", address,
                                    "--connections", "4", "--inflight", "16", "--duration", f"{args.duration:g}",
                                    "--warmup", "2", "--dataset", "log_1k", "--dataset-dir", args.datasets,
                                    "--from", "json", "--to", "cbor", "--quiet", "--json", path],
                                   capture_output=True, text=True)
                if p.returncode != 0:
                    sys.exit(f"metrics_cost: rosetta-load failed: {p.stderr}")
                r = json.load(open(path))
                cpu = 1e6 * (server.cpu_seconds() - cpu0) / max(1, r["completed_all"])
                results[on].append((r["throughput_rps"], cpu))
                print(f"metrics_cost: round {rep} request-metrics {on}: {r['throughput_rps']:.0f} req/s, "
                      f"server {cpu:.2f} us CPU/request, errors {r['errors']}", file=sys.stderr)
    finally:
        for server, _ in servers.values():
            server.stop()
    for on, label in (("1", "on"), ("0", "off")):
        rps = statistics.median(x[0] for x in results[on])
        cpu = statistics.median(x[1] for x in results[on])
        print(f"metrics {label:3}: median {rps:.0f} req/s, server CPU {cpu:.2f} us/request")
    tput = [a[0] / b[0] for a, b in zip(results["1"], results["0"])]
    cpus = [a[1] / b[1] for a, b in zip(results["1"], results["0"])]
    print("paired on/off throughput: " + ", ".join(f"{x:.3f}" for x in tput) + f" (median {statistics.median(tput):.3f})")
    print("paired on/off server CPU per request: " + ", ".join(f"{x:.3f}" for x in cpus) +
          f" (median {statistics.median(cpus):.3f})")


if __name__ == "__main__":
    main()
