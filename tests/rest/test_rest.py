"""HBase's REST API (Stargate) beside Apache HBase: the same HTTP requests against
`ferrobase serve --rest-port 0` and the oracle's REST server (hbase-rest 2.6.1,
scripts/hbase-oracle.sh start), every resource in JSON, XML, protobuf and raw bytes where HBase offers
it, answers compared: status, content type, Location, X-Timestamp and the body after normalising
what must differ (hosts and ports, timestamps the server chose, region ids, scanner ids, versions).
Then the PyPI clients `hbase-rest-py` and `starbase` run a small scenario against both.
Differences that remain are KNOWN (strict: one that answers the same fails), each listed with its
reason in docs/design/hbase-compatibility.md."""

import base64
import json
import os
import re
import signal
import subprocess
import tempfile
import time
import xml.etree.ElementTree as ET

import pytest
import requests

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# label -> why the answers differ by design (docs/design/hbase-compatibility.md, "REST").
LOCATOR_500 = ("HBase 2.6.1 fails inside the resource (its locator or a stream it returns) and Jersey answers "
               "500 'Request failed'; ferrobase answers %s")
KNOWN = {
    "scan of a missing table": LOCATOR_500 % "404 Not found",
    "scan of a missing family": LOCATOR_500 % "404 Not found (as a row GET of a missing family)",
    "multiget of a missing table": LOCATOR_500 % "404 Not found",
    "bad timestamp in a row spec": LOCATOR_500 % "400 naming the number",
    "bad key encoding": LOCATOR_500 % "400 naming the encoding",
    "scan with a bad filter": LOCATOR_500 % "400 with the filter language's error",
    "bad json body": "HBase's Jersey answers a body it cannot map with 500 Server Error (no body); "
                     "ferrobase answers 400 with the parser's message",
    "bad base64 key": "as above: HBase 500, ferrobase 400 naming the bad base64",
    "missing namespace": "HBase 2.6.1 answers GET of a missing namespace with 500 (its resource fails); "
                         "ferrobase answers 404 Not found",
}

PREFIX = "rest_"
T = PREFIX + "t1"


def b64(s):
    if isinstance(s, str):
        s = s.encode()
    return base64.b64encode(s).decode()


def oracle_rest_port():
    if os.environ.get("HBASE_ORACLE_REST"):
        return int(os.environ["HBASE_ORACLE_REST"])
    state_dir = os.environ.get("HBASE_ORACLE_STATE_DIR") or os.path.join(ROOT, "target", "hbase-oracle")
    try:
        with open(os.path.join(state_dir, "state")) as f:
            fields = dict(kv.split("=", 1) for kv in f.read().split() if "=" in kv)
    except FileNotFoundError:
        pytest.fail("Apache HBase (the oracle) is not running: start it with `bash scripts/hbase-oracle.sh "
                    "start` (or set HBASE_ORACLE_REST)", pytrace=False)
    if "rest" not in fields:
        pytest.fail("the running oracle has no REST server: restart it (bash scripts/hbase-oracle.sh stop; "
                    "start)", pytrace=False)
    return int(fields["rest"])


class Ferrobase:
    def __init__(self):
        binary = os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")
        self.data = tempfile.mkdtemp(prefix="ferrobase-rest-")
        self.proc = subprocess.Popen([binary, "serve", "--data", self.data, "--port", "0",
                                      "--rest-port", "0", "--no-auto-compaction"],
                                     stdout=subprocess.PIPE, text=True)
        self.port = None
        for _ in range(10):
            line = self.proc.stdout.readline()
            if "REST API on" in line:
                self.port = int(line.rsplit(":", 1)[1])
            if "serving the HBase Thrift API" in line or not line:
                break
        if self.port is None:
            self.proc.kill()
            raise RuntimeError("ferrobase serve printed no REST port")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        code = self.proc.wait(timeout=60)
        subprocess.run(["rm", "-rf", self.data])
        return code


@pytest.fixture(scope="module")
def servers():
    fb = Ferrobase()
    oracle = "http://127.0.0.1:%d" % oracle_rest_port()
    ours = "http://127.0.0.1:%d" % fb.port
    yield ours, oracle
    assert fb.stop() == 0


# ---- protobuf, decoded by schema (HBase REST's .proto messages) ----

CELL = {1: ("row", "bytes"), 2: ("column", "bytes"), 3: ("timestamp", "int"), 4: ("data", "bytes")}
SCHEMAS = {
    "CellSet": {1: ("rows", {1: ("key", "bytes"), 2: ("values", CELL)})},
    "TableList": {1: ("name", "str")},
    "Namespaces": {1: ("namespace", "str")},
    "Version": {1: ("rest", "str"), 2: ("jvm", "str"), 3: ("os", "str"), 4: ("server", "str"),
                5: ("jersey", "str")},
    "TableSchema": {1: ("name", "str"), 2: ("attrs", {1: ("name", "str"), 2: ("value", "str")}),
                    3: ("columns", {1: ("name", "str"), 2: ("attrs", {1: ("name", "str"), 2: ("value", "str")}),
                                    3: ("ttl", "int"), 4: ("maxVersions", "int"), 5: ("compression", "str")}),
                    4: ("inMemory", "int"), 5: ("readOnly", "int")},
    "TableInfo": {1: ("name", "str"), 2: ("regions", {1: ("name", "str"), 2: ("startKey", "bytes"),
                                                      3: ("endKey", "bytes"), 4: ("id", "int"),
                                                      5: ("location", "str")})},
}


def varint(b, i):
    shift = result = 0
    while True:
        c = b[i]
        i += 1
        result |= (c & 0x7F) << shift
        if not c & 0x80:
            return result, i
        shift += 7


def pb_decode(b, schema):
    out = {}
    i = 0
    while i < len(b):
        key, i = varint(b, i)
        field, wire = key >> 3, key & 7
        if wire == 0:
            v, i = varint(b, i)
        elif wire == 2:
            n, i = varint(b, i)
            v = bytes(b[i:i + n])
            i += n
        elif wire == 1:
            v = bytes(b[i:i + 8])
            i += 8
        else:
            raise ValueError("wire type %d" % wire)
        name, kind = schema.get(field, ("field%d" % field, "bytes"))
        if isinstance(kind, dict):
            v = pb_decode(v, kind)
        elif kind == "str":
            v = v.decode()
        out.setdefault(name, []).append(v)
    return out


# ---- normalisation ----

NOW_WINDOW_MS = 3600 * 1000


def is_now(v):
    return isinstance(v, int) and abs(v - time.time() * 1000) < NOW_WINDOW_MS


def norm_json(v):
    if isinstance(v, dict):
        return {k: ("ID" if k == "id" else
                    "NOW" if k in ("timestamp", "startCode") and is_now(as_int(x)) else norm_json(x))
                for k, x in v.items()}
    if isinstance(v, list):
        return [norm_json(x) for x in v]
    return v


def as_int(x):
    try:
        return int(x)
    except (TypeError, ValueError):
        return None


def norm_xml(el):
    attrs = {k: ("ID" if k == "id" else
                 "NOW" if k in ("timestamp", "startCode") and is_now(as_int(v)) else v)
             for k, v in el.attrib.items()}
    return [el.tag, attrs, (el.text or "").strip(), [norm_xml(c) for c in el]]


def norm_pb(v):
    if isinstance(v, dict):
        return {k: (["ID"] if k == "id" else norm_pb(x)) for k, x in v.items()}
    if isinstance(v, str):
        return text_norm(v)
    if isinstance(v, list):
        return [norm_pb(x) for x in v]
    if is_now(v):
        return "NOW"
    return v


HOSTPORT = re.compile(r"127\.0\.0\.1:\d+|localhost:\d+")
# Region ids: HBase's are creation times, ferrobase's the engine's own numbers (both name the region).
REGION_ID = re.compile(r",(\d+)\.([0-9a-f]{32})\.")
SCANNER_ID = re.compile(r"/scanner/[0-9a-f]+$")


def text_norm(s):
    s = HOSTPORT.sub("HOST:PORT", s)
    s = REGION_ID.sub(",ID.ENC.", s)
    return s


def describe(resp, kind=None):
    """A response as comparable plain data."""
    ct = resp.headers.get("Content-Type", "").split(";")[0]
    out = {"status": resp.status_code}
    if resp.status_code in (406, 415):
        # HBase's Jersey answers these without a body; ferrobase's name what was asked.
        return out
    if resp.status_code >= 400:
        # HBase adds a Java stack trace after the first line; a 500 comes without a body.
        out["first line"] = resp.content.split(b"\r\n")[0].decode(errors="replace") if resp.content else ""
        return out
    out["type"] = ct
    if "Location" in resp.headers:
        out["location"] = SCANNER_ID.sub("/scanner/ID", text_norm(resp.headers["Location"]))
    if "X-Timestamp" in resp.headers:
        out["x-timestamp"] = "NOW" if is_now(as_int(resp.headers["X-Timestamp"])) else resp.headers["X-Timestamp"]
    for h in ("X-Row", "X-Column"):
        if h in resp.headers:
            out[h.lower()] = resp.headers[h]
    body = resp.content
    if not body:
        out["body"] = None
    elif ct == "application/json":
        out["body"] = norm_json(json.loads(text_norm(body.decode())))
    elif ct == "text/xml":
        out["body"] = norm_xml(ET.fromstring(text_norm(body.decode()).encode()))
    elif ct in ("application/x-protobuf", "application/protobuf"):
        if kind == "stream":
            chunks, i = [], 0
            while i < len(body):
                n = int.from_bytes(body[i:i + 2], "big")
                chunks.append(norm_pb(pb_decode(body[i + 2:i + 2 + n], SCHEMAS["CellSet"])))
                i += 2 + n
            out["body"] = chunks
        else:
            out["body"] = norm_pb(pb_decode(body, SCHEMAS[kind]))
    elif ct == "text/plain":
        out["body"] = text_norm(body.decode(errors="replace")).encode()
    else:
        out["body"] = body
    return out


def request(base, method, path, accept=None, ctype=None, body=None, headers=None):
    h = dict(headers or {})
    if accept:
        h["Accept"] = accept
    if ctype:
        h["Content-Type"] = ctype
    return requests.request(method, base + path, headers=h, data=body, timeout=60, allow_redirects=False)


class Run:
    def __init__(self, ours, oracle):
        self.ours, self.oracle = ours, oracle
        self.diffs = []
        self.same = 0

    def both(self, label, method, path, accept=None, ctype=None, body=None, kind=None, headers=None,
             filt=None):
        a = request(self.ours, method, path, accept, ctype, body, headers)
        b = request(self.oracle, method, path, accept, ctype, body, headers)
        da, db = describe(a, kind), describe(b, kind)
        if filt:
            da, db = filt(da), filt(db)
        if label in KNOWN:
            if da == db:
                self.diffs.append((label, "listed as KNOWN but answers the same", da))
        elif da != db:
            self.diffs.append((label, da, db))
        else:
            self.same += 1
        return a, b


JSON, XML, PB, BIN, TEXT = "application/json", "text/xml", "application/x-protobuf", "application/octet-stream", "text/plain"


def only_ours(d):
    """The table list filtered to this test's tables (the oracle holds other suites' too)."""
    body = d.get("body")
    if isinstance(body, dict) and "table" in body:
        body["table"] = [t for t in body["table"] if t["name"].startswith(PREFIX)]
    if isinstance(body, dict) and "name" in body and isinstance(body["name"], list):
        body["name"] = [n for n in body["name"] if n.startswith(PREFIX)]
    if isinstance(body, list) and body and body[0] == "TableList":
        body[3] = [t for t in body[3] if t[1].get("name", "").startswith(PREFIX)]
    if isinstance(body, bytes):
        d["body"] = b"".join(l + b"\n" for l in body.split(b"\n") if l.startswith(PREFIX.encode()))
    return d


def schema_norm(d):
    """HBase adds its store file tracker's attribute to every table; ferrobase has none."""
    body = d.get("body")
    if isinstance(body, dict) and "hbase.store.file-tracker.impl" in body:
        del body["hbase.store.file-tracker.impl"]
    if isinstance(body, list) and body and body[0] == "TableSchema":
        body[1].pop("hbase.store.file-tracker.impl", None)
    if isinstance(body, dict) and "attrs" in body:
        body["attrs"] = [a for a in body["attrs"] if a["name"] != ["hbase.store.file-tracker.impl"]]
    return d


def structure(d):
    """Shape only (cluster status: loads and requests differ by nature)."""
    def shape(v):
        if isinstance(v, dict):
            return {k: shape(x) for k, x in v.items() if k not in ("Region",)}
        if isinstance(v, list):
            return [shape(v[0])] if v and not isinstance(v[0], str) else []
        return type(v).__name__
    if isinstance(d.get("body"), dict):
        d["body"] = shape(d["body"])
    return d


def xml_structure(d):
    def shape(el):
        return [el[0], sorted(el[1]), [shape(c) for c in el[3] if c[0] != "Region"][:2]]
    if isinstance(d.get("body"), list):
        d["body"] = shape(d["body"])
    return d


def text_schema_norm(d):
    body = d.get("body")
    if isinstance(body, bytes):
        d["body"] = body.replace(b", hbase.store.file-tracker.impl => 'DEFAULT'", b"")
    return d


def version_norm(d):
    body = d.get("body")
    if isinstance(body, dict):
        d["body"] = sorted(body)
    elif isinstance(body, list):
        d["body"] = [body[0], sorted(body[1])]
    return d



def test_rest_against_hbase(servers):
    ours, oracle = servers
    r = Run(ours, oracle)
    # A clean slate on the oracle, which other suites share.
    for path in ("/%s/schema" % T, "/%st2/schema" % PREFIX, "/%sns:t/schema" % PREFIX,
                 "/namespaces/%sns" % PREFIX):
        requests.delete(oracle + path, timeout=60)

    # Versions and the cluster.
    for a in (JSON, XML):
        r.both("version " + a, "GET", "/version", accept=a, filt=version_norm)
    for a in (JSON, XML, TEXT):
        r.both("cluster version " + a, "GET", "/version/cluster", accept=a)
    r.both("cluster status json", "GET", "/status/cluster", accept=JSON, filt=structure)
    r.both("cluster status text", "GET", "/status/cluster", accept=TEXT,
           filt=lambda d: dict(d, body=d["body"].split(b"\n")[0].split(b", ")[1:2]))
    r.both("cluster status xml", "GET", "/status/cluster", accept=XML, filt=xml_structure)
    r.both("version protobuf", "GET", "/version", accept=PB, kind="Version", filt=version_norm)
    r.both("version text", "GET", "/version", accept=TEXT, filt=lambda d: dict(d, body=d["body"][:9]))
    r.both("cluster version protobuf", "GET", "/version/cluster", accept=PB)

    # Schema: create, read in every representation, update, list.
    schema = {"name": T, "ColumnSchema": [{"name": "cf", "VERSIONS": "3"}, {"name": "cf2"}]}
    r.both("create table", "PUT", "/%s/schema" % T, ctype=JSON, body=json.dumps(schema))
    for a, k in ((JSON, None), (XML, None), (PB, "TableSchema")):
        r.both("schema " + a, "GET", "/%s/schema" % T, accept=a, kind=k, filt=schema_norm)
    r.both("add family", "POST", "/%s/schema" % T, ctype=XML,
           body='<TableSchema name="%s"><ColumnSchema name="cf3" VERSIONS="2"/></TableSchema>' % T)
    r.both("schema after POST", "GET", "/%s/schema" % T, accept=JSON, filt=schema_norm)
    r.both("schema text", "GET", "/%s/schema" % T, accept=TEXT, filt=text_schema_norm)
    r.both("schema default accept", "GET", "/%s/schema" % T, filt=text_schema_norm)
    # A second table, created from protobuf, replaced from XML (a family goes, one is changed).
    T2 = PREFIX + "t2"
    requests.delete(oracle + "/%s/schema" % T2, timeout=60)
    def ld(field, payload):
        return bytes([field << 3 | 2, len(payload)]) + payload
    attr = ld(2, ld(1, b"VERSIONS") + ld(2, b"4"))
    r.both("create table protobuf", "PUT", "/%s/schema" % T2, ctype=PB,
           body=ld(1, T2.encode()) + ld(3, ld(1, b"a") + attr) + ld(3, ld(1, b"b")))
    r.both("schema of protobuf table", "GET", "/%s/schema" % T2, accept=JSON, filt=schema_norm)
    r.both("replace schema xml", "PUT", "/%s/schema" % T2, ctype=XML,
           body='<TableSchema name="%s"><ColumnSchema name="a" VERSIONS="2"/><ColumnSchema name="c"/></TableSchema>' % T2)
    r.both("schema after replace", "GET", "/%s/schema" % T2, accept=XML, filt=schema_norm)
    r.both("drop second table", "DELETE", "/%s/schema" % T2)
    r.both("schema of a missing table", "GET", "/%snope/schema" % PREFIX, accept=JSON)
    for a, k in ((JSON, None), (XML, None), (PB, "TableList"), (TEXT, None)):
        r.both("table list " + a, "GET", "/", accept=a, kind=k, filt=only_ours)
    r.both("regions json", "GET", "/%s/regions" % T, accept=JSON)
    r.both("regions xml", "GET", "/%s/regions" % T, accept=XML)
    r.both("regions text", "GET", "/%s/regions" % T, accept=TEXT,
           filt=lambda d: dict(d, body=re.sub(rb"id=\d+", b"id=ID", d["body"])))
    r.both("regions protobuf", "GET", "/%s/regions" % T, accept=PB, kind="TableInfo")
    r.both("exists", "GET", "/%s/exists" % T)
    r.both("exists, missing", "GET", "/%snope/exists" % PREFIX)

    # Namespaces.
    for a, k in ((JSON, None), (XML, None), (PB, "Namespaces"), (TEXT, None)):
        r.both("namespaces " + a, "GET", "/namespaces", accept=a, kind=k)
    r.both("create namespace", "POST", "/namespaces/%sns" % PREFIX)
    r.both("create namespace again", "POST", "/namespaces/%sns" % PREFIX)
    r.both("update namespace", "PUT", "/namespaces/%sns" % PREFIX, ctype=JSON, body="{}")
    r.both("update missing namespace", "PUT", "/namespaces/%snope" % PREFIX, ctype=JSON, body="{}")
    r.both("drop missing namespace", "DELETE", "/namespaces/%snope" % PREFIX)
    r.both("namespace json", "GET", "/namespaces/%sns" % PREFIX, accept=JSON)
    r.both("namespace xml", "GET", "/namespaces/%sns" % PREFIX, accept=XML)
    r.both("namespace text", "GET", "/namespaces/%sns" % PREFIX, accept=TEXT)
    r.both("namespace protobuf", "GET", "/namespaces/%sns" % PREFIX, accept=PB, kind="TableList")
    r.both("missing namespace", "GET", "/namespaces/%snope" % PREFIX, accept=JSON)
    r.both("namespace tables, empty", "GET", "/namespaces/%sns/tables" % PREFIX, accept=JSON)
    nt = "%sns:t" % PREFIX
    r.both("table in a namespace", "PUT", "/%s/schema" % nt, ctype=JSON,
           body=json.dumps({"name": nt, "ColumnSchema": [{"name": "f"}]}))
    r.both("namespace tables json", "GET", "/namespaces/%sns/tables" % PREFIX, accept=JSON)
    r.both("namespace tables xml", "GET", "/namespaces/%sns/tables" % PREFIX, accept=XML)
    r.both("put in a namespaced table", "PUT", "/%s/r/f:q" % nt, ctype=BIN, body=b"nsv")
    r.both("get in a namespaced table", "GET", "/%s/r" % nt, accept=JSON)
    r.both("namespace not empty", "DELETE", "/namespaces/%sns" % PREFIX)
    r.both("drop namespaced table", "DELETE", "/%s/schema" % nt)
    r.both("drop namespace", "DELETE", "/namespaces/%sns" % PREFIX)

    # Writes in every representation.
    cells = {"Row": [{"key": b64("r1"), "Cell": [
        {"column": b64("cf:a"), "timestamp": 5, "$": b64("v5")},
        {"column": b64("cf:a"), "timestamp": 6, "$": b64("v6")},
        {"column": b64("cf:a"), "timestamp": 7, "$": b64("v7")},
        {"column": b64("cf:b"), "$": b64("now")}]}]}
    r.both("put json", "PUT", "/%s/r1" % T, ctype=JSON, body=json.dumps(cells))
    r.both("put xml", "PUT", "/%s/r2" % T, ctype=XML,
           body='<CellSet><Row key="%s"><Cell column="%s" timestamp="9">%s</Cell></Row></CellSet>'
           % (b64("r2"), b64("cf:a"), b64("x2")))
    # A protobuf CellSet: row r3, cf:a = v3 at 11, cf2:q = y at 12.
    def ld(field, payload):
        return bytes([field << 3 | 2, len(payload)]) + payload

    def cell(col, ts, data):
        return ld(2, ld(2, col) + bytes([3 << 3]) + bytes([ts]) + ld(4, data))
    pb_body = ld(1, ld(1, b"r3") + cell(b"cf:a", 11, b"v3") + cell(b"cf2:q", 12, b"y"))
    r.both("post protobuf", "POST", "/%s/r3" % T, ctype=PB, body=pb_body)
    r.both("put binary", "PUT", "/%s/r4/cf:a" % T, ctype=BIN, body=b"\x00raw\xff",
           headers={"X-Timestamp": "13"})
    r.both("put, cell without column", "PUT", "/%s/r5/cf:z" % T, ctype=JSON,
           body=json.dumps({"Row": [{"key": b64("r5"), "Cell": [{"timestamp": 3, "$": b64("z")}]}]}))
    r.both("put, family only", "PUT", "/%s/r6" % T, ctype=JSON,
           body=json.dumps({"Row": [{"key": b64("r6"), "Cell": [{"column": b64("cf"), "$": b64("z")}]}]}))

    # ?check=: checkAndPut, checkAndDelete, append, increment.
    def cs(key, *cells):
        return json.dumps({"Row": [{"key": b64(key), "Cell": [
            dict({"column": b64(c), "$": b64(v)}, **({"timestamp": t} if t else {})) for c, v, t in cells]}]})
    r.both("put for checks", "PUT", "/%s/c1" % T, ctype=JSON, body=cs("c1", ("cf:a", "x", 100), ("cf:b", "y", 100)))
    r.both("check=put applies", "PUT", "/%s/c1?check=put" % T, ctype=JSON,
           body=cs("c1", ("cf:a", "x2", 101), ("cf:a", "x", None)))
    r.both("check=put fails", "PUT", "/%s/c1?check=put" % T, ctype=JSON,
           body=cs("c1", ("cf:a", "x3", 102), ("cf:a", "nope", None)))
    r.both("check=put, check column not put", "PUT", "/%s/c1?check=put" % T, ctype=JSON,
           body=cs("c1", ("cf:b", "x3", 102), ("cf:a", "x2", None)))
    r.both("check=put, one cell", "PUT", "/%s/c1?check=put" % T, ctype=JSON, body=cs("c1", ("cf:a", "x2", None)))
    r.both("after check=put", "GET", "/%s/c1?v=5" % T, accept=JSON)
    r.both("check=delete fails", "POST", "/%s/c1?check=delete" % T, ctype=JSON,
           body=cs("c1", ("cf:b", "", None), ("cf:a", "nope", None)))
    r.both("check=delete applies", "POST", "/%s/c1?check=delete" % T, ctype=JSON,
           body=cs("c1", ("cf:b", "", None), ("cf:a", "x2", None)))
    r.both("after check=delete", "GET", "/%s/c1?v=5" % T, accept=JSON)
    r.both("check=delete, check cell only", "PUT", "/%s/c1/cf:a?check=delete" % T, ctype=JSON,
           body=cs("c1", ("cf:a", "x2", None)))
    r.both("after check=delete of the column", "GET", "/%s/c1?v=5" % T, accept=JSON)
    r.both("check=append", "PUT", "/%s/c2?check=append" % T, ctype=JSON, body=cs("c2", ("cf:a", "ab", None)))
    r.both("check=append rr", "PUT", "/%s/c2?check=append&rr=true" % T, ctype=JSON, accept=JSON,
           body=cs("c2", ("cf:a", "cd", None), ("cf:b", "z", None)))
    r.both("check=increment", "PUT", "/%s/c3?check=increment" % T, ctype=JSON, body=cs("c3", ("cf:n", "5", None)))
    r.both("check=increment rr", "PUT", "/%s/c3?check=increment&rr=true" % T, ctype=JSON, accept=JSON,
           body=cs("c3", ("cf:n", "2", None)))
    r.both("after increments", "GET", "/%s/c3/cf:n" % T, accept=BIN)
    r.both("check=increment, not a number", "PUT", "/%s/c3?check=increment" % T, ctype=JSON,
           body=cs("c3", ("cf:n", "two", None)))
    r.both("check=bogus", "PUT", "/%s/c3?check=bogus" % T, ctype=JSON, body=cs("c3", ("cf:n", "2", None)))
    r.both("check=put, two rows", "PUT", "/%s/c1?check=put" % T, ctype=JSON, body=json.dumps({"Row": [
        {"key": b64("a"), "Cell": [{"column": b64("cf:a"), "$": b64("1")}]},
        {"key": b64("b"), "Cell": [{"column": b64("cf:a"), "$": b64("1")}]}]}))
    for k in ("c1", "c2", "c3"):
        requests.delete(ours + "/%s/%s" % (T, k), timeout=60)
        requests.delete(oracle + "/%s/%s" % (T, k), timeout=60)

    # Reads: every representation, versions, timestamps, ranges, globs.
    for a, k in ((JSON, None), (XML, None), (PB, "CellSet")):
        r.both("get row " + a, "GET", "/%s/r1" % T, accept=a, kind=k)
    r.both("get cell binary", "GET", "/%s/r1/cf:a" % T, accept=BIN)
    r.both("get binary, raw bytes", "GET", "/%s/r4/cf:a" % T, accept=BIN)
    r.both("get row binary, two columns", "GET", "/%s/r1" % T, accept=BIN)
    # No Accept header (requests sends */*): HBase's RowResource has two GET methods that
    # produce it equally (getBinary and get), and Jersey picks one by the order reflection lists
    # them, which differs from one JVM start to the next: the oracle answers binary in one run
    # and XML in another. Ours must be one of HBase's two answers.
    default_ours = describe(request(r.ours, "GET", "/%s/r1/cf:a" % T))
    default_theirs = [describe(request(r.oracle, "GET", "/%s/r1/cf:a" % T, accept=a))
                      for a in (BIN, XML)]
    if default_ours in default_theirs:
        r.same += 1
    else:
        r.diffs.append(("get default accept", default_ours, default_theirs))
    r.both("get ?v=3", "GET", "/%s/r1/cf:a?v=3" % T, accept=JSON)
    r.both("get ?v=2", "GET", "/%s/r1?v=2" % T, accept=JSON)
    r.both("get at timestamp", "GET", "/%s/r1/cf:a/7?v=3" % T, accept=JSON)
    r.both("get time range", "GET", "/%s/r1/cf:a/5,7?v=3" % T, accept=JSON)
    r.both("get family", "GET", "/%s/r3/cf2" % T, accept=JSON)
    r.both("get two columns", "GET", "/%s/r3/cf:a,cf2:q" % T, accept=XML)
    r.both("get range r1,r3", "GET", "/%s/r1,r3/cf:a" % T, accept=JSON)
    r.both("get suffix glob", "GET", "/%s/r*/cf:a" % T, accept=JSON)
    r.both("get missing row", "GET", "/%s/nope" % T, accept=JSON)
    r.both("get missing table", "GET", "/%snope/r1" % PREFIX, accept=JSON)
    r.both("get missing family", "GET", "/%s/r1/nocf:a" % T, accept=JSON)
    r.both("get b64 key", "GET", "/%s/%s?e=b64" % (T, b64("r2")), accept=JSON)
    r.both("multiget", "GET", "/%s/multiget?row=r1&row=r2&row=nope" % T, accept=JSON)
    r.both("multiget xml, columns", "GET", "/%s/multiget/cf:a?row=r1&row=r3&v=2" % T, accept=XML)
    r.both("multiget protobuf", "GET", "/%s/multiget?row=r2" % T, accept=PB, kind="CellSet")
    r.both("multiget none", "GET", "/%s/multiget?row=nope" % T, accept=JSON)

    # The stateless scan.
    r.both("scan prefix json", "GET", "/%s/r*" % T, accept=JSON)
    r.both("scan prefix xml", "GET", "/%s/r*" % T, accept=XML)
    r.both("scan table, limit", "GET", "/%s/*?limit=2" % T, accept=JSON)
    r.both("scan start/end rows", "GET", "/%s/*?startrow=r2&endrow=r4" % T, accept=JSON)
    r.both("scan column, versions", "GET", "/%s/*?column=cf:a&maxversions=2" % T, accept=JSON)
    r.both("scan time range", "GET", "/%s/*?starttime=6&endtime=12&maxversions=5" % T, accept=JSON)
    r.both("scan reversed", "GET", "/%s/*?reversed=true" % T, accept=JSON)
    r.both("scan filter", "GET", "/%s/*?filter=%s" % (T, requests.utils.quote("ValueFilter(=,'binary:y')")),
           accept=JSON)
    r.both("scan filter_b64", "GET", "/%s/*?filter_b64=%s" % (
        T, base64.urlsafe_b64encode(b"QualifierFilter(=,'binary:q')").decode()), accept=JSON)
    r.both("scan family column", "GET", "/%s/*?column=cf2" % T, accept=XML)
    r.both("scan batch", "GET", "/%s/r1*?batchsize=1&maxversions=3" % T, accept=JSON)
    r.both("scan protobuf stream", "GET", "/%s/*" % T, accept=PB, kind="stream")
    r.both("scan nothing", "GET", "/%s/zz*" % T, accept=JSON)

    # Scanners.
    def scanner(label, ctype, body, accept=JSON, n_gets=4, params=""):
        a, b = r.both(label + ": open", "POST", "/%s/scanner" % T, ctype=ctype, body=body)
        locs = [x.headers.get("Location") for x in (a, b)]
        if not all(locs):
            return
        paths = [re.sub(r"^https?://[^/]+", "", loc) for loc in locs]
        for i in range(n_gets):
            ra = requests.get(ours + paths[0] + params, headers={"Accept": accept}, timeout=60)
            rb = requests.get(oracle + paths[1] + params, headers={"Accept": accept}, timeout=60)
            da, db = describe(ra, "CellSet"), describe(rb, "CellSet")
            lab = "%s: get %d" % (label, i)
            if da != db:
                r.diffs.append((lab, da, db))
            else:
                r.same += 1
            if ra.status_code == 204 and rb.status_code == 204:
                break
        ra = requests.delete(ours + paths[0], timeout=60)
        rb = requests.delete(oracle + paths[1], timeout=60)
        if (ra.status_code, rb.status_code) != (200, 200):
            r.diffs.append((label + ": delete", ra.status_code, rb.status_code))
        ra = requests.get(ours + paths[0], headers={"Accept": JSON}, timeout=60)
        rb = requests.get(oracle + paths[1], headers={"Accept": JSON}, timeout=60)
        if describe(ra) != describe(rb):
            r.diffs.append((label + ": get after delete", describe(ra), describe(rb)))

    scanner("scanner json batch 3", JSON, json.dumps({"batch": 3}))
    scanner("scanner rows n=2", JSON, json.dumps({"batch": 100}), params="?n=2")
    scanner("scanner xml range", XML, '<Scanner batch="10" startRow="%s" endRow="%s"><column>%s</column></Scanner>'
            % (b64("r2"), b64("r4"), b64("cf:a")), accept=XML)
    scanner("scanner protobuf", PB, b"\x20\x0a" + bytes([7 << 3, 2]), accept=PB)
    scanner("scanner filter", JSON, json.dumps({"batch": 10, "filter": json.dumps(
        {"type": "PrefixFilter", "value": b64("r3")})}))
    scanner("scanner filter list", JSON, json.dumps({"batch": 10, "filter": json.dumps(
        {"type": "FilterList", "op": "MUST_PASS_ALL", "filters": [
            {"type": "QualifierFilter", "op": "EQUAL", "comparator": {"type": "BinaryComparator", "value": b64("a")}},
            {"type": "ValueFilter", "op": "NOT_EQUAL", "comparator": {"type": "SubstringComparator", "value": "7"}}]})}))
    scanner("scanner binary", JSON, json.dumps({"batch": 1}), accept=BIN, n_gets=3)
    scanner("scanner versions, time range", JSON, json.dumps(
        {"batch": 20, "maxVersions": 5, "startTime": 6, "endTime": 12, "column": [b64("cf")]}))
    scanner("scanner c=2", JSON, json.dumps({"batch": 100}), params="?c=2")
    scanner("scanner xml filter", XML, '<Scanner batch="5"><filter>%s</filter></Scanner>' % json.dumps(
        {"type": "SingleColumnValueFilter", "op": "EQUAL", "family": b64("cf2"), "qualifier": b64("q"),
         "comparator": {"type": "BinaryComparator", "value": b64("y")}, "ifMissing": True}).replace('"', "&quot;"))
    scanner("scanner page filter", JSON, json.dumps({"batch": 100, "filter": json.dumps(
        {"type": "PageFilter", "value": "2"})}))
    scanner("scanner column range", JSON, json.dumps({"batch": 100, "filter": json.dumps(
        {"type": "ColumnRangeFilter", "minColumn": b64("a"), "minColumnInclusive": True,
         "maxColumn": b64("b"), "maxColumnInclusive": False})}))
    scanner("scanner multi row range", JSON, json.dumps({"batch": 100, "filter": json.dumps(
        {"type": "MultiRowRangeFilter", "ranges": [
            {"startRow": b64("r1"), "startRowInclusive": True, "stopRow": b64("r2"), "stopRowInclusive": True},
            {"startRow": b64("r4"), "startRowInclusive": False, "stopRow": b64("r9"), "stopRowInclusive": False}]})}))
    scanner("scanner fuzzy row", JSON, json.dumps({"batch": 100, "filter": json.dumps(
        {"type": "FuzzyRowFilter", "fuzzyKeys": [{"key": b64("r?"), "mask": b64("\x00\x01")}]})}))
    scanner("scanner random row, chance 1", JSON, json.dumps({"batch": 100, "filter": json.dumps(
        {"type": "RandomRowFilter", "chance": 1.0})}))
    scanner("scanner random row, chance 0", JSON, json.dumps({"batch": 100, "filter": json.dumps(
        {"type": "RandomRowFilter", "chance": 0.0})}))
    scanner_of_missing_table = PREFIX + "nope"
    a, b = r.both("scanner on a missing table", "POST", "/%s/scanner" % scanner_of_missing_table,
                  ctype=JSON, body="{}")
    if a.status_code == 201 and b.status_code == 201:
        pa = re.sub(r"^https?://[^/]+", "", a.headers["Location"])
        pb = re.sub(r"^https?://[^/]+", "", b.headers["Location"])
        da = describe(requests.get(ours + pa, headers={"Accept": JSON}, timeout=60))
        db = describe(requests.get(oracle + pb, headers={"Accept": JSON}, timeout=60))
        if da != db:
            r.diffs.append(("scanner on a missing table: get", da, db))
    r.both("scanner missing", "GET", "/%s/scanner/123abc" % T, accept=JSON)

    # Deletes.
    r.both("delete column", "DELETE", "/%s/r1/cf:a" % T)
    r.both("get after column delete", "GET", "/%s/r1" % T, accept=JSON)
    r.both("delete at timestamp", "DELETE", "/%s/r3/cf2/12" % T)
    r.both("get after timestamp delete", "GET", "/%s/r3" % T, accept=JSON)
    r.both("delete row", "DELETE", "/%s/r2" % T)
    r.both("get deleted row", "GET", "/%s/r2" % T, accept=JSON)
    r.both("delete in a missing table", "DELETE", "/%snope/r2" % PREFIX)
    r.both("delete of a missing family", "DELETE", "/%s/r3/nocf" % T)
    r.both("delete of a missing row", "DELETE", "/%s/nope" % T)
    r.both("scan of a missing table", "GET", "/%snope/*" % PREFIX, accept=JSON)
    r.both("scan of a missing family", "GET", "/%s/*?column=nocf" % T, accept=JSON)
    r.both("multiget of a missing table", "GET", "/%snope/multiget?row=r1" % PREFIX, accept=JSON)
    r.both("regions of a missing table", "GET", "/%snope/regions" % PREFIX, accept=JSON)
    r.both("drop a missing table", "DELETE", "/%snope/schema" % PREFIX)
    r.both("bad timestamp in a row spec", "GET", "/%s/r1/cf:a/xyz" % T, accept=JSON)
    r.both("bad key encoding", "GET", "/%s/r1?e=rot13" % T, accept=JSON)
    r.both("scan with a bad filter", "GET", "/%s/*?filter=NoSuchFilter()" % T, accept=JSON)

    # Malformed requests.
    r.both("bad json body", "PUT", "/%s/r1" % T, ctype=JSON, body="{bad")
    r.both("bad base64 key", "PUT", "/%s/r1" % T, ctype=JSON,
           body=json.dumps({"Row": [{"key": "!!!", "Cell": [{"column": b64("cf:a"), "$": b64("v")}]}]}))
    r.both("unknown content type", "PUT", "/%s/r1/cf:a" % T, ctype="foo/bar", body="x")
    r.both("unknown accept", "GET", "/%s/r1" % T, accept="foo/bar")
    r.both("put to a missing family", "PUT", "/%s/r1" % T, ctype=JSON,
           body=json.dumps({"Row": [{"key": b64("r1"), "Cell": [{"column": b64("nocf:a"), "$": b64("v")}]}]}))

    # Drop.
    r.both("drop table", "DELETE", "/%s/schema" % T)
    r.both("schema after drop", "GET", "/%s/schema" % T, accept=JSON)

    report = "\n".join("%s:\n  ferrobase: %s\n  hbase:     %s" % d if len(d) == 3 else str(d) for d in r.diffs)
    print("REST: %d answers the same, %d known differences" % (r.same, len(KNOWN)))
    assert not r.diffs, "answers differ from Apache HBase's:\n" + report
