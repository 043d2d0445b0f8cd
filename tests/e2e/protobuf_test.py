"""The protobuf format through a real rosettad, with descriptor sets from --descriptor-set.

Builds a FileDescriptorSet of the project's own proto (grpc_tools.protoc
--include_imports), starts rosettad with it, and transcodes JSON <-> protobuf over gRPC and
over TCP (message_type in the frame), comparing with Python's protobuf encoding of the
same message. Also: an unknown message type, a rosettad without descriptor sets, and a
descriptor set that cannot be read (exit 2 naming --descriptor-set).

usage: protobuf_test.py ROSETTAD SOURCE_DIR
"""
import importlib
import json
import os
import socket
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_frame, tcp_response  # noqa: E402

failures = []
JSON, PROTOBUF = 1, 4


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what))
    if not ok:
        failures.append(what)
    return ok


def main():
    binary, source_dir = sys.argv[1:3]
    proto_dir = os.path.join(source_dir, 'proto')
    with tempfile.TemporaryDirectory(prefix='rosetta-pb-') as tmp:
        descriptors = os.path.join(tmp, 'transcoder.binpb')
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--include_imports',
                        '--descriptor_set_out=' + descriptors, '--python_out=' + tmp, '--grpc_python_out=' + tmp,
                        'rosetta/v1/transcoder.proto'], check=True, cwd=proto_dir)
        sys.path.insert(0, tmp)
        import grpc
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pb_grpc = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')

        # The message to carry: a rosetta.v1.Limits, as JSON (proto3 JSON names) and as wire bytes.
        limits = pb.Limits(max_input_bytes=1000, max_depth=7, max_alloc_bytes=1 << 40)
        wire = limits.SerializeToString()
        as_json = json.dumps({'maxInputBytes': '1000', 'maxDepth': 7, 'maxAllocBytes': str(1 << 40)}).encode()

        with Rosettad(binary, '--descriptor-set', descriptors) as server:
            with grpc.insecure_channel(server.grpc) as channel:
                stub = pb_grpc.TranscoderStub(channel)
                r = stub.Transcode(pb.TranscodeRequest(input_format=pb.FORMAT_JSON, output_format=pb.FORMAT_PROTOBUF,
                                                       payload=as_json, message_type='rosetta.v1.Limits'), timeout=5)
                back = pb.Limits()
                back.ParseFromString(r.payload)
                check(back == limits, 'gRPC JSON -> protobuf rosetta.v1.Limits: %s' % r.payload.hex())
                r = stub.Transcode(pb.TranscodeRequest(input_format=pb.FORMAT_PROTOBUF, output_format=pb.FORMAT_JSON,
                                                       payload=wire, message_type='rosetta.v1.Limits'), timeout=5)
                got = json.loads(r.payload)
                check(int(got.get('maxInputBytes', 0)) == 1000 and int(got.get('maxDepth', 0)) == 7
                      and int(got.get('maxAllocBytes', 0)) == 1 << 40, 'gRPC protobuf -> JSON: %s' % r.payload.decode())
                v = stub.Validate(pb.ValidateRequest(format=pb.FORMAT_PROTOBUF, payload=wire,
                                                     message_type='.rosetta.v1.Limits'), timeout=5)
                check(v.valid, 'gRPC Validate protobuf with a leading-dot type name: %s' % v.valid)
                v = stub.Validate(pb.ValidateRequest(format=pb.FORMAT_PROTOBUF, payload=wire,
                                                     message_type='rosetta.v1.NoSuch'), timeout=5)
                check(not v.valid and v.error.code == 'unknown_message_type', 'gRPC unknown message type: %s %s' %
                      (v.valid, v.error.code))
            with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
                s.sendall(tcp_frame(1, 1, as_json, JSON, PROTOBUF, b'rosetta.v1.Limits') +
                          tcp_frame(1, 2, as_json, JSON, PROTOBUF, b'rosetta.v1.NoSuch'))
                status, rid, data = tcp_response(s)
                back = pb.Limits()
                if status == 0:
                    back.ParseFromString(data)
                check(status == 0 and rid == 1 and back == limits, 'TCP JSON -> protobuf with message_type: %s' % status)
                status, rid, data = tcp_response(s)
                check(status == 13 and rid == 2 and data.startswith(b'unknown_message_type'),
                      'TCP unknown message type: status %d %s' % (status, data[:60]))
            check(server.terminate() == 0, 'exit 0 after SIGTERM')

        with Rosettad(binary) as server:
            with socket.create_connection(server.tcp_host_port(), timeout=5) as s:
                s.sendall(tcp_frame(1, 3, as_json, JSON, PROTOBUF, b'rosetta.v1.Limits'))
                status, rid, data = tcp_response(s)
                check(status == 13 and b'--descriptor-set' in data,
                      'no descriptor set: status %d %s' % (status, data.decode(errors='replace')))
            server.terminate()

        p = subprocess.run([binary, '--descriptor-set', os.path.join(tmp, 'missing.binpb'), '--grpc-listen',
                            '127.0.0.1:0', '--tcp-listen', '127.0.0.1:0', '--http-listen', '127.0.0.1:0', '--metrics-listen',
                            '127.0.0.1:0'],
                           capture_output=True, text=True, timeout=10)
        check(p.returncode == 2 and '--descriptor-set' in p.stderr,
              'unreadable descriptor set exits 2 naming it: %d %r' % (p.returncode, p.stderr.strip()))

    print('protobuf_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
