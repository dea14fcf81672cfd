"""The PyPI clients of HBase's REST API, unchanged, against `ferrobase serve --rest-port 0` and the
oracle's REST server: `hbase-rest-py` (module `hbase`) and `starbase` each run the same small
scenario (schema, puts, gets with versions and timestamps, a scanner, deletes, the cluster calls) on
both, and what the client returns is compared (timestamps the server chose read as "now")."""

import json
import time

import pytest
from test_rest import KNOWN, PREFIX, Ferrobase, oracle_rest_port  # noqa: F401

hbase = pytest.importorskip("hbase.rest_client", reason="pip install hbase-rest-py==1.0.0")
starbase = pytest.importorskip("starbase", reason="pip install starbase==0.3.3")


@pytest.fixture(scope="module")
def servers():
    fb = Ferrobase()
    yield "http://127.0.0.1:%d" % fb.port, "http://127.0.0.1:%d" % oracle_rest_port()
    assert fb.stop() == 0


def now_norm(v):
    if isinstance(v, dict):
        return {k: now_norm(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [now_norm(x) for x in v]
    if isinstance(v, str):
        try:
            v = json.loads(v)
        except ValueError:
            return v
        if not isinstance(v, (dict, list)):
            return v
        return now_norm(v)
    if isinstance(v, int) and abs(v - time.time() * 1000) < 3600 * 1000:
        return "NOW"
    return v


def hbase_rest_py_scenario(url):
    from hbase.admin import HBaseAdmin
    from hbase.delete import Delete
    from hbase.get import Get
    from hbase.put import Put
    from hbase.rest_client import HBaseRESTClient
    from hbase.scan import Scan

    t = PREFIX + "py"
    client = HBaseRESTClient([url])
    admin, put, get, scan, delete = HBaseAdmin(client), Put(client), Get(client), Scan(client), Delete(client)
    out = []
    admin.table_delete(t)
    out.append(("version", admin.cluster_version()))
    out.append(("create", admin.table_create_or_update(t, [{"name": "cf", "VERSIONS": "3"}])))
    out.append(("namespaces", admin.namespaces()))
    out.append(("put", put.put(t, "row1", {"cf:a": "1", "cf:b": "x"}, timestamp=10)))
    out.append(("put again", put.put(t, "row1", {"cf:a": "2"}, timestamp=20)))
    out.append(("bulk", put.bulk(t, [("row2", {"cf:a": "3"}), ("row3", {"cf:c": "4"})], timestamp=30)))
    out.append(("get", get.get(t, "row1")))
    out.append(("get column", get.get(t, "row1", "cf:a")))
    out.append(("get versions", get.get(t, "row1", "cf:a", number_of_versions=3)))
    out.append(("get at timestamp", get.get(t, "row1", "cf:a", timestamp=15)))
    out.append(("get missing", get.get(t, "nope")))
    out.append(("scan", scan.scan(t)))
    out.append(("scan more", scan.scan(t)))
    out.append(("delete column", delete.delete(t, "row1", "cf:b")))
    out.append(("get after delete", get.get(t, "row1")))
    out.append(("delete row", delete.delete(t, "row2")))
    out.append(("get deleted", get.get(t, "row2")))
    out.append(("drop", admin.table_delete(t)))
    return out


def starbase_scenario(url):
    from starbase import Connection

    host, port = url.rsplit("/", 1)[1].split(":")
    c = Connection(host=host, port=int(port))
    t = c.table(PREFIX + "sb")
    out = []
    if t.exists():
        t.drop()
    out.append(("cluster version", c.cluster_version))
    out.append(("exists before", t.exists()))
    out.append(("create", t.create("cf1", "cf2")))
    out.append(("exists", t.exists()))
    out.append(("columns", sorted(t.columns())))
    out.append(("insert", t.insert("row1", {"cf1": {"a": "v1", "b": "v2"}, "cf2": {"c": "v3"}})))
    out.append(("fetch", t.fetch("row1")))
    out.append(("fetch family", t.fetch("row1", ["cf1"])))
    out.append(("update", t.update("row1", {"cf1": {"a": "v9"}})))
    out.append(("fetch column", t.fetch("row1", {"cf1": ["a"]})))
    batch = t.batch()
    for i in range(3):
        batch.insert("b%d" % i, {"cf1": {"n": str(i)}})
    out.append(("batch", batch.commit(finalize=True)))
    out.append(("fetch batch row", t.fetch("b2")))
    out.append(("remove family", t.remove("row1", "cf2")))
    out.append(("fetch after remove", t.fetch("row1")))
    out.append(("remove row", t.remove("b0")))
    out.append(("fetch removed", t.fetch("b0")))
    out.append(("fetch all rows", t.fetch_all_rows()))
    out.append(("drop", t.drop()))
    out.append(("exists after drop", t.exists()))
    return out


@pytest.mark.parametrize("scenario", [hbase_rest_py_scenario, starbase_scenario],
                         ids=["hbase-rest-py", "starbase"])
def test_client_against_hbase(servers, scenario):
    ours, oracle = servers
    a = scenario(ours)
    b = scenario(oracle)
    diffs = [(x[0], now_norm(x[1]), now_norm(y[1])) for x, y in zip(a, b) if now_norm(x[1]) != now_norm(y[1])]
    report = "\n".join("%s:\n  ferrobase: %r\n  hbase:     %r" % d for d in diffs)
    assert not diffs, "the client's answers differ from Apache HBase's:\n" + report
