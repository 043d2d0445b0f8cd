#!/usr/bin/python3
"""Service benchmarks: rosettad against the rosetta-echo baseline, driven by rosetta-load.

1. closed loop (maximum throughput): echo gRPC, rosettad gRPC, rosettad TCP;
2. open loop at offered rates that are fractions (--rate-fractions, 0.7,0.35) of echo's
   closed-loop median, for the same three, to compare latency (p99) at equal load;
each REPS times, in rotating order, medians reported. The payload is the ~1 KiB JSON
data set log_1k, transcoded JSON -> CBOR. Besides rosetta-load's figures it reads each
server's CPU time (/proc/PID/stat) around each run: server CPU per request is the
service's cost with the generator's share taken out.

usage: service_bench.py --build BUILD --datasets DIR [--reps 3] [--duration 10] [--warmup 2]
                        [--connections 4] [--inflight 16] [--open-inflight 64]
                        [--rate-fractions 0.7,0.35] [--out DIR]
Prints the markdown of docs/benchmarks.md "## Service" (without the heading); raw results
in OUT/service_runs.json.
"""
import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Echo, Rosettad  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--build", required=True)
    ap.add_argument("--datasets", required=True)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--duration", type=float, default=10)
    ap.add_argument("--warmup", type=float, default=2)
    ap.add_argument("--connections", type=int, default=4)
    ap.add_argument("--inflight", type=int, default=16)
    # Open loop: enough slots that requests queue in the server, not in the generator, when
    # a hiccup stalls answers (Little: 4 x 64 slots at 20,000/s ride out a 12 ms stall).
    ap.add_argument("--open-inflight", type=int, default=64)
    # Open-loop rates as fractions of echo's closed-loop median: the first is the one the
    # latency bar is judged at; a lower one shows latency with headroom on a busy machine.
    ap.add_argument("--rate-fractions", default="0.7,0.35")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out_dir = args.out or os.path.join(args.build, "benchmarks")
    os.makedirs(out_dir, exist_ok=True)
    b = args.build
    rosettad_bin, echo_bin, load_bin = f"{b}/service/rosettad", f"{b}/load/rosetta-echo", f"{b}/load/rosetta-load"
    desc = os.path.join(args.datasets, "datasets.desc")

    rosettad = Rosettad(rosettad_bin, "--descriptor-set", desc,
                        stderr_path=os.path.join(out_dir, "rosettad.stderr")).__enter__()
    echo = Echo(echo_bin, stderr_path=os.path.join(out_dir, "rosetta-echo.stderr")).__enter__()
    addr = {"rosettad_grpc": rosettad.grpc, "rosettad_tcp": rosettad.tcp, "echo_grpc": echo.grpc}
    servers = {"rosettad": rosettad, "rosetta-echo": echo}
    server_of = {"rosettad_grpc": rosettad, "rosettad_tcp": rosettad, "echo_grpc": echo}
    variable = {"rosettad_grpc": "$ROSETTAD_GRPC", "rosettad_tcp": "$ROSETTAD_TCP", "echo_grpc": "$ECHO_GRPC"}
    targets = ["echo_grpc", "rosettad_grpc", "rosettad_tcp"]

    def load_argv(target, mode, rate, address):
        a = [load_bin, "--transport", "tcp" if target.endswith("_tcp") else "grpc", "--address", address,
             "--connections", str(args.connections), "--inflight",
             str(args.open_inflight if mode == "open" else args.inflight), "--mode", mode]
        if mode == "open":
            a += ["--rate", str(rate)]
        a += ["--duration", f"{args.duration:g}", "--warmup", f"{args.warmup:g}", "--dataset", "log_1k",
              "--dataset-dir", args.datasets, "--from", "json", "--to", "cbor"]
        return a

    runs = []

    def run(target, mode, rep, rate=None):
        out = os.path.join(out_dir, f"load_{target}_{mode}_{len(runs)}.json")
        loadavg = float(open("/proc/loadavg").read().split()[0])
        argv = load_argv(target, mode, rate, addr[target]) + ["--quiet", "--json", out]
        cpu0 = server_of[target].cpu_seconds()
        p = subprocess.run(argv, capture_output=True, text=True)
        for name, server in servers.items():
            if server.proc.poll() is not None:
                sys.exit(f"service_bench: {name} exited with {server.proc.returncode} during {' '.join(argv)}; "
                         f"its stderr is in {out_dir}/{name}.stderr")
        cpu1 = server_of[target].cpu_seconds()
        if p.returncode != 0:
            sys.exit(f"service_bench: rosetta-load failed: {p.stderr}")
        r = json.load(open(out))
        r["target"] = target
        r["rep"] = rep
        r["rate"] = rate
        r["loadavg_1min"] = loadavg
        r["server_cpu_s"] = cpu1 - cpu0
        r["server_cpu_us_per_request"] = 1e6 * (cpu1 - cpu0) / max(1, r["completed_all"])
        r["client_cpu_us_per_request"] = 1e6 * r["cpu_s"] / max(1, r["completed_all"])
        runs.append(r)
        print(f"service_bench: {target} {mode}{' at ' + str(rate) if rate else ''}: {r['throughput_rps']:.0f} req/s, "
              f"p50 {r['latency_us']['p50']:.0f} us, p99 {r['latency_us']['p99']:.0f} us, errors {r['errors']}, "
              f"server {r['server_cpu_us_per_request']:.1f} us CPU/req", file=sys.stderr)
        return r

    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        for rep in range(args.reps):
            for t in targets[rep % 3:] + targets[:rep % 3]:
                run(t, "closed", rep)
        echo_max = statistics.median(r["throughput_rps"] for r in runs if r["target"] == "echo_grpc")
        fractions = [float(f) for f in args.rate_fractions.split(",")]
        rates = [max(100, int(round(echo_max * f, -2))) for f in fractions]
        for rate in rates:
            for rep in range(args.reps):
                for t in targets[rep % 3:] + targets[:rep % 3]:
                    run(t, "open", rep, rate)
    finally:
        rosettad.stop()
        echo.stop()
    with open(os.path.join(out_dir, "service_runs.json"), "w") as f:
        json.dump({"rates": rates, "runs": runs}, f, indent=1)

    def pick(target, mode, rate=None):
        return [r for r in runs if r["target"] == target and r["mode"] == mode and (rate is None or r["rate"] == rate)]

    def med(rs, f):
        return statistics.median(f(r) for r in rs)

    def spread(rs, f):
        v = [f(r) for r in rs]
        return f"{min(v):,.0f}–{max(v):,.0f}"

    def paired(a, b, f):
        """Median over repetitions of f(a's run) / f(b's run), the two run back to back:
        a drift in the machine's load hits both sides of each ratio alike."""
        ra = {r["rep"]: f(r) for r in a}
        rb = {r["rep"]: f(r) for r in b}
        return statistics.median(ra[k] / rb[k] for k in ra if k in rb and rb[k] > 0)

    names = {"echo_grpc": "rosetta-echo, gRPC", "rosettad_grpc": "rosettad, gRPC", "rosettad_tcp": "rosettad, TCP"}
    payload = runs[0]["payload_bytes"]
    cpu = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", cpu).group(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()
    dirty = subprocess.run(["git", "status", "--porcelain", "--", "codec", "service", "proto"], capture_output=True,
                           text=True).stdout.strip().splitlines()
    if dirty:
        commit += f" + {len(dirty)} uncommitted files in codec/, service/, proto/"
    loads = [r["loadavg_1min"] for r in runs]

    print(f"Run {started} on {os.cpu_count()} x {model}, commit {commit}. The machine is shared: the 1-minute load "
          f"average ranged {min(loads):.1f}–{max(loads):.1f} over the runs (other builds, tests and fuzzers), on "
          f"{os.cpu_count()} cores that the servers and the generator also share. Absolute figures are for this box "
          f"at that moment only; the CPU per request and the ratios carry over better. Medians of {args.reps} runs "
          f"of {args.duration:g} s (after {args.warmup:g} s of warm-up each), run in rotating order; ranges are "
          f"min–max over the runs.\n")
    print(f"Payload: `log_1k.json` ({payload} bytes, the first log records of the `log` data set), "
          f"gRPC unary `Transcode` / TCP op 1, JSON -> CBOR. {args.connections} connections x {args.inflight} "
          f"requests in flight (closed loop; open loop: up to {args.open_inflight}).\n")
    print("Servers (ports from their listening lines):\n")
    print("```sh")
    print(f"{b}/service/rosettad --grpc-listen 127.0.0.1:0 --tcp-listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 "
          f"--descriptor-set {desc}   # -> ROSETTAD_GRPC, ROSETTAD_TCP")
    print(f"{b}/load/rosetta-echo --listen 127.0.0.1:0   # -> ECHO_GRPC")
    print("```\n")

    print("### Closed loop: maximum throughput\n")
    print("| server | requests/s | range | p50 µs | p99 µs | p99.9 µs | server CPU µs/request | generator CPU µs/request | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in targets:
        rs = pick(t, "closed")
        print(f"| {names[t]} | {med(rs, lambda r: r['throughput_rps']):,.0f} | {spread(rs, lambda r: r['throughput_rps'])} | "
              f"{med(rs, lambda r: r['latency_us']['p50']):,.0f} | {med(rs, lambda r: r['latency_us']['p99']):,.0f} | "
              f"{med(rs, lambda r: r['latency_us']['p99_9']):,.0f} | {med(rs, lambda r: r['server_cpu_us_per_request']):.1f} | "
              f"{med(rs, lambda r: r['client_cpu_us_per_request']):.1f} | {sum(r['errors'] for r in rs)} |")
    print("\n```sh")
    for t in targets:
        print(" ".join(load_argv(t, "closed", None, variable[t])))
    print("```\n")

    for fraction, rate in zip(fractions, rates):
        print(f"### Open loop at {rate:,} requests/s ({fraction:.0%} of echo's closed-loop median)\n")
        print("Latency from each request's intended send time (a fixed schedule; a request that waits for a free slot, "
              "or for a late generator thread, counts its wait; that part is the send lag, sent − intended). "
              "Errors here are requests still unanswered 5 s after the end (`not_sent`, `grpc_deadline_exceeded`): "
              "a backlog that did not drain.\n")
        print("| server | completed/s | p50 µs | p90 µs | p99 µs | p99 range | p99.9 µs | max µs | send lag p99 µs "
              "| server CPU µs/request | errors |")
        print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
        for t in targets:
            rs = pick(t, "open", rate)
            print(f"| {names[t]} | {med(rs, lambda r: r['completed_rps']):,.0f} | {med(rs, lambda r: r['latency_us']['p50']):,.0f} | "
                  f"{med(rs, lambda r: r['latency_us']['p90']):,.0f} | {med(rs, lambda r: r['latency_us']['p99']):,.0f} | "
                  f"{spread(rs, lambda r: r['latency_us']['p99'])} | {med(rs, lambda r: r['latency_us']['p99_9']):,.0f} | "
                  f"{med(rs, lambda r: r['latency_us']['max']):,.0f} | {med(rs, lambda r: r['send_lag_us']['p99']):,.0f} | "
                  f"{med(rs, lambda r: r['server_cpu_us_per_request']):.1f} | {sum(r['errors'] for r in rs)} |")
        print("\n```sh")
        for t in targets:
            print(" ".join(load_argv(t, "open", rate, variable[t])))
        print("```\n")

    thr = lambda r: r["throughput_rps"]
    p99 = lambda r: r["latency_us"]["p99"]
    g, e, tcp = (med(pick(t, "closed"), thr) for t in ("rosettad_grpc", "echo_grpc", "rosettad_tcp"))
    g_e = paired(pick("rosettad_grpc", "closed"), pick("echo_grpc", "closed"), thr)
    t_g = paired(pick("rosettad_tcp", "closed"), pick("rosettad_grpc", "closed"), thr)
    print("### Bars\n")
    print("Each ratio twice: of the medians, and the median of the ratios of runs made back to back (paired), "
          "which a drift in the machine's load affects less.\n")
    print("| bar | ratio of medians | paired ratio | met |")
    print("|---|---:|---:|---|")
    print(f"| gRPC JSON->CBOR throughput >= 90% of echo's | {100 * g / e:.0f}% ({g:,.0f} / {e:,.0f} req/s) | "
          f"{100 * g_e:.0f}% | {'yes' if min(g / e, g_e) >= 0.9 else ('**no**' if max(g / e, g_e) < 0.9 else 'unclear')} |")
    for fraction, rate in zip(fractions, rates):
        gp, ep = med(pick("rosettad_grpc", "open", rate), p99), med(pick("echo_grpc", "open", rate), p99)
        pr = paired(pick("rosettad_grpc", "open", rate), pick("echo_grpc", "open", rate), p99)
        label = "gRPC p99 <= 2x echo's at the same rate" + ("" if fraction == fractions[0] else " (context, not the bar)")
        print(f"| {label}: {rate:,}/s ({fraction:.0%}) | {gp / ep:.2f}x ({gp:,.0f} / {ep:,.0f} µs) | {pr:.2f}x | "
              f"{'yes' if max(gp / ep, pr) <= 2 else ('**no**' if min(gp / ep, pr) > 2 else 'unclear')} |")
    print(f"| TCP throughput >= 2x the gRPC path's | {tcp / g:.2f}x ({tcp:,.0f} / {g:,.0f} req/s) | {t_g:.2f}x | "
          f"{'yes' if min(tcp / g, t_g) >= 2 else ('**no**' if max(tcp / g, t_g) < 2 else 'unclear')} |")
    cpu_of = lambda t: med(pick(t, "closed"), lambda r: r["server_cpu_us_per_request"])
    gcpu, ecpu, tcpu = cpu_of("rosettad_grpc"), cpu_of("echo_grpc"), cpu_of("rosettad_tcp")
    print(f"\nServer CPU per request (closed loop, the steadiest figure here): echo {ecpu:.1f} µs, rosettad gRPC "
          f"{gcpu:.1f} µs ({gcpu / ecpu:.2f}x echo's, which does no work but runs the gRPC library's server; rosettad "
          f"transcodes on its own HTTP/2 layer), rosettad TCP {tcpu:.1f} µs. From /proc/PID/stat (10 ms ticks) over "
          f"each whole run, divided by every request answered in it.")


if __name__ == "__main__":
    main()
