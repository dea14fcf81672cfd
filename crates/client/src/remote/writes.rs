//! The `Hbase` service's write methods: `mutateRows(Ts)`, the `deleteAll*` family,
//! `atomicIncrement`, `checkAndPut` and `append`.

use super::convert::*;
use super::{reply, Remote};
use crate::{ClientError, Result};
use ferrobase_engine::{CellType, Delete, Put, LATEST_TIMESTAMP};
use ferrobase_thrift::hbase::service::{
    AppendArgs, AtomicIncrementArgs, CheckAndPutArgs, DeleteAllArgs, DeleteAllRowArgs,
    DeleteAllRowTsArgs, DeleteAllTsArgs, MutateRowsArgs, MutateRowsTsArgs,
};
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::hbase::{BatchMutation, Method, Mutation, TAppend, TCell};
use ferrobase_thrift::{EncodeValue, Encoded, TStruct, TType, TValue, ThriftValue, ValueWriter};

/// Puts written as `mutateRows`' `list<BatchMutation>` straight from the engine's types: the
/// bytes the IDL structs would write, without building them or a value tree per call.
struct PutRows(Vec<Put>);

impl EncodeValue for PutRows {
    fn ttype(&self) -> TType {
        TType::List
    }

    fn encode(&self, w: &mut ValueWriter<'_>) {
        w.list_begin(TType::Struct, self.0.len());
        for p in &self.0 {
            let wal = p.durability != ferrobase_engine::Durability::SkipWal;
            w.struct_begin();
            w.field(BatchMutation::row, TType::Binary);
            w.binary(&p.row);
            w.field(BatchMutation::mutations, TType::List);
            w.list_begin(TType::Struct, p.cells.len());
            for c in &p.cells {
                w.struct_begin();
                w.bool_field(Mutation::isDelete, false);
                w.field(Mutation::column, TType::Binary);
                w.binary_parts(&[&c.family, b":", &c.qualifier]);
                w.field(Mutation::value, TType::Binary);
                w.binary(&c.value);
                w.bool_field(Mutation::writeToWAL, wal);
                w.struct_end();
            }
            w.struct_end();
        }
    }

    fn size_hint(&self) -> usize {
        let cells: usize = (self.0.iter().flat_map(|p| &p.cells))
            .map(|c| c.family.len() + c.qualifier.len() + c.value.len() + 24)
            .sum();
        let rows: usize = self.0.iter().map(|p| p.row.len() + 16).sum();
        5 + cells + rows
    }
}

impl Remote {
    pub(crate) fn put_all(&self, table: &str, puts: Vec<Put>) -> Result<()> {
        // The common batch: every cell at one timestamp and one TTL for all (one call, the
        // rows in order), written straight from the puts.
        if let Some(first) = puts.first() {
            let ts = first
                .cells
                .first()
                .map_or(LATEST_TIMESTAMP, |c| c.timestamp);
            let ttl_ms = first.ttl_ms;
            if puts.iter().all(|p| {
                p.ttl_ms == ttl_ms
                    && !p.cells.is_empty()
                    && p.cells.iter().all(|c| c.timestamp == ts)
            }) {
                let mut args = TStruct::new()
                    .with(
                        MutateRowsArgs::tableName,
                        TValue::Binary(table.as_bytes().to_vec()),
                    )
                    .with(
                        MutateRowsArgs::rowBatches,
                        TValue::Encoded(Encoded::new(PutRows(puts))),
                    );
                let attributes = ttl_attributes(ttl_ms).to_value();
                let method = if ts == LATEST_TIMESTAMP {
                    args.fields.push((MutateRowsArgs::attributes, attributes));
                    MutateRowsArgs::METHOD
                } else {
                    args.fields
                        .push((MutateRowsTsArgs::timestamp, TValue::I64(ts)));
                    args.fields.push((MutateRowsTsArgs::attributes, attributes));
                    MutateRowsTsArgs::METHOD
                };
                self.call_struct(method, &args)?;
                return Ok(());
            }
        }
        // One mutateRowsTs per distinct timestamp and cell TTL (Thrift1 mutations carry no
        // timestamp; the TTL is an attribute of the whole call).
        type Key = (i64, Option<i64>);
        let mut by_ts: std::collections::BTreeMap<Key, Vec<BatchMutation>> = Default::default();
        for p in puts {
            let wal = p.durability != ferrobase_engine::Durability::SkipWal;
            let mut per_ts: std::collections::BTreeMap<i64, Vec<Mutation>> = Default::default();
            for c in p.cells {
                per_ts.entry(c.timestamp).or_default().push(Self::mutation(
                    column(&c.family, Some(&c.qualifier)),
                    c.value,
                    wal,
                ));
            }
            for (ts, mutations) in per_ts {
                by_ts
                    .entry((ts, p.ttl_ms))
                    .or_default()
                    .push(BatchMutation {
                        row: p.row.clone(),
                        mutations,
                    });
            }
        }
        for ((ts, ttl_ms), row_batches) in by_ts {
            let table_name = table.as_bytes().to_vec();
            let attributes = ttl_attributes(ttl_ms);
            if ts == LATEST_TIMESTAMP {
                self.call(&MutateRowsArgs {
                    table_name,
                    row_batches: row_batches.into(),
                    attributes,
                })?;
            } else {
                self.call(&MutateRowsTsArgs {
                    table_name,
                    row_batches: row_batches.into(),
                    timestamp: ts,
                    attributes,
                })?;
            }
        }
        Ok(())
    }

    /// A delete: through Thrift1's `deleteAll*` when they can write it, else (a version's
    /// marker, or several markers to write atomically to a ferrobase gateway) through
    /// `ferrobaseAdmin` `delete`.
    pub(crate) fn delete(&self, table: &str, d: Delete) -> Result<()> {
        if super::cell_ops::needs_markers(&d) || (d.cells.len() > 1 && self.is_ferrobase()?) {
            return self.delete_markers(table, d);
        }
        let table_name = table.as_bytes().to_vec();
        if d.cells.is_empty() {
            if d.timestamp == LATEST_TIMESTAMP {
                self.call(&DeleteAllRowArgs {
                    table_name,
                    row: d.row.to_vec(),
                    attributes: Vec::new(),
                })?;
            } else {
                self.call(&DeleteAllRowTsArgs {
                    table_name,
                    row: d.row.to_vec(),
                    timestamp: d.timestamp,
                    attributes: Vec::new(),
                })?;
            }
            return Ok(());
        }
        for c in d.cells {
            let col = match c.cell_type {
                CellType::DeleteColumn => column(&c.family, Some(&c.qualifier)),
                CellType::DeleteFamily => column(&c.family, None),
                other => {
                    return Err(ClientError::Unsupported(format!(
                        "{} markers cannot be written through HBase's Thrift1 API (it deletes all versions up to a timestamp)",
                        other.name()
                    )))
                }
            };
            if c.timestamp == LATEST_TIMESTAMP {
                self.call(&DeleteAllArgs {
                    table_name: table_name.clone(),
                    row: d.row.to_vec(),
                    column: col,
                    attributes: Vec::new(),
                })?;
            } else {
                self.call(&DeleteAllTsArgs {
                    table_name: table_name.clone(),
                    row: d.row.to_vec(),
                    column: col,
                    timestamp: c.timestamp,
                    attributes: Vec::new(),
                })?;
            }
        }
        Ok(())
    }

    pub(crate) fn increment(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let args = AtomicIncrementArgs {
            table_name: table.as_bytes().to_vec(),
            row: row.to_vec(),
            column: column(family, Some(qualifier)),
            value: amount,
        };
        reply("atomicIncrement", self.call(&args)?)
    }

    /// An increment or append with a cell TTL through `ferrobaseAdmin` (Thrift1's calls carry
    /// no attributes); refused through Apache HBase's gateway.
    fn row_op_with_ttl(
        &self,
        op: AdminOp,
        table: &str,
        row: &[u8],
        family_qualifier: Vec<u8>,
        operand: (&str, Vec<u8>),
        ttl_ms: i64,
    ) -> Result<Option<ferrobase_thrift::TValue>> {
        let attributes = vec![
            (b"COLUMN".to_vec(), family_qualifier),
            (operand.0.as_bytes().to_vec(), operand.1),
            (b"TTL".to_vec(), ttl_ms.to_string().into_bytes()),
        ];
        match self.admin_call_bytes(op, table, row, attributes) {
            Err(ClientError::Unsupported(_)) => Err(ClientError::Unsupported(format!(
                "{} with a TTL is not available through HBase's Thrift1 API (its {} \
                 carries no attributes; this gateway is not ferrobase)",
                op.name(),
                op.name()
            ))),
            other => other,
        }
    }

    pub(crate) fn increment_with_ttl(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
        ttl_ms: i64,
    ) -> Result<i64> {
        let amount = ("AMOUNT", amount.to_string().into_bytes());
        let answer = self.row_op_with_ttl(
            AdminOp::Increment,
            table,
            row,
            column(family, Some(qualifier)),
            amount,
            ttl_ms,
        )?;
        reply("ferrobaseAdmin increment", answer)
    }

    pub(crate) fn append_with_ttl(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
        ttl_ms: i64,
    ) -> Result<Vec<u8>> {
        let value = ("VALUE", value.to_vec());
        let answer = self.row_op_with_ttl(
            AdminOp::Append,
            table,
            row,
            column(family, Some(qualifier)),
            value,
            ttl_ms,
        )?;
        let cells: Vec<TCell> = reply("ferrobaseAdmin append", answer)?;
        Ok(cells
            .into_iter()
            .next()
            .map(|c| c.value)
            .unwrap_or_default())
    }

    pub(crate) fn check_and_put(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: Option<&[u8]>,
        put: Put,
    ) -> Result<bool> {
        if put.cells.len() != 1 || put.row != row {
            return Err(ClientError::Unsupported(
                "HBase's Thrift1 checkAndPut carries exactly one cell of the checked row".into(),
            ));
        }
        let c = &put.cells[0];
        let args = CheckAndPutArgs {
            table_name: table.as_bytes().to_vec(),
            row: row.to_vec(),
            column: column(family, Some(qualifier)),
            value: expected.map(<[u8]>::to_vec),
            mput: Self::mutation(column(&c.family, Some(&c.qualifier)), c.value.clone(), true),
            attributes: ttl_attributes(put.ttl_ms),
        };
        reply("checkAndPut", self.call(&args)?)
    }

    pub(crate) fn append(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
    ) -> Result<Vec<u8>> {
        let args = AppendArgs {
            append: TAppend {
                table: table.as_bytes().to_vec(),
                row: row.to_vec(),
                columns: vec![column(family, Some(qualifier))],
                values: vec![value.to_vec()],
            },
        };
        let cells: Vec<TCell> = match self.call(&args)? {
            None => Vec::new(),
            some => reply("append", some)?,
        };
        Ok(cells
            .into_iter()
            .next()
            .map(|c| c.value)
            .unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrobase_thrift::{Binary, Codec, Compact};

    /// The puts a load sends, as the IDL structs would carry them (the general path's shape).
    fn as_structs(puts: &[Put]) -> Vec<BatchMutation> {
        puts.iter()
            .map(|p| BatchMutation {
                row: p.row.clone(),
                mutations: (p.cells.iter())
                    .map(|c| Mutation {
                        is_delete: false,
                        column: column(&c.family, Some(&c.qualifier)).into(),
                        value: c.value.clone(),
                        write_to_wal: p.durability != ferrobase_engine::Durability::SkipWal,
                    })
                    .collect(),
            })
            .collect()
    }

    #[test]
    fn puts_written_directly_are_the_bytes_the_idl_structs_write() {
        let puts: Vec<Put> = (0..20)
            .map(|i| {
                let p = Put::new(format!("row{i}"))
                    .add_column("cf", format!("q{i}"), vec![b'v'; i])
                    .add_column("f2", "", Vec::new());
                if i % 3 == 0 {
                    p.durability(ferrobase_engine::Durability::SkipWal)
                } else {
                    p
                }
            })
            .collect();
        let direct = TValue::Encoded(Encoded::new(PutRows(puts.clone())));
        let tree = as_structs(&puts).to_value();
        for write in [
            |out: &mut Vec<u8>, s: &TStruct| Binary.write_struct(out, s),
            |out: &mut Vec<u8>, s: &TStruct| Compact.write_struct(out, s),
        ] {
            let (mut a, mut b) = (Vec::new(), Vec::new());
            write(&mut a, &TStruct::new().with(2, direct.clone()));
            write(&mut b, &TStruct::new().with(2, tree.clone()));
            assert_eq!(a, b);
        }
        let hint = PutRows(puts).size_hint();
        let mut exact = Vec::new();
        Binary.write_struct(&mut exact, &TStruct::new().with(2, tree));
        assert!(hint >= exact.len() - 8, "{hint} for {}", exact.len());
    }
}
