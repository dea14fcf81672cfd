#!/usr/bin/env python3
"""Size and start time of ferrobase binaries, as a markdown table (README "Release builds").

Start time is from spawning `ferrobase serve --port 0` on an empty temporary data directory to the
first answered Thrift call (getTableNames, as ferrobase.Server's readiness check sends it), so it
counts process start, engine open, bind, and one request. Median and 90th percentile of --runs.

usage: scripts/start-time.py [--runs N] BINARY...   (e.g. target/release/ferrobase target/dist/ferrobase)
"""

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python"))
from ferrobase.server import _ADDRESS_LINE, _thrift_get_table_names  # noqa: E402


def start_once(binary):
    data = tempfile.mkdtemp(prefix="ferrobase-start-")
    try:
        t0 = time.perf_counter()
        proc = subprocess.Popen([binary, "serve", "--port", "0", "--data", data],
                                stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        match = _ADDRESS_LINE.search(proc.stdout.readline())
        if not match:
            raise RuntimeError("%s did not print its address" % binary)
        _thrift_get_table_names(match.group("host").strip("[]"), int(match.group("port")), 5)
        elapsed = time.perf_counter() - t0
        proc.send_signal(signal.SIGTERM)
        if proc.wait(timeout=30) != 0:
            raise RuntimeError("%s did not stop cleanly" % binary)
        return elapsed
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=30)
    parser.add_argument("binaries", nargs="+")
    args = parser.parse_args()
    print("| binary | size | start to first answered call, median | p90 |")
    print("| --- | ---: | ---: | ---: |")
    for binary in args.binaries:
        start_once(binary)  # warm the page cache
        times = sorted(start_once(binary) for _ in range(args.runs))
        p90 = times[int(0.9 * (len(times) - 1))]
        print("| `%s` | %.1f MB | %.1f ms | %.1f ms |" % (
            binary, os.path.getsize(binary) / 1e6, statistics.median(times) * 1e3, p90 * 1e3))


if __name__ == "__main__":
    main()
