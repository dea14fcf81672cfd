//! `hbase:meta` and `hbase:namespace` over Thrift1 (issue 27): getRow*, get and the scanners
//! answer from the views of the engine's catalog laid out as HBase 2.x lays them out
//! (tests/differential/test_meta.py compares their shape with a live HBase; the namespace
//! rows are compared byte for byte with HBase 2.6.1's, `tests/data/hbase_namespace_2.6.1.tsv`);
//! writes are refused with an IOError; with ACLs a user sees the meta rows of the tables
//! getTableNames lists to them, and reads hbase:namespace with a grant reaching it.

mod support;

use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName};
use ferrobase_gateway::access::{AccessChecker, AclStore, Actions, Scope};
use ferrobase_gateway::catalog::{region_info_bytes, region_row, table_state_bytes};
use ferrobase_gateway::handler::{Handler, HandlerOptions, Outcome};
use ferrobase_gateway::thrift::hbase::catalog::PbNamespaceDescriptor;
use ferrobase_gateway::thrift::{TStruct, TType, TValue};
use std::sync::Arc;
use support::replies::exception_message;

fn engine_with_tables() -> (Engine, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    for (name, splits) in [("t", vec![b"g".to_vec(), b"p".to_vec()]), ("u", vec![])] {
        let desc = TableDescriptor::new(TableName::parse(name).unwrap())
            .with_family(ColumnFamilyDescriptor::new("cf"));
        engine
            .admin()
            .create_table_with_splits(desc, &splits)
            .unwrap();
    }
    (engine, dir)
}

fn handler() -> (Handler, tempfile::TempDir) {
    let (engine, dir) = engine_with_tables();
    (Handler::new(engine, HandlerOptions::default()), dir)
}

fn bin(s: &[u8]) -> TValue {
    TValue::Binary(s.to_vec())
}

fn bins(items: &[&[u8]]) -> TValue {
    TValue::List(TType::Binary, items.iter().map(|b| bin(b)).collect())
}

fn no_attributes() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, vec![])
}

fn call(h: &Handler, user: Option<&str>, method: &str, args: TStruct) -> TStruct {
    match h.call_as(user, method, &args) {
        Outcome::Result(r) => r,
        other => panic!("{method}: expected a result struct, got {other:?}"),
    }
}

/// A TRowResult as (row, [(column, value)]).
type Row = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>);

fn rows_of(r: &TStruct) -> Vec<Row> {
    let Some(TValue::List(_, rows)) = r.get(0) else {
        panic!("no row list: {r:?}");
    };
    rows.iter()
        .map(|row| {
            let TValue::Struct(s) = row else {
                panic!("not a row: {row:?}")
            };
            let Some(TValue::Binary(key)) = s.get(1) else {
                panic!("no row key: {s:?}")
            };
            let mut cells = Vec::new();
            if let Some(TValue::Map(_, _, cols)) = s.get(2) {
                for (k, v) in cols {
                    let (TValue::Binary(k), TValue::Struct(c)) = (k, v) else {
                        panic!("bad column {k:?}")
                    };
                    let Some(TValue::Binary(value)) = c.get(1) else {
                        panic!("bad cell {c:?}")
                    };
                    cells.push((k.clone(), value.clone()));
                }
            }
            (key.clone(), cells)
        })
        .collect()
}

/// Every row a scanner from `open` reads, two at a time.
fn scan(h: &Handler, user: Option<&str>, method: &str, args: TStruct) -> Vec<Row> {
    let opened = call(h, user, method, args);
    let Some(TValue::I32(id)) = opened.get(0) else {
        panic!("{method} did not open: {opened:?}");
    };
    let mut out = Vec::new();
    loop {
        let got = call(
            h,
            user,
            "scannerGetList",
            TStruct::new()
                .with(1, TValue::I32(*id))
                .with(2, TValue::I32(2)),
        );
        let rows = rows_of(&got);
        if rows.is_empty() {
            break;
        }
        out.extend(rows);
    }
    call(
        h,
        user,
        "scannerClose",
        TStruct::new().with(1, TValue::I32(*id)),
    );
    out
}

fn scan_all(h: &Handler, user: Option<&str>) -> Vec<Row> {
    scan_table(h, user, b"hbase:meta")
}

fn scan_table(h: &Handler, user: Option<&str>, table: &[u8]) -> Vec<Row> {
    scan(
        h,
        user,
        "scannerOpen",
        TStruct::new()
            .with(1, bin(table))
            .with(2, bin(b""))
            .with(3, bins(&[]))
            .with(4, no_attributes()),
    )
}

fn region_ids(h: &Handler, table: &str) -> Vec<(Vec<u8>, Vec<u8>, u64)> {
    h.engine()
        .admin()
        .regions(table)
        .unwrap()
        .into_iter()
        .map(|r| (r.start, r.end, r.id))
        .collect()
}

#[test]
fn a_scan_of_meta_lists_state_rows_then_regions_with_hbase_columns() {
    let (h, _dir) = handler();
    let rows = scan_all(&h, None);
    let mut expected: Vec<Vec<u8>> = vec![b"t".to_vec()];
    expected.extend(
        region_ids(&h, "t")
            .iter()
            .map(|(s, _, id)| region_row("t", s, *id)),
    );
    expected.push(b"u".to_vec());
    expected.extend(
        region_ids(&h, "u")
            .iter()
            .map(|(s, _, id)| region_row("u", s, *id)),
    );
    let keys: Vec<Vec<u8>> = rows.iter().map(|r| r.0.clone()).collect();
    assert_eq!(keys, expected);
    assert_eq!(
        rows[0].1,
        vec![(b"table:state".to_vec(), table_state_bytes(true))]
    );
    let columns: Vec<&[u8]> = rows[1].1.iter().map(|(c, _)| c.as_slice()).collect();
    assert_eq!(
        columns,
        [
            &b"info:regioninfo"[..],
            b"info:seqnumDuringOpen",
            b"info:server",
            b"info:serverstartcode",
            b"info:sn",
            b"info:state"
        ]
    );
    let (start, end, id) = region_ids(&h, "t")[1].clone();
    assert_eq!(start, b"g");
    assert_eq!(rows[2].1[0].1, region_info_bytes("t", &start, &end, id));
    assert_eq!(rows[2].1[5].1, b"OPEN");
}

#[test]
fn meta_rows_are_read_by_key_and_columns() {
    let (h, _dir) = handler();
    let (start, end, id) = region_ids(&h, "t")[2].clone();
    let key = region_row("t", &start, id);
    let got = call(
        &h,
        None,
        "getRowWithColumns",
        TStruct::new()
            .with(1, bin(b"hbase:meta"))
            .with(2, bin(&key))
            .with(3, bins(&[b"info:regioninfo", b"info:state"]))
            .with(4, no_attributes()),
    );
    assert_eq!(
        rows_of(&got),
        vec![(
            key.clone(),
            vec![
                (
                    b"info:regioninfo".to_vec(),
                    region_info_bytes("t", &start, &end, id)
                ),
                (b"info:state".to_vec(), b"OPEN".to_vec()),
            ]
        )]
    );
    let missing = call(
        &h,
        None,
        "getRow",
        TStruct::new()
            .with(1, bin(b"hbase:meta"))
            .with(2, bin(b"nope"))
            .with(3, no_attributes()),
    );
    assert!(rows_of(&missing).is_empty());
}

#[test]
fn meta_scans_keep_to_their_prefix_and_stop_row() {
    let (h, _dir) = handler();
    let prefixed = scan(
        &h,
        None,
        "scannerOpenWithPrefix",
        TStruct::new()
            .with(1, bin(b"hbase:meta"))
            .with(2, bin(b"u"))
            .with(3, bins(&[b"table"]))
            .with(4, no_attributes()),
    );
    // Only u's state row: its region row has no table family.
    assert_eq!(prefixed.len(), 1);
    assert_eq!(prefixed[0].0, b"u");
    let stopped = |start: &[u8]| {
        scan(
            &h,
            None,
            "scannerOpenWithStop",
            TStruct::new()
                .with(1, bin(b"hbase:meta"))
                .with(2, bin(start))
                .with(3, bin(b"u"))
                .with(4, bins(&[]))
                .with(5, no_attributes()),
        )
    };
    let from_table = stopped(b"t");
    assert_eq!(from_table.len(), 4, "t's state row and its three regions");
    assert_eq!(from_table[0].0, b"t");
    // Compared as HBase's meta comparator compares rows, `t,` sorts after `t,,ID.ENC.` (its
    // tail `t,` against `ID.ENC.`): HBase's scan from `t,` misses t's first region too.
    let from_comma = stopped(b"t,");
    assert_eq!(from_comma.len(), 2, "{from_comma:?}");
    assert!(from_comma.iter().all(|r| r.0.starts_with(b"t,")));
}

#[test]
fn a_filter_on_meta_is_an_illegal_argument() {
    let (h, _dir) = handler();
    let tscan = TStruct::new().with(6, bin(b"KeyOnlyFilter()"));
    let r = call(
        &h,
        None,
        "scannerOpenWithScan",
        TStruct::new()
            .with(1, bin(b"hbase:meta"))
            .with(2, TValue::Struct(tscan))
            .with(3, no_attributes()),
    );
    let m = exception_message(&r, 1);
    assert!(m.contains("filters are not supported on hbase:meta"), "{m}");
}

#[test]
fn writes_to_meta_are_refused_with_an_io_error() {
    let (h, _dir) = handler();
    let put = TStruct::new()
        .with(1, TValue::Bool(false))
        .with(2, bin(b"info:state"))
        .with(3, bin(b"CLOSED"))
        .with(4, TValue::Bool(true));
    let r = call(
        &h,
        None,
        "mutateRow",
        TStruct::new()
            .with(1, bin(b"hbase:meta"))
            .with(2, bin(b"t"))
            .with(3, TValue::List(TType::Struct, vec![TValue::Struct(put)]))
            .with(4, no_attributes()),
    );
    let m = exception_message(&r, 1);
    assert!(
        m.starts_with(
            "org.apache.hadoop.hbase.DoNotRetryIOException: mutateRow: hbase:meta is read-only"
        ),
        "{m}"
    );
    let r = call(
        &h,
        None,
        "deleteAllRow",
        TStruct::new()
            .with(1, bin(b"hbase:meta"))
            .with(2, bin(b"t"))
            .with(3, no_attributes()),
    );
    assert!(exception_message(&r, 1).contains("read-only"));
    // Nothing changed.
    assert_eq!(scan_all(&h, None)[0].1[0].1, table_state_bytes(true));
}

#[test]
fn with_acls_a_user_sees_the_meta_rows_of_the_tables_listed_to_them() {
    let (engine, _dir) = engine_with_tables();
    let store = AclStore::open(&engine).unwrap();
    store
        .grant("reader", &Scope::table("u"), Actions::parse("R").unwrap())
        .unwrap();
    let checker = AccessChecker::new(Arc::new(store), ["admin".to_string()]);
    let h = Handler::new(engine, HandlerOptions::default()).with_access(checker);
    let seen =
        |user| -> Vec<Vec<u8>> { scan_all(&h, Some(user)).into_iter().map(|r| r.0).collect() };
    let admin = seen("admin");
    assert_eq!(admin.len(), 6, "t and its 3 regions, u and its region");
    let reader = seen("reader");
    assert_eq!(reader.len(), 2);
    assert!(reader.iter().all(|r| r.starts_with(b"u")), "{reader:?}");
    assert!(seen("stranger").is_empty());
}

/// The rows of HBase 2.6.1's hbase:namespace as recorded from the oracle: (row, column, value).
fn recorded_namespace_rows() -> Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> {
    let text = include_str!("data/hbase_namespace_2.6.1.tsv");
    let hex = |s: &str| -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    };
    text.lines()
        .filter(|l| !l.starts_with('#'))
        .map(|l| {
            let f: Vec<&str> = l.split('\t').collect();
            (f[0].into(), f[1].into(), hex(f[2]))
        })
        .collect()
}

#[test]
fn a_scan_of_hbase_namespace_gives_hbase_2_6_bytes() {
    let (h, _dir) = handler();
    h.engine().admin().create_namespace("catalog_ns2").unwrap();
    let got: Vec<(Vec<u8>, Vec<u8>, Vec<u8>)> = scan_table(&h, None, b"hbase:namespace")
        .into_iter()
        .flat_map(|(row, cells)| cells.into_iter().map(move |(c, v)| (row.clone(), c, v)))
        .collect();
    // catalog_ns1 carries a property, which ferrobase's namespaces cannot have.
    let recorded: Vec<_> = recorded_namespace_rows()
        .into_iter()
        .filter(|r| r.0 != b"catalog_ns1")
        .collect();
    assert_eq!(recorded.len(), 3);
    assert_eq!(got, recorded);
}

#[test]
fn recorded_namespace_descriptors_decode_with_their_properties() {
    let rows = recorded_namespace_rows();
    let decoded: Vec<PbNamespaceDescriptor> = rows
        .iter()
        .map(|(_, _, v)| PbNamespaceDescriptor::decode(v).unwrap())
        .collect();
    for ((row, _, _), d) in rows.iter().zip(&decoded) {
        assert_eq!(&d.name, row);
    }
    assert_eq!(
        decoded[0].configuration,
        vec![("PROPERTY_NAME".into(), "PROPERTY_VALUE".into())]
    );
}

#[test]
fn hbase_namespace_rows_are_read_by_key_and_not_listed_as_a_table() {
    let (h, _dir) = handler();
    let got = call(
        &h,
        None,
        "getRow",
        TStruct::new()
            .with(1, bin(b"hbase:namespace"))
            .with(2, bin(b"hbase"))
            .with(3, no_attributes()),
    );
    assert_eq!(
        rows_of(&got),
        vec![(
            b"hbase".to_vec(),
            vec![(b"info:d".to_vec(), b"\x0a\x05hbase".to_vec())]
        )]
    );
    // As HBase's listTableNames, getTableNames leaves the catalog tables out.
    let names = call(&h, None, "getTableNames", TStruct::new());
    let Some(TValue::List(_, names)) = names.get(0) else {
        panic!("{names:?}")
    };
    assert_eq!(names, &vec![bin(b"t"), bin(b"u")]);
}

#[test]
fn writes_to_hbase_namespace_are_refused_with_an_io_error() {
    let (h, _dir) = handler();
    let r = call(
        &h,
        None,
        "deleteAllRow",
        TStruct::new()
            .with(1, bin(b"hbase:namespace"))
            .with(2, bin(b"default"))
            .with(3, no_attributes()),
    );
    let m = exception_message(&r, 1);
    assert!(
        m.starts_with(
            "org.apache.hadoop.hbase.DoNotRetryIOException: deleteAllRow: hbase:namespace is \
             read-only"
        ),
        "{m}"
    );
    assert_eq!(scan_table(&h, None, b"hbase:namespace").len(), 2);
}

#[test]
fn get_row_or_before_is_an_unknown_method_as_in_hbase_2_6() {
    let (h, _dir) = handler();
    for table in [&b"hbase:meta"[..], b"t"] {
        let args = TStruct::new()
            .with(1, bin(table))
            .with(2, bin(b"t,,99999999999999"))
            .with(3, bin(b"info"));
        assert!(matches!(
            h.call("getRowOrBefore", &args),
            Outcome::UnknownMethod
        ));
    }
}

#[test]
fn with_acls_hbase_namespace_needs_a_grant_reaching_it() {
    let (engine, _dir) = engine_with_tables();
    let store = AclStore::open(&engine).unwrap();
    store
        .grant(
            "reader",
            &Scope::Namespace("hbase".into()),
            Actions::parse("R").unwrap(),
        )
        .unwrap();
    let checker = AccessChecker::new(Arc::new(store), ["admin".to_string()]);
    let h = Handler::new(engine, HandlerOptions::default()).with_access(checker);
    assert_eq!(scan_table(&h, Some("admin"), b"hbase:namespace").len(), 2);
    assert_eq!(scan_table(&h, Some("reader"), b"hbase:namespace").len(), 2);
    let r = call(
        &h,
        Some("stranger"),
        "scannerOpen",
        TStruct::new()
            .with(1, bin(b"hbase:namespace"))
            .with(2, bin(b""))
            .with(3, bins(&[]))
            .with(4, no_attributes()),
    );
    let m = exception_message(&r, 1);
    assert!(
        m.contains("Insufficient permissions for user 'stranger' (table=hbase:namespace"),
        "{m}"
    );
}

#[test]
fn catalog_tables_are_described_and_enabled_as_in_hbase_2_6() {
    let (h, _dir) = handler();
    let families = |table: &[u8]| -> Vec<(Vec<u8>, i32, String)> {
        let r = call(
            &h,
            None,
            "getColumnDescriptors",
            TStruct::new().with(1, bin(table)),
        );
        let Some(TValue::Map(_, _, entries)) = r.get(0) else {
            panic!("{r:?}")
        };
        entries
            .iter()
            .map(|(k, v)| {
                let (TValue::Binary(k), TValue::Struct(d)) = (k, v) else {
                    panic!("{k:?}")
                };
                let (Some(TValue::I32(versions)), Some(TValue::Binary(bloom))) =
                    (d.get(2), d.get(5))
                else {
                    panic!("{d:?}")
                };
                (
                    k.clone(),
                    *versions,
                    String::from_utf8_lossy(bloom).into_owned(),
                )
            })
            .collect()
    };
    // As the oracle's getColumnDescriptors answered (tests/data/hbase_namespace_2.6.1.tsv).
    assert_eq!(
        families(b"hbase:namespace"),
        vec![(b"info:".to_vec(), 10, "ROW".to_string())]
    );
    assert_eq!(
        families(b"hbase:meta"),
        vec![
            (b"info:".to_vec(), 3, "ROWCOL".to_string()),
            (b"rep_barrier:".to_vec(), i32::MAX, "ROWCOL".to_string()),
            (b"table:".to_vec(), 3, "ROWCOL".to_string()),
        ]
    );
    for table in [&b"hbase:meta"[..], b"hbase:namespace"] {
        let r = call(
            &h,
            None,
            "isTableEnabled",
            TStruct::new().with(1, bin(table)),
        );
        assert_eq!(r.get(0), Some(&TValue::Bool(true)));
    }
}
