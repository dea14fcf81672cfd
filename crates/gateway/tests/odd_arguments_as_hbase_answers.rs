//! Odd arguments as Apache HBase 2.6.1's Thrift1 handler answers them (issue 41; the
//! differential suite's tests/differential/test_odd_arguments.py compares them with a live
//! HBase): which are IOErrors, which undeclared exceptions (INTERNAL_ERROR), which succeed.

mod support;

use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName};
use ferrobase_gateway::handler::{Handler, HandlerOptions, Outcome};
use ferrobase_gateway::thrift::{TStruct, TType, TValue};
use support::replies::exception_message;

fn handler() -> (Handler, tempfile::TempDir) {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"))
        .with_family(ColumnFamilyDescriptor::new("f2"));
    engine.admin().create_table(desc).unwrap();
    (Handler::new(engine, HandlerOptions::default()), dir)
}

fn bin(s: &[u8]) -> TValue {
    TValue::Binary(s.to_vec())
}

fn no_attributes() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, vec![])
}

fn internal(o: &Outcome) -> bool {
    matches!(o, Outcome::InternalError(_))
}

#[test]
fn versions_below_one_are_an_io_error_and_negative_timestamps_internal_errors() {
    let (h, _dir) = handler();
    for n in [0, -1] {
        let args = TStruct::new()
            .with(1, bin(b"t"))
            .with(2, bin(b"r"))
            .with(3, bin(b"cf:a"))
            .with(4, TValue::I32(n))
            .with(5, no_attributes());
        let Outcome::Result(r) = h.call("getVer", &args) else {
            panic!("getVer {n}: not an IOError")
        };
        assert!(exception_message(&r, 1).contains("versions must be positive"));
    }
    let args = TStruct::new()
        .with(1, bin(b"t"))
        .with(2, bin(b"r"))
        .with(3, TValue::I64(-1))
        .with(4, no_attributes());
    assert!(internal(&h.call("getRowTs", &args)));
    let args = TStruct::new()
        .with(1, bin(b"t"))
        .with(2, bin(b"r"))
        .with(3, bin(b"cf:a"))
        .with(4, TValue::I64(-1))
        .with(5, no_attributes());
    assert!(internal(&h.call("deleteAllTs", &args)));
}

#[test]
fn a_negative_row_count_and_negative_filter_arguments_are_internal_errors() {
    let (h, _dir) = handler();
    let open = |filter: &[u8]| {
        let scan = TStruct::new().with(6, bin(filter));
        h.call(
            "scannerOpenWithScan",
            &TStruct::new()
                .with(1, bin(b"t"))
                .with(2, TValue::Struct(scan))
                .with(3, no_attributes()),
        )
    };
    for f in [
        &b"ColumnPaginationFilter(-1, 0)"[..],
        b"ColumnPaginationFilter(1, -1)",
        b"PageFilter(-1)",
        b"ColumnCountGetFilter(-1)",
        b"TimestampsFilter(-1)",
    ] {
        assert!(internal(&open(f)), "{}", String::from_utf8_lossy(f));
    }
    let Outcome::Result(r) = open(b"PageFilter(0)") else {
        panic!("PageFilter(0) refused")
    };
    let Some(TValue::I32(id)) = r.get(0) else {
        panic!("{r:?}")
    };
    let get_list = |n: i32| {
        h.call(
            "scannerGetList",
            &TStruct::new()
                .with(1, TValue::I32(*id))
                .with(2, TValue::I32(n)),
        )
    };
    assert!(internal(&get_list(-1)));
    assert!(matches!(get_list(0), Outcome::Result(_)));
}

#[test]
fn a_family_only_put_is_skipped_by_mutate_row_and_refused_by_mutate_rows() {
    let (h, _dir) = handler();
    let mutations = |cols: &[&[u8]]| {
        TValue::List(
            TType::Struct,
            cols.iter()
                .map(|c| {
                    TValue::Struct(
                        TStruct::new()
                            .with(1, TValue::Bool(false))
                            .with(2, bin(c))
                            .with(3, bin(b"v"))
                            .with(4, TValue::Bool(true)),
                    )
                })
                .collect(),
        )
    };
    let args = TStruct::new()
        .with(1, bin(b"t"))
        .with(2, bin(b"r"))
        .with(3, mutations(&[b"cf:a", b"f2"]))
        .with(4, no_attributes());
    assert!(matches!(h.call("mutateRow", &args), Outcome::Result(_)));
    let batch = TStruct::new()
        .with(1, bin(b"r2"))
        .with(2, mutations(&[b"f2"]));
    let args = TStruct::new()
        .with(1, bin(b"t"))
        .with(2, TValue::List(TType::Struct, vec![TValue::Struct(batch)]))
        .with(3, no_attributes());
    assert!(internal(&h.call("mutateRows", &args)));
    let get_row = |row: &[u8]| {
        let args = TStruct::new()
            .with(1, bin(b"t"))
            .with(2, bin(row))
            .with(3, no_attributes());
        match h.call("getRow", &args) {
            Outcome::Result(r) => match r.get(0) {
                Some(TValue::List(_, rows)) => rows.len(),
                other => panic!("{other:?}"),
            },
            other => panic!("{other:?}"),
        }
    };
    // r holds cf:a alone (no `f2:` cell); r2 nothing.
    assert_eq!(get_row(b"r"), 1);
    assert_eq!(get_row(b"r2"), 0);
}
