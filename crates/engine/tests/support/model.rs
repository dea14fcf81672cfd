//! A reference model of HBase's read semantics: every cell ever written kept in a plain
//! vector, and reads answered by filtering it declaratively. It shares no code with the engine.
//!
//! Time for TTL is the model's `now` (milliseconds), which the test keeps equal to the engine's
//! manual clock: a cell is expired when its timestamp is below `now - TTL`. Reads skip expired
//! versions past the family's MIN_VERSIONS (counted among the versions the read would return);
//! flushes and compactions drop them the same way, and drop expired delete markers when
//! MIN_VERSIONS is 0 (HBase's `ScanQueryMatcher` and `ColumnTracker.checkVersions`).
//!
//! A put may carry its own TTL (`Put::ttl`): once `ts + ttl < now` it is skipped by every read,
//! raw ones included, without counting as a version (so an older version shows again), and
//! flushes and compactions drop it (HBase's `ScanQueryMatcher.preCheck`).

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::CellType;

/// A mutation's cell: (row, family, qualifier, ts, type, value).
pub type MutCell = (Vec<u8>, Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>);

/// A cell of the model.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MCell {
    pub row: Vec<u8>,
    pub family: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub ts: i64,
    pub kind: CellType,
    pub seq: u64,
    pub value: Vec<u8>,
    /// In a store file (flushed), not only in a memstore: major compactions rewrite only these.
    pub flushed: bool,
    /// The cell's own TTL in milliseconds.
    pub ttl_ms: Option<i64>,
}

impl MCell {
    /// The cell as a read returns it.
    fn out(&self) -> Out {
        (
            self.family.clone(),
            self.qualifier.clone(),
            self.ts,
            self.kind,
            self.value.clone(),
        )
    }
}

/// Family settings the model needs.
#[derive(Debug, Clone)]
pub struct MFamily {
    pub name: Vec<u8>,
    pub versions: usize,
    pub keep_deleted: bool,
    /// Versions kept past the TTL.
    pub min_versions: usize,
    /// Time to live in milliseconds; `None`: forever.
    pub ttl_ms: Option<i64>,
    /// NEW_VERSION_BEHAVIOR: see [`Model::nvb_hidden`].
    pub new_version_behavior: bool,
}

impl MFamily {
    /// A family keeping `versions` versions, forever, without MIN_VERSIONS.
    pub fn new(name: &str, versions: usize, keep_deleted: bool) -> Self {
        MFamily {
            name: name.as_bytes().to_vec(),
            versions,
            keep_deleted,
            min_versions: 0,
            ttl_ms: None,
            new_version_behavior: false,
        }
    }
}

/// A read against the model.
#[derive(Debug, Clone)]
pub struct MRead {
    /// (family, qualifiers); empty list = whole family; empty vec = all families.
    pub columns: Vec<(Vec<u8>, Vec<Vec<u8>>)>,
    pub min_ts: i64,
    pub max_ts: i64,
    pub versions: usize,
    pub raw: bool,
}

/// The model.
#[derive(Debug, Default)]
pub struct Model {
    pub families: Vec<MFamily>,
    pub cells: Vec<MCell>,
    pub seq: u64,
    /// The time TTL is measured against, in milliseconds since the epoch.
    pub now: i64,
}

/// What a read returns for one cell: (family, qualifier, ts, type, value).
pub type Out = (Vec<u8>, Vec<u8>, i64, CellType, Vec<u8>);

impl Model {
    pub fn new(families: Vec<MFamily>) -> Self {
        Model {
            families,
            cells: Vec::new(),
            seq: 0,
            now: 0,
        }
    }

    /// Whether a cell of `fam` at `ts` is past its TTL now.
    fn expired(&self, fam: &MFamily, ts: i64) -> bool {
        fam.ttl_ms.is_some_and(|ttl| ts < self.now - ttl)
    }

    /// Whether cell `c` is past its own TTL now.
    fn cell_expired(&self, c: &MCell) -> bool {
        c.ttl_ms.is_some_and(|ttl| c.ts + ttl < self.now)
    }

    /// Records one mutation's cells, all with one new sequence id.
    pub fn apply(&mut self, cells: Vec<MutCell>) {
        self.apply_with_ttl(cells, None);
    }

    /// Records one mutation's cells, all with one new sequence id and the cell TTL `ttl_ms`.
    pub fn apply_with_ttl(&mut self, cells: Vec<MutCell>, ttl_ms: Option<i64>) {
        self.seq += 1;
        for (row, family, qualifier, ts, kind, value) in cells {
            self.cells.push(MCell {
                row,
                family,
                qualifier,
                ts,
                kind,
                seq: self.seq,
                value,
                flushed: false,
                ttl_ms,
            });
        }
    }

    fn family(&self, f: &[u8]) -> &MFamily {
        self.families
            .iter()
            .find(|x| x.name == f)
            .expect("known family")
    }

    /// True when marker `m` masks put `p` (same row and family), ignoring time ranges.
    fn masks(m: &MCell, p: &MCell) -> bool {
        match m.kind {
            CellType::DeleteFamily => m.ts >= p.ts,
            CellType::DeleteFamilyVersion => m.ts == p.ts,
            CellType::DeleteColumn => m.qualifier == p.qualifier && m.ts >= p.ts,
            CellType::Delete => m.qualifier == p.qualifier && m.ts == p.ts,
            _ => false,
        }
    }

    /// NEW_VERSION_BEHAVIOR (HBASE-15968): put `p` of a column (whose puts that reach the
    /// tracker are `puts`, in key order: newest timestamp first, then newest write) is hidden
    /// when a marker among `markers` (of its row and family) written after it masks it; when a
    /// later write at its timestamp overwrote it; or when it is *version masked*: at some
    /// moment since it was written (just before a later marker of its column that sorts before
    /// it, or now) `versions` puts sorting before it were counted visible.
    ///
    /// A put counts as visible at a moment when it was written before it, no marker written
    /// before it deleted it, no put at its timestamp overwrote it before it, and it was not
    /// itself version masked at an earlier moment (or at that one): a masked put stops
    /// counting, so that when the versions that masked it are deleted, an older put behind it
    /// may show (HBase's `NewVersionBehaviorTracker.isDeleted` stops adding a put to its
    /// counting sets at the first full one).
    fn nvb_hidden(p: &MCell, puts: &[&MCell], markers: &[&MCell], versions: usize) -> bool {
        let masks = |m: &MCell, q: &MCell| m.seq > q.seq && Self::masks(m, q);
        if markers.iter().any(|m| masks(m, p)) {
            return true;
        }
        if puts.iter().any(|q| q.ts == p.ts && q.seq > p.seq) {
            return true;
        }
        let masked_at = Self::nvb_masked_at(puts, markers, versions);
        puts.iter()
            .position(|q| std::ptr::eq(*q, p))
            .is_some_and(|i| masked_at[i].is_some())
    }

    /// For each of `puts` (key order), the first moment (a marker's sequence id, or
    /// `u64::MAX` for now) at which it is version masked, if any; see [`Model::nvb_hidden`].
    /// The moments of a put are the later markers of its column that sort before it (family
    /// markers, and its column's at its timestamp or newer), and now.
    fn nvb_masked_at(puts: &[&MCell], markers: &[&MCell], versions: usize) -> Vec<Option<u64>> {
        let masks = |m: &MCell, q: &MCell| m.seq > q.seq && Self::masks(m, q);
        let mut masked_at: Vec<Option<u64>> = Vec::with_capacity(puts.len());
        for (i, p) in puts.iter().enumerate() {
            let mut moments: Vec<u64> = markers
                .iter()
                .filter(|m| m.seq > p.seq && Self::masks_column(m, &p.qualifier))
                .filter(|m| m.qualifier.is_empty() || m.ts >= p.ts)
                .map(|m| m.seq)
                .chain(std::iter::once(u64::MAX))
                .collect();
            moments.sort_unstable();
            let counted_at = |j: usize, t: u64| {
                let q = puts[j];
                q.seq < t
                    && masked_at[j].is_none_or(|m| t < m)
                    && !markers.iter().any(|m| m.seq < t && masks(m, q))
                    && !puts
                        .iter()
                        .any(|o| o.ts == q.ts && o.seq > q.seq && o.seq < t)
            };
            let first = moments.into_iter().find(|&t| {
                (0..i)
                    .filter(|&j| puts[j].ts > p.ts && counted_at(j, t))
                    .count()
                    >= versions
            });
            masked_at.push(first);
        }
        masked_at
    }

    /// True when marker `m` is one of column `qualifier`'s (a family marker, or its own).
    fn masks_column(m: &MCell, qualifier: &[u8]) -> bool {
        match m.kind {
            CellType::DeleteFamily | CellType::DeleteFamilyVersion => true,
            CellType::DeleteColumn | CellType::Delete => m.qualifier == qualifier,
            _ => false,
        }
    }

    /// What a compaction keeps of one row's cells of a NEW_VERSION_BEHAVIOR family (not keeping
    /// deleted cells): a flush or minor compaction (`keep_markers`) everything; a major one
    /// drops the markers and the puts [`Model::nvb_hidden`] hides, and keeps at most VERSIONS
    /// of the rest per column (past MIN_VERSIONS, none expired).
    fn compact_new_version_behavior(
        &self,
        fam: &MFamily,
        mine: &[&MCell],
        keep_markers: bool,
    ) -> Vec<MCell> {
        if keep_markers {
            return mine.iter().map(|c| (*c).clone()).collect();
        }
        let markers: Vec<&MCell> = mine
            .iter()
            .copied()
            .filter(|c| c.kind.is_delete())
            .collect();
        let mut quals: Vec<&Vec<u8>> = mine.iter().map(|c| &c.qualifier).collect();
        quals.sort();
        quals.dedup();
        let mut keep = Vec::new();
        for q in quals {
            let mut puts: Vec<&MCell> = mine
                .iter()
                .copied()
                .filter(|c| &c.qualifier == q && c.kind == CellType::Put)
                // An expired cell goes before the tracker sees it (HBase's `preCheck`).
                .filter(|p| !self.cell_expired(p))
                .collect();
            puts.sort_by(|a, b| b.ts.cmp(&a.ts).then(b.seq.cmp(&a.seq)));
            let mut n = 0;
            for p in &puts {
                if Self::nvb_hidden(p, &puts, &markers, fam.versions) {
                    continue;
                }
                n += 1;
                if n > fam.versions || (n > fam.min_versions && self.expired(fam, p.ts)) {
                    break;
                }
                keep.push((*p).clone());
            }
        }
        keep
    }

    fn selected(read: &MRead, family: &[u8], qualifier: &[u8]) -> bool {
        if read.columns.is_empty() {
            return true;
        }
        read.columns
            .iter()
            .any(|(f, qs)| f == family && (qs.is_empty() || qs.iter().any(|q| q == qualifier)))
    }

    /// True when the read names qualifiers of `family` (HBase's explicit column tracker), not
    /// the whole family (its wildcard one).
    fn explicit(read: &MRead, family: &[u8]) -> bool {
        read.columns
            .iter()
            .any(|(f, qs)| f == family && !qs.is_empty())
            && !read
                .columns
                .iter()
                .any(|(f, qs)| f == family && qs.is_empty())
    }

    /// The cells a read of `row` returns, in result order.
    pub fn read_row(&self, row: &[u8], read: &MRead) -> Vec<Out> {
        let mut families: Vec<&MFamily> = self.families.iter().collect();
        families.sort_by(|a, b| a.name.cmp(&b.name));
        let mut out = Vec::new();
        for fam in families {
            let mine: Vec<&MCell> = self
                .cells
                .iter()
                .filter(|c| c.row == row && c.family == fam.name)
                .collect();
            let mut quals: Vec<&Vec<u8>> = mine.iter().map(|c| &c.qualifier).collect();
            quals.sort();
            quals.dedup();
            for q in quals {
                if !Self::selected(read, &fam.name, q) {
                    continue;
                }
                let explicit = Self::explicit(read, &fam.name);
                let mut col: Vec<&MCell> =
                    mine.iter().copied().filter(|c| &c.qualifier == q).collect();
                // Newest timestamp first, markers before puts, newest write first.
                col.sort_by(|a, b| {
                    b.ts.cmp(&a.ts)
                        .then(b.kind.cmp(&a.kind))
                        .then(b.seq.cmp(&a.seq))
                });
                if read.raw {
                    for (i, c) in col
                        .into_iter()
                        .filter(|c| c.ts >= read.min_ts && c.ts < read.max_ts)
                        .filter(|c| !self.cell_expired(c))
                        .take(read.versions)
                        .enumerate()
                    {
                        // Past MIN_VERSIONS an expired version ends the column (older ones
                        // are expired too).
                        if i + 1 >= fam.min_versions && self.expired(fam, c.ts) {
                            if explicit && fam.min_versions > 0 {
                                out.push(c.out());
                                break;
                            }
                            if i + 1 > fam.min_versions {
                                break;
                            }
                        }
                        out.push(c.out());
                    }
                    continue;
                }
                let markers: Vec<&MCell> = mine
                    .iter()
                    .copied()
                    .filter(|m| m.kind.is_delete())
                    .filter(|m| {
                        if fam.keep_deleted {
                            m.ts >= read.min_ts && m.ts < read.max_ts
                        } else {
                            m.ts >= read.min_ts
                        }
                    })
                    .collect();
                let mut last_ts = None;
                let mut n = 0;
                // Expired cells never reach the tracker (HBase's `preCheck`): they neither mask
                // nor count as versions.
                let puts: Vec<&MCell> = col
                    .iter()
                    .copied()
                    .filter(|c| c.kind == CellType::Put && !self.cell_expired(c))
                    .collect();
                for &p in &puts {
                    if fam.new_version_behavior {
                        if Self::nvb_hidden(p, &puts, &markers, fam.versions) {
                            continue;
                        }
                        if p.ts >= read.max_ts {
                            continue;
                        }
                        if p.ts < read.min_ts {
                            break;
                        }
                        n += 1;
                        if n > fam.min_versions && self.expired(fam, p.ts) {
                            break;
                        }
                        if n > read.versions.min(fam.versions) {
                            break;
                        }
                        out.push(p.out());
                        continue;
                    }
                    if markers.iter().any(|m| Self::masks(m, p)) {
                        continue;
                    }
                    if p.ts < read.min_ts || p.ts >= read.max_ts {
                        continue;
                    }
                    if last_ts == Some(p.ts) {
                        continue;
                    }
                    last_ts = Some(p.ts);
                    n += 1;
                    if n > read.versions.min(fam.versions) {
                        break;
                    }
                    if n >= fam.min_versions && self.expired(fam, p.ts) {
                        // Past MIN_VERSIONS an expired version ends the column: HBase's
                        // explicit column tracker returns it first, its wildcard one does not.
                        if explicit && fam.min_versions > 0 {
                            out.push(p.out());
                            break;
                        }
                        if n > fam.min_versions {
                            break;
                        }
                    }
                    out.push(p.out());
                }
            }
        }
        out
    }

    /// Rows holding any cell, ascending.
    pub fn rows(&self) -> Vec<Vec<u8>> {
        let mut r: Vec<Vec<u8>> = self.cells.iter().map(|c| c.row.clone()).collect();
        r.sort();
        r.dedup();
        r
    }

    /// A flush: every cell is in a store file, written as HBase's flush writes a memstore
    /// (a minor compaction of it): delete markers stay; among the memstore's own cells, puts
    /// they mask (unless the family keeps deleted cells), overwritten values and versions
    /// beyond VERSIONS go. Cells already in files are left alone.
    pub fn flush(&mut self) {
        let (fresh, flushed): (Vec<MCell>, Vec<MCell>) = std::mem::take(&mut self.cells)
            .into_iter()
            .partition(|c| !c.flushed);
        let mut keep = self.compact(&fresh, true);
        keep.iter_mut().for_each(|c| c.flushed = true);
        keep.extend(flushed);
        self.cells = keep;
    }

    /// A major compaction of the flushed cells: drops markers and what they mask (unless the
    /// family keeps deleted cells), overwritten values and versions beyond VERSIONS among
    /// them. Cells still in a memstore are left alone, as in HBase: their markers go on
    /// masking, and their puts are not purged by flushed markers.
    pub fn major_compact(&mut self) {
        let (cells, mut keep): (Vec<MCell>, Vec<MCell>) = std::mem::take(&mut self.cells)
            .into_iter()
            .partition(|c| c.flushed);
        keep.extend(self.compact(&cells, false));
        self.cells = keep;
    }

    /// What a compaction of `cells` keeps, per row and family: markers when `keep_markers`
    /// (a minor compaction or flush) or the family keeps deleted cells; puts not masked by a
    /// marker among `cells` (unless the family keeps deleted cells), one per timestamp (the
    /// newest write), at most VERSIONS per column.
    fn compact(&self, cells: &[MCell], keep_markers: bool) -> Vec<MCell> {
        let mut keep = Vec::new();
        let mut groups: Vec<(Vec<u8>, Vec<u8>)> = cells
            .iter()
            .map(|c| (c.row.clone(), c.family.clone()))
            .collect();
        groups.sort();
        groups.dedup();
        for (row, family) in groups {
            let fam = self.family(&family).clone();
            let mine: Vec<&MCell> = cells
                .iter()
                .filter(|c| c.row == row && c.family == family)
                .collect();
            if fam.new_version_behavior {
                keep.extend(self.compact_new_version_behavior(&fam, &mine, keep_markers));
                continue;
            }
            let markers: Vec<&MCell> = mine
                .iter()
                .copied()
                .filter(|c| c.kind.is_delete())
                .collect();
            if keep_markers || fam.keep_deleted {
                keep.extend(
                    markers
                        .iter()
                        .filter(|m| fam.min_versions > 0 || !self.expired(&fam, m.ts))
                        .map(|m| (*m).clone()),
                );
            }
            let mut quals: Vec<&Vec<u8>> = mine.iter().map(|c| &c.qualifier).collect();
            quals.sort();
            quals.dedup();
            for q in quals {
                let mut puts: Vec<&MCell> = mine
                    .iter()
                    .copied()
                    .filter(|c| &c.qualifier == q && c.kind == CellType::Put)
                    .filter(|p| !self.cell_expired(p))
                    .filter(|p| fam.keep_deleted || !markers.iter().any(|m| Self::masks(m, p)))
                    .collect();
                puts.sort_by(|a, b| b.ts.cmp(&a.ts).then(b.seq.cmp(&a.seq)));
                puts.dedup_by(|b, a| a.ts == b.ts);
                keep.extend(
                    puts.into_iter()
                        .take(fam.versions)
                        .enumerate()
                        .take_while(|(i, p)| *i < fam.min_versions || !self.expired(&fam, p.ts))
                        .map(|(_, p)| p.clone()),
                );
            }
        }
        keep
    }
}
