#!/usr/bin/python3
"""ctest load_smoke: rosetta-load against rosettad (gRPC and TCP) and rosetta-echo (gRPC).

Starts both servers on port 0, runs rosetta-load for 2 s against each, closed loop and
open loop, and checks that each run reports successful requests and no error at all
(the payload is valid, so any error code is unexpected).

usage: load_smoke.py ROSETTAD ROSETTA_ECHO ROSETTA_LOAD
"""
import json
import os
import re
import signal
import subprocess
import sys
import tempfile

PAYLOAD = json.dumps({"logs": [{"address": {"x0": 10, "x1": 0, "x2": 0, "x3": 1}, "identity": "-",
                                "userid": "frank", "date": "10/Oct/2000:13:55:36 -0700",
                                "request": "GET /apache_pb.gif HTTP/1.0", "code": 200, "size": 2326}] * 6})


def start(argv, pattern):
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    match = re.match(pattern, line)
    if not match:
        proc.kill()
        sys.exit(f"FAIL: {argv[0]} printed {line!r}; stderr: {proc.stderr.read()}")
    return proc, match


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=20)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def run_load(load, tmp, name, args, payload="payload.json", expect_error=None):
    out = os.path.join(tmp, name + ".json")
    argv = [load, "--duration", "2", "--warmup", "0.5", "--quiet", "--payload", os.path.join(tmp, payload),
            "--json", out] + args
    result = subprocess.run(argv, capture_output=True, text=True, timeout=60)
    if result.returncode != 0:
        return f"{name}: exit {result.returncode}: {result.stderr.strip()}"
    report = json.load(open(out))
    print(f"{name}: ok={report['ok']} errors={report['errors_by_code']} "
          f"throughput={report['throughput_rps']:.0f}/s p99={report['latency_us']['p99']:.0f}us")
    if expect_error:
        # A malformed payload: every request fails, reported under the server's error code.
        if report["ok"] != 0 or set(report["errors_by_code"]) != {expect_error}:
            return f"{name}: expected only {expect_error} errors, got ok={report['ok']} {report['errors_by_code']}"
        return None
    if report["connections_lost"]:
        return f"{name}: {report['connections_lost']} connection(s) lost: {report['connection_error']}"
    if report["ok"] <= 0:
        return f"{name}: no successful request"
    if report["errors"] != 0:
        return f"{name}: unexpected errors {report['errors_by_code']}"
    return None


def main():
    rosettad, echo, load = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "payload.json"), "w") as f:
            f.write(PAYLOAD)
        with open(os.path.join(tmp, "bad.json"), "w") as f:
            f.write('{"logs": [1, 2,]}')
        server, m = start([rosettad, "--grpc-listen", "127.0.0.1:0", "--tcp-listen", "127.0.0.1:0",
                           "--metrics-listen", "127.0.0.1:0"],
                          r"rosettad listening grpc=(\S+) tcp=(\S+) metrics=(\S+)")
        grpc_address, tcp_address = m.group(1), m.group(2)
        baseline, m = start([echo, "--listen", "127.0.0.1:0"], r"rosetta-echo listening grpc=(\S+)")
        echo_address = m.group(1)
        failures = []
        try:
            runs = [
                ("rosettad_grpc_closed", ["--transport", "grpc", "--address", grpc_address, "--connections", "2", "--inflight", "4"]),
                ("rosettad_tcp_closed", ["--transport", "tcp", "--address", tcp_address, "--connections", "2", "--inflight", "4"]),
                ("echo_grpc_closed", ["--transport", "grpc", "--address", echo_address, "--connections", "2", "--inflight", "4"]),
                ("rosettad_grpc_open", ["--transport", "grpc", "--address", grpc_address, "--connections", "2", "--inflight", "4",
                                        "--mode", "open", "--rate", "500"]),
                ("rosettad_tcp_open", ["--transport", "tcp", "--address", tcp_address, "--connections", "2", "--inflight", "4",
                                       "--mode", "open", "--rate", "500"]),
                ("rosettad_grpc_validate", ["--transport", "grpc", "--address", grpc_address, "--op", "validate",
                                            "--from", "json"]),
            ]
            for name, args in runs:
                failure = run_load(load, tmp, name, args)
                if failure:
                    failures.append(failure)
            for name, args in [("rosettad_grpc_bad_payload", ["--transport", "grpc", "--address", grpc_address]),
                               ("rosettad_tcp_bad_payload", ["--transport", "tcp", "--address", tcp_address])]:
                failure = run_load(load, tmp, name, args + ["--duration", "0.5"], payload="bad.json", expect_error="syntax")
                if failure:
                    failures.append(failure)
        finally:
            stop(server)
            stop(baseline)
        if server.returncode != 0:
            failures.append(f"rosettad exited {server.returncode}")
        if baseline.returncode != 0:
            failures.append(f"rosetta-echo exited {baseline.returncode}")
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
