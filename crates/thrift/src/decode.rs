//! Decoding a value tree from either protocol, against a declaration when there is one.
//!
//! The protocols differ only in how they spell primitives, container headers and field headers
//! ([`WireRead`]); everything a decoder must get right once lives here:
//! - **Declared shapes.** A call's arguments are decoded against the method's declaration
//!   ([`Field`], [`Ty`]): a field the declaration lacks, or whose wire type differs from the
//!   declared one, is read past without being built, as Thrift-generated servers skip unknown
//!   fields. Containers whose element types differ from the declaration are skipped whole.
//! - **Memory, not only wire bytes.** Every value built is charged what it holds in memory
//!   (the value slot in its container, a container's capacity, a binary's bytes) against the
//!   request's [`Budget`]. Once the budget is spent decoding goes on reading, building nothing,
//!   to the end of the message, so the connection stays in step and the caller can answer with
//!   an error naming the limit.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::{Budget, Direct, Field, TStruct, TType, TValue, ThriftError, Ty};
use crate::direct_list::direct_list;
use std::io::Read;

/// A field header: `None` at the end of a struct.
pub(crate) struct FieldHeader {
    pub id: i16,
    pub ttype: TType,
    /// The compact protocol carries a bool field's value in its header.
    pub inline_bool: Option<bool>,
}

/// How one protocol spells what the decoder reads.
pub(crate) trait WireRead {
    /// Per-struct state for field headers (the compact protocol's previous field id).
    type FieldState: Default;
    fn bool<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<bool, ThriftError>;
    fn byte<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i8, ThriftError>;
    fn i16<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i16, ThriftError>;
    fn i32<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i32, ThriftError>;
    fn i64<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<i64, ThriftError>;
    fn double<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<f64, ThriftError>;
    fn binary_len<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<usize, ThriftError>;
    /// Element type and count of a list or set.
    fn list_begin<R: Read>(&self, b: &mut Budget<'_, R>) -> Result<(TType, usize), ThriftError>;
    /// Key type, value type and count of a map.
    fn map_begin<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
    ) -> Result<(TType, TType, usize), ThriftError>;
    fn field_begin<R: Read>(
        &self,
        b: &mut Budget<'_, R>,
        state: &mut Self::FieldState,
    ) -> Result<Option<FieldHeader>, ThriftError>;
}

/// What the decoder builds of a value.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Shape {
    /// Everything, as the wire says (replies read by the client; no declaration).
    Any,
    /// What the declaration says; the rest is skipped.
    Declared(Ty),
    /// Nothing: the value is read past.
    Skip,
}

impl Shape {
    /// The shape of a struct's field `id` sent with wire type `t`.
    fn field(self, id: i16, t: TType) -> Shape {
        match self {
            Shape::Any => Shape::Any,
            Shape::Skip => Shape::Skip,
            Shape::Declared(Ty::Struct(fields)) => match fields.iter().find(|f| f.id == id) {
                Some(f) if f.ty.ttype() == t => Shape::Declared(f.ty),
                _ => Shape::Skip,
            },
            Shape::Declared(_) => Shape::Skip,
        }
    }

    /// The shape of a list's or set's elements sent with wire type `et`.
    fn element(self, et: TType) -> Shape {
        match self {
            Shape::Declared(Ty::List(e) | Ty::Set(e)) if e.ttype() == et => Shape::Declared(*e),
            Shape::Declared(_) => Shape::Skip,
            other => other,
        }
    }

    /// The shapes of a map's keys and values sent with wire types `kt`, `vt`.
    fn entry(self, kt: TType, vt: TType) -> (Shape, Shape) {
        match self {
            Shape::Declared(Ty::Map(k, v)) if k.ttype() == kt && v.ttype() == vt => {
                (Shape::Declared(*k), Shape::Declared(*v))
            }
            Shape::Declared(_) => (Shape::Skip, Shape::Skip),
            other => (other, other),
        }
    }

    fn builds(self) -> bool {
        !matches!(self, Shape::Skip)
    }
}

/// Pushes onto a container being built. Growing it (by doubling, as `Vec` would) is charged
/// the whole new capacity, not only what it adds: while the old buffer is copied both are
/// held, and charging every buffer ever allocated (at most twice the last) bounds that peak.
fn push_charged<R: Read, T>(b: &mut Budget<'_, R>, v: &mut Vec<T>, x: T) {
    let before = v.capacity();
    if v.len() == before {
        let add = before.max(4);
        let new_bytes = (before + add).saturating_mul(std::mem::size_of::<T>().max(1));
        if !b.charge(new_bytes) {
            return;
        }
        v.reserve_exact(add);
    }
    v.push(x);
}

/// Decodes one value of wire type `t`. `None` when it was skipped (by shape, or because the
/// budget is spent).
pub(crate) fn value<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    t: TType,
    shape: Shape,
) -> Result<Option<TValue>, ThriftError> {
    let shape = if b.over_budget() { Shape::Skip } else { shape };
    if let (Shape::Declared(Ty::Direct(d)), TType::List) = (shape, t) {
        return match d {
            Direct::RowBatches => direct_list::<crate::hbase::batch::Rows, _, _>(w, b),
            Direct::Puts => direct_list::<crate::thrift2::batch::PutsAt, _, _>(w, b),
        };
    }
    let build = shape.builds();
    let v = match t {
        TType::Bool => TValue::Bool(w.bool(b)?),
        TType::Byte => TValue::Byte(w.byte(b)?),
        TType::I16 => TValue::I16(w.i16(b)?),
        TType::I32 => TValue::I32(w.i32(b)?),
        TType::I64 => TValue::I64(w.i64(b)?),
        TType::Double => TValue::Double(w.double(b)?),
        TType::Binary => {
            let n = w.binary_len(b)?;
            if build && b.charge(n) {
                TValue::Binary(b.take(n)?)
            } else {
                b.skip(n)?;
                return Ok(None);
            }
        }
        TType::Struct => return Ok(strukt(w, b, shape)?.map(TValue::Struct)),
        TType::List | TType::Set => {
            let (et, n) = w.list_begin(b)?;
            b.check_count(n)?;
            b.enter()?;
            let elem = shape.element(et);
            let mut items = Vec::new();
            for _ in 0..n {
                if let Some(x) = value(w, b, et, elem)? {
                    push_charged(b, &mut items, x);
                }
            }
            b.leave();
            if !elem.builds() || b.over_budget() {
                return Ok(None);
            }
            if t == TType::Set {
                TValue::Set(et, items)
            } else {
                TValue::List(et, items)
            }
        }
        TType::Map => {
            let (kt, vt, n) = w.map_begin(b)?;
            b.check_count(n)?;
            b.enter()?;
            let (ks, vs) = shape.entry(kt, vt);
            let mut items = Vec::new();
            for _ in 0..n {
                let k = value(w, b, kt, ks)?;
                let x = value(w, b, vt, vs)?;
                if let (Some(k), Some(x)) = (k, x) {
                    push_charged(b, &mut items, (k, x));
                }
            }
            b.leave();
            if !ks.builds() || b.over_budget() {
                return Ok(None);
            }
            TValue::Map(kt, vt, items)
        }
    };
    Ok(build.then_some(v))
}

/// Decodes a struct; `None` when it was skipped.
pub(crate) fn strukt<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    shape: Shape,
) -> Result<Option<TStruct>, ThriftError> {
    let shape = if b.over_budget() { Shape::Skip } else { shape };
    b.enter()?;
    let mut s = TStruct::new();
    let mut state = W::FieldState::default();
    while let Some(h) = w.field_begin(b, &mut state)? {
        let field_shape = shape.field(h.id, h.ttype);
        let v = match h.inline_bool {
            Some(x) => (field_shape.builds() && !b.over_budget()).then_some(TValue::Bool(x)),
            None => value(w, b, h.ttype, field_shape)?,
        };
        if let Some(v) = v {
            push_charged(b, &mut s.fields, (h.id, v));
        }
    }
    b.leave();
    if !shape.builds() || b.over_budget() {
        return Ok(None);
    }
    Ok(Some(s))
}

/// A struct decoded with no declaration; an empty struct if the budget ran out (the caller
/// checks [`Budget::over_budget`]).
pub(crate) fn any_struct<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
) -> Result<TStruct, ThriftError> {
    Ok(strukt(w, b, Shape::Any)?.unwrap_or_default())
}

/// A struct decoded against `fields`.
pub(crate) fn declared_struct<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    fields: &'static [Field],
) -> Result<TStruct, ThriftError> {
    Ok(strukt(w, b, Shape::Declared(Ty::Struct(fields)))?.unwrap_or_default())
}

#[cfg(test)]
mod tests {
    use super::super::{
        Binary, Codec, Compact, InflightMemory, Limits, MessageHeader, MessageType, Overrun,
    };
    use super::*;
    use std::sync::Arc;

    const DECLARED: &[Field] = &[
        Field {
            id: 1,
            name: "tableName",
            ty: Ty::Binary,
        },
        Field {
            id: 2,
            name: "rows",
            ty: Ty::List(&Ty::Binary),
        },
    ];

    fn message<C: Codec>(c: &C, args: &TStruct) -> Vec<u8> {
        let mut out = Vec::new();
        c.write_header(
            &mut out,
            &MessageHeader {
                name: "getRows".into(),
                kind: MessageType::Call,
                seq_id: 1,
            },
        );
        c.write_struct(&mut out, args);
        out
    }

    fn bytes_list(n: usize) -> TValue {
        TValue::List(TType::Byte, vec![TValue::Byte(0); n])
    }

    fn limits(max_decoded: usize) -> Limits {
        Limits {
            max_decoded,
            ..Limits::default()
        }
    }

    fn both(check: impl Fn(&dyn Fn(&TStruct) -> Vec<u8>, bool)) {
        check(&|s| message(&Binary, s), false);
        check(&|s| message(&Compact, s), true);
    }

    fn read<R: Read>(b: &mut Budget<'_, R>, compact: bool) -> TStruct {
        if compact {
            Compact.read_header(b).unwrap();
            Compact.read_declared(b, DECLARED).unwrap()
        } else {
            Binary.read_header(b).unwrap();
            Binary.read_declared(b, DECLARED).unwrap()
        }
    }

    #[test]
    fn undeclared_and_mistyped_fields_are_read_past_unbuilt() {
        both(|msg, compact| {
            let args = TStruct::new()
                .with(1, TValue::string("t"))
                .with(9, bytes_list(100_000)) // undeclared
                .with(2, bytes_list(100_000)) // declared list<binary>, sent list<byte>
                .with(3, TValue::Struct(TStruct::new().with(1, bytes_list(10))));
            let wire = msg(&args);
            let mut r = &wire[..];
            // 64 KiB of memory would not hold a 100,000-element list of values.
            let mut b = Budget::new(&mut r, &limits(64 << 10));
            let got = read(&mut b, compact);
            assert_eq!(got, TStruct::new().with(1, TValue::string("t")));
            assert!(!b.over_budget());
            drop(b);
            assert!(r.is_empty(), "the whole message was read");
        });
    }

    #[test]
    fn a_request_over_its_memory_limit_is_read_to_its_end_and_refused() {
        both(|msg, compact| {
            let rows = TValue::List(TType::Binary, vec![TValue::Binary(Vec::new()); 50_000]);
            let args = TStruct::new().with(1, TValue::string("t")).with(2, rows);
            let mut wire = msg(&args);
            let next = msg(&TStruct::new().with(1, TValue::string("next")));
            wire.extend_from_slice(&next);
            let mut r = &wire[..];
            // 50,000 empty strings are 50-200 KB on the wire but 1.6 MB of values.
            let mut b = Budget::new(&mut r, &limits(1 << 20));
            read(&mut b, compact);
            assert_eq!(b.overrun(), Some(Overrun::Request(1 << 20)));
            drop(b);
            assert_eq!(
                r.len(),
                next.len(),
                "the refused message was read to its end"
            );
            let mut b = Budget::new(&mut r, &limits(1 << 20));
            assert_eq!(
                read(&mut b, compact),
                TStruct::new().with(1, TValue::string("next"))
            );
            // Within the limit, the same request decodes whole.
            let wire = msg(&args);
            let mut r = &wire[..];
            let mut b = Budget::new(&mut r, &limits(8 << 20));
            assert!(
                read(&mut b, compact) == args,
                "decoded whole within the limit"
            );
        });
    }

    #[test]
    fn requests_in_flight_share_the_server_pool_until_their_reservations_drop() {
        let pool = Arc::new(InflightMemory::new(2 << 20));
        let rows = TValue::List(TType::Binary, vec![TValue::Binary(vec![7; 100]); 5_000]);
        let wire = message(&Binary, &TStruct::new().with(2, rows));
        let decode = || {
            let mut r = &wire[..];
            let mut b = Budget::new(&mut r, &limits(64 << 20)).with_pool(pool.clone());
            read(&mut b, false);
            (b.overrun(), b.into_reservation())
        };
        let (over, first) = decode();
        assert_eq!(over, None);
        assert!(first.bytes() > 500_000 && pool.used() == first.bytes());
        let (_, second) = decode();
        let held = pool.used();
        let (over, third) = decode();
        assert_eq!(over, Some(Overrun::Server(2 << 20)));
        assert!(pool.used() <= pool.limit());
        drop(third);
        assert_eq!(pool.used(), held, "a refused request gives its memory back");
        // A budget dropped before its reservation was taken gives it back too.
        let mut r = &wire[..];
        let mut b = Budget::new(&mut r, &limits(64 << 20)).with_pool(pool.clone());
        read(&mut b, false);
        drop(b);
        assert_eq!(pool.used(), held);
        drop((first, second));
        assert_eq!(pool.used(), 0);
        assert_eq!(decode().0, None);
    }
}
