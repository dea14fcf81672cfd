"""happybase over TLS and mutual TLS to a running ``ferrobase serve``.

happybase builds its own plain ``TSocket``; the recipe (README "TLS") is to make the connection
with ``autoconnect=False``, then give it thriftpy2's ``TSSLSocket`` under the transport and a
client over that transport, and open it. Certificates are made here with the ``openssl`` CLI.
``FERROBASE_BIN`` names the binary (default: the debug build).
"""

import os
import shutil
import signal
import subprocess
import tempfile

import happybase
import pytest
from thriftpy2.protocol import TBinaryProtocol, TCompactProtocol
from thriftpy2.thrift import TClient
from thriftpy2.transport import TBufferedTransport, TFramedTransport, TSSLSocket

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")


def tls_connection(host, port, ca, cert=None, key=None, transport="buffered", protocol="binary"):
    """A happybase Connection over TLS: the recipe for any HBase Thrift1 server behind TLS."""
    conn = happybase.Connection(host, port, autoconnect=False, transport=transport,
                                protocol=protocol)
    sock = TSSLSocket(host, port, cafile=ca, certfile=cert, keyfile=key)
    conn.transport = {"buffered": TBufferedTransport, "framed": TFramedTransport}[transport](sock)
    proto = {"binary": TBinaryProtocol, "compact": TCompactProtocol}[protocol]
    conn.client = TClient(happybase.connection.Hbase, proto(conn.transport, decode_response=False))
    conn.open()
    return conn


def openssl(*args):
    subprocess.run(["openssl", *args], check=True, capture_output=True)


class Pki:
    """A CA, a server certificate for localhost/127.0.0.1 and client certificates (CN = user)."""

    def __init__(self, d):
        self.d = d
        openssl("req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", self.path("ca.key"), "-out", self.path("ca.pem"), "-days", "2",
                "-subj", "/CN=ferrobase test CA")
        self.issue("server", "/CN=ferrobase",
                   "subjectAltName=DNS:localhost,IP:127.0.0.1\nextendedKeyUsage=serverAuth\n")

    def path(self, name):
        return os.path.join(self.d, name)

    def issue(self, stem, subject, extensions):
        ext = self.path(stem + ".ext")
        with open(ext, "w") as f:
            f.write(extensions)
        openssl("req", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:P-256", "-nodes",
                "-keyout", self.path(stem + ".key"), "-out", self.path(stem + ".csr"),
                "-subj", subject)
        openssl("x509", "-req", "-in", self.path(stem + ".csr"), "-CA", self.path("ca.pem"),
                "-CAkey", self.path("ca.key"), "-CAcreateserial", "-days", "2",
                "-extfile", ext, "-out", self.path(stem + ".pem"))

    def client(self, user):
        self.issue(user, "/CN=" + user, "extendedKeyUsage=clientAuth\n")
        return self.path(user + ".pem"), self.path(user + ".key")


class Server:
    def __init__(self, data, *extra):
        self.proc = subprocess.Popen([BINARY, "serve", "--data", data, "--port", "0", *extra],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "serving" in line, line
        self.port = int(line.split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0


@pytest.fixture()
def pki():
    d = tempfile.mkdtemp(prefix="ferrobase-pki-")
    yield Pki(d)
    shutil.rmtree(d, ignore_errors=True)


@pytest.fixture()
def data():
    d = tempfile.mkdtemp(prefix="ferrobase-tls-")
    yield d
    shutil.rmtree(d, ignore_errors=True)


def round_trip(conn):
    conn.create_table("t", {"cf": dict()})
    t = conn.table("t")
    t.put(b"r", {b"cf:q": b"v"})
    assert t.row(b"r") == {b"cf:q": b"v"}
    assert conn.tables() == [b"t"]


@pytest.mark.parametrize("transport,protocol", [("buffered", "binary"), ("framed", "compact")])
def test_happybase_over_tls(pki, data, transport, protocol):
    srv = Server(data, "--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key"))
    try:
        conn = tls_connection("localhost", srv.port, pki.path("ca.pem"), transport=transport,
                              protocol=protocol)
        round_trip(conn)
        conn.close()
    finally:
        srv.stop()


def test_happybase_over_mutual_tls(pki, data):
    cert, key = pki.client("alice")
    srv = Server(data, "--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key"),
                 "--tls-client-ca", pki.path("ca.pem"), "--superuser", "alice")
    try:
        conn = tls_connection("127.0.0.1", srv.port, pki.path("ca.pem"), cert, key)
        round_trip(conn)
        conn.close()
        # Without a client certificate: refused in the handshake, no call is served.
        with pytest.raises(Exception):
            bare = tls_connection("127.0.0.1", srv.port, pki.path("ca.pem"))
            bare.tables()
    finally:
        srv.stop()


def shell_as(pki, port, user, statements):
    """``ferrobase shell --connect`` over mutual TLS as ``user``."""
    if not os.path.exists(pki.path(user + ".pem")):
        pki.client(user)
    return subprocess.run(
        [BINARY, "shell", "-n", "--connect", "thrift://127.0.0.1:%d" % port,
         "--tls-ca", pki.path("ca.pem"), "--tls-cert", pki.path(user + ".pem"),
         "--tls-key", pki.path(user + ".key")],
        input=statements, capture_output=True, text=True)


def test_happybase_user_is_the_certificate_cn(pki, data):
    srv = Server(data, "--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key"),
                 "--tls-client-ca", pki.path("ca.pem"), "--superuser", "admin")
    try:
        out = shell_as(pki, srv.port, "admin",
                       "create 't', 'cf'\nput 't', 'r', 'cf:q', 'v'\ngrant 'bob', 'R', 't'\n")
        assert out.returncode == 0, out
        cert, key = pki.client("bob")
        bob = tls_connection("127.0.0.1", srv.port, pki.path("ca.pem"), cert, key)
        t = bob.table("t")
        assert t.row(b"r") == {b"cf:q": b"v"}
        with pytest.raises(Exception) as denied:
            t.put(b"r", {b"cf:q": b"w"})
        assert ("Insufficient permissions (user=bob, scope=default:t, family=cf:q, "
                "params=[table=default:t,family=cf:q],action=WRITE)"
                in str(denied.value.message)), denied.value
        bob.close()
        cert, key = pki.client("eve")
        eve = tls_connection("127.0.0.1", srv.port, pki.path("ca.pem"), cert, key)
        assert eve.tables() == []
        with pytest.raises(Exception) as denied:
            eve.table("t").row(b"r")
        assert ("Insufficient permissions for user 'eve' (table=t, action=READ)"
                in str(denied.value.message)), denied.value
        eve.close()
    finally:
        srv.stop()


class PlainSasl:
    """The SASL client object thriftpy2's TSaslClientTransport drives, for PLAIN."""

    def __init__(self, user, password):
        self.response = b"\0" + user.encode() + b"\0" + password.encode()

    def start(self, mechanism):
        return True, "PLAIN", self.response

    def step(self, challenge):
        return True, b""

    def encode(self, data):
        return True, data

    def decode(self, data):
        return True, data

    def getError(self):
        return ""


def sasl_connection(host, port, user, password):
    """A happybase Connection authenticated with SASL PLAIN (``ferrobase serve --auth-file``)."""
    from thriftpy2.transport import TCySaslClientTransport, TSocket
    conn = happybase.Connection(host, port, autoconnect=False)
    conn.transport = TCySaslClientTransport(lambda: PlainSasl(user, password), "PLAIN",
                                            TSocket(host, port))
    conn.client = TClient(happybase.connection.Hbase,
                          TBinaryProtocol(conn.transport, decode_response=False))
    conn.open()
    return conn


def test_happybase_with_a_password(data):
    auth = os.path.join(data, "..", os.path.basename(data) + ".users")
    with open(auth, "w") as f:
        for user, password in [("admin", "adm1n"), ("bob", "b0b")]:
            f.write(subprocess.run([BINARY, "passwd", user], input=password + "\n",
                                   capture_output=True, text=True, check=True).stdout)
    srv = Server(data, "--auth-file", auth, "--superuser", "admin")
    try:
        admin = sasl_connection("127.0.0.1", srv.port, "admin", "adm1n")
        round_trip(admin)
        admin.close()
        bob = sasl_connection("127.0.0.1", srv.port, "bob", "b0b")
        assert bob.tables() == []
        with pytest.raises(Exception) as denied:
            bob.table("t").row(b"r")
        assert "Insufficient permissions for user 'bob' (table=t, action=READ)" in str(
            denied.value.message)
        bob.close()
        with pytest.raises(Exception):
            sasl_connection("127.0.0.1", srv.port, "bob", "wrong")
    finally:
        srv.stop()
        os.remove(auth)


def test_thrift2_over_tls(pki, data):
    """HBase's Thrift2 door (``--thrift2-port``) serves TLS with Thrift1's flags; plaintext is refused."""
    import thriftpy2
    from thriftpy2.rpc import make_client

    t2 = thriftpy2.load(os.path.join(ROOT, "tests", "thrift2", "hbase.thrift"),
                        module_name="hbase2_tls_thrift")
    srv = Server(data, "--tls-cert", pki.path("server.pem"), "--tls-key", pki.path("server.key"),
                 "--thrift2-port", "0")
    try:
        transport = TBufferedTransport(TSSLSocket("localhost", srv.port, cafile=pki.path("ca.pem")))
        c = TClient(t2.THBaseService, TBinaryProtocol(transport))
        transport.open()
        c.createTable(t2.TTableDescriptor(tableName=t2.TTableName(qualifier=b"t2"),
                                          columns=[t2.TColumnFamilyDescriptor(name=b"cf")]), None)
        c.put(b"t2", t2.TPut(row=b"r", columnValues=[
            t2.TColumnValue(family=b"cf", qualifier=b"q", value=b"v")]))
        got = c.get(b"t2", t2.TGet(row=b"r"))
        assert [(v.qualifier, v.value) for v in got.columnValues] == [(b"q", b"v")]
        transport.close()
        # A plaintext client on the TLS port: the handshake fails, no call is served.
        with pytest.raises(Exception):
            make_client(t2.THBaseService, "127.0.0.1", srv.port, timeout=5000).exists(
                b"t2", t2.TGet(row=b"r"))
    finally:
        srv.stop()
