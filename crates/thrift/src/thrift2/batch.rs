//! `putMultiple`'s puts ([`Puts`]): decoded straight from the wire into [`TPut`]s whose rows,
//! families, qualifiers and values are slices of one buffer (a [`Decoded`] list), as
//! Thrift1's `mutateRows` rows are ([`crate::hbase::RowBatches`], whose buffer and helpers
//! this shares). The puts' rarely sent fields (timestamps, attributes, durability, visibility,
//! tags, cell types) are read as the value tree reads them; the rules are the tree's
//! ([`Decoded`]).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::structs::{TCellVisibility, TColumnValue, TPut};
use crate::decode::{self, Shape, WireRead};
use crate::decoded::{declared, piece, skip, Buffer};
use crate::hbase::Attributes;
use crate::{
    Budget, Decoded, DecodedValue, Direct, IdlError, Owner, TType, TValue, ThriftError,
    ThriftValue, Ty,
};
use bytes::Bytes;
use std::io::Read;
use std::ops::Range;

/// `list<TPut>`, decoded directly ([`Direct::Puts`]).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Puts(pub Vec<TPut>);

impl std::ops::Deref for Puts {
    type Target = Vec<TPut>;
    fn deref(&self) -> &Vec<TPut> {
        &self.0
    }
}

impl<'a> IntoIterator for &'a Puts {
    type Item = &'a TPut;
    type IntoIter = std::slice::Iter<'a, TPut>;
    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl From<Vec<TPut>> for Puts {
    fn from(v: Vec<TPut>) -> Puts {
        Puts(v)
    }
}

impl ThriftValue for Puts {
    const TY: Ty = Ty::Direct(Direct::Puts);
    fn to_value(&self) -> TValue {
        self.0.to_value()
    }
    fn from_value(v: TValue) -> Result<Self, IdlError> {
        match v {
            TValue::Decoded(d) => match d.take::<DecodedPuts>() {
                Some(DecodedPuts(puts)) => puts.map(Puts),
                None => Err(IdlError::wrong_type(TType::List, TType::List)),
            },
            other => Vec::<TPut>::from_value(other).map(Puts),
        }
    }
}

/// What the decoder built: the puts, or the first put's error in wire order.
#[derive(Debug, Clone)]
struct DecodedPuts(Result<Vec<TPut>, IdlError>);

impl DecodedValue for DecodedPuts {
    fn tree(&self) -> TValue {
        match &self.0 {
            Ok(puts) => puts.to_value(),
            Err(_) => TValue::List(TType::Struct, Vec::new()),
        }
    }
    fn summary(&self) -> (usize, Option<&[u8]>) {
        match &self.0 {
            Ok(puts) => (puts.len(), puts.first().map(|p| &p.row[..])),
            Err(_) => (0, None),
        }
    }
}

/// A column value as read: ranges of the buffer and its rare fields.
struct ColumnAt {
    family: Range<usize>,
    qualifier: Range<usize>,
    value: Range<usize>,
    timestamp: Option<i64>,
    tags: Option<Range<usize>>,
    cell_type: Option<i8>,
}

/// A put as read.
struct PutAt {
    row: Range<usize>,
    columns: Range<usize>,
    timestamp: Option<i64>,
    attributes: Option<Attributes>,
    durability: Option<i32>,
    cell_visibility: Option<TCellVisibility>,
}

#[derive(Default)]
struct PutsAt {
    buf: Buffer,
    puts: Vec<PutAt>,
    columns: Vec<ColumnAt>,
    /// The first put's error, in wire order.
    error: Option<IdlError>,
}

const PUT_BYTES: usize = std::mem::size_of::<TPut>() + std::mem::size_of::<PutAt>();
const COLUMN_BYTES: usize = std::mem::size_of::<TColumnValue>() + std::mem::size_of::<ColumnAt>();

impl PutsAt {
    /// One `TPut` struct.
    fn put<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<(), ThriftError> {
        b.enter()?;
        let first = self.columns.len();
        let mut p = PutAt {
            row: 0..0,
            columns: first..first,
            timestamp: None,
            attributes: None,
            durability: None,
            cell_visibility: None,
        };
        let mut row = false;
        let mut error = None;
        let mut state = W::FieldState::default();
        while let Some(h) = w.field_begin(b, &mut state)? {
            match (h.id, h.ttype, h.inline_bool) {
                (TPut::row, TType::Binary, None) => {
                    if let Some(r) = self.buf.binary(w, b)? {
                        p.row = r;
                        row = true;
                    }
                }
                (TPut::columnValues, TType::List, None) => {
                    let (et, n) = w.list_begin(b)?;
                    b.check_count(n)?;
                    b.enter()?;
                    if et != TType::Struct {
                        for _ in 0..n {
                            decode::value(w, b, et, Shape::Skip)?;
                        }
                    } else {
                        self.columns.truncate(first);
                        let mut list_error = None;
                        for _ in 0..n {
                            if let Some(e) = self.column(w, b)? {
                                list_error.get_or_insert(e);
                            }
                        }
                        p.columns = first..self.columns.len();
                        if let Some(e) = list_error {
                            error.get_or_insert(e.within(Owner::Struct("TPut"), "columnValues"));
                        }
                    }
                    b.leave();
                }
                (TPut::timestamp, ..) => {
                    if let Some(x) = declared(w, b, &h, &mut error)? {
                        p.timestamp = Some(x);
                    }
                }
                (TPut::attributes, ..) => {
                    if let Some(x) = declared(w, b, &h, &mut error)? {
                        p.attributes = Some(x);
                    }
                }
                (TPut::durability, ..) => {
                    if let Some(x) = declared(w, b, &h, &mut error)? {
                        p.durability = Some(x);
                    }
                }
                (TPut::cellVisibility, ..) => {
                    let mut e = None;
                    if let Some(x) = declared(w, b, &h, &mut e)? {
                        p.cell_visibility = Some(x);
                    }
                    if let Some(e) = e {
                        error.get_or_insert(e.within(Owner::Struct("TPut"), "cellVisibility"));
                    }
                }
                _ => skip(w, b, &h)?,
            }
        }
        b.leave();
        if b.over_budget() {
            return Ok(());
        }
        let error =
            error.or_else(|| (!row).then(|| IdlError::missing(Owner::Struct("TPut"), "row")));
        if let Some(e) = error {
            self.error.get_or_insert(e);
        }
        if b.charge(PUT_BYTES) {
            self.puts.push(p);
        }
        Ok(())
    }

    /// One `TColumnValue` struct, pushed onto `columns`; its error when a required field is
    /// missing (the first in declaration order, as the typed conversion checks them).
    fn column<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<Option<IdlError>, ThriftError> {
        b.enter()?;
        let (mut family, mut qualifier, mut value) = (None, None, None);
        let mut c = ColumnAt {
            family: 0..0,
            qualifier: 0..0,
            value: 0..0,
            timestamp: None,
            tags: None,
            cell_type: None,
        };
        // Its optional fields are primitives read only when of their declared type: their
        // conversion cannot fail.
        let mut unused = None;
        let mut state = W::FieldState::default();
        while let Some(h) = w.field_begin(b, &mut state)? {
            match (h.id, h.ttype, h.inline_bool) {
                (TColumnValue::family, TType::Binary, None) => {
                    family = self.buf.binary(w, b)?.or(family);
                }
                (TColumnValue::qualifier, TType::Binary, None) => {
                    qualifier = self.buf.binary(w, b)?.or(qualifier);
                }
                (TColumnValue::value, TType::Binary, None) => {
                    value = self.buf.binary(w, b)?.or(value);
                }
                (TColumnValue::tags, TType::Binary, None) => {
                    c.tags = self.buf.binary(w, b)?.or(c.tags);
                }
                (TColumnValue::timestamp, ..) => {
                    if let Some(x) = declared(w, b, &h, &mut unused)? {
                        c.timestamp = Some(x);
                    }
                }
                (TColumnValue::type_, ..) => {
                    if let Some(x) = declared(w, b, &h, &mut unused)? {
                        c.cell_type = Some(x);
                    }
                }
                _ => skip(w, b, &h)?,
            }
        }
        b.leave();
        let missing = |f| Some(IdlError::missing(Owner::Struct("TColumnValue"), f));
        let error = match (&family, &qualifier, &value) {
            (None, ..) => missing("family"),
            (_, None, _) => missing("qualifier"),
            (.., None) => missing("value"),
            _ => None,
        };
        c.family = family.unwrap_or(0..0);
        c.qualifier = qualifier.unwrap_or(0..0);
        c.value = value.unwrap_or(0..0);
        if b.charge(COLUMN_BYTES) {
            self.columns.push(c);
        }
        Ok(error)
    }

    fn finish(self) -> DecodedPuts {
        if let Some(e) = self.error {
            return DecodedPuts(Err(e));
        }
        let buf = Bytes::from(self.buf.buf);
        let columns = self.columns;
        let puts = self
            .puts
            .into_iter()
            .map(|p| TPut {
                row: piece(&buf, p.row),
                column_values: columns
                    .get(p.columns)
                    .unwrap_or_default()
                    .iter()
                    .map(|c| TColumnValue {
                        family: piece(&buf, c.family.clone()),
                        qualifier: piece(&buf, c.qualifier.clone()),
                        value: piece(&buf, c.value.clone()),
                        timestamp: c.timestamp,
                        tags: c.tags.clone().map(|t| piece(&buf, t)),
                        cell_type: c.cell_type,
                    })
                    .collect(),
                timestamp: p.timestamp,
                attributes: p.attributes,
                durability: p.durability,
                cell_visibility: p.cell_visibility,
            })
            .collect();
        DecodedPuts(Ok(puts))
    }
}

/// Decodes a `list<TPut>` whose header is next on the wire. `None` when it was read past.
pub(crate) fn puts<W: WireRead, R: Read>(
    w: &W,
    b: &mut Budget<'_, R>,
) -> Result<Option<TValue>, ThriftError> {
    let (et, n) = w.list_begin(b)?;
    b.check_count(n)?;
    b.enter()?;
    if et != TType::Struct {
        for _ in 0..n {
            decode::value(w, b, et, Shape::Skip)?;
        }
        b.leave();
        return Ok(None);
    }
    let mut puts = PutsAt::default();
    for _ in 0..n {
        puts.put(w, b)?;
    }
    b.leave();
    if b.over_budget() {
        return Ok(None);
    }
    Ok(Some(TValue::Decoded(Decoded::new(puts.finish()))))
}
