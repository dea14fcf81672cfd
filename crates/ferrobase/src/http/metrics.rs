//! `/metrics`: the engine's counters, its tables' sizes, the doors' calls and the process's
//! figures, in Prometheus' text format (0.0.4) through `prometheus-client`, the Prometheus
//! project's own Rust client. Every figure is read at scrape time from counters that already
//! exist (a [`Collector`]), so nothing is counted twice. Names and meanings:
//! `docs/design/operations.md`.

use super::{process, Ops};
use ferrobase_engine::{Health, Metrics};
use ferrobase_gateway::CallCounters;
use prometheus_client::collector::Collector;
use prometheus_client::encoding::{
    DescriptorEncoder, EncodeCounterValue, EncodeGaugeValue, EncodeLabelSet, NoLabelSet,
};
use prometheus_client::metrics::MetricType;
use prometheus_client::registry::{Registry, Unit};
use std::sync::atomic::AtomicU64;
use std::sync::Arc;

/// The `Content-Type` of the answer: Prometheus' text format, version 0.0.4.
pub const CONTENT_TYPE: &str = prometheus_client::encoding::prometheus_text::CONTENT_TYPE;

/// Tables given their own label values, at most; past it the rest are counted in
/// `ferrobase_tables` only, so a server with many tables keeps a bounded scrape.
pub const MAX_TABLE_LABELS: usize = 1000;

/// The engine's monotonic counters: (name without the suffixes, help, unit, counter).
type EngineCounter = (
    &'static str,
    &'static str,
    Option<Unit>,
    fn(&Metrics) -> &AtomicU64,
);

fn engine_counters() -> [EngineCounter; 22] {
    [
        (
            "ferrobase_block_cache_hits",
            "Data blocks found in the block cache.",
            None,
            |m| &m.block_cache_hits,
        ),
        (
            "ferrobase_block_cache_misses",
            "Data blocks looked up in the block cache and not found.",
            None,
            |m| &m.block_cache_misses,
        ),
        (
            "ferrobase_block_cache_evictions",
            "Blocks evicted from the block cache.",
            None,
            |m| &m.block_cache_evictions,
        ),
        (
            "ferrobase_data_blocks_read",
            "Data blocks read from files (cache misses plus reads that bypass the cache).",
            None,
            |m| &m.data_blocks_read,
        ),
        (
            "ferrobase_data_blocks_touched",
            "Decoded bytes of the data blocks reads touched, from the cache or from files.",
            Some(Unit::Bytes),
            |m| &m.data_block_bytes_touched,
        ),
        (
            "ferrobase_rows_examined",
            "Rows reads looked at before filters decided (added when a region scanner closes).",
            None,
            |m| &m.rows_examined,
        ),
        (
            "ferrobase_rows_returned",
            "Rows answered by gets and scans (rows examined less those filtered out or empty).",
            None,
            |m| &m.rows_returned,
        ),
        (
            "ferrobase_cells_returned",
            "Cells in the rows answered by gets and scans.",
            None,
            |m| &m.cells_returned,
        ),
        (
            "ferrobase_bloom_negatives",
            "Gets or row lookups that skipped a file thanks to its bloom filter.",
            None,
            |m| &m.bloom_negatives,
        ),
        (
            "ferrobase_files_skipped_by_time_range",
            "Files skipped because their time range cannot match a query.",
            None,
            |m| &m.files_skipped_by_time_range,
        ),
        (
            "ferrobase_flushes",
            "Memstore flushes completed.",
            None,
            |m| &m.flushes,
        ),
        (
            "ferrobase_compactions",
            "Compactions completed (minor and major).",
            None,
            |m| &m.compactions,
        ),
        (
            "ferrobase_compactions_cancelled",
            "Minor compactions stopped part way because a major compaction was requested.",
            None,
            |m| &m.compactions_cancelled,
        ),
        ("ferrobase_splits", "Region splits completed.", None, |m| {
            &m.splits
        }),
        (
            "ferrobase_store_file_written",
            "Bytes written to block files by flushes and compactions.",
            Some(Unit::Bytes),
            |m| &m.bytes_written_files,
        ),
        (
            "ferrobase_wal_written",
            "Bytes written to the write-ahead log.",
            Some(Unit::Bytes),
            |m| &m.bytes_written_wal,
        ),
        (
            "ferrobase_wal_syncs",
            "fdatasyncs of the WAL by writers (one per group commit that held a FSYNC_WAL write).",
            None,
            |m| &m.wal_syncs,
        ),
        (
            "ferrobase_wal_writebacks",
            "Times the OS was asked to start writing WAL bytes ahead of a sync.",
            None,
            |m| &m.wal_writebacks,
        ),
        (
            "ferrobase_write_stalls",
            "Times a writer waited because the global memstore limit was reached.",
            None,
            |m| &m.write_stalls,
        ),
        (
            "ferrobase_write_stall_micros",
            "Microseconds writers waited at the global memstore limit.",
            None,
            |m| &m.write_stall_micros,
        ),
        (
            "ferrobase_write_suspensions",
            "Times writes were suspended by a transient disk error or low free space.",
            None,
            |m| &m.write_suspensions,
        ),
        (
            "ferrobase_write_resume_retries",
            "Retries of a write suspension run by the background task.",
            None,
            |m| &m.write_resume_retries,
        ),
    ]
}

/// `/metrics` as text.
pub fn render(ops: &Ops) -> Result<String, std::fmt::Error> {
    let mut registry = Registry::default();
    registry.register_collector(Box::new(Snapshot(Arc::new(ops.facts()))));
    let mut out = String::new();
    prometheus_client::encoding::prometheus_text::encode(&mut out, &registry)?;
    Ok(out)
}

/// What a scrape reads, gathered before encoding (the collector must be `'static`).
#[derive(Debug)]
struct Facts {
    counters: Vec<(&'static str, &'static str, Option<Unit>, u64)>,
    write_suspended_seconds: f64,
    memstore_bytes: u64,
    block_cache_bytes: u64,
    health: &'static str,
    tables: usize,
    /// (table, regions, store files, store file bytes, memstore bytes).
    per_table: Vec<(String, u64, u64, u64, u64)>,
    thrift: Door,
    thrift2: Option<Door>,
    native: Option<Door>,
    uptime_seconds: f64,
    resident_bytes: Option<u64>,
    open_fds: Option<u64>,
    max_fds: Option<u64>,
    engine: super::engine_metrics::EngineFacts,
    doors: Vec<super::door_metrics::DoorFacts>,
    /// Flushes, minor and major compactions running now.
    running_jobs: [(&'static str, u64); 3],
}

#[derive(Debug)]
struct Door {
    calls: Arc<CallCounters>,
    connections: u64,
    /// Thrift only: (running calls, queued calls, refused connections).
    queue: Option<(u64, u64, u64)>,
}

impl Ops {
    fn facts(&self) -> Facts {
        let m = self.engine.metrics();
        let admin = self.engine.admin();
        let mut tables = admin.list_tables().unwrap_or_default();
        tables.sort();
        let per_table = tables
            .iter()
            .take(MAX_TABLE_LABELS)
            .filter_map(|t| {
                let name = t.to_string();
                let regions = admin.regions(&name).ok()?;
                let sum = |f: fn(&ferrobase_engine::RegionInfo) -> u64| {
                    regions.iter().map(f).sum::<u64>()
                };
                Some((
                    name,
                    regions.len() as u64,
                    sum(|r| r.file_count as u64),
                    sum(|r| r.file_bytes),
                    sum(|r| r.memstore_bytes as u64),
                ))
            })
            .collect();
        Facts {
            counters: engine_counters()
                .into_iter()
                .map(|(name, help, unit, c)| (name, help, unit, Metrics::get(c(m))))
                .collect(),
            write_suspended_seconds: Metrics::get(&m.write_suspended_ms) as f64 / 1000.0,
            memstore_bytes: self.engine.memstore_bytes() as u64,
            block_cache_bytes: self.engine.block_cache().used_bytes() as u64,
            health: match self.engine.health() {
                Health::Healthy => "healthy",
                Health::Degraded { .. } => "degraded",
                Health::Poisoned { .. } => "poisoned",
            },
            tables: tables.len(),
            per_table,
            thrift: Door {
                calls: self.thrift.call_counters(),
                connections: self.thrift.connections() as u64,
                queue: Some((
                    self.thrift.running_calls() as u64,
                    self.thrift.queued_calls() as u64,
                    self.thrift.refused_connections() as u64,
                )),
            },
            thrift2: self.thrift2.as_ref().map(|t| Door {
                calls: t.call_counters(),
                connections: t.connections() as u64,
                queue: Some((
                    t.running_calls() as u64,
                    t.queued_calls() as u64,
                    t.refused_connections() as u64,
                )),
            }),
            native: self.native.as_ref().map(|n| Door {
                calls: n.call_counters(),
                connections: n.connections() as u64,
                queue: None,
            }),
            uptime_seconds: self.started.elapsed().as_secs_f64(),
            resident_bytes: process::resident_bytes(),
            open_fds: process::open_fds(),
            max_fds: process::max_fds(),
            engine: super::engine_metrics::EngineFacts::read(m, MAX_TABLE_LABELS),
            doors: self.door_facts(),
            running_jobs: {
                let running = self.engine.background_jobs().running;
                [
                    ferrobase_engine::JobKind::Flush,
                    ferrobase_engine::JobKind::MinorCompaction,
                    ferrobase_engine::JobKind::MajorCompaction,
                ]
                .map(|k| {
                    let n = running.iter().filter(|j| j.kind == k).count() as u64;
                    (k.label(), n)
                })
            },
        }
    }
}

#[derive(Debug)]
struct Snapshot(Arc<Facts>);

impl Collector for Snapshot {
    fn encode(&self, mut e: DescriptorEncoder) -> Result<(), std::fmt::Error> {
        let f = &self.0;
        for (name, help, unit, v) in &f.counters {
            counter(&mut e, name, help, unit.clone(), v)?;
        }
        counter(
            &mut e,
            "ferrobase_write_suspended",
            "Time writes spent suspended, added when they resume.",
            Some(Unit::Seconds),
            &f.write_suspended_seconds,
        )?;
        gauge(
            &mut e,
            "ferrobase_memstore",
            "Bytes held in all memstores.",
            Some(Unit::Bytes),
            &f.memstore_bytes,
        )?;
        gauge(
            &mut e,
            "ferrobase_block_cache_used",
            "Bytes of blocks in the block cache.",
            Some(Unit::Bytes),
            &f.block_cache_bytes,
        )?;
        let states =
            ["healthy", "degraded", "poisoned"].map(|s| ([("state", s)], u64::from(s == f.health)));
        gauge_family(
            &mut e,
            "ferrobase_health",
            "1 for the engine's state: healthy, degraded (writes suspended) or poisoned.",
            None,
            &states,
        )?;
        gauge(
            &mut e,
            "ferrobase_tables",
            "Tables, system tables included.",
            None,
            &(f.tables as u64),
        )?;
        let per = |i: usize| -> Vec<([(&str, &str); 1], u64)> {
            f.per_table
                .iter()
                .map(|t| ([("table", t.0.as_str())], [t.1, t.2, t.3, t.4][i]))
                .collect()
        };
        gauge_family(
            &mut e,
            "ferrobase_table_regions",
            "Regions of a table.",
            None,
            &per(0),
        )?;
        gauge_family(
            &mut e,
            "ferrobase_table_store_files",
            "Block files of a table's stores.",
            None,
            &per(1),
        )?;
        gauge_family(
            &mut e,
            "ferrobase_table_store_file",
            "Bytes of a table's block files.",
            Some(Unit::Bytes),
            &per(2),
        )?;
        gauge_family(
            &mut e,
            "ferrobase_table_memstore",
            "Bytes in a table's memstores.",
            Some(Unit::Bytes),
            &per(3),
        )?;
        f.engine.encode(&mut e)?;
        let running = f.running_jobs.map(|(kind, n)| ([("kind", kind)], n));
        gauge_family(
            &mut e,
            "ferrobase_background_jobs_running",
            "Flushes and compactions running now, by kind (flush, minor_compaction, \
             major_compaction).",
            None,
            &running,
        )?;
        door(&mut e, "thrift", &f.thrift)?;
        if let Some(thrift2) = &f.thrift2 {
            door(&mut e, "thrift2", thrift2)?;
        }
        if let Some(native) = &f.native {
            door(&mut e, "native", native)?;
        }
        let doors = [("thrift", Some(&f.thrift)), ("thrift2", f.thrift2.as_ref())];
        let doors = doors.into_iter().chain([("native", f.native.as_ref())]);
        durations(&mut e, doors.filter_map(|(name, d)| Some((name, d?))))?;
        super::door_metrics::encode(&mut e, &f.doors)?;
        gauge(
            &mut e,
            "ferrobase_uptime",
            "Time since the server started.",
            Some(Unit::Seconds),
            &f.uptime_seconds,
        )?;
        if let Some(v) = f.resident_bytes {
            gauge(
                &mut e,
                "process_resident_memory",
                "Resident memory size (VmRSS).",
                Some(Unit::Bytes),
                &v,
            )?;
        }
        if let Some(v) = f.open_fds {
            gauge(
                &mut e,
                "process_open_fds",
                "Open file descriptors.",
                None,
                &v,
            )?;
        }
        if let Some(v) = f.max_fds {
            gauge(
                &mut e,
                "process_max_fds",
                "The most file descriptors the process may open.",
                None,
                &v,
            )?;
        }
        Ok(())
    }
}

/// A door's figures: `ferrobase_{door}_calls_total{service,method,outcome}`, its connections
/// and, for Thrift, its call queue.
fn door(e: &mut DescriptorEncoder, door: &str, d: &Door) -> Result<(), std::fmt::Error> {
    let rows: Vec<_> = d
        .calls
        .snapshot()
        .into_iter()
        .map(|(service, method, outcome, n)| {
            (
                [
                    ("service", service),
                    ("method", method),
                    ("outcome", outcome.label()),
                ],
                n,
            )
        })
        .collect();
    let name = format!("ferrobase_{door}_calls");
    let help =
        "Calls answered, by service, method and outcome (ok, exception, busy, refused, failed).";
    let mut m = e.encode_descriptor(&name, help, None, MetricType::Counter)?;
    for (labels, n) in &rows {
        m.encode_family(labels)?
            .encode_counter::<NoLabelSet, _, u64>(n, None)?;
    }
    let name = format!("ferrobase_{door}_connections");
    gauge(e, &name, "Connections open now.", None, &d.connections)?;
    if let Some((running, queued, refused)) = d.queue {
        let name = format!("ferrobase_{door}_running_calls");
        gauge(e, &name, "Calls running on a handler now.", None, &running)?;
        let name = format!("ferrobase_{door}_queued_calls");
        gauge(e, &name, "Calls waiting for a handler now.", None, &queued)?;
        let name = format!("ferrobase_{door}_refused_connections");
        counter(
            e,
            &name,
            "Connections closed at once because --max-connections were open.",
            None,
            &refused,
        )?;
    }
    Ok(())
}

/// `ferrobase_call_duration_seconds{door,service,method}`: one histogram per door and method
/// called (the doors' fixed method lists bound the labels).
fn durations<'a>(
    e: &mut DescriptorEncoder,
    doors: impl Iterator<Item = (&'static str, &'a Door)>,
) -> Result<(), std::fmt::Error> {
    let mut m = e.encode_descriptor(
        "ferrobase_call_duration",
        "Time from a call's last byte read to its result (its wait for a handler included), by \
         door, service and method.",
        Some(&Unit::Seconds),
        MetricType::Histogram,
    )?;
    for (door, d) in doors {
        for l in d.calls.latencies() {
            let labels = [("door", door), ("service", l.service), ("method", l.method)];
            m.encode_family(&labels)?.encode_histogram::<NoLabelSet>(
                l.sum_seconds,
                l.count,
                &l.buckets,
                None,
            )?;
        }
    }
    Ok(())
}

/// One counter without labels: its descriptor and value.
pub(super) fn counter(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    v: &impl EncodeCounterValue,
) -> Result<(), std::fmt::Error> {
    e.encode_descriptor(name, help, unit.as_ref(), MetricType::Counter)?
        .encode_counter::<NoLabelSet, _, u64>(v, None)
}

fn gauge(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    v: &impl EncodeGaugeValue,
) -> Result<(), std::fmt::Error> {
    e.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?
        .encode_gauge(v)
}

fn gauge_family<L: EncodeLabelSet>(
    e: &mut DescriptorEncoder,
    name: &str,
    help: &str,
    unit: Option<Unit>,
    rows: &[(L, u64)],
) -> Result<(), std::fmt::Error> {
    let mut m = e.encode_descriptor(name, help, unit.as_ref(), MetricType::Gauge)?;
    for (labels, v) in rows {
        m.encode_family(labels)?.encode_gauge(v)?;
    }
    Ok(())
}
