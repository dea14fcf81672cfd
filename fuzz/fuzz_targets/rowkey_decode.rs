//! The rowkey decoder and parsers never panic: the first byte picks a schema, the rest is a key
//! to decode (and, as text, a record to parse); what decodes re-encodes to the same bytes.
#![no_main]

use ferrobase_rowkey::Schema;

const SCHEMAS: &[&str] = &[
    "user:u32dec6, date:dec8, file:u32dec6",
    "uid:dec6, ts:revts",
    "uid:u64, ts:revtsdec, x:f32, y:f64",
    "a:i8, b:i24, c:u40, d:i64",
    "s:str, t:bytes, u:rev",
    "s:str8/_, t:bytes3/0xff, u:str",
    "b:salt:7, h:md5:2(u), u:str, v:u8",
    "b:salt:100/dec(u), u:u16, h:murmur3:16(v,u), v:str",
];

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
