//! The door of the read path: every read of a table comes in here. A Get is a scan of one row
//! (HBase's `HRegion.get` builds a `Scan` and reads one row from its `RegionScanner`); a Scan
//! walks the table's regions ([`TableScan`]). Both check the table and the families they name
//! here, once, and read each region through [`RegionScanner::open`].

use super::read_context::ReadContext;
use super::region_scanner::{ReadRequest, RegionScanner, RowRange};
use super::table_scan::TableScan;
use crate::api::{Get, ReadSpec, RowResult, Scan};
use crate::error::{Error, Result};
use crate::region::{Region, TableEntry};
use crate::schema::TableName;
use bytes::Bytes;
use std::borrow::Cow;
use std::ops::Bound;
use std::sync::Arc;

/// Table `table`'s entry, for a read of `spec`: the table exists and is enabled, and has every
/// family `spec` names (else HBase's `NoSuchColumnFamilyException`).
pub(crate) fn checked_table(
    ctx: &dyn ReadContext,
    table: &TableName,
    spec: &ReadSpec,
) -> Result<Arc<TableEntry>> {
    let entry = ctx.enabled_table(table)?;
    for f in spec.columns.keys() {
        if entry.descriptor.family(f).is_none() {
            return Err(Error::NoSuchColumnFamily {
                table: table.to_string(),
                family: String::from_utf8_lossy(f).into_owned(),
            });
        }
    }
    Ok(entry)
}

/// Reads one row of `table` as of now. An absent row gives an empty result.
pub(crate) fn get(ctx: &dyn ReadContext, table: &TableName, get: &Get) -> Result<RowResult> {
    let entry = checked_table(ctx, table, &get.spec)?;
    get_in_region(ctx, entry.region_ref(&get.row), get, ctx.read_point())
}

/// Reads one row of `region` (which holds it) as of `read_point`: a scan of that row alone.
/// For the write path, which has found and locked the region (a read-modify-write, a delete
/// of the newest version); the table and families are the caller's to check.
pub(crate) fn get_in_region(
    ctx: &dyn ReadContext,
    region: &Region,
    get: &Get,
    read_point: u64,
) -> Result<RowResult> {
    let req = ReadRequest {
        spec: Cow::Borrowed(&get.spec),
        get_row: Some(&get.row),
        expected_rows: None,
        reversed: false,
    };
    let range = RowRange {
        lo: Bound::Included(get.row.clone()),
        hi: Bound::Included(get.row.clone()),
    };
    let mut rs = RegionScanner::open(ctx, region, &req, range, read_point)?;
    Ok(match rs.next_row()? {
        Some(cells) => RowResult::of_cells(cells),
        None => RowResult::new(Bytes::copy_from_slice(&get.row), Vec::new()),
    })
}

/// Opens a scan of `table`: a consistent snapshot as of now.
pub(crate) fn scan(ctx: Arc<dyn ReadContext>, table: TableName, scan: &Scan) -> Result<TableScan> {
    ctx.check_open()?;
    let entry = checked_table(&*ctx, &table, &scan.spec)?;
    TableScan::open(ctx, table, &entry, scan)
}
