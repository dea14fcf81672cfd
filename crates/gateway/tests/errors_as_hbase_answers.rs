//! Thrift1 errors and admin answers as Apache HBase 2.6.1's gateway gives them (issue 17; the
//! differential suite, tests/differential/test_errors.py and test_admin_view.py, compares them
//! with a live HBase): IOErrors name HBase's exception class, scanners of an unknown table open
//! and fail at the first read, bad table names are TApplicationExceptions except in mutateRow,
//! getTableRegions of an unknown table is empty, getRegionInfo searches in hbase:meta order.

mod support;

use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName};
use ferrobase_gateway::handler::{Handler, HandlerOptions, Outcome};
use ferrobase_gateway::thrift::{TStruct, TType, TValue};
use support::replies::exception_message;

fn handler() -> (Handler, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    engine
        .admin()
        .create_table_with_splits(desc, &[b"g".to_vec(), b"p".to_vec()])
        .unwrap();
    (Handler::new(engine, HandlerOptions::default()), dir)
}

fn bin(s: &[u8]) -> TValue {
    TValue::Binary(s.to_vec())
}

fn no_attributes() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, vec![])
}

/// The result struct of a call that answered with a result (not a TApplicationException).
fn result(h: &Handler, method: &str, args: TStruct) -> TStruct {
    match h.call(method, &args) {
        Outcome::Result(r) => r,
        other => panic!("{method}: expected a result struct, got {other:?}"),
    }
}

fn scanner_open(h: &Handler, table: &[u8]) -> TStruct {
    result(
        h,
        "scannerOpen",
        TStruct::new()
            .with(1, bin(table))
            .with(2, bin(b""))
            .with(3, TValue::List(TType::Binary, vec![]))
            .with(4, no_attributes()),
    )
}

#[test]
fn a_scanner_of_an_unknown_table_opens_and_fails_at_its_first_read() {
    let (h, _dir) = handler();
    let opened = scanner_open(&h, b"nope");
    let Some(TValue::I32(id)) = opened.get(0) else {
        panic!("scannerOpen of an unknown table did not open: {opened:?}");
    };
    let got = result(&h, "scannerGet", TStruct::new().with(1, TValue::I32(*id)));
    let m = exception_message(&got, 1);
    assert!(
        m.starts_with("org.apache.hadoop.hbase.TableNotFoundException: ") && m.contains("nope"),
        "{m}"
    );
}

#[test]
fn io_errors_start_with_hbase_exception_class() {
    let (h, _dir) = handler();
    let get_row = |table: &[u8]| {
        TStruct::new()
            .with(1, bin(table))
            .with(2, bin(b"r"))
            .with(3, no_attributes())
    };
    let m = exception_message(&result(&h, "getRow", get_row(b"nope")), 1);
    assert!(
        m.starts_with("org.apache.hadoop.hbase.TableNotFoundException: "),
        "{m}"
    );
    result(&h, "disableTable", TStruct::new().with(1, bin(b"t")));
    let m = exception_message(&result(&h, "getRow", get_row(b"t")), 1);
    assert!(
        m.starts_with("org.apache.hadoop.hbase.TableNotEnabledException: "),
        "{m}"
    );
    result(&h, "enableTable", TStruct::new().with(1, bin(b"t")));
    let m = exception_message(
        &result(&h, "enableTable", TStruct::new().with(1, bin(b"t"))),
        1,
    );
    assert!(
        m.starts_with("org.apache.hadoop.hbase.TableNotDisabledException: "),
        "{m}"
    );
}

#[test]
fn a_bad_table_name_is_an_internal_error_except_in_mutate_row() {
    let (h, _dir) = handler();
    let args = TStruct::new()
        .with(1, bin(b"bad name"))
        .with(2, bin(b"r"))
        .with(3, no_attributes());
    assert!(
        matches!(h.call("getRow", &args), Outcome::InternalError(m) if m.contains("bad name")),
        "getRow of a bad table name"
    );
    let mutation = TStruct::new()
        .with(1, TValue::Bool(false))
        .with(2, bin(b"cf:q"))
        .with(3, bin(b"v"))
        .with(4, TValue::Bool(true));
    let args = TStruct::new()
        .with(1, bin(b"bad name"))
        .with(2, bin(b"r"))
        .with(
            3,
            TValue::List(TType::Struct, vec![TValue::Struct(mutation)]),
        )
        .with(4, no_attributes());
    let m = exception_message(&result(&h, "mutateRow", args), 2);
    assert!(
        m.contains("bad name"),
        "mutateRow answers IllegalArgument: {m}"
    );
}

#[test]
fn table_regions_of_an_unknown_table_are_empty() {
    let (h, _dir) = handler();
    let r = result(&h, "getTableRegions", TStruct::new().with(1, bin(b"nope")));
    assert!(
        matches!(r.get(0), Some(TValue::List(_, l)) if l.is_empty()),
        "{r:?}"
    );
}

#[test]
fn region_info_finds_the_region_holding_a_row_in_meta_order() {
    let (h, _dir) = handler();
    let start_of = |meta_row: &[u8]| -> Vec<u8> {
        let r = result(&h, "getRegionInfo", TStruct::new().with(1, bin(meta_row)));
        match r.get(0) {
            Some(TValue::Struct(info)) => match info.get(1) {
                Some(TValue::Binary(start)) => start.clone(),
                other => panic!("no start key: {other:?}"),
            },
            _ => panic!(
                "no region for {:?}: {r:?}",
                String::from_utf8_lossy(meta_row)
            ),
        }
    };
    assert_eq!(start_of(b"t,a,99999999999999"), b"");
    assert_eq!(start_of(b"t,g,99999999999999"), b"g");
    assert_eq!(start_of(b"t,m,99999999999999"), b"g");
    assert_eq!(start_of(b"t,p\x00,99999999999999"), b"p");
    assert_eq!(
        start_of(b"u"),
        b"p",
        "after the last table: its last region"
    );
    let before = result(&h, "getRegionInfo", TStruct::new().with(1, bin(b"a")));
    let m = exception_message(&before, 1);
    assert!(m.contains("Cannot find row in hbase:meta"), "{m}");
}
