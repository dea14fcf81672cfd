#!/usr/bin/env python3
"""happybase against `ferrobase serve`: put, get, 100-row scan and 100-row batch put from one
client process, printed as a table (a benchmark, not a test).

usage: happybase_bench.py PATH_TO_FERROBASE [OPS]
"""

import os
import signal
import subprocess
import sys
import tempfile
import time

import happybase


def main():
    binary = os.path.abspath(sys.argv[1])
    ops = int(sys.argv[2]) if len(sys.argv) > 2 else 5000
    data = tempfile.mkdtemp()
    proc = subprocess.Popen([binary, "serve", "--data", data, "--port", "0"], stdout=subprocess.PIPE, text=True)
    port = int(proc.stdout.readline().split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])
    try:
        c = happybase.Connection("127.0.0.1", port)
        c.create_table("bench", {"cf": dict(max_versions=1)})
        t = c.table("bench")
        value = b"v" * 100
        rows = []

        def timed(name, n, fn):
            lat = []
            start = time.perf_counter()
            for i in range(n):
                t0 = time.perf_counter()
                fn(i)
                lat.append(time.perf_counter() - t0)
            total = time.perf_counter() - start
            lat.sort()
            rows.append((name, n, n / total, lat[len(lat) // 2] * 1e6, lat[int(len(lat) * 0.99)] * 1e6))

        timed("put", ops, lambda i: t.put(b"row%08d" % i, {b"cf:q": value}))
        timed("get", ops, lambda i: t.row(b"row%08d" % ((i * 7919) % ops)))
        timed("scan 100 rows", max(ops // 10, 1), lambda i: list(t.scan(row_start=b"row%08d" % ((i * 7919) % max(ops - 100, 1)), limit=100)))

        def batch(i):
            with t.batch() as b:
                for j in range(100):
                    b.put(b"batch%06d-%03d" % (i, j), {b"cf:q": value})

        timed("batch put 100 rows", max(ops // 10, 1), batch)
        print("happybase %s -> ferrobase serve (buffered, binary), one client process" % happybase.__version__)
        print("| %-22s | %8s | %10s | %9s | %9s |" % ("workload", "ops", "ops/s", "p50 us", "p99 us"))
        print("|%s|%s|%s|%s|%s|" % ("-" * 24, "-" * 10, "-" * 12, "-" * 11, "-" * 11))
        for name, n, rate, p50, p99 in rows:
            print("| %-22s | %8d | %10.0f | %9.1f | %9.1f |" % (name, n, rate, p50, p99))
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(timeout=60)


if __name__ == "__main__":
    main()
