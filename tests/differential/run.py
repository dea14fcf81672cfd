#!/usr/bin/env python3
"""Seeded randomized differential run: the same random happybase calls against Apache HBase (the
running oracle, scripts/hbase-oracle.sh start) and a fresh `ferrobase serve`, compared call by
call.

The run is a series of episodes, each on a fresh table with random family VERSIONS: puts with
and without timestamps over several families and qualifiers (the empty one included) and binary
row keys, the deletes Thrift1 offers (row, family, column up to a timestamp), increments, gets of
rows and of cell versions (columns, timestamps), scans (start/stop rows, prefixes, columns,
timestamps, limits, batch sizes, reversed) with filters from a small grammar of the filter
language, and flushes and major compactions. An episode ends at its first divergence, which is
printed with the calls that led to it (shrunk with --shrink) and both answers.

usage: run.py [--seed S] [--ops N] [--episode-ops K] [--episode E] [--shrink] [--strict] [--skip-known] [--brief] [--report FILE] [--nvb] [--kdc] [--ttl] [--wide]

With --wide the calls are wide.py's (issue 41): appends, checkAndPut, increments of every
amount, `_ttl` on every mutation, every get and raw scanner form, mixed deletes in one
mutateRow, filters with odd syntax, minor compactions, on families with MIN_VERSIONS and TTL.

With --nvb every family has NEW_VERSION_BEHAVIOR (created through the oracle's admin endpoint
and ferrobase's ferrobaseAdmin). With --ttl half the puts carry their own TTL (the `_ttl`
attribute, HBase's Mutation.setTTL): with an explicit timestamp of 1970 a second (so already
expired) or 2**62 ms, with the server's time only the long one.

Exit status: 0 when the run completed (divergences are reported, and fail the run only with
--strict), 1 with --strict and a divergence, 2 when a backend crashed or could not be reached.
"""

import argparse
import json
import os
import random
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from backends import Ferrobase, HBase, OracleNotRunning  # noqa: E402
from harness import Session, comparable, show  # noqa: E402
import wide  # noqa: E402  (after backends: happybase defines Hbase_thrift)

ROWS = [b"r0", b"r1", b"r2", b"r3", b"r10", b"\x00\xffbin", b"r1\x00"]
FAMILIES = [b"cf", b"f2"]
QUALIFIERS = [b"a", b"b", b"q0", b"q3", b""]
COUNTER = b"cf:n"


def column(rng):
    return rng.choice(FAMILIES) + b":" + rng.choice(QUALIFIERS)


def value(rng):
    return b"v%d" % rng.randrange(10)


def timestamp(rng):
    """An explicit timestamp (small, so never near the server's clock) or None (the server's)."""
    return None if rng.random() < 0.3 else rng.randrange(1, 60)


def simple_filter(rng):
    """wide.py's generator over cf and f2, as this differential always drew it."""
    return wide.simple_filter(rng, families=("cf", "f2"), key_only_true=False)


def filter_string(rng, depth=0):
    r = rng.random()
    if depth < 2 and r < 0.15:
        return "(%s) AND (%s)" % (filter_string(rng, depth + 1), filter_string(rng, depth + 1))
    if depth < 2 and r < 0.25:
        return "(%s) OR (%s)" % (filter_string(rng, depth + 1), filter_string(rng, depth + 1))
    if depth < 2 and r < 0.30:
        return "%s %s" % (rng.choice(["SKIP", "WHILE"]), simple_filter(rng))
    return simple_filter(rng)


def cell_ttl(rng, ts):
    """A `_ttl` attribute (Mutation.setTTL, ms) for a put at ts, or None: with an explicit (1970)
    timestamp a second (expired) or 2**62 ms (alive); with the server's time only the long one,
    so that no answer depends on how long the run takes."""
    r = rng.random()
    if r < 0.5:
        return None
    ms = 1000 if r < 0.8 and ts is not None else 2 ** 62
    return {b"_ttl": ms.to_bytes(8, "big", signed=True)}


def random_op(rng, skip_known=False, ttl=False):
    """One call as (method, kwargs) on harness.Session. With skip_known, calls that hit a known
    divergence at once are not generated (scans with start == stop, increments of cells that
    are not counters, major compactions of a table with data in the memstore: see KNOWN in
    cases.py), so that an episode runs on to find others. With ttl, half the puts carry a
    `_ttl` attribute (cell_ttl), sent through mutateRow(Ts)."""
    r = rng.random()
    row = rng.choice(ROWS)
    if r < 0.30:
        data = {column(rng): value(rng) for _ in range(rng.randrange(1, 4))}
        ts = timestamp(rng)
        attributes = cell_ttl(rng, ts) if ttl else None
        if attributes is not None:
            return "mutate_row", dict(row=row, data=data, timestamp=ts, attributes=attributes)
        return "put", dict(row=row, data=data, timestamp=ts)
    if r < 0.38:
        kind = rng.randrange(3)
        if kind == 0:
            return "delete", dict(row=row, columns=None, timestamp=timestamp(rng))
        if kind == 1:
            return "delete", dict(row=row, columns=[rng.choice(FAMILIES)], timestamp=timestamp(rng))
        return "delete", dict(row=row, columns=[column(rng)], timestamp=timestamp(rng))
    if r < 0.43:
        col = COUNTER if rng.random() < 0.9 or skip_known else column(rng)
        return "counter_inc", dict(row=row, column=col, value=rng.randrange(-3, 10))
    if r < 0.53:
        cols = None if rng.random() < 0.5 else [column(rng) for _ in range(rng.randrange(1, 3))]
        return "row", dict(row=row, columns=cols, timestamp=None if rng.random() < 0.6 else rng.randrange(1, 61))
    if r < 0.63:
        return "cells", dict(row=row, column=column(rng), versions=rng.randrange(1, 5),
                             timestamp=None if rng.random() < 0.6 else rng.randrange(1, 61))
    if r < 0.97:
        kw = {}
        if rng.random() < 0.3:
            kw["row_prefix"] = rng.choice([b"r1", b"r", b"\x00"])
        else:
            if rng.random() < 0.4:
                kw["row_start"] = rng.choice(ROWS)
            if rng.random() < 0.4:
                kw["row_stop"] = rng.choice(ROWS)
                if skip_known and kw["row_stop"] == kw.get("row_start"):
                    del kw["row_stop"]
        if rng.random() < 0.3:
            kw["columns"] = [rng.choice([column(rng), rng.choice(FAMILIES)]) for _ in range(rng.randrange(1, 3))]
        if rng.random() < 0.6:
            kw["filter"] = filter_string(rng).encode()
        if rng.random() < 0.2:
            kw["timestamp"] = rng.randrange(1, 61)
        if rng.random() < 0.2:
            kw["limit"] = rng.randrange(1, 4)
        if rng.random() < 0.15:
            kw["batch_size"] = rng.randrange(1, 3)
        if rng.random() < 0.1:
            kw["scan_batching"] = rng.randrange(1, 3)
        if rng.random() < 0.15 and "row_prefix" not in kw:
            kw["reverse"] = True
        return "scan", kw
    if r < 0.985:
        return "flush", {}
    return "flush_and_major_compact" if skip_known else "major_compact", {}


def uses_server_time(method, kw):
    if method == "counter_inc" or (method in ("put", "mutate_row", "delete") and kw.get("timestamp") is None):
        return True
    return wide.writes(method, kw) and method not in ("put", "mutate_row", "delete")


def is_read(op):
    method, kw = op
    return method in ("row", "cells", "scan", "scanner") or (method == "raw" and not wide.writes(method, kw))


class Crash(Exception):
    pass


def episode_families(rng, nvb, kdc=False):
    """The families of an episode: random VERSIONS; with nvb, NEW_VERSION_BEHAVIOR on both, with
    kdc, KEEP_DELETED_CELLS TRUE on f2 (created through the master: dicts of HBase's attribute
    names)."""
    families = {"cf": rng.choice([1, 1, 2, 3]), "f2": rng.choice([1, 3, 5])}
    if not (nvb or kdc):
        return families
    out = {f: {"VERSIONS": v} for f, v in families.items()}
    for attrs in out.values():
        if nvb:
            attrs["NEW_VERSION_BEHAVIOR"] = "true"
    if kdc:
        out["f2"]["KEEP_DELETED_CELLS"] = "TRUE"
    return out


def replay(backends, table, families, ops):
    """Runs ops on each backend on a fresh table; returns both transcripts and the first
    divergence (index into the transcripts, which start with create_table), or None.
    families: {name: VERSIONS} (created through Thrift1), or {name: {ATTRIBUTE: value}}
    (through each backend's create_table)."""
    sessions = [Session(b, table) for b in backends]
    try:
        for s in sessions:
            if any(isinstance(v, dict) for v in families.values()):
                s.create_master(families)
            else:
                s.create(families)
        for method, kw in ops:
            start = len(sessions[0].transcript)
            for s in sessions:
                getattr(s, method)(**kw)
                if uses_server_time(method, kw):
                    time.sleep(0.002)  # later server-time writes land in a later millisecond
            h, f = sessions[0].transcript, sessions[1].transcript
            for i in range(start, len(h)):
                if comparable(h[i][1]) != comparable(f[i][1]):
                    return h, f, i
        return sessions[0].transcript, sessions[1].transcript, None
    finally:
        for s in sessions:
            try:
                s.drop()
            except Exception as e:  # noqa: BLE001
                raise Crash("%s: could not drop table %s: %r" % (s.backend.name, table, e))


def shrink(backends, table, families, ops, budget):
    """Fewer calls with a divergence still at the end: the reads before the last call are
    dropped, then chunks of the writes, as long as a divergence remains (ddmin, bounded)."""
    def diverges(candidate):
        return replay(backends, table, families, candidate)[2] is not None

    last = ops[-1]
    body = [op for op in ops[:-1] if not is_read(op)]
    runs = 1
    if not diverges(body + [last]):
        body = ops[:-1]
    chunk = max(1, len(body) // 2)
    while chunk >= 1 and runs < budget:
        i, removed = 0, False
        while i < len(body) and runs < budget:
            candidate = body[:i] + body[i + chunk:]
            runs += 1
            if diverges(candidate + [last]):
                body, removed = candidate, True
            else:
                i += chunk
        if not removed:
            chunk //= 2
    return body + [last]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--seed", type=int, default=None)
    ap.add_argument("--ops", type=int, default=500)
    ap.add_argument("--episode-ops", type=int, default=100, help="calls per fresh table")
    ap.add_argument("--shrink", action="store_true", help="shrink each divergence (slower)")
    ap.add_argument("--shrink-budget", type=int, default=40, help="replays per shrink")
    ap.add_argument("--episode", type=int, help="run only this episode of the seed (to reproduce one)")
    ap.add_argument("--strict", action="store_true", help="exit 1 on any divergence")
    ap.add_argument("--skip-known", action="store_true",
                    help="do not generate calls that hit a known divergence at once")
    ap.add_argument("--brief", action="store_true",
                    help="print only the diverging call and both answers (the calls go to --report)")
    ap.add_argument("--report", help="write the divergences as JSON here")
    ap.add_argument("--nvb", action="store_true",
                    help="families with NEW_VERSION_BEHAVIOR => true (HBASE-15968)")
    ap.add_argument("--kdc", action="store_true", help="family f2 with KEEP_DELETED_CELLS => TRUE")
    ap.add_argument("--ttl", action="store_true",
                    help="half the puts with a per-cell TTL (the _ttl attribute): expired or alive")
    ap.add_argument("--wide", action="store_true",
                    help="wide.py's calls: appends, checkAndPut, increments, _ttl, every get and scanner, "
                         "MIN_VERSIONS + TTL families, minor compactions (issue 41)")
    ap.add_argument("--ferrobase", help="the ferrobase binary (default target/debug/ferrobase)")
    args = ap.parse_args()
    if args.nvb:
        # HBase 2.6.1's NewVersionBehaviorTracker throws a NullPointerException (an IOError,
        # or a failed compaction) on a row whose empty-qualifier column begins with a put and
        # then meets a column delete: no empty qualifier in columns written or read (family
        # deletes still write their markers there). docs/design/hbase-compatibility.md.
        QUALIFIERS.remove(b"")
    seed = args.seed if args.seed is not None else random.randrange(1 << 32)
    print("differential: seed %d, %d ops, %d per episode%s" % (seed, args.ops, args.episode_ops,
                                                               ", wide" if args.wide else ""), flush=True)

    try:
        hbase = HBase()
    except OracleNotRunning as e:
        print("differential: %s" % e, file=sys.stderr)
        return 2
    ferrobase = Ferrobase(args.ferrobase)
    backends = [hbase, ferrobase]
    divergences, done, episode, episodes = [], 0, args.episode or 0, 0
    status = 0
    try:
        while done < args.ops:
            rng = random.Random("%d/%d" % (seed, episode))
            n = min(args.episode_ops, args.ops - done)
            if args.wide:
                families = wide.families(rng, args.kdc)
                ops = [wide.random_op(rng, args.skip_known) for _ in range(n)]
            else:
                families = episode_families(rng, args.nvb, args.kdc)
                ops = [random_op(rng, args.skip_known, args.ttl) for _ in range(n)]
            table = "rand_%d_%d" % (seed % 100000, episode)
            h, f, at = replay(backends, table, families, ops)
            done += at if at is not None else n  # transcript[0] is create_table
            if at is not None:
                calls = ops[:at]
                if args.shrink:
                    calls = shrink(backends, table, families, calls, args.shrink_budget)
                    h, f, at = replay(backends, table, families, calls)
                print("\n== divergence: seed %d, episode %d, families %s, after %d calls" % (seed, episode, families, at - 1))
                if args.brief:
                    print(show(h[at:], f[at:], 0), flush=True)
                else:
                    print(show(h, f, at), flush=True)
                divergences.append({"seed": seed, "episode": episode, "families": families,
                                    "calls": [c for c, _ in h[:at + 1]],
                                    "hbase": h[at][1], "ferrobase": f[at][1]})
            episode += 1
            episodes += 1
            if args.episode is not None:
                break
            if ferrobase.proc.poll() is not None:
                raise Crash("ferrobase serve exited with %s" % ferrobase.proc.returncode)
    except Crash as e:
        print("differential: CRASH: %s" % e, file=sys.stderr)
        status = 2
    finally:
        code = ferrobase.stop()
        if code != 0 and status == 0:
            print("differential: ferrobase serve did not stop cleanly: exit %s" % code, file=sys.stderr)
            status = 2
    if args.report:
        with open(args.report, "w") as out:
            json.dump(divergences, out, indent=1)
    print("differential: seed %d: %d ops in %d episodes, %d divergence(s)" % (seed, done, episodes, len(divergences)))
    if status == 0 and divergences and args.strict:
        status = 1
    return status


if __name__ == "__main__":
    sys.exit(main())
