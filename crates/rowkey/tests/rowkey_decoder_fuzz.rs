//! Fuzz-style tests: random bytes and random text never panic the decoders and parsers; every
//! fault is an error.

use ferrobase_rowkey::{Schema, Value};
use proptest::prelude::*;

include!("common/fuzz_schemas.rs");

fn schemas() -> Vec<Schema> {
    SCHEMAS.iter().map(|s| s.parse().unwrap()).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 3000, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_bytes_never_panic(bytes in prop::collection::vec(
        prop_oneof![Just(0u8), Just(1u8), Just(0xFFu8), Just(b'0'), any::<u8>()], 0..64)
    ) {
        for schema in schemas() {
            if let Ok(values) = schema.decode(&bytes) {
                // What decodes re-encodes to the same bytes.
                prop_assert_eq!(schema.encode(&values).unwrap(), bytes.clone());
            }
            let _ = schema.format_key(&bytes);
            let _ = schema.unsalted_key(&bytes);
        }
    }

    #[test]
    fn mutated_keys_never_panic(
        which in 0..SCHEMAS.len(),
        seed in any::<u64>(),
        flips in prop::collection::vec((any::<prop::sample::Index>(), any::<u8>()), 0..4),
        cut in any::<prop::sample::Index>(),
    ) {
        let schema = &schemas()[which];
        let values: Vec<Value> = schema
            .value_fields()
            .map(|f| {
                let ty = f.ty.to_string();
                // desc(T) takes T's values.
                let ty = ty
                    .strip_prefix("desc(")
                    .and_then(|t| t.strip_suffix(')'))
                    .unwrap_or(&ty);
                match ty {
                    t if t.starts_with('i') || t == "jint" || t == "jlong" => {
                        Value::I64((seed % 100) as i64 - 50)
                    }
                    "revts" | "revtsdec" | "revint" => Value::I64((seed % 1_000_000) as i64),
                    "f32" => Value::F32(seed as f32),
                    "f64" => Value::F64(seed as f64),
                    "bytes" | "bytes3/0xff" => Value::Bytes(vec![0, (seed % 7) as u8]),
                    "str8/_" => Value::Str(format!("ab{}", seed % 9)),
                    "str" | "rev" | "revstr" => Value::Str(format!("a\0.{}", seed % 9)),
                    "word/_" => Value::Str(format!("w{}", seed % 9)),
                    _ => Value::U64(seed % 100),
                }
            })
            .collect();
        let mut key = schema.encode(&values).unwrap();
        prop_assert_eq!(schema.decode(&key).unwrap(), values);
        for (i, x) in flips {
            if !key.is_empty() {
                let i = i.index(key.len());
                key[i] ^= x;
            }
        }
        let _ = schema.decode(&key);
        key.truncate(cut.index(key.len() + 1));
        let _ = schema.decode(&key);
    }

    #[test]
    fn random_text_never_panics(text in "[a-z0-9:,()/_ =\"\\\\x.-]{0,40}") {
        let _ = text.parse::<Schema>();
        for schema in schemas() {
            let _ = schema.parse_record(&text);
            let _ = schema.parse_prefix(&text);
        }
    }
}

#[test]
fn decode_errors_name_the_field_and_offset() {
    let schema: Schema = "user:u32dec6, date:dec8, file:u32dec6".parse().unwrap();
    let err = schema
        .decode(b"00004220120x12000007")
        .unwrap_err()
        .to_string();
    assert_eq!(
        err,
        "field `date` at offset 11: byte 0x78 is not a decimal digit"
    );
    let err = schema.decode(b"000042201209").unwrap_err().to_string();
    assert_eq!(err, "field `date` at offset 6: needs 8 bytes, 6 left");
    let err = schema
        .decode(b"00004220120912000007!")
        .unwrap_err()
        .to_string();
    assert_eq!(err, "field `` at offset 20: 1 bytes after the last field");
    let schema: Schema = "s:str, n:u8".parse().unwrap();
    let err = schema.decode(b"ab\x00\x02\x07").unwrap_err().to_string();
    assert_eq!(
        err,
        "field `s` at offset 3: 0x00 followed by 0x02, not 0xff or 0x01"
    );
    let schema: Schema = "b:salt:4, n:u8".parse().unwrap();
    let good = schema.encode(&[Value::U64(9)]).unwrap();
    let bad = [good[0] ^ 1, good[1]];
    let err = schema.decode(&bad).unwrap_err().to_string();
    assert!(err.contains("field `b` at offset 0"), "{err}");
}
