//! `ferrobase copy`: a table, or a row range, a time range or some families of it, copied from
//! one store to another, as HBase's `CopyTable` (`org.apache.hadoop.hbase.mapreduce.CopyTable`)
//! copies one: every cell at its own timestamp, the versions asked for, delete markers too when
//! asked (`--all.cells`, a raw scan), families renamed `source:dest`. Either side is an embedded
//! data directory, a ferrobase server or Apache HBase's Thrift1 gateway.
//!
//! What Apache's Thrift1 gateway cannot carry is said before anything is written, or, for a
//! delete marker it cannot write, stops the copy at that row with what had been written: it has
//! no raw scan (so no markers can be read from it) and no multi-version scan (versions are read
//! row by row with `getVer`, slower), and it writes only `DeleteColumn` and `DeleteFamily`
//! markers (`deleteAllTs`).

use crate::error::{Error, Result};
use crate::stop::StopFlag;
use ferrobase_client::{Backend, ClientError, Connection, Table};
use ferrobase_engine::{
    Cell, CellType, ColumnFamilyDescriptor, Delete, Get, MutationCell, Put, RowResult, Scan,
    TableDescriptor, TableName, TimeRange,
};
use std::collections::BTreeMap;

/// "Every version the source keeps" (`--versions` not given): the most `getVer` can ask for.
pub const ALL_VERSIONS: u32 = i32::MAX as u32;

/// What to copy (HBase CopyTable's options), with their defaults.
#[derive(Debug, Clone)]
pub struct CopyOptions {
    /// The destination table's name (CopyTable's `--new.name`; default the source's).
    pub to_table: Option<String>,
    /// First row copied (`--startrow`; empty: the table's first).
    pub start_row: Vec<u8>,
    /// Row to stop before (`--stoprow`; empty: the table's end).
    pub stop_row: Vec<u8>,
    /// Timestamps copied, [start, end) in ms (`--starttime`, `--endtime`; default all).
    pub time_range: TimeRange,
    /// Versions per column (`--versions`; default [`ALL_VERSIONS`], where CopyTable copies the
    /// newest only).
    pub versions: u32,
    /// Families copied, each `(source, destination)` (`--families a,b:c`; empty: all, same
    /// names).
    pub families: Vec<(Vec<u8>, Vec<u8>)>,
    /// Delete markers and the cells they mask too (`--all.cells`, a raw scan; default false).
    pub raw: bool,
    /// Create the destination table with the source's families and attributes when it is
    /// missing (default false: a missing table is an error).
    pub create: bool,
    /// Rows read per scanner call and written per batch (default 500).
    pub batch_rows: usize,
    /// Stops the copy between two batches when requested.
    pub stop: StopFlag,
}

impl Default for CopyOptions {
    fn default() -> Self {
        CopyOptions {
            to_table: None,
            start_row: Vec::new(),
            stop_row: Vec::new(),
            time_range: TimeRange::ALL,
            versions: ALL_VERSIONS,
            families: Vec::new(),
            raw: false,
            create: false,
            batch_rows: 500,
            stop: StopFlag::new(),
        }
    }
}

/// The side of a copy an error is on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Side {
    /// The store read from.
    Source,
    /// The store written to.
    Destination,
}

impl std::fmt::Display for Side {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Side::Source => "source",
            Side::Destination => "destination",
        })
    }
}

/// What a copy has written to the destination so far.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CopySummary {
    /// Rows written (every cell of the row written).
    pub rows: u64,
    /// Cells written, delete markers included.
    pub cells: u64,
    /// Of them, delete markers.
    pub delete_markers: u64,
    /// The cells' row, family, qualifier and value bytes.
    pub bytes: u64,
}

impl std::fmt::Display for CopySummary {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} rows, {} cells", self.rows, self.cells)?;
        match self.delete_markers {
            0 => {}
            1 => write!(f, " (1 delete marker)")?,
            n => write!(f, " ({n} delete markers)")?,
        }
        write!(f, ", {} bytes", self.bytes)
    }
}

/// A checked copy: both stores reached, the tables and families checked, the destination
/// created if asked. [`CopyPlan::run`] copies.
#[derive(Debug)]
pub struct CopyPlan {
    source: Connection,
    destination: Connection,
    table: String,
    to_table: String,
    /// What the source and destination are.
    pub backends: (Backend, Backend),
    /// True when the destination table was created by [`prepare_copy`].
    pub created: bool,
    /// What the user should know before the copy starts (a slower path, what cannot be carried).
    pub notes: Vec<String>,
    /// Family renames, source → destination.
    renames: BTreeMap<Vec<u8>, Vec<u8>>,
    opts: CopyOptions,
}

fn side_error(side: Side, conn: &Connection, what: impl Into<String>) -> Error {
    Error::Copy {
        side,
        store: conn.describe(),
        what: what.into(),
        written: None,
        source: None,
    }
}

fn client_error(
    side: Side,
    conn: &Connection,
    what: impl Into<String>,
    written: Option<&CopySummary>,
) -> impl FnOnce(ClientError) -> Error {
    let (store, what, written) = (conn.describe(), what.into(), written.cloned().map(Box::new));
    move |source| Error::Copy {
        side,
        store,
        what,
        written,
        source: Some(Box::new(source)),
    }
}

/// True when `a` and `b` are the same store: the same data directory, or gateways at the same
/// address (host names resolved).
pub fn same_store(a: &Connection, b: &Connection) -> bool {
    use std::net::ToSocketAddrs;
    match (a, b) {
        (Connection::Embedded(x), Connection::Embedded(y)) => {
            let canon = |p: &std::path::Path| p.canonicalize().unwrap_or_else(|_| p.to_path_buf());
            canon(x.dir()) == canon(y.dir())
        }
        (Connection::Remote(x), Connection::Remote(y)) => {
            if x.addr() == y.addr() {
                return true;
            }
            let resolve = |addr: &str| -> Vec<std::net::SocketAddr> {
                addr.to_socket_addrs()
                    .map(|i| i.collect())
                    .unwrap_or_default()
            };
            let ys = resolve(y.addr());
            resolve(x.addr()).iter().any(|s| ys.contains(s))
        }
        _ => false,
    }
}

/// Checks a copy of `table` from `source` to `destination` and creates the destination table
/// when `opts.create` asks: the two must not be the same table; the source table must exist
/// with the families named; the destination must exist with the (renamed) families, or is
/// created with the source's family descriptors, table attributes (when the source's door
/// gives them) and region boundaries (when the destination's takes them). What a side cannot
/// carry is refused here, before anything is written, or listed in [`CopyPlan::notes`].
pub fn prepare_copy(
    source: &Connection,
    table: &str,
    destination: &Connection,
    opts: &CopyOptions,
) -> Result<CopyPlan> {
    let to_table = opts.to_table.clone().unwrap_or_else(|| table.to_string());
    let canonical = |t: &str| {
        TableName::parse(t)
            .map(|n| n.to_string())
            .unwrap_or_else(|_| t.to_string())
    };
    if same_store(source, destination) && canonical(table) == canonical(&to_table) {
        return Err(Error::Invalid(format!(
            "source and destination are the same table ({table} of {}): give another store or \
             --to-table NAME",
            source.describe()
        )));
    }
    let src_backend = source.backend().map_err(client_error(
        Side::Source,
        source,
        "reaching the store",
        None,
    ))?;
    let dst_backend = destination.backend().map_err(client_error(
        Side::Destination,
        destination,
        "reaching the store",
        None,
    ))?;
    let mut notes = Vec::new();
    if opts.raw && src_backend == Backend::HBaseThrift1 {
        return Err(side_error(
            Side::Source,
            source,
            "--all.cells (delete markers and the cells they mask) needs a raw scan, which \
             HBase's Thrift1 API does not have; copy without --all.cells (live cells only), or \
             use HBase's Export with hbase.mapreduce.include.deleted.rows=true and \
             `ferrobase import`",
        ));
    }
    if opts.raw && dst_backend == Backend::HBaseThrift1 {
        notes.push(
            "the destination is an HBase Thrift1 gateway: it writes DeleteColumn and \
             DeleteFamily markers (deleteAllTs) but has no call for a version's Delete or a \
             DeleteFamilyVersion marker; the copy stops at the first such marker, saying what \
             was written"
                .to_string(),
        );
    }
    if opts.versions > 1 && src_backend == Backend::HBaseThrift1 {
        notes.push(format!(
            "the source is an HBase Thrift1 gateway: its scans return the newest version only, \
             so {} read row by row (getVer for each column); --versions 1 reads by scan",
            if opts.versions == ALL_VERSIONS {
                "every version is".to_string()
            } else {
                format!("up to {} versions are", opts.versions)
            }
        ));
    }

    let src_families = source.describe_table(table).map_err(|e| {
        if e.is_table_not_found() {
            side_error(
                Side::Source,
                source,
                format!("table {table} does not exist"),
            )
        } else {
            client_error(Side::Source, source, format!("describing {table}"), None)(e)
        }
    })?;
    let mut renames = BTreeMap::new();
    for (from, to) in &opts.families {
        if !src_families.iter().any(|f| &f.name == from) {
            return Err(side_error(
                Side::Source,
                source,
                format!(
                    "table {table} has no family {}",
                    String::from_utf8_lossy(from)
                ),
            ));
        }
        renames.insert(from.clone(), to.clone());
    }
    if renames.is_empty() {
        for f in &src_families {
            renames.insert(f.name.to_vec(), f.name.to_vec());
        }
    }
    let wanted: Vec<ColumnFamilyDescriptor> = src_families
        .iter()
        .filter_map(|f| {
            renames.get(&f.name.to_vec()).map(|to| {
                let mut d = f.clone();
                d.name = to.clone();
                d
            })
        })
        .collect();

    let exists = destination.table_exists(&to_table).map_err(client_error(
        Side::Destination,
        destination,
        "listing tables",
        None,
    ))?;
    let mut created = false;
    if exists {
        let have = destination.describe_table(&to_table).map_err(client_error(
            Side::Destination,
            destination,
            format!("describing {to_table}"),
            None,
        ))?;
        let missing: Vec<String> = wanted
            .iter()
            .filter(|w| !have.iter().any(|h| h.name == w.name))
            .map(|w| w.name_str())
            .collect();
        if !missing.is_empty() {
            return Err(side_error(
                Side::Destination,
                destination,
                format!(
                    "table {to_table} has no famil{} {}",
                    if missing.len() == 1 { "y" } else { "ies" },
                    missing.join(", ")
                ),
            ));
        }
    } else if !opts.create {
        return Err(side_error(
            Side::Destination,
            destination,
            format!(
                "table {to_table} does not exist: create it, or give --create to make it with \
                 the source's families and attributes"
            ),
        ));
    } else {
        let name = TableName::parse(&to_table).map_err(|e| {
            side_error(
                Side::Destination,
                destination,
                format!("table name {to_table:?}: {e}"),
            )
        })?;
        let mut desc = TableDescriptor::new(name);
        for f in wanted.clone() {
            desc = desc.with_family(f);
        }
        match source.table_attributes(table).map_err(client_error(
            Side::Source,
            source,
            format!("reading the attributes of {table}"),
            None,
        ))? {
            Some((durability, attributes)) => {
                desc.durability = durability;
                desc.attributes = attributes;
            }
            None => notes.push(format!(
                "the source's Thrift1 API gives no table attributes: {to_table} was created \
                 with the families' attributes only"
            )),
        }
        let splits: Vec<Vec<u8>> = source
            .regions(table)
            .map_err(client_error(
                Side::Source,
                source,
                format!("listing the regions of {table}"),
                None,
            ))?
            .into_iter()
            .map(|r| r.start.to_vec())
            .filter(|k| !k.is_empty())
            .collect();
        let splits = if dst_backend == Backend::HBaseThrift1 && !splits.is_empty() {
            notes.push(format!(
                "HBase's Thrift1 API creates no pre-split table: {to_table} was created as one \
                 region (the source has {})",
                splits.len() + 1
            ));
            Vec::new()
        } else {
            splits
        };
        destination
            .create_table(desc, &splits)
            .map_err(client_error(
                Side::Destination,
                destination,
                format!("creating {to_table}"),
                None,
            ))?;
        created = true;
    }
    Ok(CopyPlan {
        source: source.clone(),
        destination: destination.clone(),
        table: table.to_string(),
        to_table,
        backends: (src_backend, dst_backend),
        created,
        notes,
        renames,
        opts: opts.clone(),
    })
}

fn mutation_cell(c: &Cell, family: &[u8]) -> MutationCell {
    MutationCell {
        family: family.to_vec().into(),
        qualifier: c.qualifier().to_vec().into(),
        timestamp: c.timestamp(),
        cell_type: c.cell_type(),
        value: c.value().to_vec().into(),
    }
}

fn cell_bytes(c: &Cell) -> u64 {
    (c.row().len() + c.family().len() + c.qualifier().len() + c.value().len()) as u64
}

/// Puts buffered before a write: at most the batch's rows, or about this many bytes.
const BATCH_BYTES: u64 = 4 << 20;

/// Writes rows in order to the destination, puts in batches; counts what is written.
struct Writer<'a> {
    plan: &'a CopyPlan,
    table: Table,
    puts: Vec<Put>,
    pending: CopySummary,
    written: CopySummary,
}

impl Writer<'_> {
    fn fail(&self, what: String) -> impl FnOnce(ClientError) -> Error + '_ {
        client_error(
            Side::Destination,
            &self.plan.destination,
            what,
            Some(&self.written),
        )
    }

    fn flush(&mut self) -> Result<()> {
        if !self.puts.is_empty() {
            let puts = std::mem::take(&mut self.puts);
            let rows = puts.len();
            self.table.put_all(puts).map_err(self.fail(format!(
                "writing a batch of {rows} rows (some of them may be written; not counted)"
            )))?;
        }
        let p = std::mem::take(&mut self.pending);
        self.written.rows += p.rows;
        self.written.cells += p.cells;
        self.written.delete_markers += p.delete_markers;
        self.written.bytes += p.bytes;
        Ok(())
    }

    /// Writes one row's cells (already renamed): its puts into the batch, its markers at once
    /// (after the puts before them), each DeleteFamily its own Delete as HBase's Import does.
    fn row(&mut self, row: &[u8], cells: &[(Cell, Vec<u8>)]) -> Result<()> {
        let mut put: Option<Put> = None;
        let mut deletes: Vec<Delete> = Vec::new();
        let mut other: Option<Delete> = None;
        let mut counted = CopySummary {
            rows: 1,
            ..CopySummary::default()
        };
        for (c, family) in cells {
            counted.cells += 1;
            counted.bytes += cell_bytes(c);
            let t = c.cell_type();
            if t.is_delete() {
                counted.delete_markers += 1;
                if self.plan.backends.1 == Backend::HBaseThrift1
                    && matches!(t, CellType::Delete | CellType::DeleteFamilyVersion)
                {
                    self.flush()?;
                    return Err(Error::Copy {
                        side: Side::Destination,
                        store: self.plan.destination.describe(),
                        what: format!(
                            "row {:?} has a {} marker ({}:{} at {}), which HBase's Thrift1 API \
                             cannot write (it deletes whole columns or families up to a \
                             timestamp); copy without --all.cells, or into a ferrobase store",
                            String::from_utf8_lossy(row),
                            t.name(),
                            String::from_utf8_lossy(family),
                            String::from_utf8_lossy(c.qualifier()),
                            c.timestamp()
                        ),
                        written: Some(Box::new(self.written.clone())),
                        source: None,
                    });
                }
                if t == CellType::DeleteFamily {
                    let mut d = Delete::new(row.to_vec());
                    d.cells.push(mutation_cell(c, family));
                    deletes.push(d);
                } else {
                    other
                        .get_or_insert_with(|| Delete::new(row.to_vec()))
                        .cells
                        .push(mutation_cell(c, family));
                }
            } else {
                put.get_or_insert_with(|| Put::new(row.to_vec()))
                    .cells
                    .push(mutation_cell(c, family));
            }
        }
        deletes.extend(other);
        if let Some(p) = put {
            self.puts.push(p);
        }
        if deletes.is_empty() {
            self.add_pending(&counted);
            if self.puts.len() >= self.plan.opts.batch_rows.max(1)
                || self.pending.bytes >= BATCH_BYTES
            {
                self.flush()?;
            }
            return Ok(());
        }
        // The row's puts go with the batch before its markers; the row counts once all are in.
        self.flush()?;
        for d in deletes {
            self.table.delete(d).map_err(self.fail(format!(
                "writing the delete markers of row {:?}",
                String::from_utf8_lossy(row)
            )))?;
        }
        self.add_pending(&counted);
        self.flush()
    }

    fn add_pending(&mut self, c: &CopySummary) {
        self.pending.rows += c.rows;
        self.pending.cells += c.cells;
        self.pending.delete_markers += c.delete_markers;
        self.pending.bytes += c.bytes;
    }
}

impl CopyPlan {
    /// The destination table's name.
    pub fn to_table(&self) -> &str {
        &self.to_table
    }

    /// The source store's description (`file:DIR`, `thrift://ADDR`).
    pub fn source(&self) -> String {
        self.source.describe()
    }

    /// The destination store's description.
    pub fn destination(&self) -> String {
        self.destination.describe()
    }

    /// Copies. `progress` is called after every batch written with the totals written so far.
    /// On an error or a stop request, the error carries exactly what had been written (rows
    /// whose every cell was written).
    pub fn run(&self, progress: &mut dyn FnMut(&CopySummary)) -> Result<CopySummary> {
        let o = &self.opts;
        let table = &self.table;
        let by_get = self.backends.0 == Backend::HBaseThrift1 && o.versions > 1;
        let mut scan = Scan::new()
            .with_start_row(o.start_row.clone())
            .time_range(o.time_range)
            .max_versions(if by_get { 1 } else { o.versions })
            .raw(o.raw);
        if !o.stop_row.is_empty() {
            scan = scan.with_stop_row(o.stop_row.clone());
        }
        if !o.families.is_empty() {
            for from in self.renames.keys() {
                scan = scan.add_family(from.clone());
            }
        }
        let batch = o.batch_rows.max(1);
        scan.caching = batch;
        let src_table = self.source.table(table);
        let mut w = Writer {
            plan: self,
            table: self.destination.table(&self.to_table),
            puts: Vec::new(),
            pending: CopySummary::default(),
            written: CopySummary::default(),
        };
        let mut scanner = src_table.scanner(scan, None).map_err(client_error(
            Side::Source,
            &self.source,
            format!("scanning {table}"),
            Some(&w.written),
        ))?;
        loop {
            let rows = scanner.next_batch(batch).map_err(client_error(
                Side::Source,
                &self.source,
                format!("scanning {table}"),
                Some(&w.written),
            ))?;
            if rows.is_empty() {
                break;
            }
            for r in rows {
                let r = if by_get {
                    self.versions_of(&src_table, &r, &w.written)?
                } else {
                    r
                };
                let row = r.row().to_vec();
                let cells: Vec<(Cell, Vec<u8>)> = r
                    .cells
                    .into_iter()
                    .filter_map(|c| {
                        let to = self.renames.get(c.family())?.clone();
                        Some((c, to))
                    })
                    .collect();
                if cells.is_empty() {
                    continue;
                }
                w.row(&row, &cells)?;
            }
            w.flush()?;
            progress(&w.written);
            if o.stop.is_requested() {
                return Err(Error::Interrupted {
                    done: format!("copied {}", w.written),
                });
            }
        }
        w.flush()?;
        progress(&w.written);
        Ok(w.written)
    }

    /// Row `r`'s versions through `getVer` (a source whose scans give the newest only).
    fn versions_of(
        &self,
        src_table: &Table,
        r: &RowResult,
        written: &CopySummary,
    ) -> Result<RowResult> {
        let o = &self.opts;
        let mut get = Get::new(r.row().to_vec())
            .time_range(o.time_range)
            .max_versions(o.versions);
        if !o.families.is_empty() {
            for from in self.renames.keys() {
                get = get.add_family(from.clone());
            }
        }
        src_table.get(get, None).map_err(client_error(
            Side::Source,
            &self.source,
            format!(
                "reading the versions of row {:?} of {}",
                String::from_utf8_lossy(r.row()),
                self.table
            ),
            Some(written),
        ))
    }
}
