//! Property tests: prefix ranges and field ranges hold exactly the keys they should, for plain,
//! salted and hashed schemas and for reversed timestamps.

mod common;

use common::typed_cmp;
use ferrobase_rowkey::{ScanRange, Schema, Value};
use proptest::prelude::*;
use std::cmp::Ordering;
use std::ops::Bound;

/// Schemas whose value fields are `user` (small), `ts` and `seq`, with and without derived
/// fields in front, in the middle or at the end.
const SCHEMAS: &[&str] = &[
    "user:u32dec6, ts:dec8, seq:u8",
    "user:u16, ts:revts, seq:u8",
    "user:str, ts:revtsdec, seq:i8",
    "user:u16, ts:f64, seq:str",
    "b:salt:4, user:u16, ts:revts, seq:u8",
    "b:salt:12/dec(user), user:str4, ts:i32, seq:u8",
    "h:md5:1(user), user:u16, ts:revts, seq:u8",
    "h:murmur3:2(user,ts), user:rev, ts:revts, seq:u8",
    "user:u16, b:salt:3(ts), ts:revts, seq:u8",
];

/// Small pools of values per type, so that prefixes repeat.
fn pool(field_type: &str) -> Vec<Value> {
    match field_type {
        "u32dec6" | "dec8" | "u8" | "u16" => (0..4u64).map(Value::U64).collect(),
        "i32" => [-5i64, 0, 1, 70_000].into_iter().map(Value::I64).collect(),
        "revts" | "revtsdec" => [0i64, 1, 1_347_408_000_000, 1_347_408_000_001]
            .into_iter()
            .map(Value::I64)
            .collect(),
        "i8" => [-2i64, -1, 0, 5].into_iter().map(Value::I64).collect(),
        "f64" => [-1.5f64, -0.0, 0.0, 2.0]
            .into_iter()
            .map(Value::F64)
            .collect(),
        "str4" => ["", "a", "ab", "b"].into_iter().map(Value::from).collect(),
        "rev" => ["a.b", "b.a", "a", "x.b"]
            .into_iter()
            .map(Value::from)
            .collect(),
        _ => ["", "a", "a\0", "b"].into_iter().map(Value::from).collect(),
    }
}

fn pools(schema: &Schema) -> Vec<Vec<Value>> {
    schema
        .value_fields()
        .map(|f| pool(&f.ty.to_string()))
        .collect()
}

/// A schema, some records of it, and a prefix length and a record to take the prefix from.
fn case() -> impl Strategy<Value = (Schema, Vec<Vec<Value>>, usize, Vec<Value>)> {
    prop::sample::select(SCHEMAS).prop_flat_map(|text| {
        let schema: Schema = text.parse().unwrap();
        let pools = pools(&schema);
        let rec = pools
            .iter()
            .map(|p| prop::sample::select(p.clone()))
            .collect::<Vec<_>>();
        let n = schema.value_count();
        (
            Just(schema),
            prop::collection::vec(rec.clone(), 0..40),
            0..=n,
            rec,
        )
    })
}

fn in_ranges(ranges: &[ScanRange], key: &[u8]) -> bool {
    ranges.iter().any(|r| r.contains(key))
}

fn bound_of(b: u8, v: Value) -> Bound<Value> {
    match b % 3 {
        0 => Bound::Included(v),
        1 => Bound::Excluded(v),
        _ => Bound::Unbounded,
    }
}

fn within(
    ty: &ferrobase_rowkey::FieldType,
    v: &Value,
    lo: &Bound<Value>,
    hi: &Bound<Value>,
) -> bool {
    // Bounds are on typed values; descending types compare as values too.
    let cmp = |a: &Value, b: &Value| {
        if ty.is_descending() {
            typed_cmp(ty, b, a)
        } else {
            typed_cmp(ty, a, b)
        }
    };
    let above = match lo {
        Bound::Included(l) => cmp(v, l) != Ordering::Less,
        Bound::Excluded(l) => cmp(v, l) == Ordering::Greater,
        Bound::Unbounded => true,
    };
    let below = match hi {
        Bound::Included(h) => cmp(v, h) != Ordering::Greater,
        Bound::Excluded(h) => cmp(v, h) == Ordering::Less,
        Bound::Unbounded => true,
    };
    above && below
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 1000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn prefix_ranges_hold_exactly_the_matching_keys((schema, records, m, probe) in case()) {
        let ranges = schema.prefix_ranges(&probe[..m]).unwrap();
        for r in &records {
            let key = schema.encode(r).unwrap();
            prop_assert_eq!(in_ranges(&ranges, &key), r[..m] == probe[..m], "{} {:?}", schema, r);
        }
        // Ranges are disjoint and in order.
        for w in ranges.windows(2) {
            prop_assert!(!w[0].stop.is_empty() && w[0].stop <= w[1].start);
        }
    }

    #[test]
    fn field_ranges_hold_exactly_the_keys_in_bounds(
        (schema, records, m, probe) in case(),
        other in prop::collection::vec(any::<prop::sample::Index>(), 1),
        (lb, hb) in (any::<u8>(), any::<u8>()),
    ) {
        let m = m.min(schema.value_count() - 1);
        let pools = pools(&schema);
        let lo = bound_of(lb, probe[m].clone());
        let hi = bound_of(hb, other[0].get(&pools[m]).clone());
        let field = schema.value_fields().nth(m).unwrap().clone();
        let ranges = schema.field_ranges(&probe[..m], lo.clone(), hi.clone()).unwrap();
        for r in &records {
            let key = schema.encode(r).unwrap();
            let want = r[..m] == probe[..m] && within(&field.ty, &r[m], &lo, &hi);
            prop_assert_eq!(in_ranges(&ranges, &key), want, "{} {:?} {:?}..{:?}", schema, r, lo, hi);
        }
    }
}

#[test]
fn reversed_timestamp_ranges_flip() {
    let schema: Schema = "uid:dec4, ts:revts".parse().unwrap();
    let (t1, t2) = (1_000i64, 2_000i64);
    let ranges = schema
        .field_ranges(
            &[Value::U64(42)],
            Bound::Included(t1.into()),
            Bound::Included(t2.into()),
        )
        .unwrap();
    let rev = |t: i64| [b"0042".as_slice(), &(i64::MAX - t).to_be_bytes()].concat();
    assert_eq!(ranges.len(), 1);
    // Newest (t2) first: the range starts at MAX - t2 and ends just past MAX - t1.
    assert_eq!(ranges[0].start, rev(t2));
    assert_eq!(ranges[0].stop, rev(t1 - 1));
    for t in [999, 1_000, 1_500, 2_000, 2_001] {
        let key = schema.encode(&[Value::U64(42), Value::I64(t)]).unwrap();
        assert_eq!(ranges[0].contains(&key), (t1..=t2).contains(&t), "{t}");
    }
}

#[test]
fn salted_prefix_gives_one_range_per_bucket() {
    let schema: Schema = "b:salt:4, user:u16, ts:revts".parse().unwrap();
    let ranges = schema.prefix_ranges(&[Value::U64(7)]).unwrap();
    assert_eq!(ranges.len(), 4);
    for (b, r) in ranges.iter().enumerate() {
        assert_eq!(r.start, [b as u8, 0, 7]);
        assert_eq!(r.stop, [b as u8, 0, 8]);
    }
    // A salt over the given field is computed: one range.
    let schema: Schema = "b:salt:4(user), user:u16, ts:revts".parse().unwrap();
    assert_eq!(schema.prefix_ranges(&[Value::U64(7)]).unwrap().len(), 1);
    // Wide hash prefixes over fields not given cannot be enumerated.
    let schema: Schema = "h:md5:4(user), user:u16".parse().unwrap();
    assert!(schema.prefix_ranges(&[]).is_err());
    assert_eq!(schema.prefix_ranges(&[Value::U64(1)]).unwrap().len(), 1);
}
