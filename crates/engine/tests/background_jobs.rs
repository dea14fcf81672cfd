//! The flushes and compactions the engine lists (`Engine::background_jobs`, the console's
//! "Flushes and compactions"): what each read and wrote, why it ran and how it ended, checked
//! against the table's files.

use ferrobase_engine::*;

fn open(dir: &std::path::Path) -> (Engine, Table) {
    let mut opts = EngineOptions::default();
    opts.compaction.auto = false;
    let engine = Engine::open(dir, opts).unwrap();
    engine
        .admin()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf"))
                .with_family(ColumnFamilyDescriptor::new("other")),
        )
        .unwrap();
    let t = engine.table("t").unwrap();
    (engine, t)
}

fn file_bytes(engine: &Engine) -> u64 {
    engine
        .admin()
        .regions("t")
        .unwrap()
        .iter()
        .map(|r| r.file_bytes)
        .sum()
}

#[test]
fn flushes_and_compactions_are_listed_with_what_they_read_and_wrote() {
    let dir = tempfile::tempdir().unwrap();
    let (engine, t) = open(dir.path());
    assert_eq!(engine.background_jobs(), BackgroundJobs::default());
    // A flush of empty memstores did nothing: not listed.
    engine.admin().flush("t").unwrap();
    assert!(engine.background_jobs().recent.is_empty());

    let region = engine.admin().regions("t").unwrap()[0].id;
    for round in 0..2 {
        for i in 0..50 {
            // Rows of both rounds interleave: the two files overlap, so the major compaction below
            // merges them (with sorted runs on, files sharing no row and holding nothing to drop
            // would stay as they are: docs/design/compaction.md).
            t.put(Put::new(format!("r{i:03}-{round}")).add_column("cf", "q", "v".repeat(100)))
                .unwrap();
        }
        engine.admin().flush("t").unwrap();
    }
    let jobs = engine.background_jobs();
    assert!(jobs.running.is_empty());
    assert_eq!(jobs.recent.len(), 2);
    let flush = &jobs.recent[0];
    assert_eq!(flush.kind, JobKind::Flush);
    assert_eq!(flush.reason, JobReason::Requested);
    assert_eq!(flush.state, JobState::Done);
    assert_eq!((flush.table.as_str(), flush.region), ("t", region));
    assert_eq!(flush.families, ["cf"]);
    assert_eq!((flush.files_in, flush.files_out), (0, 1));
    assert!(flush.bytes_in > 50 * 100, "{}", flush.bytes_in);
    assert!(jobs.recent[0].id > jobs.recent[1].id, "newest first");
    // The two flushes wrote the table's two files.
    let two_files = file_bytes(&engine);
    assert_eq!(
        jobs.recent.iter().map(|j| j.bytes_out).sum::<u64>(),
        two_files
    );

    engine.admin().major_compact("t").unwrap();
    let jobs = engine.background_jobs();
    let c = &jobs.recent[0];
    assert_eq!(c.kind, JobKind::MajorCompaction);
    assert_eq!(c.state, JobState::Done);
    assert_eq!(c.families, ["cf"]);
    assert_eq!((c.files_in, c.files_out), (2, 1));
    assert_eq!(c.bytes_in, two_files);
    assert_eq!(c.bytes_out, file_bytes(&engine));
    assert!(c.started_ms >= flush.started_ms);

    // A snapshot flushes first, and says so.
    t.put(Put::new("late").add_column("other", "q", "v"))
        .unwrap();
    engine.admin().snapshot("t", "s1", false).unwrap();
    let jobs = engine.background_jobs();
    assert_eq!(jobs.recent[0].kind, JobKind::Flush);
    assert_eq!(jobs.recent[0].reason, JobReason::Snapshot);
    assert_eq!(jobs.recent[0].families, ["other"]);
}
