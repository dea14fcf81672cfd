/// Schemas covering every field type, for the decoder fuzz test and the `rowkey_decode` fuzz
/// target (which `include!`s this file).
pub const SCHEMAS: &[&str] = &[
    "user:u32dec6, date:dec8, file:u32dec6",
    "uid:dec6, ts:revts",
    "uid:u64, ts:revtsdec, x:f32, y:f64",
    "a:i8, b:i24, c:u40, d:i64",
    "s:str, t:bytes, u:rev",
    "s:str8/_, t:bytes3/0xff, u:str",
    "b:salt:7, h:md5:2(u), u:str, v:u8",
    "b:salt:100/dec(u), u:u16, h:murmur3:16(v,u), v:str",
    "h:md5hex:6(u), u:revstr, a:word/_, t:revint, n:jlong",
    "a:desc(str), b:desc(u16), c:jint, d:desc(revts), e:murmur3hex:3(a)",
];
