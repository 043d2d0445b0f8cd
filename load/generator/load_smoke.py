#!/usr/bin/python3
"""ctest load_smoke: rosetta-load against rosettad (gRPC, TCP, HTTP) and rosetta-echo (gRPC).

Starts both servers on port 0, runs rosetta-load for 2 s against each, closed loop and
open loop, and checks that each run reports successful requests and no error at all
(the payload is valid, so any error code is unexpected).

usage: load_smoke.py ROSETTAD ROSETTA_ECHO ROSETTA_LOAD
"""
import json
import os
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..', 'tests', 'support'))
from rosettad_process import Echo, Rosettad  # noqa: E402

PAYLOAD = json.dumps({"logs": [{"address": {"x0": 10, "x1": 0, "x2": 0, "x3": 1}, "identity": "-",
                                "userid": "frank", "date": "10/Oct/2000:13:55:36 -0700",
                                "request": "GET /apache_pb.gif HTTP/1.0", "code": 200, "size": 2326}] * 6})


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


def run_all(load, tmp, grpc_address, tcp_address, http_address, echo_address):
    failures = []
    runs = [
        ("rosettad_grpc_closed", ["--transport", "grpc", "--address", grpc_address, "--connections", "2", "--inflight", "4"]),
        ("rosettad_tcp_closed", ["--transport", "tcp", "--address", tcp_address, "--connections", "2", "--inflight", "4"]),
        ("rosettad_http_closed", ["--transport", "http", "--address", http_address, "--connections", "2",
                                  "--inflight", "4"]),
        ("echo_grpc_closed", ["--transport", "grpc", "--address", echo_address, "--connections", "2", "--inflight", "4"]),
        ("rosettad_grpc_open", ["--transport", "grpc", "--address", grpc_address, "--connections", "2", "--inflight", "4",
                                "--mode", "open", "--rate", "500"]),
        ("rosettad_tcp_open", ["--transport", "tcp", "--address", tcp_address, "--connections", "2", "--inflight", "4",
                               "--mode", "open", "--rate", "500"]),
        ("rosettad_http_open", ["--transport", "http", "--address", http_address, "--connections", "2", "--inflight", "4",
                                "--mode", "open", "--rate", "500"]),
        ("rosettad_grpc_validate", ["--transport", "grpc", "--address", grpc_address, "--op", "validate",
                                    "--from", "json"]),
        ("rosettad_http_validate", ["--transport", "http", "--address", http_address, "--op", "validate",
                                    "--from", "json"]),
    ]
    for name, args in runs:
        failure = run_load(load, tmp, name, args)
        if failure:
            failures.append(failure)
    for name, args in [("rosettad_grpc_bad_payload", ["--transport", "grpc", "--address", grpc_address]),
                       ("rosettad_tcp_bad_payload", ["--transport", "tcp", "--address", tcp_address]),
                       ("rosettad_http_bad_payload", ["--transport", "http", "--address", http_address])]:
        failure = run_load(load, tmp, name, args + ["--duration", "0.5"], payload="bad.json", expect_error="syntax")
        if failure:
            failures.append(failure)
    return failures


def main():
    rosettad, echo, load = sys.argv[1:4]
    with tempfile.TemporaryDirectory() as tmp:
        with open(os.path.join(tmp, "payload.json"), "w") as f:
            f.write(PAYLOAD)
        with open(os.path.join(tmp, "bad.json"), "w") as f:
            f.write('{"logs": [1, 2,]}')
        with Rosettad(rosettad) as server, Echo(echo) as baseline:
            failures = run_all(load, tmp, server.grpc, server.tcp, server.http, baseline.grpc)
            if server.stop(20) != 0:
                failures.append(f"rosettad exited {server.exit_code}")
            if baseline.stop(20) != 0:
                failures.append(f"rosetta-echo exited {baseline.exit_code}")
    if failures:
        print("FAIL:\n  " + "\n  ".join(failures))
        return 1
    print("PASS")
    return 0


if __name__ == "__main__":
    sys.exit(main())
