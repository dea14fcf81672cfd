//! `putMultiple`'s puts ([`Puts`]): decoded straight from the wire into [`TPut`]s whose rows,
//! families, qualifiers and values are slices of one buffer (a [`Decoded`](crate::Decoded) list), as
//! Thrift1's `mutateRows` rows are ([`crate::hbase::RowBatches`], whose buffer and helpers
//! this shares). The puts' rarely sent fields (timestamps, attributes, durability, visibility,
//! tags, cell types) are read as the value tree reads them; the rules are the tree's
//! ([`Decoded`](crate::Decoded)).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::structs::{TCellVisibility, TColumnValue, TPut};
use crate::decode::WireRead;
use crate::decoded::{declared_into, piece, skip, Buffer};
use crate::direct_list::{struct_list_begin, DirectElement, DirectList, ElementReader};
use crate::hbase::Attributes;
use crate::{Budget, Direct, IdlError, Owner, TType, ThriftError};
use bytes::Bytes;
use std::io::Read;
use std::ops::Range;

/// `list<TPut>`, decoded directly ([`Direct::Puts`]).
pub type Puts = DirectList<TPut>;

impl DirectElement for TPut {
    const DIRECT: Direct = Direct::Puts;
    const LIST_NAME: &'static str = "Puts";
    fn row(&self) -> &[u8] {
        &self.row
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

/// The puts being read: every binary value appended to one buffer.
#[derive(Default)]
pub(crate) struct PutsAt {
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
                    if let Some(n) = struct_list_begin(w, b)? {
                        self.columns.truncate(first);
                        let mut list_error = None;
                        for _ in 0..n {
                            if let Some(e) = self.column(w, b)? {
                                list_error.get_or_insert(e);
                            }
                        }
                        b.leave();
                        p.columns = first..self.columns.len();
                        if let Some(e) = list_error {
                            error.get_or_insert(e.within(Owner::Struct("TPut"), "columnValues"));
                        }
                    }
                }
                (TPut::timestamp, ..) => declared_into(w, b, &h, &mut error, &mut p.timestamp)?,
                (TPut::attributes, ..) => declared_into(w, b, &h, &mut error, &mut p.attributes)?,
                (TPut::durability, ..) => declared_into(w, b, &h, &mut error, &mut p.durability)?,
                (TPut::cellVisibility, ..) => {
                    let mut e = None;
                    declared_into(w, b, &h, &mut e, &mut p.cell_visibility)?;
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
                    declared_into(w, b, &h, &mut unused, &mut c.timestamp)?
                }
                (TColumnValue::type_, ..) => {
                    declared_into(w, b, &h, &mut unused, &mut c.cell_type)?
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
}

impl ElementReader for PutsAt {
    type Element = TPut;

    fn element<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<(), ThriftError> {
        self.put(w, b)
    }

    /// The puts, their values slices of one buffer.
    fn finish(self) -> Result<Vec<TPut>, IdlError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let buf = Bytes::from(self.buf.buf);
        let columns = self.columns;
        Ok(self
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
            .collect())
    }
}
