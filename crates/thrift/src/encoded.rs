//! Values their producer writes straight into a message ([`Encoded`]) instead of building a
//! value tree ([`TValue`](crate::TValue)) first: a bulk scan's rows, written from the engine's
//! cells with one copy of each byte, no per-cell objects.
//!
//! A producer implements [`EncodeValue`] once against [`ValueWriter`], which writes either
//! protocol; the codecs call it where the value sits in a reply.

use crate::compact::{ctype, put_varint, put_zigzag};
use crate::TType;
use std::sync::Arc;

/// The protocol a [`ValueWriter`] writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wire {
    /// The binary protocol.
    Binary,
    /// The compact protocol.
    Compact,
}

/// Writes Thrift values of one protocol into a buffer, one piece at a time. The caller keeps
/// the shape right (a field header before each field's value, `count` elements after a
/// container's header, [`ValueWriter::struct_end`] for each [`ValueWriter::struct_begin`]),
/// as the IDL declares it; the writer does not check it.
pub struct ValueWriter<'a> {
    out: &'a mut Vec<u8>,
    wire: Wire,
    /// Compact: the last field id written in each open struct, innermost last.
    last: Vec<i16>,
}

impl<'a> ValueWriter<'a> {
    /// A writer appending to `out` in `wire`.
    pub fn new(out: &'a mut Vec<u8>, wire: Wire) -> ValueWriter<'a> {
        ValueWriter {
            out,
            wire,
            last: Vec::new(),
        }
    }

    /// Reserves room for `n` more bytes.
    pub fn reserve(&mut self, n: usize) {
        self.out.reserve(n);
    }

    /// A list's header: `count` elements of type `elem` follow.
    pub fn list_begin(&mut self, elem: TType, count: usize) {
        match self.wire {
            Wire::Binary => {
                self.out.push(elem.code());
                self.out.extend_from_slice(&(count as i32).to_be_bytes());
            }
            Wire::Compact => {
                if count < 15 {
                    self.out.push(((count as u8) << 4) | ctype(elem));
                } else {
                    self.out.push(0xf0 | ctype(elem));
                    put_varint(self.out, count as u64);
                }
            }
        }
    }

    /// A map's header: `count` key-value pairs follow, each key then its value.
    pub fn map_begin(&mut self, key: TType, value: TType, count: usize) {
        match self.wire {
            Wire::Binary => {
                self.out.push(key.code());
                self.out.push(value.code());
                self.out.extend_from_slice(&(count as i32).to_be_bytes());
            }
            Wire::Compact => {
                put_varint(self.out, count as u64);
                if count > 0 {
                    self.out.push((ctype(key) << 4) | ctype(value));
                }
            }
        }
    }

    /// Opens a struct: its fields follow, each a [`ValueWriter::field`] and its value.
    pub fn struct_begin(&mut self) {
        if self.wire == Wire::Compact {
            self.last.push(0);
        }
    }

    /// The header of field `id` of type `ty` (not `bool`, whose compact header carries the
    /// value: [`ValueWriter::bool_field`]).
    pub fn field(&mut self, id: i16, ty: TType) {
        debug_assert!(ty != TType::Bool, "bool fields are written by bool_field");
        match self.wire {
            Wire::Binary => {
                self.out.push(ty.code());
                self.out.extend_from_slice(&id.to_be_bytes());
            }
            Wire::Compact => self.compact_field(id, ctype(ty)),
        }
    }

    /// A whole `bool` field.
    pub fn bool_field(&mut self, id: i16, v: bool) {
        match self.wire {
            Wire::Binary => {
                self.out.push(TType::Bool.code());
                self.out.extend_from_slice(&id.to_be_bytes());
                self.out.push(u8::from(v));
            }
            Wire::Compact => self.compact_field(id, if v { 1 } else { 2 }),
        }
    }

    fn compact_field(&mut self, id: i16, c: u8) {
        let last = self.last.last_mut();
        let prev = last.as_deref().copied().unwrap_or(0);
        let delta = id.wrapping_sub(prev);
        if delta > 0 && delta <= 15 {
            self.out.push(((delta as u8) << 4) | c);
        } else {
            self.out.push(c);
            put_zigzag(self.out, i64::from(id));
        }
        if let Some(l) = last {
            *l = id;
        }
    }

    /// Closes the innermost open struct.
    pub fn struct_end(&mut self) {
        self.out.push(0);
        if self.wire == Wire::Compact {
            self.last.pop();
        }
    }

    /// A `binary` (or `string`) value.
    pub fn binary(&mut self, b: &[u8]) {
        self.binary_parts(&[b]);
    }

    /// A `binary` value made of `parts` one after the other (a column name from its family,
    /// `:` and qualifier, without joining them first).
    pub fn binary_parts(&mut self, parts: &[&[u8]]) {
        let n: usize = parts.iter().map(|p| p.len()).sum();
        match self.wire {
            Wire::Binary => self.out.extend_from_slice(&(n as i32).to_be_bytes()),
            Wire::Compact => put_varint(self.out, n as u64),
        }
        for p in parts {
            self.out.extend_from_slice(p);
        }
    }

    /// A `binary` value of `len` bytes that `fill` appends to the buffer it is handed (the
    /// value written in place, not built apart and copied).
    pub fn binary_with(&mut self, len: usize, fill: impl FnOnce(&mut Vec<u8>)) {
        match self.wire {
            Wire::Binary => self.out.extend_from_slice(&(len as i32).to_be_bytes()),
            Wire::Compact => put_varint(self.out, len as u64),
        }
        let start = self.out.len();
        self.out.reserve(len);
        fill(self.out);
        debug_assert_eq!(self.out.len() - start, len, "binary_with: length announced");
    }

    /// An `i32` value.
    pub fn i32(&mut self, v: i32) {
        match self.wire {
            Wire::Binary => self.out.extend_from_slice(&v.to_be_bytes()),
            Wire::Compact => put_zigzag(self.out, i64::from(v)),
        }
    }

    /// An `i64` value.
    pub fn i64(&mut self, v: i64) {
        match self.wire {
            Wire::Binary => self.out.extend_from_slice(&v.to_be_bytes()),
            Wire::Compact => put_zigzag(self.out, v),
        }
    }
}

/// A value that writes itself into a message. Thread-safe: a reply may be written on another
/// thread than the one that built it.
pub trait EncodeValue: Send + Sync {
    /// Its wire type (the field header before it says so).
    fn ttype(&self) -> TType;
    /// Writes the value (not its field header) through `w`.
    fn encode(&self, w: &mut ValueWriter<'_>);
    /// About how many bytes it takes in the binary protocol (to size the reply's buffer once;
    /// 0: unknown).
    fn size_hint(&self) -> usize {
        0
    }
    /// The value itself, for [`Encoded::downcast_ref`] (`None`: not offered).
    fn as_any(&self) -> Option<&dyn std::any::Any> {
        None
    }
}

/// A value written by its producer ([`EncodeValue`]); the `TValue::Encoded` variant. Cloning
/// shares it. Two are equal when their binary encodings are.
#[derive(Clone)]
pub struct Encoded(Arc<dyn EncodeValue>);

impl Encoded {
    /// Wraps `v`.
    pub fn new(v: impl EncodeValue + 'static) -> Encoded {
        Encoded(Arc::new(v))
    }

    /// Its wire type.
    pub fn ttype(&self) -> TType {
        self.0.ttype()
    }

    /// About how many bytes it takes in the binary protocol (0: unknown).
    pub fn size_hint(&self) -> usize {
        self.0.size_hint()
    }

    /// The value as its producer's type `T`, when it offers itself ([`EncodeValue::as_any`]).
    pub fn downcast_ref<T: 'static>(&self) -> Option<&T> {
        self.0.as_any()?.downcast_ref()
    }

    /// Appends the value to `out` in `wire`.
    pub fn write(&self, out: &mut Vec<u8>, wire: Wire) {
        let mut w = ValueWriter::new(out, wire);
        self.0.encode(&mut w);
    }

    fn binary(&self) -> Vec<u8> {
        let mut out = Vec::new();
        self.write(&mut out, Wire::Binary);
        out
    }
}

impl std::fmt::Debug for Encoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Encoded({}, {} bytes in binary)",
            self.ttype(),
            self.binary().len()
        )
    }
}

impl PartialEq for Encoded {
    fn eq(&self, other: &Encoded) -> bool {
        self.ttype() == other.ttype() && self.binary() == other.binary()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Binary, Budget, Codec, Compact, Limits, TStruct, TValue};

    /// list<struct { 1: binary, 2: map<binary, struct { 1: binary, 2: i64 }>, 3: bool,
    /// 20: i32 }>, written by hand through a ValueWriter.
    struct Sample;

    impl EncodeValue for Sample {
        fn ttype(&self) -> TType {
            TType::List
        }
        fn encode(&self, w: &mut ValueWriter<'_>) {
            w.list_begin(TType::Struct, 20);
            for i in 0..20i64 {
                w.struct_begin();
                w.field(1, TType::Binary);
                w.binary(format!("row{i}").as_bytes());
                w.field(2, TType::Map);
                w.map_begin(TType::Binary, TType::Struct, i as usize % 3);
                for j in 0..i % 3 {
                    w.binary_parts(&[b"cf", b":", format!("q{j}").as_bytes()]);
                    w.struct_begin();
                    w.field(1, TType::Binary);
                    w.binary(b"value");
                    w.field(2, TType::I64);
                    w.i64(-i * 1_000_000_007 + j);
                    w.struct_end();
                }
                w.bool_field(3, i % 2 == 0);
                w.field(20, TType::I32);
                w.i32(i as i32 - 10);
                w.struct_end();
            }
        }
    }

    fn tree() -> TValue {
        TValue::List(
            TType::Struct,
            (0..20i64)
                .map(|i| {
                    let cells = (0..i % 3)
                        .map(|j| {
                            (
                                TValue::Binary(format!("cf:q{j}").into_bytes()),
                                TValue::Struct(
                                    TStruct::new()
                                        .with(1, TValue::Binary(b"value".to_vec()))
                                        .with(2, TValue::I64(-i * 1_000_000_007 + j)),
                                ),
                            )
                        })
                        .collect();
                    TValue::Struct(
                        TStruct::new()
                            .with(1, TValue::Binary(format!("row{i}").into_bytes()))
                            .with(2, TValue::Map(TType::Binary, TType::Struct, cells))
                            .with(3, TValue::Bool(i % 2 == 0))
                            .with(20, TValue::I32(i as i32 - 10)),
                    )
                })
                .collect(),
        )
    }

    /// `read_back`: a compact empty map carries no element types, so it reads back as
    /// `map<binary, binary>`; the bytes are compared in both protocols, the tree in binary.
    fn both<C: Codec>(c: &C, read_back: bool) {
        let reply = |v: TValue| {
            let mut out = Vec::new();
            c.write_struct(&mut out, &TStruct::new().with(0, v));
            out
        };
        let direct = reply(TValue::Encoded(Encoded::new(Sample)));
        assert_eq!(direct, reply(tree()), "same bytes as the value tree");
        if read_back {
            let mut r = &direct[..];
            let mut b = Budget::new(&mut r, &Limits::default());
            let back = c.read_struct(&mut b).unwrap();
            assert_eq!(back.get(0), Some(&tree()), "reads back as the tree");
        }
    }

    #[test]
    fn an_encoded_value_writes_what_its_value_tree_writes_in_both_protocols() {
        both(&Binary, true);
        both(&Compact, false);
        assert_eq!(
            TValue::Encoded(Encoded::new(Sample)),
            TValue::Encoded(Encoded::new(Sample))
        );
        assert_eq!(TValue::Encoded(Encoded::new(Sample)).ttype(), TType::List);
    }
}
