//! Decoding key bytes back into typed values. Never panics: every read is bounds-checked and
//! every fault is an [`Error::Decode`] naming the field and the offset.

#![deny(clippy::indexing_slicing)]

use crate::encode::{derive, reverse_chars, reverse_labels, ESCAPE, ESCAPED_ZERO, TERMINATOR};
use crate::error::{Error, Result};
use crate::field::{FieldType, SaltEncoding};
use crate::schema::{Schema, Slot};
use crate::value::Value;

/// One field of a decoded key: its value and where its bytes lie in the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DecodedField {
    /// The value: for derived fields, the hash prefix ([`Value::Bytes`]) or the salt bucket
    /// ([`Value::U64`]).
    pub value: Value,
    /// Byte offset of the field in the key.
    pub offset: usize,
    /// Encoded length in bytes.
    pub len: usize,
}

impl Schema {
    /// Decodes a key into one value per value field, in schema order: the inverse of
    /// [`Schema::encode`].
    ///
    /// Errors ([`Error::Decode`], naming the field and offset): a field's bytes missing or not
    /// of its type, bytes left after the last field, a derived field that does not match the
    /// fields it is computed from.
    pub fn decode(&self, key: &[u8]) -> Result<Vec<Value>> {
        let fields = self.decode_fields(key)?;
        Ok(self.value_fields_of(fields).map(|f| f.value).collect())
    }

    /// The value fields among a key's decoded fields, in order.
    pub(crate) fn value_fields_of(
        &self,
        fields: Vec<DecodedField>,
    ) -> impl Iterator<Item = DecodedField> + '_ {
        self.slots
            .iter()
            .zip(fields)
            .filter(|(slot, _)| matches!(slot, Slot::Value(_)))
            .map(|(_, f)| f)
    }

    /// Decodes a key into every field, derived ones included, in key order, with each field's
    /// position. Checks what [`Schema::decode`] checks.
    pub fn decode_fields(&self, key: &[u8]) -> Result<Vec<DecodedField>> {
        let mut out = Vec::with_capacity(self.fields.len());
        let mut pos = 0;
        for field in &self.fields {
            let (value, len) = decode_value(&field.name, &field.ty, key, pos)?;
            out.push(DecodedField {
                value,
                offset: pos,
                len,
            });
            pos += len;
        }
        if pos != key.len() {
            return Err(Error::decode(
                "",
                pos,
                format!("{} bytes after the last field", key.len() - pos),
            ));
        }
        // Derived fields must be what their inputs give.
        let parts: Vec<Vec<u8>> = self
            .slots
            .iter()
            .zip(&out)
            .filter(|(slot, _)| matches!(slot, Slot::Value(_)))
            .map(|(_, d)| {
                key.get(d.offset..d.offset + d.len)
                    .unwrap_or_default()
                    .to_vec()
            })
            .collect();
        for ((field, slot), d) in self.fields.iter().zip(&self.slots).zip(&out) {
            if let Slot::Derived(inputs) = slot {
                let want = derive(&field.ty, inputs, &parts);
                if key.get(d.offset..d.offset + d.len) != Some(want.as_slice()) {
                    return Err(Error::decode(
                        &field.name,
                        d.offset,
                        "does not match the fields it is computed from",
                    ));
                }
            }
        }
        Ok(out)
    }
}

/// Takes `n` bytes of `key` at `pos`.
fn take<'k>(name: &str, key: &'k [u8], pos: usize, n: usize) -> Result<&'k [u8]> {
    key.get(pos..pos.saturating_add(n)).ok_or_else(|| {
        Error::decode(
            name,
            pos,
            format!("needs {n} bytes, {} left", key.len().saturating_sub(pos)),
        )
    })
}

fn be_u64(b: &[u8]) -> u64 {
    b.iter().fold(0u64, |acc, &x| (acc << 8) | u64::from(x))
}

fn digits(name: &str, b: &[u8], pos: usize) -> Result<u64> {
    let mut n: u64 = 0;
    for (i, &c) in b.iter().enumerate() {
        if !c.is_ascii_digit() {
            return Err(Error::decode(
                name,
                pos + i,
                format!("byte 0x{c:02x} is not a decimal digit"),
            ));
        }
        n = n
            .checked_mul(10)
            .and_then(|n| n.checked_add(u64::from(c - b'0')))
            .ok_or_else(|| Error::decode(name, pos, "decimal overflows u64"))?;
    }
    Ok(n)
}

/// Decodes one field of type `ty` at `pos`: its value and encoded length.
fn decode_value(name: &str, ty: &FieldType, key: &[u8], pos: usize) -> Result<(Value, usize)> {
    let fixed = |n: usize| take(name, key, pos, n);
    let value = match ty {
        FieldType::Dec { width, bits } => {
            let n = digits(name, fixed(usize::from(*width))?, pos)?;
            if *bits < 64 && n >> bits != 0 {
                return Err(Error::decode(
                    name,
                    pos,
                    format!("{n} does not fit u{bits}"),
                ));
            }
            Value::U64(n)
        }
        FieldType::Uint { bytes } => Value::U64(be_u64(fixed(usize::from(*bytes))?)),
        FieldType::Int { bytes } => {
            let bits = 8 * u32::from(*bytes);
            let raw = be_u64(fixed(usize::from(*bytes))?) ^ (1u64 << (bits - 1));
            // Sign-extend from `bits`.
            Value::I64(((raw << (64 - bits)) as i64) >> (64 - bits))
        }
        FieldType::F32 => {
            let enc = be_u64(fixed(4)?) as u32;
            let bits = if enc >> 31 == 1 {
                enc ^ (1 << 31)
            } else {
                !enc
            };
            Value::F32(f32::from_bits(bits))
        }
        FieldType::F64 => {
            let enc = be_u64(fixed(8)?);
            let bits = if enc >> 63 == 1 {
                enc ^ (1 << 63)
            } else {
                !enc
            };
            Value::F64(f64::from_bits(bits))
        }
        FieldType::RevTs => {
            let rev = be_u64(fixed(8)?) as i64;
            if rev < 0 {
                return Err(Error::decode(
                    name,
                    pos,
                    "negative i64::MAX - ts (the timestamp would exceed i64::MAX)",
                ));
            }
            Value::I64(i64::MAX - rev)
        }
        FieldType::RevTsDec => {
            let rev = digits(name, fixed(crate::field::REVTS_DEC_WIDTH)?, pos)?;
            let rev = i64::try_from(rev)
                .map_err(|_| Error::decode(name, pos, format!("{rev} exceeds i64::MAX")))?;
            Value::I64(i64::MAX - rev)
        }
        FieldType::FixedStr { width, pad } => {
            let b = strip_pad(fixed(*width)?, *pad);
            Value::Str(utf8(name, b.to_vec(), pos)?)
        }
        FieldType::FixedBytes { width, pad } => {
            Value::Bytes(strip_pad(fixed(*width)?, *pad).to_vec())
        }
        FieldType::Str | FieldType::Bytes | FieldType::Rev | FieldType::RevStr => {
            let (b, len) = unescape(name, key, pos)?;
            let v = match ty {
                FieldType::Bytes => Value::Bytes(b),
                FieldType::Rev => Value::Str(reverse_labels(&utf8(name, b, pos)?)),
                FieldType::RevStr => Value::Str(reverse_chars(&utf8(name, b, pos)?)),
                _ => Value::Str(utf8(name, b, pos)?),
            };
            return Ok((v, len));
        }
        FieldType::Word { sep } => {
            let rest = key.get(pos..).unwrap_or_default();
            let end = rest.iter().position(|b| b == sep).ok_or_else(|| {
                Error::decode(
                    name,
                    pos,
                    format!("no separator {:?} after the word", char::from(*sep)),
                )
            })?;
            let b = rest.get(..end).unwrap_or_default().to_vec();
            return Ok((Value::Str(utf8(name, b, pos)?), end + 1));
        }
        FieldType::Desc(inner) => {
            // The inner type's decoding of the complemented key, at the same offsets.
            let complemented: Vec<u8> = key.iter().map(|b| !b).collect();
            return decode_value(name, inner, &complemented, pos);
        }
        FieldType::RevInt => {
            let rev = be_u64(fixed(4)?) as u32 as i32;
            if rev < 0 {
                return Err(Error::decode(
                    name,
                    pos,
                    "negative i32::MAX - x (x would exceed i32::MAX)",
                ));
            }
            Value::I64(i64::from(i32::MAX - rev))
        }
        FieldType::Java { bytes } => {
            let raw = be_u64(fixed(usize::from(*bytes))?);
            let bits = 8 * u32::from(*bytes);
            Value::I64(((raw << (64 - bits)) as i64) >> (64 - bits))
        }
        FieldType::Hash { len, .. } => Value::Bytes(fixed(usize::from(*len))?.to_vec()),
        FieldType::Salt {
            buckets, encoding, ..
        } => {
            let width = crate::field::salt_width(*buckets, *encoding);
            let b = fixed(width)?;
            let n = match encoding {
                SaltEncoding::Byte => be_u64(b),
                SaltEncoding::Decimal => digits(name, b, pos)?,
            };
            if n >= u64::from(*buckets) {
                return Err(Error::decode(
                    name,
                    pos,
                    format!("bucket {n} is not below {buckets}"),
                ));
            }
            Value::U64(n)
        }
    };
    Ok((value, ty.fixed_width().unwrap_or(0)))
}

fn strip_pad(b: &[u8], pad: u8) -> &[u8] {
    let end = b.iter().rposition(|&x| x != pad).map_or(0, |i| i + 1);
    b.get(..end).unwrap_or_default()
}

fn utf8(name: &str, b: Vec<u8>, pos: usize) -> Result<String> {
    String::from_utf8(b)
        .map_err(|e| Error::decode(name, pos + e.utf8_error().valid_up_to(), "not valid UTF-8"))
}

/// Reads an escaped, terminated field at `pos`: its bytes and its encoded length.
fn unescape(name: &str, key: &[u8], pos: usize) -> Result<(Vec<u8>, usize)> {
    let mut out = Vec::new();
    let mut i = pos;
    loop {
        match key.get(i) {
            None => return Err(Error::decode(name, i, "no terminator (0x00 0x01)")),
            Some(&ESCAPE) => match key.get(i + 1) {
                Some(&ESCAPED_ZERO) => out.push(0),
                Some(&TERMINATOR) => return Ok((out, i + 2 - pos)),
                Some(&b) => {
                    return Err(Error::decode(
                        name,
                        i + 1,
                        format!("0x00 followed by 0x{b:02x}, not 0xff or 0x01"),
                    ))
                }
                None => return Err(Error::decode(name, i, "key ends after an escape byte")),
            },
            Some(&b) => {
                out.push(b);
                i += 1;
                continue;
            }
        }
        i += 2;
    }
}
