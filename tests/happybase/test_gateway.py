"""ferrobase's own gateway tests through happybase: HBase Thrift semantics that the happybase
suite does not pin down (timestamps, deletes, counters, scanners, errors, sizes, binary data)."""

import os
import threading

import pytest

import happybase
from Hbase_thrift import IllegalArgument, IOError as TIOError, AlreadyExists

HOST = os.environ.get("HAPPYBASE_HOST", "127.0.0.1")
PORT = int(os.environ.get("HAPPYBASE_PORT", "9090"))


@pytest.fixture(scope="module")
def conn():
    c = happybase.Connection(HOST, PORT, table_prefix="gw")
    yield c
    c.close()


@pytest.fixture()
def table(conn, request):
    name = request.node.name[:40]
    if name.encode() in conn.tables():
        conn.delete_table(name, disable=True)
    conn.create_table(name, {"cf": dict(max_versions=10), "f2": dict()})
    yield conn.table(name)
    conn.delete_table(name, disable=True)


def test_read_timestamps_are_exclusive_upper_bounds(table):
    for ts in (10, 20, 30):
        table.put(b"r", {b"cf:q": b"v%d" % ts}, timestamp=ts)
    assert table.row(b"r", timestamp=30, include_timestamp=True) == {b"cf:q": (b"v20", 20)}
    assert table.row(b"r", timestamp=31) == {b"cf:q": b"v30"}
    assert table.cells(b"r", b"cf:q", versions=10, timestamp=21) == [b"v20", b"v10"]
    assert table.row(b"r", timestamp=10) == {}
    scanned = list(table.scan(timestamp=20, include_timestamp=True))
    assert scanned == [(b"r", {b"cf:q": (b"v10", 10)})]


def test_delete_timestamps_are_inclusive_and_cover_older_versions(table):
    for ts in (10, 20, 30):
        table.put(b"r", {b"cf:q": b"v%d" % ts, b"cf:other": b"o%d" % ts}, timestamp=ts)
    table.delete(b"r", columns=[b"cf:q"], timestamp=20)
    assert table.cells(b"r", b"cf:q", versions=10) == [b"v30"]
    table.delete(b"r", columns=[b"cf"], timestamp=30)
    assert table.row(b"r") == {}
    table.put(b"r", {b"f2:x": b"1"})
    table.delete(b"r")
    assert table.row(b"r") == {}


def test_family_and_empty_qualifier_columns(table):
    table.put(b"r", {b"cf:": b"empty", b"cf:a": b"a"})
    assert table.row(b"r", columns=[b"cf:"]) == {b"cf:": b"empty"}
    assert table.row(b"r", columns=[b"cf"]) == {b"cf:": b"empty", b"cf:a": b"a"}


def test_counters_start_at_zero_and_reject_other_lengths(table):
    assert table.counter_get(b"c", b"cf:n") == 0
    assert table.counter_inc(b"c", b"cf:n", 41) == 41
    assert table.counter_inc(b"c", b"cf:n") == 42
    assert table.row(b"c")[b"cf:n"] == (42).to_bytes(8, "big", signed=True)
    table.put(b"c", {b"cf:s": b"abc"})
    with pytest.raises((IllegalArgument, TIOError)):
        table.counter_inc(b"c", b"cf:s")
    # The connection stays usable after an error.
    assert table.counter_get(b"c", b"cf:n") == 42


def test_concurrent_counter_increments_add_up(conn, table):
    name = table.name

    def work():
        c = happybase.Connection(HOST, PORT)
        t = c.table(name)
        for _ in range(200):
            t.counter_inc(b"hot", b"cf:n")
        c.close()

    threads = [threading.Thread(target=work) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert table.counter_get(b"hot", b"cf:n") == 1600


def test_scanner_lists_batches_and_exhaustion(conn, table):
    with table.batch() as b:
        for i in range(250):
            b.put(b"row%04d" % i, {b"cf:a": b"x", b"cf:b": b"y", b"f2:c": b"z"})
    client = conn.client
    sid = client.scannerOpen(table.name, b"row0100", [b"cf"], {})
    first = client.scannerGetList(sid, 7)
    assert [r.row for r in first] == [b"row%04d" % i for i in range(100, 107)]
    assert set(first[0].columns.keys()) == {b"cf:a", b"cf:b"}
    rest = client.scannerGetList(sid, 1000)
    assert len(rest) == 143
    assert client.scannerGetList(sid, 10) == []
    client.scannerClose(sid)
    with pytest.raises(IllegalArgument):
        client.scannerGetList(sid, 1)
    with pytest.raises(IllegalArgument):
        client.scannerClose(987654)
    # batch_size splits wide rows into several results; sorted_columns orders them.
    rows = list(table.scan(row_prefix=b"row000", batch_size=2, scan_batching=2))
    assert len(rows) == 20
    sorted_rows = list(table.scan(row_prefix=b"row0001", sorted_columns=True))
    assert list(sorted_rows[0][1].keys()) == [b"cf:a", b"cf:b", b"f2:c"]
    assert [k for k, _ in table.scan(row_start=b"row0005", row_stop=b"row0002", reverse=True)] == [
        b"row0005", b"row0004", b"row0003"]


def test_binary_keys_and_values_and_large_cells(table):
    key = bytes(range(256))
    value = bytes(reversed(range(256))) * 4
    table.put(key, {b"cf:\x00\xff": value})
    assert table.row(key) == {b"cf:\x00\xff": value}
    big = os.urandom(5 * 1024 * 1024)
    table.put(b"big", {b"cf:q": big})
    assert table.row(b"big")[b"cf:q"] == big
    too_big = b"x" * (10 * 1024 * 1024 + 1)
    with pytest.raises((IllegalArgument, TIOError)):
        table.put(b"huge", {b"cf:q": too_big})
    assert table.row(b"huge") == {}


def test_errors_name_the_problem_and_keep_the_connection(conn, table):
    with pytest.raises(TIOError) as e:
        conn.table("no_such_table").row(b"r")
    assert b"does not exist" in e.value.message
    with pytest.raises(TIOError) as e:
        table.put(b"r", {b"nofam:q": b"v"})
    assert b"nofam" in e.value.message
    with pytest.raises(AlreadyExists):
        conn.create_table(table.name[len(b"gw_"):].decode(), {"cf": {}})
    with pytest.raises(TIOError):
        conn.delete_table(table.name[len(b"gw_"):].decode())  # still enabled
    assert table.row(b"nothing") == {}


def test_descriptors_regions_and_enable_state(conn, table):
    fams = table.families()
    assert fams[b"cf"]["name"] == b"cf:"
    assert fams[b"cf"]["max_versions"] == 10
    assert fams[b"f2"]["max_versions"] == 3  # happybase's default, as sent
    assert fams[b"f2"]["block_cache_enabled"] is False
    regions = table.regions()
    assert len(regions) == 1 and regions[0]["start_key"] == b"" and regions[0]["end_key"] == b""
    assert conn.is_table_enabled(table.name[len(b"gw_"):].decode())
