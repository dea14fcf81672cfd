//! Rowkey schemas for HBase-style tables: declare a key's fields once, then encode typed
//! records into keys that sort as the records do, decode and pretty-print keys, compute scan
//! ranges, and merge the bucket scans of salted tables.
//!
//! Standalone: no dependency on the engine or a client. The byte layout of every field type is
//! specified in `docs/design/rowkey.md`.
//!
//! # Example
//!
//! Article 2's file table: `userID` (6 digits) + `createTime` (8) + `fileID` (6).
//!
//! ```
//! use ferrobase_rowkey::{Schema, Value};
//! use std::ops::Bound;
//!
//! let schema: Schema = "user:u32dec6, date:dec8, file:u32dec6".parse()?;
//! let key = schema.encode(&[Value::U64(1), Value::U64(20120902), Value::U64(1)])?;
//! assert_eq!(key, b"00000120120902000001");
//! assert_eq!(schema.format_key(&key)?, "user=000001 date=20120902 file=000001");
//! assert_eq!(schema.decode(&key)?, vec![Value::U64(1), Value::U64(20120902), Value::U64(1)]);
//!
//! // All of user 1's files created in September 2012.
//! let ranges = schema.field_ranges(
//!     &[Value::U64(1)],
//!     Bound::Included(Value::U64(20120901)),
//!     Bound::Excluded(Value::U64(20121001)),
//! )?;
//! assert_eq!(ranges[0].start, b"00000120120901");
//! assert_eq!(ranges[0].stop, b"00000120121001");
//! # Ok::<(), ferrobase_rowkey::Error>(())
//! ```
//!
//! # Schema syntax
//!
//! A schema is `name:type` fields separated by commas, in key order:
//! `'user:u32dec6, date:dec8, file:u32dec6'`. Whitespace is free between tokens. The types:
//!
//! | type | bytes | value | encoding |
//! |------|-------|-------|----------|
//! | `decN` | N | [`Value::U64`] | N zero-padded ASCII digits (N = 1..20); more digits is an error |
//! | `u8decN` .. `u64decN` | N | [`Value::U64`] | as `decN`, the value also within u8..u64 |
//! | `u8`, `u16`, `u24` .. `u64` | 1..8 | [`Value::U64`] | big-endian |
//! | `i8`, `i16`, `i24` .. `i64` | 1..8 | [`Value::I64`] | big-endian two's complement, sign bit flipped |
//! | `f32`, `f64` | 4, 8 | [`Value::F32`], [`Value::F64`] | IEEE bits; positive: sign bit flipped, negative: all bits flipped |
//! | `revts` | 8 | [`Value::I64`] (ts ≥ 0) | `i64::MAX - ts` big-endian (Java's `Bytes.toBytes(Long.MAX_VALUE - ts)`) |
//! | `revtsdec` | 19 | [`Value::I64`] (ts ≥ 0) | `i64::MAX - ts` as 19 zero-padded digits |
//! | `strN`, `strN/p` | N | [`Value::Str`] | UTF-8, right-padded with pad `p` (a character or `0xHH`; default `0x00`) |
//! | `bytesN`, `bytesN/p` | N | [`Value::Bytes`] | as `strN` |
//! | `str` | any | [`Value::Str`] | `0x00` → `0x00 0xFF`, then terminator `0x00 0x01` |
//! | `bytes` | any | [`Value::Bytes`] | as `str` |
//! | `rev` | any | [`Value::Str`] | labels reversed (`www.example.com` → `com.example.www`), then as `str` |
//! | `revint` | 4 | [`Value::I64`] (0..=i32::MAX) | `i32::MAX - x` big-endian (Java's `Bytes.toBytes(Integer.MAX_VALUE - x)`) |
//! | `jint`, `jlong` | 4, 8 | [`Value::I64`] | Java's `Bytes.toBytes(int/long)`: two's complement, sign bit *not* flipped (negatives sort last) |
//! | `revstr` | any | [`Value::Str`] | characters reversed (`user1234` → `4321resu`), then as `str` |
//! | `word/c` | len + 1 | [`Value::Str`] (without `c`) | the text, then the separator `c` (`_`-joined text keys) |
//! | `desc(T)` | T's | T's value | T's encoding, every byte complemented: T's order reversed |
//! | `md5:K(a,b)` | K | derived | first K (1..16) bytes of MD5 of fields a, b's encodings |
//! | `md5hex:K(a,b)`, `murmur3hex:K(a,b)` | K | derived | first K (1..32) lowercase hex digits of the digest |
//! | `murmur3:K(a,b)` | K | derived | first K (1..16) bytes of MurmurHash3 x64_128 (seed 0) |
//! | `salt:N`, `salt:N/dec`, `salt:N(a,b)` | 1 or digits(N-1) | derived | `murmur3_x86_32(fields, seed 0) % N`, one byte or zero-padded decimal; all value fields when none named |
//!
//! *Derived* fields (hash prefixes and salts) are computed from the value fields they name,
//! wherever they stand; the application gives only the value fields.
//!
//! # Order
//!
//! For every value type, comparing encodings as bytes compares the values (floats as
//! `total_cmp`; `strN` when values hold no byte below the pad byte; `revts`/`revtsdec`
//! reversed: newest first). Every encoding is prefix-free, so a key of several fields sorts
//! by its first field, then its second, and so on — and the keys with given leading fields
//! are one range ([`Schema::prefix_ranges`], [`Schema::field_ranges`]). A salt or hash prefix
//! in front breaks that order on purpose; [`Schema::scatter_merge`] restores it from the
//! bucket ranges' scans.

#![warn(missing_docs)]
#![forbid(unsafe_code)]

mod decode;
mod encode;
mod error;
mod field;
mod hash;
mod range;
mod scatter;
mod schema;
mod syntax;
mod text;
mod value;

pub use decode::DecodedField;
pub use error::{Error, Result};
pub use field::{
    Field, FieldType, HashAlgo, SaltEncoding, MAX_DEC_WIDTH, MAX_SALT_BYTE_BUCKETS,
    MAX_SALT_DEC_BUCKETS, REVTS_DEC_WIDTH,
};
pub use range::{prefix_successor, ScanRange, MAX_BUCKET_RANGES};
pub use scatter::{merge_ordered, MergeOrdered, OrderKey};
pub use schema::{Schema, MAX_FIXED_WIDTH};
pub use value::Value;
