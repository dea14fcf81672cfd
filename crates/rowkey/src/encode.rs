//! Encoding typed values into key bytes (layouts: `docs/design/rowkey.md`).

use crate::error::{Error, Result};
use crate::field::{salt_width, Field, FieldType, SaltEncoding};
use crate::hash;
use crate::schema::{Schema, Slot};
use crate::value::Value;

/// In a variable-length field, the escape byte; `0x00` is written `ESCAPE ESCAPED_ZERO`.
pub(crate) const ESCAPE: u8 = 0x00;
/// What follows [`ESCAPE`] for a literal `0x00`.
pub(crate) const ESCAPED_ZERO: u8 = 0xFF;
/// What follows [`ESCAPE`] at the end of a variable-length field.
pub(crate) const TERMINATOR: u8 = 0x01;

impl Schema {
    /// Encodes one value per value field (in schema order) into a key, computing the derived
    /// fields.
    ///
    /// Errors: [`Error::Arity`] for the wrong number of values, [`Error::Value`] for a value of
    /// the wrong type or one that does not fit its field.
    pub fn encode(&self, values: &[Value]) -> Result<Vec<u8>> {
        if values.len() != self.value_count() {
            return Err(Error::Arity {
                expected: self.value_count(),
                got: values.len(),
            });
        }
        let parts = self.encode_values(values)?;
        let mut key = Vec::new();
        for (field, slot) in self.fields.iter().zip(&self.slots) {
            match slot {
                Slot::Value(j) => key.extend_from_slice(&parts[*j]),
                Slot::Derived(inputs) => {
                    key.extend_from_slice(&derive(&field.ty, inputs, &parts));
                }
            }
        }
        Ok(key)
    }

    /// Encodes each given value (a prefix of the value fields) on its own.
    pub(crate) fn encode_values(&self, values: &[Value]) -> Result<Vec<Vec<u8>>> {
        values
            .iter()
            .zip(self.value_fields())
            .map(|(v, f)| {
                let mut out = Vec::new();
                encode_value(f, v, &mut out)?;
                Ok(out)
            })
            .collect()
    }
}

/// The bytes of a derived field of type `ty` over the encoded value fields `parts`, of which
/// `inputs` are hashed in that order. Every index in `inputs` must be in `parts`.
pub(crate) fn derive(ty: &FieldType, inputs: &[usize], parts: &[Vec<u8>]) -> Vec<u8> {
    let data: Vec<u8> = inputs
        .iter()
        .filter_map(|&j| parts.get(j))
        .flatten()
        .copied()
        .collect();
    match ty {
        FieldType::Hash { algo, len, hex, .. } => {
            let digest = hash::digest(*algo, &data);
            if *hex {
                let text: String = digest.iter().map(|b| format!("{b:02x}")).collect();
                text.as_bytes()[..usize::from(*len)].to_vec()
            } else {
                digest[..usize::from(*len)].to_vec()
            }
        }
        FieldType::Salt {
            buckets, encoding, ..
        } => salt_bytes(hash::salt_bucket(&data, *buckets), *buckets, *encoding),
        _ => Vec::new(),
    }
}

/// The bytes of salt bucket `bucket`.
pub(crate) fn salt_bytes(bucket: u32, buckets: u32, encoding: SaltEncoding) -> Vec<u8> {
    match encoding {
        SaltEncoding::Byte => vec![u8::try_from(bucket).unwrap_or(u8::MAX)],
        SaltEncoding::Decimal => {
            format!("{bucket:0w$}", w = salt_width(buckets, encoding)).into_bytes()
        }
    }
}

fn wrong_type(field: &Field, want: &str, v: &Value) -> Error {
    Error::value(
        &field.name,
        format!("type {} wants {want}, got {}", field.ty, v.kind()),
    )
}

/// Appends the encoding of `v` as a value of `field` to `out`.
pub(crate) fn encode_value(field: &Field, v: &Value, out: &mut Vec<u8>) -> Result<()> {
    let name = &field.name;
    match (&field.ty, v) {
        (FieldType::Dec { width, bits }, Value::U64(n)) => {
            let max_digits = 10u64
                .checked_pow(u32::from(*width))
                .map_or(u64::MAX, |p| p - 1);
            let max = max_digits.min(u64::MAX >> (64 - u32::from(*bits)));
            if *n > max {
                return Err(Error::value(
                    name,
                    format!("{n} does not fit {} (largest {max})", field.ty),
                ));
            }
            out.extend_from_slice(format!("{n:0w$}", w = usize::from(*width)).as_bytes());
        }
        (FieldType::Uint { bytes }, Value::U64(n)) => {
            let b = usize::from(*bytes);
            if b < 8 && *n >> (8 * b) != 0 {
                return Err(Error::value(name, format!("{n} does not fit {b} bytes")));
            }
            out.extend_from_slice(&n.to_be_bytes()[8 - b..]);
        }
        (FieldType::Int { bytes }, Value::I64(n)) => {
            let b = usize::from(*bytes);
            let bits = 8 * b as u32;
            let (lo, hi) = (i64::MIN >> (64 - bits), i64::MAX >> (64 - bits));
            if *n < lo || *n > hi {
                return Err(Error::value(
                    name,
                    format!("{n} does not fit {b} bytes ({lo} to {hi})"),
                ));
            }
            let flipped = (*n as u64) ^ (1u64 << (bits - 1));
            out.extend_from_slice(&flipped.to_be_bytes()[8 - b..]);
        }
        (FieldType::F32, Value::F32(x)) => {
            let bits = x.to_bits();
            let enc = if bits >> 31 == 1 {
                !bits
            } else {
                bits ^ (1 << 31)
            };
            out.extend_from_slice(&enc.to_be_bytes());
        }
        (FieldType::F64, Value::F64(x)) => {
            let bits = x.to_bits();
            let enc = if bits >> 63 == 1 {
                !bits
            } else {
                bits ^ (1 << 63)
            };
            out.extend_from_slice(&enc.to_be_bytes());
        }
        (FieldType::RevTs, Value::I64(ts)) => {
            out.extend_from_slice(&(i64::MAX - check_ts(name, *ts)?).to_be_bytes());
        }
        (FieldType::RevTsDec, Value::I64(ts)) => {
            let rev = i64::MAX - check_ts(name, *ts)?;
            out.extend_from_slice(format!("{rev:019}").as_bytes());
        }
        (FieldType::FixedStr { width, pad }, Value::Str(s)) => {
            encode_padded(name, s.as_bytes(), *width, *pad, out)?;
        }
        (FieldType::FixedBytes { width, pad }, Value::Bytes(b)) => {
            encode_padded(name, b, *width, *pad, out)?;
        }
        (FieldType::Str, Value::Str(s)) => encode_escaped(s.as_bytes(), out),
        (FieldType::Bytes, Value::Bytes(b)) => encode_escaped(b, out),
        (FieldType::Rev, Value::Str(s)) => encode_escaped(reverse_labels(s).as_bytes(), out),
        (FieldType::RevInt, Value::I64(x)) => {
            if !(0..=i64::from(i32::MAX)).contains(x) {
                return Err(Error::value(
                    name,
                    format!("{x} is not 0 to {} (revint writes i32::MAX - x)", i32::MAX),
                ));
            }
            out.extend_from_slice(&(i32::MAX - *x as i32).to_be_bytes());
        }
        (FieldType::Java { bytes: 4 }, Value::I64(x)) => {
            let x = i32::try_from(*x)
                .map_err(|_| Error::value(name, format!("{x} does not fit jint (a Java int)")))?;
            out.extend_from_slice(&x.to_be_bytes());
        }
        (FieldType::Java { .. }, Value::I64(x)) => out.extend_from_slice(&x.to_be_bytes()),
        (FieldType::RevStr, Value::Str(s)) => encode_escaped(reverse_chars(s).as_bytes(), out),
        (FieldType::Word { sep }, Value::Str(s)) => {
            if s.as_bytes().contains(sep) {
                return Err(Error::value(
                    name,
                    format!(
                        "{s:?} contains the separator {:?} of its word field",
                        char::from(*sep)
                    ),
                ));
            }
            out.extend_from_slice(s.as_bytes());
            out.push(*sep);
        }
        (FieldType::Desc(inner), v) => {
            let start = out.len();
            encode_value(&Field::new(name.clone(), (**inner).clone()), v, out)?;
            for b in &mut out[start..] {
                *b = !*b;
            }
        }
        (FieldType::Dec { .. } | FieldType::Uint { .. }, _) => {
            return Err(wrong_type(field, "an unsigned integer", v))
        }
        (FieldType::Int { .. } | FieldType::Java { .. }, _) => {
            return Err(wrong_type(field, "a signed integer", v))
        }
        (FieldType::RevInt, _) => return Err(wrong_type(field, "an integer (i64)", v)),
        (FieldType::RevTs | FieldType::RevTsDec, _) => {
            return Err(wrong_type(field, "a timestamp (i64)", v))
        }
        (FieldType::F32, _) => return Err(wrong_type(field, "an f32", v)),
        (FieldType::F64, _) => return Err(wrong_type(field, "an f64", v)),
        (
            FieldType::FixedStr { .. }
            | FieldType::Str
            | FieldType::Rev
            | FieldType::RevStr
            | FieldType::Word { .. },
            _,
        ) => return Err(wrong_type(field, "a string", v)),
        (FieldType::FixedBytes { .. } | FieldType::Bytes, _) => {
            return Err(wrong_type(field, "bytes", v))
        }
        (FieldType::Hash { .. } | FieldType::Salt { .. }, _) => {
            return Err(Error::value(name, "a derived field takes no value"))
        }
    }
    Ok(())
}

fn check_ts(name: &str, ts: i64) -> Result<i64> {
    if ts < 0 {
        Err(Error::value(
            name,
            format!("timestamp {ts} is negative; reversed timestamps need ts >= 0"),
        ))
    } else {
        Ok(ts)
    }
}

fn encode_padded(name: &str, b: &[u8], width: usize, pad: u8, out: &mut Vec<u8>) -> Result<()> {
    if b.len() > width {
        return Err(Error::value(
            name,
            format!("{} bytes do not fit width {width}", b.len()),
        ));
    }
    if b.last() == Some(&pad) {
        return Err(Error::value(
            name,
            format!("value ends with the pad byte 0x{pad:02x} and would not decode to itself"),
        ));
    }
    out.extend_from_slice(b);
    out.resize(out.len() + width - b.len(), pad);
    Ok(())
}

/// Escapes `0x00` as `0x00 0xFF` and terminates with `0x00 0x01`.
fn encode_escaped(b: &[u8], out: &mut Vec<u8>) {
    for &x in b {
        out.push(x);
        if x == ESCAPE {
            out.push(ESCAPED_ZERO);
        }
    }
    out.extend_from_slice(&[ESCAPE, TERMINATOR]);
}

/// `user1234` -> `4321resu`, by characters (its own inverse).
pub(crate) fn reverse_chars(s: &str) -> String {
    s.chars().rev().collect()
}

/// `www.example.com` -> `com.example.www` (its own inverse).
pub(crate) fn reverse_labels(s: &str) -> String {
    s.split('.').rev().collect::<Vec<_>>().join(".")
}
