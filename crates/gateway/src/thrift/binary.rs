//! Thrift's binary protocol (strict and old-style headers read; strict written).

use super::{
    malformed, Budget, Codec, MessageHeader, MessageType, TStruct, TType, TValue, ThriftError,
};
use std::io::Read;

/// The binary protocol.
#[derive(Debug, Clone, Copy, Default)]
pub struct Binary;

const VERSION_1: u32 = 0x8001_0000;

pub(crate) fn first_byte<R: Read>(b: &mut Budget<'_, R>) -> Result<u8, ThriftError> {
    let mut one = [0u8; 1];
    loop {
        match b.inner.read(&mut one) {
            Ok(0) => return Err(ThriftError::Eof),
            Ok(_) => break,
            Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(ThriftError::Io(e)),
        }
    }
    if b.remaining == 0 {
        return Err(malformed("message size limit reached"));
    }
    b.remaining -= 1;
    Ok(one[0])
}

fn len<R: Read>(b: &mut Budget<'_, R>) -> Result<usize, ThriftError> {
    let n = i32::from_be_bytes(b.array()?);
    usize::try_from(n).map_err(|_| malformed(format!("negative length {n}")))
}

impl Binary {
    fn read_value<R: Read>(&self, b: &mut Budget<'_, R>, t: TType) -> Result<TValue, ThriftError> {
        Ok(match t {
            TType::Bool => TValue::Bool(b.u8()? != 0),
            TType::Byte => TValue::Byte(b.u8()? as i8),
            TType::Double => TValue::Double(f64::from_bits(u64::from_be_bytes(b.array()?))),
            TType::I16 => TValue::I16(i16::from_be_bytes(b.array()?)),
            TType::I32 => TValue::I32(i32::from_be_bytes(b.array()?)),
            TType::I64 => TValue::I64(i64::from_be_bytes(b.array()?)),
            TType::Binary => {
                let n = len(b)?;
                TValue::Binary(b.take(n)?)
            }
            TType::Struct => TValue::Struct(self.read_struct(b)?),
            TType::Map => {
                let kt = ttype(b.u8()?)?;
                let vt = ttype(b.u8()?)?;
                let n = len(b)?;
                b.check_count(n)?;
                b.enter()?;
                let mut v = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    let k = self.read_value(b, kt)?;
                    let x = self.read_value(b, vt)?;
                    v.push((k, x));
                }
                b.leave();
                TValue::Map(kt, vt, v)
            }
            TType::Set | TType::List => {
                let et = ttype(b.u8()?)?;
                let n = len(b)?;
                b.check_count(n)?;
                b.enter()?;
                let mut v = Vec::with_capacity(n.min(1024));
                for _ in 0..n {
                    v.push(self.read_value(b, et)?);
                }
                b.leave();
                if t == TType::Set {
                    TValue::Set(et, v)
                } else {
                    TValue::List(et, v)
                }
            }
        })
    }

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
        }
    }
}

fn ttype(c: u8) -> Result<TType, ThriftError> {
    TType::from_code(c).ok_or_else(|| malformed(format!("unknown type code {c}")))
}

impl Codec for Binary {
    fn read_header<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<MessageHeader, ThriftError> {
        let b0 = first_byte(b)?;
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
        b.enter()?;
        let mut s = TStruct::new();
        loop {
            let t = b.u8()?;
            if t == 0 {
                break;
            }
            let t = ttype(t)?;
            let id = i16::from_be_bytes(b.array()?);
            let v = self.read_value(b, t)?;
            s.fields.push((id, v));
        }
        b.leave();
        Ok(s)
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
