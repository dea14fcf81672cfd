"""`hbase:namespace` and the catalog tables' descriptions through Thrift1 (issue 27), ferrobase
against Apache HBase 2.6.1: happybase's `table('hbase:namespace').scan()`, `getTableNames`,
`getColumnDescriptors` and `isTableEnabled` of the catalog tables, and `getRowOrBefore`, which
HBase 2.x's gateway no longer has.

What must be equal: the rows of the namespaces both servers always have (`default`, `hbase`) with
their `info:d` bytes (HBase.proto's NamespaceDescriptor, no magic), the catalog tables' absence
from getTableNames, their column descriptors and enabled state, and the exception getRowOrBefore
raises. Write times differ (ferrobase's view has the server's start code as every timestamp).
"""

import pytest
from thriftpy2.thrift import TApplicationException

BUILT_IN = (b"default", b"hbase")


def _namespace_rows(backend):
    conn = backend.connect()
    try:
        return [(k, d) for k, d in conn.table("hbase:namespace").scan() if k in BUILT_IN]
    finally:
        conn.close()


def test_namespace_scan_has_hbase_rows_and_bytes(hbase, ferrobase):
    f, h = _namespace_rows(ferrobase), _namespace_rows(hbase)
    assert f == h == [(b"default", {b"info:d": b"\n\x07default"}),
                      (b"hbase", {b"info:d": b"\n\x05hbase"})]


def test_namespace_row_reads_match_hbase(hbase, ferrobase):
    rows = []
    for backend in (hbase, ferrobase):
        conn = backend.connect()
        try:
            rows.append(conn.table("hbase:namespace").row(b"hbase"))
        finally:
            conn.close()
    assert rows[0] == rows[1] == {b"info:d": b"\n\x05hbase"}


def _catalog_answers(backend):
    conn = backend.connect()
    try:
        c = conn.client
        return ([n for n in c.getTableNames() if n.startswith(b"hbase:")],
                {t: c.getColumnDescriptors(t) for t in (b"hbase:meta", b"hbase:namespace")},
                [c.isTableEnabled(t) for t in (b"hbase:meta", b"hbase:namespace")])
    finally:
        conn.close()


def test_catalog_tables_are_described_as_hbase_describes_them(hbase, ferrobase):
    assert _catalog_answers(ferrobase) == _catalog_answers(hbase)
    names, _, enabled = _catalog_answers(ferrobase)
    assert names == [] and enabled == [True, True]


@pytest.mark.parametrize("table", [b"hbase:meta", b"hbase:namespace"])
def test_get_row_or_before_is_an_unknown_method_as_in_hbase(hbase, ferrobase, table):
    answers = []
    for backend in (hbase, ferrobase):
        conn = backend.connect()
        try:
            with pytest.raises(TApplicationException) as e:
                conn.client.getRowOrBefore(table, b"t,,99999999999999", b"info")
            answers.append((e.value.type, e.value.message))
        finally:
            conn.close()
    assert answers[0] == answers[1]
    assert answers[0][0] == TApplicationException.UNKNOWN_METHOD
