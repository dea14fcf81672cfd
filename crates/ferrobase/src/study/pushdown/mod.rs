//! `ferrobase study pushdown`: filter pushdown against key design for article 2's file search.
//! N users × M files, and two queries — article 2's (one user, one month, name and category
//! prefixes) and "one date, any user" — under four designs (and d's read path with checks):
//!
//! | design | tables | one user, one month | one date, any user |
//! |--------|--------|---------------------|--------------------|
//! | a: composite key | `files` keyed `user:u32dec6, date:dec8, file:u32dec6` (the app's) | the app's range scan + `SingleColumnValueFilter`s | the app's `FuzzyRowFilter` scan + SCVFs |
//! | b: id-only key | `files_by_id` keyed `file:u32dec6`, user and date as columns | full scan, SCVFs on user, date, name, category | full scan, SCVFs |
//! | c: index table | b's table + `files_idx` keyed `user + date + file` (no copies) | index range scan, then a get (with the name/category SCVFs) per hit | `FuzzyRowFilter` on the index, then gets |
//! | d: date-first index | a's table + the app's `files_by_date` keyed `date + user + file`, copies of name and category, written by the app's writer | a's scan | range scan of the date on the index + SCVFs on the copies, answered from the index alone |
//! | e: d, hits checked | d | a's scan | d's scan, then the app's `find_by_index` check: a get of every hit's data row |
//!
//! Per query: rows examined, blocks and block bytes touched (the engine's metrics), cells
//! returned, reads issued, latency. All designs must return the same files. Per design: load
//! time, bytes written (WAL and flush) and bytes on disk.
//!
//! Every query is measured twice in the same run: on the embedded engine, and through
//! `ferrobase serve`'s Thrift1 gateway (the same server, started in this process on the same
//! engine and reached over loopback TCP by `ferrobase-client`, scanners fetching 1 000 rows a
//! `scannerGetList`), so the engine's counters hold for both paths and the difference is the
//! gateway's: serialization, a round trip per call, a scanner per scan. The paths take turns
//! run by run, so both see the block cache and the machine in the same state.

mod salted;

use super::chart::{write_bar_svg, BarPanel, Unit};
use super::measure::{median_f64, micros};
use super::report::{sig, thousands, Report, Table as MdTable};
use super::{scratch_dir, StudyOptions};
use crate::bench::Rng;
use anyhow::{ensure, Context, Result};
use ferrobase_apps::file_search::index::{INDEX_KEY as DATE_INDEX_KEY, INDEX_TABLE as DATE_INDEX};
use ferrobase_apps::file_search::query::{Conditions, DateQuery, FileQuery};
use ferrobase_apps::file_search::{FileRecord, FileSearch};
use ferrobase_apps::filter_text::{and, prefix_bounds, quote, single_column_value};
use ferrobase_apps::scan_plan::ScanPlan;
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Get, Metrics, Put, RowResult, Scan, Table,
    TableDescriptor, TableName,
};
use ferrobase_rowkey::{Schema, Value};
use std::collections::BTreeSet;
use std::time::Instant;

const DATA_TABLE: &str = "files";
const FAMILY: &str = "info";
const ID_TABLE: &str = "files_by_id";
const ID_KEY: &str = "file:u32dec6";
const INDEX_TABLE: &str = "files_idx";
const INDEX_FAMILY: &str = "i";
const INDEX_KEY: &str = "user:u32dec6, date:dec8, file:u32dec6";
/// Article 2's conditions.
const NAME_PREFIX: &str = "中国好声音";
const CATEGORY_PREFIX: &str = "综艺";
const MONTH: (u32, u32) = (20120901, 20120930);
const ONE_DATE: u32 = 20120914;

#[derive(Debug, Clone)]
struct Config {
    users: u32,
    files_per_user: u32,
    /// User-month queries (random users) per design; design b: at most `full_scans`.
    queries: usize,
    /// Repetitions of every full-table scan and of the date query.
    full_scans: usize,
}

impl Config {
    fn new(quick: bool) -> Config {
        if quick {
            Config {
                users: 100,
                files_per_user: 100,
                queries: 20,
                full_scans: 3,
            }
        } else {
            Config {
                users: 2_000,
                files_per_user: 500,
                queries: 200,
                full_scans: 5,
            }
        }
    }
}

/// A generated file.
#[derive(Debug, Clone)]
struct File {
    user: u32,
    date: u32,
    id: u32,
    name: String,
    category: String,
}

/// The bars' short labels, by query and design (the chart's footer spells them out): on
/// "one date, any user" design a is read by FuzzyRowFilter, and d, e and a/re of "one user, one
/// month" read a's range.
const BAR_KEYS: [[&str; 6]; 2] = [
    ["a", "b", "c", "d (= a)", "e (= a)", "a/re (= a)"],
    ["a fuzzy", "b", "c", "d", "e", "a/re"],
];

const DESIGNS: [(&str, &str); 6] = [
    (
        "a: composite key",
        "`user:u32dec6, date:dec8, file:u32dec6`",
    ),
    ("b: id-only key", "`file:u32dec6` + columns user, date"),
    ("c: index table", "b + index `user, date, file` → get"),
    (
        "d: date-first index",
        "a + index `date, user, file` with copies of name, category",
    ),
    ("e: d, hits checked", "d, a get of each hit's data row"),
    (
        "a, RowFilter regex",
        "a; the date plan HBase's Thrift1 can take",
    ),
];

/// Design d's index read with the app's consistency check (e) answers query 2 only; for query 1
/// it is a's scan, as d's.
const CHECKED: usize = 4;
/// Design a with the date query as a `RowFilter` regular expression, as `file-search on-date`
/// plans it through Apache HBase's Thrift1 gateway (no `FuzzyRowFilter` in its filter
/// language): query 2 only.
const REGEX: usize = 5;

/// 2012's day `d` (0..366) as `yyyymmdd`.
fn date_of(day: u32) -> u32 {
    const DAYS: [u32; 12] = [31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];
    let mut d = day % 366;
    for (m, len) in DAYS.iter().enumerate() {
        if d < *len {
            return 20_120_000 + (m as u32 + 1) * 100 + d + 1;
        }
        d -= len;
    }
    unreachable!()
}

fn generate(cfg: &Config) -> Vec<File> {
    const CATEGORIES: [&str; 6] = ["综艺", "综艺花絮", "花絮", "电影", "音乐", "新闻"];
    let mut rng = Rng(0x2545_f491_4f6c_dd1d);
    let mut files = Vec::with_capacity((cfg.users * cfg.files_per_user) as usize);
    for j in 0..cfg.files_per_user {
        for u in 0..cfg.users {
            let r = rng.next();
            let k = (r >> 20) % 100;
            let name = match (r >> 8) % 4 {
                0 => format!("中国好声音第{k}期"),
                1 => format!("张玮独家专访{k}"),
                2 => format!("加多宝凉茶广告{k}"),
                _ => format!("快乐大本营第{k}期"),
            };
            files.push(File {
                user: u + 1,
                date: date_of((r % 366) as u32),
                id: j * cfg.users + u,
                name,
                category: CATEGORIES[((r >> 40) % 6) as usize].to_string(),
            });
        }
    }
    files
}

fn matches(f: &File) -> bool {
    f.name.starts_with(NAME_PREFIX) && f.category.starts_with(CATEGORY_PREFIX)
}

/// What one query cost, averaged over its repetitions.
#[derive(Debug, Clone, Default)]
struct Cost {
    examined: f64,
    blocks: f64,
    bytes: f64,
    cells: f64,
    results: f64,
    reads: f64,
    p50_us: f64,
    runs: usize,
}

/// Counters before a query.
struct Before {
    examined: u64,
    blocks: u64,
    bytes: u64,
}

fn counters(m: &Metrics) -> Before {
    Before {
        examined: Metrics::get(&m.rows_examined),
        blocks: Metrics::get(&m.block_cache_hits) + Metrics::get(&m.data_blocks_read),
        bytes: Metrics::get(&m.data_block_bytes_touched),
    }
}

/// One run's result: file ids found, cells returned, reads issued.
struct Answer {
    ids: BTreeSet<u32>,
    cells: usize,
    reads: usize,
}

/// Which path a query takes to the engine.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum Via {
    /// The engine's API in this process.
    Embedded,
    /// `ferrobase serve`'s Thrift1 gateway over loopback, through `ferrobase-client`.
    Thrift,
}

impl Via {
    fn label(self) -> &'static str {
        match self {
            Via::Embedded => "embedded",
            Via::Thrift => "Thrift (ferrobase serve)",
        }
    }
}

/// The Thrift path: a gateway serving the study's engine, and a client connection to it.
struct Gateway {
    stop: ferrobase_gateway::StopHandle,
    thread: std::thread::JoinHandle<std::io::Result<()>>,
    conn: ferrobase_client::Connection,
    app: FileSearch,
}

impl Gateway {
    fn start(engine: &Engine) -> Result<Gateway> {
        let opts = ferrobase_gateway::ServerOptions {
            addr: (std::net::Ipv4Addr::LOCALHOST, 0).into(),
            ..Default::default()
        };
        let server = ferrobase_gateway::Server::bind(engine.clone(), opts)?;
        let addr = server.local_addr()?;
        let stop = server.stop_handle()?;
        let thread = std::thread::spawn(move || server.run());
        let conn = ferrobase_client::Connection::open(&format!("thrift://{addr}"))?;
        let app = FileSearch::open(&conn)?;
        Ok(Gateway {
            stop,
            thread,
            conn,
            app,
        })
    }

    /// Stops the server (which closes the engine).
    fn stop(self) -> Result<()> {
        drop(self.app);
        drop(self.conn);
        self.stop.stop();
        self.thread
            .join()
            .map_err(|_| anyhow::anyhow!("the study's gateway thread panicked"))??;
        Ok(())
    }
}

/// Rows fetched per `scannerGetList` on the Thrift path (happybase's default `batch_size`).
const THRIFT_BATCH: usize = 1000;

struct Study {
    engine: Engine,
    gateway: Option<Gateway>,
    app: FileSearch,
    files: Table,
    by_id: Table,
    index: Table,
    date_index: Table,
    id_key: Schema,
    index_key: Schema,
    date_index_key: Schema,
}

/// What loading one table cost.
#[derive(Debug, Clone, Copy)]
struct Load {
    secs: f64,
    /// Bytes written to the WAL and by the flush.
    written: u64,
    /// Bytes on disk after a major compaction.
    on_disk: u64,
}

fn text_filters(user: Option<u32>, dates: (u32, u32)) -> Vec<Vec<u8>> {
    let mut f = Vec::new();
    if let Some(u) = user {
        f.push(single_column_value(
            FAMILY,
            "user",
            "=",
            format!("{u:06}").as_bytes(),
        ));
    }
    if dates.0 == dates.1 {
        f.push(single_column_value(
            FAMILY,
            "date",
            "=",
            dates.0.to_string().as_bytes(),
        ));
    } else {
        f.push(single_column_value(
            FAMILY,
            "date",
            ">=",
            dates.0.to_string().as_bytes(),
        ));
        f.push(single_column_value(
            FAMILY,
            "date",
            "<=",
            dates.1.to_string().as_bytes(),
        ));
    }
    f.extend(name_category());
    f
}

fn name_category() -> Vec<Vec<u8>> {
    let mut f = prefix_bounds(FAMILY, "name", NAME_PREFIX.as_bytes());
    f.extend(prefix_bounds(
        FAMILY,
        "category",
        CATEGORY_PREFIX.as_bytes(),
    ));
    f
}

fn conditions() -> Conditions {
    Conditions {
        name_prefix: Some(NAME_PREFIX.into()),
        category_prefix: Some(CATEGORY_PREFIX.into()),
        page_size: None,
        after: None,
    }
}

/// Runs `scan` with `filter` (filter-language text) and returns every row.
fn run_scan(table: &Table, mut scan: Scan, filter: Option<&[u8]>) -> Result<Vec<RowResult>> {
    if let Some(f) = filter {
        scan.filter = Some(parse_filter(f).map_err(|e| anyhow::anyhow!("filter: {e}"))?);
    }
    let rows = table.scanner(&scan)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

fn cells(rows: &[RowResult]) -> usize {
    rows.iter().map(|r| r.cells.len()).sum()
}

impl Study {
    fn load(dir: &std::path::Path, files: &[File]) -> Result<(Study, Vec<Load>)> {
        let engine = Engine::open(dir, EngineOptions::default())?;
        let conn = ferrobase_client::Connection::embedded(engine.clone());
        let app = FileSearch::open(&conn)?;
        for (name, family) in [(ID_TABLE, FAMILY), (INDEX_TABLE, INDEX_FAMILY)] {
            engine.admin().create_table(
                TableDescriptor::new(TableName::parse(name)?)
                    .with_family(ColumnFamilyDescriptor::new(family)),
            )?;
        }
        let study = Study {
            files: engine.table(DATA_TABLE)?,
            by_id: engine.table(ID_TABLE)?,
            index: engine.table(INDEX_TABLE)?,
            date_index: engine.table(DATE_INDEX)?,
            engine,
            gateway: None,
            app,
            id_key: ID_KEY.parse()?,
            index_key: INDEX_KEY.parse()?,
            date_index_key: DATE_INDEX_KEY.parse()?,
        };
        // Load: seconds, bytes written and bytes on disk, per table.
        let m = study.engine.metrics();
        let written = || Metrics::get(&m.bytes_written_wal) + Metrics::get(&m.bytes_written_files);
        let mut loads = Vec::new();
        for table in [DATA_TABLE, ID_TABLE, INDEX_TABLE, DATE_INDEX] {
            let (t0, w0) = (Instant::now(), written());
            for chunk in files.chunks(1000) {
                let puts = chunk
                    .iter()
                    .map(|f| study.put_for(table, f))
                    .collect::<Result<Vec<_>>>()?;
                study.engine.table(table)?.put_all(puts)?;
            }
            study.engine.admin().flush(table)?;
            let secs = t0.elapsed().as_secs_f64();
            let w = written() - w0;
            study.engine.admin().major_compact(table)?;
            let bytes = study
                .engine
                .admin()
                .regions(table)?
                .iter()
                .map(|r| r.file_bytes)
                .sum();
            loads.push(Load {
                secs,
                written: w,
                on_disk: bytes,
            });
        }
        Ok((study, loads))
    }

    fn put_for(&self, table: &str, f: &File) -> Result<Put> {
        Ok(match table {
            DATA_TABLE => Put::new(self.app.key(f.user, f.date, f.id)?)
                .add_column(FAMILY, "name", f.name.as_bytes())
                .add_column(FAMILY, "category", f.category.as_bytes()),
            ID_TABLE => Put::new(self.id_key.encode(&[Value::U64(f.id.into())])?)
                .add_column(FAMILY, "user", format!("{:06}", f.user))
                .add_column(FAMILY, "date", f.date.to_string())
                .add_column(FAMILY, "name", f.name.as_bytes())
                .add_column(FAMILY, "category", f.category.as_bytes()),
            INDEX_TABLE => Put::new(self.index_key.encode(&[
                Value::U64(f.user.into()),
                Value::U64(f.date.into()),
                Value::U64(f.id.into()),
            ])?)
            .add_column(INDEX_FAMILY, "f", Vec::<u8>::new()),
            // The app's own index row (`FileSearch::put` writes it after the data row).
            _ => self.app.index_put(&FileRecord {
                user: f.user,
                date: f.date,
                file: f.id,
                name: f.name.clone(),
                category: f.category.clone(),
            })?,
        })
    }

    /// Runs `scan` with `filter` on `table` by path `via`; every row.
    fn scan(
        &self,
        via: Via,
        table: &str,
        scan: Scan,
        filter: Option<&[u8]>,
    ) -> Result<Vec<RowResult>> {
        match via {
            Via::Embedded => {
                let t = match table {
                    DATA_TABLE => &self.files,
                    ID_TABLE => &self.by_id,
                    INDEX_TABLE => &self.index,
                    _ => &self.date_index,
                };
                run_scan(t, scan, filter)
            }
            Via::Thrift => {
                let mut scanner = self.gateway()?.conn.table(table).scanner(scan, filter)?;
                let mut rows = Vec::new();
                loop {
                    let batch = scanner.next_batch(THRIFT_BATCH)?;
                    if batch.is_empty() {
                        return Ok(rows);
                    }
                    rows.extend(batch);
                }
            }
        }
    }

    fn scan_plan(&self, via: Via, table: &str, plan: &ScanPlan) -> Result<Vec<RowResult>> {
        let (scan, filter) = plan.to_scan();
        self.scan(via, table, scan, filter)
    }

    fn gateway(&self) -> Result<&Gateway> {
        self.gateway
            .as_ref()
            .context("the study's gateway is not started")
    }

    fn file_of_data_row(&self, r: &RowResult) -> Result<u32> {
        let f = self.app.key_schema().decode(r.row())?;
        Ok(as_u32(&f[2]))
    }

    fn file_of_id_row(&self, r: &RowResult) -> Result<u32> {
        Ok(as_u32(&self.id_key.decode(r.row())?[0]))
    }

    /// Design `d` answers "user `user`, dates `dates`" (`user` None: any user, one date) by
    /// path `via`.
    fn answer(&self, via: Via, d: usize, user: Option<u32>, dates: (u32, u32)) -> Result<Answer> {
        match (d, user) {
            (0 | 3 | CHECKED | REGEX, Some(user)) => {
                let plan = self.app.plan_find(&FileQuery {
                    user,
                    from: dates.0,
                    to: dates.1,
                    conditions: conditions(),
                })?;
                self.data_answer(&self.scan_plan(via, DATA_TABLE, &plan)?)
            }
            (0, None) => {
                let plan = self.app.plan_find_on_date(&DateQuery {
                    date: dates.0.to_string(),
                    conditions: conditions(),
                })?;
                self.data_answer(&self.scan_plan(via, DATA_TABLE, &plan)?)
            }
            (REGEX, None) => {
                let mut filters = vec![format!(
                    "RowFilter(=, 'regexstring:^[0-9]{{6}}{}[0-9]{{6}}$')",
                    dates.0
                )
                .into_bytes()];
                filters.extend(name_category());
                let rows = self.scan(via, DATA_TABLE, Scan::new(), and(filters).as_deref())?;
                self.data_answer(&rows)
            }
            (3, None) => {
                // The date leads the index key: one date is a range; the copies answer the
                // name and category filters without touching the data table.
                let plan = self
                    .app
                    .plan_find_by_index(dates.0, dates.1, &conditions())?;
                let rows = self.scan_plan(via, DATE_INDEX, &plan)?;
                Ok(Answer {
                    ids: rows
                        .iter()
                        .map(|r| Ok(as_u32(&self.date_index_key.decode(r.row())?[2])))
                        .collect::<Result<_>>()?,
                    cells: cells(&rows),
                    reads: 1,
                })
            }
            (CHECKED, None) => {
                // The app's read path: d's scan, then every hit checked against its data row
                // (a get each), repairing stale or dangling index rows. The index is consistent
                // here, so every hit is found: hits = files found.
                let app = match via {
                    Via::Embedded => &self.app,
                    Via::Thrift => &self.gateway()?.app,
                };
                let found = app.find_by_index(dates.0, dates.1, &conditions())?;
                Ok(Answer {
                    ids: found.iter().map(|f| f.file).collect(),
                    // Name and category from the index row, then again from the data row.
                    cells: 4 * found.len(),
                    reads: 1 + found.len(),
                })
            }
            (1, _) => {
                let filter = and(text_filters(user, dates));
                let rows = self.scan(via, ID_TABLE, Scan::new(), filter.as_deref())?;
                Ok(Answer {
                    ids: rows
                        .iter()
                        .map(|r| self.file_of_id_row(r))
                        .collect::<Result<_>>()?,
                    cells: cells(&rows),
                    reads: 1,
                })
            }
            (_, Some(user)) => {
                let ranges = self.index_key.field_ranges(
                    &[Value::U64(user.into())],
                    std::ops::Bound::Included(Value::U64(dates.0.into())),
                    std::ops::Bound::Included(Value::U64(dates.1.into())),
                )?;
                let range = ranges.into_iter().next().context("no key range")?;
                let scan = Scan::new()
                    .with_start_row(range.start)
                    .with_stop_row(range.stop);
                let hits = self.scan(via, INDEX_TABLE, scan, None)?;
                self.index_answer(via, &hits)
            }
            (_, None) => {
                // The index leads with the user: one date is a fuzzy scan of the whole index.
                let (mut key, mut mask) = (vec![b'0'; 6], vec![b'1'; 6]);
                key.extend(dates.0.to_string().bytes());
                mask.extend([b'0'; 8]);
                key.extend([b'0'; 6]);
                mask.extend([b'1'; 6]);
                let mut fuzzy = b"FuzzyRowFilter(".to_vec();
                fuzzy.extend(quote(&key));
                fuzzy.extend(b", ");
                fuzzy.extend(quote(&mask));
                fuzzy.push(b')');
                let hits = self.scan(via, INDEX_TABLE, Scan::new(), Some(&fuzzy))?;
                self.index_answer(via, &hits)
            }
        }
    }

    fn data_answer(&self, rows: &[RowResult]) -> Result<Answer> {
        Ok(Answer {
            ids: rows
                .iter()
                .map(|r| self.file_of_data_row(r))
                .collect::<Result<_>>()?,
            cells: cells(rows),
            reads: 1,
        })
    }

    /// Gets the data row of every index hit, with the name and category filters pushed into
    /// the get.
    fn index_answer(&self, via: Via, hits: &[RowResult]) -> Result<Answer> {
        let filter = and(name_category()).context("filters")?;
        let mut ids = BTreeSet::new();
        let mut n = cells(hits);
        for h in hits {
            let file = as_u32(&self.index_key.decode(h.row())?[2]);
            let get = Get::new(self.id_key.encode(&[Value::U64(file.into())])?).add_family(FAMILY);
            let r = match via {
                Via::Embedded => self.by_id.get(
                    &get.filter(parse_filter(&filter).map_err(|e| anyhow::anyhow!("filter: {e}"))?),
                )?,
                Via::Thrift => self
                    .gateway()?
                    .conn
                    .table(ID_TABLE)
                    .get(get, Some(&filter))?,
            };
            if !r.is_empty() {
                n += r.cells.len();
                ids.insert(file);
            }
        }
        Ok(Answer {
            ids,
            cells: n,
            reads: 1 + hits.len(),
        })
    }

    /// Runs design `d`'s query `runs` times on each path of `vias` (user `user(i)` for run
    /// i), the paths taking turns run by run so that each sees the engine (block cache, page
    /// cache, machine load) in the same state, and checks every answer against
    /// `expected(user)`. One cost per path, in the order of `vias`.
    fn measure(
        &self,
        vias: &[Via],
        d: usize,
        runs: usize,
        user: impl Fn(usize) -> Option<u32>,
        dates: (u32, u32),
        expected: impl Fn(Option<u32>) -> BTreeSet<u32>,
    ) -> Result<Vec<Cost>> {
        let m = self.engine.metrics();
        let mut costs = vec![Cost::default(); vias.len()];
        let mut times = vec![Vec::new(); vias.len()];
        // One warm-up run per path so every design is measured with its blocks cached.
        for &via in vias {
            self.answer(via, d, user(runs), dates)?;
        }
        for i in 0..runs {
            let u = user(i);
            let want = expected(u);
            for (k, &via) in vias.iter().enumerate() {
                let before = counters(m);
                let t0 = Instant::now();
                let a = self.answer(via, d, u, dates)?;
                times[k].push(micros(t0.elapsed()));
                let after = counters(m);
                ensure!(
                    a.ids == want,
                    "design {} ({}) user {u:?}: {} files, expected {}",
                    DESIGNS[d].0,
                    via.label(),
                    a.ids.len(),
                    want.len()
                );
                let cost = &mut costs[k];
                cost.examined += (after.examined - before.examined) as f64;
                cost.blocks += (after.blocks - before.blocks) as f64;
                cost.bytes += (after.bytes - before.bytes) as f64;
                cost.cells += a.cells as f64;
                cost.results += a.ids.len() as f64;
                cost.reads += a.reads as f64;
            }
        }
        let n = runs as f64;
        for (cost, times) in costs.iter_mut().zip(&times) {
            cost.examined /= n;
            cost.blocks /= n;
            cost.bytes /= n;
            cost.cells /= n;
            cost.results /= n;
            cost.reads /= n;
            cost.p50_us = median_f64(times);
            cost.runs = runs;
        }
        Ok(costs)
    }
}

fn as_u32(v: &Value) -> u32 {
    match v {
        Value::U64(n) => *n as u32,
        _ => u32::MAX,
    }
}

/// Runs the study and writes `pushdown-results.md` (`pushdown.md` is the hand-written analysis), `pushdown.csv` and `pushdown.svg`.
pub fn run(opts: &StudyOptions) -> Result<()> {
    run_with(opts, &Config::new(opts.quick))
}

fn run_with(opts: &StudyOptions, cfg: &Config) -> Result<()> {
    let machine = super::Load::start();
    let files = generate(cfg);
    let mut report = Report::default();
    report.text(&format!(
        "## Filter pushdown vs key design (article 2's file search): measured results\n\n\
         `ferrobase study pushdown{}`: {} users × {} files = {} files, each on a random day of \
         2012, a name starting `{NAME_PREFIX}` with probability 1/4 and a category from six (two \
         of them starting `{CATEGORY_PREFIX}`). Query 1 (article 2): one user's files from {} to \
         {} whose name starts `{NAME_PREFIX}` and category `{CATEGORY_PREFIX}`; query 2: the same \
         conditions on {ONE_DATE}, any user. Tables flushed and major-compacted, family at HBase's \
         defaults (64 KiB blocks), reads warm (one warm-up run first). Figures are means per query \
         over {} runs of query 1 (random users; design b: {} full scans) and {} of query 2; \
         latency is the median run. All designs returned the same files on every run.",
        if opts.quick { " --quick" } else { "" },
        thousands(cfg.users.into()),
        thousands(cfg.files_per_user.into()),
        thousands(files.len() as u64),
        MONTH.0,
        MONTH.1,
        cfg.queries,
        cfg.full_scans,
        cfg.full_scans,
    ));
    let dir = scratch_dir()?;
    let (mut study, loads) = Study::load(dir.path(), &files)?;
    study.gateway = Some(Gateway::start(&study.engine)?);
    eprintln!("pushdown: {} files loaded", files.len());

    let by_user = |u: Option<u32>| -> BTreeSet<u32> {
        files
            .iter()
            .filter(|f| u.is_none_or(|u| f.user == u) && f.date >= MONTH.0 && f.date <= MONTH.1)
            .filter(|f| matches(f))
            .map(|f| f.id)
            .collect()
    };
    let on_date = |_: Option<u32>| -> BTreeSet<u32> {
        files
            .iter()
            .filter(|f| f.date == ONE_DATE && matches(f))
            .map(|f| f.id)
            .collect()
    };
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let users: Vec<u32> = (0..=cfg.queries)
        .map(|_| (rng.next() % u64::from(cfg.users)) as u32 + 1)
        .collect();
    // One untimed pass over every query on both paths first: the first pass after the load
    // ran slower than later ones whichever path took it.
    for via in [Via::Embedded, Via::Thrift] {
        for d in 0..DESIGNS.len() {
            study.answer(via, d, Some(users[0]), MONTH)?;
            study.answer(via, d, None, (ONE_DATE, ONE_DATE))?;
        }
    }
    const VIAS: [Via; 2] = [Via::Embedded, Via::Thrift];
    let mut both: Vec<(Via, usize, usize, Cost)> = Vec::new();
    for (d, design) in DESIGNS.iter().enumerate() {
        let runs = if d == 1 { cfg.full_scans } else { cfg.queries };
        if d != CHECKED && d != REGEX {
            let c = study.measure(&VIAS, d, runs, |i| Some(users[i]), MONTH, by_user)?;
            both.extend(VIAS.iter().zip(c).map(|(v, c)| (*v, 0, d, c)));
        }
        let dates = (ONE_DATE, ONE_DATE);
        let c = study.measure(&VIAS, d, cfg.full_scans, |_| None, dates, on_date)?;
        both.extend(VIAS.iter().zip(c).map(|(v, c)| (*v, 1, d, c)));
        eprintln!("pushdown: design {} measured", design.0);
    }
    both.sort_by_key(|(via, q, d, _)| (*via, *q, *d));
    let salted_load = salted::load(&study.engine, &files)?;
    let (unsalted, salted_cost) =
        salted::measure(&study.engine, &study.app, &files, ONE_DATE, cfg.queries)?;
    eprintln!("pushdown: the salted date-first index measured");
    if let Some(g) = study.gateway.take() {
        g.stop()?;
    }
    study.engine.close();
    let results: Vec<(usize, usize, Cost)> = both
        .iter()
        .filter(|r| r.0 == Via::Embedded)
        .map(|(_, q, d, c)| (*q, *d, c.clone()))
        .collect();
    let thrift: Vec<&Cost> = both
        .iter()
        .filter(|r| r.0 == Via::Thrift)
        .map(|r| &r.3)
        .collect();

    const QUERIES: [&str; 2] = ["one user, one month", "one date, any user"];
    const HOW: [[&str; 6]; 2] = [
        [
            "range scan `user+month` + 4 SCVFs",
            "full scan + 7 SCVFs",
            "index range scan + 1 get per hit (4 SCVFs in the get)",
            "a's range scan",
            "a's range scan",
            "a's range scan",
        ],
        [
            "FuzzyRowFilter `??????date??????` + 4 SCVFs",
            "full scan + 5 SCVFs",
            "FuzzyRowFilter on the index + 1 get per hit",
            "index range scan `date` + 4 SCVFs on the copies",
            "d's scan + 1 get per hit (the app's check)",
            "RowFilter `^[0-9]{6}date[0-9]{6}$` + 4 SCVFs",
        ],
    ];
    let mut t = MdTable::new(&[
        "query",
        "design",
        "reads issued",
        ">files found",
        ">rows examined",
        ">blocks touched",
        ">KiB of blocks",
        ">cells returned",
        ">p50 µs",
    ]);
    for (q, d, c) in &results {
        t.row(vec![
            QUERIES[*q].into(),
            DESIGNS[*d].0.into(),
            format!("{} ({} reads)", HOW[*q][*d], sig(c.reads, 3)),
            sig(c.results, 3),
            thousands(c.examined.round() as u64),
            sig(c.blocks, 3),
            sig(c.bytes / 1024.0, 3),
            sig(c.cells, 3),
            sig(c.p50_us, 3),
        ]);
    }
    report.text(
        "### Queries (per query; blocks touched = block-cache hits + data blocks read from files; \
         KiB of blocks = their decoded bytes, what a cold read would fetch before compression)",
    );
    report.table(&t);

    let mut t = MdTable::new(&[
        "query",
        "design",
        ">calls: reads issued",
        ">rows examined (Thrift)",
        ">cells returned",
        ">p50 µs embedded",
        ">p50 µs through Thrift",
        ">Thrift ÷ embedded",
    ]);
    for ((q, d, e), r) in results.iter().zip(&thrift) {
        t.row(vec![
            QUERIES[*q].into(),
            DESIGNS[*d].0.into(),
            sig(r.reads, 3),
            thousands(r.examined.round() as u64),
            sig(r.cells, 3),
            sig(e.p50_us, 3),
            sig(r.p50_us, 3),
            format!("{}×", sig(r.p50_us / e.p50_us.max(1e-9), 3)),
        ]);
    }
    report.text(&format!(
        "### The same queries through `ferrobase serve` (Thrift1, binary protocol, loopback TCP, \
         {THRIFT_BATCH} rows a scannerGetList; the same engine in the same run, the two paths \
         taking turns run by run, so rows examined and blocks are the embedded path's: the \
         difference is the gateway's)"
    ));
    report.table(&t);

    let mut t = MdTable::new(&[
        "design",
        "key",
        "tables",
        ">puts per file",
        ">load s",
        ">MiB written",
        ">MiB on disk",
    ]);
    let mib = |b: u64| sig(b as f64 / (1 << 20) as f64, 3);
    let sum = |x: &[usize]| Load {
        secs: x.iter().map(|&i| loads[i].secs).sum(),
        written: x.iter().map(|&i| loads[i].written).sum(),
        on_disk: x.iter().map(|&i| loads[i].on_disk).sum(),
    };
    for (d, tables, parts) in [
        (0, "files", &[0][..]),
        (1, "files_by_id", &[1][..]),
        (2, "files_by_id + files_idx", &[1, 2][..]),
        (3, "files + files_by_date", &[0, 3][..]),
    ] {
        let l = sum(parts);
        t.row(vec![
            DESIGNS[d].0.into(),
            DESIGNS[d].1.into(),
            tables.into(),
            parts.len().to_string(),
            sig(l.secs, 3),
            mib(l.written),
            mib(l.on_disk),
        ]);
    }
    report.text(&format!(
        "### Writing the {} files (batches of 1000 puts, then a flush; written = WAL + flush; \
         on disk after a major compaction; e writes as d)",
        thousands(files.len() as u64)
    ));
    report.table(&t);

    let mut csv = String::from("path,query,design,runs,rows_examined,blocks_touched,block_bytes,cells_returned,files_found,reads_issued,p50_us\n");
    for (via, q, d, c) in &both {
        csv.push_str(&format!(
            "\"{}\",\"{}\",\"{}\",{},{:.1},{:.1},{:.0},{:.1},{:.1},{:.1},{:.1}\n",
            via.label(),
            QUERIES[*q],
            DESIGNS[*d].0,
            c.runs,
            c.examined,
            c.blocks,
            c.bytes,
            c.cells,
            c.results,
            c.reads,
            c.p50_us
        ));
    }
    std::fs::write(opts.out.join("pushdown.csv"), csv)?;

    let mut panels = Vec::new();
    for (q, name) in QUERIES.iter().enumerate() {
        let figure = |f: fn(&Cost) -> f64| -> Vec<(String, f64)> {
            results
                .iter()
                .filter(|r| r.0 == q)
                .map(|(_, d, c)| (BAR_KEYS[q][*d].to_string(), f(c)))
                .collect()
        };
        for (title, y, unit, f) in [
            (
                "rows examined",
                "rows",
                Unit::Count,
                (|c: &Cost| c.examined) as fn(&Cost) -> f64,
            ),
            ("KiB of blocks touched", "KiB", Unit::Count, |c: &Cost| {
                c.bytes / 1024.0
            }),
            ("p50, embedded", "latency", Unit::Micros, |c: &Cost| {
                c.p50_us
            }),
        ] {
            panels.push(BarPanel {
                title: format!("{name}: {title}"),
                y_label: y.into(),
                unit,
                bars: figure(f),
            });
        }
        panels.push(BarPanel {
            title: format!("{name}: p50, through Thrift"),
            y_label: "latency".into(),
            unit: Unit::Micros,
            bars: both
                .iter()
                .filter(|r| r.0 == Via::Thrift && r.1 == q)
                .map(|(_, _, d, c)| (BAR_KEYS[q][*d].to_string(), c.p50_us))
                .collect(),
        });
    }
    // What each design costs to write: the price of the reads above.
    let write_designs: [(&str, &[usize]); 3] =
        [("a", &[0]), ("b + index", &[1, 2]), ("d", &[0, 3])];
    panels.push(BarPanel {
        title: format!(
            "writing {} files: MiB written",
            thousands(files.len() as u64)
        ),
        y_label: "MiB (WAL + flush)".into(),
        unit: Unit::Count,
        bars: write_designs
            .iter()
            .map(|(k, parts)| {
                let bytes: u64 = parts.iter().map(|&i| loads[i].written).sum();
                (k.to_string(), bytes as f64 / (1 << 20) as f64)
            })
            .collect(),
    });
    panels.push(BarPanel {
        title: "writing them: MiB on disk".into(),
        y_label: "MiB".into(),
        unit: Unit::Count,
        bars: write_designs
            .iter()
            .map(|(k, parts)| {
                let bytes: u64 = parts.iter().map(|&i| loads[i].on_disk).sum();
                (k.to_string(), bytes as f64 / (1 << 20) as f64)
            })
            .collect(),
    });
    let footer = vec![
        "a: composite key user+date+file (one month: range scan; one date: FuzzyRowFilter) · \
         a/re: a with the RowFilter regex HBase's Thrift1 can take · b: file-id key, full scan"
            .to_string(),
        "c: b + index table user+date+file, a get per hit · d: a + date-first index with copies \
         (one month: reads as a) · e: d + a get per hit to check it"
            .to_string(),
        machine.line(),
    ];
    let mut t = MdTable::new(&[
        "index for \"one date, any user\"",
        "key",
        ">range scans",
        ">rows examined",
        ">blocks touched",
        ">p50 embedded (min–max)",
        ">busiest key range's share of one day's index writes",
        ">index MiB on disk",
    ]);
    for (name, key, c, bytes) in [
        ("d: date-first", DATE_INDEX_KEY, &unsalted, loads[3].on_disk),
        ("d, salted", salted::KEY, &salted_cost, salted_load.on_disk),
    ] {
        t.row(vec![
            name.into(),
            format!("`{key}`"),
            c.scans.to_string(),
            sig(c.examined, 3),
            sig(c.blocks, 3),
            format!(
                "{} ({}–{}) µs",
                sig(c.p50_us, 3),
                sig(c.min_us, 3),
                sig(c.max_us, 3)
            ),
            format!("{:.0} %", c.busiest_share * 100.0),
            mib(bytes),
        ]);
    }
    report.text(&format!(
        "### The date-first index salted: its scatter-gather read against its spread writes\n\n\
         Design d's index with a one-byte salt over user and file in front ({} buckets): one \
         day's index writes spread over the buckets instead of the end of one key range (on a \
         cluster, one region: the rowkeys study's hot spot), and \"one date, any user\" becomes \
         {} range scans merged back into `date, user, file` order by the rowkey crate's \
         scatter_merge. Same engine, the two indexes taking turns over {} runs (plus one warm-up \
         each); {} files were created on {ONE_DATE}, and both found the same {} of them whose \
         name and category match.",
        salted::BUCKETS,
        salted_cost.scans,
        cfg.queries,
        files.iter().filter(|f| f.date == ONE_DATE).count(),
        unsalted.found,
    ));
    report.table(&t);
    report.text(&format!(
        "Salted ÷ unsalted p50: {:.2}×.",
        salted_cost.p50_us / unsalted.p50_us.max(f64::MIN_POSITIVE)
    ));
    report.text(&format!("Measured under {}.", machine.line()));
    write_bar_svg(&opts.out.join("pushdown.svg"), &panels, 4, &footer)?;
    report.text("![rows, blocks and latency per design](pushdown.svg)");
    report.write(&opts.out.join("pushdown-results.md"))?;
    eprintln!("wrote {}", opts.out.join("pushdown-results.md").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates_of_2012() {
        assert_eq!(date_of(0), 20120101);
        assert_eq!(date_of(59), 20120229);
        assert_eq!(date_of(365), 20121231);
    }

    #[test]
    fn quick_study_writes_its_table_and_chart() {
        let dir = tempfile::tempdir().unwrap();
        let mut cfg = Config::new(true);
        cfg.users = 20;
        cfg.queries = 3;
        cfg.full_scans = 2;
        let opts = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            sizes: None,
        };
        run_with(&opts, &cfg).unwrap();
        let md = std::fs::read_to_string(dir.path().join("pushdown-results.md")).unwrap();
        assert!(
            md.contains("| one date, any user  | c: index table"),
            "{md}"
        );
        let svg = std::fs::read_to_string(dir.path().join("pushdown.svg")).unwrap();
        assert!(svg.starts_with("<svg") && svg.contains("b: file-id key"));
        assert!(svg.contains("load average") && svg.contains("MiB written"));
        let problems =
            crate::study::chart::render_check::text_problems(&dir.path().join("pushdown.svg"));
        assert!(problems.is_empty(), "{problems:#?}");
        // Every design was measured through the gateway too, finding the same files.
        assert!(
            md.contains("### The same queries through `ferrobase serve`"),
            "{md}"
        );
        assert!(
            md.contains("| one date, any user  | e: d, hits checked"),
            "{md}"
        );
        let csv = std::fs::read_to_string(dir.path().join("pushdown.csv")).unwrap();
        assert_eq!(
            csv.matches("\"Thrift (ferrobase serve)\"").count(),
            10,
            "{csv}"
        );
        assert_eq!(csv.matches("\"embedded\"").count(), 10, "{csv}");
    }
}
