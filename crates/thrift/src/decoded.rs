//! Lists decoded straight into typed values ([`Decoded`]) instead of a value tree
//! ([`TValue`](crate::TValue)) first: a `mutateRows` call's 1,000 rows become
//! [`BatchMutation`](crate::hbase::BatchMutation)s whose rows, columns and values are slices of
//! one buffer, with no per-value objects and no second conversion.
//!
//! A declaration asks for it with [`Ty::Direct`](crate::Ty::Direct); the decoder then builds a
//! [`TValue::Decoded`](crate::TValue::Decoded), which the typed field's
//! [`ThriftValue::from_value`](crate::ThriftValue::from_value) takes apart without copying. The
//! same rules as the tree's apply: undeclared or mistyped fields are read past, the last of
//! repeated fields wins, every byte built is charged to the request's budget, and a value that
//! does not fit its declaration is the same [`IdlError`](crate::IdlError), found in the same
//! order.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::decode::{self, FieldHeader, Shape, WireRead};
use crate::{Budget, IdlError, TType, TValue, ThriftError, ThriftValue};
use std::any::Any;
use std::io::Read;
use std::ops::Range;
use std::sync::Arc;

/// The lists the decoder builds directly, by what they hold.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Direct {
    /// `list<BatchMutation>` (Thrift1's `mutateRows(Ts)`):
    /// [`RowBatches`](crate::hbase::RowBatches).
    RowBatches,
    /// `list<TPut>` (Thrift2's `putMultiple`): [`Puts`](crate::thrift2::Puts).
    Puts,
}

impl Direct {
    /// The declared type of the list's elements.
    pub fn element(self) -> crate::Ty {
        match self {
            Direct::RowBatches => <crate::hbase::BatchMutation as crate::ThriftValue>::TY,
            Direct::Puts => <crate::thrift2::TPut as crate::ThriftValue>::TY,
        }
    }
}

/// What a directly decoded list holds.
pub trait DecodedValue: Any + Send + Sync + std::fmt::Debug {
    /// The list as a value tree (for writing, comparing and printing; not on the fast path).
    fn tree(&self) -> TValue;
    /// How many elements it holds, and the first one's row key when it has one (what a slow
    /// log says of a call).
    fn summary(&self) -> (usize, Option<&[u8]>);
}

/// A list decoded straight into typed values instead of a value tree first: a `mutateRows`
/// call's 1,000 rows become [`BatchMutation`](crate::hbase::BatchMutation)s whose rows, columns
/// and values are slices of one buffer, with no per-value objects and no second conversion.
///
/// A declaration asks for it with [`Ty::Direct`](crate::Ty::Direct); the typed field's
/// [`ThriftValue::from_value`] takes it apart without copying. The tree's rules apply:
/// undeclared or mistyped fields are read past, the last of repeated fields wins, every byte
/// built is charged to the request's budget, and a value that does not fit its declaration is
/// the same [`IdlError`], found in the same order. Cloning shares it.
#[derive(Clone)]
pub struct Decoded(Arc<dyn DecodedValue>);

impl Decoded {
    /// Wraps a decoded list.
    pub fn new<T: DecodedValue>(v: T) -> Decoded {
        Decoded(Arc::new(v))
    }

    /// The list as a value tree.
    pub fn tree(&self) -> TValue {
        self.0.tree()
    }

    /// How many elements, and the first one's row key.
    pub fn summary(&self) -> (usize, Option<&[u8]>) {
        self.0.summary()
    }

    /// The typed value, moved out when this is its only holder (else cloned); `None` when it
    /// holds another type.
    pub fn take<T: DecodedValue + Clone>(self) -> Option<T> {
        let any: Arc<dyn Any + Send + Sync> = self.0;
        let typed = any.downcast::<T>().ok()?;
        Some(Arc::try_unwrap(typed).unwrap_or_else(|shared| (*shared).clone()))
    }
}

impl std::fmt::Debug for Decoded {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Decoded({:?})", self.0)
    }
}

impl PartialEq for Decoded {
    fn eq(&self, other: &Decoded) -> bool {
        self.tree() == other.tree()
    }
}

impl Decoded {
    /// The wire type (always a list).
    pub fn ttype(&self) -> TType {
        TType::List
    }
}

/// The binary values of a directly decoded list, appended to one buffer as they are read (each
/// charged to the request's budget); the typed values slice it once it is whole.
#[derive(Default)]
pub(crate) struct Buffer {
    pub(crate) buf: Vec<u8>,
}

/// Values larger than this get a buffer of their own instead of a slice of the call's: the
/// memstore keeps cells past its chunking limit (256 KiB) in the buffers they came in, and a
/// slice would keep the whole call's buffer alive with such a cell.
pub(crate) const OWN_BUFFER_ABOVE: usize = 64 << 10;

/// The value at `r` of the call's buffer `buf`: a slice of it, or a copy of its own when large
/// ([`OWN_BUFFER_ABOVE`]).
pub(crate) fn piece(buf: &bytes::Bytes, r: Range<usize>) -> bytes::Bytes {
    if r.len() > OWN_BUFFER_ABOVE {
        bytes::Bytes::copy_from_slice(buf.get(r).unwrap_or_default())
    } else {
        buf.slice(r)
    }
}

impl Buffer {
    /// A binary value appended: its range, or `None` once over budget (read past).
    pub(crate) fn binary<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<Option<Range<usize>>, ThriftError> {
        let n = w.binary_len(b)?;
        if !b.charge(n) {
            b.skip(n)?;
            return Ok(None);
        }
        let start = self.buf.len();
        b.read_into(&mut self.buf, n)?;
        Ok(Some(start..start + n))
    }
}

/// Reads past a field's value (a field the declaration lacks or sent with another type).
pub(crate) fn skip<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    h: &FieldHeader,
) -> Result<(), ThriftError> {
    if h.inline_bool.is_none() {
        decode::value(w, b, h.ttype, Shape::Skip)?;
    }
    Ok(())
}

/// A `bool` field's value (the compact protocol carries it in the header).
pub(crate) fn bool_field<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    h: &FieldHeader,
) -> Result<bool, ThriftError> {
    match h.inline_bool {
        Some(x) => Ok(x),
        None => w.bool(b),
    }
}

/// A field of a rarely sent type, read as the tree reads it (against its declaration `T`) and
/// converted: `None` when read past (another wire type, or over budget). A conversion error is
/// kept in `error` when it is the first.
pub(crate) fn declared<T: ThriftValue, W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    h: &FieldHeader,
    error: &mut Option<IdlError>,
) -> Result<Option<T>, ThriftError> {
    if h.ttype != T::TY.ttype() {
        skip(w, b, h)?;
        return Ok(None);
    }
    let v = match h.inline_bool {
        Some(x) => (!b.over_budget()).then_some(TValue::Bool(x)),
        None => decode::value(w, b, h.ttype, Shape::Declared(T::TY))?,
    };
    Ok(match v.map(T::from_value) {
        Some(Ok(x)) => Some(x),
        Some(Err(e)) => {
            error.get_or_insert(e);
            None
        }
        None => None,
    })
}

/// [`declared`] into an optional field: set when read, kept as it was when read past (the last
/// of repeated fields wins).
pub(crate) fn declared_into<T: ThriftValue, W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
    h: &FieldHeader,
    error: &mut Option<IdlError>,
    field: &mut Option<T>,
) -> Result<(), ThriftError> {
    if let Some(x) = declared(w, b, h, error)? {
        *field = Some(x);
    }
    Ok(())
}
