//! Thrift's binary protocol (strict and old-style headers read; strict written).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::decode::{self, FieldHeader, WireRead};
use super::{
    malformed, Budget, Codec, Field, MessageHeader, MessageType, TStruct, TType, TValue,
    ThriftError,
};
use std::io::Read;

/// The binary protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct Binary;

const VERSION_1: u32 = 0x8001_0000;

fn len<R: Read>(b: &mut Budget<'_, R>) -> Result<usize, ThriftError> {
    let n = i32::from_be_bytes(b.array()?);
    usize::try_from(n).map_err(|_| malformed(format!("negative length {n}")))
}

impl WireRead for Binary {
    type FieldState = ();

    fn bool<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<bool, ThriftError> {
        Ok(b.u8()? != 0)
    }
    fn byte<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i8, ThriftError> {
        Ok(b.u8()? as i8)
    }
    fn i16<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i16, ThriftError> {
        Ok(i16::from_be_bytes(b.array()?))
    }
    fn i32<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i32, ThriftError> {
        Ok(i32::from_be_bytes(b.array()?))
    }
    fn i64<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i64, ThriftError> {
        Ok(i64::from_be_bytes(b.array()?))
    }
    fn double<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<f64, ThriftError> {
        Ok(f64::from_bits(u64::from_be_bytes(b.array()?)))
    }
    fn binary_len<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<usize, ThriftError> {
        len(b)
    }
    fn list_begin<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<(TType, usize), ThriftError> {
        let et = ttype(b.u8()?)?;
        Ok((et, len(b)?))
    }
    fn map_begin<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
    ) -> Result<(TType, TType, usize), ThriftError> {
        let kt = ttype(b.u8()?)?;
        let vt = ttype(b.u8()?)?;
        Ok((kt, vt, len(b)?))
    }
    fn field_begin<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
        _: &mut (),
    ) -> Result<Option<FieldHeader>, ThriftError> {
        let t = b.u8()?;
        if t == 0 {
            return Ok(None);
        }
        let ttype = ttype(t)?;
        let id = i16::from_be_bytes(b.array()?);
        Ok(Some(FieldHeader {
            id,
            ttype,
            inline_bool: None,
        }))
    }
}

impl Binary {
    fn write_value(&self, out: &mut Vec<u8>, v: &TValue) {
        match v {
            TValue::Bool(x) => out.push(u8::from(*x)),
            TValue::Byte(x) => out.push(*x as u8),
            TValue::Double(x) => out.extend_from_slice(&x.to_bits().to_be_bytes()),
            TValue::I16(x) => out.extend_from_slice(&x.to_be_bytes()),
            TValue::I32(x) => out.extend_from_slice(&x.to_be_bytes()),
            TValue::I64(x) => out.extend_from_slice(&x.to_be_bytes()),
            TValue::Binary(x) => {
                out.extend_from_slice(&(x.len() as i32).to_be_bytes());
                out.extend_from_slice(x);
            }
            TValue::Struct(s) => self.write_struct(out, s),
            TValue::Map(kt, vt, items) => {
                out.push(kt.code());
                out.push(vt.code());
                out.extend_from_slice(&(items.len() as i32).to_be_bytes());
                for (k, x) in items {
                    self.write_value(out, k);
                    self.write_value(out, x);
                }
            }
            TValue::Set(et, items) | TValue::List(et, items) => {
                out.push(et.code());
                out.extend_from_slice(&(items.len() as i32).to_be_bytes());
                for x in items {
                    self.write_value(out, x);
                }
            }
            TValue::Encoded(e) => e.write(out, crate::Wire::Binary),
            TValue::Decoded(d) => self.write_value(out, &d.tree()),
        }
    }
}

fn ttype(c: u8) -> Result<TType, ThriftError> {
    TType::from_code(c).ok_or_else(|| malformed(format!("unknown type code {c}")))
}

impl Codec for Binary {
    fn read_header<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<MessageHeader, ThriftError> {
        let b0 = b.first_byte()?;
        let rest: [u8; 3] = b.array()?;
        let word = u32::from_be_bytes([b0, rest[0], rest[1], rest[2]]);
        let (name, kind_code) = if word & 0x8000_0000 != 0 {
            if word & 0xffff_0000 != VERSION_1 {
                return Err(malformed(format!("bad binary protocol version {word:#x}")));
            }
            let n = len(b)?;
            (b.take(n)?, (word & 0xff) as u8)
        } else {
            // Old-style header: name length, name, type byte.
            let n = word as usize;
            let name = b.take(n)?;
            (name, b.u8()?)
        };
        let seq_id = i32::from_be_bytes(b.array()?);
        Ok(MessageHeader {
            name: String::from_utf8(name).map_err(|_| malformed("method name is not UTF-8"))?,
            kind: MessageType::from_code(kind_code)
                .ok_or_else(|| malformed(format!("bad message type {kind_code}")))?,
            seq_id,
        })
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
        out.extend_from_slice(&(VERSION_1 | h.kind as u32).to_be_bytes());
        out.extend_from_slice(&(h.name.len() as i32).to_be_bytes());
        out.extend_from_slice(h.name.as_bytes());
        out.extend_from_slice(&h.seq_id.to_be_bytes());
    }

    fn write_struct(&self, out: &mut Vec<u8>, s: &TStruct) {
        for (id, v) in &s.fields {
            out.push(v.ttype().code());
            out.extend_from_slice(&id.to_be_bytes());
            self.write_value(out, v);
        }
        out.push(0);
    }
}
