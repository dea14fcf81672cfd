//! Thrift2 `putMultiple`'s puts decoded straight into typed values (`Ty::Direct`) give what
//! the value tree and its typed conversion give: the same puts, the same first error, the same
//! refusal over a memory limit, in both protocols.

use ferrobase_thrift::thrift2::service::PutMultipleArgs;
use ferrobase_thrift::thrift2::TPut;
use ferrobase_thrift::{
    Binary, Budget, Codec, Compact, Field, Limits, MessageHeader, MessageType, TStruct, TType,
    TValue, ThriftStruct, ThriftValue, Ty,
};

/// `putMultiple`'s arguments as declared before the direct decoder.
const TREE: &[Field] = &[
    Field {
        id: 1,
        name: "table",
        ty: Ty::Binary,
    },
    Field {
        id: 2,
        name: "tputs",
        ty: <Vec<TPut> as ThriftValue>::TY,
    },
];

fn bin(s: &str) -> TValue {
    TValue::Binary(s.as_bytes().to_vec())
}

fn strukt(fields: Vec<(i16, TValue)>) -> TValue {
    TValue::Struct(TStruct { fields })
}

fn cell(q: &str, v: &str) -> TValue {
    strukt(vec![(1, bin("cf")), (2, bin(q)), (3, bin(v))])
}

fn list(items: Vec<TValue>) -> TValue {
    TValue::List(TType::Struct, items)
}

fn args(puts: TValue) -> TStruct {
    TStruct::new().with(1, bin("t")).with(2, puts)
}

/// (direct, tree): the typed arguments or the error's message (or the refusal).
fn both_ways<C: Codec>(codec: &C, batch: &TStruct, limits: &Limits) -> (String, String) {
    let mut wire = Vec::new();
    codec.write_header(
        &mut wire,
        &MessageHeader {
            name: "putMultiple".into(),
            kind: MessageType::Call,
            seq_id: 1,
        },
    );
    codec.write_struct(&mut wire, batch);
    let decode = |fields: &'static [Field]| {
        let mut r = &wire[..];
        let mut b = Budget::new(&mut r, limits);
        codec.read_header(&mut b).unwrap();
        let s = codec.read_declared(&mut b, fields).unwrap();
        let over = b.overrun();
        drop(b);
        assert!(r.is_empty(), "the whole message was read");
        if let Some(over) = over {
            return format!("refused: {over}");
        }
        match PutMultipleArgs::from_struct(s) {
            Ok(a) => format!("{a:?}"),
            Err(e) => format!("error: {e}"),
        }
    };
    (decode(PutMultipleArgs::FIELDS), decode(TREE))
}

fn check(name: &str, batch: TStruct) -> String {
    let mut last = String::new();
    for compact in [false, true] {
        let (direct, tree) = if compact {
            both_ways(&Compact, &batch, &Limits::default())
        } else {
            both_ways(&Binary, &batch, &Limits::default())
        };
        assert_eq!(direct, tree, "{name} (compact: {compact})");
        last = direct;
    }
    last
}

#[test]
fn puts_decode_as_the_tree_decodes_them() {
    let puts: Vec<TValue> = (0..30)
        .map(|i| {
            strukt(vec![
                (1, bin(&format!("row{i}"))),
                (2, list(vec![cell("q", &"v".repeat(i)), cell("", "")])),
            ])
        })
        .collect();
    let batch = args(list(puts));
    let mut wire = Vec::new();
    Binary.write_struct(&mut wire, &batch);
    let mut r = &wire[..];
    let mut b = Budget::new(&mut r, &Limits::default());
    let s = Binary
        .read_declared(&mut b, PutMultipleArgs::FIELDS)
        .unwrap();
    assert!(matches!(s.get(2), Some(TValue::Decoded(_))), "{s:?}");
    let got = check("thirty puts", batch);
    assert!(got.contains("row29"), "{got}");
    // Every optional field, sent, repeated, mistyped or undeclared.
    let full = strukt(vec![
        (1, bin("r")),
        (
            2,
            list(vec![strukt(vec![
                (1, bin("cf")),
                (2, bin("q")),
                (3, bin("v")),
                (4, TValue::I64(77)),
                (4, TValue::I32(5)),
                (5, bin("tag")),
                (6, TValue::Byte(4)),
                (9, TValue::Bool(true)),
            ])]),
        ),
        (3, TValue::I64(1234)),
        (
            5,
            TValue::Map(
                TType::Binary,
                TType::Binary,
                vec![(bin("_ttl"), TValue::Binary(vec![0; 8]))],
            ),
        ),
        (6, TValue::I32(2)),
        (6, TValue::Binary(vec![1])),
        (7, strukt(vec![(1, bin("secret"))])),
        (1, TValue::I64(3)),
        (12, list(vec![cell("x", "y")])),
    ]);
    let got = check("every field", args(list(vec![full])));
    assert!(got.contains("1234") && got.contains("secret"), "{got}");
    check(
        "puts as binaries",
        args(TValue::List(TType::Binary, vec![bin("r")])),
    );
    check("no puts", args(list(vec![])));
}

#[test]
fn the_first_bad_put_gives_the_trees_error() {
    let no_row = || strukt(vec![(2, list(vec![cell("q", "v")]))]);
    let no_value = || {
        strukt(vec![
            (1, bin("r")),
            (2, list(vec![strukt(vec![(1, bin("cf")), (2, bin("q"))])])),
        ])
    };
    let no_family_nor_value = || {
        strukt(vec![
            (1, bin("r")),
            (2, list(vec![strukt(vec![(2, bin("q"))])])),
        ])
    };
    let got = check("no row first", args(list(vec![no_row(), no_value()])));
    assert!(got.contains("TPut.row missing"), "{got}");
    let got = check("no value first", args(list(vec![no_value(), no_row()])));
    assert!(got.contains("TColumnValue.value missing"), "{got}");
    let got = check(
        "no family nor value",
        args(list(vec![no_family_nor_value()])),
    );
    assert!(got.contains("TColumnValue.family missing"), "{got}");
}

#[test]
fn puts_over_the_memory_limit_are_refused_and_read_to_their_end() {
    let puts: Vec<TValue> = (0..20)
        .map(|i| {
            strukt(vec![
                (1, bin(&format!("row{i}"))),
                (2, list(vec![cell("q", &"v".repeat(100))])),
            ])
        })
        .collect();
    let batch = args(list(puts));
    let limits = Limits {
        max_decoded: 600,
        ..Limits::default()
    };
    for (direct, tree) in [
        both_ways(&Binary, &batch, &limits),
        both_ways(&Compact, &batch, &limits),
    ] {
        assert!(direct.starts_with("refused"), "{direct}");
        assert!(tree.starts_with("refused"), "{tree}");
    }
}
