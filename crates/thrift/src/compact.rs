//! Thrift's compact protocol.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::decode::{self, FieldHeader, WireRead};
use super::{
    malformed, Budget, Codec, Field, MessageHeader, MessageType, TStruct, TType, TValue,
    ThriftError,
};
use std::io::Read;

/// The compact protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct Compact;

const PROTOCOL_ID: u8 = 0x82;
const VERSION: u8 = 1;

pub(crate) fn ctype(t: TType) -> u8 {
    match t {
        TType::Bool => 1,
        TType::Byte => 3,
        TType::I16 => 4,
        TType::I32 => 5,
        TType::I64 => 6,
        TType::Double => 7,
        TType::Binary => 8,
        TType::List => 9,
        TType::Set => 10,
        TType::Map => 11,
        TType::Struct => 12,
    }
}

fn from_ctype(c: u8) -> Result<TType, ThriftError> {
    Ok(match c {
        1 | 2 => TType::Bool,
        3 => TType::Byte,
        4 => TType::I16,
        5 => TType::I32,
        6 => TType::I64,
        7 => TType::Double,
        8 => TType::Binary,
        9 => TType::List,
        10 => TType::Set,
        11 => TType::Map,
        12 => TType::Struct,
        _ => return Err(malformed(format!("unknown compact type {c}"))),
    })
}

fn varint<R: Read>(b: &mut Budget<'_, R>) -> Result<u64, ThriftError> {
    let mut out = 0u64;
    for i in 0..10 {
        let byte = b.u8()?;
        out |= u64::from(byte & 0x7f) << (7 * i);
        if byte & 0x80 == 0 {
            return Ok(out);
        }
    }
    Err(malformed("varint too long"))
}

fn zigzag<R: Read>(b: &mut Budget<'_, R>) -> Result<i64, ThriftError> {
    let v = varint(b)?;
    Ok((v >> 1) as i64 ^ -((v & 1) as i64))
}

/// Appends `v` as an unsigned LEB128 varint (the compact protocol's, and the packed scan
/// rows' lengths).
pub(crate) fn put_varint(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push((v as u8) | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

pub(crate) fn put_zigzag(out: &mut Vec<u8>, v: i64) {
    put_varint(out, ((v << 1) ^ (v >> 63)) as u64);
}

fn size<R: Read>(b: &mut Budget<'_, R>) -> Result<usize, ThriftError> {
    let n = varint(b)?;
    usize::try_from(n).map_err(|_| malformed("size too large"))
}

impl WireRead for Compact {
    /// The previous field's id: compact field headers carry the difference.
    type FieldState = i16;

    fn bool<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<bool, ThriftError> {
        Ok(b.u8()? == 1)
    }
    fn byte<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i8, ThriftError> {
        Ok(b.u8()? as i8)
    }
    fn i16<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i16, ThriftError> {
        Ok(zigzag(b)? as i16)
    }
    fn i32<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i32, ThriftError> {
        Ok(zigzag(b)? as i32)
    }
    fn i64<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i64, ThriftError> {
        zigzag(b)
    }
    fn double<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<f64, ThriftError> {
        Ok(f64::from_bits(u64::from_le_bytes(b.array()?)))
    }
    fn binary_len<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<usize, ThriftError> {
        size(b)
    }
    fn list_begin<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<(TType, usize), ThriftError> {
        let h = b.u8()?;
        let et = from_ctype(h & 0x0f)?;
        let n = if h >> 4 == 0x0f {
            size(b)?
        } else {
            (h >> 4) as usize
        };
        Ok((et, n))
    }
    fn map_begin<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
    ) -> Result<(TType, TType, usize), ThriftError> {
        let n = size(b)?;
        if n == 0 {
            return Ok((TType::Binary, TType::Binary, 0));
        }
        let kv = b.u8()?;
        Ok((from_ctype(kv >> 4)?, from_ctype(kv & 0x0f)?, n))
    }
    fn field_begin<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
        last: &mut i16,
    ) -> Result<Option<FieldHeader>, ThriftError> {
        let h = b.u8()?;
        if h == 0 {
            return Ok(None);
        }
        let delta = h >> 4;
        let c = h & 0x0f;
        let id = if delta == 0 {
            zigzag(b)? as i16
        } else {
            last.wrapping_add(i16::from(delta))
        };
        *last = id;
        Ok(Some(FieldHeader {
            id,
            ttype: from_ctype(c)?,
            inline_bool: match c {
                1 => Some(true),
                2 => Some(false),
                _ => None,
            },
        }))
    }
}

impl Compact {
    fn write_value(&self, out: &mut Vec<u8>, v: &TValue) {
        match v {
            TValue::Bool(x) => out.push(if *x { 1 } else { 2 }),
            TValue::Byte(x) => out.push(*x as u8),
            TValue::I16(x) => put_zigzag(out, i64::from(*x)),
            TValue::I32(x) => put_zigzag(out, i64::from(*x)),
            TValue::I64(x) => put_zigzag(out, *x),
            TValue::Double(x) => out.extend_from_slice(&x.to_bits().to_le_bytes()),
            TValue::Binary(x) => {
                put_varint(out, x.len() as u64);
                out.extend_from_slice(x);
            }
            TValue::Struct(s) => self.write_struct(out, s),
            TValue::Map(kt, vt, items) => {
                put_varint(out, items.len() as u64);
                if !items.is_empty() {
                    out.push((ctype(*kt) << 4) | ctype(*vt));
                }
                for (k, x) in items {
                    self.write_value(out, k);
                    self.write_value(out, x);
                }
            }
            TValue::Set(et, items) | TValue::List(et, items) => {
                if items.len() < 15 {
                    out.push(((items.len() as u8) << 4) | ctype(*et));
                } else {
                    out.push(0xf0 | ctype(*et));
                    put_varint(out, items.len() as u64);
                }
                for x in items {
                    self.write_value(out, x);
                }
            }
            TValue::Encoded(e) => e.write(out, crate::Wire::Compact),
            TValue::Decoded(d) => self.write_value(out, &d.tree()),
        }
    }
}

impl Codec for Compact {
    fn read_header<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<MessageHeader, ThriftError> {
        let id = b.first_byte()?;
        if id != PROTOCOL_ID {
            return Err(malformed(format!("bad compact protocol id {id:#x}")));
        }
        let vt = b.u8()?;
        if vt & 0x1f != VERSION {
            return Err(malformed(format!(
                "bad compact protocol version {}",
                vt & 0x1f
            )));
        }
        let kind = MessageType::from_code(vt >> 5).ok_or_else(|| malformed("bad message type"))?;
        let seq_id = varint(b)? as u32 as i32;
        let n = size(b)?;
        let name =
            String::from_utf8(b.take(n)?).map_err(|_| malformed("method name is not UTF-8"))?;
        Ok(MessageHeader { name, kind, seq_id })
    }

    fn read_struct<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<TStruct, ThriftError> {
        decode::any_struct(self, b)
    }

    fn read_declared<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
        fields: &'static [Field],
    ) -> Result<TStruct, ThriftError> {
        decode::declared_struct(self, b, fields)
    }

    fn write_header(&self, out: &mut Vec<u8>, h: &MessageHeader) {
        out.push(PROTOCOL_ID);
        out.push(((h.kind as u8) << 5) | VERSION);
        put_varint(out, h.seq_id as u32 as u64);
        put_varint(out, h.name.len() as u64);
        out.extend_from_slice(h.name.as_bytes());
    }

    fn write_struct(&self, out: &mut Vec<u8>, s: &TStruct) {
        let mut last: i16 = 0;
        for (id, v) in &s.fields {
            let c = match v {
                TValue::Bool(true) => 1,
                TValue::Bool(false) => 2,
                other => ctype(other.ttype()),
            };
            let delta = id.wrapping_sub(last);
            if delta > 0 && delta <= 15 {
                out.push(((delta as u8) << 4) | c);
            } else {
                out.push(c);
                put_zigzag(out, i64::from(*id));
            }
            last = *id;
            if !matches!(v, TValue::Bool(_)) {
                self.write_value(out, v);
            }
        }
        out.push(0);
    }
}
