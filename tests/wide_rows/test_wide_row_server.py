"""A row far wider than one result, scanned through happybase from a running ``ferrobase serve``
with ``scan_batching`` (Thrift's ``TScan.batchSize``): every cell comes back once, in order, and
the server's peak resident memory grows by a bound independent of the row's size; the same scan
in whole rows holds the row, so the measurement can see the difference.

Each scan runs on a freshly started server over the same data directory, so the peak (VmHWM)
measures the scan, not the writes. ``FERROBASE_BIN`` names the binary (default: the debug build).
"""

import os
import shutil
import signal
import subprocess
import tempfile

import happybase
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
BINARY = os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")
MIB = 1 << 20
CELLS = 4096          # of 16 KiB: a 64 MiB row
CELL = 16 * 1024


class Server:
    def __init__(self, data):
        self.proc = subprocess.Popen([BINARY, "serve", "--data", data, "--port", "0"],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        assert "serving" in line, line
        self.port = int(line.split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])

    def peak(self):
        with open("/proc/%d/status" % self.proc.pid) as f:
            for line in f:
                if line.startswith("VmHWM:"):
                    return int(line.split()[1]) * 1024
        raise AssertionError("no VmHWM")

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        assert self.proc.wait(timeout=120) == 0


@pytest.fixture(scope="module")
def data():
    d = tempfile.mkdtemp(prefix="ferrobase-wide-row-")
    srv = Server(d)
    c = happybase.Connection("127.0.0.1", srv.port)
    c.create_table("wide", {"cf": dict(block_cache_enabled=False)})
    t = c.table("wide")
    value = b"x" * CELL
    for start in range(0, CELLS, 256):
        t.put(b"user1", {b"cf:%010d" % i: value for i in range(start, start + 256)})
    c.close()
    srv.stop()  # a clean close flushes the row to a block file
    yield d
    shutil.rmtree(d, ignore_errors=True)


def scan_growth(data, **scan_args):
    srv = Server(data)
    try:
        c = happybase.Connection("127.0.0.1", srv.port)
        before = srv.peak()
        seen = 0
        last = None
        for _row, cells in c.table("wide").scan(**scan_args):
            for q in sorted(cells):
                assert last is None or q > last, "cells in order, once each"
                last = q
                seen += 1
        growth = srv.peak() - before
        c.close()
        return growth, seen
    finally:
        srv.stop()


def test_a_wide_row_scanned_with_batching_keeps_the_server_within_a_bound(data):
    growth, seen = scan_growth(data, scan_batching=64, batch_size=4)
    print("batched scan: peak grew %d MiB for a %d MiB row" % (growth // MIB, CELLS * CELL // MIB))
    assert seen == CELLS
    assert growth < 24 * MIB, growth // MIB


def test_the_same_scan_in_whole_rows_holds_the_row(data):
    growth, seen = scan_growth(data, batch_size=1)
    print("whole-row scan: peak grew %d MiB" % (growth // MIB))
    assert seen == CELLS
    assert growth > CELLS * CELL // 2, growth // MIB
