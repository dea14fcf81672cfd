//! Field types: what one part of a key holds and how many bytes it takes.
//!
//! The byte layout of every type is specified in `docs/design/rowkey.md`; the section names are
//! the type names of the schema syntax.

use std::fmt;

/// Width of the decimal form of `i64::MAX` (`9223372036854775807`): the width of `revtsdec`.
pub const REVTS_DEC_WIDTH: usize = 19;

/// Largest width of a decimal field: `u64::MAX` has 20 digits.
pub const MAX_DEC_WIDTH: u8 = 20;

/// Largest number of salt buckets a one-byte salt can hold.
pub const MAX_SALT_BYTE_BUCKETS: u32 = 256;

/// Largest number of salt buckets a decimal salt can hold.
pub const MAX_SALT_DEC_BUCKETS: u32 = 100_000;

/// The hash function of a hash-prefix field.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HashAlgo {
    /// MD5 (RFC 1321): 16 bytes.
    Md5,
    /// MurmurHash3 x64_128 with seed 0: 16 bytes, in the reference implementation's byte order
    /// (`h1` then `h2`, each little-endian).
    Murmur3,
}

impl HashAlgo {
    /// The full digest's length in bytes: a prefix takes 1 to this many.
    pub fn digest_len(self) -> u8 {
        16
    }

    /// The name used in the schema syntax.
    pub fn name(self) -> &'static str {
        match self {
            HashAlgo::Md5 => "md5",
            HashAlgo::Murmur3 => "murmur3",
        }
    }
}

/// How a salt bucket number is written into the key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum SaltEncoding {
    /// One byte holding the bucket number (at most 256 buckets).
    Byte,
    /// The bucket number in zero-padded decimal, as wide as the largest bucket number
    /// (`N - 1`) is: `salt:16/dec` writes `00` to `15`.
    Decimal,
}

/// The type of a key field: its encoding, its width and the [`Value`](crate::Value) it holds.
///
/// *Value* types hold a value given by the application. *Derived* types ([`FieldType::Hash`],
/// [`FieldType::Salt`]) are computed from other fields of the same key and are never given.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub enum FieldType {
    /// `decN` / `u32decN`: an unsigned integer as exactly `width` zero-padded ASCII digits
    /// (1 to 20). `bits` (8, 16, 32 or 64) bounds the value's type as well; a value with more
    /// digits than `width` or beyond the type is an error. Value: [`Value::U64`](crate::Value::U64).
    Dec {
        /// Number of digits.
        width: u8,
        /// Bits of the integer type the value must fit (64 for plain `decN`).
        bits: u8,
    },
    /// `u8`, `u16`, `u24` .. `u64`: an unsigned integer, big-endian, `bytes` (1 to 8) bytes.
    /// Value: [`Value::U64`](crate::Value::U64).
    Uint {
        /// Width in bytes.
        bytes: u8,
    },
    /// `i8` .. `i64`: a two's-complement signed integer, big-endian, `bytes` (1 to 8) bytes,
    /// with its sign bit flipped so that negative numbers sort first.
    /// Value: [`Value::I64`](crate::Value::I64).
    Int {
        /// Width in bytes.
        bytes: u8,
    },
    /// `f32`: an IEEE-754 single, 4 bytes, order-preserving (sign bit flipped for positive
    /// numbers, all bits flipped for negative ones). Value: [`Value::F32`](crate::Value::F32).
    F32,
    /// `f64`: an IEEE-754 double, 8 bytes, order-preserving like `f32`.
    /// Value: [`Value::F64`](crate::Value::F64).
    F64,
    /// `revts`: a timestamp `ts >= 0` written as `i64::MAX - ts`, 8 bytes big-endian — the
    /// same bytes as Java's `Bytes.toBytes(Long.MAX_VALUE - ts)`; newest sorts first.
    /// Value: [`Value::I64`](crate::Value::I64) (the timestamp, not the difference).
    RevTs,
    /// `revtsdec`: a timestamp `ts >= 0` written as `i64::MAX - ts` in 19 zero-padded decimal
    /// digits, as the articles' string keys do; newest sorts first.
    /// Value: [`Value::I64`](crate::Value::I64).
    RevTsDec,
    /// `strN` / `strN/pad`: a UTF-8 string of at most `width` bytes, padded on the right with
    /// `pad` (default `0x00`). A longer value, or one ending in the pad byte, is an error.
    /// Value: [`Value::Str`](crate::Value::Str).
    FixedStr {
        /// Width in bytes.
        width: usize,
        /// Pad byte.
        pad: u8,
    },
    /// `bytesN` / `bytesN/pad`: like `strN` for arbitrary bytes.
    /// Value: [`Value::Bytes`](crate::Value::Bytes).
    FixedBytes {
        /// Width in bytes.
        width: usize,
        /// Pad byte.
        pad: u8,
    },
    /// `str`: a UTF-8 string of any length, escaped and terminated (`0x00` is written
    /// `0x00 0xFF`, the end `0x00 0x01`) so that it sorts like the string and any field may
    /// follow it. Value: [`Value::Str`](crate::Value::Str).
    Str,
    /// `bytes`: like `str` for arbitrary bytes. Value: [`Value::Bytes`](crate::Value::Bytes).
    Bytes,
    /// `rev`: a dotted name stored with its labels reversed (`www.example.com` is written
    /// `com.example.www`), then escaped and terminated like `str`; a domain's hosts sort
    /// together. Value: [`Value::Str`](crate::Value::Str) (the name as given).
    Rev,
    /// `revint`: an integer `0 <= x <= i32::MAX` written as `i32::MAX - x`, 4 bytes big-endian —
    /// the same bytes as Java's `Bytes.toBytes(Integer.MAX_VALUE - x)`; the largest sorts first.
    /// Value: [`Value::I64`](crate::Value::I64) (`x`, not the difference).
    RevInt,
    /// `jint` / `jlong`: Java's `Bytes.toBytes(int)` / `Bytes.toBytes(long)` — two's complement,
    /// big-endian, 4 or 8 bytes, the sign bit *not* flipped: the layout keys written by Java
    /// programs have. Non-negative values sort in order; every negative value sorts after every
    /// non-negative one (use `i32`/`i64` for keys of new tables).
    /// Value: [`Value::I64`](crate::Value::I64).
    Java {
        /// Width in bytes: 4 (`jint`) or 8 (`jlong`).
        bytes: u8,
    },
    /// `revstr`: a string stored with its characters in reverse order (`user1234` is written
    /// `4321resu`), then escaped and terminated like `str`: keys that differ in their last
    /// characters (sequential ids) spread instead of sorting together, as article 004's
    /// "reverse the user id" does. Value: [`Value::Str`](crate::Value::Str) (as given).
    RevStr,
    /// `word/c`: text that does not contain the ASCII separator `c`, followed by `c` — the
    /// `account_action_time` keys of `_`-joined text. Order: by the bytes of value and separator,
    /// so `a_` sorts after `ab_` when `c` sorts above the value's bytes (as such keys do on
    /// HBase). Value: [`Value::Str`](crate::Value::Str).
    Word {
        /// The separator byte (printable ASCII).
        sep: u8,
    },
    /// `desc(T)`: the value type `T` in descending order — `T`'s encoding with every byte
    /// complemented. Every encoding is prefix-free, so complementing reverses the order of
    /// whole keys (`desc(str)` sorts strings from `z` to `a`; `desc(u32)` is `u32::MAX - x`).
    /// Value: `T`'s.
    Desc(Box<FieldType>),
    /// `md5:k(a,b)` / `murmur3:k(a,b)`: derived — the first `len` bytes (1 to 16) of the hash of
    /// the named fields' encodings, concatenated in the order named; `md5hex:k(a,b)` /
    /// `murmur3hex:k(a,b)`: the first `len` lowercase hex digits (1 to 32) of it instead (article
    /// 004's "first 6 characters of the MD5"). Decodes as [`Value::Bytes`](crate::Value::Bytes).
    Hash {
        /// The hash function.
        algo: HashAlgo,
        /// Prefix length in bytes (or in hex digits with `hex`).
        len: u8,
        /// The value fields hashed, by name.
        inputs: Vec<String>,
        /// Whether the prefix is the digest's hex text instead of its bytes.
        hex: bool,
    },
    /// `salt:N`, `salt:N/dec`, `salt:N(a,b)`: derived — bucket `murmur3_x86_32(seed 0) % N` of
    /// the named fields' encodings (all value fields when none are named), as one byte or in
    /// decimal. Decodes as [`Value::U64`](crate::Value::U64).
    Salt {
        /// Number of buckets (1 to 256 as a byte, 1 to 100 000 in decimal).
        buckets: u32,
        /// How the bucket is written.
        encoding: SaltEncoding,
        /// The value fields hashed, by name; empty for all of them.
        inputs: Vec<String>,
    },
}

impl FieldType {
    /// Whether the field is computed from other fields instead of given.
    pub fn is_derived(&self) -> bool {
        matches!(self, FieldType::Hash { .. } | FieldType::Salt { .. })
    }

    /// Whether the encoding reverses the values' order (reversed timestamps): a range of
    /// values `[a, b]` is the range of keys `[enc(b), enc(a)]`.
    pub fn is_descending(&self) -> bool {
        match self {
            FieldType::RevTs | FieldType::RevTsDec | FieldType::RevInt => true,
            FieldType::Desc(inner) => !inner.is_descending(),
            _ => false,
        }
    }

    /// The encoded width in bytes, or `None` for the variable-length types (`str`, `bytes`,
    /// `rev`).
    pub fn fixed_width(&self) -> Option<usize> {
        match self {
            FieldType::Dec { width, .. } => Some(usize::from(*width)),
            FieldType::Uint { bytes } | FieldType::Int { bytes } => Some(usize::from(*bytes)),
            FieldType::F32 => Some(4),
            FieldType::F64 | FieldType::RevTs => Some(8),
            FieldType::RevInt => Some(4),
            FieldType::Java { bytes } => Some(usize::from(*bytes)),
            FieldType::RevStr | FieldType::Word { .. } => None,
            FieldType::Desc(inner) => inner.fixed_width(),
            FieldType::RevTsDec => Some(REVTS_DEC_WIDTH),
            FieldType::FixedStr { width, .. } | FieldType::FixedBytes { width, .. } => Some(*width),
            FieldType::Str | FieldType::Bytes | FieldType::Rev => None,
            FieldType::Hash { len, .. } => Some(usize::from(*len)),
            FieldType::Salt {
                buckets, encoding, ..
            } => Some(salt_width(*buckets, *encoding)),
        }
    }

    /// The names of the fields a derived field is computed from (empty for value fields, and
    /// for a salt over all value fields).
    pub fn inputs(&self) -> &[String] {
        match self {
            FieldType::Hash { inputs, .. } | FieldType::Salt { inputs, .. } => inputs,
            _ => &[],
        }
    }
}

/// The width of a salt field: 1 byte, or the digits of `buckets - 1`.
pub(crate) fn salt_width(buckets: u32, encoding: SaltEncoding) -> usize {
    match encoding {
        SaltEncoding::Byte => 1,
        SaltEncoding::Decimal => buckets.saturating_sub(1).max(1).to_string().len(),
    }
}

/// Writes the pad byte as the syntax reads it: a printable character, or `0xHH`.
fn fmt_pad(f: &mut fmt::Formatter<'_>, pad: u8) -> fmt::Result {
    if pad == 0 {
        Ok(())
    } else if pad.is_ascii_graphic() && !b",()/:'\"".contains(&pad) {
        write!(f, "/{}", char::from(pad))
    } else {
        write!(f, "/0x{pad:02x}")
    }
}

fn fmt_inputs(f: &mut fmt::Formatter<'_>, inputs: &[String]) -> fmt::Result {
    if inputs.is_empty() {
        Ok(())
    } else {
        write!(f, "({})", inputs.join(","))
    }
}

/// The type as the schema syntax writes it (`u32dec6`, `str8/_`, `md5:2(user)`).
impl fmt::Display for FieldType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            FieldType::Dec { width, bits: 64 } => write!(f, "dec{width}"),
            FieldType::Dec { width, bits } => write!(f, "u{bits}dec{width}"),
            FieldType::Uint { bytes } => write!(f, "u{}", u32::from(*bytes) * 8),
            FieldType::Int { bytes } => write!(f, "i{}", u32::from(*bytes) * 8),
            FieldType::F32 => f.write_str("f32"),
            FieldType::F64 => f.write_str("f64"),
            FieldType::RevTs => f.write_str("revts"),
            FieldType::RevTsDec => f.write_str("revtsdec"),
            FieldType::FixedStr { width, pad } => {
                write!(f, "str{width}")?;
                fmt_pad(f, *pad)
            }
            FieldType::FixedBytes { width, pad } => {
                write!(f, "bytes{width}")?;
                fmt_pad(f, *pad)
            }
            FieldType::Str => f.write_str("str"),
            FieldType::Bytes => f.write_str("bytes"),
            FieldType::Rev => f.write_str("rev"),
            FieldType::RevInt => f.write_str("revint"),
            FieldType::Java { bytes: 4 } => f.write_str("jint"),
            FieldType::Java { .. } => f.write_str("jlong"),
            FieldType::RevStr => f.write_str("revstr"),
            FieldType::Word { sep } => write!(f, "word/{}", char::from(*sep)),
            FieldType::Desc(inner) => write!(f, "desc({inner})"),
            FieldType::Hash {
                algo,
                len,
                inputs,
                hex,
            } => {
                write!(f, "{}{}:{len}", algo.name(), if *hex { "hex" } else { "" })?;
                fmt_inputs(f, inputs)
            }
            FieldType::Salt {
                buckets,
                encoding,
                inputs,
            } => {
                write!(f, "salt:{buckets}")?;
                if *encoding == SaltEncoding::Decimal {
                    f.write_str("/dec")?;
                }
                fmt_inputs(f, inputs)
            }
        }
    }
}

/// One named field of a key schema.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Field {
    /// The field's name: ASCII letters, digits and `_`, not starting with a digit.
    pub name: String,
    /// Its type.
    pub ty: FieldType,
}

impl Field {
    /// A field named `name` of type `ty`.
    pub fn new(name: impl Into<String>, ty: FieldType) -> Field {
        Field {
            name: name.into(),
            ty,
        }
    }
}

/// The field as the schema syntax writes it: `name:type`.
impl fmt::Display for Field {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}", self.name, self.ty)
    }
}
