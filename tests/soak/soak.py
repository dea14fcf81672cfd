#!/usr/bin/env python3
"""Soak and overload run of `ferrobase serve` through happybase.

Starts its own server on a free port and an empty data directory (or --data), opens N
connections (happybase, spread over worker processes of threads, one connection per thread) and
runs a mixed workload on them for a fixed time: puts (2% of them 64-256 KiB values, --large-fraction), gets,
prefix scans, increments and deletes. Optionally the server is killed with SIGKILL and restarted
on the same port and data directory in rounds (--kill-rounds), while the clients reconnect.

Every 10 s it prints one row: operations per second, p50/p99/p999 latency of the successful
operations, errors by type, and the server's resident memory (VmRSS from /proc/PID/status) and
open file descriptors (/proc/PID/fd).

Each thread records what the server acknowledged: rows put (their values are derived from the
row key, so they are regenerated, not kept), rows deleted, and its counter's last acknowledged
value with the increments whose outcome is unknown since. At the end every acknowledged write is
read back and compared: a put's row must hold its value, a deleted row must be gone, a counter
must lie between its last acknowledged value and that plus the unknown increments. A put or
delete whose answer never came (the connection broke) is left out: it may or may not have
happened. The run fails (exit 1) on any acknowledged write not found as acknowledged, any read
that contradicts one during the run, or any error that is not the server's documented busy
answer or a broken connection.

usage: soak.py PATH_TO_FERROBASE [--connections N] [--duration SECS] [--kill-rounds N]
               [--processes N] [--think-ms MS] [--large-fraction F] [--data DIR]
               [--server-arg ARG ...] [--markdown FILE]
"""

import argparse
import collections
import multiprocessing as mp
import os
import queue
import random
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

INTERVAL = 10.0
TABLE = b"soak"
LARGE_SIZES = (64 << 10, 256 << 10)


# ---- the server -------------------------------------------------------------------------------


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """`ferrobase serve` on a fixed port and data directory, killed and restarted at will."""

    def __init__(self, binary, data, port, extra, log_path):
        self.binary, self.data, self.port, self.extra = binary, data, port, extra
        self.log = open(log_path, "ab")
        self.proc = None
        self.start()

    def start(self):
        args = [self.binary, "serve", "--data", self.data, "--port", str(self.port)] + self.extra
        deadline = time.time() + 60
        while True:
            self.proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=self.log)
            line = self.proc.stdout.readline().decode()
            if "serving" in line:
                return
            self.proc.wait()
            # The port may linger for a moment after a kill; try again.
            if time.time() > deadline:
                raise RuntimeError("the server did not start: %r (see the server log)" % line)
            time.sleep(0.5)

    def kill(self):
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait()

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout=120)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            return self.proc.wait()

    def rss_mib(self):
        try:
            with open("/proc/%d/status" % self.proc.pid) as f:
                for line in f:
                    if line.startswith("VmRSS:"):
                        return int(line.split()[1]) / 1024.0
        except OSError:
            pass
        return float("nan")

    def fds(self):
        try:
            return len(os.listdir("/proc/%d/fd" % self.proc.pid))
        except OSError:
            return -1


# ---- the clients ------------------------------------------------------------------------------


def value_of(row, size):
    """The value put in `row`: its key repeated to `size` bytes, so it is regenerated, not kept."""
    unit = row + b"|"
    return (unit * (size // len(unit) + 1))[:size]


def classify(exc):
    """Error type of an exception from a happybase call."""
    name = type(exc).__name__
    if name == "IOError" and hasattr(exc, "message"):
        message = exc.message or ""
        if isinstance(message, bytes):
            message = message.decode("utf-8", "replace")
        if message.startswith("Call queue is full on"):
            return "busy"
        if "requests in flight hold more than" in message:
            return "busy_memory"
        return "io_error"
    if name == "TApplicationException":
        return "app_exception"
    if isinstance(exc, (socket.timeout, TimeoutError)):
        return "timeout"
    if name in ("TTransportException",) or isinstance(exc, (ConnectionError, OSError, EOFError)):
        return "connection"
    return "other:" + name


# The server's refusals before a call runs: the call is known not to have happened.
BUSY = ("busy", "busy_memory")
# Error types expected under overload and kill rounds; any other fails the run.
EXPECTED = {"busy", "busy_memory", "connection", "connect", "timeout"}


class Recorder:
    """Per-process statistics by interval, shipped to the parent."""

    def __init__(self, start, out):
        self.start, self.out = start, out
        self.lock = threading.Lock()
        self.intervals = {}

    def _slot(self, t):
        i = int((t - self.start) // INTERVAL)
        s = self.intervals.get(i)
        if s is None:
            s = self.intervals[i] = {"ops": 0, "lat": [], "errors": collections.Counter(),
                                     "by_op": collections.Counter()}
        return s

    def ok(self, op, t0, t1):
        with self.lock:
            s = self._slot(t1)
            s["ops"] += 1
            s["by_op"][op] += 1
            s["lat"].append(t1 - t0)

    def error(self, kind, t, detail=None):
        with self.lock:
            self._slot(t)["errors"][kind] += 1
            if detail and kind not in EXPECTED:
                self.out.put(("detail", kind, detail))

    def ship(self, upto=None):
        with self.lock:
            done = [i for i in self.intervals if upto is None or i < upto]
            batch = {i: self.intervals.pop(i) for i in done}
        for i, s in batch.items():
            s["errors"] = dict(s["errors"])
            s["by_op"] = dict(s["by_op"])
            self.out.put(("interval", i, s))


class Writer:
    """One connection's workload and what the server acknowledged to it."""

    def __init__(self, tag, port, rec, rng, think, large):
        self.tag, self.port, self.rec, self.rng, self.think = tag, port, rec, rng, think
        self.large = large
        self.conn = None
        self.table = None
        self.seq = 0
        self.acked = {}  # row -> value size
        self.acked_list = []  # rows, for picking (deleted ones are skipped lazily)
        self.deleted = set()
        self.unknown = set()  # rows whose delete's answer never came
        self.counter_row = b"ctr-" + tag
        self.counter_acked = 0
        self.counter_unknown = 0

    def connect(self):
        import happybase
        if self.conn is not None:
            return True
        try:
            c = happybase.Connection("127.0.0.1", self.port, timeout=180000, autoconnect=False)
            c.open()
            self.conn, self.table = c, c.table(TABLE)
            return True
        except Exception:  # noqa: BLE001 (any failure to connect is a connect error)
            self.rec.error("connect", time.time())
            return False

    def drop(self):
        try:
            if self.conn is not None:
                self.conn.close()
        except Exception:  # noqa: BLE001
            pass
        self.conn = self.table = None

    def pick_acked(self):
        for _ in range(4):
            if not self.acked_list:
                return None
            row = self.acked_list[self.rng.randrange(len(self.acked_list))]
            if row in self.acked:
                return row
        return None

    def step(self):
        r = self.rng.random()
        if r < 0.35:
            op = "put"
        elif r < 0.65:
            op = "get"
        elif r < 0.75:
            op = "scan"
        elif r < 0.90:
            op = "increment"
        else:
            op = "delete"
        t0 = time.time()
        row = None
        try:
            if op == "put":
                self.seq += 1
                row = b"%s-%08d" % (self.tag, self.seq)
                size = (self.rng.randint(*LARGE_SIZES) if self.rng.random() < self.large
                        else self.rng.randint(10, 1000))
                self.table.put(row, {b"cf:v": value_of(row, size)})
                self.acked[row] = size
                self.acked_list.append(row)
            elif op == "get":
                row = self.pick_acked()
                if row is None:
                    return
                got = self.table.row(row).get(b"cf:v")
                if got is None:
                    self.rec.error("missing_read", time.time(), row.decode())
                    return
                if got != value_of(row, self.acked[row]):
                    self.rec.error("wrong_read", time.time(), row.decode())
                    return
            elif op == "scan":
                n = 0
                for key, data in self.table.scan(row_prefix=self.tag + b"-", limit=20,
                                                 batch_size=20):
                    n += 1
                    size = self.acked.get(key)
                    if size is not None and data.get(b"cf:v") != value_of(key, size):
                        self.rec.error("wrong_read", time.time(), key.decode())
                        return
            elif op == "increment":
                try:
                    v = self.table.counter_inc(self.counter_row, b"cf:n", 1)
                except Exception as e:
                    if classify(e) not in BUSY:
                        self.counter_unknown += 1  # it may have run
                    raise
                self.counter_acked, self.counter_unknown = v, 0
            else:
                row = self.pick_acked()
                if row is None:
                    return
                size = self.acked.pop(row)
                try:
                    self.table.delete(row)
                except Exception as e:
                    if classify(e) in BUSY:
                        self.acked[row] = size  # refused before it ran
                    else:
                        self.unknown.add(row)  # it may have run
                    raise
                self.deleted.add(row)
        except Exception as e:  # noqa: BLE001 (every failure is counted by type)
            kind = classify(e)
            self.rec.error(kind, time.time(), "%s %s: %r" % (op, row, e))
            if kind in ("connection", "timeout"):
                self.drop()
            if kind in BUSY:
                time.sleep(self.rng.uniform(0.02, 0.2))
            return
        self.rec.ok(op, t0, time.time())

    def run(self, until):
        while time.time() < until:
            if not self.connect():
                time.sleep(0.2)
                continue
            self.step()
            if self.think:
                time.sleep(self.think)
        self.drop()


def verify(writers, port, out):
    """Reads back every acknowledged write of `writers`; returns problem counts and examples."""
    import happybase
    problems = collections.Counter()
    examples = []
    checked = collections.Counter()
    conn = None
    for attempt in range(60):
        try:
            conn = happybase.Connection("127.0.0.1", port, timeout=300000)
            break
        except Exception:  # noqa: BLE001
            time.sleep(1)
    table = conn.table(TABLE)

    def rows(keys):
        for _ in range(20):
            try:
                return dict(table.rows(keys))
            except Exception as e:  # noqa: BLE001
                if classify(e) not in BUSY:
                    raise
                time.sleep(0.5)
        raise RuntimeError("the server stayed busy during verification")

    for w in writers:
        keys = list(w.acked)
        for i in range(0, len(keys), 200):
            chunk = keys[i:i + 200]
            got = rows(chunk)
            for k in chunk:
                checked["puts"] += 1
                v = got.get(k, {}).get(b"cf:v")
                if v is None:
                    problems["acked put missing"] += 1
                    examples.append("missing %s" % k.decode())
                elif v != value_of(k, w.acked[k]):
                    problems["acked put wrong value"] += 1
                    examples.append("wrong value %s" % k.decode())
        dels = list(w.deleted)
        for i in range(0, len(dels), 200):
            chunk = dels[i:i + 200]
            got = rows(chunk)
            for k in chunk:
                checked["deletes"] += 1
                if k in got and got[k]:
                    problems["acked delete still present"] += 1
                    examples.append("present %s" % k.decode())
        got = rows([w.counter_row]).get(w.counter_row, {}).get(b"cf:n")
        value = int.from_bytes(got, "big", signed=True) if got else 0
        checked["counters"] += 1
        if not (w.counter_acked <= value <= w.counter_acked + w.counter_unknown):
            problems["counter out of range"] += 1
            examples.append("counter %s = %d, acked %d, unknown %d" % (
                w.counter_row.decode(), value, w.counter_acked, w.counter_unknown))
    conn.close()
    out.put(("verified", dict(checked), dict(problems), examples[:10]))


def worker(index, threads, port, start, until, think, large, out, go):
    rec = Recorder(start, out)
    writers = [Writer(b"p%02dt%04d" % (index, t), port, rec, random.Random(index * 100003 + t),
                      think, large) for t in range(threads)]
    pool = [threading.Thread(target=w.run, args=(until,), daemon=True) for w in writers]
    for t in pool:
        t.start()
    while any(t.is_alive() for t in pool):
        time.sleep(1.0)
        rec.ship(upto=int((time.time() - start) // INTERVAL))
        if time.time() > until + 600:
            break
    rec.ship()
    out.put(("done", index))
    # Verification waits for the parent: the server may be restarting.
    go.wait()
    verify(writers, port, out)


# ---- the run ----------------------------------------------------------------------------------


def percentile(sorted_values, p):
    if not sorted_values:
        return float("nan")
    k = min(len(sorted_values) - 1, int(p * len(sorted_values)))
    return sorted_values[k]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("binary")
    ap.add_argument("--connections", type=int, default=50)
    ap.add_argument("--duration", type=float, default=20)
    ap.add_argument("--kill-rounds", type=int, default=0,
                    help="SIGKILL and restart the server this many times, evenly spread")
    ap.add_argument("--processes", type=int, default=0,
                    help="client processes (default: one per 125 connections, at least 2)")
    ap.add_argument("--think-ms", type=float, default=0, help="pause between a thread's calls")
    ap.add_argument("--large-fraction", type=float, default=0.02,
                    help="share of puts with a 64-256 KiB value (default 0.02)")
    ap.add_argument("--data", help="data directory (default: a fresh temporary one)")
    ap.add_argument("--server-arg", action="append", default=[],
                    help="extra argument for ferrobase serve (repeatable)")
    ap.add_argument("--markdown", help="also write the table and summary to this file")
    args = ap.parse_args()

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    want = min(hard, max(soft, 4 * args.connections + 1024))
    if want > soft:
        resource.setrlimit(resource.RLIMIT_NOFILE, (want, hard))
    work = tempfile.mkdtemp(prefix="ferrobase-soak-")
    data = args.data or os.path.join(work, "data")
    port = free_port()
    extra = ["--max-connections", str(args.connections + 64)] + args.server_arg
    server = Server(args.binary, data, port, extra, os.path.join(work, "server.log"))

    import happybase
    c = happybase.Connection("127.0.0.1", port)
    if TABLE not in c.tables():
        c.create_table(TABLE, {"cf": dict(max_versions=1)})
    c.close()

    processes = args.processes or max(2, (args.connections + 124) // 125)
    processes = min(processes, args.connections)
    start = time.time() + 1.0
    until = start + args.duration
    out = mp.Queue()
    go = mp.Event()
    per = [args.connections // processes + (1 if i < args.connections % processes else 0)
           for i in range(processes)]
    procs = [mp.Process(target=worker, args=(i, n, port, start, until, args.think_ms / 1000.0,
                                              args.large_fraction, out, go), daemon=True)
             for i, n in enumerate(per)]
    for p in procs:
        p.start()

    kills = [start + args.duration * (k + 1) / (args.kill_rounds + 1)
             for k in range(args.kill_rounds)]
    lines = []

    def emit(line=""):
        print(line, flush=True)
        lines.append(line)

    emit("ferrobase soak: %d connections in %d processes, %.0f s, %d kill round(s), server %s %s"
         % (args.connections, processes, args.duration, args.kill_rounds, args.binary,
            " ".join(extra)))
    emit()
    emit("| t (s) | ops/s | p50 ms | p99 ms | p999 ms | errors | server RSS MiB | server fds | event |")
    emit("|---:|---:|---:|---:|---:|---|---:|---:|---|")
    intervals = {}
    samples = {}
    events = collections.defaultdict(list)
    details = collections.Counter()
    detail_examples = []
    done = 0
    verified = []
    total_ops = 0
    total_errors = collections.Counter()
    rss_peak = 0.0
    next_print = 0
    n_intervals = int((args.duration + INTERVAL - 1) // INTERVAL)

    def drain(block_until):
        nonlocal done
        while True:
            left = block_until - time.time()
            try:
                msg = out.get(timeout=max(0.01, left)) if left > 0 else out.get_nowait()
            except queue.Empty:
                return
            if msg[0] == "interval":
                _, i, s = msg
                agg = intervals.setdefault(i, {"ops": 0, "lat": [], "errors": collections.Counter()})
                agg["ops"] += s["ops"]
                agg["lat"].extend(s["lat"])
                agg["errors"].update(s["errors"])
            elif msg[0] == "detail":
                details[msg[1]] += 1
                if len(detail_examples) < 10:
                    detail_examples.append("%s: %s" % (msg[1], msg[2]))
            elif msg[0] == "done":
                done += 1
            elif msg[0] == "verified":
                verified.append(msg[1:])

    def print_interval(i):
        nonlocal total_ops, rss_peak
        agg = intervals.pop(i, {"ops": 0, "lat": [], "errors": collections.Counter()})
        lat = sorted(agg["lat"])
        rss, fds = samples.get(i, (float("nan"), -1))
        rss_peak = max(rss_peak, rss) if rss == rss else rss_peak
        total_ops += agg["ops"]
        total_errors.update(agg["errors"])
        errors = ", ".join("%s %d" % kv for kv in sorted(agg["errors"].items())) or "-"
        emit("| %d | %.0f | %.1f | %.1f | %.1f | %s | %.0f | %d | %s |" % (
            (i + 1) * INTERVAL, agg["ops"] / INTERVAL, percentile(lat, 0.5) * 1000,
            percentile(lat, 0.99) * 1000, percentile(lat, 0.999) * 1000, errors, rss, fds,
            "; ".join(events.get(i, [])) or ""))

    while time.time() < until:
        now = time.time()
        if kills and now >= kills[0]:
            kills.pop(0)
            i = int((now - start) // INTERVAL)
            server.kill()
            t_kill = time.time()
            server.start()
            events[i].append("kill -9, restarted in %.1f s" % (time.time() - t_kill))
        if now >= start:
            i = int((now - start) // INTERVAL)
            # Sample the server near the end of each interval.
            if i not in samples and (now - start) - i * INTERVAL >= INTERVAL - 1.5:
                samples[i] = (server.rss_mib(), server.fds())
        drain(time.time() + 0.2)
        # An interval is printed once the workers have shipped it (they ship each second).
        while next_print < n_intervals and time.time() >= start + (next_print + 1) * INTERVAL + 4:
            print_interval(next_print)
            next_print += 1
    while done < processes:
        drain(time.time() + 1.0)
        if not any(p.is_alive() for p in procs) and done < processes:
            break
    drain(time.time() + 0.5)
    while next_print < n_intervals:
        samples.setdefault(next_print, (server.rss_mib(), server.fds()))
        print_interval(next_print)
        next_print += 1

    # Verification on the server as it is now (after every kill round, recovered from its WAL).
    go.set()
    t_verify = time.time()
    while len(verified) < processes and time.time() < t_verify + 1800:
        drain(time.time() + 1.0)
        if not any(p.is_alive() for p in procs) and len(verified) < processes:
            drain(time.time() + 1.0)
            break
    for p in procs:
        p.join(timeout=10)
    checked = collections.Counter()
    problems = collections.Counter()
    examples = []
    for c_, p_, e_ in verified:
        checked.update(c_)
        problems.update(p_)
        examples.extend(e_)
    code = server.stop()

    unexpected = {k: v for k, v in total_errors.items() if k not in EXPECTED}
    emit()
    emit("Total: %d operations (%.0f/s), errors: %s; server peak RSS sampled %.0f MiB."
         % (total_ops, total_ops / max(args.duration, 1),
            ", ".join("%s %d" % kv for kv in sorted(total_errors.items())) or "none", rss_peak))
    emit("Verification (%d of %d processes reported): %s checked; %s." % (
        len(verified), processes,
        ", ".join("%d %s" % (v, k) for k, v in sorted(checked.items())) or "nothing",
        ", ".join("%d %s" % (v, k) for k, v in sorted(problems.items())) or "no acknowledged write lost or wrong"))
    for e in examples[:10] + detail_examples:
        emit("    " + e)
    emit("Server exit after SIGTERM: %s. Server log: %s" % (code, os.path.join(work, "server.log")))
    if args.markdown:
        with open(args.markdown, "w") as f:
            f.write("\n".join(lines) + "\n")
    failed = problems or unexpected or len(verified) < processes or code != 0
    if failed:
        emit("SOAK FAILED: %s" % ("; ".join(filter(None, [
            problems and "acknowledged writes not as acknowledged",
            unexpected and "unexpected errors %s" % unexpected,
            len(verified) < processes and "verification incomplete",
            code != 0 and "server exit code %s" % code]))))
        sys.exit(1)
    emit("SOAK PASSED")
    if not args.data:
        shutil.rmtree(data, ignore_errors=True)  # the log stays, for the record


if __name__ == "__main__":
    main()
