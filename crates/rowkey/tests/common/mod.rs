//! Strategies shared by the rowkey property tests: value field types and values that fit them.

#![allow(dead_code, reason = "each test file uses a subset")]

use ferrobase_rowkey::{FieldType, Value};
use proptest::prelude::*;
use std::cmp::Ordering;

/// Any value field type, with small widths so values collide often; `desc(T)` of any of them.
pub fn value_type() -> BoxedStrategy<FieldType> {
    prop_oneof![
        4 => base_value_type(),
        1 => base_value_type().prop_map(|t| FieldType::Desc(Box::new(t))),
    ]
    .boxed()
}

/// The value field types but `desc`.
fn base_value_type() -> BoxedStrategy<FieldType> {
    prop_oneof![
        (1u8..=20, prop::sample::select(vec![8u8, 16, 32, 64]))
            .prop_map(|(width, bits)| FieldType::Dec { width, bits }),
        (1u8..=8).prop_map(|bytes| FieldType::Uint { bytes }),
        (1u8..=8).prop_map(|bytes| FieldType::Int { bytes }),
        Just(FieldType::F32),
        Just(FieldType::F64),
        Just(FieldType::RevTs),
        Just(FieldType::RevTsDec),
        (1usize..=10, prop::sample::select(vec![0u8, b' ']))
            .prop_map(|(width, pad)| FieldType::FixedStr { width, pad }),
        (1usize..=10).prop_map(|width| FieldType::FixedBytes { width, pad: 0 }),
        Just(FieldType::Str),
        Just(FieldType::Bytes),
        Just(FieldType::Rev),
        Just(FieldType::RevInt),
        prop::sample::select(vec![4u8, 8]).prop_map(|bytes| FieldType::Java { bytes }),
        Just(FieldType::RevStr),
        prop::sample::select(vec![b'_', b'|', b'#']).prop_map(|sep| FieldType::Word { sep }),
    ]
    .boxed()
}

fn unsigned_max(ty: &FieldType) -> u64 {
    match ty {
        FieldType::Dec { width, bits } => {
            let digits = 10u64
                .checked_pow(u32::from(*width))
                .map_or(u64::MAX, |p| p - 1);
            digits.min(u64::MAX >> (64 - u32::from(*bits)))
        }
        FieldType::Uint { bytes } => u64::MAX >> (64 - 8 * u32::from(*bytes)),
        _ => 0,
    }
}

/// Any value that fits `ty`, edges included.
pub fn value_of(ty: &FieldType) -> BoxedStrategy<Value> {
    match ty {
        FieldType::Dec { .. } | FieldType::Uint { .. } => {
            let max = unsigned_max(ty);
            prop_oneof![0..=max, Just(0), Just(max), 0..=max.min(3)]
                .prop_map(Value::U64)
                .boxed()
        }
        FieldType::Int { bytes } => {
            let bits = 8 * u32::from(*bytes);
            let (lo, hi) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
            prop_oneof![lo..=hi, Just(lo), Just(hi), -2i64..=2]
                .prop_map(Value::I64)
                .boxed()
        }
        FieldType::F32 => prop_oneof![
            any::<u32>().prop_map(f32::from_bits),
            prop::sample::select(vec![
                0.0f32,
                -0.0,
                1.0,
                -1.0,
                f32::INFINITY,
                f32::NEG_INFINITY
            ])
        ]
        .prop_map(Value::F32)
        .boxed(),
        FieldType::F64 => prop_oneof![
            any::<u64>().prop_map(f64::from_bits),
            prop::sample::select(vec![
                0.0f64,
                -0.0,
                1.0,
                -1.0,
                f64::INFINITY,
                f64::NEG_INFINITY
            ])
        ]
        .prop_map(Value::F64)
        .boxed(),
        FieldType::RevTs | FieldType::RevTsDec => prop_oneof![
            0..=i64::MAX,
            Just(0),
            Just(i64::MAX),
            1_300_000_000_000i64..1_300_000_000_010
        ]
        .prop_map(Value::I64)
        .boxed(),
        FieldType::FixedStr { width, pad } => {
            // Order holds for values without bytes below the pad byte.
            let class = if *pad == 0 { "[ -~]" } else { "[!-~]" };
            proptest::string::string_regex(&format!("{class}{{0,{width}}}"))
                .expect("valid regex")
                .prop_map(Value::Str)
                .boxed()
        }
        FieldType::FixedBytes { width, .. } => prop::collection::vec(1u8..=255, 0..=*width)
            .prop_map(Value::Bytes)
            .boxed(),
        FieldType::Str => prop::collection::vec(
            prop_oneof![
                Just('\0'),
                Just('a'),
                Just('\u{1}'),
                Just('\u{ff}'),
                any::<char>()
            ],
            0..6,
        )
        .prop_map(|c| Value::Str(c.into_iter().collect()))
        .boxed(),
        FieldType::Bytes => prop::collection::vec(
            prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), any::<u8>()],
            0..8,
        )
        .prop_map(Value::Bytes)
        .boxed(),
        FieldType::Rev => prop::collection::vec(
            prop_oneof![Just('.'), Just('a'), Just('b'), Just('\0'), any::<char>()],
            0..8,
        )
        .prop_map(|c| Value::Str(c.into_iter().collect()))
        .boxed(),
        FieldType::RevInt => prop_oneof![
            0..=i64::from(i32::MAX),
            Just(0),
            Just(i64::from(i32::MAX)),
            0i64..3
        ]
        .prop_map(Value::I64)
        .boxed(),
        FieldType::Java { bytes: 4 } => prop_oneof![
            i64::from(i32::MIN)..=i64::from(i32::MAX),
            Just(i64::from(i32::MIN)),
            Just(-1),
            -2i64..=2
        ]
        .prop_map(Value::I64)
        .boxed(),
        FieldType::Java { .. } => prop_oneof![any::<i64>(), Just(i64::MIN), Just(-1), -2i64..=2]
            .prop_map(Value::I64)
            .boxed(),
        FieldType::RevStr => prop::collection::vec(
            prop_oneof![Just('\0'), Just('a'), Just('b'), Just('1'), any::<char>()],
            0..6,
        )
        .prop_map(|c| Value::Str(c.into_iter().collect()))
        .boxed(),
        FieldType::Word { sep } => {
            let sep = char::from(*sep);
            prop::collection::vec(
                prop_oneof![Just('a'), Just('b'), Just('0'), Just('Z'), any::<char>()],
                0..6,
            )
            .prop_map(move |c| Value::Str(c.into_iter().filter(|&x| x != sep).collect()))
            .boxed()
        }
        FieldType::Desc(inner) => value_of(inner),
        FieldType::Hash { .. } | FieldType::Salt { .. } => Just(Value::U64(0)).boxed(),
    }
}

/// `www.example.com` -> `com.example.www`.
pub fn reverse_labels(s: &str) -> String {
    s.split('.').rev().collect::<Vec<_>>().join(".")
}

/// The order keys of type `ty` must have for values `a` and `b`.
pub fn typed_cmp(ty: &FieldType, a: &Value, b: &Value) -> Ordering {
    match (ty, a, b) {
        (FieldType::Desc(inner), a, b) => typed_cmp(inner, b, a),
        (FieldType::Rev, Value::Str(x), Value::Str(y)) => reverse_labels(x)
            .as_bytes()
            .cmp(reverse_labels(y).as_bytes()),
        (FieldType::RevStr, Value::Str(x), Value::Str(y)) => {
            let r = |s: &str| s.chars().rev().collect::<String>();
            r(x).as_bytes().cmp(r(y).as_bytes())
        }
        // The value's bytes and then the separator.
        (FieldType::Word { sep }, Value::Str(x), Value::Str(y)) => [x.as_bytes(), &[*sep]]
            .concat()
            .cmp(&[y.as_bytes(), &[*sep]].concat()),
        // Java's layout: two's complement compared as unsigned bytes.
        (FieldType::Java { .. }, Value::I64(x), Value::I64(y)) => (*x as u64).cmp(&(*y as u64)),
        _ if ty.is_descending() => b.total_cmp(a),
        _ => a.total_cmp(b),
    }
}

/// Tuples compared field by field.
pub fn record_cmp(types: &[FieldType], a: &[Value], b: &[Value]) -> Ordering {
    for ((ty, x), y) in types.iter().zip(a).zip(b) {
        match typed_cmp(ty, x, y) {
            Ordering::Equal => {}
            other => return other,
        }
    }
    Ordering::Equal
}
