"""docs/apps/cell-lifetime.md's examples (when cells disappear under VERSIONS, MIN_VERSIONS and
TTL) run on Apache HBase 2.6.1 (the oracle, scripts/hbase-oracle.sh start) and on
`ferrobase serve` through Thrift1 (happybase), answers compared. Timestamps relative to the
test's NOW (the same offsets on both), so the answers read as the page prints them
(`NOW-60000`). The page records what both answered; this test keeps it true."""

import time

import pytest


def rel(cells, now):
    """(value, timestamp) pairs with the timestamp as the page writes it."""
    def ts(t):
        if t < 10 ** 12:
            return str(t)
        d = t - now
        return "NOW" if d == 0 else "NOW%+d" % d if abs(d) > 5000 else "now"
    return [(v.decode(), ts(t)) for v, t in cells]


def row_cells(row, now):
    return {c.decode(): rel([v], now) for c, v in sorted(row.items())}


def scenario(backend, suffix, now):
    """Every example of the page's "Seen in the shell" on one backend: (label, answer)."""
    conn = backend.connect()
    out = []
    names = {k: "cell_lifetime_%s_%s" % (k, suffix) for k in ("v", "v3", "ttl", "mv")}
    try:
        backend.create_table(conn, names["v"], {"f": {}})
        t = conn.table(names["v"])
        for ts, v in [(1000, b"one"), (2000, b"two"), (3000, b"three")]:
            t.put(b"r", {b"f:a": v}, timestamp=ts)
        out.append(("VERSIONS 1 (default), ask for 3",
                    rel(t.cells(b"r", b"f:a", versions=3, include_timestamp=True), now)))

        backend.create_table(conn, names["v3"], {"f": {"VERSIONS": 3}})
        t = conn.table(names["v3"])
        for ts, v in [(1000, b"one"), (2000, b"two"), (3000, b"three"), (4000, b"four"),
                      (500, b"late-but-old")]:
            t.put(b"r", {b"f:a": v}, timestamp=ts)
        out.append(("VERSIONS 3, a late put older than the 3 newest",
                    rel(t.cells(b"r", b"f:a", versions=10, include_timestamp=True), now)))

        backend.create_table(conn, names["ttl"], {"f": {"TTL": 30}})
        t = conn.table(names["ttl"])
        t.put(b"r", {b"f:a": b"fresh"}, timestamp=now)
        t.put(b"r", {b"f:b": b"a minute old"}, timestamp=now - 60000)
        out.append(("TTL 30 s, one cell a minute old",
                    row_cells(t.row(b"r", include_timestamp=True), now)))

        backend.create_table(conn, names["mv"], {"f": {"VERSIONS": 3, "MIN_VERSIONS": 1, "TTL": 30}})
        t = conn.table(names["mv"])
        for age, v in [(62000, b"old1"), (61000, b"old2"), (60000, b"old3")]:
            t.put(b"r", {b"f:a": v}, timestamp=now - age)
        out.append(("MIN_VERSIONS 1, TTL 30 s, all expired: the column named",
                    rel(t.cells(b"r", b"f:a", versions=3, include_timestamp=True), now)))
        out.append(("... the whole row",
                    row_cells(t.row(b"r", include_timestamp=True), now)))
        out.append(("... the family",
                    row_cells(t.row(b"r", columns=[b"f"], include_timestamp=True), now)))
        backend.flush(conn, names["mv"])
        out.append(("... the column named, after a flush",
                    rel(t.cells(b"r", b"f:a", versions=3, include_timestamp=True), now)))
        backend.major_compact(conn, names["mv"])
        out.append(("... the column named, after a major compaction",
                    rel(t.cells(b"r", b"f:a", versions=3, include_timestamp=True), now)))
        t.put(b"r", {b"f:a": b"live"}, timestamp=now)
        out.append(("... then a live version: the column named",
                    rel(t.cells(b"r", b"f:a", versions=3, include_timestamp=True), now)))
    finally:
        for name in names.values():
            try:
                conn.disable_table(name)
                conn.delete_table(name)
            except Exception:
                pass
        conn.close()
    return out


def test_the_cell_lifetime_page_answers_as_apache_hbase(hbase, ferrobase):
    now = int(time.time() * 1000)
    suffix = "%d" % (now % 100000)
    h = scenario(hbase, suffix, now)
    f = scenario(ferrobase, suffix, now)
    for (label, hv), (_, fv) in zip(h, f):
        print("%s\n  hbase:     %s\n  ferrobase: %s" % (label, hv, fv))
    assert f == h
    # What the page prints (docs/apps/cell-lifetime.md), as both answered.
    answers = dict(h)
    assert answers["VERSIONS 1 (default), ask for 3"] == [("three", "3000")]
    assert answers["VERSIONS 3, a late put older than the 3 newest"] == [
        ("four", "4000"), ("three", "3000"), ("two", "2000")]
    assert answers["TTL 30 s, one cell a minute old"] == {"f:a": [("fresh", "NOW")]}
    assert answers["MIN_VERSIONS 1, TTL 30 s, all expired: the column named"] == [
        ("old3", "NOW-60000")]
    # HBase's ExplicitColumnTracker keeps the first expired version past MIN_VERSIONS.
    assert answers["... then a live version: the column named"] == [
        ("live", "NOW"), ("old3", "NOW-60000")]
