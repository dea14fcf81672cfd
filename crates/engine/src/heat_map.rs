//! The key-range heat map (Bigtable's Key Visualizer): per table, the reads and writes (and
//! their bytes) that reached each key range in each time bucket, recorded by [`crate::Table`]
//! for every door. Bounded: the last [`HeatMapOptions::buckets`] buckets of at most
//! [`HeatMapOptions::max_ranges`] ranges each, for at most [`MAX_TABLES`] tables.
//!
//! A bucket's key ranges are fixed when it opens: the table's region boundaries, refined by
//! row keys sampled from the previous bucket's operations (every [`SAMPLE_EVERY`]th operation
//! into a reservoir of [`SAMPLES`] keys) at their quantiles, so a hot part of the key space
//! gets narrow ranges a minute after it gets hot. Recording costs a clock read, a map lookup
//! under a read lock, a binary search over the bucket's boundaries and three relaxed atomic
//! adds; a bucket change takes the table's write lock once.

use crate::api::{Mutation, RowResult};
use crate::cell::cmp_bytes;
use crate::schema::TableName;
use bytes::Bytes;
use std::collections::{HashMap, VecDeque};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::{Duration, SystemTime};

/// Tables tracked, at most; operations on further tables are not recorded.
pub const MAX_TABLES: usize = 1024;
/// One operation in this many adds its row key to the bucket's sample.
pub const SAMPLE_EVERY: u64 = 8;
/// Sampled row keys kept per table and bucket (a reservoir).
pub const SAMPLES: usize = 512;

/// The heat map's shape: bucket width, how many buckets are kept, ranges per bucket.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatMapOptions {
    /// Width of a time bucket (default 60 s; at least 1 s).
    pub bucket: Duration,
    /// Buckets kept per table, the current one included (default 180: three hours of
    /// minutes).
    pub buckets: usize,
    /// Key ranges per bucket, at most (default 32; at least 1).
    pub max_ranges: usize,
    /// False turns recording off (default on).
    pub enabled: bool,
}

impl Default for HeatMapOptions {
    fn default() -> Self {
        HeatMapOptions {
            bucket: Duration::from_secs(60),
            buckets: 180,
            max_ranges: 32,
            enabled: true,
        }
    }
}

/// What reached a key range.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HeatOp {
    Read,
    Write,
}

/// One key range of one bucket, as read by [`crate::Engine::heat_map`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatRange {
    /// First row key of the range (empty: the table's start).
    pub start: Bytes,
    /// The row key after the range (empty: the table's end).
    pub end: Bytes,
    /// Rows read (a get's row, each row a scan returned).
    pub reads: u64,
    /// Rows written (each mutation, increment, append, check-and-mutate).
    pub writes: u64,
    /// Bytes read (cells' row, family, qualifier and value).
    pub read_bytes: u64,
    /// Bytes written (the mutations' row, families, qualifiers and values).
    pub write_bytes: u64,
}

/// Rows read and written over every table's heat map ([`crate::Engine::request_counts`]).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct RequestCounts {
    /// Rows read over the window.
    pub read_rows: u64,
    /// Rows written over the window.
    pub write_rows: u64,
    /// The window: the heat map's buckets times their width, in seconds.
    pub window_secs: u64,
    /// Rows read and written per second over the last full bucket and the current one.
    pub per_second: f64,
}

/// One time bucket of a table's heat map.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatColumn {
    /// When the bucket starts, in seconds since the Unix epoch.
    pub start_secs: u64,
    /// Its key ranges with any operation, in key order.
    pub ranges: Vec<HeatRange>,
    /// Every boundary of its ranges (the first is empty: the table's start), in key order.
    pub bounds: Vec<Bytes>,
}

/// A table's heat map: its buckets, oldest first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HeatMapSnapshot {
    /// The bucket width in seconds.
    pub bucket_secs: u64,
    /// The buckets that saw operations (and the current one), oldest first.
    pub columns: Vec<HeatColumn>,
}

/// Every table's heat. Thread-safe.
#[derive(Debug)]
pub(crate) struct HeatMap {
    opts: HeatMapOptions,
    tables: RwLock<HashMap<TableName, Arc<TableHeat>>>,
}

/// One table's buckets (shared by its scanners and its `Table` handles, which look it up
/// once).
#[derive(Debug)]
pub(crate) struct TableHeat {
    current: RwLock<Column>,
    history: Mutex<VecDeque<Column>>,
    sample: Mutex<Sample>,
    ops: AtomicU64,
    /// Set when the table was dropped ([`HeatMap::forget`]): a handle holding this heat looks
    /// the table's up again (a table made again under the name has heat of its own).
    forgotten: AtomicBool,
}

impl TableHeat {
    /// True until the table is forgotten.
    pub(crate) fn is_current(&self) -> bool {
        !self.forgotten.load(Ordering::Acquire)
    }
}

#[derive(Debug, Default)]
struct Sample {
    keys: Vec<Bytes>,
    seen: u64,
}

#[derive(Debug)]
struct Column {
    bucket: u64,
    /// Range `i` is `[bounds[i], bounds[i + 1])`; `bounds[0]` is empty.
    bounds: Arc<Vec<Bytes>>,
    /// reads, writes, read bytes, write bytes per range.
    counts: Vec<[AtomicU64; 4]>,
}

impl Column {
    fn new(bucket: u64, bounds: Arc<Vec<Bytes>>) -> Column {
        let counts = (0..bounds.len()).map(|_| Default::default()).collect();
        Column {
            bucket,
            bounds,
            counts,
        }
    }

    /// The range `row` falls in: the last boundary at or before it (bounds[0] is empty, so
    /// there is one).
    fn range_of(&self, row: &[u8]) -> usize {
        self.bounds
            .partition_point(|b| cmp_bytes(b, row).is_le())
            .saturating_sub(1)
    }

    /// Whether `row` falls in range `i`.
    fn in_range(&self, i: usize, row: &[u8]) -> bool {
        self.bounds
            .get(i)
            .is_some_and(|start| cmp_bytes(start, row).is_le())
            && self
                .bounds
                .get(i + 1)
                .is_none_or(|end| cmp_bytes(row, end).is_lt())
    }

    /// Adds `n` operations of `bytes` to range `i`.
    fn add_to(&self, i: usize, op: HeatOp, n: u64, bytes: u64) {
        if let Some(c) = self.counts.get(i) {
            let (ops, b) = match op {
                HeatOp::Read => (0, 2),
                HeatOp::Write => (1, 3),
            };
            c[ops].fetch_add(n, Ordering::Relaxed);
            c[b].fetch_add(bytes, Ordering::Relaxed);
        }
    }

    /// Counts `ops` and offers `heat`'s sample its rows. Each run of operations of one kind in
    /// one key range is summed here and added once (a sorted batch's 1,000 rows fall in a few
    /// ranges: a few adds on counters every writer shares, not two per row, and a comparison
    /// or two per row instead of a search), and the sample gets every [`SAMPLE_EVERY`]th
    /// operation's row under one lock, as it did one operation at a time.
    fn add_all<'r, I>(&self, heat: &TableHeat, ops: I)
    where
        I: Iterator<Item = (&'r [u8], HeatOp, u64, u64)> + Clone,
    {
        let mut count = 0u64;
        let mut run: Option<(usize, HeatOp, u64, u64)> = None;
        for (row, op, n, bytes) in ops.clone() {
            count += 1;
            match &mut run {
                Some((i, o, rn, rb)) if *o == op && self.in_range(*i, row) => {
                    *rn += n;
                    *rb += bytes;
                }
                _ => {
                    if let Some((i, o, rn, rb)) = run.take() {
                        self.add_to(i, o, rn, rb);
                    }
                    run = Some((self.range_of(row), op, n, bytes));
                }
            }
        }
        if let Some((i, o, rn, rb)) = run {
            self.add_to(i, o, rn, rb);
        }
        heat.sample_all(ops, count);
    }

    fn snapshot(&self, bucket_secs: u64) -> HeatColumn {
        let empty = Bytes::new();
        let ranges = self
            .counts
            .iter()
            .enumerate()
            .filter_map(|(i, c)| {
                let v = c.each_ref().map(|a| a.load(Ordering::Relaxed));
                (v[0] + v[1] > 0).then(|| HeatRange {
                    start: self.bounds[i].clone(),
                    end: self.bounds.get(i + 1).unwrap_or(&empty).clone(),
                    reads: v[0],
                    writes: v[1],
                    read_bytes: v[2],
                    write_bytes: v[3],
                })
            })
            .collect();
        HeatColumn {
            start_secs: self.bucket * bucket_secs,
            ranges,
            bounds: self.bounds.as_ref().clone(),
        }
    }
}

impl HeatMap {
    pub(crate) fn new(opts: HeatMapOptions) -> HeatMap {
        HeatMap {
            opts,
            tables: RwLock::new(HashMap::new()),
        }
    }

    fn bucket_secs(&self) -> u64 {
        self.opts.bucket.as_secs().max(1)
    }

    fn now_bucket(&self) -> u64 {
        coarse_now_secs() / self.bucket_secs()
    }

    /// The heat of `table`, made on its first operation (`regions` gives its region start
    /// keys); `None` when recording is off or [`MAX_TABLES`] other tables are tracked.
    pub(crate) fn table(
        &self,
        table: &TableName,
        regions: impl Fn() -> Vec<Bytes>,
    ) -> Option<Arc<TableHeat>> {
        if !self.opts.enabled {
            return None;
        }
        if let Some(h) = self
            .tables
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(table)
        {
            return Some(h.clone());
        }
        let mut tables = self.tables.write().unwrap_or_else(|p| p.into_inner());
        if tables.len() >= MAX_TABLES && !tables.contains_key(table) {
            return None;
        }
        let bucket = self.now_bucket();
        Some(
            tables
                .entry(table.clone())
                .or_insert_with(|| {
                    let bounds = self.bounds(regions(), Vec::new());
                    Arc::new(TableHeat {
                        current: RwLock::new(Column::new(bucket, Arc::new(bounds))),
                        history: Mutex::new(VecDeque::new()),
                        sample: Mutex::new(Sample::default()),
                        ops: AtomicU64::new(0),
                        forgotten: AtomicBool::new(false),
                    })
                })
                .clone(),
        )
    }

    /// Counts `ops` ((row, what, how many, bytes) each) on `heat`'s table: one clock read and
    /// one lock for the batch. `regions` gives the table's region start keys when a new bucket opens
    /// (called at most once per bucket, with no engine lock held by this module).
    pub(crate) fn record_on<'r>(
        &self,
        heat: &TableHeat,
        ops: impl IntoIterator<Item = (&'r [u8], HeatOp, u64, u64), IntoIter: Clone>,
        regions: impl Fn() -> Vec<Bytes>,
    ) {
        let bucket = self.now_bucket();
        let ops = ops.into_iter();
        {
            let current = heat.current.read().unwrap_or_else(|p| p.into_inner());
            if current.bucket == bucket {
                current.add_all(heat, ops);
                return;
            }
        }
        if ops.clone().next().is_none() {
            return;
        }
        // A new bucket: close the current one, open one with refined ranges.
        let mut current = heat.current.write().unwrap_or_else(|p| p.into_inner());
        if current.bucket != bucket {
            let sampled =
                std::mem::take(&mut heat.sample.lock().unwrap_or_else(|p| p.into_inner()).keys);
            let bounds = Arc::new(self.bounds(regions(), sampled));
            let bounds = if bounds == current.bounds {
                current.bounds.clone()
            } else {
                bounds
            };
            let closed = std::mem::replace(&mut *current, Column::new(bucket, bounds));
            let mut history = heat.history.lock().unwrap_or_else(|p| p.into_inner());
            history.push_back(closed);
            let oldest = bucket.saturating_sub(self.opts.buckets.max(1) as u64 - 1);
            while history.front().is_some_and(|c| c.bucket < oldest) {
                history.pop_front();
            }
        }
        current.add_all(heat, ops);
    }

    /// Counts `op` of `bytes` on `row` of `table` ([`HeatMap::record_on`] for one).
    pub(crate) fn record(
        &self,
        table: &TableName,
        row: &[u8],
        op: HeatOp,
        bytes: u64,
        regions: impl Fn() -> Vec<Bytes>,
    ) {
        if let Some(heat) = self.table(table, &regions) {
            self.record_on(&heat, [(row, op, 1, bytes)], regions);
        }
    }

    /// Counts a batch of mutations on `heat`'s table, each a write of its row.
    pub(crate) fn record_mutations_on(
        &self,
        heat: &TableHeat,
        mutations: &[Mutation],
        regions: impl Fn() -> Vec<Bytes>,
    ) {
        let ops = mutations.iter().map(|m| {
            let (row, cells) = match m {
                Mutation::Put(p) => (&p.row, &p.cells),
                Mutation::Delete(d) => (&d.row, &d.cells),
            };
            let bytes = row.len()
                + cells
                    .iter()
                    .map(|c| c.family.len() + c.qualifier.len() + c.value.len())
                    .sum::<usize>();
            (&row[..], HeatOp::Write, 1, bytes as u64)
        });
        self.record_on(heat, ops, regions);
    }

    /// Counts a row read on `heat`'s table (nothing for an empty result).
    pub(crate) fn record_read_on(
        &self,
        heat: &TableHeat,
        result: &RowResult,
        regions: impl Fn() -> Vec<Bytes>,
    ) {
        let Some(first) = result.cells.first() else {
            return;
        };
        let bytes: usize = result
            .cells
            .iter()
            .map(|c| c.row().len() + c.family().len() + c.qualifier().len() + c.value().len())
            .sum();
        self.record_on(
            heat,
            [(first.row(), HeatOp::Read, 1, bytes as u64)],
            regions,
        );
    }

    /// Counts a row a scanner returned: gathered in `batch` while the rows stay in one key
    /// range (a comparison per row), counted when a row leaves it, every [`READ_BATCH`] rows,
    /// and at [`HeatMap::flush_reads`] (the scanner's end).
    pub(crate) fn scan_read(
        &self,
        batch: &mut Option<ReadBatch>,
        heat: &Arc<TableHeat>,
        result: &RowResult,
        regions: impl Fn() -> Vec<Bytes>,
    ) {
        let Some(first) = result.cells.first() else {
            return;
        };
        let bytes = result
            .cells
            .iter()
            .map(|c| c.row().len() + c.family().len() + c.qualifier().len() + c.value().len())
            .sum::<usize>() as u64;
        let row = first.row();
        if let Some(b) = batch {
            if b.rows < READ_BATCH && b.end.as_ref().is_none_or(|e| row < e.as_ref()) {
                b.rows += 1;
                b.bytes += bytes;
                return;
            }
        }
        if let Some(b) = batch.take() {
            self.flush_reads(b, &regions);
        }
        *batch = Some(ReadBatch {
            heat: heat.clone(),
            end: heat.range_end(row),
            first: first.row_bytes(),
            rows: 1,
            bytes,
        });
    }

    /// Counts a scanner's gathered reads.
    pub(crate) fn flush_reads(&self, b: ReadBatch, regions: impl Fn() -> Vec<Bytes>) {
        self.record_on(
            &b.heat,
            [(b.first.as_ref(), HeatOp::Read, b.rows, b.bytes)],
            regions,
        );
    }

    /// The boundaries of a new bucket: the region starts, then the sampled keys' quantiles,
    /// at most `max_ranges` in all, sorted, the first empty.
    fn bounds(&self, mut regions: Vec<Bytes>, mut sampled: Vec<Bytes>) -> Vec<Bytes> {
        let max = self.opts.max_ranges.max(1);
        regions.retain(|r| !r.is_empty());
        regions.sort();
        regions.dedup();
        // Too many regions: every k-th.
        if regions.len() + 1 > max {
            let step = regions.len().div_ceil(max - 1).max(1);
            regions = regions.into_iter().step_by(step).collect();
            regions.truncate(max - 1);
        }
        let room = max - 1 - regions.len().min(max - 1);
        sampled.sort();
        sampled.dedup();
        let mut bounds = vec![Bytes::new()];
        bounds.extend(regions);
        if room > 0 && !sampled.is_empty() {
            let take = room.min(sampled.len());
            for i in 0..take {
                // The (i+1)/(take+1) quantile: a key between the sample's ends.
                let at = (i + 1) * sampled.len() / (take + 1);
                if let Some(k) = sampled.get(at) {
                    bounds.push(k.clone());
                }
            }
        }
        bounds.retain(|b| !b.is_empty());
        bounds.insert(0, Bytes::new());
        bounds.sort();
        bounds.dedup();
        bounds
    }

    /// `table`'s heat map (`None`: no operation recorded on it yet).
    pub(crate) fn snapshot(&self, table: &TableName) -> Option<HeatMapSnapshot> {
        let heat = self
            .tables
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(table)
            .cloned()?;
        let secs = self.bucket_secs();
        let oldest = self
            .now_bucket()
            .saturating_sub(self.opts.buckets.max(1) as u64 - 1);
        let mut columns: Vec<HeatColumn> = heat
            .history
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .iter()
            .filter(|c| c.bucket >= oldest)
            .map(|c| c.snapshot(secs))
            .collect();
        let current = heat.current.read().unwrap_or_else(|p| p.into_inner());
        if current.bucket >= oldest {
            columns.push(current.snapshot(secs));
        }
        Some(HeatMapSnapshot {
            bucket_secs: secs,
            columns,
        })
    }

    /// Rows read and written over every table's window, and their rate over the last full
    /// bucket and the current one.
    pub(crate) fn request_counts(&self) -> RequestCounts {
        let tables: Vec<TableName> = self
            .tables
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .keys()
            .cloned()
            .collect();
        let secs = self.bucket_secs();
        let now = coarse_now_secs();
        let previous = (now / secs).saturating_sub(1) * secs;
        let mut counts = RequestCounts {
            window_secs: secs * self.opts.buckets.max(1) as u64,
            ..RequestCounts::default()
        };
        let mut recent = 0;
        for t in &tables {
            for c in self.snapshot(t).map(|s| s.columns).unwrap_or_default() {
                let (r, w) = c
                    .ranges
                    .iter()
                    .fold((0, 0), |(r, w), x| (r + x.reads, w + x.writes));
                counts.read_rows += r;
                counts.write_rows += w;
                if c.start_secs >= previous {
                    recent += r + w;
                }
            }
        }
        // The previous bucket whole and the current one so far.
        let span = (now - previous).max(1);
        counts.per_second = recent as f64 / span as f64;
        counts
    }

    /// Forgets `table` (dropped).
    pub(crate) fn forget(&self, table: &TableName) {
        if let Some(heat) = self
            .tables
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(table)
        {
            heat.forgotten.store(true, Ordering::Release);
        }
    }
}

/// Seconds since the Unix epoch from the kernel's coarse clock (updated every tick, read
/// without a system call or a clock source read: a few ns, where `SystemTime::now` costs a
/// hundred in some virtual machines); buckets are seconds to minutes wide, so its few
/// milliseconds of lag do not matter.
#[cfg(target_os = "linux")]
fn coarse_now_secs() -> u64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid, writable timespec for the call's duration; the clock id is a
    // constant Linux defines.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_REALTIME_COARSE, &mut ts) };
    if rc == 0 {
        u64::try_from(ts.tv_sec).unwrap_or(0)
    } else {
        system_now_secs()
    }
}

#[cfg(not(target_os = "linux"))]
fn coarse_now_secs() -> u64 {
    system_now_secs()
}

fn system_now_secs() -> u64 {
    SystemTime::now()
        .duration_since(SystemTime::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0)
}

/// Rows a scanner gathers at most before counting them (`HeatMap::scan_read`).
pub const READ_BATCH: u64 = 256;

/// A scanner's reads not counted yet, all in one key range of the bucket they began in.
#[derive(Debug)]
pub(crate) struct ReadBatch {
    heat: Arc<TableHeat>,
    /// The first row (the range is the one holding it when counted).
    first: Bytes,
    /// The key after the range (`None`: the table's end).
    end: Option<Bytes>,
    rows: u64,
    bytes: u64,
}

impl TableHeat {
    /// The boundary after the current bucket's range holding `row` (`None`: the table's end).
    fn range_end(&self, row: &[u8]) -> Option<Bytes> {
        let current = self.current.read().unwrap_or_else(|p| p.into_inner());
        let i = current.bounds.partition_point(|b| b.as_ref() <= row);
        current.bounds.get(i).cloned()
    }

    /// Counts `count` operations, `ops` their rows in order, and offers the sample the rows of
    /// those numbered a multiple of [`SAMPLE_EVERY`] (one counter add and at most one lock for
    /// the batch).
    fn sample_all<'r>(&self, ops: impl Iterator<Item = (&'r [u8], HeatOp, u64, u64)>, count: u64) {
        let base = self.ops.fetch_add(count, Ordering::Relaxed);
        let first = (SAMPLE_EVERY - base % SAMPLE_EVERY) % SAMPLE_EVERY;
        if first >= count {
            return;
        }
        let mut sample = self.sample.lock().unwrap_or_else(|p| p.into_inner());
        for (row, ..) in ops.skip(first as usize).step_by(SAMPLE_EVERY as usize) {
            sample.offer(row);
        }
    }
}

impl Sample {
    /// Reservoir sampling: every offered key has the same chance to be kept.
    fn offer(&mut self, row: &[u8]) {
        self.seen += 1;
        if self.keys.len() < SAMPLES {
            self.keys.push(Bytes::copy_from_slice(row));
            return;
        }
        // A cheap deterministic mix of the count stands in for a random draw.
        let mut x = self.seen.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        x ^= x >> 31;
        let j = (x % self.seen) as usize;
        if let Some(slot) = self.keys.get_mut(j) {
            *slot = Bytes::copy_from_slice(row);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn map(max_ranges: usize) -> HeatMap {
        HeatMap::new(HeatMapOptions {
            max_ranges,
            ..Default::default()
        })
    }

    #[test]
    fn operations_land_in_their_region_range() {
        let m = map(8);
        let regions = || vec![Bytes::from_static(b"m")];
        let t = TableName::parse("t").unwrap();
        for row in [&b"a"[..], b"b", b"n"] {
            m.record(&t, row, HeatOp::Write, 10, regions);
        }
        m.record(&t, b"z", HeatOp::Read, 5, regions);
        let s = m.snapshot(&t).unwrap();
        let [c] = &s.columns[..] else { panic!() };
        assert_eq!(c.bounds, vec![Bytes::new(), Bytes::from_static(b"m")]);
        assert_eq!(c.ranges.len(), 2);
        assert_eq!((c.ranges[0].writes, c.ranges[0].write_bytes), (2, 20));
        assert_eq!(c.ranges[0].end, Bytes::from_static(b"m"));
        assert_eq!((c.ranges[1].writes, c.ranges[1].reads), (1, 1));
        assert!(m.snapshot(&TableName::parse("other").unwrap()).is_none());
    }

    #[test]
    fn new_buckets_refine_ranges_by_sampled_keys() {
        let m = map(5);
        let sampled: Vec<Bytes> = (0..100u32)
            .map(|i| Bytes::from(format!("k{i:03}")))
            .collect();
        let b = m.bounds(vec![Bytes::from_static(b"k050")], sampled);
        // The table start, the region start and the quartiles (the median is the region's).
        let quartiles = [&b""[..], b"k025", b"k050", b"k075"];
        assert_eq!(b, quartiles.map(Bytes::from_static).to_vec());
        assert!(b[0].is_empty());
        assert!(b.windows(2).all(|w| w[0] < w[1]));
        assert!(b.contains(&Bytes::from_static(b"k050")));
        // Many regions, no room: every k-th region, still bounded.
        let many: Vec<Bytes> = (0..100u32)
            .map(|i| Bytes::from(format!("r{i:03}")))
            .collect();
        assert!(m.bounds(many, Vec::new()).len() <= 5);
    }

    #[test]
    fn the_coarse_clock_reads_the_time() {
        let (coarse, system) = (coarse_now_secs(), system_now_secs());
        assert!(
            coarse + 1 >= system && coarse <= system + 1,
            "{coarse} {system}"
        );
    }

    #[test]
    fn the_sample_stays_bounded() {
        let mut s = Sample::default();
        for i in 0..10_000u32 {
            s.offer(&i.to_be_bytes());
        }
        assert_eq!(s.keys.len(), SAMPLES);
    }
}
