//! Design d's date-first index with a salt in front (issue 46): `salt:8(user, file), date,
//! user, file`. A date-first key sends every new file's index write to the end of one date's
//! key range — on a cluster one region, the hot spot the rowkeys study measures (100 % of a
//! slice's writes); the salt spreads one day's index writes over 8 buckets, and "one date, any
//! user" becomes 8 range scans merged back into `date, user, file` order (scatter-gather).
//! Measured beside the unsalted index on the same engine, the two taking turns run by run.

use super::data::File;
use super::designs::{conditions, counters, run_scan, Load};
use super::INDEX_FAMILY;
use crate::study::measure::{median_f64, micros};
use anyhow::{ensure, Result};
use ferrobase_apps::file_search::FileSearch;
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, Metrics, Put, Scan, TableDescriptor, TableName,
};
use ferrobase_rowkey::{Schema, Value};
use std::collections::BTreeSet;
use std::ops::Bound;
use std::time::Instant;

/// The salted index table.
pub const TABLE: &str = "files_by_date_salted";
/// Its key: a one-byte bucket from user and file, then the date-first index's fields.
pub const KEY: &str = "b:salt:8(user, file), date:dec8, user:u32dec6, file:u32dec6";
/// Buckets of [`KEY`].
pub const BUCKETS: usize = 8;

/// One index design's cost on "one date, any user", and its write spread.
#[derive(Debug, Clone, Default)]
pub struct IndexCost {
    /// Range scans per query.
    pub scans: usize,
    /// Rows examined per query.
    pub examined: f64,
    /// Blocks touched per query.
    pub blocks: f64,
    /// Decoded bytes of the blocks touched per query.
    pub bytes: f64,
    /// p50 latency, µs, and its min–max over the runs.
    pub p50_us: f64,
    pub min_us: f64,
    pub max_us: f64,
    /// The busiest key range's share of one day's index writes: the bucket (salted) or the
    /// date's single range (unsalted).
    pub busiest_share: f64,
    /// Files found.
    pub found: usize,
}

/// Loads the salted index from `files` (as design d's index: copies of name and category),
/// returns what the load cost.
pub fn load(engine: &Engine, files: &[File]) -> Result<Load> {
    let schema: Schema = KEY.parse()?;
    engine.admin().create_table(
        TableDescriptor::new(TableName::parse(TABLE)?)
            .with_family(ColumnFamilyDescriptor::new(INDEX_FAMILY)),
    )?;
    let table = engine.table(TABLE)?;
    let m = engine.metrics();
    let written = || Metrics::get(&m.bytes_written_wal) + Metrics::get(&m.bytes_written_files);
    let (t0, w0) = (Instant::now(), written());
    for chunk in files.chunks(1000) {
        let puts = chunk
            .iter()
            .map(|f| {
                Ok(Put::new(schema.encode(&[
                    Value::U64(f.date.into()),
                    Value::U64(f.user.into()),
                    Value::U64(f.id.into()),
                ])?)
                .add_column(INDEX_FAMILY, "name", f.name.as_bytes())
                .add_column(INDEX_FAMILY, "category", f.category.as_bytes()))
            })
            .collect::<Result<Vec<_>>>()?;
        table.put_all(puts)?;
    }
    engine.admin().flush(TABLE)?;
    let secs = t0.elapsed().as_secs_f64();
    let w = written() - w0;
    engine.admin().major_compact(TABLE)?;
    let on_disk = engine
        .admin()
        .regions(TABLE)?
        .iter()
        .map(|r| r.file_bytes)
        .sum();
    Ok(Load {
        secs,
        written: w,
        on_disk,
    })
}

/// Measures "one date, any user" on `date` through the unsalted index (`unsalted`, the app's
/// `files_by_date`) and the salted one, `runs` times each, taking turns; both must find the
/// same files. Returns (unsalted, salted).
pub fn measure(
    engine: &Engine,
    app: &FileSearch,
    files: &[File],
    date: u32,
    runs: usize,
) -> Result<(IndexCost, IndexCost)> {
    let schema: Schema = KEY.parse()?;
    let plan = app.plan_find_by_index(date, date, &conditions())?;
    let (unsalted_scan, filter) = plan.to_scan();
    let filter = filter.map(<[u8]>::to_vec);
    let ranges = schema.field_ranges(
        &[],
        Bound::Included(Value::U64(date.into())),
        Bound::Included(Value::U64(date.into())),
    )?;
    let plain = engine.table(ferrobase_apps::file_search::index::INDEX_TABLE)?;
    let salted = engine.table(TABLE)?;
    let m = engine.metrics();
    let mut costs = [IndexCost::default(), IndexCost::default()];
    let mut times: [Vec<f64>; 2] = [Vec::new(), Vec::new()];
    let mut found: [BTreeSet<Vec<u8>>; 2] = [BTreeSet::new(), BTreeSet::new()];
    // One warm-up run of each, then `runs` measured, alternating.
    for run in 0..=runs {
        for (i, cost) in costs.iter_mut().enumerate() {
            let before = counters(m);
            let t0 = Instant::now();
            let rows = if i == 0 {
                cost.scans = 1;
                run_scan(&plain, unsalted_scan.clone(), filter.as_deref())?
                    .into_iter()
                    .map(|r| r.row().to_vec())
                    .collect::<Vec<_>>()
            } else {
                cost.scans = ranges.len();
                let mut streams = Vec::with_capacity(ranges.len());
                for r in &ranges {
                    let scan = Scan::new()
                        .with_start_row(r.start.clone())
                        .with_stop_row(r.stop.clone());
                    let rows = run_scan(&salted, scan, filter.as_deref())?;
                    streams.push(rows.into_iter().map(|r| (r.row().to_vec(), ())));
                }
                // Back into `date, user, file` order, the salt byte dropped.
                schema
                    .scatter_merge(streams, None)
                    .map(|(k, ())| k[1..].to_vec())
                    .collect()
            };
            let took = t0.elapsed();
            if run == 0 {
                found[i] = rows.into_iter().collect();
                continue;
            }
            let after = counters(m);
            cost.examined += (after.examined - before.examined) as f64 / runs as f64;
            cost.blocks += (after.blocks - before.blocks) as f64 / runs as f64;
            cost.bytes += (after.bytes - before.bytes) as f64 / runs as f64;
            times[i].push(micros(took));
        }
    }
    ensure!(
        found[0] == found[1],
        "the salted index found {} files, the unsalted {}",
        found[1].len(),
        found[0].len()
    );
    // Where one day's index writes go: the unsalted index puts them all in one key range.
    let day: Vec<&File> = files.iter().filter(|f| f.date == date).collect();
    let mut per_bucket = [0usize; BUCKETS];
    for f in &day {
        let key = schema.encode(&[
            Value::U64(f.date.into()),
            Value::U64(f.user.into()),
            Value::U64(f.id.into()),
        ])?;
        per_bucket[usize::from(key[0]) % BUCKETS] += 1;
    }
    let busiest = per_bucket.iter().copied().max().unwrap_or(0);
    for (i, cost) in costs.iter_mut().enumerate() {
        let t = &times[i];
        cost.p50_us = median_f64(t);
        cost.min_us = t.iter().copied().fold(f64::INFINITY, f64::min);
        cost.max_us = t.iter().copied().fold(f64::NEG_INFINITY, f64::max);
        cost.found = found[i].len();
        cost.busiest_share = if i == 0 {
            1.0
        } else {
            busiest as f64 / day.len().max(1) as f64
        };
    }
    let [u, s] = costs;
    Ok((u, s))
}
