//! What a ferrobase gateway carries through its `ferrobaseAdmin` extension and HBase's
//! Thrift1 API cannot: deletes with exact markers (`delete`) and scans with RAW, VERSIONS or a
//! lower time bound under a filter (`scan_open`, `scan_next`), whose rows come back as typed
//! cells, delete markers included. Through Apache HBase's gateway these stay refused with the
//! reason. The wire format: docs/design/hbase-compatibility.md, "The ferrobaseAdmin extension".

use super::convert::{column, RAW_UNSUPPORTED};
use super::{reply, Remote};
use crate::{ClientError, Result};
use ferrobase_engine::{Cell, CellType, Delete, Get, ReadCost, RowResult, Scan, LATEST_TIMESTAMP};
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::hbase::{TFerrobaseGet, TFerrobaseRow};

type Attributes = Vec<(Vec<u8>, Vec<u8>)>;

/// Why a read cannot explain itself through Apache HBase's gateway.
pub(super) const EXPLAIN_UNSUPPORTED: &str =
    "EXPLAIN => true (what a read cost) is a ferrobase extension: this gateway is not ferrobase";

fn push(attrs: &mut Attributes, key: &str, value: impl Into<Vec<u8>>) {
    attrs.push((key.as_bytes().to_vec(), value.into()));
}

/// Whether Thrift1's `deleteAll*` calls cannot write `d`: it has a version's `Delete` or a
/// `DeleteFamilyVersion` marker (they delete everything up to a timestamp).
pub(super) fn needs_markers(d: &Delete) -> bool {
    d.cells.iter().any(|c| {
        matches!(
            c.cell_type,
            CellType::Delete | CellType::DeleteFamilyVersion
        )
    })
}

/// Why `scan` cannot go as a Thrift1 `TScan`, if it cannot.
pub(super) fn beyond_tscan(scan: &Scan, filter: Option<&[u8]>) -> Option<String> {
    if scan.explain {
        return Some(EXPLAIN_UNSUPPORTED.into());
    }
    if scan.raw {
        return Some(RAW_UNSUPPORTED.into());
    }
    if scan.time_range.min > 0 && filter.is_some() {
        return Some(
            "a time range with a lower bound together with a filter is not expressible \
             through HBase's Thrift1 API (it filters cells of [0, ts), some of which the \
             lower bound would have excluded before the filter saw them)"
                .into(),
        );
    }
    if scan.max_versions > 1 {
        return Some(format!(
            "VERSIONS => {} in a scan is not expressible through HBase's Thrift1 API (its \
             TScan has no maxVersions: a scan returns the newest version of each cell); \
             get a row's versions with get, or use an embedded shell (--data DIR)",
            scan.max_versions
        ));
    }
    None
}

/// `scan_open`'s attributes for `scan` (its limit is the client's).
fn scan_attributes(scan: &Scan, filter: Option<&[u8]>) -> Attributes {
    let mut a = Attributes::new();
    let flag = |b: bool| if b { "true" } else { "false" };
    if !scan.start_row.is_empty() {
        push(&mut a, "STARTROW", scan.start_row.clone());
    }
    if !scan.stop_row.is_empty() {
        push(&mut a, "STOPROW", scan.stop_row.clone());
    }
    push(&mut a, "START_INCLUSIVE", flag(scan.start_inclusive));
    push(&mut a, "STOP_INCLUSIVE", flag(scan.stop_inclusive));
    if scan.reversed {
        push(&mut a, "REVERSED", "true");
    }
    let mut i = 0;
    for (f, qs) in &scan.columns {
        let names: Vec<Vec<u8>> = if qs.is_empty() {
            vec![column(f, None)]
        } else {
            qs.iter().map(|q| column(f, Some(q))).collect()
        };
        for name in names {
            push(&mut a, &format!("COLUMN.{i}"), name);
            i += 1;
        }
    }
    if scan.time_range.min > 0 {
        push(&mut a, "MIN_TIMESTAMP", scan.time_range.min.to_string());
    }
    if scan.time_range.max != i64::MAX {
        push(&mut a, "MAX_TIMESTAMP", scan.time_range.max.to_string());
    }
    if scan.max_versions != 1 {
        push(&mut a, "VERSIONS", scan.max_versions.to_string());
    }
    if scan.raw {
        push(&mut a, "RAW", "true");
    }
    if let Some(f) = filter {
        push(&mut a, "FILTER", f.to_vec());
    }
    if let Some(b) = scan.batch {
        push(&mut a, "BATCH", b.to_string());
    }
    if scan.explain {
        push(&mut a, "EXPLAIN", "true");
    }
    a
}

/// `delete`'s attributes for `d`'s markers.
fn delete_attributes(d: &Delete) -> Attributes {
    let mut a = Attributes::new();
    if d.timestamp != LATEST_TIMESTAMP {
        push(&mut a, "TIMESTAMP", d.timestamp.to_string());
    }
    for (i, c) in d.cells.iter().enumerate() {
        let family_only = matches!(
            c.cell_type,
            CellType::DeleteFamily | CellType::DeleteFamilyVersion
        );
        let name = column(&c.family, (!family_only).then_some(&c.qualifier[..]));
        push(&mut a, &format!("TYPE.{i}"), c.cell_type.name());
        push(&mut a, &format!("COLUMN.{i}"), name);
        push(&mut a, &format!("TIMESTAMP.{i}"), c.timestamp.to_string());
    }
    a
}

/// A row of typed cells as the engine's row result.
fn row_of(r: TFerrobaseRow) -> Result<RowResult> {
    let row = ferrobase_engine::Bytes::from(r.row);
    let mut cells = Vec::with_capacity(r.cells.len());
    for c in r.cells {
        let kind = u8::try_from(c.cell_type)
            .ok()
            .and_then(CellType::from_code)
            .ok_or_else(|| {
                ClientError::Transport(format!(
                    "the reply to ferrobaseAdmin scan_next: cell type code {} is not a cell type",
                    c.cell_type
                ))
            })?;
        cells.push(Cell::new(
            row.clone(),
            c.family,
            c.qualifier,
            c.timestamp,
            kind,
            c.value,
        ));
    }
    Ok(RowResult::new(row, cells))
}

impl Remote {
    /// Writes `d` through `ferrobaseAdmin` `delete` (one atomic delete with exactly its
    /// markers); refused through Apache HBase's gateway, naming the marker Thrift1 lacks (call
    /// it there only when [`needs_markers`]).
    pub(super) fn delete_markers(&self, table: &str, d: Delete) -> Result<()> {
        if !self.is_ferrobase()? {
            let what = d
                .cells
                .iter()
                .find(|c| {
                    matches!(
                        c.cell_type,
                        CellType::Delete | CellType::DeleteFamilyVersion
                    )
                })
                .map(|c| c.cell_type.name());
            return Err(ClientError::Unsupported(format!(
                "{} markers cannot be written through HBase's Thrift1 API (it deletes all \
                 versions up to a timestamp; this gateway is not ferrobase)",
                what.unwrap_or("these")
            )));
        }
        let attrs = delete_attributes(&d);
        self.admin_call_bytes(AdminOp::Delete, table, &d.row, attrs)?;
        Ok(())
    }

    /// Opens a scanner through `ferrobaseAdmin` `scan_open` for a scan a `TScan` cannot carry
    /// (`why`); refused with `why` through Apache HBase's gateway.
    pub(super) fn open_typed_scanner(
        &self,
        table: &str,
        scan: &Scan,
        filter: Option<&[u8]>,
        why: String,
    ) -> Result<i32> {
        if !self.is_ferrobase()? {
            return Err(ClientError::Unsupported(why));
        }
        let answer =
            self.admin_call_bytes(AdminOp::ScanOpen, table, b"", scan_attributes(scan, filter))?;
        reply("ferrobaseAdmin scan_open", answer)
    }

    /// What scanner `id` (opened with `EXPLAIN`) has cost so far: `scan_cost`.
    pub(super) fn scan_cost(&self, id: i32) -> Result<Option<ReadCost>> {
        let answer =
            self.admin_call_bytes(AdminOp::ScanCost, "", id.to_string().as_bytes(), Vec::new())?;
        let line: String = reply("ferrobaseAdmin scan_cost", answer)?;
        if line.is_empty() {
            return Ok(None);
        }
        line.parse().map(Some).map_err(ClientError::Transport)
    }

    /// A Get through `ferrobaseAdmin` `get`, answering the row and what it cost.
    pub(crate) fn get_explained(
        &self,
        table: &str,
        get: &Get,
        filter: Option<&[u8]>,
    ) -> Result<(RowResult, ReadCost)> {
        if !self.is_ferrobase()? {
            return Err(ClientError::Unsupported(EXPLAIN_UNSUPPORTED.into()));
        }
        let mut scan = Scan::new().explain(true);
        scan.spec = get.spec.clone();
        scan.spec.filter = None;
        let mut attrs = scan_attributes(&scan, filter);
        // A get's attributes are a scan's without its bounds.
        attrs.retain(|(k, _)| !k.ends_with(b"_INCLUSIVE"));
        let answer = self.admin_call_bytes(AdminOp::Get, table, &get.row, attrs)?;
        let answer: TFerrobaseGet = reply("ferrobaseAdmin get", answer)?;
        let row = match answer.rows.into_iter().next() {
            Some(r) => row_of(r)?,
            None => RowResult::new(get.row.clone(), Vec::new()),
        };
        let cost = answer
            .cost
            .unwrap_or_default()
            .parse()
            .map_err(ClientError::Transport)?;
        Ok((row, cost))
    }

    /// Up to `n` more rows of a scanner opened by [`Remote::open_typed_scanner`].
    pub(super) fn typed_rows(&self, id: i32, n: usize) -> Result<Vec<RowResult>> {
        let attrs = vec![(b"ROWS".to_vec(), n.to_string().into_bytes())];
        let answer =
            self.admin_call_bytes(AdminOp::ScanNext, "", id.to_string().as_bytes(), attrs)?;
        let rows: Vec<TFerrobaseRow> = match answer {
            None => Vec::new(),
            some => reply("ferrobaseAdmin scan_next", some)?,
        };
        rows.into_iter().map(row_of).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn get<'a>(a: &'a Attributes, key: &str) -> Option<&'a [u8]> {
        a.iter()
            .find(|(k, _)| k == key.as_bytes())
            .map(|(_, v)| v.as_slice())
    }

    #[test]
    fn a_version_delete_or_a_family_version_needs_the_extension() {
        assert!(!needs_markers(&Delete::new(b"r".to_vec()).add_columns_ts(
            b"f".to_vec(),
            b"q".to_vec(),
            5
        )));
        assert!(needs_markers(&Delete::new(b"r".to_vec()).add_column_ts(
            b"f".to_vec(),
            b"q".to_vec(),
            5
        )));
        assert!(needs_markers(
            &Delete::new(b"r".to_vec()).add_family_version(b"f".to_vec(), 5)
        ));
        assert!(!needs_markers(
            &Delete::new(b"r".to_vec())
                .add_family(b"f".to_vec())
                .add_family(b"g".to_vec())
        ));
    }

    #[test]
    fn delete_attributes_number_each_marker() {
        let d = Delete::new(b"r".to_vec())
            .add_column_ts(b"f".to_vec(), b"q".to_vec(), 5)
            .add_family_version(b"g".to_vec(), 7);
        let a = delete_attributes(&d);
        assert_eq!(get(&a, "TYPE.0"), Some(&b"Delete"[..]));
        assert_eq!(get(&a, "COLUMN.0"), Some(&b"f:q"[..]));
        assert_eq!(get(&a, "TIMESTAMP.0"), Some(&b"5"[..]));
        assert_eq!(get(&a, "TYPE.1"), Some(&b"DeleteFamilyVersion"[..]));
        assert_eq!(get(&a, "COLUMN.1"), Some(&b"g"[..]));
        assert_eq!(get(&a, "TIMESTAMP"), None);
    }

    #[test]
    fn scan_attributes_carry_raw_versions_and_bounds() {
        let scan = Scan::new()
            .with_start_row(b"a".to_vec())
            .with_stop_row(b"m".to_vec())
            .add_column(b"f".to_vec(), b"q".to_vec())
            .add_family(b"g".to_vec())
            .max_versions(10)
            .raw(true);
        let a = scan_attributes(&scan, Some(b"KeyOnlyFilter()"));
        assert_eq!(get(&a, "STARTROW"), Some(&b"a"[..]));
        assert_eq!(get(&a, "STOPROW"), Some(&b"m"[..]));
        assert_eq!(get(&a, "COLUMN.0"), Some(&b"f:q"[..]));
        assert_eq!(get(&a, "COLUMN.1"), Some(&b"g"[..]));
        assert_eq!(get(&a, "VERSIONS"), Some(&b"10"[..]));
        assert_eq!(get(&a, "RAW"), Some(&b"true"[..]));
        assert_eq!(get(&a, "FILTER"), Some(&b"KeyOnlyFilter()"[..]));
        assert_eq!(get(&a, "MIN_TIMESTAMP"), None);
    }

    #[test]
    fn an_unknown_cell_type_code_is_an_error_not_a_panic() {
        let r = TFerrobaseRow {
            row: b"r".to_vec(),
            cells: vec![ferrobase_thrift::hbase::TFerrobaseCell {
                cell_type: 99,
                ..Default::default()
            }],
        };
        assert!(row_of(r).is_err());
    }
}
