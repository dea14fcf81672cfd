//! Property tests: encodings sort as the typed values do, for every field type and for
//! records of several fields, and decode to what was encoded.

mod common;

use common::{record_cmp, typed_cmp, value_of, value_type};
use ferrobase_rowkey::{Field, FieldType, Schema, Value};
use proptest::prelude::*;

fn schema_of(types: &[FieldType]) -> Schema {
    Schema::new(
        types
            .iter()
            .enumerate()
            .map(|(i, t)| Field::new(format!("f{i}"), t.clone()))
            .collect(),
    )
    .expect("valid schema")
}

/// A type and two values of it.
fn type_and_two_values() -> impl Strategy<Value = (FieldType, Value, Value)> {
    value_type().prop_flat_map(|ty| {
        let (a, b) = (value_of(&ty), value_of(&ty));
        (Just(ty), a, b)
    })
}

/// Two to four types and two records of them.
fn types_and_two_records() -> impl Strategy<Value = (Vec<FieldType>, Vec<Value>, Vec<Value>)> {
    prop::collection::vec(value_type(), 1..=4).prop_flat_map(|types| {
        let rec = || types.iter().map(value_of).collect::<Vec<_>>();
        (Just(types.clone()), rec(), rec())
    })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 2000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn one_field_order_and_round_trip((ty, a, b) in type_and_two_values()) {
        let schema = schema_of(std::slice::from_ref(&ty));
        let ka = schema.encode(std::slice::from_ref(&a)).unwrap();
        let kb = schema.encode(std::slice::from_ref(&b)).unwrap();
        prop_assert_eq!(ka.cmp(&kb), typed_cmp(&ty, &a, &b), "{} {:?} {:?}", ty, a, b);
        prop_assert_eq!(schema.decode(&ka).unwrap(), vec![a.clone()]);
        if let Some(w) = ty.fixed_width() {
            prop_assert_eq!(ka.len(), w);
        }
        // The text form reads back (floats' NaN payloads aside).
        let text = schema.format_key(&ka).unwrap();
        let parsed = schema.parse_record(&text).unwrap();
        let nan = matches!(a, Value::F32(x) if x.is_nan()) || matches!(a, Value::F64(x) if x.is_nan());
        if !nan {
            prop_assert_eq!(parsed, vec![a], "{}", text);
        }
    }

    #[test]
    fn records_order_and_round_trip((types, a, b) in types_and_two_records()) {
        let schema = schema_of(&types);
        let ka = schema.encode(&a).unwrap();
        let kb = schema.encode(&b).unwrap();
        prop_assert_eq!(ka.cmp(&kb), record_cmp(&types, &a, &b), "{}", schema);
        prop_assert_eq!(schema.decode(&ka).unwrap(), a);
        prop_assert_eq!(schema.decode(&kb).unwrap(), b);
    }
}

#[test]
fn values_that_do_not_fit_are_errors_naming_the_field() {
    let schema: Schema = "id:dec6, n:i8, name:str4/_, ts:revts".parse().unwrap();
    let ok = |id: u64, n: i64, name: &str, ts: i64| {
        schema.encode(&[id.into(), n.into(), name.into(), ts.into()])
    };
    assert!(ok(999_999, 127, "abcd", 0).is_ok());
    let err = ok(1_000_000, 0, "", 0).unwrap_err().to_string();
    assert!(err.contains("`id`") && err.contains("1000000"), "{err}");
    assert!(ok(1, 128, "", 0).unwrap_err().to_string().contains("`n`"));
    assert!(ok(1, -129, "", 0).is_err());
    assert!(ok(1, 0, "abcde", 0)
        .unwrap_err()
        .to_string()
        .contains("`name`"));
    assert!(ok(1, 0, "ab_", 0).unwrap_err().to_string().contains("pad"));
    assert!(ok(1, 0, "", -1).unwrap_err().to_string().contains("`ts`"));
    let wrong = schema.encode(&["x".into(), 0i64.into(), "".into(), 0i64.into()]);
    assert!(wrong.unwrap_err().to_string().contains("`id`"));
    assert!(schema.encode(&[1u64.into()]).is_err());
}

#[test]
fn signed_integers_flip_the_sign_bit() {
    let schema: Schema = "a:i16".parse().unwrap();
    assert_eq!(schema.encode(&[Value::I64(-32768)]).unwrap(), [0x00, 0x00]);
    assert_eq!(schema.encode(&[Value::I64(-1)]).unwrap(), [0x7F, 0xFF]);
    assert_eq!(schema.encode(&[Value::I64(0)]).unwrap(), [0x80, 0x00]);
    assert_eq!(schema.encode(&[Value::I64(32767)]).unwrap(), [0xFF, 0xFF]);
    let schema: Schema = "a:u24".parse().unwrap();
    assert_eq!(schema.encode(&[Value::U64(0x010203)]).unwrap(), [1, 2, 3]);
    assert!(schema.encode(&[Value::U64(1 << 24)]).is_err());
}

#[test]
fn floats_sort_negative_before_positive() {
    let schema: Schema = "x:f64".parse().unwrap();
    let enc = |x: f64| schema.encode(&[Value::F64(x)]).unwrap();
    assert!(enc(f64::NEG_INFINITY) < enc(-1.5));
    assert!(enc(-1.5) < enc(-0.0));
    assert!(enc(-0.0) < enc(0.0));
    assert!(enc(0.0) < enc(1e-300));
    assert!(enc(1e300) < enc(f64::INFINITY));
    assert_eq!(enc(0.0), [0x80, 0, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn variable_strings_escape_zero_and_terminate() {
    let schema: Schema = "s:bytes, t:u8".parse().unwrap();
    let key = schema
        .encode(&[Value::Bytes(vec![b'a', 0, b'b']), Value::U64(7)])
        .unwrap();
    assert_eq!(key, [b'a', 0x00, 0xFF, b'b', 0x00, 0x01, 7]);
    let schema: Schema = "host:rev, path:str".parse().unwrap();
    let key = schema
        .encode(&["www.example.com".into(), "/a".into()])
        .unwrap();
    assert_eq!(key, b"com.example.www\x00\x01/a\x00\x01");
    assert_eq!(
        schema.format_key(&key).unwrap(),
        "host=www.example.com path=/a"
    );
}
