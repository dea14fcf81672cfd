"""Error behaviour, ferrobase against Apache HBase 2.6.1: the same raw Thrift1 calls (happybase's
client) on both, compared by the exception each raises: its Thrift type (IOError,
IllegalArgument, AlreadyExists, TApplicationException and its type code), the Java exception
class an IOError's message starts with (HBase's messages do; ferrobase's gateway names the same
class), and the names the message must mention (the table, the family, the width). A call that
succeeds must succeed on both, with the same answer where it is not an id.

Each case is ``(name, call, must_mention)``; ``call(client, t)`` runs against the tables ``t``
names: ``t.ok`` (family ``cf``, a 3-byte cell ``cf:s`` in row ``r``), ``t.off`` (disabled) and
``t.gone`` (never created).
"""

import re
from types import SimpleNamespace

import pytest
from Hbase_thrift import BatchMutation, ColumnDescriptor, Mutation, TIncrement, TScan

from harness import error_answer

PREFIX = "diff_err_"
T = SimpleNamespace(ok=PREFIX + "ok", off=PREFIX + "off", gone=PREFIX + "gone",
                    nofam=PREFIX + "nofam", dupfam=PREFIX + "dupfam", dotfam=PREFIX + "dotfam")


def b(s):
    return s.encode()


def put(table, column=b"cf:a", row=b"r", value=b"v"):
    return lambda c: c.mutateRow(b(table), row, [Mutation(column=column, value=value)], {})


def scan_then_get(open_scanner):
    """Opens a scanner, then reads from it: HBase fails an unknown or disabled table or family
    at the first scannerGet, not at the open."""
    def call(c):
        sid = open_scanner(c)
        try:
            return c.scannerGetList(sid, 10)
        finally:
            try:
                c.scannerClose(sid)
            except Exception:  # noqa: BLE001 - closing is best effort
                pass
    return call


CASES = [
    # ---- an unknown table ----
    ("get_of_an_unknown_table", lambda c: c.get(b(T.gone), b"r", b"cf:a", {}), [T.gone]),
    ("getRow_of_an_unknown_table", lambda c: c.getRow(b(T.gone), b"r", {}), [T.gone]),
    ("scannerOpenWithScan_of_an_unknown_table_opens",
     lambda c: c.scannerClose(c.scannerOpenWithScan(b(T.gone), TScan(), {})), []),
    ("scan_of_an_unknown_table",
     scan_then_get(lambda c: c.scannerOpenWithScan(b(T.gone), TScan(), {})), [T.gone]),
    ("scannerOpen_of_an_unknown_table",
     scan_then_get(lambda c: c.scannerOpen(b(T.gone), b"", [], {})), [T.gone]),
    ("put_to_an_unknown_table", put(T.gone), [T.gone]),
    ("deleteAllRow_of_an_unknown_table", lambda c: c.deleteAllRow(b(T.gone), b"r", {}), [T.gone]),
    ("deleteAll_of_an_unknown_table", lambda c: c.deleteAll(b(T.gone), b"r", b"cf:a", {}), [T.gone]),
    ("atomicIncrement_of_an_unknown_table",
     lambda c: c.atomicIncrement(b(T.gone), b"r", b"cf:a", 1), [T.gone]),
    ("increment_of_an_unknown_table",
     lambda c: c.increment(TIncrement(table=b(T.gone), row=b"r", column=b"cf:a", ammount=1)),
     [T.gone]),
    ("getColumnDescriptors_of_an_unknown_table",
     lambda c: c.getColumnDescriptors(b(T.gone)), [T.gone]),
    ("disableTable_of_an_unknown_table", lambda c: c.disableTable(b(T.gone)), [T.gone]),
    ("enableTable_of_an_unknown_table", lambda c: c.enableTable(b(T.gone)), [T.gone]),
    ("isTableEnabled_of_an_unknown_table", lambda c: c.isTableEnabled(b(T.gone)), [T.gone]),
    ("deleteTable_of_an_unknown_table", lambda c: c.deleteTable(b(T.gone)), ["does not exist"]),
    ("getTableRegions_of_an_unknown_table_is_empty",
     lambda c: c.getTableRegions(b(T.gone)), []),
    # ---- an unknown column family ----
    ("put_to_an_unknown_family", put(T.ok, b"zz:a"), ["zz"]),
    ("put_to_a_known_and_an_unknown_family",
     lambda c: c.mutateRow(b(T.ok), b"r2", [Mutation(column=b"cf:a", value=b"v"),
                                             Mutation(column=b"zz:a", value=b"v")], {}), ["zz"]),
    ("the_refused_mutation_wrote_nothing", lambda c: c.getRow(b(T.ok), b"r2", {}), []),
    ("get_of_an_unknown_family", lambda c: c.get(b(T.ok), b"r", b"zz:a", {}), ["zz"]),
    ("getRowWithColumns_of_an_unknown_family",
     lambda c: c.getRowWithColumns(b(T.ok), b"r", [b"zz:a"], {}), ["zz"]),
    ("scan_of_an_unknown_family",
     scan_then_get(lambda c: c.scannerOpenWithScan(b(T.ok), TScan(columns=[b"zz"]), {})), ["zz"]),
    ("scannerOpen_of_an_unknown_column",
     scan_then_get(lambda c: c.scannerOpen(b(T.ok), b"", [b"zz:a"], {})), ["zz"]),
    ("atomicIncrement_of_an_unknown_family",
     lambda c: c.atomicIncrement(b(T.ok), b"r", b"zz:a", 1), ["zz"]),
    ("increment_of_an_unknown_family",
     lambda c: c.increment(TIncrement(table=b(T.ok), row=b"r", column=b"zz:a", ammount=1)), ["zz"]),
    ("deleteAll_of_an_unknown_family", lambda c: c.deleteAll(b(T.ok), b"r", b"zz:a", {}), ["zz"]),
    # ---- bad filter strings (ParseFilter's IllegalArgumentException is undeclared) ----
    ("unknown_filter_name",
     lambda c: c.scannerOpenWithScan(b(T.ok), TScan(filterString=b"NoSuchFilter()"), {}), []),
    ("unclosed_filter_arguments",
     lambda c: c.scannerOpenWithScan(b(T.ok), TScan(filterString=b"PrefixFilter('a'"), {}), []),
    ("filter_arguments_of_the_wrong_kind",
     lambda c: c.scannerOpenWithScan(b(T.ok), TScan(filterString=b"PrefixFilter(1, 2)"), {}), []),
    ("unknown_comparator",
     lambda c: c.scannerOpenWithScan(b(T.ok), TScan(filterString=b"ValueFilter(=, 'nope:x')"), {}),
     []),
    # ---- increments of a cell that is not 8 bytes ----
    ("atomicIncrement_of_a_3_byte_cell",
     lambda c: c.atomicIncrement(b(T.ok), b"r", b"cf:s", 1), ["3 bytes wide"]),
    ("increment_of_a_3_byte_cell",
     lambda c: c.increment(TIncrement(table=b(T.ok), row=b"r", column=b"cf:s", ammount=1)),
     ["3 bytes wide"]),
    # ---- sizes ----
    ("put_of_an_empty_row_key", put(T.ok, row=b""), []),
    ("put_of_a_row_key_over_32767_bytes", put(T.ok, row=b"x" * 32768), ["32768"]),
    ("put_of_a_cell_over_10_MiB", put(T.ok, row=b"big", value=b"v" * (10 << 20)), []),
    # ---- a disabled table ----
    ("get_of_a_disabled_table", lambda c: c.get(b(T.off), b"r", b"cf:a", {}), [T.off]),
    ("getRow_of_a_disabled_table", lambda c: c.getRow(b(T.off), b"r", {}), [T.off]),
    ("put_to_a_disabled_table", put(T.off), [T.off]),
    ("atomicIncrement_of_a_disabled_table",
     lambda c: c.atomicIncrement(b(T.off), b"r", b"cf:a", 1), [T.off]),
    ("scan_of_a_disabled_table",
     scan_then_get(lambda c: c.scannerOpenWithScan(b(T.off), TScan(), {})), [T.off]),
    ("scannerOpen_of_a_disabled_table",
     scan_then_get(lambda c: c.scannerOpen(b(T.off), b"", [], {})), [T.off]),
    ("disableTable_of_a_disabled_table", lambda c: c.disableTable(b(T.off)), [T.off]),
    # ---- administration ----
    ("enableTable_of_an_enabled_table", lambda c: c.enableTable(b(T.ok)), [T.ok]),
    ("createTable_of_an_existing_table",
     lambda c: c.createTable(b(T.ok), [ColumnDescriptor(name=b"cf:")]), []),
    ("deleteTable_of_an_enabled_table", lambda c: c.deleteTable(b(T.ok)), [T.ok]),
    ("createTable_with_no_families", lambda c: c.createTable(b(T.nofam), []), ["column family"]),
    ("createTable_with_a_family_twice",
     lambda c: c.createTable(b(T.dupfam), [ColumnDescriptor(name=b"cf:"),
                                           ColumnDescriptor(name=b"cf:")]), ["cf"]),
    ("createTable_with_a_family_starting_with_a_dot",
     lambda c: c.createTable(b(T.dotfam), [ColumnDescriptor(name=b".cf:")]), [".cf"]),
    ("createTable_with_a_space_in_the_name",
     lambda c: c.createTable(b"bad name", [ColumnDescriptor(name=b"cf:")]), []),
    ("createTable_with_a_leading_dash",
     lambda c: c.createTable(b"-x", [ColumnDescriptor(name=b"cf:")]), []),
    ("createTable_with_an_empty_name",
     lambda c: c.createTable(b"", [ColumnDescriptor(name=b"cf:")]), []),
    ("createTable_in_an_unknown_namespace",
     lambda c: c.createTable(b"nons:t", [ColumnDescriptor(name=b"cf:")]), ["nons"]),
    ("getRow_of_a_bad_table_name", lambda c: c.getRow(b"bad name", b"r", {}), []),
    # HBase's mutateRow(s)(Ts) and checkAndPut catch the name's IllegalArgumentException:
    ("put_to_a_bad_table_name", put("bad name"), []),
    ("mutateRows_to_a_bad_table_name",
     lambda c: c.mutateRows(b"bad name", [BatchMutation(row=b"r", mutations=[
         Mutation(column=b"cf:a", value=b"v")])], {}), []),
    ("atomicIncrement_of_a_bad_table_name",
     lambda c: c.atomicIncrement(b"bad name", b"r", b"cf:a", 1), []),
    ("scannerOpen_of_a_bad_table_name", lambda c: c.scannerOpen(b"bad name", b"", [], {}), []),
    ("getTableRegions_of_a_bad_table_name", lambda c: c.getTableRegions(b"bad name"), []),
    ("scannerGet_of_an_unknown_id", lambda c: c.scannerGet(987654), []),
]

_JAVA_CLASS = re.compile(r"^((?:[a-z_][\w$]*\.)+[A-Z][\w$]*(?:Exception|Error))\b")


def exception_class(message):
    """The Java exception class an error message starts with, if any."""
    m = _JAVA_CLASS.match(message or "")
    return m.group(1) if m else None


def essence(answer):
    """What must agree: the error's type (and TApplicationException code) and, for IOError,
    the exception class its message names; a success's value (scanner ids excepted)."""
    if isinstance(answer, dict) and "error" in answer:
        e = {k: v for k, v in answer.items() if k != "message"}
        if answer["error"] == "IOError":
            e["class"] = exception_class(answer["message"])
        return e
    return answer


def run_calls(backend):
    conn = backend.connect()
    client = conn.client
    for name in (T.ok, T.off, T.nofam, T.dupfam, T.dotfam):
        if name.encode() in conn.tables():
            conn.delete_table(name, disable=True)
    conn.create_table(T.ok, {"cf": {}})
    conn.table(T.ok).put(b"r", {b"cf:s": b"abc"})
    conn.create_table(T.off, {"cf": {}})
    conn.disable_table(T.off)
    answers = {}
    try:
        for name, call, _ in CASES:
            try:
                value = call(client)
                answers[name] = {"ok": _shape(name, value)}
            except Exception as e:  # noqa: BLE001 - every Thrift error is an answer
                answers[name] = error_answer(e)
                if answers[name]["error"] == "TTransportException":
                    conn = backend.connect()
                    client = conn.client
    finally:
        for name in (T.ok, T.off, T.nofam, T.dupfam, T.dotfam):
            try:
                conn.delete_table(name, disable=True)
            except Exception:  # noqa: BLE001 - not created on this side
                pass
        conn.close()
    return answers


def _shape(name, value):
    if name.startswith("scannerOpen") and isinstance(value, int):
        return "scanner id"
    if isinstance(value, list):
        return [repr(v) for v in value]
    return repr(value)


_answers = {}


def answers_of(backend):
    if backend.name not in _answers:
        _answers[backend.name] = run_calls(backend)
    return _answers[backend.name]


@pytest.mark.parametrize("name,must_mention", [(n, m) for n, _, m in CASES],
                         ids=[n for n, _, _ in CASES])
def test_error_matches_hbase(name, must_mention, hbase, ferrobase):
    h = answers_of(hbase)[name]
    f = answers_of(ferrobase)[name]
    assert essence(f) == essence(h), "HBase: %r\nferrobase: %r" % (h, f)
    for word in must_mention:
        for side, answer in (("HBase", h), ("ferrobase", f)):
            assert word in answer.get("message", ""), "%s's message does not name %r: %r" % (
                side, word, answer)
