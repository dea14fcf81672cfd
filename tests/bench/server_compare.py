#!/usr/bin/env python3
"""Server-level comparison: `ferrobase serve` through happybase beside Google's Bigtable emulator
(`cbtemulator`, in-memory) through the google-cloud-bigtable client, with several client
processes doing the same load, get and 100-row scan work. Prints a table with the ratio
ferrobase / emulator. A benchmark, not a test.

usage: server_compare.py PATH_TO_FERROBASE [--procs N] [--rows R] [--reps K]

Each workload runs K times on each system, alternated; the table shows medians with min-max.
Needs: pip install happybase google-cloud-bigtable; cbtemulator from the Google Cloud SDK.
"""

import argparse
import multiprocessing as mp
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import warnings

warnings.filterwarnings("ignore")  # the Bigtable client warns on every emulator connection

EMULATOR = shutil.which("cbtemulator") or "/usr/lib/google-cloud-sdk/platform/bigtable-emulator/cbtemulator"
VALUE = b"v" * 100


def free_port():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    p = s.getsockname()[1]
    s.close()
    return p


def ferro_worker(args):
    kind, port, proc, rows, procs = args
    import happybase
    c = happybase.Connection("127.0.0.1", port)
    t = c.table("bench")
    mine = range(proc, rows, procs)
    start = time.perf_counter()
    n = 0
    if kind == "load":
        with t.batch(batch_size=100) as b:
            for i in mine:
                b.put(b"row%08d" % i, {b"cf:q": VALUE})
                n += 1
    elif kind == "get":
        for i in mine:
            assert t.row(b"row%08d" % ((i * 7919) % rows))
            n += 1
    else:
        for i in list(mine)[: max(len(mine) // 100, 1)]:
            got = list(t.scan(row_start=b"row%08d" % ((i * 7919) % max(rows - 100, 1)), limit=100))
            assert len(got) == 100
            n += 1
    return n, time.perf_counter() - start


def bt_table(port):
    os.environ["BIGTABLE_EMULATOR_HOST"] = "127.0.0.1:%d" % port
    from google.cloud import bigtable
    client = bigtable.Client(project="p", admin=True)
    return client.instance("i").table("bench")


def bt_worker(args):
    kind, port, proc, rows, procs = args
    from google.cloud.bigtable.row_set import RowRange, RowSet
    t = bt_table(port)
    mine = range(proc, rows, procs)
    start = time.perf_counter()
    n = 0
    if kind == "load":
        batch = []
        for i in mine:
            r = t.direct_row(b"row%08d" % i)
            r.set_cell("cf", b"q", VALUE)
            batch.append(r)
            n += 1
            if len(batch) == 100:
                t.mutate_rows(batch)
                batch = []
        if batch:
            t.mutate_rows(batch)
    elif kind == "get":
        for i in mine:
            assert t.read_row(b"row%08d" % ((i * 7919) % rows)) is not None
            n += 1
    else:
        for i in list(mine)[: max(len(mine) // 100, 1)]:
            rs = RowSet()
            rs.add_row_range(RowRange(start_key=b"row%08d" % ((i * 7919) % max(rows - 100, 1))))
            got = list(t.read_rows(row_set=rs, limit=100))
            assert len(got) == 100
            n += 1
    return n, time.perf_counter() - start


def run(worker, port, kind, procs, rows):
    with mp.get_context("spawn").Pool(procs) as pool:
        start = time.perf_counter()
        res = pool.map(worker, [(kind, port, p, rows, procs) for p in range(procs)])
        wall = time.perf_counter() - start
    return sum(n for n, _ in res) / wall


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ferrobase")
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--rows", type=int, default=20000)
    ap.add_argument("--reps", type=int, default=3)
    a = ap.parse_args()
    fport, bport = 0, free_port()
    data = tempfile.mkdtemp()
    ferro = subprocess.Popen([os.path.abspath(a.ferrobase), "serve", "--data", data, "--port", "0"], stdout=subprocess.PIPE, text=True)
    fport = int(ferro.stdout.readline().split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])
    emu = subprocess.Popen([EMULATOR, "-port", str(bport)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)
    try:
        import happybase
        happybase.Connection("127.0.0.1", fport).create_table("bench", {"cf": dict(max_versions=1)})
        from google.cloud.bigtable import column_family
        t = bt_table(bport)
        t.create(column_families={"cf": column_family.MaxVersionsGCRule(1)})
        print("%d client processes, %d rows of 100 bytes, %d repetitions alternated, median (min-max); "
              "ferrobase SYNC_WAL (durable to a process kill), the emulator in memory only.\n" % (a.procs, a.rows, a.reps))
        print("| %-14s | %26s | %26s | %9s |" % ("workload", "ferrobase ops/s", "emulator ops/s", "ratio"))
        print("|%s|%s|%s|%s|" % ("-" * 16, "-" * 27 + ":", "-" * 27 + ":", "-" * 10 + ":"))
        med = lambda v: (sorted(v)[len(v) // 2], min(v), max(v))
        fmt = lambda m: "%.0f (%.0f-%.0f)" % m
        for kind, label in [("load", "load (rows)"), ("get", "get"), ("scan", "scan 100 rows")]:
            fs, bs = [], []
            for _ in range(a.reps):
                fs.append(run(ferro_worker, fport, kind, a.procs, a.rows))
                bs.append(run(bt_worker, bport, kind, a.procs, a.rows))
            f, b = med(fs), med(bs)
            print("| %-14s | %26s | %26s | %8.2fx |" % (label, fmt(f), fmt(b), f[0] / b[0]))
    finally:
        ferro.send_signal(signal.SIGTERM)
        ferro.wait(timeout=60)
        emu.kill()
        emu.wait()


if __name__ == "__main__":
    main()
