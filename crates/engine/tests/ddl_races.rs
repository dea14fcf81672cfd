//! Table administration racing background work and client calls: dropping a table while a
//! compaction reads its files (issue 33's reproduction), scanners open on a dropped table, and a
//! seeded race of DDL threads (create, drop, truncate, disable, enable, alter, split, flush,
//! major compaction) against threads that put, delete, get and scan, checked against a model
//! and again after close and reopen. `FERROBASE_SOAK_OPS=<ops per thread>` runs it longer.

mod support;

use ferrobase_engine::*;
use ferrobase_testkit::Rng;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use support::files::files_with_suffix;
use support::gate::Gate;
use support::table::descriptor;

/// Options with small memstores, so background flushes and compactions run all the time.
fn racing_options() -> EngineOptions {
    let mut opts = EngineOptions {
        memstore_flush_size: 16 << 10,
        auto_split: false,
        ..EngineOptions::default()
    };
    opts.compaction.min_files = 3;
    opts
}

#[test]
fn dropping_a_table_while_a_compaction_reads_its_files_leaves_the_engine_serving() {
    let dir = tempfile::tempdir().unwrap();
    // Pause points: the compaction stops before its first cell until the disable has paused
    // the region and waits for it, so the compaction is always caught reading the files.
    let gate = Arc::new(Gate::default());
    let hook = {
        let gate = gate.clone();
        hook::Hook::new(move |p| match p {
            hook::HookPoint::CompactionMerging { .. } => {
                gate.raise("compaction merging");
                gate.wait("go on");
            }
            hook::HookPoint::PauseWaiting { .. } => gate.raise("disable waiting"),
            _ => {}
        })
    };
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    opts.auto_split = false;
    opts.hook = Some(hook);
    let engine = Engine::open(dir.path(), opts).unwrap();
    let admin = engine.admin();
    admin.create_table(descriptor("tl")).unwrap();
    admin.create_table(descriptor("other")).unwrap();
    engine
        .table("other")
        .unwrap()
        .put(Put::new("r").add_column("cf", "q", "kept"))
        .unwrap();
    let t = engine.table("tl").unwrap();
    let value = vec![b'v'; 1024];
    for f in 0..6 {
        let puts = (0..256)
            .map(|i| Put::new(format!("r{:06}", i * 6 + f)).add_column("cf", "q", value.clone()))
            .collect();
        t.put_all(puts).unwrap();
        admin.flush("tl").unwrap();
    }
    let blk = || files_with_suffix(dir.path(), ".blk").len();
    assert_eq!(blk(), 6);
    let compaction = {
        let engine = engine.clone();
        std::thread::spawn(move || engine.admin().compact("tl"))
    };
    gate.wait("compaction merging");
    let disable = {
        let engine = engine.clone();
        std::thread::spawn(move || engine.admin().disable("tl"))
    };
    gate.wait("disable waiting");
    gate.raise("go on");
    disable.join().unwrap().unwrap();
    admin.delete_table("tl").unwrap();
    match compaction.join().unwrap() {
        Ok(()) | Err(Error::TableNotFound(_)) => {}
        Err(e) => panic!("the compaction of a dropped table reported {e}"),
    }
    assert_eq!(Metrics::get(&engine.metrics().compactions_cancelled), 1);
    // The engine was not poisoned: every call on every table works.
    assert_eq!(
        admin.list_tables().unwrap(),
        vec![TableName::parse("other").unwrap()]
    );
    let other = engine.table("other").unwrap();
    other
        .put(Put::new("r2").add_column("cf", "q", "new"))
        .unwrap();
    assert_eq!(
        other.get(&Get::new("r")).unwrap().value(b"cf", b"q"),
        Some(&b"kept"[..])
    );
    admin.create_table(descriptor("tl")).unwrap();
    engine
        .table("tl")
        .unwrap()
        .put(Put::new("a").add_column("cf", "q", "again"))
        .unwrap();
    admin.flush("tl").unwrap();
    // The stopped compaction left no partial file: only the new table's flush is on disk.
    assert_eq!(blk(), 1);
}

#[test]
fn a_scanner_open_on_a_dropped_table_ends_with_table_not_found() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let admin = engine.admin();
    admin
        .create_table_with_splits(descriptor("t"), &[b"m".to_vec()])
        .unwrap();
    let t = engine.table("t").unwrap();
    let puts = (b'a'..=b'z')
        .map(|c| Put::new(vec![c]).add_column("cf", "q", "v"))
        .collect();
    t.put_all(puts).unwrap();
    admin.flush("t").unwrap();
    let mut scanner = t.scanner(&Scan::new()).unwrap();
    assert_eq!(scanner.next_batch(3).unwrap().len(), 3);
    admin.disable("t").unwrap();
    admin.delete_table("t").unwrap();
    assert!(files_with_suffix(dir.path(), ".blk").is_empty());
    match scanner.next_batch(100) {
        Err(Error::TableNotFound(name)) => assert_eq!(name, "t"),
        other => panic!("a scanner of a dropped table answered {other:?}"),
    }
    admin.create_table(descriptor("t")).unwrap();
    assert!(t.scan_all(&Scan::new()).unwrap().is_empty());
}

/// Tables whose contents are modelled exactly while the race runs: DDL on them never removes
/// data (flush, compaction, split, alter of another family, disable/enable).
const STABLE: &str = "stable";
/// Tables dropped, truncated and recreated while the race runs, two per DDL thread.
const CHURN: [[&str; 2]; 2] = [["c0", "c1"], ["c2", "c3"]];
const WRITERS: usize = 3;
const ROWS_PER_WRITER: u64 = 40;

/// Operations each racing thread performs: `FERROBASE_SOAK_OPS`, or a size that runs in a
/// few seconds in a debug build.
fn ops_per_thread() -> usize {
    std::env::var("FERROBASE_SOAK_OPS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(400)
}

/// The race's seed: `FERROBASE_DDL_SEED`, or a fixed one.
fn race_seed() -> u64 {
    std::env::var("FERROBASE_DDL_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(33)
}

/// Panics unless `e` is an error a call racing DDL may get: one that names the cause.
fn expect_race_error(what: &str, e: Error) {
    match &e {
        Error::TableNotFound(_) | Error::TableDisabled(_) => {}
        Error::RegionOffline { reason, .. } if reason.contains("truncated") => {}
        _ => panic!("{what} failed with an error no race explains: {e}"),
    }
}

/// What a writer thread knows of the stable table: its own rows' values.
type RowModel = BTreeMap<Vec<u8>, Vec<u8>>;

fn row_key(writer: usize, k: u64) -> Vec<u8> {
    format!("w{writer}-{k:03}").into_bytes()
}

fn rows_of(results: &[RowResult]) -> RowModel {
    results
        .iter()
        .map(|r| {
            let c = &r.cells[0];
            (c.row().to_vec(), c.value().to_vec())
        })
        .collect()
}

/// A churned table's cell is consistent when its value names its own row.
fn check_churned_value(r: &RowResult) {
    for c in &r.cells {
        assert!(
            c.value().starts_with(c.row()),
            "row {:?} holds a value written for another row: {:?}",
            String::from_utf8_lossy(c.row()),
            String::from_utf8_lossy(c.value())
        );
    }
}

/// One client thread: puts, deletes, gets and scans on its own rows of every table.
fn writer(engine: Engine, id: usize, seed: u64, ops: usize) -> RowModel {
    let mut rng = Rng::new(seed);
    let mut model = RowModel::new();
    let churn: Vec<&str> = CHURN.iter().flatten().copied().collect();
    for op in 0..ops {
        let ts = op as i64 + 1;
        let stable = rng.below(2) == 0;
        let name = if stable {
            STABLE
        } else {
            churn[rng.below(churn.len() as u64) as usize]
        };
        let t = engine.table(name).unwrap();
        let row = row_key(id, rng.below(ROWS_PER_WRITER));
        // A kilobyte per value: memstores fill, flushes and compactions run under the race.
        let mut value = format!("{}={op}=", String::from_utf8_lossy(&row)).into_bytes();
        value.resize(1024, b'v');
        match rng.below(20) {
            0..=7 => match t.put(Put::new(row.clone()).add_column_ts("cf", "q", ts, value.clone()))
            {
                Ok(()) if stable => {
                    model.insert(row, value);
                }
                Ok(()) => {}
                Err(e) => expect_race_error("put", e),
            },
            8..=10 => match t.delete(Delete::with_timestamp(row.clone(), ts)) {
                Ok(()) if stable => {
                    model.remove(&row);
                }
                Ok(()) => {}
                Err(e) => expect_race_error("delete", e),
            },
            11..=15 => match t.get(&Get::new(row.clone())) {
                Ok(r) if stable => assert_eq!(
                    r.value(b"cf", b"q"),
                    model.get(&row).map(|v| &v[..]),
                    "get of {} in {name}",
                    String::from_utf8_lossy(&row)
                ),
                Ok(r) => check_churned_value(&r),
                Err(e) => expect_race_error("get", e),
            },
            _ => {
                let scan = Scan::new().with_row_prefix(format!("w{id}-"));
                match t.scan_all(&scan) {
                    Ok(rs) if stable => assert_eq!(rows_of(&rs), model, "scan of {name}"),
                    Ok(rs) => rs.iter().for_each(check_churned_value),
                    Err(e) => expect_race_error("scan", e),
                }
            }
        }
    }
    model
}

/// What a DDL thread knows of its churned tables: which exist, enabled or not, and whether
/// they have the extra family `x`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct TableModel {
    enabled: bool,
    extra_family: bool,
}

/// Panics unless a DDL call the thread's own model says is valid succeeded.
fn ok(what: &str, table: &str, r: Result<()>) {
    if let Err(e) = r {
        panic!("{what} of {table} failed: {e}");
    }
}

/// Alters `table`: adds family `x` when it has none, else removes it.
fn toggle_extra_family(admin: &Admin, table: &str, has: &mut bool) -> Result<()> {
    let r = if *has {
        admin.delete_family(table, b"x")
    } else {
        admin.add_family(table, ColumnFamilyDescriptor::new("x"))
    };
    if r.is_ok() {
        *has = !*has;
    }
    r
}

/// One DDL thread owning `tables`: creates, drops, truncates, disables, enables, alters,
/// splits, flushes and major-compacts them.
fn churner(
    engine: Engine,
    tables: [&str; 2],
    seed: u64,
    ops: usize,
) -> BTreeMap<String, TableModel> {
    let admin = engine.admin();
    let mut rng = Rng::new(seed);
    let mut model: BTreeMap<String, TableModel> = BTreeMap::new();
    for _ in 0..ops / 3 {
        let name = tables[rng.below(2) as usize];
        let Some(m) = model.get(name).copied() else {
            let splits: Vec<Vec<u8>> = match rng.below(3) {
                0 => Vec::new(),
                _ => vec![b"w1".to_vec(), b"w2".to_vec()],
            };
            ok(
                "create",
                name,
                admin.create_table_with_splits(descriptor(name), &splits),
            );
            model.insert(
                name.to_string(),
                TableModel {
                    enabled: true,
                    extra_family: false,
                },
            );
            continue;
        };
        let mut m = m;
        match rng.below(10) {
            0 => {
                if m.enabled {
                    ok("disable", name, admin.disable(name));
                }
                ok("drop", name, admin.delete_table(name));
                model.remove(name);
                continue;
            }
            1 => {
                if m.enabled {
                    ok("disable", name, admin.disable(name));
                }
                ok("truncate", name, admin.truncate(name, rng.below(2) == 0));
                m.enabled = true;
            }
            2 => ok("flush", name, admin.flush(name)),
            3 | 4 => ok("major compaction", name, admin.major_compact(name)),
            5 if m.enabled => ok("split", name, admin.split(name, None)),
            6 => ok(
                "alter",
                name,
                toggle_extra_family(&admin, name, &mut m.extra_family),
            ),
            7 if m.enabled => {
                ok("disable", name, admin.disable(name));
                m.enabled = false;
            }
            _ if !m.enabled => {
                ok("enable", name, admin.enable(name));
                m.enabled = true;
            }
            _ => std::thread::yield_now(),
        }
        model.insert(name.to_string(), m);
    }
    model
}

/// The DDL thread of the stable table: flushes, major compactions, splits, alters of a family
/// no writer uses, short disables; and flushes, compactions and splits of the churned tables
/// owned by other threads (which may be gone or disabled meanwhile).
fn maintainer(engine: Engine, seed: u64, ops: usize) -> bool {
    let admin = engine.admin();
    let mut rng = Rng::new(seed);
    let mut extra = false;
    let churn: Vec<&str> = CHURN.iter().flatten().copied().collect();
    for _ in 0..ops / 3 {
        let other = churn[rng.below(churn.len() as u64) as usize];
        let r = match rng.below(10) {
            0 => admin.flush(STABLE),
            1 | 2 => admin.major_compact(STABLE),
            3 => admin.split(STABLE, None),
            4 => toggle_extra_family(&admin, STABLE, &mut extra),
            5 => admin.disable(STABLE).and_then(|()| admin.enable(STABLE)),
            6 => admin.major_compact(other),
            7 => admin.split(other, None),
            _ => admin.flush(other),
        };
        if let Err(e) = r {
            expect_race_error("maintenance", e);
        }
    }
    extra
}

/// The block files under `dir`'s data directory, by region directory.
fn region_dirs(dir: &std::path::Path) -> BTreeMap<u64, usize> {
    let mut out = BTreeMap::new();
    for f in files_with_suffix(&dir.join("data"), ".blk") {
        let region = f.parent().and_then(|p| p.file_name()).unwrap();
        *out.entry(region.to_string_lossy().parse().unwrap())
            .or_default() += 1;
    }
    if let Ok(rd) = std::fs::read_dir(dir.join("data")) {
        for e in rd.flatten() {
            out.entry(e.file_name().to_string_lossy().parse().unwrap())
                .or_default();
        }
    }
    out
}

/// Checks the engine against the model: which tables exist, enabled or not, with which
/// families, and what the stable table and the reloaded churned tables hold.
fn check_model(
    engine: &Engine,
    tables: &BTreeMap<String, TableModel>,
    stable_rows: &RowModel,
    churn_rows: &RowModel,
) {
    let admin = engine.admin();
    let listed: BTreeSet<String> = admin
        .list_tables()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    let want: BTreeSet<String> = tables.keys().cloned().collect();
    assert_eq!(listed, want, "the tables that exist");
    for (name, m) in tables {
        assert_eq!(admin.is_enabled(name).unwrap(), m.enabled, "{name} enabled");
        let families: Vec<String> = admin
            .describe(name)
            .unwrap()
            .families
            .iter()
            .map(|f| f.name_str())
            .collect();
        let mut want = vec!["cf".to_string()];
        if m.extra_family {
            want.push("x".into());
        }
        assert_eq!(families, want, "{name} families");
        if !m.enabled {
            continue;
        }
        let rows = rows_of(&engine.table(name).unwrap().scan_all(&Scan::new()).unwrap());
        let want = if name == STABLE {
            stable_rows
        } else {
            churn_rows
        };
        assert_eq!(&rows, want, "contents of {name}");
    }
}

#[test]
fn ddl_racing_background_work_and_clients_keeps_every_table_consistent() {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), racing_options()).unwrap();
    let admin = engine.admin();
    admin
        .create_table_with_splits(descriptor(STABLE), &[b"w1".to_vec()])
        .unwrap();
    let (seed, ops) = (race_seed(), ops_per_thread());
    let writers: Vec<_> = (0..WRITERS)
        .map(|i| {
            let engine = engine.clone();
            std::thread::spawn(move || writer(engine, i, seed * 100 + i as u64, ops))
        })
        .collect();
    let churners: Vec<_> = CHURN
        .iter()
        .enumerate()
        .map(|(i, &tables)| {
            let engine = engine.clone();
            std::thread::spawn(move || churner(engine, tables, seed * 100 + 10 + i as u64, ops))
        })
        .collect();
    let maintainer = {
        let engine = engine.clone();
        std::thread::spawn(move || maintainer(engine, seed * 100 + 20, ops))
    };
    let mut stable_rows = RowModel::new();
    for w in writers {
        stable_rows.extend(w.join().unwrap());
    }
    let mut tables = BTreeMap::new();
    for c in churners {
        tables.extend(c.join().unwrap());
    }
    let extra = maintainer.join().unwrap();
    tables.insert(
        STABLE.to_string(),
        TableModel {
            enabled: true,
            extra_family: extra,
        },
    );

    let m = engine.metrics();
    eprintln!(
        "race: {ops} ops per thread; flushes {}, compactions {}, cancelled {}, splits {}",
        Metrics::get(&m.flushes),
        Metrics::get(&m.compactions),
        Metrics::get(&m.compactions_cancelled),
        Metrics::get(&m.splits)
    );

    // Quiesced. The churned tables' contents raced their truncations: each is emptied and
    // loaded with known rows (with a flush between, so files and memstores both hold some).
    let churn_rows: RowModel = (0..30u64)
        .map(|k| {
            let row = row_key(9, k);
            let value = [&row[..], b"=final"].concat();
            (row, value)
        })
        .collect();
    for (name, m) in &tables {
        if name == STABLE || !m.enabled {
            continue;
        }
        admin.disable(name).unwrap();
        admin.truncate(name, true).unwrap();
        let t = engine.table(name).unwrap();
        for (i, (row, value)) in churn_rows.iter().enumerate() {
            t.put(Put::new(row.clone()).add_column("cf", "q", value.clone()))
                .unwrap();
            if i == churn_rows.len() / 2 {
                admin.flush(name).unwrap();
            }
        }
    }
    check_model(&engine, &tables, &stable_rows, &churn_rows);

    // Nothing is left behind: every block file on disk belongs to a live store, and no
    // directory of a dropped or split region remains.
    let mut live = BTreeMap::new();
    for name in tables.keys() {
        admin.major_compact(name).unwrap();
        for r in admin.regions(name).unwrap() {
            live.insert(r.id, r.file_count);
        }
    }
    engine.close();
    let on_disk = region_dirs(dir.path());
    for (region, files) in &on_disk {
        assert_eq!(
            live.get(region),
            Some(files),
            "region directory {region} holds {files} block files"
        );
    }
    drop(admin);
    drop(engine);

    let engine = Engine::open(dir.path(), racing_options()).unwrap();
    check_model(&engine, &tables, &stable_rows, &churn_rows);
    engine
        .table(STABLE)
        .unwrap()
        .put(Put::new("after").add_column("cf", "q", "reopen"))
        .unwrap();
}
