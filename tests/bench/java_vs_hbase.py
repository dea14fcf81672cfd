#!/usr/bin/env python3
"""The stock HBase Java client (hbase-client 2.6.1, tests/java-client's LoadBench) against
`ferrobase serve --rpc-port` and against Apache HBase 2.6.1 standalone, the same program and data:
a BufferedMutator load, random gets and 100-row scans, each with 1 and N threads on one connection.
The servers are run alternately, each repetition on both before the next; medians with ranges and
the load average before each run are printed as a markdown table. A benchmark, not a test
(issue 48; docs/performance.md).

usage: java_vs_hbase.py PATH_TO_FERROBASE [--rows R] [--ops M] [--threads T] [--reps K]
                        [--hbase-heap SIZE | --hbase-bootstrap HOST:PORT] [--quick]

HBase runs from tests/hbase-oracle with the bench profile (HBase's default flushes, compactions and
handlers, the JVM's default compilers), in a state directory of its own (target/hbase-bench), found
by the Java client through its master's RPC port with RpcConnectionRegistry, as ferrobase is.
"""

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import server_vs_hbase as thrift_bench  # noqa: E402  (the oracle's start and stop)

WORKLOADS = [("load", "BufferedMutator load (rows/s)"), ("get", "random get (ops/s)"),
             ("scan100", "100-row scan (scans/s)"), ("fullscan", "full scan (rows/s)")]


def java(bootstrap, table, rows, ops, threads, server_pid=None):
    """{(workload, threads): (ops/s, server CPU microseconds per op or None)}: the server's CPU
    (user + system, /proc) is read as LoadBench reports each workload, so each gets what the
    server spent between the report before it and its own (its set-up included)."""
    proc = subprocess.Popen(
        ["bash", os.path.join(ROOT, "scripts", "java-client.sh"), "--program", "LoadBench",
         "--bootstrap", bootstrap, "--table", table, "--rows", str(rows), "--ops", str(ops),
         "--threads", str(threads)],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    rates = {}
    cpu = thrift_bench.cpu_seconds(server_pid)
    for line in proc.stdout:
        parts = line.split()
        if len(parts) == 4 and parts[1].isdigit():
            now = thrift_bench.cpu_seconds(server_pid)
            count = int(parts[2])
            per_op = None if cpu is None else (now - cpu) * 1e6 / max(1, count)
            cpu = now
            rates[(parts[0], int(parts[1]))] = (count / float(parts[3]), per_op)
    err = proc.stderr.read()
    if proc.wait() != 0:
        raise SystemExit("LoadBench failed:\n" + err)
    return rates


def start_ferrobase(binary, data, extra=()):
    proc = subprocess.Popen([binary, "serve", "--data", data, "--port", "0", "--rpc-port", "0",
                             *extra], stdout=subprocess.PIPE, text=True)
    port = None
    while port is None:
        line = proc.stdout.readline()
        if not line:
            raise SystemExit("ferrobase did not start")
        if "native RPC on" in line:
            port = int(line.split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])
    return proc, port


def start_hbase(heap):
    env = thrift_bench.hbase_env(heap)
    script = os.path.join(ROOT, "scripts", "hbase-oracle.sh")
    subprocess.run(["bash", script, "stop"], env=env, stderr=subprocess.DEVNULL)
    out = subprocess.run(["bash", script, "start"], env=env, check=True, capture_output=True,
                         text=True).stdout
    fields = dict(kv.split("=", 1) for kv in out.split() if "=" in kv)
    return int(fields["master"]), int(fields["pid"])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("ferrobase")
    ap.add_argument("--rows", type=int, default=0, help="rows loaded (default 200000; 5000 quick)")
    ap.add_argument("--ops", type=int, default=0, help="gets per run (default 50000; 1000 quick)")
    ap.add_argument("--threads", type=int, default=8)
    ap.add_argument("--reps", type=int, default=0, help="repetitions (default 3; 1 quick)")
    ap.add_argument("--hbase-heap", default="2g")
    ap.add_argument("--quick", action="store_true", help="small sizes, one repetition (a smoke run)")
    ap.add_argument("--hbase-bootstrap", metavar="HOST:PORT",
                    help="an HBase master already running (scripts/test.sh passes the test oracle's)")
    ap.add_argument("--hbase-pid", type=int,
                    help="the process id of --hbase-bootstrap's server, for its CPU figures")
    ap.add_argument("--peer-ferrobase", metavar="FLAGS",
                    help="in HBase's place, a second `ferrobase serve` with these extra flags (to "
                         "measure a setting, e.g. --peer-ferrobase=--no-scan-read-ahead)")
    a = ap.parse_args()
    rows = a.rows or (5000 if a.quick else 200_000)
    ops = a.ops or (1000 if a.quick else 50_000)
    reps = a.reps or (1 if a.quick else 3)
    data = tempfile.mkdtemp(prefix="ferrobase-javabench-")
    ferro = peer = None
    try:
        ferro, fport = start_ferrobase(os.path.abspath(a.ferrobase), data)
        if a.peer_ferrobase is not None:
            os.makedirs(os.path.join(data, "peer"))
            peer, pport = start_ferrobase(os.path.abspath(a.ferrobase), os.path.join(data, "peer"),
                                          a.peer_ferrobase.split())
            hbase, hbase_pid = "127.0.0.1:%d" % pport, peer.pid
        elif a.hbase_bootstrap:
            hbase, hbase_pid = a.hbase_bootstrap, a.hbase_pid
        else:
            port, hbase_pid = start_hbase(a.hbase_heap)
            hbase = "127.0.0.1:%d" % port
        servers = [("ferrobase", "127.0.0.1:%d" % fport, ferro.pid), ("hbase", hbase, hbase_pid)]
        results = {name: [] for name, _, _ in servers}
        loads = []
        for rep in range(reps):
            for name, bootstrap, pid in servers:
                loads.append(os.getloadavg()[0])
                results[name].append(java(bootstrap, "javabench%d" % rep, rows, ops, a.threads, pid))
        print("hbase-client 2.6.1 (one connection, RpcConnectionRegistry), %d rows of 100 bytes, %d gets, "
              "%d 100-row scans and three full scans (the client's default caching) per run; %d repetition(s), the servers alternated; median (min-max). "
              "Load average (1 min) before the runs: %s.%s\n"
              % (rows, ops, max(1, ops // 100), reps, ", ".join("%.1f" % x for x in loads),
                 " Quick mode: too small and too cold to measure anything." if a.quick else ""))
        print("| %-32s | %7s | %24s | %24s | %7s |"
              % ("workload", "threads", "ferrobase",
                 "Apache HBase 2.6.1" if a.peer_ferrobase is None else
                 "ferrobase " + a.peer_ferrobase, "ratio"))
        print("|%s|%s:|%s:|%s:|%s:|" % ("-" * 34, "-" * 8, "-" * 25, "-" * 25, "-" * 8))

        def med(v):
            v = sorted(v)
            return v[len(v) // 2], v[0], v[-1]

        def fmt(m):
            return "%.0f (%.0f-%.0f)" % m if m[1] != m[2] else "%.0f" % m[0]
        for kind, label in WORKLOADS:
            for threads in (1, a.threads):
                f = med([r[(kind, threads)][0] for r in results["ferrobase"]])
                h = med([r[(kind, threads)][0] for r in results["hbase"]])
                print("| %-32s | %7d | %24s | %24s | %6.2fx |" % (label, threads, fmt(f), fmt(h), f[0] / h[0]))
        # The servers' CPU per operation (rows for the load and the full scan), where known.
        print("\nServer CPU per operation (user + system, the whole server process; for HBase the one "
              "JVM with its region server, master and ZooKeeper), median microseconds; the ratio is "
              "HBase / ferrobase (higher: ferrobase spends less):\n")
        print("| %-32s | %7s | %12s | %12s | %7s |" % ("workload", "threads", "ferrobase", "HBase", "ratio"))
        print("|%s|%s:|%s:|%s:|%s:|" % ("-" * 34, "-" * 8, "-" * 13, "-" * 13, "-" * 8))
        for kind, label in WORKLOADS:
            for threads in (1, a.threads):
                def cpu(name):
                    v = [r[(kind, threads)][1] for r in results[name]]
                    return None if None in v else med(v)[0]
                f, h = cpu("ferrobase"), cpu("hbase")
                print("| %-32s | %7d | %12s | %12s | %7s |" % (
                    label, threads, "-" if f is None else "%.2f" % f, "-" if h is None else "%.2f" % h,
                    "-" if f is None or h is None or f == 0 else "%.2fx" % (h / f)))
    finally:
        for proc in (ferro, peer):
            if proc is not None:
                proc.send_signal(signal.SIGTERM)
                proc.wait(timeout=60)
        if not a.hbase_bootstrap and a.peer_ferrobase is None:
            thrift_bench.stop_hbase(a.hbase_heap)
        shutil.rmtree(data, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
