"""The admin view through Thrift1, ferrobase against Apache HBase 2.6.1: getColumnDescriptors
(every ColumnDescriptor field), getTableNames, isTableEnabled, getTableRegions and
getRegionInfo of a pre-split table.

What must be equal: every ColumnDescriptor field; table names and enabled states; each region's
start and end keys, their order and count, `version`, the `table,start key,` prefix of its name;
getRegionInfo's region for a row in each region. What can only match in shape (the two systems
assign them differently; docs/design/hbase-compatibility.md): the region id (HBase: the table's
creation time in ms, shared by pre-split regions; ferrobase: a counter) and the name's tail
(HBase: `id.<MD5 of the name>.`, ferrobase: `id.`), which must hold the id; the server name
(non-empty) and port (HBase: its region server's; ferrobase: 0).
"""

import pytest

PREFIX = "diff_admin_"
SPLITS = [b"g", b"p\x00", b"x"]
# Families created through Thrift1 (happybase's ColumnDescriptor fields) ...
THRIFT_FAMILIES = {
    "d": {},
    "v": dict(max_versions=5, time_to_live=3600, in_memory=True, bloom_filter_type="ROWCOL",
              compression="GZ", block_cache_enabled=False),
    "n": dict(bloom_filter_type="NONE", compression="NONE", block_cache_enabled=True),
    "b": dict(bloom_filter_type="ROW", bloom_filter_vector_size=100, bloom_filter_nb_hashes=3,
              time_to_live=-1),
}
# ... and through the master, with HBase's defaults and attribute names.
MASTER_FAMILIES = {
    "cf": {},
    "h": {"VERSIONS": 7, "TTL": 86400, "IN_MEMORY": "true", "BLOOMFILTER": "ROWCOL",
          "COMPRESSION": "GZ", "BLOCKCACHE": "false"},
    "k": {"BLOOMFILTER": "NONE", "KEEP_DELETED_CELLS": "TRUE", "MIN_VERSIONS": 1, "VERSIONS": 3},
}


def views(backend):
    conn = backend.connect()
    c = conn.client
    attrs, split = PREFIX + "attrs", PREFIX + "split"
    for t in (attrs, split):
        if t.encode() in conn.tables():
            conn.delete_table(t, disable=True)
    out = {}
    try:
        conn.create_table(attrs, THRIFT_FAMILIES)
        backend.create_table(conn, split, MASTER_FAMILIES, SPLITS)
        out["descriptors_thrift"] = {k: repr(v) for k, v in c.getColumnDescriptors(attrs.encode()).items()}
        out["descriptors_master"] = {k: repr(v) for k, v in c.getColumnDescriptors(split.encode()).items()}
        out["names"] = sorted(n for n in c.getTableNames() if n.startswith(PREFIX.encode()))
        out["regions"] = c.getTableRegions(split.encode())
        out["region_of"] = {
            row: c.getRegionInfo(split.encode() + b"," + row + b",99999999999999")
            for row in [b"", b"a", b"g", b"m", b"p", b"p\x00", b"p\x00\x01", b"w", b"x", b"z\xff"]
        }
        out["enabled"] = c.isTableEnabled(split.encode())
        conn.disable_table(split)
        out["disabled"] = c.isTableEnabled(split.encode())
        out["regions_of_disabled"] = len(c.getTableRegions(split.encode()))
    finally:
        for t in (attrs, split):
            try:
                conn.delete_table(t, disable=True)
            except Exception:  # noqa: BLE001 - may not exist on this side
                pass
        conn.close()
    return out


_views = {}


def view(backend):
    if backend.name not in _views:
        _views[backend.name] = views(backend)
    return _views[backend.name]


@pytest.mark.parametrize("key", ["descriptors_thrift", "descriptors_master", "names", "enabled",
                                 "disabled", "regions_of_disabled"])
def test_admin_answer_matches_hbase(key, hbase, ferrobase):
    assert view(ferrobase)[key] == view(hbase)[key]


def _must_equal(r):
    table_and_start = r.name[:r.name.rindex(b",", 0, len(r.name) - 1) + 1] if r.name else b""
    return (r.startKey, r.endKey, r.version, table_and_start)


def _shape_ok(r):
    tail = r.name[len(_must_equal(r)[3]):]
    return (r.id > 0 and tail.startswith(b"%d." % r.id) and tail.endswith(b".")
            and len(r.serverName) > 0 and isinstance(r.port, int))


def test_table_regions_match_hbase(hbase, ferrobase):
    h, f = view(hbase)["regions"], view(ferrobase)["regions"]
    assert [_must_equal(r) for r in f] == [_must_equal(r) for r in h]
    assert [(r.startKey, r.endKey) for r in f] == [(b"", b"g"), (b"g", b"p\x00"), (b"p\x00", b"x"),
                                                   (b"x", b"")]
    for r in h + f:
        assert _shape_ok(r), r


def test_region_info_finds_the_region_of_each_row_as_hbase(hbase, ferrobase):
    h, f = view(hbase)["region_of"], view(ferrobase)["region_of"]
    for row in h:
        assert _must_equal(f[row]) == _must_equal(h[row]), row
        assert _shape_ok(f[row]), f[row]
