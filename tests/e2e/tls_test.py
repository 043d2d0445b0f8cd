"""rosettad's TLS as outside clients see it (grpcio, ssl, http.client).

Certificates are made at run time with the openssl command (nothing committed): a CA, two
server certificates for 127.0.0.1 and localhost, and client certificates signed by the CA,
by a second CA, and by the CA but expired. Checked: gRPC, TCP frames and HTTPS over TLS;
plaintext refused on every TLS listener and counted; ALPN (h2 on gRPC, http/1.1 on HTTP even
when h2 is offered first); protocol versions; mTLS with good, missing, foreign and expired
client certificates; SIGHUP rotation with connections open, and a broken key file keeping
the old pair; the plaintext --health-listen beside TLS, and its /readyz through a drain.

usage: tls_test.py ROSETTAD PROJECT_DIR
exit 0: passed; 1: failed; 77: this rosettad has no --tls-cert (skipped).
"""
import http.client
import importlib
import os
import re
import signal
import socket
import ssl
import subprocess
import sys
import tempfile
import threading
import time
import traceback
import warnings

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', 'support'))
from rosettad_process import Rosettad, tcp_frame, tcp_response  # noqa: E402

failures = []

DOC = b'{"a":[1,2,3]}'
CBOR = bytes.fromhex('a1616183010203')
JSON, CBOR_FORMAT = 1, 2
TRANSCODE, PING = 1, 3
HTTP_TRANSCODE = (b'POST /v1/transcode HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n'
                  b'Accept: application/cbor\r\nContent-Length: %d\r\n\r\n' % len(DOC)) + DOC
# The HTTP/2 client preface and an empty SETTINGS frame: what a gRPC client sends first.
H2_PREFACE = b'PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n' + b'\x00\x00\x00\x04\x00\x00\x00\x00\x00'
TRANSPORTS = ('grpc', 'tcp', 'http')


def check(ok, what):
    print('%-4s %s' % ('ok' if ok else 'FAIL', what), flush=True)
    if not ok:
        failures.append(what)
    return ok


def host_port(address):
    h, p = address.rsplit(':', 1)
    return h, int(p)


# --- Certificates -------------------------------------------------------------------------

# One config for `req` and `ca`, so nothing depends on the system's openssl.cnf.
OPENSSL_CNF = """\
[req]
distinguished_name = dn
[dn]
[ca_cert]
basicConstraints = critical, CA:TRUE
keyUsage = critical, keyCertSign, cRLSign
subjectKeyIdentifier = hash
[ca]
default_ca = ca_default
[ca_default]
dir = %(dir)s
database = $dir/index.txt
new_certs_dir = $dir
serial = $dir/serial
certificate = $dir/ca.crt
private_key = $dir/ca.key
default_md = sha256
policy = policy_any
unique_subject = no
copy_extensions = none
[policy_any]
commonName = supplied
[server_cert]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = serverAuth
subjectAltName = IP:127.0.0.1, DNS:localhost
authorityKeyIdentifier = keyid
[client_cert]
basicConstraints = critical, CA:FALSE
keyUsage = critical, digitalSignature
extendedKeyUsage = clientAuth
authorityKeyIdentifier = keyid
"""


def openssl(*args):
    p = subprocess.run(['openssl', *args], capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError('openssl %s: %s' % (' '.join(args), p.stderr.strip()))
    return p.stdout


class CertificateAuthority:
    """A CA in its own directory (`openssl ca` keeps its database and serial there)."""

    def __init__(self, root, name):
        self.dir = os.path.join(root, name)
        os.makedirs(self.dir)
        self.conf = os.path.join(self.dir, 'openssl.cnf')
        with open(self.conf, 'w') as f:
            f.write(OPENSSL_CNF % {'dir': self.dir})
        open(os.path.join(self.dir, 'index.txt'), 'w').close()
        with open(os.path.join(self.dir, 'serial'), 'w') as f:
            f.write('%x\n' % (0x1000 + len(name)))
        self.cert = os.path.join(self.dir, 'ca.crt')
        self.key = os.path.join(self.dir, 'ca.key')
        openssl('req', '-config', self.conf, '-x509', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256',
                '-nodes', '-keyout', self.key, '-out', self.cert, '-subj', '/CN=rosetta test ' + name,
                '-days', '2', '-extensions', 'ca_cert')

    def issue(self, name, kind, startdate=None, enddate=None):
        """(cert, key) paths of a new P-256 certificate; kind is 'server_cert' or 'client_cert'."""
        base = os.path.join(self.dir, name)
        openssl('req', '-config', self.conf, '-new', '-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes',
                '-keyout', base + '.key', '-out', base + '.csr', '-subj', '/CN=' + name)
        validity = ['-startdate', startdate, '-enddate', enddate] if startdate else ['-days', '2']
        openssl('ca', '-batch', '-config', self.conf, '-extensions', kind, '-notext', '-in', base + '.csr',
                '-out', base + '.crt', *validity)
        return base + '.crt', base + '.key'


def der(cert_path):
    with open(cert_path) as f:
        return ssl.PEM_cert_to_DER_cert(f.read())


def read(path):
    with open(path, 'rb') as f:
        return f.read()


# --- Clients ------------------------------------------------------------------------------

def client_context(ca, cert=None, alpn=None, versions=None):
    """A verifying client context: trusts `ca`, presents `cert` (a (cert, key) pair) if given."""
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
    ctx.load_verify_locations(ca)
    if cert:
        ctx.load_cert_chain(*cert)
    if alpn:
        ctx.set_alpn_protocols(alpn)
    if versions:
        ctx.minimum_version, ctx.maximum_version = versions
    return ctx


def tls_connect(address, ctx):
    """A TLS connection, its handshake done, the server checked against 127.0.0.1 (IP SAN)."""
    s = socket.create_connection(host_port(address), timeout=5)
    try:
        return ctx.wrap_socket(s, server_hostname='127.0.0.1')
    except BaseException:
        s.close()
        raise


def tcp_ask(sock, op, request_id, payload, fin=0, fout=0):
    sock.sendall(tcp_frame(op, request_id, payload, fin, fout))
    return tcp_response(sock)


def tcp_works(sock):
    """A transcode and a ping on a TCP frame connection, both answered as they should be."""
    return (tcp_ask(sock, TRANSCODE, 1, DOC, JSON, CBOR_FORMAT) == (0, 1, CBOR)
            and tcp_ask(sock, PING, 2, b'hello') == (0, 2, b'hello'))


def https_transcode(conn):
    conn.request('POST', '/v1/transcode', body=DOC,
                 headers={'Content-Type': 'application/json', 'Accept': 'application/cbor'})
    r = conn.getresponse()
    return r.status, r.read()


def https_connection(address, ctx):
    return http.client.HTTPSConnection(*host_port(address), timeout=5, context=ctx)


def unanswered(address, request, ctx=None, wait=3.0):
    """Connects (over TLS with `ctx`, else in plaintext), sends `request` and reads until the
    server closes. Returns (refused, what happened): refused when the server closed the
    connection or failed the handshake without answering. In plaintext a TLS alert record
    (content type 21) is not an answer."""
    s = socket.create_connection(host_port(address), timeout=wait)
    got, how = b'', None
    try:
        if ctx:
            s = ctx.wrap_socket(s, server_hostname='127.0.0.1')
        s.sendall(request)
        deadline = time.monotonic() + wait
        while how is None and time.monotonic() < deadline:
            chunk = s.recv(65536)
            got += chunk
            how = None if chunk else 'closed'
    except ssl.SSLError as e:
        how = 'TLS error: %s' % (e.reason or e.__class__.__name__)
    except (ConnectionResetError, BrokenPipeError) as e:
        how = e.__class__.__name__
    except socket.timeout:
        pass
    finally:
        s.close()
    answered = bool(got) and not (ctx is None and got[:1] == b'\x15')
    return how is not None and not answered, '%s%s' % (how or 'not closed within %.0f s' % wait,
                                                       ', answered %r' % got[:40] if answered else '')


def scrape(server):
    c = http.client.HTTPConnection(*host_port(server.metrics), timeout=5)
    c.request('GET', '/metrics')
    text = c.getresponse().read().decode()
    c.close()
    return text


def metric(text, name, **labels):
    """The sum of `name` over the series whose labels include `labels`."""
    total = 0.0
    for m in re.finditer(r'^%s(?:\{([^}]*)\})? (\S+)$' % re.escape(name), text, re.M):
        have = dict(re.findall(r'(\w+)="([^"]*)"', m.group(1) or ''))
        if all(have.get(k) == v for k, v in labels.items()):
            total += float(m.group(2))
    return total


def handshake_rejections(server):
    text = scrape(server)
    return {t: metric(text, 'rosetta_rejected_total', transport=t, reason='tls_handshake') for t in TRANSPORTS}


def wait_for(predicate, within=5.0):
    deadline = time.monotonic() + within
    while True:
        value = predicate()
        if value or time.monotonic() > deadline:
            return value
        time.sleep(0.05)


def counted(server, before, at_least):
    """Waits until rejected{reason="tls_handshake"} rose by `at_least` on every transport
    (a refusal may be counted just after the client saw the close); returns the rises."""
    rises = {}

    def enough():
        now = handshake_rejections(server)
        rises.update({t: now[t] - before[t] for t in TRANSPORTS})
        return all(rises[t] >= at_least for t in TRANSPORTS)
    wait_for(enough, 3.0)
    return rises


def health_get(address, path):
    c = http.client.HTTPConnection(*host_port(address), timeout=5)
    c.request('GET', path)
    r = c.getresponse()
    r.read()
    c.close()
    return r.status


def can_offer_tls11(cert):
    """Whether this Python's OpenSSL still completes a TLS 1.1 handshake at all (against a
    Python server that allows it): only then does rosettad's refusal of TLS 1.1 say anything."""
    old = (ssl.TLSVersion.TLSv1, ssl.TLSVersion.TLSv1_1)
    try:
        server_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        server_ctx.minimum_version, server_ctx.maximum_version = old
        server_ctx.set_ciphers('DEFAULT:@SECLEVEL=0')
        server_ctx.load_cert_chain(*cert)
        client_ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)
        client_ctx.check_hostname, client_ctx.verify_mode = False, ssl.CERT_NONE
        client_ctx.minimum_version, client_ctx.maximum_version = old
        client_ctx.set_ciphers('DEFAULT:@SECLEVEL=0')
    except (ValueError, ssl.SSLError):
        return None
    listener = socket.create_server(('127.0.0.1', 0))
    result = {}

    def serve():
        try:
            conn, _ = listener.accept()
            conn.settimeout(5)
            with server_ctx.wrap_socket(conn, server_side=True):
                pass
        except (OSError, ssl.SSLError):
            pass
    t = threading.Thread(target=serve, daemon=True)
    t.start()
    try:
        with socket.create_connection(listener.getsockname(), timeout=5) as s:
            with client_ctx.wrap_socket(s) as tls:
                result['version'] = tls.version()
    except (OSError, ssl.SSLError):
        pass
    t.join(5)
    listener.close()
    return client_ctx if result.get('version') == 'TLSv1.1' else None


# --- Checks -------------------------------------------------------------------------------

def check_tls_serving(server, pki, grpc, pb, pbg):
    """1. Each front-end answers over TLS: {"a":[1,2,3]} as JSON becomes its CBOR, a1616183010203."""
    creds = grpc.ssl_channel_credentials(root_certificates=read(pki['ca1'].cert))
    with grpc.secure_channel(server.grpc, creds) as channel:
        try:
            r = pbg.TranscoderStub(channel).Transcode(
                pb.TranscodeRequest(input_format=JSON, output_format=CBOR_FORMAT, payload=DOC), timeout=5)
            check(r.payload == CBOR, 'TLS: gRPC Transcode over a secure channel: %s' % r.payload.hex())
        except grpc.RpcError as e:
            check(False, 'TLS: gRPC Transcode over a secure channel: %s %s' % (e.code(), e.details()))
    ctx = client_context(pki['ca1'].cert)
    try:
        with tls_connect(server.tcp, ctx) as s:
            check(tcp_works(s), 'TLS: TCP frames (transcode, ping) inside TLS (%s)' % s.version())
    except (OSError, EOFError) as e:
        check(False, 'TLS: TCP frames inside TLS: %r' % e)
    c = https_connection(server.http, ctx)
    try:
        answers = [https_transcode(c) for _ in range(2)]
        check(answers == [(200, CBOR)] * 2, 'TLS: HTTPS POST /v1/transcode twice on one connection: %s' % answers)
    except (OSError, http.client.HTTPException) as e:
        check(False, 'TLS: HTTPS POST /v1/transcode: %r' % e)
    finally:
        c.close()


def check_plaintext_refused(server, grpc, pb, pbg):
    """2. Plaintext on a TLS listener: no answer, the connection closed, and counted."""
    before = handshake_rejections(server)
    with grpc.insecure_channel(server.grpc) as channel:
        try:
            pbg.TranscoderStub(channel).Transcode(
                pb.TranscodeRequest(input_format=JSON, output_format=CBOR_FORMAT, payload=DOC), timeout=5)
            check(False, 'plaintext: a gRPC insecure channel to the TLS port is refused')
        except grpc.RpcError as e:
            check(e.code() == grpc.StatusCode.UNAVAILABLE,
                  'plaintext: a gRPC insecure channel to the TLS port fails (%s)' % e.code())
    for name, address, request in (('gRPC (HTTP/2 preface)', server.grpc, H2_PREFACE + b'\x00' * 64),
                                   ('TCP (a ping frame)', server.tcp, tcp_frame(PING, 1, b'hi')),
                                   ('HTTP (POST /v1/transcode)', server.http, HTTP_TRANSCODE)):
        refused, how = unanswered(address, request)
        check(refused, 'plaintext: %s on the TLS port: no answer, connection closed (%s)' % (name, how))
    rises = counted(server, before, 1)
    for t in TRANSPORTS:
        check(rises[t] >= 1, 'plaintext: rejected_total{transport="%s",reason="tls_handshake"} rose by %g' %
              (t, rises[t]))


def check_alpn(server, pki):
    """3. ALPN: h2 on the gRPC port; http/1.1 on the HTTP port though h2 is offered first (as
    curl does); the TCP port completes the handshake without choosing a protocol."""
    offered = ['h2', 'http/1.1']
    for name, address, want in (('gRPC', server.grpc, 'h2'), ('HTTP', server.http, 'http/1.1'),
                                ('TCP', server.tcp, None)):
        try:
            with tls_connect(address, client_context(pki['ca1'].cert, alpn=offered)) as s:
                got = s.selected_alpn_protocol()
                ok = got == want
                if ok and name == 'HTTP':
                    s.sendall(HTTP_TRANSCODE)
                    ok = s.recv(65536).startswith(b'HTTP/1.1 200')
                elif ok and name == 'TCP':
                    ok = tcp_works(s)
            check(ok, 'ALPN: %s port offered %s selects %s (got %s)' % (name, offered, want, got))
        except (OSError, EOFError) as e:
            check(False, 'ALPN: %s port offered %s: %r' % (name, offered, e))


def check_versions(server, pki):
    """4. TLS 1.2 and 1.3 each work on every listener; TLS 1.1 is refused."""
    for version in (ssl.TLSVersion.TLSv1_2, ssl.TLSVersion.TLSv1_3):
        for name, address, alpn in (('gRPC', server.grpc, ['h2']), ('TCP', server.tcp, None),
                                    ('HTTP', server.http, ['http/1.1'])):
            ctx = client_context(pki['ca1'].cert, alpn=alpn, versions=(version, version))
            try:
                with tls_connect(address, ctx) as s:
                    got = s.version()
                    ok = got == version.name.replace('v1_', 'v1.')
                    if ok and name == 'TCP':
                        ok = tcp_works(s)
            except (OSError, EOFError) as e:
                ok, got = False, repr(e)
            check(ok, 'versions: %s only, %s port: %s' % (version.name, name, got))
    # Debian's OpenSSL 3 still speaks TLS 1.1 when asked to (SECLEVEL=0); should a build not,
    # refusing it proves nothing, and the two checks above are what is left.
    with warnings.catch_warnings():
        warnings.simplefilter('ignore', DeprecationWarning)
        old = can_offer_tls11(pki['a'])
    if not old:
        print('skip TLS 1.1 refusal: this Python\'s OpenSSL cannot complete a TLS 1.1 handshake at all')
        return
    old.load_verify_locations(pki['ca1'].cert)
    before = handshake_rejections(server)
    for name, address in (('gRPC', server.grpc), ('TCP', server.tcp), ('HTTP', server.http)):
        try:
            with socket.create_connection(host_port(address), timeout=5) as raw:
                with old.wrap_socket(raw) as s:
                    check(False, 'versions: TLS 1.1 on the %s port is refused (negotiated %s)' % (name, s.version()))
        except (OSError, ssl.SSLError) as e:
            check(True, 'versions: TLS 1.1 on the %s port is refused (%s)' %
                  (name, getattr(e, 'reason', None) or e.__class__.__name__))
    rises = counted(server, before, 1)
    check(all(rises[t] >= 1 for t in TRANSPORTS), 'versions: TLS 1.1 attempts counted as tls_handshake: %s' % rises)


def check_health(server):
    """7. The health listener is plaintext HTTP/1.1 whatever TLS does, /readyz and /healthz only."""
    address = server.listening.get('health')
    if not check(address is not None, 'health: the listening line names health= (%s)' % address):
        return
    try:
        got = [health_get(address, p) for p in ('/readyz', '/healthz', '/metrics', '/v1/transcode')]
        check(got == [200, 200, 404, 404], 'health: plaintext GET /readyz, /healthz, /metrics, /v1/transcode: %s '
              '(want 200 200 404 404)' % got)
    except (OSError, http.client.HTTPException) as e:
        check(False, 'health: plaintext GET /readyz: %r' % e)


def check_health_in_drain(server, pki):
    """7. Through a drain the health port says not ready (a probe needs no TLS to see it):
    an HTTPS request whose body is still arriving holds the drain open meanwhile."""
    slow = tls_connect(server.http, client_context(pki['ca1'].cert))
    head = HTTP_TRANSCODE[:-len(DOC)]
    slow.sendall(head + DOC[:4])
    time.sleep(0.2)
    server.proc.send_signal(signal.SIGTERM)
    seen = []

    def not_ready():
        try:
            seen.append(health_get(server.listening['health'], '/readyz'))
        except OSError as e:
            seen.append(e.__class__.__name__)
        return seen[-1] != 200
    wait_for(not_ready, 3.0)
    check(seen and seen[-1] in (503, 'ConnectionRefusedError'),
          'health: in a drain /readyz is 503 (or the port is closed): %s' % seen[-1:])
    slow.sendall(DOC[4:])
    slow.settimeout(5)
    answer = slow.recv(65536)
    slow.close()
    check(answer.startswith(b'HTTP/1.1 200'), 'health: the HTTPS request in flight is answered in the drain')
    check(server.proc.wait(10) == 0, 'TLS server: exit 0 after the drain')


def check_mtls(server, pki, grpc, pb, pbg):
    """5. Under mTLS a client certificate of the CA is served on every transport; none, one of
    another CA and an expired one are refused on every transport and counted."""
    ca = read(pki['ca1'].cert)
    request = pb.TranscodeRequest(input_format=JSON, output_format=CBOR_FORMAT, payload=DOC)
    clients = [('a good client certificate', pki['good']), ('no client certificate', None),
               ('a certificate of another CA', pki['foreign']), ('an expired certificate', pki['expired'])]
    before = handshake_rejections(server)
    for what, cert in clients:
        good = cert is pki['good']
        creds = grpc.ssl_channel_credentials(root_certificates=ca, private_key=read(cert[1]) if cert else None,
                                             certificate_chain=read(cert[0]) if cert else None)
        with grpc.secure_channel(server.grpc, creds) as channel:
            try:
                r = pbg.TranscoderStub(channel).Transcode(request, timeout=5)
                check(good and r.payload == CBOR, 'mTLS, %s: gRPC %s' % (what, 'served' if good else 'refused'))
            except grpc.RpcError as e:
                check(not good and e.code() == grpc.StatusCode.UNAVAILABLE,
                      'mTLS, %s: gRPC %s (%s)' % (what, 'served' if good else 'refused', e.code()))
        ctx = client_context(pki['ca1'].cert, cert)
        if good:
            try:
                with tls_connect(server.tcp, ctx) as s:
                    check(tcp_works(s), 'mTLS, %s: TCP served' % what)
                c = https_connection(server.http, ctx)
                got = https_transcode(c)
                c.close()
                check(got == (200, CBOR), 'mTLS, %s: HTTPS served (%s)' % (what, got[0]))
            except (OSError, EOFError, http.client.HTTPException) as e:
                check(False, 'mTLS, %s: TCP and HTTPS served: %r' % (what, e))
            continue
        for name, address, request_bytes in (('TCP', server.tcp, tcp_frame(PING, 1, b'hi')),
                                             ('HTTP', server.http, HTTP_TRANSCODE)):
            refused, how = unanswered(address, request_bytes, ctx)
            check(refused, 'mTLS, %s: %s refused (%s)' % (what, name, how))
    rises = counted(server, before, 3)
    for t in TRANSPORTS:
        check(rises[t] >= 3, 'mTLS: the three refusals on %s counted as tls_handshake (rose by %g)' % (t, rises[t]))


def check_rotation(binary, pki, tmp):
    """6. SIGHUP: new handshakes get the new pair, open connections go on; a broken key keeps
    the pair in use."""
    cert_path, key_path = os.path.join(tmp, 'server.crt'), os.path.join(tmp, 'server.key')

    def install(cert_bytes, key_bytes):
        # Each file replaced whole (rename), as the kubelet does a Secret volume's.
        for path, data in ((key_path, key_bytes), (cert_path, cert_bytes)):
            with open(path + '.new', 'wb') as f:
                f.write(data)
            os.replace(path + '.new', path)

    def peer(address, alpn=None):
        try:
            with tls_connect(address, client_context(pki['ca1'].cert, alpn=alpn)) as s:
                return s.getpeercert(binary_form=True)
        except OSError:
            return None

    def reloads(outcome):
        return metric(scrape(server), 'rosetta_tls_reloads_total', outcome=outcome)

    def new_handshakes_see(want):
        return [name for name, address, alpn in (('gRPC', server.grpc, ['h2']), ('TCP', server.tcp, None),
                                                 ('HTTP', server.http, ['http/1.1']))
                if peer(address, alpn) != want]

    install(read(pki['a'][0]), read(pki['a'][1]))
    a_der, b_der = der(pki['a'][0]), der(pki['b'][0])
    stderr_path = os.path.join(tmp, 'rotation.stderr')
    with Rosettad(binary, '--tls-cert', cert_path, '--tls-key', key_path, stderr_path=stderr_path) as server:
        ctx = client_context(pki['ca1'].cert)
        check(new_handshakes_see(a_der) == [], 'rotation: before SIGHUP every listener presents certificate A')
        old_http = https_connection(server.http, ctx)
        first = https_transcode(old_http)
        old_http_sock = old_http.sock
        old_tcp = tls_connect(server.tcp, ctx)
        check(first == (200, CBOR) and tcp_works(old_tcp), 'rotation: a kept-alive HTTPS and a TCP TLS connection open')

        install(read(pki['b'][0]), read(pki['b'][1]))
        server.proc.send_signal(signal.SIGHUP)
        ok = wait_for(lambda: reloads('ok') == 1)
        check(ok, 'rotation: rosetta_tls_reloads_total{outcome="ok"} 1 after SIGHUP (%g)' % reloads('ok'))
        stale = new_handshakes_see(b_der)
        check(not stale, 'rotation: new handshakes get certificate B (still A or other: %s)' % stale)
        try:
            again = https_transcode(old_http)
            check(again == (200, CBOR) and old_http.sock is old_http_sock,
                  'rotation: the kept-alive HTTPS connection answers on the same socket (%s)' % (again[0],))
        except (OSError, http.client.HTTPException) as e:
            check(False, 'rotation: the kept-alive HTTPS connection answers: %r' % e)
        try:
            check(tcp_works(old_tcp) and old_tcp.getpeercert(binary_form=True) == a_der,
                  'rotation: the TCP connection opened with A answers')
        except (OSError, EOFError) as e:
            check(False, 'rotation: the TCP connection opened with A answers: %r' % e)

        with open(key_path, 'wb') as f:
            f.write(b'-----BEGIN PRIVATE KEY-----\nbroken\n-----END PRIVATE KEY-----\n')
        server.proc.send_signal(signal.SIGHUP)
        ok = wait_for(lambda: reloads('error') == 1)
        check(ok, 'rotation: a broken key: rosetta_tls_reloads_total{outcome="error"} 1 (%g)' % reloads('error'))
        check(reloads('ok') == 1, 'rotation: a broken key: outcome="ok" stays 1 (%g)' % reloads('ok'))
        stale = new_handshakes_see(b_der)
        check(not stale, 'rotation: after the failed reload new handshakes still get B (not: %s)' % stale)
        try:
            check(tcp_works(old_tcp) and https_transcode(old_http) == (200, CBOR),
                  'rotation: the old connections still answer after the failed reload')
        except (OSError, EOFError, http.client.HTTPException) as e:
            check(False, 'rotation: the old connections still answer after the failed reload: %r' % e)
        old_tcp.close()
        old_http.close()
        check(server.terminate() == 0, 'rotation: exit 0 after SIGTERM')
    with open(stderr_path, errors='replace') as f:
        err = f.read()
    check('TLS reloaded' in err, 'rotation: stderr says "TLS reloaded"')
    check('TLS reload failed' in err, 'rotation: stderr says "TLS reload failed"')


def run(what, check_function, *args):
    """One group of checks; an exception the group did not expect is its failure, and the
    groups after it still run."""
    try:
        check_function(*args)
    except Exception as e:  # noqa: BLE001 (any exception is a failed check here)
        traceback.print_exc()
        check(False, '%s: %r' % (what, e))


def main():
    binary, project = sys.argv[1:3]
    usage = subprocess.run([binary, '--help'], capture_output=True, text=True).stdout
    if '--tls-cert' not in usage:
        print('skip: %s --help does not list --tls-cert' % binary)
        return 77
    proto_dir = os.path.join(os.path.abspath(project), 'proto')
    with tempfile.TemporaryDirectory(prefix='rosetta-tls-') as tmp:
        subprocess.run([sys.executable, '-m', 'grpc_tools.protoc', '-I', proto_dir, '--python_out=' + tmp,
                        '--grpc_python_out=' + tmp, 'rosetta/v1/transcoder.proto'], check=True, cwd=proto_dir)
        sys.path.insert(0, tmp)
        import grpc
        pb = importlib.import_module('rosetta.v1.transcoder_pb2')
        pbg = importlib.import_module('rosetta.v1.transcoder_pb2_grpc')

        ca1 = CertificateAuthority(tmp, 'ca1')
        ca2 = CertificateAuthority(tmp, 'ca2')
        pki = {'ca1': ca1, 'ca2': ca2,
               'a': ca1.issue('rosettad-a', 'server_cert'),
               'b': ca1.issue('rosettad-b', 'server_cert'),
               'good': ca1.issue('client-good', 'client_cert'),
               'foreign': ca2.issue('client-foreign', 'client_cert'),
               'expired': ca1.issue('client-expired', 'client_cert', '20200101000000Z', '20200201000000Z')}
        tls = ('--tls-cert', pki['a'][0], '--tls-key', pki['a'][1])

        with Rosettad(binary, *tls, '--health-listen', '127.0.0.1:0') as server:
            run('TLS', check_tls_serving, server, pki, grpc, pb, pbg)
            run('plaintext', check_plaintext_refused, server, grpc, pb, pbg)
            run('ALPN', check_alpn, server, pki)
            run('versions', check_versions, server, pki)
            run('health', check_health, server)
            run('health in a drain', check_health_in_drain, server, pki)

        with Rosettad(binary, *tls, '--tls-client-ca', ca1.cert, '--health-listen', '127.0.0.1:0') as server:
            run('mTLS', check_mtls, server, pki, grpc, pb, pbg)
            run('health under mTLS', check_health, server)
            check(server.terminate() == 0, 'mTLS server: exit 0 after SIGTERM')

        run('rotation', check_rotation, binary, pki, tmp)

    print('tls_test: %s' % ('ok' if not failures else '%d failures' % len(failures)))
    return 1 if failures else 0


if __name__ == '__main__':
    sys.exit(main())
