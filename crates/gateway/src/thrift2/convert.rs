//! Conversions between Thrift2's structs and the engine's typed operations, as HBase's
//! `thrift2.ThriftUtilities` makes them: `TGet` → `Get`, `TScan` → `Scan`, `TPut` → `Put`,
//! `TDelete` → `Delete`, `TRowMutations` → mutations, a row → `TResult`.

use crate::handler::writes::attribute_ttl;
use crate::handler::{ProtobufFilters, ServiceError};
use crate::thrift::thrift2::{
    compare_op, delete_type, durability, Attributes, TColumnValue, TDelete, TGet, TPut, TResult,
    TRowMutations, TScan, TTimeRange,
};
use ferrobase_engine::filter::{parse_filter, CompareOp};
use ferrobase_engine::{
    Bytes, CellType, Delete, Durability, Get, Mutation, MutationCell, Put, RowResult, Scan,
    TimeRange, LATEST_TIMESTAMP,
};

/// HBase's `KeyValue.Type` code of a put cell, what every `TColumnValue` of a result carries.
const PUT_TYPE: i8 = 4;

/// A field ferrobase's Thrift2 door does not serve, refused with an `IOError` naming it (rather
/// than ignored, so a client never reads an answer computed without it).
fn unsupported(what: &str) -> ServiceError {
    ServiceError::Io(format!(
        "{what} is not supported by ferrobase's Thrift2 gateway (docs/design/thrift2.md)"
    ))
}

/// A filter string parsed as HBase's `ParseFilter` (its `IllegalArgumentException` is
/// undeclared: a `TApplicationException` INTERNAL_ERROR, as Thrift1's handler answers it).
fn filter(f: &[u8]) -> Result<Box<dyn ferrobase_engine::filter::Filter>, ServiceError> {
    parse_filter(f).map_err(|e| ServiceError::Internal(e.to_string()))
}

fn time_range(tr: &TTimeRange) -> Result<TimeRange, ServiceError> {
    Ok(TimeRange::new(tr.min_stamp, tr.max_stamp)?)
}

fn durability_of(d: Option<i32>) -> Result<Durability, ServiceError> {
    Ok(match d {
        None | Some(durability::USE_DEFAULT) => Durability::UseDefault,
        Some(durability::SKIP_WAL) => Durability::SkipWal,
        Some(durability::ASYNC_WAL) => Durability::AsyncWal,
        Some(durability::SYNC_WAL) => Durability::SyncWal,
        Some(durability::FSYNC_WAL) => Durability::FsyncWal,
        Some(other) => return Err(unsupported(&format!("TDurability {other}"))),
    })
}

/// Refuses the attributes ferrobase does not act on; `_ttl` (a put's cell TTL) is read by
/// [`put`].
fn check_attributes(attributes: Option<&Attributes>) -> Result<(), ServiceError> {
    match attributes
        .into_iter()
        .flatten()
        .find(|(k, _)| k != crate::handler::writes::TTL_ATTRIBUTE)
    {
        Some((k, _)) => Err(unsupported(&format!(
            "the operation attribute {:?}",
            String::from_utf8_lossy(k)
        ))),
        None => Ok(()),
    }
}

/// A protobuf filter (`filterBytes`: HBase's `FilterProtos.Filter`, what Java's
/// `ThriftConnection` sends) through the server's decoder; refused without one.
fn protobuf_filter(
    bytes: &[u8],
    filters: Option<&ProtobufFilters>,
    field: &str,
) -> Result<Box<dyn ferrobase_engine::filter::Filter>, ServiceError> {
    let decode = filters
        .ok_or_else(|| unsupported(&format!("{field} (a protobuf filter; send filterString)")))?;
    (decode.0)(bytes).map_err(|e| ServiceError::Io(format!("{field}: {e}")))
}

/// A replica id a client sends when it asks for none in particular: -1 (Java's `Query`
/// default) or 0 (the primary).
fn primary(replica: Option<i32>) -> bool {
    replica.is_none_or(|r| r == -1 || r == 0)
}

/// `getFromThrift`: columns (a family without qualifier), one timestamp or a time range,
/// versions, a filter string or a protobuf filter. Visibility labels, replicas, and a
/// `storeLimit`/`storeOffset` that limits anything are refused (Java's client sends -1 and 0).
pub(crate) fn get(g: &TGet, filters: Option<&ProtobufFilters>) -> Result<Get, ServiceError> {
    if g.authorizations.is_some() {
        return Err(unsupported("TGet.authorizations"));
    }
    if g.store_limit.is_some_and(|l| l > 0 && l < i32::MAX) || g.store_offset.is_some_and(|o| o > 0)
    {
        return Err(unsupported("TGet.storeLimit and storeOffset"));
    }
    if !primary(g.target_replica_id) {
        return Err(unsupported("a read replica (TGet.targetReplicaId)"));
    }
    check_attributes(g.attributes.as_ref())?;
    let mut out = Get::new(g.row.clone());
    if let Some(ts) = g.timestamp {
        out = out.timestamp(ts);
    } else if let Some(tr) = &g.time_range {
        out = out.time_range(time_range(tr)?);
    }
    if let Some(n) = g.max_versions {
        out = out.max_versions(positive_versions(n)?);
    }
    if let Some(f) = &g.filter_string {
        out = out.filter(filter(f)?);
    } else if let Some(b) = &g.filter_bytes {
        out = out.filter(protobuf_filter(b, filters, "TGet.filterBytes")?);
    }
    for c in g.columns.iter().flatten() {
        out = match &c.qualifier {
            Some(q) => out.add_column(c.family.clone(), q.clone()),
            None => out.add_family(c.family.clone()),
        };
    }
    Ok(out)
}

/// `setMaxVersions`: HBase's client refuses 0 and negatives.
fn positive_versions(n: i32) -> Result<u32, ServiceError> {
    u32::try_from(n).ok().filter(|&n| n > 0).ok_or_else(|| {
        ServiceError::Io(format!(
            "java.io.IOException: maxVersions must be positive, got {n}"
        ))
    })
}

/// `scanFromThrift`.
pub(crate) fn scan(s: &TScan, filters: Option<&ProtobufFilters>) -> Result<Scan, ServiceError> {
    if s.authorizations.is_some() {
        return Err(unsupported("TScan.authorizations"));
    }
    if s.col_fam_time_range_map
        .as_ref()
        .is_some_and(|m| !m.is_empty())
    {
        return Err(unsupported("TScan.colFamTimeRangeMap"));
    }
    if !primary(s.target_replica_id) {
        return Err(unsupported("a read replica (TScan.targetReplicaId)"));
    }
    check_attributes(s.attributes.as_ref())?;
    let mut out = Scan::new().reversed(s.reversed.unwrap_or(false));
    if let Some(start) = &s.start_row {
        out = out.with_start_row(start.clone());
    }
    if let Some(stop) = &s.stop_row {
        out = out.with_stop_row(stop.clone());
    }
    if let Some(c) = s.caching {
        out = out.caching(c.max(1) as usize);
    }
    if let Some(n) = s.max_versions {
        out = out.max_versions(positive_versions(n)?);
    }
    for c in s.columns.iter().flatten() {
        out = match &c.qualifier {
            Some(q) => out.add_column(c.family.clone(), q.clone()),
            None => out.add_family(c.family.clone()),
        };
    }
    if let Some(tr) = &s.time_range {
        out = out.time_range(time_range(tr)?);
    }
    if let Some(b) = s.batch_size.filter(|&b| b > 0) {
        out = out.batch(b as usize);
    }
    if let Some(f) = &s.filter_string {
        out = out.filter(filter(f)?);
    } else if let Some(b) = &s.filter_bytes {
        out = out.filter(protobuf_filter(b, filters, "TScan.filterBytes")?);
    }
    if let Some(l) = s.limit.filter(|&l| l > 0) {
        out = out.limit(l as usize);
    }
    Ok(out)
}

/// `putFromThrift`: each cell at its own timestamp, else the put's, else now; the `_ttl`
/// attribute as the cells' TTL.
pub(crate) fn put(p: &TPut) -> Result<Put, ServiceError> {
    if p.cell_visibility.is_some() {
        return Err(unsupported("TPut.cellVisibility"));
    }
    check_attributes(p.attributes.as_ref())?;
    // The row, families, qualifiers and values are shared with the call's buffer (a directly
    // decoded `putMultiple`), not copied: the memstore copies what it keeps.
    let mut out = Put {
        row: p.row.clone(),
        cells: Vec::with_capacity(p.column_values.len()),
        timestamp: p.timestamp.unwrap_or(LATEST_TIMESTAMP),
        durability: Durability::UseDefault,
        ttl_ms: None,
    };
    for cv in &p.column_values {
        if cv.tags.is_some() {
            return Err(unsupported("cell tags (TColumnValue.tags)"));
        }
        out.cells.push(MutationCell {
            family: cv.family.clone(),
            qualifier: cv.qualifier.clone(),
            timestamp: cv.timestamp.unwrap_or(out.timestamp),
            cell_type: CellType::Put,
            value: cv.value.clone(),
        });
    }
    if out.cells.is_empty() {
        // HBase's client refuses it (`Put` validation), an undeclared IllegalArgumentException.
        return Err(ServiceError::Internal(
            "java.lang.IllegalArgumentException: No columns to insert".into(),
        ));
    }
    out.ttl_ms = match &p.attributes {
        Some(a) => attribute_ttl(a)?,
        None => None,
    };
    out.durability = durability_of(p.durability)?;
    Ok(out)
}

/// `deleteFromThrift`: without columns the whole row (at or below its timestamp); with them,
/// markers of the delete's type on each (a column's own timestamp, else the newest version
/// for `DELETE_COLUMN`, every version for the others).
pub(crate) fn delete(d: &TDelete) -> Result<Delete, ServiceError> {
    check_attributes(d.attributes.as_ref())?;
    let mut out = match (&d.columns, d.timestamp) {
        (None, Some(ts)) => Delete::with_timestamp(d.row.clone(), ts),
        _ => Delete::new(d.row.clone()),
    };
    for c in d.columns.iter().flatten() {
        let f = c.family.clone();
        let q = c.qualifier.clone().unwrap_or_default();
        out = match (d.delete_type, c.timestamp) {
            (delete_type::DELETE_COLUMN, Some(ts)) => out.add_column_ts(f, q, ts),
            (delete_type::DELETE_COLUMN, None) => out.add_column(f, q),
            (delete_type::DELETE_COLUMNS, Some(ts)) => out.add_columns_ts(f, q, ts),
            (delete_type::DELETE_COLUMNS, None) => out.add_columns(f, q),
            (delete_type::DELETE_FAMILY, Some(ts)) => out.add_family_ts(f, ts),
            (delete_type::DELETE_FAMILY, None) => out.add_family(f),
            (delete_type::DELETE_FAMILY_VERSION, Some(ts)) => out.add_family_version(f, ts),
            (delete_type::DELETE_FAMILY_VERSION, None) => {
                return Err(ServiceError::Internal(
                    "java.lang.IllegalArgumentException: Timestamp is required for TDelete \
                     with DeleteFamilyVersion type"
                        .into(),
                ))
            }
            _ => {
                return Err(ServiceError::Internal(
                    "java.lang.IllegalArgumentException: DeleteType is required for TDelete".into(),
                ))
            }
        };
    }
    out.durability = durability_of(d.durability)?;
    Ok(out)
}

/// `rowMutationsFromThrift`: each mutation's put or delete; all must be of the row.
pub(crate) fn row_mutations(rm: &TRowMutations) -> Result<Vec<Mutation>, ServiceError> {
    let mut out = Vec::with_capacity(rm.mutations.len());
    for m in &rm.mutations {
        if let Some(p) = &m.put {
            out.push(Mutation::Put(put(p)?));
        }
        if let Some(d) = &m.delete_single {
            out.push(Mutation::Delete(delete(d)?));
        }
    }
    for m in &out {
        if m.row() != rm.row.as_slice() {
            return Err(ServiceError::Io(format!(
                "The row in the recently added Mutation <{}> doesn't match the original one <{}>",
                String::from_utf8_lossy(m.row()),
                String::from_utf8_lossy(&rm.row)
            )));
        }
    }
    Ok(out)
}

/// `TCompareOp` as the engine's (`NO_OP` has no meaning for a check: refused).
pub(crate) fn compare(op: i32) -> Result<CompareOp, ServiceError> {
    Ok(match op {
        compare_op::LESS => CompareOp::Less,
        compare_op::LESS_OR_EQUAL => CompareOp::LessOrEqual,
        compare_op::EQUAL => CompareOp::Equal,
        compare_op::NOT_EQUAL => CompareOp::NotEqual,
        compare_op::GREATER_OR_EQUAL => CompareOp::GreaterOrEqual,
        compare_op::GREATER => CompareOp::Greater,
        other => return Err(unsupported(&format!("TCompareOp {other}"))),
    })
}

/// `resultFromHBase`: the row (absent for an empty result) and its cells in HBase's order.
pub(crate) fn result(r: &RowResult) -> TResult {
    TResult {
        row: (!r.cells.is_empty()).then(|| r.row().to_vec()),
        column_values: r
            .cells
            .iter()
            .map(|c| TColumnValue {
                family: Bytes::copy_from_slice(c.family()),
                qualifier: Bytes::copy_from_slice(c.qualifier()),
                value: Bytes::copy_from_slice(c.value()),
                timestamp: Some(c.timestamp()),
                tags: None,
                cell_type: Some(PUT_TYPE),
            })
            .collect(),
        stale: Some(false),
        partial: Some(r.may_have_more_cells_in_row()),
    }
}
