#!/usr/bin/python3
"""A gRPC client of rosettad built on the project's own proto (proto/rosetta/v1/transcoder.proto).

usage: /usr/bin/python3 examples/grpc_client.py --grpc 127.0.0.1:50051

Generates the Python stubs at run time into a temporary directory (Debian's
python3-grpc-tools), then: Transcode JSON -> CBOR; Transcode a malformed payload and read
the error from the status and the "rosetta-error-bin" trailer; Validate a bad payload;
TranscodeStream three messages, one of them bad; and, where Debian's grpc-proto package
is installed, the standard health check. Prints every answer and exits 1 if any is not
the expected one, so it doubles as an end-to-end check.
"""
import argparse
import importlib
import json
import os
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
HEALTH_PROTO_DIR = '/usr/share/grpc-proto/grpc/health/v1'  # Debian package grpc-proto

# The channel balances calls over every address its target resolves to (round_robin: a
# headless Service's DNS name gives one per ready replica), and a call that fails
# UNAVAILABLE (a replica draining sends GOAWAY, a gone one refuses connections) is tried
# again on another, as gRPC's retry policy allows (gRFC A6; at most 5 attempts).
SERVICE_CONFIG = {
    'loadBalancingConfig': [{'round_robin': {}}],
    'methodConfig': [{
        'name': [{'service': 'rosetta.v1.Transcoder'}],
        'retryPolicy': {'maxAttempts': 5, 'initialBackoff': '0.05s', 'maxBackoff': '1s', 'backoffMultiplier': 2,
                        'retryableStatusCodes': ['UNAVAILABLE']},
    }],
}
CHANNEL_OPTIONS = [('grpc.service_config', json.dumps(SERVICE_CONFIG)), ('grpc.enable_retries', 1),
                   ('grpc.dns_min_time_between_resolutions_ms', 1000)]


def generate_stubs(proto_dir, out_dir):
    """Runs protoc (grpc_tools) on transcoder.proto, and on health.proto where present."""
    subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--python_out=' + out_dir,
                    '--grpc_python_out=' + out_dir, os.path.join(proto_dir, 'rosetta/v1/transcoder.proto')],
                   check=True)
    has_health = os.path.exists(os.path.join(HEALTH_PROTO_DIR, 'health.proto'))
    if has_health:
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', HEALTH_PROTO_DIR,
                        '--python_out=' + out_dir, '--grpc_python_out=' + out_dir, 'health.proto'], check=True)
    sys.path.insert(0, out_dir)
    return has_health


def error_from_trailers(rpc_error, pb):
    """The structured Error that a failed unary Transcode carries in its trailing metadata."""
    error = pb.Error()
    for key, value in rpc_error.trailing_metadata() or ():
        if key == 'rosetta-error-bin':
            error.ParseFromString(value)
    return error


def main():
    parser = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    parser.add_argument('--grpc', required=True, metavar='HOST:PORT', help="rosettad's gRPC listener")
    parser.add_argument('--proto-dir', default=os.path.join(HERE, '..', 'proto'),
                        help='directory holding rosetta/v1/transcoder.proto (default: ../proto)')
    parser.add_argument('--timeout', type=float, default=5.0, help='deadline of each call in seconds')
    args = parser.parse_args()

    with tempfile.TemporaryDirectory(prefix='rosetta-stubs-') as out_dir:
        has_health = generate_stubs(args.proto_dir, out_dir)
        import grpc
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pb_grpc = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')

        failures = []

        def report(ok, what, shown):
            print('%-4s %-40s %s' % ('ok' if ok else 'FAIL', what, shown))
            if not ok:
                failures.append(what)

        with grpc.insecure_channel(args.grpc, options=CHANNEL_OPTIONS) as channel:
            stub = pb_grpc.TranscoderStub(channel)

            # 1. Transcode JSON -> CBOR.
            response = stub.Transcode(pb.TranscodeRequest(input_format=pb.FORMAT_JSON, output_format=pb.FORMAT_CBOR,
                                                          payload=b'{"a":[1,2,3]}'), timeout=args.timeout)
            report(response.payload == bytes.fromhex('a1616183010203'), 'Transcode JSON -> CBOR',
                   'payload=' + response.payload.hex())

            # 2. A malformed payload: INVALID_ARGUMENT, "CODE at byte OFFSET: MESSAGE", and the
            #    Error message in the "rosetta-error-bin" trailer.
            try:
                stub.Transcode(pb.TranscodeRequest(input_format=pb.FORMAT_JSON, output_format=pb.FORMAT_CBOR,
                                                   payload=b'{"a":[1,2,}'), timeout=args.timeout)
                report(False, 'Transcode malformed JSON', 'accepted')
            except grpc.RpcError as e:
                error = error_from_trailers(e, pb)
                report(e.code() == grpc.StatusCode.INVALID_ARGUMENT and error.code == 'syntax' and error.offset == 10,
                       'Transcode malformed JSON', '%s "%s"; trailer: code=%s offset=%d path=%r' %
                       (e.code().name, e.details(), error.code, error.offset, error.path))

            # 3. A request limit: RESOURCE_EXHAUSTED.
            try:
                stub.Transcode(pb.TranscodeRequest(input_format=pb.FORMAT_JSON, output_format=pb.FORMAT_MSGPACK,
                                                   payload=b'[[[1]]]', limits=pb.Limits(max_depth=2)),
                               timeout=args.timeout)
                report(False, 'Transcode past limits.max_depth=2', 'accepted')
            except grpc.RpcError as e:
                error = error_from_trailers(e, pb)
                report(e.code() == grpc.StatusCode.RESOURCE_EXHAUSTED and error.code == 'depth_exceeded',
                       'Transcode past limits.max_depth=2', '%s "%s"' % (e.code().name, e.details()))

            # 4. Validate a bad payload: the RPC succeeds with valid = false and the error.
            #    MessagePack a2 c3 28: a 2-byte string that is not UTF-8.
            verdict = stub.Validate(pb.ValidateRequest(format=pb.FORMAT_MSGPACK, payload=bytes.fromhex('a2c328')),
                                    timeout=args.timeout)
            report(not verdict.valid and verdict.error.code == 'invalid_utf8', 'Validate bad MessagePack',
                   'valid=%s error: %s at byte %d (%r): %s' % (verdict.valid, verdict.error.code, verdict.error.offset,
                                                              verdict.error.path, verdict.error.message))
            verdict = stub.Validate(pb.ValidateRequest(format=pb.FORMAT_JSON, payload=b'{"ok":true}'),
                                    timeout=args.timeout)
            report(verdict.valid and not verdict.HasField('error'), 'Validate good JSON', 'valid=%s' % verdict.valid)

            # 5. TranscodeStream: one response per request, in order; a bad one gets `error`
            #    and the stream goes on.
            payloads = [b'1', b'[', b'"x"']
            requests = (pb.TranscodeRequest(input_format=pb.FORMAT_JSON, output_format=pb.FORMAT_CBOR, payload=p)
                        for p in payloads)
            answers = list(stub.TranscodeStream(requests, timeout=args.timeout))
            shown = ', '.join('error=' + a.error.code if a.HasField('error') else 'payload=' + a.payload.hex()
                              for a in answers)
            report(len(answers) == 3 and answers[0].payload == b'\x01' and answers[1].error.code == 'truncated'
                   and answers[2].payload == b'\x61x', 'TranscodeStream of 3 (one bad)', shown)

            # 6. Health (grpc.health.v1), as a Kubernetes grpc probe asks it.
            if has_health:
                health_pb2 = importlib.import_module('health_pb2')
                health_pb2_grpc = importlib.import_module('health_pb2_grpc')
                status = health_pb2_grpc.HealthStub(channel).Check(
                    health_pb2.HealthCheckRequest(service='rosetta.v1.Transcoder'), timeout=args.timeout).status
                report(status == health_pb2.HealthCheckResponse.SERVING, 'Health check rosetta.v1.Transcoder',
                       health_pb2.HealthCheckResponse.ServingStatus.Name(status))
            else:
                print('skip Health check (no %s/health.proto: apt-get install grpc-proto)' % HEALTH_PROTO_DIR)

        print('grpc_client: %s' % ('every answer as expected' if not failures else 'unexpected: ' + '; '.join(failures)))
        return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
