//! The rowkey decoder and parsers never panic: the first byte picks a schema, the rest is a key
//! to decode (and, as text, a record to parse); what decodes re-encodes to the same bytes.
#![no_main]

use ferrobase_rowkey::Schema;

include!("../../crates/rowkey/tests/common/fuzz_schemas.rs");

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let Some((&pick, key)) = data.split_first() else {
        return;
    };
    let schema: Schema = SCHEMAS[usize::from(pick) % SCHEMAS.len()].parse().unwrap();
    if let Ok(values) = schema.decode(key) {
        assert_eq!(schema.encode(&values).unwrap(), key);
    }
    let _ = schema.format_key(key);
    if let Ok(text) = std::str::from_utf8(key) {
        let _ = text.parse::<Schema>();
        let _ = schema.parse_record(text);
    }
});
