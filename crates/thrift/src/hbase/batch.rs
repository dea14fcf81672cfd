//! `mutateRows(Ts)`'s rows ([`RowBatches`]): decoded straight from the wire into
//! [`BatchMutation`]s whose rows, columns and values are slices of one buffer (a
//! [`Decoded`](crate::Decoded) list), where the value tree built six objects per row and the typed conversion
//! then moved them again. What a client sends is read by the same rules as the tree's
//! (listed at [`Decoded`](crate::Decoded)); the tree still converts (a call built by hand).

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::structs::{BatchMutation, Mutation};
use crate::decode::WireRead;
use crate::decoded::{bool_field, piece, skip, Buffer};
use crate::direct_list::{struct_list_begin, DirectElement, DirectList, ElementReader};
use crate::{Budget, Direct, IdlError, Owner, TType, ThriftError};
use bytes::Bytes;
use std::io::Read;
use std::ops::Range;

/// `list<BatchMutation>`, decoded directly ([`Direct::RowBatches`]).
pub type RowBatches = DirectList<BatchMutation>;

impl DirectElement for BatchMutation {
    const DIRECT: Direct = Direct::RowBatches;
    const LIST_NAME: &'static str = "RowBatches";
    fn row(&self) -> &[u8] {
        &self.row
    }
}

/// A mutation as read: ranges of the call's buffer.
struct MutationAt {
    is_delete: bool,
    column: Range<usize>,
    value: Range<usize>,
    write_to_wal: bool,
}

/// A row as read: its key's range and its mutations' (in [`Rows::mutations`]).
struct RowAt {
    row: Range<usize>,
    mutations: Range<usize>,
}

/// The rows being read: every binary value appended to one buffer.
#[derive(Default)]
pub(crate) struct Rows {
    buf: Buffer,
    rows: Vec<RowAt>,
    mutations: Vec<MutationAt>,
    /// The first element's error, in wire order.
    error: Option<IdlError>,
}

/// Memory a row and a mutation take once built (charged as they are read).
const ROW_BYTES: usize = std::mem::size_of::<BatchMutation>() + std::mem::size_of::<RowAt>();
const MUTATION_BYTES: usize = std::mem::size_of::<Mutation>() + std::mem::size_of::<MutationAt>();

impl Rows {
    /// One `BatchMutation` struct.
    fn row<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<(), ThriftError> {
        b.enter()?;
        let first = self.mutations.len();
        let mut row = None;
        let mut mutations = first..first;
        let mut error = None;
        let mut state = W::FieldState::default();
        while let Some(h) = w.field_begin(b, &mut state)? {
            match (h.id, h.ttype, h.inline_bool) {
                (BatchMutation::row, TType::Binary, None) => {
                    if let Some(r) = self.buf.binary(w, b)? {
                        row = Some(r);
                    }
                }
                (BatchMutation::mutations, TType::List, None) => {
                    // Elements of another type than declared: the list is read past and the
                    // field keeps what it had.
                    if let Some(n) = struct_list_begin(w, b)? {
                        // A repeated field: the last one wins.
                        self.mutations.truncate(first);
                        let mut list_error = None;
                        for _ in 0..n {
                            if let Some(e) = self.mutation(w, b)? {
                                list_error.get_or_insert(e);
                            }
                        }
                        b.leave();
                        mutations = first..self.mutations.len();
                        // The typed conversion stops at the first list with a bad element.
                        if let Some(e) = list_error {
                            error.get_or_insert(
                                e.within(Owner::Struct("BatchMutation"), "mutations"),
                            );
                        }
                    }
                }
                _ => skip(w, b, &h)?,
            }
        }
        b.leave();
        if b.over_budget() {
            return Ok(());
        }
        let error = error.or_else(|| {
            row.is_none()
                .then(|| IdlError::missing(Owner::Struct("BatchMutation"), "row"))
        });
        if let Some(e) = error {
            self.error.get_or_insert(e);
        }
        if b.charge(ROW_BYTES) {
            self.rows.push(RowAt {
                row: row.unwrap_or(0..0),
                mutations,
            });
        }
        Ok(())
    }

    /// One `Mutation` struct, pushed onto `mutations`; its error when it has no column.
    fn mutation<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<Option<IdlError>, ThriftError> {
        b.enter()?;
        let mut m = MutationAt {
            is_delete: false,
            column: 0..0,
            value: 0..0,
            write_to_wal: true,
        };
        let mut column = false;
        let mut state = W::FieldState::default();
        while let Some(h) = w.field_begin(b, &mut state)? {
            match (h.id, h.ttype) {
                (Mutation::isDelete, TType::Bool) => m.is_delete = bool_field(w, b, &h)?,
                (Mutation::column, TType::Binary) if h.inline_bool.is_none() => {
                    if let Some(r) = self.buf.binary(w, b)? {
                        m.column = r;
                        column = true;
                    }
                }
                (Mutation::value, TType::Binary) if h.inline_bool.is_none() => {
                    if let Some(r) = self.buf.binary(w, b)? {
                        m.value = r;
                    }
                }
                (Mutation::writeToWAL, TType::Bool) => m.write_to_wal = bool_field(w, b, &h)?,
                _ => skip(w, b, &h)?,
            }
        }
        b.leave();
        if b.charge(MUTATION_BYTES) {
            self.mutations.push(m);
        }
        Ok((!column).then(|| IdlError::missing(Owner::Struct("Mutation"), "column")))
    }
}

impl ElementReader for Rows {
    type Element = BatchMutation;

    fn element<W: WireRead, R: Read>(
        &mut self,
        w: &W,
        b: &mut Budget<'_, R>,
    ) -> Result<(), ThriftError> {
        self.row(w, b)
    }

    /// The rows, their values slices of one buffer.
    fn finish(self) -> Result<Vec<BatchMutation>, IdlError> {
        if let Some(e) = self.error {
            return Err(e);
        }
        let buf = Bytes::from(self.buf.buf);
        let mutations = self.mutations;
        Ok(self
            .rows
            .into_iter()
            .map(|r| BatchMutation {
                row: piece(&buf, r.row),
                mutations: mutations
                    .get(r.mutations)
                    .unwrap_or_default()
                    .iter()
                    .map(|m| Mutation {
                        is_delete: m.is_delete,
                        column: piece(&buf, m.column.clone()),
                        value: piece(&buf, m.value.clone()),
                        write_to_wal: m.write_to_wal,
                    })
                    .collect(),
            })
            .collect())
    }
}
