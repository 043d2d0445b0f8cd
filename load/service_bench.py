#!/usr/bin/python3
"""Service benchmarks: rosettad against the rosetta-echo baseline, driven by rosetta-load.

1. closed loop (maximum throughput): echo gRPC, rosettad gRPC, rosettad TCP;
2. open loop at one offered rate, RATE_FRACTION (0.7) of echo's closed-loop median, for
   the same three, to compare latency (p99) at equal load;
each REPS times, in rotating order, medians reported. The payload is the ~1 KiB JSON
data set log_1k, transcoded JSON -> CBOR. Besides rosetta-load's figures it reads each
server's CPU time (/proc/PID/stat) around each run: server CPU per request is the
service's cost with the generator's share taken out.

usage: service_bench.py --build BUILD --datasets DIR [--reps 3] [--duration 10] [--warmup 2]
                        [--connections 4] [--inflight 16] [--rate-fraction 0.7] [--out DIR]
Prints the markdown of docs/benchmarks.md "## Service" (without the heading); raw results
in OUT/service_runs.json.
"""
import argparse
import json
import os
import re
import signal
import statistics
import subprocess
import sys
import time

CLK_TCK = os.sysconf("SC_CLK_TCK")


def cpu_seconds(pid):
    with open(f"/proc/{pid}/stat") as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / CLK_TCK  # utime, stime


def start(argv, pattern, stderr_path):
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=open(stderr_path, "w"), text=True)
    line = proc.stdout.readline()
    m = re.match(pattern, line)
    if not m:
        proc.kill()
        sys.exit(f"service_bench: {argv[0]} printed {line!r}")
    return proc, m


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=30)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


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
    ap.add_argument("--rate-fraction", type=float, default=0.7)
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    out_dir = args.out or os.path.join(args.build, "benchmarks")
    os.makedirs(out_dir, exist_ok=True)
    b = args.build
    rosettad_bin, echo_bin, load_bin = f"{b}/service/rosettad", f"{b}/load/rosetta-echo", f"{b}/load/rosetta-load"
    desc = os.path.join(args.datasets, "datasets.desc")

    rosettad, m = start([rosettad_bin, "--grpc-listen", "127.0.0.1:0", "--tcp-listen", "127.0.0.1:0",
                         "--metrics-listen", "127.0.0.1:0", "--descriptor-set", desc],
                        r"rosettad listening grpc=(\S+) tcp=(\S+) metrics=(\S+)", os.path.join(out_dir, "rosettad.stderr"))
    addr = {"rosettad_grpc": m.group(1), "rosettad_tcp": m.group(2)}
    echo, m = start([echo_bin, "--listen", "127.0.0.1:0"], r"rosetta-echo listening grpc=(\S+)",
                    os.path.join(out_dir, "rosetta-echo.stderr"))
    servers = {"rosettad": rosettad, "rosetta-echo": echo}
    addr["echo_grpc"] = m.group(1)
    pid = {"rosettad_grpc": rosettad.pid, "rosettad_tcp": rosettad.pid, "echo_grpc": echo.pid}
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

    def run(target, mode, rate=None):
        out = os.path.join(out_dir, f"load_{target}_{mode}_{len(runs)}.json")
        argv = load_argv(target, mode, rate, addr[target]) + ["--quiet", "--json", out]
        cpu0 = cpu_seconds(pid[target])
        p = subprocess.run(argv, capture_output=True, text=True)
        for name, proc in servers.items():
            if proc.poll() is not None:
                sys.exit(f"service_bench: {name} exited with {proc.returncode} during {' '.join(argv)}; "
                         f"its stderr is in {out_dir}/{name}.stderr")
        cpu1 = cpu_seconds(pid[target])
        if p.returncode != 0:
            sys.exit(f"service_bench: rosetta-load failed: {p.stderr}")
        r = json.load(open(out))
        r["target"] = target
        r["server_cpu_s"] = cpu1 - cpu0
        r["server_cpu_us_per_request"] = 1e6 * (cpu1 - cpu0) / max(1, r["completed_all"])
        r["client_cpu_us_per_request"] = 1e6 * r["cpu_s"] / max(1, r["completed_all"])
        runs.append(r)
        print(f"service_bench: {target} {mode}{' at ' + str(rate) if rate else ''}: {r['throughput_rps']:.0f} req/s, "
              f"p50 {r['latency_us']['p50']:.0f} us, p99 {r['latency_us']['p99']:.0f} us, errors {r['errors']}, "
              f"server {r['server_cpu_us_per_request']:.1f} us CPU/req", file=sys.stderr)
        return r

    load_before = open("/proc/loadavg").read().split()[:3]
    started = time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())
    try:
        for rep in range(args.reps):
            for t in targets[rep % 3:] + targets[:rep % 3]:
                run(t, "closed")
        echo_max = statistics.median(r["throughput_rps"] for r in runs if r["target"] == "echo_grpc")
        rate = max(100, int(round(echo_max * args.rate_fraction, -2)))
        for rep in range(args.reps):
            for t in targets[rep % 3:] + targets[:rep % 3]:
                run(t, "open", rate)
    finally:
        stop(rosettad)
        stop(echo)
    load_after = open("/proc/loadavg").read().split()[:3]
    with open(os.path.join(out_dir, "service_runs.json"), "w") as f:
        json.dump({"rate": rate, "runs": runs}, f, indent=1)

    def pick(target, mode):
        return [r for r in runs if r["target"] == target and r["mode"] == mode]

    def med(rs, f):
        return statistics.median(f(r) for r in rs)

    def spread(rs, f):
        v = [f(r) for r in rs]
        return f"{min(v):,.0f}–{max(v):,.0f}"

    names = {"echo_grpc": "rosetta-echo, gRPC", "rosettad_grpc": "rosettad, gRPC", "rosettad_tcp": "rosettad, TCP"}
    payload = runs[0]["payload_bytes"]
    cpu = open("/proc/cpuinfo").read()
    model = re.search(r"model name\s*:\s*(.*)", cpu).group(1)
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True).stdout.strip()

    print(f"Run {started} on {os.cpu_count()} x {model}, commit {commit}; load average {' '.join(load_before)} before, "
          f"{' '.join(load_after)} after. Server and generator share these {os.cpu_count()} cores (and other work on "
          f"the machine): absolute figures are for this box only, the ratios are what carries over. Medians of "
          f"{args.reps} runs of {args.duration:g} s (after {args.warmup:g} s warm-up each), run in rotating order; "
          f"ranges are min–max over the runs.\n")
    print(f"Payload: `log_1k.json` ({payload} bytes, the first log records of the `log` data set), "
          f"gRPC unary `Transcode` / TCP op 1, JSON -> CBOR. "
          f"{args.connections} connections x {args.inflight} requests in flight (closed loop; open loop: up to "
          f"{args.open_inflight}).\n")
    print("Servers (ports from their listening lines):\n")
    print("```sh")
    print(f"{b}/service/rosettad --grpc-listen 127.0.0.1:0 --tcp-listen 127.0.0.1:0 --metrics-listen 127.0.0.1:0 "
          f"--descriptor-set {desc}   # -> ROSETTAD_GRPC, ROSETTAD_TCP")
    print(f"{b}/load/rosetta-echo --listen 127.0.0.1:0                                   # -> ECHO_GRPC")
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

    print(f"### Open loop at {rate:,} requests/s ({args.rate_fraction:.0%} of echo's closed-loop median)\n")
    print("Latency from each request's intended send time (a fixed schedule; a request that waits for a free slot, "
          "or for a late generator thread, counts its wait: that part is the send lag, sent - intended).\n")
    print("| server | completed/s | p50 µs | p90 µs | p99 µs | p99 range | p99.9 µs | max µs | send lag p99 µs "
          "| server CPU µs/request | errors |")
    print("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for t in targets:
        rs = pick(t, "open")
        print(f"| {names[t]} | {med(rs, lambda r: r['completed_rps']):,.0f} | {med(rs, lambda r: r['latency_us']['p50']):,.0f} | "
              f"{med(rs, lambda r: r['latency_us']['p90']):,.0f} | {med(rs, lambda r: r['latency_us']['p99']):,.0f} | "
              f"{spread(rs, lambda r: r['latency_us']['p99'])} | {med(rs, lambda r: r['latency_us']['p99_9']):,.0f} | "
              f"{med(rs, lambda r: r['latency_us']['max']):,.0f} | {med(rs, lambda r: r['send_lag_us']['p99']):,.0f} | "
              f"{med(rs, lambda r: r['server_cpu_us_per_request']):.1f} | {sum(r['errors'] for r in rs)} |")
    print("\n```sh")
    for t in targets:
        print(" ".join(load_argv(t, "open", rate, variable[t])))
    print("```\n")

    g = med(pick("rosettad_grpc", "closed"), lambda r: r["throughput_rps"])
    e = med(pick("echo_grpc", "closed"), lambda r: r["throughput_rps"])
    tcp = med(pick("rosettad_tcp", "closed"), lambda r: r["throughput_rps"])
    gp99 = med(pick("rosettad_grpc", "open"), lambda r: r["latency_us"]["p99"])
    ep99 = med(pick("echo_grpc", "open"), lambda r: r["latency_us"]["p99"])
    gcpu = med(pick("rosettad_grpc", "closed"), lambda r: r["server_cpu_us_per_request"])
    ecpu = med(pick("echo_grpc", "closed"), lambda r: r["server_cpu_us_per_request"])
    tcpu = med(pick("rosettad_tcp", "closed"), lambda r: r["server_cpu_us_per_request"])
    print("### Bars\n")
    print("| bar | measured | met |")
    print("|---|---:|---|")
    print(f"| gRPC JSON->CBOR throughput >= 90% of echo's | {100 * g / e:.0f}% ({g:,.0f} / {e:,.0f} req/s) | "
          f"{'yes' if g >= 0.9 * e else '**no**'} |")
    print(f"| gRPC p99 <= 2x echo's at the same rate ({rate:,}/s) | {gp99 / ep99:.2f}x ({gp99:,.0f} / {ep99:,.0f} µs) | "
          f"{'yes' if gp99 <= 2 * ep99 else '**no**'} |")
    print(f"| TCP throughput >= 2x the gRPC path's | {tcp / g:.2f}x ({tcp:,.0f} / {g:,.0f} req/s) | "
          f"{'yes' if tcp >= 2 * g else '**no**'} |")
    print(f"\nServer CPU per request (closed loop): echo {ecpu:.1f} µs, rosettad gRPC {gcpu:.1f} µs "
          f"(+{gcpu - ecpu:.1f} µs: the transcode and rosettad's per-request work), rosettad TCP {tcpu:.1f} µs. "
          f"From /proc/PID/stat (10 ms ticks) over each whole run, divided by every request answered in it.")


if __name__ == "__main__":
    main()
