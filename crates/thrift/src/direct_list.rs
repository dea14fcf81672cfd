//! The lists the decoder builds straight into typed values ([`DirectList`]): Thrift1's
//! `mutateRows` rows ([`crate::hbase::RowBatches`]) and Thrift2's `putMultiple` puts
//! ([`crate::thrift2::Puts`]) share the list's type, its conversions and the frame that reads
//! the list around each element's decoder ([`ElementReader`]).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use crate::decode::{self, Shape, WireRead};
use crate::{
    Budget, Decoded, DecodedValue, Direct, IdlError, TType, TValue, ThriftError, ThriftValue, Ty,
};
use std::io::Read;

/// An element of a list the decoder builds directly ([`DirectList`]).
pub trait DirectElement:
    ThriftValue + Clone + PartialEq + std::fmt::Debug + Send + Sync + 'static
{
    /// The list, as a declaration names it ([`Ty::Direct`]).
    const DIRECT: Direct;
    /// The list's name in `Debug` output (`RowBatches`, `Puts`).
    const LIST_NAME: &'static str;
    /// The element's row key (what a slow log says of a call).
    fn row(&self) -> &[u8];
}

/// A `list<T>` the decoder builds straight into `T`s whose binary values are slices of one
/// buffer per call ([`Decoded`]); built by hand, it converts through the value tree like any
/// other list.
#[derive(Clone, PartialEq)]
pub struct DirectList<T>(pub Vec<T>);

impl<T> Default for DirectList<T> {
    fn default() -> DirectList<T> {
        DirectList(Vec::new())
    }
}

impl<T: DirectElement> std::fmt::Debug for DirectList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple(T::LIST_NAME).field(&self.0).finish()
    }
}

impl<T> std::ops::Deref for DirectList<T> {
    type Target = Vec<T>;
    fn deref(&self) -> &Vec<T> {
        &self.0
    }
}

impl<'a, T> IntoIterator for &'a DirectList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl<T> From<Vec<T>> for DirectList<T> {
    fn from(v: Vec<T>) -> DirectList<T> {
        DirectList(v)
    }
}

impl<T: DirectElement> ThriftValue for DirectList<T> {
    const TY: Ty = Ty::Direct(T::DIRECT);
    fn to_value(&self) -> TValue {
        self.0.to_value()
    }
    fn from_value(v: TValue) -> Result<Self, IdlError> {
        match v {
            TValue::Decoded(d) => match d.take::<DecodedList<T>>() {
                Some(DecodedList(list)) => list.map(DirectList),
                None => Err(IdlError::wrong_type(TType::List, TType::List)),
            },
            other => Vec::<T>::from_value(other).map(DirectList),
        }
    }
}

/// What the decoder built: the elements, or the first element's error in wire order (as the
/// typed conversion of the tree would have found it).
#[derive(Debug, Clone)]
struct DecodedList<T>(Result<Vec<T>, IdlError>);

impl<T: DirectElement> DecodedValue for DecodedList<T> {
    fn tree(&self) -> TValue {
        match &self.0 {
            Ok(list) => list.to_value(),
            Err(_) => TValue::List(TType::Struct, Vec::new()),
        }
    }
    fn summary(&self) -> (usize, Option<&[u8]>) {
        match &self.0 {
            Ok(list) => (list.len(), list.first().map(T::row)),
            Err(_) => (0, None),
        }
    }
}

/// Reads a direct list's elements, one struct at a time, into what it builds them from.
pub(crate) trait ElementReader: Default {
    /// What the list holds.
    type Element: DirectElement;
    /// Reads one element's struct (its header is next on the wire).
    fn element<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<(), ThriftError>;
    /// The elements, or the first one's error in wire order.
    fn finish(self) -> Result<Vec<Self::Element>, IdlError>;
}

/// Decodes a direct list whose header is next on the wire (the caller read the field's header:
/// wire type list) with `E`. `None` when it was read past (elements of another type, or over
/// budget).
pub(crate) fn direct_list<E: ElementReader, W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
) -> Result<Option<TValue>, ThriftError> {
    let Some(n) = struct_list_begin(w, b)? else {
        return Ok(None);
    };
    let mut reader = E::default();
    for _ in 0..n {
        reader.element(w, b)?;
    }
    b.leave();
    if b.over_budget() {
        return Ok(None);
    }
    Ok(Some(TValue::Decoded(Decoded::new(DecodedList(
        reader.finish(),
    )))))
}

/// Begins a list of structs whose header is next on the wire: its length, one nesting level
/// entered (the caller reads the elements, then leaves it). A list of another element type is
/// read past whole (`None`): the field it was sent for keeps what it had.
pub(crate) fn struct_list_begin<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
) -> Result<Option<usize>, ThriftError> {
    let (et, n) = w.list_begin(b)?;
    b.check_count(n)?;
    b.enter()?;
    if et == TType::Struct {
        return Ok(Some(n));
    }
    for _ in 0..n {
        decode::value(w, b, et, Shape::Skip)?;
    }
    b.leave();
    Ok(None)
}
