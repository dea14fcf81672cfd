"""``/metrics`` of ``ferrobase serve --http-port`` read by a real Prometheus parser: the
``prometheus_client`` package's text parser (``text_string_to_metric_families``) accepts the
whole page, every family has the type its name promises, and a known happybase workload moves
the counters by its amounts. ``FERROBASE_BIN`` names the binary (default: the debug build).
See docs/design/operations.md for the names.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import urllib.request

import happybase
import pytest
from prometheus_client.parser import text_string_to_metric_families

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")
PUTS = 12


class Server:
    def __init__(self, data, *extra):
        self.proc = subprocess.Popen(
            [BINARY, "serve", "--data", data, "--port", "0", "--http-port", "0", *extra],
            stdout=subprocess.PIPE, text=True)
        self.http = self.thrift = None
        while self.thrift is None:
            line = self.proc.stdout.readline()
            assert line, "serve ended before its Thrift line"
            addr = line.split(" on ")[1].split()[0]
            if "serving HTTP (metrics)" in line:
                self.http = addr
            elif "the HBase Thrift API" in line:
                self.thrift = addr
        assert self.http, "the HTTP line comes before the Thrift one"

    def get(self, path):
        with urllib.request.urlopen("http://%s%s" % (self.http, path), timeout=30) as r:
            return r.status, r.headers.get("Content-Type"), r.read().decode()

    def scrape(self):
        """Sample name and labels to value, and family name to type."""
        status, content_type, text = self.get("/metrics")
        assert status == 200
        assert content_type.startswith("text/plain; version=0.0.4"), content_type
        samples, types = {}, {}
        for family in text_string_to_metric_families(text):
            types[family.name] = family.type
            for s in family.samples:
                key = (s.name, tuple(sorted(s.labels.items())))
                assert key not in samples, key
                samples[key] = s.value
        return samples, types

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=60) == 0


@pytest.fixture
def server():
    d = tempfile.mkdtemp(prefix="ferrobase-metrics-")
    srv = Server(d, "--durability", "FSYNC_WAL")
    yield srv
    srv.stop()
    shutil.rmtree(d, ignore_errors=True)


def value(samples, name, **labels):
    return samples.get((name, tuple(sorted(labels.items()))), 0.0)


def test_the_parser_reads_every_family_with_its_type(server):
    samples, types = server.scrape()
    # The parser names a counter family without its _total suffix.
    for family, kind in types.items():
        # Families labelled by what has happened have no sample before it does.
        empty_at_start = {"ferrobase_thrift_calls", "ferrobase_family_blocks_read",
                          "ferrobase_family_bloom_negatives"}
        if kind == "counter" and family not in empty_at_start:
            assert any(name == family + "_total" for name, _ in samples), family
        assert family.startswith(("ferrobase_", "process_")), family
    for counter in ["ferrobase_wal_syncs", "ferrobase_flushes", "ferrobase_compactions",
                    "ferrobase_write_suspensions", "ferrobase_wal_written_bytes",
                    "ferrobase_rows_examined", "ferrobase_thrift_calls"]:
        assert types[counter] == "counter", counter
    for gauge in ["ferrobase_memstore_bytes", "ferrobase_table_regions",
                  "ferrobase_thrift_connections", "process_resident_memory_bytes",
                  "process_open_fds"]:
        assert types[gauge] == "gauge", gauge
    assert value(samples, "ferrobase_health", state="healthy") == 1
    assert value(samples, "process_resident_memory_bytes") > 1 << 20


def test_a_happybase_workload_moves_the_counters(server):
    before, _ = server.scrape()
    host, port = server.thrift.rsplit(":", 1)
    c = happybase.Connection(host, int(port))
    c.create_table("pm", {"cf": dict()})
    t = c.table("pm")
    for i in range(PUTS):
        t.put(b"row%03d" % i, {b"cf:q": b"v%d" % i})
    assert len(list(t.scan())) == PUTS
    after, types = server.scrape()
    c.close()
    assert types["ferrobase_call_duration_seconds"] == "histogram"

    def delta(name, **labels):
        return value(after, name, **labels) - value(before, name, **labels)

    calls = "ferrobase_thrift_calls_total"
    # happybase 1.3's Table.put sends one mutateRows per put (a one-put batch).
    assert delta(calls, service="Hbase", method="mutateRows", outcome="ok") == PUTS
    assert delta(calls, service="Hbase", method="scannerOpenWithScan", outcome="ok") == 1
    assert delta(calls, service="Hbase", method="createTable", outcome="ok") == 1
    # FSYNC_WAL from one client: one fdatasync per put.
    assert delta("ferrobase_wal_syncs_total") == PUTS
    assert delta("ferrobase_wal_written_bytes_total") > 0
    assert delta("ferrobase_rows_examined_total") == PUTS
    assert delta("ferrobase_rows_returned_total") == PUTS
    assert delta("ferrobase_cells_returned_total") == PUTS
    # The latency histogram, read as one by the parser: each put timed once.
    timed = dict(door="thrift", service="Hbase", method="mutateRows")
    assert delta("ferrobase_call_duration_seconds_count", **timed) == PUTS
    assert delta("ferrobase_call_duration_seconds_bucket", le="+Inf", **timed) == PUTS
    assert 0 < delta("ferrobase_call_duration_seconds_sum", **timed) < PUTS * 10
    assert value(after, "ferrobase_table_regions", table="pm") == 1
    assert value(after, "ferrobase_table_memstore_bytes", table="pm") > 0


def test_the_console_names_the_tables(server):
    host, port = server.thrift.rsplit(":", 1)
    c = happybase.Connection(host, int(port))
    c.create_table("console_table", {"cf": dict()})
    c.close()
    status, content_type, page = server.get("/")
    assert status == 200
    assert content_type.startswith("text/html")
    assert "console_table" in page and server.thrift in page
    assert len(page.encode()) < 200 * 1024


def shell(server, script):
    """Runs ``script`` in ``ferrobase shell --connect`` to the server (flush, major_compact)."""
    out = subprocess.run([BINARY, "shell", "--connect", "thrift://" + server.thrift],
                         input=script, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stdout + out.stderr
    return out.stdout


@pytest.fixture
def quiet_server():
    """A server without background compactions, its WAL synced on every write."""
    d = tempfile.mkdtemp(prefix="ferrobase-metrics-")
    srv = Server(d, "--durability", "FSYNC_WAL", "--no-auto-compaction")
    yield srv
    srv.stop()
    shutil.rmtree(d, ignore_errors=True)


def test_flushes_compactions_wal_groups_and_family_reads_move_by_the_workload(quiet_server):
    server = quiet_server
    host, port = server.thrift.rsplit(":", 1)
    c = happybase.Connection(host, int(port))
    c.create_table("em", {"cf": dict(block_cache_enabled=True, bloom_filter_type="ROW")})
    t = c.table("em")
    before, types = server.scrape()
    for name in ["ferrobase_wal_group_size"]:
        assert types[name] == "histogram", name
    for name in ["ferrobase_family_blocks_read", "ferrobase_family_bloom_negatives",
                 "ferrobase_flush_input_bytes", "ferrobase_flush_output_bytes",
                 "ferrobase_flush_time_seconds", "ferrobase_compaction_input_bytes",
                 "ferrobase_compaction_output_bytes", "ferrobase_compaction_time_seconds",
                 "ferrobase_write_suspensions_by_cause"]:
        assert types.get(name) == "counter", name

    # PUTS writes from one client, each its own group commit of one write.
    for i in range(PUTS):
        t.put(b"row%03d" % i, {b"cf:q": b"v%d" % i})
    mid, _ = server.scrape()

    def delta(a, b, name, **labels):
        return value(b, name, **labels) - value(a, name, **labels)

    assert delta(before, mid, "ferrobase_wal_group_size_count") == PUTS
    assert delta(before, mid, "ferrobase_wal_group_size_sum") == PUTS
    assert delta(before, mid, "ferrobase_wal_group_size_bucket", le="1") == PUTS
    assert delta(before, mid, "ferrobase_wal_group_size_bucket", le="+Inf") == PUTS

    # One flush: its output is the table's one store file, byte for byte.
    shell(server, "flush 'em'\n")
    flushed, _ = server.scrape()
    assert delta(mid, flushed, "ferrobase_flushes_total") == 1
    assert delta(mid, flushed, "ferrobase_flush_input_bytes_total") > 0
    out = delta(mid, flushed, "ferrobase_flush_output_bytes_total")
    assert out == value(flushed, "ferrobase_table_store_file_bytes", table="em") > 0
    assert delta(mid, flushed, "ferrobase_flush_time_seconds_total") > 0

    # Reads of the flushed file: a row from the disk, then from the cache; an absent row in
    # the file's key range left out by the bloom filter.
    fam = dict(table="em", family="cf")
    assert t.row(b"row003") == {b"cf:q": b"v3"}
    assert t.row(b"row003") == {b"cf:q": b"v3"}
    assert t.row(b"row003x") == {}
    read, _ = server.scrape()
    assert delta(flushed, read, "ferrobase_family_blocks_read_total", source="disk", **fam) == 1
    assert delta(flushed, read, "ferrobase_family_blocks_read_total", source="cache", **fam) == 1
    assert delta(flushed, read, "ferrobase_family_bloom_negatives_total", **fam) == 1
    assert delta(flushed, read, "ferrobase_bloom_negatives_total") == 1

    # Two more files, then a major compaction of the three into one.
    for n in range(2):
        t.put(b"more%d" % n, {b"cf:q": b"x"})
        shell(server, "flush 'em'\n")
    three, _ = server.scrape()
    assert value(three, "ferrobase_table_store_files", table="em") == 3
    shell(server, "major_compact 'em'\n")
    compacted, _ = server.scrape()
    assert delta(three, compacted, "ferrobase_compactions_total") == 1
    assert (delta(three, compacted, "ferrobase_compaction_input_bytes_total")
            == value(three, "ferrobase_table_store_file_bytes", table="em"))
    assert (delta(three, compacted, "ferrobase_compaction_output_bytes_total")
            == value(compacted, "ferrobase_table_store_file_bytes", table="em"))
    assert delta(three, compacted, "ferrobase_compaction_time_seconds_total") > 0
    # No suspension, each cause listed at 0.
    for cause in ["wal_write", "flush_write", "low_disk_space", "manifest_write"]:
        key = ("ferrobase_write_suspensions_by_cause_total", (("cause", cause),))
        assert compacted[key] == 0, cause
    c.close()
