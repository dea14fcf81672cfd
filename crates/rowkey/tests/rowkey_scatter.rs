//! Property tests: a salted table's bucket scans merged by `scatter_merge` give the rows an
//! unsalted table's scan would, in the same order, with a limit.

use ferrobase_rowkey::{merge_ordered, ScanRange, Schema, Value};
use proptest::prelude::*;
use std::collections::BTreeMap;

/// Rows of the "table": key -> value, in key order, as a scan returns them.
fn scan(table: &BTreeMap<Vec<u8>, u32>, range: &ScanRange) -> Vec<(Vec<u8>, u32)> {
    table
        .iter()
        .filter(|(k, _)| range.contains(k))
        .map(|(k, v)| (k.clone(), *v))
        .collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 500, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn scatter_merge_equals_the_unsalted_sort(
        salt in prop::sample::select(vec!["b:salt:5", "b:salt:16/dec", "h:md5:1(user,ts)", "b:salt:3(ts)"]),
        rows in prop::collection::btree_set((0u64..4, 0i64..50, 0u64..3), 0..60),
        prefix_user in prop::option::of(0u64..4),
        limit in prop::option::of(0usize..30),
    ) {
        let tail = "user:u16, ts:revts, seq:u8";
        let salted: Schema = format!("{salt}, {tail}").parse().unwrap();
        let plain: Schema = tail.parse().unwrap();
        let mut table = BTreeMap::new();
        let mut expected = Vec::new();
        for (i, &(user, ts, seq)) in rows.iter().enumerate() {
            if prefix_user.is_some_and(|u| u != user) {
                table.insert(salted.encode(&[user.into(), ts.into(), seq.into()]).unwrap(), i as u32);
                continue;
            }
            let values = [Value::from(user), ts.into(), seq.into()];
            table.insert(salted.encode(&values).unwrap(), i as u32);
            expected.push((plain.encode(&values).unwrap(), i as u32));
        }
        expected.sort();
        if let Some(n) = limit {
            expected.truncate(n);
        }
        let prefix: Vec<Value> = prefix_user.map(Value::from).into_iter().collect();
        let ranges = salted.prefix_ranges(&prefix).unwrap();
        let streams = ranges.iter().map(|r| scan(&table, r).into_iter());
        let merged: Vec<(Vec<u8>, u32)> = salted
            .scatter_merge(streams, limit)
            .map(|(k, v)| (salted.unsalted_key(&k).unwrap(), v))
            .collect();
        prop_assert_eq!(merged, expected);
    }
}

#[test]
fn merge_ordered_is_lazy_stable_and_limited() {
    let a = vec![(1, 'a'), (3, 'a'), (5, 'a')];
    let b = vec![(1, 'b'), (2, 'b'), (6, 'b')];
    let merged: Vec<_> = merge_ordered(
        [a.clone().into_iter(), b.clone().into_iter()],
        |x| x.0,
        None,
    )
    .collect();
    assert_eq!(
        merged,
        [(1, 'a'), (1, 'b'), (2, 'b'), (3, 'a'), (5, 'a'), (6, 'b')]
    );
    let limited: Vec<_> = merge_ordered([a.into_iter(), b.into_iter()], |x| x.0, Some(2)).collect();
    assert_eq!(limited, [(1, 'a'), (1, 'b')]);

    // With a limit the streams are read no further than needed.
    let pulled = std::cell::Cell::new(0);
    let counting = (0..1000).inspect(|_| pulled.set(pulled.get() + 1));
    let first: Vec<_> = merge_ordered([counting], |x: &i32| *x, Some(3)).collect();
    assert_eq!(first, [0, 1, 2]);
    assert_eq!(pulled.get(), 3);
}

#[test]
fn undecodable_keys_merge_last() {
    let schema: Schema = "b:salt:2, id:u8".parse().unwrap();
    let k = |id: u8| schema.encode(&[Value::U64(u64::from(id))]).unwrap();
    let bucket = |key: &Vec<u8>| key[0];
    let mut keys = [k(3), k(1), k(2), vec![9, 9, 9]];
    keys.sort();
    let streams: Vec<Vec<(Vec<u8>, ())>> = (0..2)
        .map(|b| {
            keys.iter()
                .filter(|k| bucket(k) == b)
                .map(|k| (k.clone(), ()))
                .collect()
        })
        .chain([vec![(vec![9, 9, 9], ())]])
        .collect();
    let merged: Vec<Vec<u8>> = schema
        .scatter_merge(streams.into_iter().map(Vec::into_iter), None)
        .map(|(k, _)| k)
        .collect();
    assert_eq!(merged, [k(1), k(2), k(3), vec![9, 9, 9]]);
}
