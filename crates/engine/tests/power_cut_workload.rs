//! Random power cuts under every kind of mutation and DDL, across several tables and a
//! namespace, on the fault-injecting file system with its whole model of real file systems
//! (`FaultModel`: pages persisted out of order, zero-filled tails, torn overwrites, directory
//! trees created and removed one entry at a time), and a random fault on any kind of
//! file-system operation in some rounds.
//!
//! What survives a cut is checked against the order the writes were issued in, across rows and
//! tables: the rows show the state after some prefix of the issued writes (every write
//! acknowledged durably, and every write before it, included; nothing after a lost write
//! present); DDL acknowledged is there. Puts, row deletes, increments, appends,
//! check-and-mutates and multi-row batches at FSYNC_WAL, SYNC_WAL and ASYNC_WAL; flush, major
//! compaction, split, truncate, drop and re-create, family add/delete/modify, a table attribute
//! (DURABILITY), namespace create and drop.
//!
//! `FERROBASE_POWER_CUTS=<n>` runs at least `n` cut points (default 1,000) and
//! `FERROBASE_POWER_CUT_SEED=<s>` changes the seeds (`FERROBASE_POWER_CUT_SKIP=<w>` starts at
//! workload `w + 1`, to replay a failure; `FERROBASE_POWER_CUT_TRACE=1` prints every operation).
//! The coverage of operation kinds is printed.

use ferrobase_engine::filter::CompareOp;
mod support;

use ferrobase_engine::fs::fault::{CutMode, Fault, FaultFileSystem, FaultModel, OpKind, TailFill};
use ferrobase_engine::*;
use ferrobase_testkit::Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};

use support::power_cut::*;

/// A row as read: `family:qualifier` to value.
type RowState = BTreeMap<String, Vec<u8>>;

/// What the catalog holds, as the model knows it.
#[derive(Debug, Clone, PartialEq)]
struct Catalog {
    namespace: bool,
    /// Per table: exists, has family `c`, its descriptor's durability is FSYNC_WAL.
    tables: [(bool, bool, bool); 3],
}

/// A DDL whose call failed as the power went: applied or not, as the reopened catalog says.
#[derive(Debug, Clone)]
enum Uncertain {
    Catalog(Catalog),
    /// A truncate: applied if the table's region ids changed.
    Truncate {
        table: usize,
        regions: Vec<u64>,
    },
}

/// Per row, the states it passes through: `(event, state after it)`, the first entry durable.
#[derive(Debug, Clone)]
struct History(Vec<(u64, RowState)>);

impl History {
    fn at(&self, k: u64) -> &RowState {
        let i = self.0.partition_point(|(e, _)| *e <= k);
        &self.0[i.saturating_sub(1)].1
    }

    fn live(&self) -> &RowState {
        &self.0[self.0.len() - 1].1
    }
}

struct Model {
    catalog: Catalog,
    rows: Vec<Vec<History>>,
    /// The last event; events are numbered from 1 in the order issued.
    last: u64,
    /// Every state at or after this event must be shown: the last write acknowledged durably
    /// (or flushed), or the point a reopen showed.
    floor: u64,
    uncertain: Option<Uncertain>,
    next_id: u64,
}

/// How often each kind of operation was tried and acknowledged, over every workload.
#[derive(Default)]
struct Coverage {
    tried: BTreeMap<&'static str, u64>,
    acked: BTreeMap<&'static str, u64>,
    fs_ops: BTreeMap<String, u64>,
    faults: BTreeMap<String, u64>,
    cuts: u64,
    /// Opens that refused a WAL segment damaged in its unsynced pages and were opened with
    /// point-in-time recovery.
    point_in_time: u64,
}

impl Model {
    fn new() -> Model {
        Model {
            catalog: Catalog {
                namespace: false,
                tables: [(false, false, false); 3],
            },
            rows: vec![vec![History(vec![(0, RowState::new())]); ROWS]; 3],
            last: 0,
            floor: 0,
            uncertain: None,
            next_id: 1,
        }
    }

    fn event(&mut self, t: usize, r: usize, state: RowState) -> u64 {
        self.last += 1;
        self.rows[t][r].0.push((self.last, state));
        self.last
    }

    /// A DDL that changes every state of a table's rows (durable once acknowledged, whatever
    /// prefix of the writes survives).
    fn reset(&mut self, t: usize, f: impl Fn(&mut RowState)) {
        for h in &mut self.rows[t] {
            for (_, s) in &mut h.0 {
                f(s);
            }
        }
    }

    fn durable(&mut self, e: u64) {
        self.floor = self.floor.max(e);
    }

    /// Reads the reopened store, resolves an uncertain DDL, and checks the rows show the state
    /// after one prefix of the events at or after the floor; the model then starts from it.
    /// `Err` only when the power failed under the reads (the model is then unchanged).
    fn verify(&mut self, engine: &Engine, ctx: &str) -> Result<()> {
        let admin = engine.admin();
        let mut seen = self.catalog.clone();
        seen.namespace = admin.list_namespaces()?.iter().any(|n| n == "ns");
        let mut regions = vec![Vec::new(); 3];
        for t in 0..3 {
            let exists = admin.table_exists(TABLES[t])?;
            let (c, fsync) = if exists {
                if !admin.is_enabled(TABLES[t])? {
                    // A disable acknowledged before a truncate or drop that was not.
                    admin.enable(TABLES[t])?;
                }
                let d = admin.describe(TABLES[t])?;
                regions[t] = admin.regions(TABLES[t])?.iter().map(|r| r.id).collect();
                (
                    d.family(b"c").is_some(),
                    d.durability == Durability::FsyncWal,
                )
            } else {
                (false, false)
            };
            seen.tables[t] = (exists, c, fsync);
        }
        let mut observed = vec![vec![RowState::new(); ROWS]; 3];
        for (t, rows) in observed.iter_mut().enumerate() {
            if !seen.tables[t].0 {
                continue;
            }
            let table = engine.table(TABLES[t])?;
            for (r, o) in rows.iter_mut().enumerate() {
                for c in &table.get(&Get::new(row_key(r)))?.cells {
                    let key = format!(
                        "{}:{}",
                        String::from_utf8_lossy(c.family()),
                        String::from_utf8_lossy(c.qualifier())
                    );
                    o.insert(key, c.value().to_vec());
                }
            }
        }
        match self.uncertain.take() {
            Some(Uncertain::Catalog(after)) => {
                assert!(
                    seen == self.catalog || seen == after,
                    "{ctx}: the catalog is {seen:?}, neither {:?} nor {after:?}",
                    self.catalog
                );
                if seen == after {
                    self.apply_catalog(&after);
                }
            }
            Some(Uncertain::Truncate {
                table,
                regions: before,
            }) => {
                assert_eq!(seen, self.catalog, "{ctx}");
                if regions[table] != before {
                    self.reset(table, |s| s.clear());
                }
            }
            None => assert_eq!(seen, self.catalog, "{ctx}: the catalog changed"),
        }
        // The prefixes that explain every row.
        let k = (self.floor..=self.last.max(self.floor))
            .find(|&k| (0..3).all(|t| (0..ROWS).all(|r| *self.rows[t][r].at(k) == observed[t][r])))
            .unwrap_or_else(|| {
                let mut why = String::new();
                for (t, rows) in observed.iter().enumerate() {
                    for (r, o) in rows.iter().enumerate() {
                        let h = &self.rows[t][r];
                        let fits: Vec<u64> = (self.floor..=self.last.max(self.floor))
                            .filter(|&k| h.at(k) == o)
                            .collect();
                        why += &format!(
                            "\n  {} {}: shows {:?}, fits events {:?}; history {:?}",
                            TABLES[t],
                            row_key(r),
                            short(o),
                            fits.first().zip(fits.last()),
                            h.0.iter().map(|(e, s)| (*e, short(s))).collect::<Vec<_>>()
                        );
                    }
                }
                panic!(
                    "{ctx}: no prefix of the writes at or after event {} (of {}) explains \
                     what survived:{why}",
                    self.floor, self.last
                )
            });
        for (histories, rows) in self.rows.iter_mut().zip(observed) {
            for (h, o) in histories.iter_mut().zip(rows) {
                *h = History(vec![(k, o)]);
            }
        }
        self.floor = k;
        Ok(())
    }

    fn apply_catalog(&mut self, after: &Catalog) {
        for t in 0..3 {
            let (was, c_was, _) = self.catalog.tables[t];
            let (now, c_now, _) = after.tables[t];
            if was != now {
                self.reset(t, |s| s.clear());
            } else if c_was && !c_now {
                self.reset(t, |s| s.retain(|k, _| !k.starts_with("c:")));
            }
        }
        self.catalog = after.clone();
    }
}

/// A state, shortened for messages: each value's id.
fn short(s: &RowState) -> BTreeMap<&str, String> {
    s.iter()
        .map(|(k, v)| {
            let v = String::from_utf8_lossy(v);
            let v = v.split(':').next().unwrap_or("").to_string();
            (k.as_str(), v.chars().take(24).collect())
        })
        .collect()
}

fn durability(rng: &mut Rng) -> Durability {
    match rng.below(4) {
        0 => Durability::FsyncWal,
        1 => Durability::AsyncWal,
        2 => Durability::UseDefault,
        _ => Durability::SyncWal,
    }
}

/// The level a mutation of table `t` at `d` is logged at is FSYNC_WAL.
fn fsynced(m: &Model, t: usize, d: Durability) -> bool {
    match d {
        Durability::FsyncWal => true,
        Durability::UseDefault => m.catalog.tables[t].2,
        _ => false,
    }
}

/// The put of mutation `id`: columns `a:x`, `a:y`, `b:z` (and `c:w` when the family exists).
fn put(m: &Model, t: usize, r: usize, id: u64, d: Durability) -> (Put, RowState) {
    let v = value(id);
    let mut p = Put::with_timestamp(row_key(r), id as i64)
        .add_column("a", "x", v.clone())
        .add_column("a", "y", v.clone())
        .add_column("b", "z", v.clone())
        .durability(d);
    let mut s = m.rows[t][r].live().clone();
    for k in ["a:x", "a:y", "b:z"] {
        s.insert(k.into(), v.clone());
    }
    if m.catalog.tables[t].1 {
        p = p.add_column("c", "w", v.clone());
        s.insert("c:w".into(), v);
    }
    (p, s)
}

/// A row delete at timestamp `id`: the puts' cells go; counters and appended cells, written at
/// the wall clock (far above any id), stay.
fn delete(m: &Model, t: usize, r: usize, id: u64, d: Durability) -> (Delete, RowState) {
    let mut s = m.rows[t][r].live().clone();
    s.retain(|k, _| k == "a:n" || k == "a:s");
    (
        Delete::with_timestamp(row_key(r), id as i64).durability(d),
        s,
    )
}

const KINDS: [&str; 17] = [
    "put",
    "delete",
    "increment",
    "append",
    "check-and-mutate",
    "batch",
    "flush",
    "major-compact",
    "split",
    "truncate",
    "drop",
    "create",
    "add-family",
    "delete-family",
    "modify-family",
    "alter-durability",
    "namespace",
];

/// One operation of kind `kind`; `Err` when a call failed (the power, or an injected fault).
fn op(engine: &Engine, m: &mut Model, rng: &mut Rng, kind: &'static str) -> Result<()> {
    let admin = engine.admin();
    let live: Vec<usize> = (0..3).filter(|&t| m.catalog.tables[t].0).collect();
    let pick_live = |rng: &mut Rng| live.get(rng.index(live.len().max(1))).copied();
    let id = m.next_id;
    m.next_id += 1;
    match kind {
        "put" | "delete" | "batch" => {
            let Some(t) = pick_live(rng) else {
                return Ok(());
            };
            let d = durability(rng);
            let rows: Vec<usize> = if kind == "batch" {
                let mut rs: BTreeSet<usize> = BTreeSet::new();
                for _ in 0..2 + rng.below(3) {
                    rs.insert(rng.index(ROWS));
                }
                rs.into_iter().collect()
            } else {
                vec![rng.index(ROWS)]
            };
            let mut muts = Vec::new();
            let mut states = Vec::new();
            for &r in &rows {
                if kind == "delete" || (kind == "batch" && rng.below(4) == 0) {
                    let (x, s) = delete(m, t, r, id, d);
                    muts.push(Mutation::Delete(x));
                    states.push((r, s));
                } else {
                    let (p, s) = put(m, t, r, id, d);
                    muts.push(Mutation::Put(p));
                    states.push((r, s));
                }
            }
            let mut last = 0;
            for (r, s) in states {
                last = m.event(t, r, s);
            }
            if std::env::var_os("FERROBASE_POWER_CUT_TRACE").is_some() {
                eprintln!(
                    "TRACE {:?}   {kind} {} rows {rows:?} at {d:?}: events to {last}",
                    std::thread::current().id(),
                    TABLES[t]
                );
            }
            engine.table(TABLES[t])?.mutate(muts)?;
            if fsynced(m, t, d) {
                m.durable(last);
            }
        }
        "increment" => {
            let Some(t) = pick_live(rng) else {
                return Ok(());
            };
            let r = rng.index(ROWS);
            let mut s = m.rows[t][r].live().clone();
            let old = s
                .get("a:n")
                .map_or(0, |v| i64::from_be_bytes(v[..8].try_into().unwrap()));
            s.insert("a:n".into(), (old + 1).to_be_bytes().to_vec());
            let e = m.event(t, r, s);
            let got = engine
                .table(TABLES[t])?
                .increment(row_key(r).as_bytes(), &[(b"a", b"n", 1)])?;
            assert_eq!(got, vec![old + 1], "increment of {} row {r}", TABLES[t]);
            if fsynced(m, t, Durability::UseDefault) {
                m.durable(e);
            }
        }
        "append" => {
            let Some(t) = pick_live(rng) else {
                return Ok(());
            };
            let r = rng.index(ROWS);
            let mut s = m.rows[t][r].live().clone();
            let mut v = s.get("a:s").cloned().unwrap_or_default();
            v.extend_from_slice(format!("{id},").as_bytes());
            s.insert("a:s".into(), v.clone());
            let e = m.event(t, r, s);
            let got = engine.table(TABLES[t])?.append(
                row_key(r).as_bytes(),
                &[(b"a", b"s", format!("{id},").as_bytes())],
            )?;
            assert_eq!(got.value(b"a", b"s"), Some(&v[..]), "append");
            if fsynced(m, t, Durability::UseDefault) {
                m.durable(e);
            }
        }
        "check-and-mutate" => {
            let Some(t) = pick_live(rng) else {
                return Ok(());
            };
            let r = rng.index(ROWS);
            let current = m.rows[t][r].live().get("a:x").cloned();
            // Right about the current value three times in four.
            let expected = if rng.below(4) == 0 {
                Some(value(id + 1_000_000))
            } else {
                current.clone()
            };
            let holds = expected == current;
            let d = durability(rng);
            let (p, s) = put(m, t, r, id, d);
            let e = holds.then(|| m.event(t, r, s));
            let applied = engine.table(TABLES[t])?.check_and_mutate(
                row_key(r).as_bytes(),
                b"a",
                b"x",
                CompareOp::Equal,
                expected.as_deref(),
                vec![Mutation::Put(p)],
            )?;
            assert_eq!(applied, holds, "check-and-mutate of {} row {r}", TABLES[t]);
            if let Some(e) = e.filter(|_| fsynced(m, t, d)) {
                m.durable(e);
            }
        }
        "flush" | "major-compact" | "split" => {
            let Some(t) = pick_live(rng) else {
                return Ok(());
            };
            match kind {
                "flush" => admin.flush(TABLES[t])?,
                "major-compact" => admin.major_compact(TABLES[t])?,
                _ => admin.split(TABLES[t], None)?,
            }
        }
        "truncate" => {
            let Some(t) = pick_live(rng) else {
                return Ok(());
            };
            let regions = admin
                .regions(TABLES[t])?
                .iter()
                .map(|r| r.id)
                .collect::<Vec<_>>();
            admin.disable(TABLES[t])?;
            m.uncertain = Some(Uncertain::Truncate { table: t, regions });
            admin.truncate(TABLES[t], rng.below(2) == 0)?;
            m.uncertain = None;
            m.reset(t, |s| s.clear());
        }
        _ => {
            // Catalog changes.
            let mut after = m.catalog.clone();
            let t = rng.index(3);
            let name = TABLES[t];
            let (exists, c, fsync) = after.tables[t];
            let ns_ok = t != 2 || after.namespace;
            match kind {
                "drop" if exists => {
                    after.tables[t] = (false, false, false);
                }
                "create" if !exists && ns_ok => after.tables[t] = (true, false, t == 0),
                "add-family" if exists && !c => after.tables[t].1 = true,
                "delete-family" if exists && c => after.tables[t].1 = false,
                "modify-family" if exists => {}
                "alter-durability" if exists => after.tables[t].2 = !fsync,
                "namespace" if !after.namespace => after.namespace = true,
                "namespace" if !after.tables[2].0 => after.namespace = false,
                _ => return Ok(()),
            }
            if kind == "drop" {
                admin.disable(name)?;
            }
            let f = || match kind {
                "drop" => admin.delete_table(name),
                "create" => admin.create_table(schema(t)),
                "add-family" => admin.add_family(name, family("c")),
                "delete-family" => admin.delete_family(name, b"c"),
                "modify-family" => {
                    let mut b = family("b");
                    b.block_size = 1024 + 1024 * (id % 2) as u32;
                    admin.modify_family(name, b)
                }
                "alter-durability" if fsync => {
                    admin.alter_table_attributes(name, &[], &["DURABILITY".into()])
                }
                "alter-durability" => admin.alter_table_attributes(
                    name,
                    &[("DURABILITY".into(), "FSYNC_WAL".into())],
                    &[],
                ),
                _ if after.namespace => admin.create_namespace("ns"),
                _ => admin.drop_namespace("ns"),
            };
            m.uncertain = Some(Uncertain::Catalog(after.clone()));
            f()?;
            m.uncertain = None;
            m.apply_catalog(&after);
        }
    }
    Ok(())
}

fn pick_kind(rng: &mut Rng) -> &'static str {
    let roll = rng.below(100);
    match roll {
        0..=29 => "put",
        30..=37 => "delete",
        38..=45 => "increment",
        46..=53 => "append",
        54..=61 => "check-and-mutate",
        62..=71 => "batch",
        72..=77 => "flush",
        78..=80 => "major-compact",
        81..=83 => "split",
        84..=85 => "truncate",
        86..=87 => "drop",
        88..=91 => "create",
        92 => "add-family",
        93 => "delete-family",
        94 => "modify-family",
        95..=96 => "alter-durability",
        _ => "namespace",
    }
}

/// Opens the store. Where the file system may persist a WAL segment's unsynced pages out of
/// order, an honest power cut can leave a complete record with a zero-filled hole: the open
/// refuses it as damage (`docs/format/wal.md`, "Recovery rules") and the operator's choice,
/// point-in-time recovery, opens it; counted, and then checked like any other open. `None`
/// when the power failed during the open.
fn open(fs: &FaultFileSystem, cov: &mut Coverage, injected: u64, ctx: &str) -> Option<Engine> {
    let res = Engine::open(DIR, options(fs));
    let model = fs.model();
    match res {
        Ok(_) | Err(_) if fs.is_down() => None,
        Ok(e) => Some(e),
        Err(e) if fs.injected() > injected => {
            // An injected fault failed the open: it says where.
            let msg = e.to_string();
            assert!(
                msg.contains("/db"),
                "{ctx}: the open failed naming no file: {msg}"
            );
            None
        }
        Err(Error::Corruption { path, .. })
            if path.starts_with("/db/wal")
                && (model.non_prefix
                    || model.torn_overwrites
                    || matches!(model.tail_fill, Some(TailFill::Stale | TailFill::Either))) =>
        {
            cov.point_in_time += 1;
            let mut o = options(fs);
            o.wal_recovery = WalRecovery::PointInTime;
            match Engine::open(DIR, o) {
                Ok(e) if !fs.is_down() => Some(e),
                Ok(_) => None,
                Err(_) if fs.is_down() => None,
                Err(e) if fs.injected() > injected => {
                    let msg = e.to_string();
                    assert!(
                        msg.contains("/db"),
                        "{ctx}: the open failed naming no file: {msg}"
                    );
                    None
                }
                Err(e) => panic!("{ctx}: point-in-time recovery failed with the power on: {e}"),
            }
        }
        Err(e) => panic!("{ctx}: open failed with the power on: {e}"),
    }
}

const FAULT_KINDS: [OpKind; 11] = [
    OpKind::Create,
    OpKind::Open,
    OpKind::Read,
    OpKind::Append,
    OpKind::Sync,
    OpKind::SyncDir,
    OpKind::Rename,
    OpKind::Remove,
    OpKind::List,
    OpKind::Truncate,
    OpKind::CreateDir,
];

/// One round: open (the power may fail during it), check, run `ops` operations until the power
/// fails or an injected fault fails a call.
fn round(
    fs: &FaultFileSystem,
    m: &mut Model,
    rng: &mut Rng,
    ops: u32,
    (at_open, faults): (Vec<Fault>, Vec<Fault>),
    cov: &mut Coverage,
    ctx: &str,
) {
    let injected = fs.injected();
    for f in at_open {
        fs.inject(f);
    }
    let Some(engine) = open(fs, cov, injected, ctx) else {
        return;
    };
    if let Err(e) = m.verify(&engine, ctx) {
        assert!(
            fs.is_down() || fs.injected() > injected,
            "{ctx}: reading after the open: {e}"
        );
        return;
    }
    if !m.catalog.tables[0].0 {
        // Start with t0 and t1.
        for t in 0..2 {
            if !m.catalog.tables[t].0 {
                let mut after = m.catalog.clone();
                after.tables[t] = (true, false, t == 0);
                m.uncertain = Some(Uncertain::Catalog(after.clone()));
                if engine.admin().create_table(schema(t)).is_err() {
                    assert!(
                        fs.is_down() || fs.injected() > injected,
                        "{ctx}: create_table"
                    );
                    return;
                }
                m.uncertain = None;
                m.apply_catalog(&after);
            }
        }
    }
    let truncate_armed = faults.iter().any(|f| f.kind == OpKind::Truncate);
    if std::env::var_os("FERROBASE_POWER_CUT_TRACE").is_some() {
        eprintln!("TRACE {ctx}: faults {faults:?}");
    }
    for f in faults {
        fs.inject(f);
    }
    for _ in 0..ops {
        let kind = pick_kind(rng);
        *cov.tried.entry(kind).or_default() += 1;
        let res = op(&engine, m, rng, kind);
        if std::env::var_os("FERROBASE_POWER_CUT_TRACE").is_some() {
            eprintln!(
                "TRACE {:?} {ctx}: {kind} -> {res:?}; events to {}, floor {}",
                std::thread::current().id(),
                m.last,
                m.floor
            );
        }
        match res {
            Ok(()) => *cov.acked.entry(kind).or_default() += 1,
            Err(e) => {
                assert!(
                    fs.is_down() || fs.injected() > injected,
                    "{ctx}: {kind} failed with the power on and no fault injected: {e}"
                );
                if !fs.is_down() {
                    // A failed WAL write is cut off by the background retry (a truncation):
                    // give it the time to run into a fault armed for it.
                    let truncations = || fs.op_counts().get(&OpKind::Truncate).copied();
                    let before = truncations();
                    if matches!(e, Error::WritesSuspended { .. }) && truncate_armed {
                        for _ in 0..50 {
                            if truncations() != before {
                                break;
                            }
                            std::thread::sleep(std::time::Duration::from_millis(10));
                        }
                    }
                }
                break;
            }
        }
    }
}

fn env_u64(name: &str, default: u64) -> u64 {
    std::env::var(name)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// The file-system model of a workload: the prefix model, or everything real file systems do
/// on an honest disk.
fn fault_model(rng: &mut Rng) -> FaultModel {
    if rng.below(3) == 0 {
        return FaultModel::default();
    }
    FaultModel {
        page_size: [512, 1024, 4096][rng.index(3)],
        non_prefix: rng.below(2) == 0,
        tail_fill: [None, Some(TailFill::Zeros), Some(TailFill::Either)][rng.index(3)],
        torn_overwrites: rng.below(2) == 0,
        lying_disk: None,
        non_atomic_dirs: rng.below(2) == 0,
        metadata_bytes: 0,
    }
}

fn run_cuts(seed: u64, cuts: u64, cov: &Mutex<Coverage>) -> u64 {
    let mut done = 0;
    // To replay a failure: the workload number it names, minus one.
    let mut workload = env_u64("FERROBASE_POWER_CUT_SKIP", 0);
    while done < cuts {
        workload += 1;
        let mut c = Coverage::default();
        let mut rng = Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(workload));
        let fs = FaultFileSystem::new();
        fs.set_model(fault_model(&mut rng), rng.next_u64());
        let mut m = Model::new();
        let ops = 30 + rng.below(30) as u32;
        let mut span = 0;
        for r in 0..5 {
            let ctx = format!(
                "seed {seed} workload {workload} round {r} ({:?})",
                fs.model()
            );
            let before = fs.mutations();
            if r > 0 {
                fs.cut_power_after(1 + rng.below(span + span / 8 + 1));
            }
            // A fault on any kind of operation in one round of four: soon for the kinds a
            // round performs few of; a truncation (a failed WAL write's bytes cut off, once,
            // by the retry after it) on the first one after a WAL write failing with a full
            // disk. (With later truncations allowed, one run in six of 1,000 cuts saw no
            // truncation fault fire, and removals fired 3 to 9 times a run.)
            let mut companion = None;
            let fault = (r > 0 && rng.below(4) == 0).then(|| {
                let kind = FAULT_KINDS[rng.index(FAULT_KINDS.len())];
                let rare = matches!(
                    kind,
                    OpKind::List | OpKind::Rename | OpKind::CreateDir | OpKind::Remove
                );
                if kind == OpKind::Truncate {
                    companion = Some(Fault {
                        kind: OpKind::Append,
                        path_contains: ".wal".into(),
                        nth: 1 + rng.below(10),
                        errno: libc::ENOSPC,
                    });
                }
                let nth = match kind {
                    OpKind::Truncate => 1,
                    _ if rare => 1 + rng.below(4),
                    _ => 1 + rng.below(40),
                };
                Fault {
                    kind,
                    path_contains: String::new(),
                    nth,
                    errno: [libc::EIO, libc::ENOSPC][rng.index(2)],
                }
            });
            let before_faults = fs.op_counts();
            let injected = fs.injected();
            // Half the faults meet the open (listing, opening and reading what is on disk).
            let mut faults: (Vec<Fault>, Vec<Fault>) = (Vec::new(), Vec::new());
            if let Some(f) = fault.clone() {
                if companion.is_none() && rng.below(2) == 0 {
                    faults.0.push(f);
                } else {
                    faults.1.push(f);
                }
            }
            faults.1.extend(companion);
            round(&fs, &mut m, &mut rng, ops, faults, &mut c, &ctx);
            if let Some(f) = fault.as_ref().filter(|_| fs.injected() > injected) {
                // Which fired: the one armed for the round, unless only its companion did.
                let fired = fs.op_counts().get(&f.kind).copied().unwrap_or(0)
                    >= before_faults.get(&f.kind).copied().unwrap_or(0) + f.nth;
                let kind = if fired { f.kind } else { OpKind::Append };
                *c.faults.entry(format!("{kind:?}")).or_default() += 1;
            }
            if r == 0 {
                span = fs.mutations() - before;
            }
            let mode = if rng.below(3) == 0 {
                CutMode::DropUnsynced
            } else {
                CutMode::KeepRandom {
                    seed: rng.next_u64(),
                }
            };
            fs.power_cut(mode);
            if r > 0 {
                done += 1;
                c.cuts += 1;
            }
        }
        let ctx = format!("seed {seed} workload {workload} final open");
        let engine = open(&fs, &mut c, fs.injected(), &ctx).expect("the power is on");
        m.verify(&engine, &ctx).unwrap();
        for (k, n) in fs.op_counts() {
            *c.fs_ops.entry(format!("{k:?}")).or_default() += n;
        }
        let mut all = cov.lock().unwrap();
        for (k, n) in c.tried {
            *all.tried.entry(k).or_default() += n;
        }
        for (k, n) in c.acked {
            *all.acked.entry(k).or_default() += n;
        }
        for (k, n) in c.fs_ops {
            *all.fs_ops.entry(k).or_default() += n;
        }
        for (k, n) in c.faults {
            *all.faults.entry(k).or_default() += n;
        }
        all.cuts += c.cuts;
        all.point_in_time += c.point_in_time;
    }
    done
}

#[test]
fn power_cuts_under_every_mutation_and_ddl_keep_a_prefix_of_the_issued_writes() {
    let cuts = env_u64("FERROBASE_POWER_CUTS", 1000);
    let seed = env_u64("FERROBASE_POWER_CUT_SEED", 1);
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get().min(2)) as u64;
    let per = cuts.div_ceil(threads);
    let cov = Arc::new(Mutex::new(Coverage::default()));
    let started = std::time::Instant::now();
    let handles: Vec<_> = (0..threads)
        .map(|i| {
            let cov = cov.clone();
            std::thread::spawn(move || run_cuts(seed * 16 + i, per, &cov))
        })
        .collect();
    let total: u64 = handles.into_iter().map(|h| h.join().unwrap()).sum();
    assert!(total >= cuts, "{total} cut points");
    let cov = cov.lock().unwrap();
    eprintln!(
        "power_cut_workload: {total} cut points in {:.1} s; operations tried/acknowledged:",
        started.elapsed().as_secs_f64()
    );
    for k in KINDS {
        eprintln!(
            "  {k:<17} {:>6} / {:>6}",
            cov.tried.get(k).copied().unwrap_or(0),
            cov.acked.get(k).copied().unwrap_or(0)
        );
    }
    eprintln!("  file-system operations: {:?}", cov.fs_ops);
    eprintln!(
        "  injected faults fired, by operation kind: {:?}",
        cov.faults
    );
    eprintln!(
        "  opens refusing a WAL segment damaged in unsynced pages (then opened with \
         point-in-time recovery): {}",
        cov.point_in_time
    );
    if cuts >= 1000 {
        for k in KINDS {
            assert!(
                cov.acked.get(k).copied().unwrap_or(0) > 0,
                "{k} never acknowledged"
            );
        }
        for k in FAULT_KINDS {
            assert!(
                cov.faults.contains_key(&format!("{k:?}")),
                "no fault fired on {k:?}"
            );
        }
    }
}
