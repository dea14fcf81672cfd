//! The designs' tables and reads: loading every table from the generated files, and how each
//! design answers each query on each path (embedded or through the gateway), checked and
//! costed run by run.

use super::data::File;
use super::gateway::{Gateway, Via, THRIFT_BATCH};
use super::{
    Cost, CATEGORY_PREFIX, CHECKED, DATA_TABLE, DESIGNS, FAMILY, ID_KEY, ID_TABLE, INDEX_FAMILY,
    INDEX_KEY, INDEX_TABLE, NAME_PREFIX, REGEX,
};
use crate::study::measure::{median_f64, micros};
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

/// Counters before a query.
pub(super) struct Before {
    pub(super) examined: u64,
    pub(super) blocks: u64,
    pub(super) bytes: u64,
}

pub(super) fn counters(m: &Metrics) -> Before {
    Before {
        examined: Metrics::get(&m.rows_examined),
        blocks: Metrics::get(&m.block_cache_hits) + Metrics::get(&m.data_blocks_read),
        bytes: Metrics::get(&m.data_block_bytes_touched),
    }
}

/// One run's result: file ids found, cells returned, reads issued.
pub(super) struct Answer {
    pub(super) ids: BTreeSet<u32>,
    pub(super) cells: usize,
    pub(super) reads: usize,
}

pub(super) struct Study {
    pub(super) engine: Engine,
    pub(super) gateway: Option<Gateway>,
    pub(super) app: FileSearch,
    pub(super) files: Table,
    pub(super) by_id: Table,
    pub(super) index: Table,
    pub(super) date_index: Table,
    pub(super) id_key: Schema,
    pub(super) index_key: Schema,
    pub(super) date_index_key: Schema,
}

/// What loading one table cost.
#[derive(Debug, Clone, Copy)]
pub(super) struct Load {
    pub(super) secs: f64,
    /// Bytes written to the WAL and by the flush.
    pub(super) written: u64,
    /// Bytes on disk after a major compaction.
    pub(super) on_disk: u64,
}

pub(super) fn text_filters(user: Option<u32>, dates: (u32, u32)) -> Vec<Vec<u8>> {
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

pub(super) fn name_category() -> Vec<Vec<u8>> {
    let mut f = prefix_bounds(FAMILY, "name", NAME_PREFIX.as_bytes());
    f.extend(prefix_bounds(
        FAMILY,
        "category",
        CATEGORY_PREFIX.as_bytes(),
    ));
    f
}

pub(super) fn conditions() -> Conditions {
    Conditions {
        name_prefix: Some(NAME_PREFIX.into()),
        category_prefix: Some(CATEGORY_PREFIX.into()),
        page_size: None,
        after: None,
    }
}

/// Runs `scan` with `filter` (filter-language text) and returns every row.
pub(super) fn run_scan(
    table: &Table,
    mut scan: Scan,
    filter: Option<&[u8]>,
) -> Result<Vec<RowResult>> {
    if let Some(f) = filter {
        scan.filter = Some(parse_filter(f).map_err(|e| anyhow::anyhow!("filter: {e}"))?);
    }
    let rows = table.scanner(&scan)?.collect::<Result<Vec<_>, _>>()?;
    Ok(rows)
}

pub(super) fn cells(rows: &[RowResult]) -> usize {
    rows.iter().map(|r| r.cells.len()).sum()
}

impl Study {
    pub(super) fn load(dir: &std::path::Path, files: &[File]) -> Result<(Study, Vec<Load>)> {
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

    pub(super) fn put_for(&self, table: &str, f: &File) -> Result<Put> {
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
    pub(super) fn scan(
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

    pub(super) fn scan_plan(
        &self,
        via: Via,
        table: &str,
        plan: &ScanPlan,
    ) -> Result<Vec<RowResult>> {
        let (scan, filter) = plan.to_scan();
        self.scan(via, table, scan, filter)
    }

    pub(super) fn gateway(&self) -> Result<&Gateway> {
        self.gateway
            .as_ref()
            .context("the study's gateway is not started")
    }

    pub(super) fn file_of_data_row(&self, r: &RowResult) -> Result<u32> {
        let f = self.app.key_schema().decode(r.row())?;
        Ok(as_u32(&f[2]))
    }

    pub(super) fn file_of_id_row(&self, r: &RowResult) -> Result<u32> {
        Ok(as_u32(&self.id_key.decode(r.row())?[0]))
    }

    /// Design `d` answers "user `user`, dates `dates`" (`user` None: any user, one date) by
    /// path `via`.
    pub(super) fn answer(
        &self,
        via: Via,
        d: usize,
        user: Option<u32>,
        dates: (u32, u32),
    ) -> Result<Answer> {
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

    pub(super) fn data_answer(&self, rows: &[RowResult]) -> Result<Answer> {
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
    pub(super) fn index_answer(&self, via: Via, hits: &[RowResult]) -> Result<Answer> {
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
    pub(super) fn measure(
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

pub(super) fn as_u32(v: &Value) -> u32 {
    match v {
        Value::U64(n) => *n as u32,
        _ => u32::MAX,
    }
}
