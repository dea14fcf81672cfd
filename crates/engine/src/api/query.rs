//! Gets and Scans (HBase's `Get`, `Scan`) and their results.

use crate::cell::{prefix_successor, Cell};
use crate::filter::Filter;
use crate::read::TimeRange;
use bytes::Bytes;
use std::collections::BTreeMap;

/// Which families and columns a read returns: family → qualifiers (empty = the whole family).
/// An empty map means every family.
pub type ColumnSelection = BTreeMap<Vec<u8>, Vec<Vec<u8>>>;

fn add_family(cols: &mut ColumnSelection, family: Vec<u8>) {
    cols.insert(family, Vec::new());
}

fn add_column(cols: &mut ColumnSelection, family: Vec<u8>, qualifier: Vec<u8>) {
    let e = cols.entry(family).or_default();
    if !e.contains(&qualifier) {
        e.push(qualifier);
        e.sort();
    }
}

/// What a read returns of each row it reads, shared by [`Get`] and [`Scan`] (the settings of
/// HBase's `Query` and their common builder methods): families and columns, timestamps,
/// versions, raw mode and the filter. `Get` and `Scan` dereference to theirs, so `get.columns`
/// is `get.spec.columns`.
#[derive(Debug, Clone)]
pub struct ReadSpec {
    /// Families and columns; empty for all.
    pub columns: ColumnSelection,
    /// Timestamps read.
    pub time_range: TimeRange,
    /// Versions per column (default 1; capped by the family's VERSIONS).
    pub max_versions: u32,
    /// Return delete markers and masked cells too.
    pub raw: bool,
    /// Filter applied in the read path.
    pub filter: Option<Box<dyn Filter>>,
}

impl Default for ReadSpec {
    /// Every column, every timestamp, the newest version, no filter.
    fn default() -> Self {
        ReadSpec {
            columns: ColumnSelection::new(),
            time_range: TimeRange::ALL,
            max_versions: 1,
            raw: false,
            filter: None,
        }
    }
}

/// The builder methods of a [`ReadSpec`], for a type with a `spec` field (`Get`, `Scan`).
macro_rules! read_spec_builders {
    () => {
        /// Reads the whole `family`.
        pub fn add_family(mut self, family: impl Into<Vec<u8>>) -> Self {
            add_family(&mut self.spec.columns, family.into());
            self
        }

        /// Reads `family:qualifier`.
        pub fn add_column(
            mut self,
            family: impl Into<Vec<u8>>,
            qualifier: impl Into<Vec<u8>>,
        ) -> Self {
            add_column(&mut self.spec.columns, family.into(), qualifier.into());
            self
        }

        /// Applies `filter`.
        pub fn filter(mut self, filter: Box<dyn Filter>) -> Self {
            self.spec.filter = Some(filter);
            self
        }

        /// Reads timestamps in [min, max).
        pub fn time_range(mut self, tr: TimeRange) -> Self {
            self.spec.time_range = tr;
            self
        }

        /// Reads exactly timestamp `ts`.
        pub fn timestamp(mut self, ts: i64) -> Self {
            self.spec.time_range = TimeRange::at(ts);
            self
        }

        /// Reads up to `n` versions per column.
        pub fn max_versions(mut self, n: u32) -> Self {
            self.spec.max_versions = n.max(1);
            self
        }

        /// Raw read: delete markers and the cells they mask are returned too.
        pub fn raw(mut self, raw: bool) -> Self {
            self.spec.raw = raw;
            self
        }
    };
}

/// `Get` and `Scan` read their [`ReadSpec`]'s fields as their own.
macro_rules! deref_read_spec {
    ($t:ty) => {
        impl std::ops::Deref for $t {
            type Target = ReadSpec;

            fn deref(&self) -> &ReadSpec {
                &self.spec
            }
        }

        impl std::ops::DerefMut for $t {
            fn deref_mut(&mut self) -> &mut ReadSpec {
                &mut self.spec
            }
        }
    };
}

deref_read_spec!(Get);
deref_read_spec!(Scan);

/// Reads one row.
#[derive(Debug, Clone)]
pub struct Get {
    /// Row key.
    pub row: Vec<u8>,
    /// Columns, timestamps, versions, raw mode and filter.
    pub spec: ReadSpec,
}

impl Get {
    /// A get of the newest version of every column of `row`.
    pub fn new(row: impl Into<Vec<u8>>) -> Self {
        Get {
            row: row.into(),
            spec: ReadSpec::default(),
        }
    }

    read_spec_builders!();
}

/// Reads a range of rows.
#[derive(Debug, Clone)]
pub struct Scan {
    /// First row (inclusive unless `start_inclusive` is false); empty = from the beginning
    /// (or the end, reversed).
    pub start_row: Vec<u8>,
    /// Whether `start_row` itself is included.
    pub start_inclusive: bool,
    /// Row to stop at (exclusive unless `stop_inclusive`); empty = no bound.
    pub stop_row: Vec<u8>,
    /// Whether `stop_row` itself is included.
    pub stop_inclusive: bool,
    /// Columns, timestamps, versions, raw mode and filter.
    pub spec: ReadSpec,
    /// Rows in descending order; `start_row` is then the larger bound.
    pub reversed: bool,
    /// Rows fetched per round trip by remote clients (a hint; the embedded engine streams).
    pub caching: usize,
    /// At most this many cells per returned result; a wider row comes back in several, and
    /// the engine never holds more of the row than one result (HBase's `Scan.setBatch`).
    pub batch: Option<usize>,
    /// At most about this many bytes (cells' [`Cell::heap_size`]) per returned result when
    /// `allow_partial_results` is set: a larger row comes back in pieces, each read before the
    /// rest of the row (HBase's `setMaxResultSize`). Without `allow_partial_results` results are
    /// whole rows, as HBase's client stitches partial results back together.
    pub max_result_size: Option<usize>,
    /// Results may end inside a row at `max_result_size`; such a result says so with
    /// [`RowResult::may_have_more_cells_in_row`] (HBase's `setAllowPartialResults`).
    pub allow_partial_results: bool,
    /// At most this many rows in all.
    pub limit: Option<usize>,
    /// Read as of this read point, an earlier scanner's ([`crate::ResultScanner::read_point`];
    /// HBase's `Scan.mvccReadPoint`, which its client passes back when it reopens a scanner):
    /// writes completed after it are not seen. Never above the engine's current read point,
    /// and raised to the lowest one a flush or compaction has kept whole when it is older.
    /// `None`: as of the moment the scan opens.
    pub read_point: Option<u64>,
    /// Record what the scan costs ([`crate::ReadCost`]), read with
    /// [`crate::ResultScanner::cost`]. Off by default; when off the read path only checks a
    /// thread-local flag where it would count.
    pub explain: bool,
    /// A remote client asks for the next `caching` rows as soon as a batch arrives, before
    /// the caller has taken it, so the server reads the next batch while the caller works on
    /// this one (HBase's `Scan.setAsyncPrefetch`; off by default as there). A scanner dropped
    /// early has had one batch more read than it used. The embedded engine streams and ignores it.
    pub async_prefetch: bool,
}

impl Default for Scan {
    fn default() -> Self {
        Scan {
            start_row: Vec::new(),
            start_inclusive: true,
            stop_row: Vec::new(),
            stop_inclusive: false,
            spec: ReadSpec::default(),
            reversed: false,
            caching: 100,
            batch: None,
            max_result_size: None,
            allow_partial_results: false,
            limit: None,
            read_point: None,
            explain: false,
            async_prefetch: false,
        }
    }
}

impl Scan {
    /// A scan of the whole table.
    pub fn new() -> Self {
        Scan::default()
    }

    /// Starts at `row` (inclusive). As HBase's `Scan.setStartRow`: when the stop row is the
    /// same non-empty row, the stop row becomes inclusive and the scan is a Get of that row
    /// (see [`Scan::is_get_scan`]).
    pub fn with_start_row(mut self, row: impl Into<Vec<u8>>) -> Self {
        self.start_row = row.into();
        self.start_inclusive = true;
        if self.same_start_and_stop() {
            self.stop_inclusive = true;
        }
        self
    }

    /// Stops before `row`. As HBase's `Scan.setStopRow` (which HBase's Thrift gateway and shell
    /// use): a stop row equal to the non-empty start row is inclusive, so
    /// `with_start_row(b).with_stop_row(b)` reads row `b` (see [`Scan::is_get_scan`]). To scan
    /// up to and excluding the start row itself (nothing), set `stop_inclusive` afterwards.
    pub fn with_stop_row(mut self, row: impl Into<Vec<u8>>) -> Self {
        self.stop_row = row.into();
        self.stop_inclusive = self.same_start_and_stop();
        self
    }

    fn same_start_and_stop(&self) -> bool {
        !self.start_row.is_empty() && self.start_row == self.stop_row
    }

    /// True when the scan reads exactly one row, as a Get does (HBase's `Scan.isGetScan`): the
    /// start and stop rows are the same non-empty row and both are inclusive.
    pub fn is_get_scan(&self) -> bool {
        self.start_inclusive && self.stop_inclusive && self.same_start_and_stop()
    }

    /// Reads the rows starting with `prefix` (HBase's `setRowPrefixFilter`), in either direction.
    pub fn with_row_prefix(mut self, prefix: impl Into<Vec<u8>>) -> Self {
        let prefix = prefix.into();
        let succ = prefix_successor(&prefix).unwrap_or_default();
        if self.reversed {
            self.start_row = succ;
            self.start_inclusive = false;
            self.stop_row = prefix;
            self.stop_inclusive = true;
        } else {
            self.start_row = prefix;
            self.start_inclusive = true;
            self.stop_row = succ;
            self.stop_inclusive = false;
        }
        self
    }

    /// Rows in descending order. Set before `with_row_prefix`.
    pub fn reversed(mut self, r: bool) -> Self {
        self.reversed = r;
        self
    }

    /// Rows per round trip for remote clients.
    pub fn caching(mut self, n: usize) -> Self {
        self.caching = n.max(1);
        self
    }

    /// At most `n` cells per result.
    pub fn batch(mut self, n: usize) -> Self {
        self.batch = Some(n.max(1));
        self
    }

    /// Results of at most about `bytes` bytes, pieces of a row if `allow_partial_results`.
    pub fn max_result_size(mut self, bytes: usize) -> Self {
        self.max_result_size = Some(bytes.max(1));
        self
    }

    /// Lets results end inside a row (at `max_result_size`).
    pub fn allow_partial_results(mut self, allow: bool) -> Self {
        self.allow_partial_results = allow;
        self
    }

    /// At most `n` rows.
    pub fn limit(mut self, n: usize) -> Self {
        self.limit = Some(n);
        self
    }

    /// Records what the scan costs ([`Scan::explain`]).
    pub fn explain(mut self, on: bool) -> Self {
        self.explain = on;
        self
    }

    /// Fetches the next batch while the caller takes this one ([`Scan::async_prefetch`]).
    pub fn async_prefetch(mut self, on: bool) -> Self {
        self.async_prefetch = on;
        self
    }

    read_spec_builders!();
}

/// The cells of one row returned by a read (HBase's `Result`), sorted by family, qualifier and
/// newest timestamp first. With a scan batch, one row may come back as several results.
///
/// A result read from the engine keeps no row key of its own: [`RowResult::row`] is its first
/// cell's row, as HBase's `Result.getRow()` is. A separate handle on the row's buffer cost two
/// locked reference-count updates per row of a scan. Only a result without cells (a Get of an
/// absent row) holds its row itself.
#[derive(Debug, Clone, Default)]
pub struct RowResult {
    /// The row key when the result holds it itself; `None` when it is the first cell's row.
    row: Option<Bytes>,
    /// The cells.
    pub cells: Vec<Cell>,
    /// A piece of a row that may continue in the next result.
    more_in_row: bool,
}

impl PartialEq for RowResult {
    fn eq(&self, o: &RowResult) -> bool {
        self.row() == o.row() && self.cells == o.cells
    }
}

impl Eq for RowResult {}

impl RowResult {
    /// A result of `row` holding `cells` (which should be cells of `row`). The row is kept
    /// even when cells are later removed.
    pub fn new(row: impl Into<Bytes>, cells: Vec<Cell>) -> RowResult {
        RowResult {
            row: Some(row.into()),
            cells,
            more_in_row: false,
        }
    }

    /// A result whose row is its first cell's (the read path's results: no handle of its own).
    pub fn of_cells(cells: Vec<Cell>) -> RowResult {
        RowResult {
            row: None,
            cells,
            more_in_row: false,
        }
    }

    /// A piece of a row: its cells, and whether more of the row may follow in the next result.
    pub fn piece(cells: Vec<Cell>, more_in_row: bool) -> RowResult {
        RowResult {
            row: None,
            cells,
            more_in_row,
        }
    }

    /// True when this result is a piece of a row that may continue in the next result (a scan
    /// with `batch` or `max_result_size` and partial results; HBase's
    /// `Result.mayHaveMoreCellsInRow`). A whole row, or the last piece of one, says false.
    pub fn may_have_more_cells_in_row(&self) -> bool {
        self.more_in_row
    }

    /// The row key: the one given to [`RowResult::new`], else the first cell's row (empty for a
    /// result of no cells).
    pub fn row(&self) -> &[u8] {
        match (&self.row, self.cells.first()) {
            (Some(r), _) => r,
            (None, Some(c)) => c.row(),
            (None, None) => &[],
        }
    }

    /// The row key as a shared buffer (no copy).
    pub fn row_bytes(&self) -> Bytes {
        match (&self.row, self.cells.first()) {
            (Some(r), _) => r.clone(),
            (None, Some(c)) => c.row_bytes(),
            (None, None) => Bytes::new(),
        }
    }

    /// True when the row had nothing to return.
    pub fn is_empty(&self) -> bool {
        self.cells.is_empty()
    }

    /// The newest value of `family:qualifier`.
    pub fn value(&self, family: &[u8], qualifier: &[u8]) -> Option<&[u8]> {
        self.cells
            .iter()
            .find(|c| {
                c.family() == family && c.qualifier() == qualifier && !c.cell_type().is_delete()
            })
            .map(|c| c.value())
    }

    /// Every returned version of `family:qualifier`, newest first.
    pub fn versions(&self, family: &[u8], qualifier: &[u8]) -> Vec<&Cell> {
        self.cells
            .iter()
            .filter(|c| c.family() == family && c.qualifier() == qualifier)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cell::CellType;

    #[test]
    fn get_and_scan_builders_fill_the_same_read_spec() {
        let g = Get::new("r")
            .add_column("f", "b")
            .add_column("f", "a")
            .add_family("g")
            .timestamp(7)
            .max_versions(0)
            .raw(true);
        let s = Scan::new()
            .add_family("g")
            .add_column("f", "a")
            .add_column("f", "b")
            .timestamp(7)
            .max_versions(0)
            .raw(true);
        for spec in [&g.spec, &s.spec] {
            assert_eq!(spec.columns[&b"f"[..]], vec![b"a".to_vec(), b"b".to_vec()]);
            assert!(spec.columns[&b"g"[..]].is_empty());
            assert_eq!(spec.time_range, TimeRange::at(7));
            assert_eq!(spec.max_versions, 1, "at least one version");
            assert!(spec.raw);
        }
        // The fields read through either type are the spec's.
        let mut s = s;
        s.max_versions = 3;
        assert_eq!(s.spec.max_versions, 3);
        assert_eq!(g.columns, g.spec.columns);
    }

    fn cell(row: &str) -> Cell {
        Cell::new(row.to_owned(), "f", "q", 1, CellType::Put, "v")
    }

    #[test]
    fn row_result_row_is_the_first_cells_unless_given() {
        let read = RowResult::of_cells(vec![cell("r1"), cell("r1")]);
        assert_eq!(read.row(), b"r1");
        assert_eq!(read.row_bytes(), Bytes::from_static(b"r1"));
        // Equal to the same row built with its key, whichever way each holds it.
        assert_eq!(read, RowResult::new("r1", vec![cell("r1"), cell("r1")]));
        assert_ne!(read, RowResult::new("r2", vec![cell("r1"), cell("r1")]));
        // A given row stays when the cells go (a Get of an absent row).
        let mut absent = RowResult::new("gone", vec![cell("gone")]);
        absent.cells.clear();
        assert_eq!(absent.row(), b"gone");
        assert!(RowResult::of_cells(Vec::new()).row().is_empty());
    }
}
