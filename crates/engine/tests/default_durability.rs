//! `EngineOptions::default_durability` (`ferrobase serve --durability`): the level of mutations
//! whose request and table both say USE_DEFAULT. At FSYNC_WAL such writes survive a power cut;
//! at SYNC_WAL (HBase's default) they survive a process kill only.

mod support;

use ferrobase_engine::fs::fault::{CutMode, FaultFileSystem};
use ferrobase_engine::*;
use std::sync::Arc;

fn open(fs: &FaultFileSystem, default_durability: Durability) -> Engine {
    support::table::open_with_table(
        "/db",
        EngineOptions {
            default_durability,
            fs: Arc::new(fs.clone()),
            ..EngineOptions::default()
        },
    )
}

#[test]
fn a_server_default_of_fsync_wal_makes_use_default_writes_survive_a_power_cut() {
    for (level, survives) in [(Durability::FsyncWal, true), (Durability::SyncWal, false)] {
        let fs = FaultFileSystem::new();
        let engine = open(&fs, level);
        let t = engine.table("t").unwrap();
        t.put(Put::new("r").add_column("cf", "q", "v")).unwrap();
        let syncs = Metrics::get(&engine.metrics().wal_syncs);
        assert_eq!(syncs > 0, survives, "{level:?}: {syncs} WAL syncs");
        drop(t);
        // The power fails with the engine running; it is dropped after.
        fs.power_cut(CutMode::DropUnsynced);
        drop(engine);
        let engine = open(&fs, level);
        let got = engine.table("t").unwrap().get(&Get::new("r")).unwrap();
        assert_eq!(!got.cells.is_empty(), survives, "{level:?}");
    }
}
