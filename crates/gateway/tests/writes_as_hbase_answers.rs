//! Thrift1 writes as Apache HBase 2.6.1's handler answers them (issue 41; the differential
//! suite, tests/differential/cases_wider.py and test_odd_arguments.py, compares them with a live
//! HBase): checkAndPut's mutation is always a put, family-only columns in checkAndPut and
//! append are INTERNAL_ERRORs, an append answers in column order.

mod support;

use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName};
use ferrobase_gateway::handler::{Handler, HandlerOptions, Outcome};
use ferrobase_gateway::thrift::{TStruct, TType, TValue};

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

fn mutation(is_delete: bool, column: &[u8], value: &[u8]) -> TValue {
    TValue::Struct(
        TStruct::new()
            .with(1, TValue::Bool(is_delete))
            .with(2, bin(column))
            .with(3, bin(value))
            .with(4, TValue::Bool(true)),
    )
}

fn check_and_put(h: &Handler, column: &[u8], value: Option<&[u8]>, mput: TValue) -> Outcome {
    let mut args = TStruct::new()
        .with(1, bin(b"t"))
        .with(2, bin(b"r"))
        .with(3, bin(column));
    if let Some(v) = value {
        args = args.with(5, bin(v));
    }
    h.call("checkAndPut", &args.with(6, mput).with(7, no_attributes()))
}

fn applied(o: Outcome) -> bool {
    match o {
        Outcome::Result(r) => match r.get(0) {
            Some(TValue::Bool(b)) => *b,
            other => panic!("checkAndPut answered {other:?}"),
        },
        other => panic!("checkAndPut answered {other:?}"),
    }
}

/// The values of `cf`'s and `f2`'s cells of row `r`, as getRow answers them.
fn row(h: &Handler) -> Vec<(Vec<u8>, Vec<u8>)> {
    let args = TStruct::new()
        .with(1, bin(b"t"))
        .with(2, bin(b"r"))
        .with(3, no_attributes());
    let Outcome::Result(r) = h.call("getRow", &args) else {
        panic!("getRow failed");
    };
    let Some(TValue::List(_, rows)) = r.get(0) else {
        panic!("getRow answered {r:?}");
    };
    let mut out = Vec::new();
    for row in rows {
        let TValue::Struct(row) = row else { panic!() };
        let Some(TValue::Map(_, _, cols)) = row.get(2) else {
            panic!("{row:?}")
        };
        for (k, v) in cols {
            let (TValue::Binary(k), TValue::Struct(cell)) = (k, v) else {
                panic!()
            };
            let Some(TValue::Binary(v)) = cell.get(1) else {
                panic!()
            };
            out.push((k.clone(), v.clone()));
        }
    }
    out
}

#[test]
fn check_and_put_puts_its_mutation_whatever_is_delete_says() {
    let (h, _dir) = handler();
    assert!(applied(check_and_put(
        &h,
        b"cf:a",
        None,
        mutation(false, b"cf:a", b"x")
    )));
    assert!(applied(check_and_put(
        &h,
        b"cf:a",
        Some(b"x"),
        mutation(true, b"cf:b", b"put")
    )));
    assert_eq!(
        row(&h),
        vec![
            (b"cf:a".to_vec(), b"x".to_vec()),
            (b"cf:b".to_vec(), b"put".to_vec())
        ]
    );
    // An empty expected value: absent or empty.
    assert!(applied(check_and_put(
        &h,
        b"cf:absent",
        Some(b""),
        mutation(false, b"cf:c", b"v")
    )));
}

#[test]
fn family_only_columns_in_check_and_put_and_append_are_internal_errors() {
    let (h, _dir) = handler();
    for (column, put_column) in [(&b"f2"[..], &b"cf:c"[..]), (b"cf:a", b"f2")] {
        let o = check_and_put(&h, column, None, mutation(false, put_column, b"v"));
        assert!(
            matches!(o, Outcome::InternalError(_)),
            "checkAndPut({column:?}, {put_column:?}): {o:?}"
        );
    }
    let append = |columns: &[&[u8]], values: &[&[u8]]| {
        let list = |xs: &[&[u8]]| TValue::List(TType::Binary, xs.iter().map(|x| bin(x)).collect());
        let ap = TStruct::new()
            .with(1, bin(b"t"))
            .with(2, bin(b"r"))
            .with(3, list(columns))
            .with(4, list(values));
        h.call("append", &TStruct::new().with(1, TValue::Struct(ap)))
    };
    for (columns, values) in [
        (&[&b"f2"[..]][..], &[&b"v"[..]][..]),
        (&[b"cf:a", b"cf:b"], &[b"v"]),
        (&[], &[]),
    ] {
        let o = append(columns, values);
        assert!(
            matches!(o, Outcome::InternalError(_)),
            "append({columns:?}, {values:?}): {o:?}"
        );
    }
    assert!(row(&h).is_empty());
    // In column order, whatever the request's.
    let Outcome::Result(r) = append(&[b"f2:a", b"cf:b"], &[b"X", b"Y"]) else {
        panic!("append failed")
    };
    let Some(TValue::List(_, cells)) = r.get(0) else {
        panic!("{r:?}")
    };
    let got: Vec<&TValue> = cells
        .iter()
        .map(|c| match c {
            TValue::Struct(c) => c.get(1).unwrap(),
            other => panic!("{other:?}"),
        })
        .collect();
    assert_eq!(got, vec![&bin(b"Y"), &bin(b"X")]);
}
