//! The size-tiered selection (`CompactionOptions::tiers`, `docs/design/compaction.md`): minor
//! compactions merge only files of about one size, a larger file stays out of a merge of
//! smaller ones, and every read stays what a model of the writes says through overwrites,
//! deletes, minor and major compactions, background compactions under load and a reopen.
//! Without the option the selection is HBase's.

mod support;

use ferrobase_engine::*;
use std::collections::BTreeMap;
use support::table::{FAMILY, TABLE};

const KEYS: u64 = 3000;
const ROWS_PER_FLUSH: usize = 300;

fn options(tiers: Option<SizeTiers>) -> EngineOptions {
    EngineOptions {
        auto_split: false,
        compaction: CompactionOptions {
            // The tests ask for every compaction themselves (none runs behind their checks).
            auto: false,
            major_interval: None,
            // File sizes decide for these small files (HBase's minimum size would let any
            // three merge, and with tiers would count each file as a 25 MiB one).
            min_size: 0,
            tiers,
            ..CompactionOptions::default()
        },
        ..EngineOptions::default()
    }
}

fn family() -> ColumnFamilyDescriptor {
    let mut cf = ColumnFamilyDescriptor::new(FAMILY);
    // Small blocks: every file has many, so reads seek inside files.
    cf.block_size = 1024;
    cf
}

fn row(k: u64) -> Vec<u8> {
    format!("user{:08}", k.wrapping_mul(2_654_435_761) % 100_000_000).into_bytes()
}

/// What was written: (row, qualifier) → value.
type Model = BTreeMap<(Vec<u8>, Vec<u8>), Vec<u8>>;

/// One cell read: ((row, qualifier), value).
type Entry = ((Vec<u8>, Vec<u8>), Vec<u8>);

/// Writes at random keys (a xorshift stream) with timestamps of their own, rising, so a put
/// after a delete of its row is never under the marker; and the model of what was written.
struct Load {
    rng: u64,
    ts: i64,
    round: usize,
    model: Model,
}

impl Load {
    fn new(seed: u64) -> Load {
        Load {
            rng: seed,
            ts: 1_000_000,
            round: 0,
            model: Model::new(),
        }
    }

    fn next(&mut self) -> u64 {
        self.rng ^= self.rng << 13;
        self.rng ^= self.rng >> 7;
        self.rng ^= self.rng << 17;
        self.rng
    }

    /// Writes `n` cells at random keys of `KEYS` (overwrites among them), two qualifiers,
    /// values of one length; about every `delete_every`th write instead deletes its row (0:
    /// none).
    fn write(&mut self, t: &Table, n: usize, delete_every: u64) {
        self.round += 1;
        for i in 0..n {
            self.ts += 1;
            let k = self.next() % KEYS;
            let r = row(k);
            if delete_every > 0 && self.next().is_multiple_of(delete_every) {
                t.delete(Delete::with_timestamp(r.clone(), self.ts))
                    .unwrap();
                self.model.retain(|(mr, _), _| *mr != r);
                continue;
            }
            let q = if k.is_multiple_of(3) {
                &b"a"[..]
            } else {
                &b"b"[..]
            };
            let v = format!("{:04}-{i:06}-{}", self.round, "v".repeat(100)).into_bytes();
            t.put(Put::new(r.clone()).add_column_ts(FAMILY, q, self.ts, v.clone()))
                .unwrap();
            self.model.insert((r, q.to_vec()), v);
        }
    }
}

/// Gets of every key (present or not) and a full scan, against `model`.
fn check(t: &Table, model: &Model, what: &str) {
    for k in 0..KEYS {
        let r = row(k);
        let got = t.get(&Get::new(r.clone())).unwrap();
        for q in [&b"a"[..], &b"b"[..]] {
            assert_eq!(
                got.value(FAMILY.as_bytes(), q),
                model.get(&(r.clone(), q.to_vec())).map(|v| &v[..]),
                "{what}: get {}",
                String::from_utf8_lossy(&r)
            );
        }
    }
    let scanned: Vec<Entry> = t
        .scanner(&Scan::new())
        .unwrap()
        .flat_map(|r| {
            let r = r.unwrap();
            r.cells
                .iter()
                .map(|c| {
                    (
                        (c.row().to_vec(), c.qualifier().to_vec()),
                        c.value().to_vec(),
                    )
                })
                .collect::<Vec<_>>()
        })
        .collect();
    let want: Vec<_> = model.iter().map(|(k, v)| (k.clone(), v.clone())).collect();
    assert_eq!(scanned, want, "{what}: full scan");
}

fn file_count(engine: &Engine) -> usize {
    engine
        .admin()
        .regions(TABLE)
        .unwrap()
        .iter()
        .map(|r| r.file_count)
        .sum()
}

#[test]
fn tiers_merge_files_of_one_size_and_every_read_matches_a_model() {
    let dir = tempfile::tempdir().unwrap();
    let tiers = SizeTiers::default();
    let (engine, t) = support::table::open_with_family(dir.path(), options(Some(tiers)), family());
    let m = engine.metrics();
    let mut load = Load::new(0x9e37_79b9_7f4a_7c15);
    let flush = |load: &mut Load, delete_every: u64| {
        load.write(&t, ROWS_PER_FLUSH, delete_every);
        engine.admin().flush(TABLE).unwrap();
        engine.admin().compact(TABLE).unwrap();
    };
    // Four flushes of one size are fewer than a tier: nothing merges.
    for n in 1..tiers.min_files {
        flush(&mut load, 0);
        assert_eq!(file_count(&engine), n);
    }
    assert_eq!(Metrics::get(&m.compactions), 0);
    check(&t, &load.model, "four flushes");
    // The fifth makes a tier: the five merge into one.
    flush(&mut load, 0);
    assert_eq!(file_count(&engine), 1);
    assert_eq!(Metrics::get(&m.compactions), 1);
    check(&t, &load.model, "first tier merged");
    // Five more, with deletes among the writes: the first merge's output, about five times
    // their size, stays out of theirs (HBase's ratio would take it in).
    for n in 1..tiers.min_files {
        flush(&mut load, 9);
        assert_eq!(file_count(&engine), 1 + n);
        check(&t, &load.model, "second tier filling");
    }
    flush(&mut load, 9);
    assert_eq!(file_count(&engine), 2);
    assert_eq!(Metrics::get(&m.compactions), 2);
    check(&t, &load.model, "second merge");
    // A major compaction merges every file, drops the markers, and a reopen reads the same.
    engine.admin().major_compact(TABLE).unwrap();
    assert_eq!(file_count(&engine), 1);
    check(&t, &load.model, "major");
    drop(t);
    drop(engine);
    let (engine, t) = support::table::open_with_family(dir.path(), options(Some(tiers)), family());
    assert_eq!(file_count(&engine), 1);
    check(&t, &load.model, "reopened");
}

#[test]
fn without_tiers_the_selection_is_hbases() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = support::table::open_with_family(dir.path(), options(None), family());
    let mut load = Load::new(7);
    // HBase's minimum of three files merges at the third flush, and its ratio lets the
    // merged file (three times a flush) join the next three (3 <= 1.2 * 3), not two.
    for round in 1..=6 {
        load.write(&t, ROWS_PER_FLUSH, 0);
        engine.admin().flush(TABLE).unwrap();
        engine.admin().compact(TABLE).unwrap();
        let want = match round {
            1 | 2 => round,
            3 | 6 => 1,
            _ => round - 2,
        };
        assert_eq!(file_count(&engine), want, "round {round}");
    }
    check(&t, &load.model, "HBase's selection");
}

/// Background flushes and compactions under a load of random keys, with tiers: nothing lost,
/// and the store's files merged (fewer files than flushes).
#[test]
fn background_compactions_with_tiers_lose_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let mut opts = options(Some(SizeTiers::default()));
    opts.compaction.auto = true;
    opts.memstore_flush_size = 128 << 10;
    // Flushes below 512 KiB count as 512 KiB (a flush lagging behind the writers is larger
    // than the next), as the default minimum size counts a small flush as a 25.6 MiB file.
    opts.compaction.min_size = 5 * (512 << 10);
    let (engine, t) = support::table::open_with_family(dir.path(), opts.clone(), family());
    let mut load = Load::new(99);
    for _ in 0..40 {
        load.write(&t, 500, 31);
    }
    let m = engine.metrics();
    // Let the background jobs the last flushes asked for end.
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    while (!engine.background_jobs().running.is_empty() || Metrics::get(&m.compactions) == 0)
        && std::time::Instant::now() < deadline
    {
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    let flushes = Metrics::get(&m.flushes) as usize;
    assert!(flushes >= 5, "{flushes} flushes");
    assert!(Metrics::get(&m.compactions) > 0, "{flushes} flushes");
    assert!(file_count(&engine) < flushes);
    check(&t, &load.model, "under load");
    engine.admin().flush(TABLE).unwrap();
    engine.admin().major_compact(TABLE).unwrap();
    check(&t, &load.model, "major");
    drop(t);
    drop(engine);
    let (_engine, t) = support::table::open_with_family(dir.path(), opts, family());
    check(&t, &load.model, "reopened");
}
