//! The seed articles' keys, byte for byte (`shared/seeds/`).

use ferrobase_rowkey::{Schema, Value};
use std::ops::Bound;

/// Article 2's file table: (file id, create date, user id) for files 1 to 10.
const FILES: [(u64, u64, u64); 10] = [
    (1, 20120902, 1),
    (2, 20120904, 1),
    (3, 20120906, 1),
    (4, 20120908, 1),
    (5, 20120910, 1),
    (6, 20120912, 2),
    (7, 20120914, 1),
    (8, 20120916, 2),
    (9, 20120918, 3),
    (10, 20120920, 4),
];

fn file_keys(schema: &Schema) -> Vec<(Vec<u8>, u64)> {
    let mut keys: Vec<_> = FILES
        .iter()
        .map(|&(file, date, user)| {
            let key = schema
                .encode(&[user.into(), date.into(), file.into()])
                .unwrap();
            (key, file)
        })
        .collect();
    keys.sort();
    keys
}

#[test]
fn article_2_keys_are_user6_date8_file6() {
    let schema: Schema = "user:u32dec6, date:dec8, file:u32dec6".parse().unwrap();
    let keys = file_keys(&schema);
    let text: Vec<String> = keys
        .iter()
        .map(|(k, _)| String::from_utf8(k.clone()).unwrap())
        .collect();
    // The table as the article prints it, in key order.
    assert_eq!(
        text,
        [
            "00000120120902000001",
            "00000120120904000002",
            "00000120120906000003",
            "00000120120908000004",
            "00000120120910000005",
            "00000120120914000007",
            "00000220120912000006",
            "00000220120916000008",
            "00000320120918000009",
            "00000420120920000010",
        ]
    );
    assert_eq!(
        schema
            .encode(&[1u64.into(), 20120901u64.into(), 7u64.into()])
            .unwrap(),
        b"00000120120901000007"
    );
    assert_eq!(
        schema.format_key(b"00004220120912000007").unwrap(),
        "user=000042 date=20120912 file=000007"
    );
    assert_eq!(
        schema
            .parse_record("user=000042 date=20120912 file=000007")
            .unwrap(),
        vec![Value::U64(42), Value::U64(20120912), Value::U64(7)]
    );
}

#[test]
fn article_2_scan_of_user_1_in_september() {
    let schema: Schema = "user:u32dec6, date:dec8, file:u32dec6".parse().unwrap();
    let keys = file_keys(&schema);
    let files_in = |start: &[u8], stop: &[u8]| -> Vec<u64> {
        keys.iter()
            .filter(|(k, _)| k.as_slice() >= start && k.as_slice() < stop)
            .map(|&(_, f)| f)
            .collect()
    };

    // The article's literal rows: setStartRow(00000120120901), setEndRow(00000120120914).
    let ranges = schema
        .field_ranges(
            &[Value::U64(1)],
            Bound::Included(Value::U64(20120901)),
            Bound::Excluded(Value::U64(20120914)),
        )
        .unwrap();
    assert_eq!(ranges.len(), 1);
    assert_eq!(ranges[0].start, b"00000120120901");
    assert_eq!(ranges[0].stop, b"00000120120914");
    // The stop row is exclusive, so the article's own range misses file 7 (created 20120914),
    // which its expected answer lists.
    assert_eq!(files_in(&ranges[0].start, &ranges[0].stop), [1, 2, 3, 4, 5]);

    // Through the 14th inclusive, the stop row becomes 00000120120915: files 1-5 and 7.
    let ranges = schema
        .field_ranges(
            &[Value::U64(1)],
            Bound::Included(Value::U64(20120901)),
            Bound::Included(Value::U64(20120914)),
        )
        .unwrap();
    assert_eq!(ranges[0].stop, b"00000120120915");
    assert_eq!(
        files_in(&ranges[0].start, &ranges[0].stop),
        [1, 2, 3, 4, 5, 7]
    );

    // All of September.
    let ranges = schema
        .field_ranges(
            &[Value::U64(1)],
            Bound::Included(Value::U64(20120901)),
            Bound::Excluded(Value::U64(20121001)),
        )
        .unwrap();
    assert_eq!(ranges[0].start, b"00000120120901");
    assert_eq!(ranges[0].stop, b"00000120121001");
    assert_eq!(
        files_in(&ranges[0].start, &ranges[0].stop),
        [1, 2, 3, 4, 5, 7]
    );

    // All of user 1's files: start row 000001, stop row 000002 ("uid+1").
    let ranges = schema.prefix_ranges(&[Value::U64(1)]).unwrap();
    assert_eq!(
        (ranges[0].start.as_slice(), ranges[0].stop.as_slice()),
        (&b"000001"[..], &b"000002"[..])
    );
    assert_eq!(
        files_in(&ranges[0].start, &ranges[0].stop),
        [1, 2, 3, 4, 5, 7]
    );
}

#[test]
fn article_1_uid_plus_long_max_minus_timestamp() {
    let schema: Schema = "uid:dec6, ts:revts".parse().unwrap();
    let ts = 1_347_408_000_000i64; // 2012-09-12 00:00 UTC, in milliseconds.
    let key = schema.encode(&[Value::U64(42), Value::I64(ts)]).unwrap();
    // Bytes.toBytes(uid) + Bytes.toBytes(Long.MAX_VALUE - timestamp).
    let mut want = b"000042".to_vec();
    want.extend_from_slice(&(i64::MAX - ts).to_be_bytes());
    assert_eq!(key, want);
    assert_eq!(
        schema.decode(&key).unwrap(),
        vec![Value::U64(42), Value::I64(ts)]
    );
    assert_eq!(
        schema.format_key(&key).unwrap(),
        "uid=000042 ts=1347408000000"
    );

    // Newest first within a user.
    let older = schema
        .encode(&[Value::U64(42), Value::I64(ts - 1)])
        .unwrap();
    assert!(key < older);

    // All of a user's records: Scan.setStartRow(uid), Scan.setStopRow(uid+1).
    let r = &schema.prefix_ranges(&[Value::U64(42)]).unwrap()[0];
    assert_eq!(
        (r.start.as_slice(), r.stop.as_slice()),
        (&b"000042"[..], &b"000043"[..])
    );

    // The decimal form the string-keyed articles write: uid_(Long.MAX_VALUE - time), 19 digits.
    let schema: Schema = "uid:dec6, ts:revtsdec".parse().unwrap();
    let key = schema.encode(&[Value::U64(42), Value::I64(ts)]).unwrap();
    assert_eq!(key, b"0000429223370689446775807");
    assert_eq!(
        format!("{}", i64::MAX - ts),
        String::from_utf8(key[6..].to_vec()).unwrap()
    );
}

#[test]
fn article_5_purchase_records_newest_first_in_a_window() {
    // user_id + (Long.MAX_VALUE - millis) + product_id.
    let schema: Schema = "user:dec8, t:revts, product:dec8".parse().unwrap();
    let rows = [(5u64, 100i64, 1u64), (5, 200, 2), (5, 300, 3), (6, 250, 4)];
    let mut keys: Vec<_> = rows
        .iter()
        .map(|&(u, t, p)| (schema.encode(&[u.into(), t.into(), p.into()]).unwrap(), p))
        .collect();
    keys.sort();
    let products: Vec<u64> = keys.iter().map(|&(_, p)| p).collect();
    assert_eq!(products, [3, 2, 1, 4], "user 5 newest first, then user 6");
    let r = &schema
        .field_ranges(
            &[5u64.into()],
            Bound::Included(150i64.into()),
            Bound::Unbounded,
        )
        .unwrap()[0];
    let window: Vec<u64> = keys
        .iter()
        .filter(|(k, _)| r.contains(k))
        .map(|&(_, p)| p)
        .collect();
    assert_eq!(window, [3, 2]);
}

/// Article 4: the key of a table Java programs write, in Java's own layouts. `Integer.MAX_VALUE
/// - x` (`revint`), `Bytes.toBytes(long)` (`jlong`, negative values included), "the first 6
/// characters of the MD5" of the user id (`md5hex`), the user id reversed (`revstr`).
#[test]
fn article_4_java_layouts_hex_hash_prefix_and_reversed_ids() {
    let schema: Schema = "h:md5hex:6(user), user:revstr, rank:revint, at:jlong"
        .parse()
        .unwrap();
    let key = schema
        .encode(&["user1234".into(), Value::I64(7), Value::I64(-2)])
        .unwrap();
    // md5 of revstr's encoding of "user1234" ("4321resu" escaped and terminated).
    let digest = {
        let mut enc = b"4321resu".to_vec();
        enc.extend_from_slice(&[0x00, 0x01]);
        format!("{:x}", md5_of(&enc))
    };
    let mut want = digest.as_bytes()[..6].to_vec();
    want.extend_from_slice(b"4321resu\x00\x01");
    want.extend_from_slice(&(i32::MAX - 7).to_be_bytes()); // Bytes.toBytes(Integer.MAX_VALUE - 7)
    want.extend_from_slice(&(-2i64).to_be_bytes()); // Bytes.toBytes(-2L)
    assert_eq!(key, want);
    assert_eq!(
        schema.decode(&key).unwrap(),
        vec!["user1234".into(), Value::I64(7), Value::I64(-2)]
    );
    // The larger rank sorts first; a Java long's negative values sort after its positive ones.
    let rank = |r: i64| {
        let s: Schema = "rank:revint".parse().unwrap();
        s.encode(&[Value::I64(r)]).unwrap()
    };
    assert!(rank(9) < rank(7));
    let at = |t: i64| {
        let s: Schema = "at:jlong".parse().unwrap();
        s.encode(&[Value::I64(t)]).unwrap()
    };
    assert!(at(1) < at(2) && at(2) < at(-2));
    let s: Schema = "at:jlong".parse().unwrap();
    let err = s
        .field_ranges(&[], Bound::Included(Value::I64(-5)), Bound::Unbounded)
        .unwrap_err();
    assert!(err.to_string().contains("negative"), "{err}");
}

/// Article 2's second game-log design: `account_action_time` text keys joined by `_`.
#[test]
fn article_2_underscore_joined_text_keys() {
    let schema: Schema = "account:word/_, action:word/_, time:dec14".parse().unwrap();
    let key = schema
        .encode(&["acc42".into(), "login".into(), 20120901083000u64.into()])
        .unwrap();
    assert_eq!(key, b"acc42_login_20120901083000");
    assert_eq!(
        schema.format_key(&key).unwrap(),
        "account=acc42 action=login time=20120901083000"
    );
    // Every login of acc42: one prefix range.
    let ranges = schema
        .prefix_ranges(&["acc42".into(), "login".into()])
        .unwrap();
    assert_eq!(ranges[0].start, b"acc42_login_");
    assert_eq!(ranges[0].stop, b"acc42_login`");
    let bad = schema
        .encode(&["acc_42".into(), "login".into(), 1u64.into()])
        .unwrap_err();
    assert!(bad.to_string().contains("separator"), "{bad}");
}

/// Newest first by any type: `desc(...)` complements the bytes.
#[test]
fn desc_sorts_any_value_type_backwards() {
    let schema: Schema = "name:desc(str), n:desc(u16)".parse().unwrap();
    let k = |s: &str, n: u64| schema.encode(&[s.into(), n.into()]).unwrap();
    assert!(k("b", 1) < k("a", 1));
    assert!(k("ab", 1) < k("a", 1));
    assert!(k("a", 2) < k("a", 1));
    assert_eq!(
        schema.decode(&k("héllo", 7)).unwrap(),
        vec!["héllo".into(), 7u64.into()]
    );
    assert_eq!(schema.to_string(), "name:desc(str), n:desc(u16)");
}

fn md5_of(data: &[u8]) -> u128 {
    // The schema's own 16-byte md5 prefix as the reference: over a fixed-width bytes field,
    // whose encoding is the data itself.
    let s: Schema = format!("h:md5:16(x), x:bytes{}", data.len())
        .parse()
        .unwrap();
    let key = s.encode(&[Value::Bytes(data.to_vec())]).unwrap();
    u128::from_be_bytes(key[..16].try_into().unwrap())
}
