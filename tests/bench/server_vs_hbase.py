#!/usr/bin/env python3
"""`ferrobase serve` beside Apache HBase standalone, through the same happybase client code: loads in
batches, gets, 100-row scans and the seed articles' queries, from several client processes, each
workload run on both servers alternately, medians with ranges; plus each server's time from start to
its first answered call and its resident memory after the loads. Prints a markdown table. A
benchmark, not a test.

usage: server_vs_hbase.py PATH_TO_FERROBASE [--procs N] [--rows R] [--reps K] [--quick]
                          [--hbase-heap SIZE | --hbase HOST:PORT [--hbase-pid PID]]

Apache HBase 2.6.1 runs in one JVM from tests/hbase-oracle, started here through
scripts/hbase-oracle.sh as an instance of its own (state in target/hbase-bench) with the bench
profile: HBase's default flushes, compactions, splits and handler counts, the JVM's default
compilers and collector, a heap of --hbase-heap (default 2g). Both servers are durable to a process
kill: ferrobase acknowledges a write once its WAL record is in the OS (its default); HBase's WAL
(FSHLog on the local file system, SYNC_WAL, the default) is hflushed to the OS before the
acknowledgement. Neither fsyncs per write, so neither is durable to a power failure.

--hbase HOST:PORT uses an HBase Thrift1 gateway already running (scripts/test.sh passes the test
oracle's, whose settings keep compactions off: a smoke run, not a measurement); its start is then
not timed, and its memory is read only with --hbase-pid. Tables are named with a prefix unique to
the run and dropped at the end.

The seed queries: a tall-narrow inbox (row = user id + (Long.MAX_VALUE - ts)), newest 100 records of
a user by a 100-row prefix scan; a wide inbox (a row per user, qualifier = Long.MAX_VALUE - ts),
newest 100 columns by ColumnPaginationFilter(100, 0); the file search (row = userID(6) +
createTime(8) + fileID(6)), a user's month scanned with two SingleColumnValueFilters.
"""

import argparse
import multiprocessing as mp
import os
import random
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
VALUE = b"v" * 100
LONG_MAX = (1 << 63) - 1
BASE_TS = 1_700_000_000_000
FILE_FILTER = (b"SingleColumnValueFilter('f', 'name', =, 'binaryprefix:show', true, true) AND "
               b"SingleColumnValueFilter('f', 'category', =, 'binary:variety', true, true)")


class Sizes:
    def __init__(self, quick, rows):
        self.prefix = "bench%d" % os.getpid()  # happybase's table_prefix: a shared gateway is safe
        self.rows = rows or (2000 if quick else 50000)
        self.users = 10 if quick else 100          # tall-narrow users
        self.per_user = 150 if quick else 300      # records per user
        self.wide_rows = 5 if quick else 50
        self.wide_columns = 200 if quick else 1000
        self.file_users = 20 if quick else 200
        self.files_per_user = 60 if quick else 120
        self.queries = 40 if quick else 2000       # per seed query and repetition


def uid(u):
    return b"%08d" % u


def tall_row(u, ts):
    return uid(u) + struct.pack(">q", LONG_MAX - ts)


def file_row(user, day, file_id):
    return b"%06d%s%06d" % (user, day, file_id)


def file_day(i):
    # Dates through 2012, a file every third day.
    month, day = 1 + (i * 3 // 28) % 12, 1 + (i * 3) % 28
    return b"2012%02d%02d" % (month, day)


def worker(args):
    kind, port, proc, procs, sizes = args
    import happybase
    c = happybase.Connection("127.0.0.1", port, table_prefix=sizes.prefix)
    rnd = random.Random(proc * 7919 + hash(kind) % 1000)
    start = time.perf_counter()
    n = 0
    if kind == "load":
        t = c.table("bench")
        with t.batch(batch_size=100) as b:
            for i in range(proc, sizes.rows, procs):
                b.put(b"row%08d" % i, {b"cf:q": VALUE})
                n += 1
    elif kind == "get":
        t = c.table("bench")
        for _ in range(proc, sizes.rows, procs):
            assert t.row(b"row%08d" % rnd.randrange(sizes.rows))
            n += 1
    elif kind == "scan":
        t = c.table("bench")
        for _ in range(proc, max(sizes.rows // 100, procs), procs):
            got = list(t.scan(row_start=b"row%08d" % rnd.randrange(sizes.rows - 100), limit=100))
            assert len(got) == 100, len(got)
            n += 1
    elif kind == "tall":
        t = c.table("tall")
        for _ in range(proc, sizes.queries, procs):
            got = list(t.scan(row_prefix=uid(rnd.randrange(sizes.users)), limit=100))
            assert len(got) == 100, len(got)
            n += 1
    elif kind == "wide":
        t = c.table("wide")
        for _ in range(proc, sizes.queries, procs):
            r = uid(rnd.randrange(sizes.wide_rows))
            got = list(t.scan(row_start=r, row_stop=r + b"\0", filter=b"ColumnPaginationFilter(100, 0)"))
            assert len(got) == 1 and len(got[0][1]) == 100, got
            n += 1
    elif kind == "files":
        t = c.table("files")
        for _ in range(proc, sizes.queries, procs):
            user = rnd.randrange(sizes.file_users)
            month = 1 + rnd.randrange(min(12, 1 + (sizes.files_per_user - 1) * 3 // 28))
            got = list(t.scan(row_start=b"%06d2012%02d01" % (user, month),
                              row_stop=b"%06d2012%02d01" % (user, month + 1), filter=FILE_FILTER))
            assert got, (user, month)
            n += 1
    elapsed = time.perf_counter() - start
    c.close()
    return n, elapsed


def cpu_seconds(pid):
    """User + system CPU time of a process so far, in seconds (None without a pid)."""
    if not pid:
        return None
    with open("/proc/%d/stat" % pid) as f:
        fields = f.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def run(port, pid, kind, procs, sizes):
    """(ops/s, server CPU microseconds per op or None)."""
    cpu0 = cpu_seconds(pid)
    with mp.get_context("spawn").Pool(procs) as pool:
        res = pool.map(worker, [(kind, port, p, procs, sizes) for p in range(procs)])
    ops = sum(n for n, _ in res)
    cpu = (cpu_seconds(pid) - cpu0) * 1e6 / ops if pid else None
    return ops / max(e for _, e in res), cpu


def create_and_fill(port, sizes):
    """The tables, and the seed data sets (the 'bench' rows are written by the load workload)."""
    import happybase
    c = happybase.Connection("127.0.0.1", port, table_prefix=sizes.prefix)
    c.create_table("bench", {"cf": dict(max_versions=1)})
    c.create_table("tall", {"cf": dict(max_versions=1)})
    c.create_table("wide", {"cf": dict(max_versions=1)})
    c.create_table("files", {"f": dict(max_versions=1)})
    with c.table("tall").batch(batch_size=500) as b:
        for j in range(sizes.per_user):
            for u in range(sizes.users):
                b.put(tall_row(u, BASE_TS + j * 1000), {b"cf:": VALUE})
    with c.table("wide").batch(batch_size=500) as b:
        for r in range(sizes.wide_rows):
            for j in range(sizes.wide_columns):
                b.put(uid(r), {b"cf:" + struct.pack(">q", LONG_MAX - (BASE_TS + j)): VALUE})
    with c.table("files").batch(batch_size=500) as b:
        for user in range(sizes.file_users):
            for i in range(sizes.files_per_user):
                name = b"show episode %d" % i if i % 3 else b"interview %d" % i
                category = b"variety" if i % 4 else b"extras"
                b.put(file_row(user, file_day(i), i), {b"f:id": b"%d" % i, b"f:name": name,
                                                       b"f:category": category, b"f:user": b"%d" % user})
    c.close()


def drop_tables(port, sizes):
    import happybase
    c = happybase.Connection("127.0.0.1", port, table_prefix=sizes.prefix)
    for t in ("bench", "tall", "wide", "files"):
        c.delete_table(t, disable=True)
    c.close()


def first_answer(port, deadline=120):
    import happybase
    end = time.time() + deadline
    while True:
        try:
            c = happybase.Connection("127.0.0.1", port)
            c.tables()
            c.close()
            return
        except Exception:
            if time.time() > end:
                raise
            time.sleep(0.01)


def rss_mib(pid):
    with open("/proc/%d/status" % pid) as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def start_ferrobase(binary, data):
    t0 = time.perf_counter()
    proc = subprocess.Popen([binary, "serve", "--data", data, "--port", "0"], stdout=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    port = int(line.split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])
    first_answer(port)
    return proc, port, time.perf_counter() - t0


def hbase_env(heap):
    return dict(os.environ, HBASE_ORACLE_STATE_DIR=os.path.join(ROOT, "target", "hbase-bench"),
                HBASE_ORACLE_PROFILE="bench", HBASE_ORACLE_HEAP=heap)


def start_hbase(heap):
    env = hbase_env(heap)
    script = os.path.join(ROOT, "scripts", "hbase-oracle.sh")
    subprocess.run(["bash", script, "stop"], env=env, check=True, stderr=subprocess.DEVNULL)
    # Build first (when the classes are stale) so that the start is timed alone.
    subprocess.run(["bash", script, "status"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    t0 = time.perf_counter()
    out = subprocess.run(["bash", script, "start"], env=env, check=True, capture_output=True, text=True).stdout
    fields = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    port = int(fields["thrift1"])
    first_answer(port)
    return int(fields["pid"]), port, time.perf_counter() - t0


def stop_hbase(heap):
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "hbase-oracle.sh"), "stop"], env=hbase_env(heap),
                   stderr=subprocess.DEVNULL)


WORKLOADS = [
    ("load", "load (rows, batches of 100)"),
    ("get", "get"),
    ("scan", "scan 100 rows"),
    ("tall", "tall-narrow: newest 100 of a user"),
    ("wide", "wide row: newest 100 columns"),
    ("files", "file search: range + 2 value filters"),
]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ferrobase")
    ap.add_argument("--procs", type=int, default=4)
    ap.add_argument("--rows", type=int, default=0, help="rows loaded (default 50000; 2000 with --quick)")
    ap.add_argument("--reps", type=int, default=0, help="repetitions (default 3; 1 with --quick)")
    ap.add_argument("--quick", action="store_true", help="small sizes, one repetition (CI)")
    ap.add_argument("--hbase-heap", default="2g")
    ap.add_argument("--hbase", metavar="HOST:PORT", help="an HBase Thrift1 gateway already running")
    ap.add_argument("--hbase-pid", type=int, help="its process, for its memory")
    a = ap.parse_args()
    sizes = Sizes(a.quick, a.rows)
    reps = a.reps or (1 if a.quick else 3)
    # The build check of the oracle script, outside the timed start.
    subprocess.run(["bash", os.path.join(ROOT, "scripts", "hbase-oracle.sh"), "status"],
                   env=hbase_env(a.hbase_heap), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    data = tempfile.mkdtemp(prefix="ferrobase-bench-")
    ferro = None
    try:
        ferro, fport, f_start = start_ferrobase(os.path.abspath(a.ferrobase), data)
        if a.hbase:
            hport, hpid, h_start = int(a.hbase.rsplit(":", 1)[1]), a.hbase_pid, None
        else:
            hpid, hport, h_start = start_hbase(a.hbase_heap)
        for port in (fport, hport):
            create_and_fill(port, sizes)
        results = {}
        for kind, _ in WORKLOADS:
            fs, hs = [], []
            for _ in range(reps):
                fs.append(run(fport, ferro.pid, kind, a.procs, sizes))
                hs.append(run(hport, hpid, kind, a.procs, sizes))
            results[kind] = (fs, hs)
            if kind == "load":
                f_rss, h_rss = rss_mib(ferro.pid), rss_mib(hpid) if hpid else None
        print("%d client processes (happybase 1.3.0, buffered binary Thrift1); %d rows of 100 bytes; "
              "tall-narrow %d users x %d, wide %d rows x %d columns, files %d users x %d; %d repetition(s) "
              "alternated, median (min-max) ops/s. Both durable to a process kill, neither to power loss: "
              "ferrobase's WAL record is in the OS before the acknowledgement (its default); HBase 2.6.1 "
              "standalone (one JVM, %s, local file system) hflushes its WAL (SYNC_WAL) to the OS.%s\n"
              % (a.procs, sizes.rows, sizes.users, sizes.per_user, sizes.wide_rows, sizes.wide_columns,
                 sizes.file_users, sizes.files_per_user, reps,
                 "the gateway at " + a.hbase if a.hbase else a.hbase_heap + " heap",
                 " Quick mode: sizes too small and JITs too cold to measure anything." if a.quick else ""))
        print("| %-38s | %24s | %24s | %8s |" % ("workload", "ferrobase ops/s", "Apache HBase ops/s", "ratio"))
        print("|%s|%s|%s|%s|" % ("-" * 40, "-" * 25 + ":", "-" * 25 + ":", "-" * 9 + ":"))

        def med(v):
            v = sorted(v)
            return v[len(v) // 2], v[0], v[-1]

        def fmt(m):
            return "%.0f (%.0f-%.0f)" % m if m[1] != m[2] else "%.0f" % m[0]
        for kind, label in WORKLOADS:
            f, h = med([r[0] for r in results[kind][0]]), med([r[0] for r in results[kind][1]])
            print("| %-38s | %24s | %24s | %7.2fx |" % (label, fmt(f), fmt(h), f[0] / h[0]))
        for label, f, h, unit in [("start to first answered call (s)", f_start, h_start, "%.2f"),
                                  ("RSS after the loads (MiB)", f_rss, h_rss, "%.0f")]:
            print("| %-38s | %24s | %24s | %8s |" % (label, unit % f, unit % h if h else "-",
                                                      "%.2fx" % (h / f) if h else "-"))
        print("\nServer CPU time per operation (user + system, the whole server process; for HBase the one JVM "
              "with its Thrift gateway, region server, master and ZooKeeper), median microseconds; the clients "
              "share the same cores, so this is the server's own cost apart from theirs:\n")
        print("| %-38s | %16s | %18s | %8s |" % ("workload", "ferrobase CPU µs", "Apache HBase CPU µs", "ratio"))
        print("|%s|%s|%s|%s|" % ("-" * 40, "-" * 17 + ":", "-" * 19 + ":", "-" * 9 + ":"))
        for kind, label in WORKLOADS:
            fc = [r[1] for r in results[kind][0]]
            hc = [r[1] for r in results[kind][1] if r[1] is not None]
            f = med(fc)[0]
            h = med(hc)[0] if hc else None
            print("| %-38s | %16.0f | %18s | %8s |" % (label, f, "%.0f" % h if h else "-",
                                                       "%.2fx" % (h / f) if h and f else "-"))
        print("\nIn the first table the last two rows' ratios are HBase / ferrobase (lower is better there); "
              "HBase's start includes its embedded ZooKeeper, master and region server in one JVM. CPU ratios "
              "are HBase / ferrobase.")
    finally:
        if ferro is not None:
            ferro.send_signal(signal.SIGTERM)
            ferro.wait(timeout=60)
        if a.hbase:
            drop_tables(int(a.hbase.rsplit(":", 1)[1]), sizes)
        else:
            stop_hbase(a.hbase_heap)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
