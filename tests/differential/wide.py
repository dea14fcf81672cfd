"""The wider random calls of `run.py --wide` (issue 41): everything Thrift1 offers a program.

Beside run.py's puts, deletes, reads and scans: appends; checkAndPut with a value, an empty value
and None expected, its mutation sometimes marked isDelete; increments (atomicIncrement,
increment, incrementRows) of every amount, overflow included; the `_ttl` attribute on every
mutation that carries attributes (mutateRow(s)(Ts), deleteAll(Ts), deleteAllRow(Ts),
checkAndPut); every get (get, getVer, getVerTs, getRow(WithColumns)(Ts), getRows(WithColumns)(Ts));
raw scanners (every scannerOpen* form, TScan with reversed, caching, batchSize, sortColumns)
read with scannerGet and scannerGetList of random sizes; mutateRow(Ts) mixing puts with column
and family deletes; filters nested with SKIP and WHILE and in the syntax HBase's parser
refuses; flushes, minor compactions and major compactions.

An episode's table has three families created through each backend's create_table: `cf` and
`f2` with random VERSIONS and `mv` with MIN_VERSIONS (0–2) and a TTL of a day, so that explicit
timestamps (1970) are expired there and the server's are not. Every family gets ferrobase's
compaction settings on the oracle (`hbase.hstore.compaction.min` 3, `.max` 10; the ratio 1.2 and
minimum size 128 MB are both sides' defaults), so that a minor compaction selects the same files.

With skip_known, calls that meet a deliberate difference (docs/design/hbase-compatibility.md,
Deliberate differences) are not generated: Thrift1 majorCompact (HBase: a normal compaction),
the same cell twice in one incrementRows (HBase keeps both as versions), a compaction with
data in the memstore (ferrobase flushes first)."""

from Hbase_thrift import Mutation

ROWS = [b"r0", b"r1", b"r2", b"r3", b"r10", b"\x00\xffbin", b"r1\x00"]
FAMILIES = [b"cf", b"f2", b"mv"]
QUALIFIERS = [b"a", b"b", b"q0", b"q3", b""]
COUNTERS = [b"cf:n", b"f2:n", b"mv:n"]
OPS = ["<", "<=", "=", "!=", ">", ">="]
AMOUNTS = [0, 1, -1, 2, 7, -5, 100, 2 ** 31 - 1, -(2 ** 31), 2 ** 62, 2 ** 63 - 1, -(2 ** 63)]
WRITES = {"mutateRow", "mutateRowTs", "mutateRows", "mutateRowsTs", "deleteAll", "deleteAllTs",
          "deleteAllRow", "deleteAllRowTs", "checkAndPut", "atomicIncrement"}


def families(rng, kdc=False):
    """{name: {ATTRIBUTE: value}} of an episode (see the module's doc)."""
    match = {"hbase.hstore.compaction.min": 3, "hbase.hstore.compaction.max": 10}
    versions = rng.choice([2, 3, 5])
    out = {
        "cf": dict(VERSIONS=rng.choice([1, 1, 2, 3]), **match),
        "f2": dict(VERSIONS=rng.choice([1, 3, 5]), **match),
        "mv": dict(VERSIONS=versions, MIN_VERSIONS=rng.choice([0, 1, 1, 2]), TTL=86400, **match),
    }
    if kdc:
        out["f2"]["KEEP_DELETED_CELLS"] = "TRUE"
    return out


def column(rng):
    return rng.choice(FAMILIES) + b":" + rng.choice(QUALIFIERS)


def value(rng):
    return b"v%d" % rng.randrange(10)


def timestamp(rng):
    return None if rng.random() < 0.3 else rng.randrange(1, 60)


def ttl_attrs(rng, ts):
    """`_ttl` (ms) for a write at ts, or none: with an explicit (1970) timestamp a second
    (expired) or 2**62 ms, with the server's time only the long one."""
    r = rng.random()
    if r < 0.5:
        return {}
    ms = 1000 if r < 0.8 and ts is not None else 2 ** 62
    return {b"_ttl": ms.to_bytes(8, "big", signed=True)}


def comparator(rng):
    kind = rng.random()
    if kind < 0.6:
        return rng.choice(OPS), "binary:%s" % rng.choice(["v%d" % rng.randrange(10), "a", "q", "r2", ""])
    if kind < 0.8:
        return rng.choice(["=", "!="]), "substring:%d" % rng.randrange(10)
    return rng.choice(["=", "!="]), "regexstring:^v[0-%d]" % rng.randrange(10)


def simple_filter(rng, families=("cf", "f2", "mv"), key_only_true=True):
    """One filter of every kind the filter language has, over `families`; `key_only_true` adds
    `KeyOnlyFilter(true)` (the earlier differential, run.py's, draws without it and over cf and f2
    only, so that its seeds keep generating what they always did)."""
    q = lambda: rng.choice(["a", "b", "q0", "q3", "n"])  # noqa: E731
    f = lambda: rng.choice(list(families))  # noqa: E731
    b = lambda: rng.choice(["true", "false"])  # noqa: E731
    choice = rng.randrange(20 if key_only_true else 19)
    if choice == 0:
        return "ValueFilter(%s, '%s')" % comparator(rng)
    if choice == 1:
        op, c = comparator(rng)
        return "QualifierFilter(%s, '%s')" % (op, c.replace("v", "q"))
    if choice == 2:
        return "FamilyFilter(%s, 'binary:%s')" % (rng.choice(OPS), f())
    if choice == 3:
        return "RowFilter(%s, 'binary:%s')" % (rng.choice(OPS), rng.choice(["r1", "r2", "r10"]))
    if choice == 4:
        return "ColumnPrefixFilter('%s')" % rng.choice(["a", "q", "q3", "n"])
    if choice == 5:
        return "MultipleColumnPrefixFilter('a', 'q')"
    if choice == 6:
        return "PrefixFilter('%s')" % rng.choice(["r1", "r", "r3"])
    if choice == 7:
        return "KeyOnlyFilter()"
    if choice == 8:
        return "FirstKeyOnlyFilter()"
    if choice == 9:
        return "TimestampsFilter(%s)" % ", ".join(str(rng.randrange(1, 60)) for _ in range(rng.randrange(1, 4)))
    if choice == 10:
        op, c = comparator(rng)
        return "SingleColumnValueFilter('%s', '%s', %s, '%s', %s, %s)" % (f(), q(), op, c, b(), b())
    if choice == 11:
        op, c = comparator(rng)
        return "SingleColumnValueExcludeFilter('%s', '%s', %s, '%s', %s, %s)" % (f(), q(), op, c, b(), b())
    if choice == 12:
        return "ColumnCountGetFilter(%d)" % rng.randrange(1, 4)
    if choice == 13:
        return "ColumnPaginationFilter(%d, %d)" % (rng.randrange(1, 4), rng.randrange(0, 3))
    if choice == 14:
        return "PageFilter(%d)" % rng.randrange(1, 4)
    if choice == 15:
        return "InclusiveStopFilter('%s')" % rng.choice(["r1", "r2", "r3"])
    if choice == 16:
        return "DependentColumnFilter('%s', '%s')" % (f(), q())
    if choice == 17:
        return "ColumnRangeFilter('%s', %s, '%s', %s)" % (rng.choice(["", "a", "b"]), b(),
                                                          rng.choice(["b", "q", "q3"]), b())
    if choice == 18 and key_only_true:
        return "KeyOnlyFilter(true)"
    return "QualifierFilter(=, 'binary:%s')" % q()


def filter_string(rng, depth=0):
    """A filter tree: AND/OR lists nested three deep, SKIP and WHILE over filters and groups, and
    the syntax HBase's ParseFilter treats in its own way (chains without parentheses read by
    precedence, groups of rising priority refused, doubled parentheses and prefixes, no spaces)."""
    r = rng.random()
    sub = lambda: filter_string(rng, depth + 1)  # noqa: E731
    if depth >= 3:
        return simple_filter(rng)
    if r < 0.10:
        return "(%s) AND (%s)" % (sub(), sub())
    if r < 0.20:
        return "(%s) OR (%s)" % (sub(), sub())
    if r < 0.27:
        parts = [sub() for _ in range(rng.randrange(2, 4))]
        chain = parts[0]
        for p in parts[1:]:
            chain += " %s %s" % (rng.choice(["AND", "OR"]), p)
        return chain if rng.random() < 0.6 else "(%s)" % chain
    if r < 0.34:
        inner = simple_filter(rng) if rng.random() < 0.6 else "(%s)" % sub()
        return "%s %s" % (rng.choice(["SKIP", "WHILE"]), inner)
    if r < 0.36:
        return "%s %s %s" % (rng.choice(["SKIP", "WHILE"]), rng.choice(["SKIP", "WHILE"]), simple_filter(rng))
    if r < 0.38:
        return "((%s))" % sub()
    if r < 0.40:
        return "(%s)%s(%s)" % (sub(), rng.choice(["AND", "OR"]), sub())
    return simple_filter(rng)


def _mutations(rng, puts=True, deletes=True):
    """Thrift1 Mutations: puts, column deletes and family deletes, in random order."""
    out = []
    for _ in range(rng.randrange(1, 5)):
        kind = rng.random()
        if puts and (kind < 0.5 or not deletes):
            out.append(Mutation(column=column(rng), value=value(rng)))
        elif kind < 0.8:
            out.append(Mutation(isDelete=True, column=column(rng)))
        else:
            out.append(Mutation(isDelete=True, column=rng.choice(FAMILIES)))
    return out


def _columns(rng, families_too=True):
    return [rng.choice([column(rng), rng.choice(FAMILIES)]) if families_too else column(rng)
            for _ in range(rng.randrange(1, 4))]


def _read_ts(rng):
    return rng.randrange(1, 62)


def raw(method, *args, shape="none"):
    return "raw", dict(method=method, args=list(args), shape=shape)


def write_op(rng, skip_known):
    row = rng.choice(ROWS)
    r = rng.random()
    if r < 0.22:
        ts = timestamp(rng)
        muts = _mutations(rng, deletes=rng.random() < 0.4)
        if ts is None:
            # HBase's mutateRow sends the deletes, then the puts, as two calls, each on the
            # server's clock: whether a delete masks a put of the same family depends on whether
            # the millisecond turned in between (ferrobase: one time, masked). Not both, then.
            deleted = {m.column.split(b":")[0] for m in muts if m.isDelete}
            muts = [m for m in muts if m.isDelete or m.column.split(b":")[0] not in deleted]
        attrs = ttl_attrs(rng, ts)
        return raw("mutateRow", row, muts, attrs) if ts is None else raw("mutateRowTs", row, muts, ts, attrs)
    if r < 0.30:
        from Hbase_thrift import BatchMutation
        ts = timestamp(rng)
        batches = [BatchMutation(row=rng.choice(ROWS), mutations=_mutations(rng))
                   for _ in range(rng.randrange(1, 4))]
        attrs = ttl_attrs(rng, ts)
        return raw("mutateRows", batches, attrs) if ts is None else raw("mutateRowsTs", batches, ts, attrs)
    if r < 0.40:
        ts = timestamp(rng)
        attrs = ttl_attrs(rng, ts)
        kind = rng.randrange(3)
        if kind == 0:
            return raw("deleteAllRow", row, attrs) if ts is None else raw("deleteAllRowTs", row, ts, attrs)
        col = column(rng) if kind == 1 else rng.choice(FAMILIES)
        return raw("deleteAll", row, col, attrs) if ts is None else raw("deleteAllTs", row, col, ts, attrs)
    if r < 0.52:
        expected = rng.choice([value(rng), value(rng), b"", None])
        check = column(rng) if rng.random() < 0.95 else rng.choice(FAMILIES)
        put_col = column(rng) if rng.random() < 0.95 else rng.choice(FAMILIES)
        mput = Mutation(isDelete=rng.random() < 0.2, column=put_col, value=value(rng))
        return raw("checkAndPut", row, check, expected, mput, ttl_attrs(rng, None), shape="value")
    if r < 0.62:
        n = rng.randrange(1, 4)
        cols = [rng.choice(COUNTERS) if rng.random() < 0.2 else column(rng) for _ in range(n)]
        vals = [rng.choice([b"x", b"", b"\x00\x01", value(rng)]) for _ in range(n)]
        return "append", dict(row=row, columns=cols, values=vals)
    col = rng.choice(COUNTERS) if rng.random() < 0.85 else column(rng)
    amount = rng.choice(AMOUNTS) if rng.random() < 0.5 else rng.randrange(-3, 10)
    kind = rng.randrange(3)
    if kind == 0:
        return raw("atomicIncrement", row, col, amount, shape="value")
    if kind == 1:
        return "increment", dict(row=row, column=col, amount=amount)
    incs = []
    for _ in range(rng.randrange(1, 4)):
        inc = (rng.choice(ROWS), rng.choice(COUNTERS) if rng.random() < 0.85 else column(rng),
               rng.choice(AMOUNTS) if rng.random() < 0.3 else rng.randrange(-3, 10))
        if skip_known and any(i[:2] == inc[:2] for i in incs):
            continue
        if any(i[0] == inc[0] for i in incs):
            # HBase's incrementRows is one increment call after another, each on the server's
            # clock: whether two cells of a row get one timestamp (DependentColumnFilter) is
            # up to the clock. One increment per row, then.
            continue
        incs.append(inc)
    return "increment_rows", dict(incs=incs)


def get_op(rng):
    row = rng.choice(ROWS)
    kind = rng.randrange(11)
    col = column(rng) if rng.random() < 0.9 else rng.choice(FAMILIES)
    rows = [rng.choice(ROWS) for _ in range(rng.randrange(1, 4))]
    if kind == 0:
        return raw("get", row, col, {}, shape="tcells")
    if kind == 1:
        return raw("getVer", row, col, rng.randrange(1, 6), {}, shape="tcells")
    if kind == 2:
        return raw("getVerTs", row, col, _read_ts(rng), rng.randrange(1, 6), {}, shape="tcells")
    if kind == 3:
        return raw("getRow", row, {}, shape="trows")
    if kind == 4:
        return raw("getRowWithColumns", row, _columns(rng), {}, shape="trows")
    if kind == 5:
        return raw("getRowTs", row, _read_ts(rng), {}, shape="trows")
    if kind == 6:
        return raw("getRowWithColumnsTs", row, _columns(rng), _read_ts(rng), {}, shape="trows")
    if kind == 7:
        return raw("getRows", rows, {}, shape="trows")
    if kind == 8:
        return raw("getRowsWithColumns", rows, _columns(rng), {}, shape="trows")
    if kind == 9:
        return raw("getRowsTs", rows, _read_ts(rng), {}, shape="trows")
    return raw("getRowsWithColumnsTs", rows, _columns(rng), _read_ts(rng), {}, shape="trows")


def scanner_op(rng):
    sizes = [rng.choice([0, 1, 1, 2, 3, 5, 100]) for _ in range(rng.randrange(1, 4))]
    cols = [] if rng.random() < 0.5 else _columns(rng)
    start = rng.choice([b""] + ROWS)
    stop = rng.choice(ROWS)
    kind = rng.randrange(7)
    if kind == 0:
        return "scanner", dict(open_method="scannerOpen", args=[start, cols], sizes=sizes)
    if kind == 1:
        return "scanner", dict(open_method="scannerOpenWithStop", args=[start, stop, cols], sizes=sizes)
    if kind == 2:
        return "scanner", dict(open_method="scannerOpenWithPrefix",
                               args=[rng.choice([b"r1", b"r", b"\x00", b""]), cols], sizes=sizes)
    if kind == 3:
        return "scanner", dict(open_method="scannerOpenTs", args=[start, cols, _read_ts(rng)], sizes=sizes)
    if kind == 4:
        return "scanner", dict(open_method="scannerOpenWithStopTs", args=[start, stop, cols, _read_ts(rng)],
                               sizes=sizes)
    scan = {}
    reversed_ = rng.random() < 0.4
    if rng.random() < 0.5:
        scan["startRow"] = rng.choice(ROWS)
    if rng.random() < 0.4:
        scan["stopRow"] = rng.choice(ROWS)
    if scan.get("startRow") is not None and scan.get("startRow") == scan.get("stopRow"):
        del scan["stopRow"]
    if reversed_:
        scan["reversed"] = True
    if cols:
        scan["columns"] = cols
    if rng.random() < 0.6:
        scan["filterString"] = filter_string(rng).encode()
    if rng.random() < 0.2:
        scan["timestamp"] = _read_ts(rng)
    if rng.random() < 0.3:
        scan["caching"] = rng.randrange(1, 4)
    if rng.random() < 0.15:
        scan["batchSize"] = rng.randrange(1, 3)
    if rng.random() < 0.2:
        scan["sortColumns"] = True
    return "scanner", dict(open_method="scannerOpenWithScan", args=[], sizes=sizes, scan=scan)


def happybase_scan(rng):
    kw = {}
    if rng.random() < 0.3:
        kw["row_prefix"] = rng.choice([b"r1", b"r", b"\x00"])
    else:
        if rng.random() < 0.4:
            kw["row_start"] = rng.choice(ROWS)
        if rng.random() < 0.4:
            kw["row_stop"] = rng.choice(ROWS)
            if kw["row_stop"] == kw.get("row_start"):
                del kw["row_stop"]
    if rng.random() < 0.3:
        kw["columns"] = _columns(rng)
    if rng.random() < 0.6:
        kw["filter"] = filter_string(rng).encode()
    if rng.random() < 0.2:
        kw["timestamp"] = _read_ts(rng)
    if rng.random() < 0.2:
        kw["limit"] = rng.randrange(1, 4)
    if rng.random() < 0.15 and "row_prefix" not in kw:
        kw["reverse"] = True
    return "scan", kw


def random_op(rng, skip_known=False):
    """One call as (method, kwargs) on harness.Session."""
    r = rng.random()
    if r < 0.16:
        data = {column(rng): value(rng) for _ in range(rng.randrange(1, 4))}
        return "put", dict(row=rng.choice(ROWS), data=data, timestamp=timestamp(rng))
    if r < 0.46:
        return write_op(rng, skip_known)
    if r < 0.62:
        return get_op(rng)
    if r < 0.80:
        return scanner_op(rng)
    if r < 0.96:
        return happybase_scan(rng)
    if r < 0.975:
        return "flush", {}
    if r < 0.99:
        return ("flush_and_compact" if skip_known else "compact"), {}
    if skip_known:
        return "flush_and_major_compact", {}
    return rng.choice([("major_compact", {}), raw("majorCompact")])


def writes(method, kw):
    """Whether the call writes (the run waits a millisecond after it, so that the next write on
    the server's clock lands later)."""
    if method == "raw":
        return kw["method"] in WRITES
    return method in ("put", "append", "increment", "increment_rows", "mutate_row", "delete", "counter_inc")
