//! The write path: validate, route to regions, log, insert, and publish through MVCC.

use super::Inner;
use crate::api::{Get, Mutation, MutationCell};
use crate::cell::{CellKey, CellType, KeyValue, LATEST_TIMESTAMP, MAX_ROW_LENGTH};
use crate::error::{Error, Result};
use crate::lock;
use crate::metrics::Metrics;
use crate::region::Region;
use crate::schema::{Durability, TableDescriptor, TableName};
use crate::wal::{SyncLevel, WalCell, WalEdit};
use bytes::Bytes;
use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::Duration;

impl Inner {
    /// Applies `mutations` to `table`. Each row's mutation is atomic; rows in the same region
    /// share one WAL record and sequence id.
    pub(crate) fn mutate(&self, table: &TableName, mutations: Vec<Mutation>) -> Result<()> {
        let _op = self.enter()?;
        let mut looked_up = Some(self.enabled_table(table)?);
        if let Some(entry) = &looked_up {
            for m in &mutations {
                self.validate(&entry.descriptor, m)?;
            }
        }
        if self.wait_for_memstore_room() {
            // The table may have changed while the write waited: looked up again below.
            looked_up = None;
        }
        // Group by region, keeping each row's mutations in order.
        let mut pending: Vec<Mutation> = mutations;
        while !pending.is_empty() {
            // The entry just validated against serves the first round (one catalog lookup for
            // a write of one region); later rounds look the table up again.
            let entry = match looked_up.take() {
                Some(entry) => entry,
                None => self.enabled_table(table)?,
            };
            let region = entry.region_ref(pending[0].row());
            // A batch within one region (every batch of a table of one) is not moved apart.
            let mine = if pending.iter().all(|m| region.contains(m.row())) {
                std::mem::take(&mut pending)
            } else {
                let (mine, rest): (Vec<_>, Vec<_>) =
                    pending.into_iter().partition(|m| region.contains(m.row()));
                pending = rest;
                mine
            };
            if let Some(retry) = self.apply_to_region(&entry.descriptor, region, mine)? {
                // The region closed under us (a split): route these again.
                pending.extend(retry);
            }
        }
        Ok(())
    }

    pub(crate) fn validate(&self, desc: &TableDescriptor, m: &Mutation) -> Result<()> {
        let row = m.row();
        if row.is_empty() {
            return Err(Error::IllegalArgument("row key must not be empty".into()));
        }
        if row.len() > MAX_ROW_LENGTH {
            return Err(Error::TooLarge {
                what: "row key",
                size: row.len(),
                limit: MAX_ROW_LENGTH,
            });
        }
        let cells: &[MutationCell] = match m {
            Mutation::Put(p) => {
                if p.cells.is_empty() {
                    return Err(Error::IllegalArgument(
                        "a put must contain at least one column".into(),
                    ));
                }
                &p.cells
            }
            Mutation::Delete(d) => &d.cells,
        };
        for c in cells {
            if desc.family(&c.family).is_none() {
                return Err(Error::NoSuchColumnFamily {
                    table: desc.name.to_string(),
                    family: String::from_utf8_lossy(&c.family).into_owned(),
                });
            }
            if c.timestamp < 0 {
                return Err(Error::IllegalArgument(format!(
                    "timestamp {} is negative",
                    c.timestamp
                )));
            }
            let size = row.len() + c.family.len() + c.qualifier.len() + c.value.len();
            if size > self.opts.max_cell_size {
                return Err(Error::TooLarge {
                    what: "cell",
                    size,
                    limit: self.opts.max_cell_size,
                });
            }
        }
        Ok(())
    }

    fn sync_level(&self, desc: &TableDescriptor, d: Durability) -> Option<SyncLevel> {
        let d = match (d, desc.durability) {
            (Durability::UseDefault, Durability::UseDefault) => self.opts.default_durability,
            (Durability::UseDefault, t) => t,
            (r, _) => r,
        };
        match d {
            Durability::SkipWal => None,
            Durability::AsyncWal => Some(SyncLevel::Buffered),
            Durability::SyncWal | Durability::UseDefault => Some(SyncLevel::Written),
            Durability::FsyncWal => Some(SyncLevel::Synced),
        }
    }

    /// Applies mutations that all fall in `region`. Returns them back if the region closed.
    fn apply_to_region(
        &self,
        desc: &TableDescriptor,
        region: &Arc<Region>,
        muts: Vec<Mutation>,
    ) -> Result<Option<Vec<Mutation>>> {
        let needs_row_lock = muts.iter().any(|m| match m {
            Mutation::Delete(d) => d
                .cells
                .iter()
                .any(|c| c.cell_type == CellType::Delete && c.timestamp == LATEST_TIMESTAMP),
            Mutation::Put(_) => false,
        });
        let rows: Vec<&[u8]> = if needs_row_lock {
            muts.iter().map(|m| m.row()).collect()
        } else {
            Vec::new()
        };
        let _row_guards = region.lock_rows(&rows);
        self.apply_locked(desc, region, muts)
    }

    /// Applies mutations of `region` whose rows the caller has locked if it needed to. Returns
    /// only once the write is visible to new readers, so a reader started after it sees it
    /// and a read-modify-write holding the row lock hands the next one an up-to-date row.
    pub(crate) fn apply_locked(
        &self,
        desc: &TableDescriptor,
        region: &Arc<Region>,
        muts: Vec<Mutation>,
    ) -> Result<Option<Vec<Mutation>>> {
        let _updates = lock::read(&region.updates);
        if region.is_closed() {
            return Ok(Some(muts));
        }
        self.check_region_serving(region)?;
        self.check_writable()?;
        if desc.attributes.read_only() {
            return Err(Error::ReadOnly(desc.name.to_string()));
        }
        let now = self.now_ms();
        let mut cells: Vec<WalCell> = Vec::new();
        let mut level: Option<SyncLevel> = None;
        for m in &muts {
            let lvl = self.sync_level(desc, m.durability());
            level = match (level, lvl) {
                (Some(a), Some(b)) => Some(max_level(a, b)),
                (a, b) => a.or(b),
            };
        }
        // The mutations are moved into the cells, never copied.
        for m in muts {
            self.resolve_cells(desc, region, m, now, &mut cells)?;
        }
        if cells.is_empty() {
            return Ok(None);
        }
        let seq = self.mvcc.begin();
        let result = (|| {
            if let Some(level) = level {
                let edit = WalEdit {
                    seq,
                    region_id: region.id,
                    cells,
                };
                self.wal.append(&edit, level)?;
                Ok(edit.cells)
            } else {
                Ok(cells)
            }
        })();
        let mut cells = match result {
            Ok(c) => c,
            Err(e) => {
                self.mvcc.complete(seq);
                return Err(e);
            }
        };
        // Inserted grouped by store and row in row order, consecutive cells share most of their
        // skip-list search path (its upper levels stay in the CPU cache) instead of each walking
        // cold nodes; the order within a row does not matter for that. The sort is stable: of
        // two cells with the same key (same sequence id), the later still replaces the earlier,
        // as in application order.
        if cells.len() > 1 {
            cells.sort_by(|a, b| (&a.family, &a.row).cmp(&(&b.family, &b.row)));
        }
        // Each store's cells (consecutive after the sort) go in together, all under one
        // read of the region's stores, which also gives the region's active memstore size.
        let key_value = |c: WalCell| KeyValue {
            key: CellKey {
                row: c.row,
                qualifier: c.qualifier,
                timestamp: c.timestamp,
                cell_type: c.cell_type,
                seq,
            },
            value: c.value,
            ttl_ms: c.ttl_ms,
        };
        let (added, active) = region.with_stores(|stores| {
            let mut added = 0;
            // The size of the only store after this write's cells, when the region has one.
            let mut only = None;
            let mut cells = cells.into_iter().peekable();
            while let Some(mut first) = cells.next() {
                // The family is moved out of the first cell, not cloned (a clone of a buffer
                // that came as a vector allocates its shared count).
                let family = std::mem::take(&mut first.family);
                let store = stores.get(&family[..]);
                let inserted = if cells.peek().is_some_and(|c| c.family == family) {
                    // Sized for every cell left, so a 1,000-row batch's run is not grown by
                    // doubling (eight reallocations from 4 cells up, each a copy).
                    let mut run = Vec::with_capacity(cells.len() + 1);
                    run.push(key_value(first));
                    while let Some(c) = cells.next_if(|c| c.family == family) {
                        run.push(key_value(c));
                    }
                    store.map(|s| s.insert_cells(&run))
                } else {
                    // One cell (a single put's): no vector.
                    store.map(|s| s.insert_cells(std::slice::from_ref(&key_value(first))))
                };
                if let Some((n, size)) = inserted {
                    added += n;
                    only = (stores.len() == 1).then_some(size);
                }
            }
            let active = only.unwrap_or_else(|| stores.values().map(|s| s.active_size()).sum());
            (added, active)
        });
        self.mvcc.complete(seq);
        // Acknowledged means visible (HBase's completeAndWait): a read the caller starts next
        // sees the write even while an earlier write of another thread is still in flight.
        self.mvcc.wait_for(seq);
        let before = self.global_memstore.fetch_add(added, Ordering::AcqRel);
        // Crossing the lower limit asks for the largest memstore to be flushed now, so the
        // flush runs before writers reach the limit and wait (HBase's flusher does the same
        // above `hbase.regionserver.global.memstore.size.lower.limit`); the flusher keeps
        // flushing the largest while flushes bring the total down and it stays above.
        let lower = self.memory.global_memstore_lower_limit;
        if before < lower && before.saturating_add(added) >= lower {
            self.request_largest_flush();
        }
        // The active memstores only, without the snapshots a flush is writing: counting the
        // snapshots, every write during a flush asked for another, and the flusher then wrote
        // the little those writes had added as a file of its own, every second flush (HBase's
        // `flushRequested` stays set until the flush ends, and the size it compares no longer
        // holds the flushed cells).
        if active
            >= desc
                .attributes
                .memstore_flush_size(self.opts.memstore_flush_size)
        {
            self.request_flush(region.id);
        }
        Ok(None)
    }

    /// Turns a mutation into concrete cells: server timestamps, whole-row deletes expanded to
    /// every family, version deletes without a timestamp resolved to the newest version.
    fn resolve_cells(
        &self,
        desc: &TableDescriptor,
        region: &Region,
        m: Mutation,
        now: i64,
        out: &mut Vec<WalCell>,
    ) -> Result<()> {
        let ts_or_now = |ts: i64| if ts == LATEST_TIMESTAMP { now } else { ts };
        match m {
            Mutation::Put(p) => {
                let ttl_ms = p.ttl_ms;
                let mut row = p.row;
                let n = p.cells.len();
                for (i, c) in p.cells.into_iter().enumerate() {
                    // The last cell takes the row itself: a one-cell put never shares its row
                    // buffer (no reference count to allocate or update).
                    let row = if i + 1 == n {
                        std::mem::take(&mut row)
                    } else {
                        row.clone()
                    };
                    out.push(WalCell {
                        family: c.family,
                        row,
                        qualifier: c.qualifier,
                        timestamp: ts_or_now(c.timestamp),
                        cell_type: CellType::Put,
                        value: c.value,
                        ttl_ms,
                    });
                }
            }
            Mutation::Delete(d) if d.cells.is_empty() => {
                let ttl_ms = d.ttl_ms;
                let row = d.row;
                for f in &desc.families {
                    out.push(WalCell {
                        family: Bytes::copy_from_slice(&f.name),
                        row: row.clone(),
                        qualifier: Bytes::new(),
                        timestamp: ts_or_now(d.timestamp),
                        cell_type: CellType::DeleteFamily,
                        value: Bytes::new(),
                        ttl_ms,
                    });
                }
            }
            Mutation::Delete(d) => {
                let ttl_ms = d.ttl_ms;
                let row = d.row;
                for c in d.cells {
                    let ts = if c.cell_type == CellType::Delete && c.timestamp == LATEST_TIMESTAMP {
                        self.newest_version_ts(region, &row, &c.family, &c.qualifier)?
                            .unwrap_or(now)
                    } else {
                        ts_or_now(c.timestamp)
                    };
                    out.push(WalCell {
                        family: c.family,
                        row: row.clone(),
                        qualifier: c.qualifier,
                        timestamp: ts,
                        cell_type: c.cell_type,
                        value: Bytes::new(),
                        ttl_ms,
                    });
                }
            }
        }
        Ok(())
    }

    fn newest_version_ts(
        &self,
        region: &Region,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
    ) -> Result<Option<i64>> {
        let get = Get::new(row).add_column(family, qualifier);
        let r = crate::read::get_in_region(self, region, &get, self.mvcc.read_point())?;
        Ok(r.cells.first().map(|c| c.timestamp()))
    }

    /// Blocks while the memstores together exceed the global limit, asking for flushes; stops
    /// waiting when writes are suspended (the flushes that would make room are failing: the
    /// write then fails with `WritesSuspended` instead of waiting for the disk). Returns
    /// whether it waited.
    fn wait_for_memstore_room(&self) -> bool {
        let limit = self.memory.global_memstore_limit;
        if self.global_memstore.load(Ordering::Acquire) < limit {
            return false;
        }
        Metrics::inc(&self.metrics.write_stalls);
        let started = std::time::Instant::now();
        let mut g = lock::lock(&self.memstore_wait);
        while self.global_memstore.load(Ordering::Acquire) >= limit
            && self.check_open().is_ok()
            && self.gate.check().is_ok()
        {
            self.request_largest_flush();
            g = lock::wait_timeout(&self.memstore_drained, g, Duration::from_millis(50));
        }
        drop(g);
        Metrics::add(
            &self.metrics.write_stall_micros,
            u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
        );
        true
    }

    pub(crate) fn request_largest_flush(&self) {
        let largest = self
            .all_regions()
            .into_iter()
            .max_by_key(|r| r.memstore_size())
            .filter(|r| r.memstore_size() > 0);
        if let Some(r) = largest {
            self.request_flush(r.id);
        }
    }
}

fn max_level(a: SyncLevel, b: SyncLevel) -> SyncLevel {
    let rank = |l| match l {
        SyncLevel::Buffered => 0,
        SyncLevel::Written => 1,
        SyncLevel::Synced => 2,
    };
    if rank(a) >= rank(b) {
        a
    } else {
        b
    }
}
