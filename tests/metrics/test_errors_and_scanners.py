"""``ferrobase_errors_total{door,class}``, ``ferrobase_open_scanners{door}`` and
``ferrobase_scanner_leases_expired_total{door}`` read by ``prometheus_client``'s parser after a
known workload on three doors of one ``ferrobase serve``: Thrift1 (happybase), Thrift2
(thriftpy2 from HBase's own IDL, tests/thrift2/hbase.thrift) and REST (plain HTTP). The native
door's counters are checked in ``crates/native/tests/error_classes.rs``.

Each door gets a read of a family the table does not have (``no_such_family`` +1 on that door
only), a read of a table that does not exist (``table_not_found`` +1; REST answers 404) and an
open scanner (``open_scanners`` 1); a Thrift1 scanner left alone past ``--scanner-lease`` is
closed by its lease (``scanner_leases_expired`` +1, ``open_scanners`` back to 0).
"""

import json
import os
import shutil
import signal
import subprocess
import tempfile
import time
import urllib.error
import urllib.request

import happybase
import pytest
import thriftpy2
from prometheus_client.parser import text_string_to_metric_families
from thriftpy2.protocol import TBinaryProtocolFactory
from thriftpy2.rpc import make_client
from thriftpy2.transport import TBufferedTransportFactory

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")
T = thriftpy2.load(os.path.join(ROOT, "tests", "thrift2", "hbase.thrift"), module_name="hbase2_metrics_thrift")
DOORS = ["thrift", "thrift2", "rest"]
LEASE_SECS = 2


@pytest.fixture
def server():
    d = tempfile.mkdtemp(prefix="ferrobase-errors-")
    proc = subprocess.Popen(
        [BINARY, "serve", "--data", d, "--port", "0", "--http-port", "0", "--thrift2-port", "0",
         "--rest-port", "0", "--scanner-lease", str(LEASE_SECS)],
        stdout=subprocess.PIPE, text=True)
    ports = {}
    while "thrift" not in ports:
        line = proc.stdout.readline()
        assert line, "serve ended before its Thrift line"
        addr = line.split(" on ")[1].split()[0]
        for key, marker in [("http", "HTTP (metrics)"), ("thrift2", "Thrift2 API"),
                            ("rest", "REST API"), ("thrift", "the HBase Thrift API")]:
            if marker in line:
                ports[key] = addr
                break
    assert {"http", "thrift2", "rest"} <= set(ports), ports
    yield ports
    proc.send_signal(signal.SIGTERM)
    assert proc.wait(timeout=60) == 0
    shutil.rmtree(d, ignore_errors=True)


def scrape(ports):
    with urllib.request.urlopen("http://%s/metrics" % ports["http"], timeout=30) as r:
        text = r.read().decode()
    samples, types = {}, {}
    for family in text_string_to_metric_families(text):
        types[family.name] = family.type
        for s in family.samples:
            samples[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return samples, types


def errors(samples, door, cls):
    return samples[("ferrobase_errors_total", (("class", cls), ("door", door)))]


def open_scanners(samples, door):
    return samples[("ferrobase_open_scanners", (("door", door),))]


def expired(samples, door):
    return samples[("ferrobase_scanner_leases_expired_total", (("door", door),))]


def rest(ports, method, path, body=None, content_type="application/json"):
    req = urllib.request.Request("http://%s%s" % (ports["rest"], path), data=body, method=method,
                                 headers={"Accept": "application/json", "Content-Type": content_type})
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status, r.headers, r.read()
    except urllib.error.HTTPError as e:
        return e.code, e.headers, e.read()


def only_on(before, after, door, cls):
    """Asserts ``cls`` moved by exactly 1 on ``door`` and by 0 on the other doors and classes."""
    for d in DOORS:
        for (name, labels), v in after.items():
            if name != "ferrobase_errors_total" or dict(labels)["door"] != d:
                continue
            want = 1 if (d, dict(labels)["class"]) == (door, cls) else 0
            assert v - before.get((name, labels), 0) == want, (d, dict(labels)["class"], v)


def test_errors_by_class_and_open_scanners_move_per_door(server):
    host, port = server["thrift"].rsplit(":", 1)
    c = happybase.Connection(host, int(port))
    c.create_table("em", {"cf": dict()})
    t = c.table("em")
    for i in range(5):
        t.put(b"r%d" % i, {b"cf:q": b"v"})
    h2, p2 = server["thrift2"].rsplit(":", 1)
    c2 = make_client(T.THBaseService, h2, int(p2), timeout=30000,
                     trans_factory=TBufferedTransportFactory(), proto_factory=TBinaryProtocolFactory())

    s0, types = scrape(server)
    assert types["ferrobase_errors"] == "counter"
    assert types["ferrobase_open_scanners"] == "gauge"
    assert types["ferrobase_scanner_leases_expired"] == "counter"
    for d in DOORS:
        assert open_scanners(s0, d) == 0 and expired(s0, d) == 0, d
        assert errors(s0, d, "no_such_family") == 0, d

    # A family the table does not have, once per door.
    with pytest.raises(Exception, match="NoSuchColumnFamily"):
        t.row(b"r1", columns=[b"nope:x"])
    s1, _ = scrape(server)
    only_on(s0, s1, "thrift", "no_such_family")
    with pytest.raises(T.TIOError):
        c2.get(b"em", T.TGet(row=b"r1", columns=[T.TColumn(family=b"nope")]))
    s2, _ = scrape(server)
    only_on(s1, s2, "thrift2", "no_such_family")
    status, _, _ = rest(server, "GET", "/em/r1/nope:x")
    assert status == 404
    s3, _ = scrape(server)
    only_on(s2, s3, "rest", "no_such_family")

    # A table that does not exist, once per door.
    with pytest.raises(Exception, match="TableNotFound"):
        c.table("absent").row(b"r1")
    s4, _ = scrape(server)
    only_on(s3, s4, "thrift", "table_not_found")
    with pytest.raises(T.TIOError):
        c2.get(b"absent", T.TGet(row=b"r1"))
    s5, _ = scrape(server)
    only_on(s4, s5, "thrift2", "table_not_found")
    status, _, _ = rest(server, "GET", "/absent/r1")
    assert status == 404
    s6, _ = scrape(server)
    only_on(s5, s6, "rest", "table_not_found")

    # One open scanner per door.
    # happybase's own client, so that no generator closes the scanner behind the test's back.
    thrift_sid = c.client.scannerOpen(b"em", b"", [b"cf"], {})
    assert c.client.scannerGet(thrift_sid)[0].row == b"r0"
    sid = c2.openScanner(b"em", T.TScan())
    status, headers, _ = rest(server, "PUT", "/em/scanner", b'{"batch": 1}')
    assert status == 201, status
    s7, _ = scrape(server)
    for d in DOORS:
        assert open_scanners(s7, d) == 1, d
    c2.closeScanner(sid)
    location = headers["Location"].split("/", 3)[3]
    assert rest(server, "DELETE", "/" + location)[0] == 200
    s8, _ = scrape(server)
    assert open_scanners(s8, "thrift2") == 0 and open_scanners(s8, "rest") == 0
    assert open_scanners(s8, "thrift") == 1

    # The Thrift1 scanner, left alone, is closed by its lease (swept about once a second).
    deadline = time.time() + LEASE_SECS + 10
    while True:
        s9, _ = scrape(server)
        if open_scanners(s9, "thrift") == 0 or time.time() > deadline:
            break
        time.sleep(0.5)
    assert open_scanners(s9, "thrift") == 0
    assert expired(s9, "thrift") == 1
    assert expired(s9, "thrift2") == 0 and expired(s9, "rest") == 0
    c.close()

    # The console's Doors table says the same.
    with urllib.request.urlopen("http://%s/" % server["http"], timeout=30) as r:
        page = r.read().decode()
    row = page.split('data-door="thrift"', 1)[1].split("</tr>", 1)[0]
    assert "no_such_family 1" in row and "table_not_found 1" in row, row
    for d in DOORS:
        assert 'data-door="%s"' % d in page, d


def test_flushes_and_compactions_are_listed_with_their_bytes(server):
    host, port = server["thrift"].rsplit(":", 1)
    c = happybase.Connection(host, int(port))
    c.create_table("jobs_t", {"cf": dict()})
    t = c.table("jobs_t")
    before, types = scrape(server)
    assert types["ferrobase_background_jobs_running"] == "gauge"
    for kind in ["flush", "minor_compaction", "major_compaction"]:
        assert before[("ferrobase_background_jobs_running", (("kind", kind),))] == 0
    for n in range(2):
        for i in range(20):
            t.put(b"r%d-%02d" % (n, i), {b"cf:q": b"v" * 50})
        shell_run(server, "flush 'jobs_t'\n")
    shell_run(server, "major_compact 'jobs_t'\n")
    after, _ = scrape(server)
    c.close()
    with urllib.request.urlopen("http://%s/jobs?format=json" % server["http"], timeout=30) as r:
        jobs = json.loads(r.read())
    mine = [j for j in jobs["recent"] if j["table"] == "jobs_t"]
    assert [j["kind"] for j in mine] == ["major_compaction", "flush", "flush"], mine
    assert all(j["state"] == "done" and j["reason"] == "requested" for j in mine), mine
    flushed = sum(j["bytes_out"] for j in mine[1:])
    delta = lambda name: after[(name, ())] - before[(name, ())]
    assert flushed == delta("ferrobase_flush_output_bytes_total") > 0
    assert mine[0]["files_in"] == 2 and mine[0]["files_out"] == 1
    assert mine[0]["bytes_in"] == flushed == delta("ferrobase_compaction_input_bytes_total")
    assert mine[0]["bytes_out"] == delta("ferrobase_compaction_output_bytes_total")


def shell_run(server, script):
    out = subprocess.run([BINARY, "shell", "--connect", "thrift://" + server["thrift"]],
                         input=script, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
