"""The same happybase calls against two backends, answers normalized and compared cell by cell.

A ``Session`` is one backend's side: a connection, one table, and the transcript of every call
with its answer. Answers are JSON values: a read is a list of cells ``[column, value, timestamp]``
(a scan: ``[row, cells]`` per row), a write is ``null``, an error is
``{"error": type, "type": code, "message": text}`` (the message is shown, never compared).
Bytes are JSON strings whose characters are the bytes (U+0000..U+00FF, i.e. latin-1).
Timestamps the server chose (the current time) read as ``"now"``; tests write explicit
timestamps below 10**12 or from ``FUTURE`` (year 2100) on, so those compare exactly.
"""

import json

from thriftpy2.thrift import TApplicationException
from thriftpy2.transport import TTransportException

FUTURE = 4102444800000
_NOW_LO = 10 ** 12


def text(b):
    """Bytes as a JSON string, one character per byte."""
    return b.decode("latin-1") if isinstance(b, bytes) else b


def _ts(ts):
    return "now" if _NOW_LO <= ts < FUTURE else ts


def _cells(columns):
    return [[text(c), text(v), _ts(t)] for c, (v, t) in sorted(columns.items())]


def error_answer(e):
    if isinstance(e, TApplicationException):
        return {"error": "TApplicationException", "type": e.type, "message": _message(e)}
    if isinstance(e, TTransportException):
        return {"error": "TTransportException", "message": _message(e)}
    return {"error": type(e).__name__, "message": _message(e)}


def _message(e):
    m = getattr(e, "message", None)
    if isinstance(m, bytes):
        m = m.decode("utf-8", "replace")
    if m is None:
        return repr(e)
    # HBase's IOError carries the server's stack traces: keep the lines before the first frame.
    lines = []
    for line in m.split("\n"):
        if line.startswith("\tat ") or len(lines) == 3:
            break
        lines.append(line.strip())
    return " | ".join(lines)


def comparable(answer):
    """The part of an answer that must agree: everything but error messages (also of the errors
    inside a list, such as a raw scanner's steps)."""
    if isinstance(answer, dict) and "error" in answer:
        return {k: v for k, v in answer.items() if k != "message"}
    if isinstance(answer, list):
        return [comparable(a) for a in answer]
    return answer


class Session:
    """One backend's side of a differential run: every call is logged with its answer."""

    def __init__(self, backend, table):
        self.backend = backend
        self.conn = backend.connect()
        self.name = table
        self.transcript = []

    # ---- administration -------------------------------------------------------------------
    def create(self, families):
        """Creates the table afresh; families: {name: max_versions} or {name: dict(...)}."""
        if self.name.encode() in self.conn.tables():
            self.conn.delete_table(self.name, disable=True)
        spec = {f: (v if isinstance(v, dict) else dict(max_versions=v)) for f, v in families.items()}
        self.conn.create_table(self.name, spec)
        self.table = self.conn.table(self.name)
        self.transcript.append(("create_table(%r, %r)" % (self.name, spec), None))

    def create_master(self, families, splits=()):
        """Creates the table afresh through each backend's ``create_table`` (family attributes
        in HBase's spelling, such as NEW_VERSION_BEHAVIOR, which Thrift1 cannot set)."""
        if self.name.encode() in self.conn.tables():
            self.conn.delete_table(self.name, disable=True)
        self.backend.create_table(self.conn, self.name, families, splits)
        self.table = self.conn.table(self.name)
        self.transcript.append(("create_table(%r, %r, splits=%r)" % (self.name, families, list(splits)), None))

    def drop(self):
        try:
            self.conn.delete_table(self.name, disable=True)
        finally:
            self.conn.close()

    def flush(self):
        return self.call("flush(%r)" % self.name, lambda: self.backend.flush(self.conn, self.name))

    def major_compact(self):
        return self.call("major_compact(%r)" % self.name,
                         lambda: self.backend.major_compact(self.conn, self.name))

    def compact(self):
        """A minor compaction request: the store's compaction policy selects the files."""
        return self.call("compact(%r)" % self.name, lambda: self.backend.compact(self.conn, self.name))

    def flush_and_compact(self):
        self.flush()
        self.compact()

    def flush_and_major_compact(self):
        self.flush()
        self.major_compact()

    # ---- the call log ---------------------------------------------------------------------
    def call(self, shown, fn, shape=lambda r: None):
        try:
            answer = shape(fn())
        except TTransportException as e:
            # The server dropped the connection: log it and reconnect so later calls still run.
            answer = error_answer(e)
            self.conn = self.backend.connect()
            self.table = self.conn.table(self.name)
        except Exception as e:  # noqa: BLE001 - every Thrift error is an answer to compare
            answer = error_answer(e)
        self.transcript.append((shown, answer))
        return answer

    # ---- happybase calls ------------------------------------------------------------------
    def put(self, row, data, timestamp=None):
        return self.call("put(%r, %r, timestamp=%r)" % (row, data, timestamp),
                         lambda: self.table.put(row, data, timestamp=timestamp))

    def mutate_row(self, row, data, timestamp=None, attributes=None):
        """Thrift1 mutateRow / mutateRowTs with call attributes (happybase's put sends none)."""
        from Hbase_thrift import Mutation
        muts = [Mutation(column=c, value=v, isDelete=False, writeToWAL=True) for c, v in sorted(data.items())]
        attrs = attributes or {}
        shown = "mutateRow%s(%r, %r, timestamp=%r, attributes=%r)" % (
            "" if timestamp is None else "Ts", row, data, timestamp, attrs)
        client = self.conn.client
        if timestamp is None:
            return self.call(shown, lambda: client.mutateRow(self.name.encode(), row, muts, attrs))
        return self.call(shown, lambda: client.mutateRowTs(self.name.encode(), row, muts, timestamp, attrs))

    def mutate_rows(self, rows, timestamp, attributes):
        """Thrift1 mutateRowsTs of {row: {column: value}} with call attributes."""
        from Hbase_thrift import BatchMutation, Mutation
        batches = [BatchMutation(row, [Mutation(column=c, value=v, isDelete=False, writeToWAL=True)
                                       for c, v in sorted(data.items())])
                   for row, data in sorted(rows.items())]
        shown = "mutateRowsTs(%r, timestamp=%r, attributes=%r)" % (rows, timestamp, attributes)
        return self.call(shown, lambda: self.conn.client.mutateRowsTs(
            self.name.encode(), batches, timestamp, attributes))

    def delete(self, row, columns=None, timestamp=None):
        return self.call("delete(%r, columns=%r, timestamp=%r)" % (row, columns, timestamp),
                         lambda: self.table.delete(row, columns=columns, timestamp=timestamp))

    def counter_inc(self, row, column, value=1):
        return self.call("counter_inc(%r, %r, %r)" % (row, column, value),
                         lambda: self.table.counter_inc(row, column, value), shape=lambda r: r)

    def row(self, row, columns=None, timestamp=None):
        return self.call(
            "row(%r, columns=%r, timestamp=%r)" % (row, columns, timestamp),
            lambda: self.table.row(row, columns=columns, timestamp=timestamp, include_timestamp=True),
            shape=_cells)

    def cells(self, row, column, versions=None, timestamp=None):
        return self.call(
            "cells(%r, %r, versions=%r, timestamp=%r)" % (row, column, versions, timestamp),
            lambda: self.table.cells(row, column, versions=versions, timestamp=timestamp,
                                     include_timestamp=True),
            shape=lambda r: [[text(v), _ts(t)] for v, t in r])

    def thrift(self, method, *args, shape=lambda r: r):
        """A raw Thrift1 call on this session's table: ``method(table, *args)``, shown with its
        arguments; ``shape`` turns the answer into JSON (``tcells``, ``trows``)."""
        shown = "%s(%s)" % (method, ", ".join(repr(a) for a in args))
        return self.call(shown, lambda: getattr(self.conn.client, method)(self.name.encode(), *args),
                         shape=shape)

    def client_call(self, shown, fn, shape=lambda r: r):
        """A raw Thrift1 call ``fn(client, table)`` shown as ``shown`` (for calls whose first
        argument is not the table, such as append's TAppend or scannerGetList)."""
        return self.call(shown, lambda: fn(self.conn.client, self.name.encode()), shape=shape)

    def raw(self, method, args, shape="none"):
        """``thrift`` with the answer's shape named (``SHAPES``), so that a call is plain data."""
        return self.thrift(method, *args, shape=SHAPES[shape])

    def append(self, row, columns, values):
        """Thrift1 append (TAppend): the new cells, in the order the server gave them."""
        from Hbase_thrift import TAppend
        return self.client_call("append(%r, %r, %r)" % (row, columns, values), lambda c, t: c.append(
            TAppend(table=t, row=row, columns=columns, values=values)), shape=tcells)

    def increment(self, row, column, amount):
        """Thrift1 increment (TIncrement): no answer."""
        from Hbase_thrift import TIncrement
        return self.client_call("increment(%r, %r, %r)" % (row, column, amount), lambda c, t: c.increment(
            TIncrement(table=t, row=row, column=column, ammount=amount)), shape=SHAPES["none"])

    def increment_rows(self, incs):
        """Thrift1 incrementRows of [(row, column, amount)]: no answer."""
        from Hbase_thrift import TIncrement
        return self.client_call("incrementRows(%r)" % (incs,), lambda c, t: c.incrementRows(
            [TIncrement(table=t, row=r, column=col, ammount=a) for r, col, a in incs]),
            shape=SHAPES["none"])

    def scanner(self, open_method, args, sizes, scan=None):
        """A raw Thrift1 scanner: ``open_method(table, *args)`` (with ``scan``, a dict of TScan's
        fields, scannerOpenWithScan), then ``scannerGetList`` of each of ``sizes`` in turn (0 means
        ``scannerGet``; the last size repeats) until an empty answer, then ``scannerClose``. The
        answer is the list of steps: each list of rows, or the error where the scanner failed."""
        from Hbase_thrift import TScan
        shown = "%s(%s) then get %r" % (open_method, ", ".join(
            [repr(a) for a in args] + ([] if scan is None else ["TScan(%s)" % ", ".join(
                "%s=%r" % kv for kv in sorted(scan.items()))])), sizes)

        def run(client, table):
            call_args = list(args) + ([TScan(**scan)] if scan is not None else []) + [{}]
            try:
                sid = getattr(client, open_method)(table, *call_args)
            except TTransportException:
                raise
            except Exception as e:  # noqa: BLE001 - an error is the answer
                return [error_answer(e)]
            steps = []
            try:
                for i in range(64):
                    n = sizes[min(i, len(sizes) - 1)]
                    rows = client.scannerGet(sid) if n == 0 else client.scannerGetList(sid, n)
                    steps.append(trows(rows))
                    if not rows:
                        break
            except TTransportException:
                raise
            except Exception as e:  # noqa: BLE001
                steps.append(error_answer(e))
            try:
                client.scannerClose(sid)
            except TTransportException:
                raise
            except Exception:  # noqa: BLE001 - closing an exhausted or failed scanner: either way
                pass
            return steps

        return self.client_call(shown, run)

    def scan(self, **kw):
        shown = "scan(%s)" % ", ".join("%s=%r" % kv for kv in sorted(kw.items()))
        return self.call(
            shown,
            lambda: list(self.table.scan(include_timestamp=True, **kw)),
            shape=lambda rows: [[text(r), _cells(cols)] for r, cols in rows])


def tcells(cells):
    """A list of Thrift1 TCells, in the order the server gave them: [value, timestamp]."""
    return [[text(c.value), _ts(c.timestamp)] for c in cells]


def trows(rows):
    """A list of Thrift1 TRowResults: [row, cells], cells sorted by column as happybase does;
    with sortedColumns (TScan.sortColumns), [row, cells, "sorted"] in the order given."""
    out = []
    for r in rows:
        if r.sortedColumns is not None:
            out.append([text(r.row), [[text(c.columnName), text(c.cell.value), _ts(c.cell.timestamp)]
                                      for c in r.sortedColumns], "sorted"])
        else:
            out.append([text(r.row), _cells({c: (v.value, v.timestamp)
                                             for c, v in (r.columns or {}).items()})])
    return out


SHAPES = {
    "none": lambda r: None,
    "value": lambda r: r,
    "tcells": lambda r: tcells(r),
    "trows": lambda r: trows(r),
}


def first_divergence(a, b):
    """Index of the first call whose answers differ, or None. Transcripts are (call, answer)."""
    for i, ((ca, xa), (cb, xb)) in enumerate(zip(a, b)):
        assert ca == cb, "the two sides ran different calls: %r vs %r" % (ca, cb)
        if comparable(xa) != comparable(xb):
            return i
    if len(a) != len(b):
        return min(len(a), len(b))
    return None


def show(hbase, ferrobase, at):
    """The calls up to a divergence, with both answers where they differ."""
    lines = []
    for i, ((call, h), (_, f)) in enumerate(zip(hbase, ferrobase)):
        if i > at:
            break
        mark = "  <<< differs" if i == at else ""
        lines.append("%3d  %s%s" % (i, call, mark))
        if comparable(h) != comparable(f) or i == at:
            lines.append("       hbase:     %s" % json.dumps(h))
            lines.append("       ferrobase: %s" % json.dumps(f))
        elif h is not None:
            lines.append("       both:      %s" % json.dumps(h))
    return "\n".join(lines)
