"""rosettad's gRPC protocol against Debian's Python grpcio and h2load, as outside clients.

Unary and bidirectional calls, errors (status, percent-encoded grpc-message, the
rosetta-error-bin trailer), trailers-only responses, gzip requests (grpc-encoding), a
server-side grpc-timeout, cancellation, health Check and Watch with and without a service
name, server reflection v1 and v1alpha, GOAWAY on drain with a call in flight, and h2load
(nghttp2's HTTP/2 load tool) for the framing.

usage: grpc_interop_test.py ROSETTAD PROJECT_DIR
"""
import importlib
import os
import shutil
import socket
import struct
import subprocess
import sys
import tempfile
import threading
import time

import h2.config
import h2.connection
import h2.events

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad  # noqa: E402

failures = []


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what), flush=True)
    if not ok:
        failures.append(what)
    return ok


def raw_call(address, path, body, headers=(), reset_after=None, read_for=3.0, end=True):
    """One HTTP/2 request by hand: (response headers, data, trailers, reset code)."""
    host, port = address.rsplit(':', 1)
    s = socket.create_connection((host, int(port)), timeout=5)
    conn = h2.connection.H2Connection(config=h2.config.H2Configuration(client_side=True, header_encoding='utf-8'))
    conn.initiate_connection()
    sid = conn.get_next_available_stream_id()
    conn.send_headers(sid, [(':method', 'POST'), (':scheme', 'http'), (':path', path), (':authority', 'x'),
                            ('content-type', 'application/grpc'), ('te', 'trailers')] + list(headers))
    if body is not None:
        conn.send_data(sid, body, end_stream=end and reset_after is None)
    if reset_after is not None:
        conn.reset_stream(sid, 8)
    s.sendall(conn.data_to_send())
    got = {'headers': {}, 'data': b'', 'trailers': {}, 'reset': None}
    end = time.monotonic() + read_for
    s.settimeout(0.2)
    done = False
    while not done and time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            continue
        if not chunk:
            break
        for e in conn.receive_data(chunk):
            if getattr(e, 'stream_id', None) != sid:
                continue
            if isinstance(e, h2.events.ResponseReceived):
                got['headers'] = dict(e.headers)
            elif isinstance(e, h2.events.DataReceived):
                got['data'] += e.data
                conn.acknowledge_received_data(e.flow_controlled_length, sid)
            elif isinstance(e, h2.events.TrailersReceived):
                got['trailers'] = dict(e.headers)
            elif isinstance(e, h2.events.StreamReset):
                got['reset'] = e.error_code
                done = True
            elif isinstance(e, h2.events.StreamEnded):
                done = True
        s.sendall(conn.data_to_send())
    s.close()
    return got


def framed(message):
    return b'\x00' + struct.pack('>I', len(message)) + message


def main():
    binary, project = sys.argv[1:3]
    proto_dir = os.path.join(os.path.abspath(project), 'proto')
    grpc_proto = '/usr/share/grpc-proto'
    with tempfile.TemporaryDirectory(prefix='rosetta-interop-') as tmp:
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--python_out=' + tmp,
                        '--grpc_python_out=' + tmp, 'rosetta/v1/transcoder.proto'], check=True, cwd=proto_dir)
        # Debian's grpc-proto files under module names that do not collide with grpcio's own
        # `grpc` package (the proto packages inside stay grpc.health.v1 and so on).
        src = os.path.join(tmp, 'src')
        for module, path in (('hv1', 'health/v1/health.proto'), ('rv1', 'reflection/v1/reflection.proto'),
                             ('rv1alpha', 'reflection/v1alpha/reflection.proto')):
            os.makedirs(os.path.join(src, module))
            shutil.copy(os.path.join(grpc_proto, 'grpc', path), os.path.join(src, module))
            subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', src, '--python_out=' + tmp,
                            '--grpc_python_out=' + tmp, module + '/' + os.path.basename(path)], check=True)
        sys.path.insert(0, tmp)
        import grpc
        from google.protobuf import descriptor_pb2
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pbg = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')
        health = importlib.import_module('hv1.health_pb2')
        health_grpc = importlib.import_module('hv1.health_pb2_grpc')
        J, C = pb.FORMAT_JSON, pb.FORMAT_CBOR

        with Rosettad(binary, '--grpc-message-timeout-ms', '60000') as server:
            channel = grpc.insecure_channel(server.grpc)
            stub = pbg.TranscoderStub(channel)

            # Unary, bidirectional, errors.
            r = stub.Transcode(pb.TranscodeRequest(input_format=J, output_format=C, payload=b'{"a":[1,2,3]}'),
                               timeout=5)
            check(r.payload == bytes.fromhex('a1616183010203'), 'unary Transcode JSON -> CBOR')
            try:
                stub.Transcode(pb.TranscodeRequest(input_format=J, output_format=C, payload=b'{"a":%}'), timeout=5)
                check(False, 'a malformed payload is refused')
            except grpc.RpcError as e:
                md = dict(e.trailing_metadata() or ())
                err = pb.Error()
                err.ParseFromString(md.get('rosetta-error-bin', b''))
                check(e.code() == grpc.StatusCode.INVALID_ARGUMENT, 'malformed: INVALID_ARGUMENT (%s)' % e.code())
                check(e.details() == "syntax at byte 5: unexpected '%', expected a value",
                      'grpc-message percent-encoded and decoded: %r' % e.details())
                check((err.code, err.offset, err.path) == ('syntax', 5, '/a'),
                      'rosetta-error-bin: %s at %d %s' % (err.code, err.offset, err.path))
            v = stub.Validate(pb.ValidateRequest(format=J, payload=b'[1,'), timeout=5)
            check(not v.valid and v.error.code == 'truncated', 'Validate: %s %s' % (v.valid, v.error.code))
            reqs = [pb.TranscodeRequest(input_format=J, output_format=C, payload=p) for p in (b'1', b'[', b'"x"')]
            out = list(stub.TranscodeStream(iter(reqs), timeout=5))
            check([o.payload.hex() or o.error.code for o in out] == ['01', 'truncated', '6178'],
                  'TranscodeStream: one answer per request, the bad one in `error`')
            try:
                grpc.insecure_channel(server.grpc).unary_unary('/rosetta.v1.Transcoder/Nope')(b'', timeout=5)
                check(False, 'an unknown method is refused')
            except grpc.RpcError as e:
                check(e.code() == grpc.StatusCode.UNIMPLEMENTED, 'unknown method: UNIMPLEMENTED (trailers-only)')

            # Three 3 MB uploads at once on one connection, more than one largest message
            # (4 MiB + 64 KiB) together: window credit always goes to the oldest unfinished
            # one, so all complete.
            big = b'"' + b'x' * (3 << 20) + b'"'
            futures = [stub.Transcode.future(pb.TranscodeRequest(input_format=J, output_format=C, payload=big),
                                             timeout=20) for _ in range(3)]
            sizes = [len(f.result().payload) for f in futures]
            check(sizes == [(3 << 20) + 5] * 3, 'three 3 MB uploads at once on one connection: %s' % sizes)

            # gzip-compressed requests, and what the server accepts.
            gz = pbg.TranscoderStub(grpc.insecure_channel(server.grpc, compression=grpc.Compression.Gzip))
            r = gz.Transcode(pb.TranscodeRequest(input_format=J, output_format=C, payload=b'[' + b'1,' * 5000 + b'1]'),
                             timeout=5)
            check(r.payload[:3] == bytes.fromhex('991389'), 'a gzip-compressed request (grpc-encoding: gzip)')
            got = raw_call(server.grpc, '/rosetta.v1.Transcoder/Transcode',
                           framed(pb.TranscodeRequest(input_format=J, output_format=C, payload=b'1').SerializeToString()))
            check('gzip' in got['headers'].get('grpc-accept-encoding', ''),
                  'grpc-accept-encoding lists gzip: %r' % got['headers'].get('grpc-accept-encoding'))
            got = raw_call(server.grpc, '/rosetta.v1.Transcoder/Transcode', framed(b''), [('grpc-encoding', 'snappy')])
            check(got['headers'].get('grpc-status') == '12', 'grpc-encoding snappy: UNIMPLEMENTED, trailers-only')

            # A server-side deadline: the message never completes.
            msg = pb.TranscodeRequest(input_format=J, output_format=C, payload=b'[1]').SerializeToString()
            started = time.monotonic()
            got = raw_call(server.grpc, '/rosetta.v1.Transcoder/Transcode',
                           b'\x00' + struct.pack('>I', len(msg) + 10) + msg, [('grpc-timeout', '300m')],
                           read_for=3, end=False)
            took = time.monotonic() - started
            status = got['trailers'].get('grpc-status') or got['headers'].get('grpc-status')
            check(status == '4' and took < 2.5, 'grpc-timeout 300m: DEADLINE_EXCEEDED from the server after '
                  '%.2f s (status %s)' % (took, status))
            # Cancellation: the stream is reset with half a message sent; the connection and
            # server go on.
            got = raw_call(server.grpc, '/rosetta.v1.Transcoder/Transcode', b'\x00\x00\x00\x10\x00', reset_after=True,
                           read_for=0.5)
            check(got['data'] == b'' and not got['trailers'], 'a cancelled call gets nothing more')
            r = stub.Transcode(pb.TranscodeRequest(input_format=J, output_format=C, payload=b'[]'), timeout=5)
            check(r.payload == b'\x80', 'the server goes on after a cancellation')
            hold = threading.Event()

            def held():
                yield reqs[0]
                hold.wait(10)  # the stream stays open until it is cancelled
            call = stub.TranscodeStream(held(), timeout=10)
            first_answer = next(call)
            call.cancel()
            hold.set()
            check(first_answer.payload.hex() == '01' and call.code() == grpc.StatusCode.CANCELLED,
                  'grpcio cancel() of an open stream')
            r = stub.Transcode(pb.TranscodeRequest(input_format=J, output_format=C, payload=b'[]'), timeout=5)
            check(r.payload == b'\x80', 'the server goes on after the stream is cancelled')

            # Health.
            hstub = health_grpc.HealthStub(channel)
            for name in ('', 'rosetta.v1.Transcoder'):
                h = hstub.Check(health.HealthCheckRequest(service=name), timeout=5)
                check(h.status == health.HealthCheckResponse.SERVING, 'health Check %r: SERVING' % name)
            try:
                hstub.Check(health.HealthCheckRequest(service='nope'), timeout=5)
                check(False, 'health Check of an unknown service fails')
            except grpc.RpcError as e:
                check(e.code() == grpc.StatusCode.NOT_FOUND, 'health Check unknown: NOT_FOUND')
            w = hstub.Watch(health.HealthCheckRequest(service='nope'), timeout=5)
            check(next(w).status == health.HealthCheckResponse.SERVICE_UNKNOWN, 'health Watch unknown: SERVICE_UNKNOWN')
            w.cancel()

            # Reflection, both versions.
            for version in ('v1', 'v1alpha'):
                rpb = importlib.import_module('r%s.reflection_pb2' % version)
                rgrpc = importlib.import_module('r%s.reflection_pb2_grpc' % version)
                rs = rgrpc.ServerReflectionStub(channel)
                answers = list(rs.ServerReflectionInfo(iter([
                    rpb.ServerReflectionRequest(list_services=''),
                    rpb.ServerReflectionRequest(file_containing_symbol='rosetta.v1.Transcoder'),
                    rpb.ServerReflectionRequest(file_by_filename='grpc/health/v1/health.proto'),
                    rpb.ServerReflectionRequest(file_containing_symbol='no.such.Symbol'),
                ]), timeout=5))
                names = [s.name for s in answers[0].list_services_response.service]
                check({'rosetta.v1.Transcoder', 'grpc.health.v1.Health'} <= set(names),
                      'reflection %s lists %s' % (version, names))
                files = [descriptor_pb2.FileDescriptorProto.FromString(b)
                         for b in answers[1].file_descriptor_response.file_descriptor_proto]
                services = [s.name for f in files for s in f.service]
                methods = [m.name for f in files for s in f.service for m in s.method]
                check('Transcoder' in services and {'Transcode', 'Validate', 'TranscodeStream'} <= set(methods),
                      'reflection %s describes rosetta.v1.Transcoder' % version)
                check(len(answers[2].file_descriptor_response.file_descriptor_proto) >= 1,
                      'reflection %s file_by_filename' % version)
                check(answers[3].error_response.error_code == 5, 'reflection %s: an unknown symbol is NOT_FOUND'
                      % version)

            # h2load: nghttp2's own client, 2,000 unary calls on 2 connections.
            if shutil.which('h2load'):
                req = os.path.join(tmp, 'req.bin')
                with open(req, 'wb') as f:
                    f.write(framed(pb.TranscodeRequest(input_format=J, output_format=C,
                                                       payload=b'{"a":[1,2,3]}').SerializeToString()))
                p = subprocess.run(['h2load', '-n', '2000', '-c', '2', '-m', '8', '-d', req, '-H',
                                    'content-type: application/grpc', '-H', 'te: trailers',
                                    'http://%s/rosetta.v1.Transcoder/Transcode' % server.grpc],
                                   capture_output=True, text=True, timeout=60)
                check('2000 succeeded' in p.stdout and '2000 2xx' in p.stdout, 'h2load: 2000 calls answered')
            else:
                check(False, 'h2load is installed (nghttp2-client)')

            # Drain: a call in flight finishes, the connection gets GOAWAY, health says NOT_SERVING.
            watch = hstub.Watch(health.HealthCheckRequest(service=''), timeout=10)
            check(next(watch).status == health.HealthCheckResponse.SERVING, 'health Watch: SERVING first')
            # A stream that has had one answer and waits for its next request when the drain
            # starts: it ends with OK (the client would reconnect for more).
            gate = threading.Event()

            def requests():
                yield reqs[0]
                gate.wait(10)
            open_stream = stub.TranscodeStream(requests(), timeout=10)
            first = next(open_stream)
            server.proc.send_signal(15)
            statuses = [m.status for m in watch]
            check(health.HealthCheckResponse.NOT_SERVING in statuses, 'health Watch: NOT_SERVING on drain')
            rest = list(open_stream)
            gate.set()
            check(first.payload.hex() == '01' and rest == [] and open_stream.code() == grpc.StatusCode.OK,
                  'a stream open at the drain ends with OK (%s)' % open_stream.code())
            check(server.proc.wait(timeout=15) == 0, 'rosettad drains and exits 0')
            channel.close()
    if failures:
        print('FAIL: %d check(s)' % len(failures))
        return 1
    print('PASS')
    return 0


if __name__ == '__main__':
    sys.exit(main())
