//! `mutateRows(Ts)`'s rows decoded straight into typed values (`Ty::Direct`) give what the
//! value tree and its typed conversion give, for well-formed and ill-formed batches alike: the
//! same rows, the same first error (same message), the same refusal over a memory limit, in
//! both protocols.

use ferrobase_thrift::hbase::service::{MutateRowsArgs, MutateRowsTsArgs};
use ferrobase_thrift::hbase::{Attributes, BatchMutation};
use ferrobase_thrift::{
    Binary, Budget, Codec, Compact, Field, Limits, MessageHeader, MessageType, TStruct, TType,
    TValue, ThriftStruct, ThriftValue, Ty,
};

/// `mutateRows`' arguments as declared before the direct decoder: `rowBatches` a plain
/// `list<BatchMutation>`, decoded into the value tree.
const TREE: &[Field] = &[
    Field {
        id: 1,
        name: "tableName",
        ty: Ty::Binary,
    },
    Field {
        id: 2,
        name: "rowBatches",
        ty: <Vec<BatchMutation> as ThriftValue>::TY,
    },
    Field {
        id: 3,
        name: "attributes",
        ty: <Attributes as ThriftValue>::TY,
    },
];

fn bin(s: &str) -> TValue {
    TValue::Binary(s.as_bytes().to_vec())
}

fn mutation(fields: Vec<(i16, TValue)>) -> TValue {
    TValue::Struct(TStruct { fields })
}

fn put(column: &str, value: &str) -> TValue {
    mutation(vec![
        (1, TValue::Bool(false)),
        (2, bin(column)),
        (3, bin(value)),
        (4, TValue::Bool(true)),
    ])
}

fn row(fields: Vec<(i16, TValue)>) -> TValue {
    TValue::Struct(TStruct { fields })
}

fn mutations(items: Vec<TValue>) -> TValue {
    TValue::List(TType::Struct, items)
}

fn args(rows: TValue) -> TStruct {
    TStruct::new().with(1, bin("t")).with(2, rows).with(
        3,
        TValue::Map(
            TType::Binary,
            TType::Binary,
            vec![(bin("_ttl"), TValue::Binary(vec![0, 0, 0, 0, 0, 0, 1, 0]))],
        ),
    )
}

/// The rows of `batch` decoded both ways with `codec` under `limits`: (direct, tree), each the
/// typed arguments or the error's message (or the refusal).
fn both_ways<C: Codec>(codec: &C, batch: &TStruct, limits: &Limits) -> (String, String) {
    let mut wire = Vec::new();
    codec.write_header(
        &mut wire,
        &MessageHeader {
            name: "mutateRows".into(),
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
        match MutateRowsArgs::from_struct(s) {
            Ok(a) => format!("{a:?}"),
            Err(e) => format!("error: {e}"),
        }
    };
    (decode(MutateRowsArgs::FIELDS), decode(TREE))
}

fn check(name: &str, batch: TStruct) -> String {
    let mut last = String::new();
    for limits in [
        Limits::default(),
        Limits {
            max_decoded: 600,
            ..Limits::default()
        },
    ] {
        for compact in [false, true] {
            let (direct, tree) = if compact {
                both_ways(&Compact, &batch, &limits)
            } else {
                both_ways(&Binary, &batch, &limits)
            };
            if limits.max_decoded == 600 {
                // A limit the tree passes the direct decoder may not (it builds less), but a
                // refusal is one in both.
                if direct.starts_with("refused") {
                    assert!(tree.starts_with("refused"), "{name}: {direct} / {tree}");
                }
                continue;
            }
            assert_eq!(direct, tree, "{name} (compact: {compact})");
            last = direct;
        }
    }
    last
}

#[test]
fn well_formed_rows_decode_as_the_tree_decodes_them() {
    let rows: Vec<TValue> = (0..50)
        .map(|i| {
            row(vec![
                (1, bin(&format!("row{i}"))),
                (
                    2,
                    mutations(vec![
                        put("cf:q", &"v".repeat(i)),
                        put("cf:", ""),
                        mutation(vec![(1, TValue::Bool(true)), (2, bin("cf"))]),
                        mutation(vec![(2, bin("cf:x")), (4, TValue::Bool(false))]),
                    ]),
                ),
            ])
        })
        .collect();
    let batch = args(TValue::List(TType::Struct, rows));
    // Decoded straight into typed rows, not into a tree.
    let mut wire = Vec::new();
    Binary.write_struct(&mut wire, &batch);
    let mut r = &wire[..];
    let mut b = Budget::new(&mut r, &Limits::default());
    let s = Binary
        .read_declared(&mut b, MutateRowsArgs::FIELDS)
        .unwrap();
    assert!(matches!(s.get(2), Some(TValue::Decoded(_))), "{s:?}");
    let got = check("fifty rows", batch);
    assert!(
        got.contains("row49") && got.contains("is_delete: true"),
        "{got}"
    );
    // A value large enough to get a buffer of its own, beside small ones.
    let got = check(
        "a large value",
        args(TValue::List(
            TType::Struct,
            vec![
                row(vec![
                    (1, bin("a")),
                    (2, mutations(vec![put("cf:q", "small")])),
                ]),
                row(vec![
                    (1, bin("b")),
                    (2, mutations(vec![put("cf:big", &"x".repeat(200 << 10))])),
                ]),
            ],
        )),
    );
    assert!(
        got.contains("cf:big") && got.contains("small"),
        "{}",
        got.len()
    );
    let got = check("no rows", args(TValue::List(TType::Struct, vec![])));
    assert!(got.contains("RowBatches([])"), "{got}");
    // A row with no mutations field, and one whose mutations come as a set: read past.
    check(
        "no mutations",
        args(TValue::List(
            TType::Struct,
            vec![
                row(vec![(1, bin("a"))]),
                row(vec![
                    (1, bin("b")),
                    (2, TValue::Set(TType::Struct, vec![put("cf:q", "v")])),
                ]),
            ],
        )),
    );
}

#[test]
fn repeated_mistyped_and_undeclared_fields_are_read_as_the_tree_reads_them() {
    let odd_row = row(vec![
        (9, TValue::Struct(TStruct::new().with(1, bin("x")))),
        (1, TValue::I32(7)),
        (1, bin("first")),
        (2, mutations(vec![put("cf:a", "1")])),
        (1, bin("second")),
        // A list of another element type: skipped, the field keeps the list before it.
        (2, TValue::List(TType::I32, vec![TValue::I32(1)])),
        (-3, TValue::List(TType::Binary, vec![bin("z")])),
    ]);
    let odd_mutation = mutation(vec![
        (1, TValue::I32(1)),
        (2, bin("cf:one")),
        (2, bin("cf:two")),
        (3, TValue::I64(5)),
        (3, bin("value")),
        (4, TValue::Binary(vec![1])),
        (5, TValue::Bool(true)),
    ]);
    let replaced = row(vec![
        (1, bin("r")),
        (2, mutations(vec![put("cf:old", "1")])),
        (2, mutations(vec![odd_mutation, put("cf:new", "2")])),
    ]);
    let got = check(
        "odd fields",
        args(TValue::List(TType::Struct, vec![odd_row, replaced])),
    );
    assert!(got.contains("second") && !got.contains("cf:old"), "{got}");
    // rowBatches itself as a list of binaries: read past, the default (no rows).
    check(
        "rows as binaries",
        args(TValue::List(TType::Binary, vec![bin("r")])),
    );
    // As i32: read past too.
    check("rows as an i32", args(TValue::I32(3)));
}

#[test]
fn the_first_bad_row_gives_the_trees_error() {
    let good = || row(vec![(1, bin("ok")), (2, mutations(vec![put("cf:q", "v")]))]);
    let no_key = || row(vec![(2, mutations(vec![put("cf:q", "v")]))]);
    let no_column = || {
        row(vec![
            (1, bin("r")),
            (
                2,
                mutations(vec![put("cf:q", "v"), mutation(vec![(3, bin("v"))])]),
            ),
        ])
    };
    // A row missing its key and a mutation missing its column: the first in wire order wins.
    let got = check(
        "no key first",
        args(TValue::List(
            TType::Struct,
            vec![good(), no_key(), no_column()],
        )),
    );
    assert!(got.contains("BatchMutation.row missing"), "{got}");
    let got = check(
        "no column first",
        args(TValue::List(TType::Struct, vec![no_column(), no_key()])),
    );
    assert!(got.contains("Mutation.column missing"), "{got}");
    // Both in one row: the mutations' error (found while the row is read), as the tree's.
    check(
        "both in one row",
        args(TValue::List(
            TType::Struct,
            vec![row(vec![(2, mutations(vec![mutation(vec![])]))])],
        )),
    );
    // A bad mutation list replaced by a good one still fails, as the tree's conversion does.
    check(
        "bad list then good",
        args(TValue::List(
            TType::Struct,
            vec![row(vec![
                (1, bin("r")),
                (2, mutations(vec![mutation(vec![])])),
                (2, mutations(vec![put("cf:q", "v")])),
            ])],
        )),
    );
}

#[test]
fn a_batch_over_the_memory_limit_is_refused_and_read_to_its_end() {
    let rows: Vec<TValue> = (0..20)
        .map(|i| {
            row(vec![
                (1, bin(&format!("row{i}"))),
                (2, mutations(vec![put("cf:q", &"v".repeat(100))])),
            ])
        })
        .collect();
    let batch = args(TValue::List(TType::Struct, rows));
    for compact in [false, true] {
        let limits = Limits {
            max_decoded: 600,
            ..Limits::default()
        };
        let (direct, tree) = if compact {
            both_ways(&Compact, &batch, &limits)
        } else {
            both_ways(&Binary, &batch, &limits)
        };
        assert!(direct.starts_with("refused"), "{direct}");
        assert!(tree.starts_with("refused"), "{tree}");
    }
    // mutateRowsTs declares the same rows.
    assert!(MutateRowsTsArgs::FIELDS
        .iter()
        .any(|f| f.name == "rowBatches" && matches!(f.ty, Ty::Direct(_))));
}
