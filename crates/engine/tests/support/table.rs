//! The common setup of engine tests: an engine with a table of one family `cf`.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Table, TableDescriptor, TableName,
};
use std::path::Path;

/// The table most tests write to.
pub const TABLE: &str = "t";
/// Its one family.
pub const FAMILY: &str = "cf";

/// Table `name` with the one family [`FAMILY`] (default settings).
pub fn descriptor(name: &str) -> TableDescriptor {
    TableDescriptor::new(TableName::parse(name).unwrap())
        .with_family(ColumnFamilyDescriptor::new(FAMILY))
}

/// Creates [`descriptor`]`(name)` unless the table exists (so a test may call it again after
/// a reopen).
pub fn create_table(engine: &Engine, name: &str) {
    if engine.admin().table_exists(name).unwrap() {
        return;
    }
    engine.admin().create_table(descriptor(name)).unwrap();
}

/// Opens the engine at `dir` with `opts` and creates [`TABLE`] with [`FAMILY`] unless it
/// exists (a reopen finds it).
pub fn open_with_table(dir: impl AsRef<Path>, opts: EngineOptions) -> Engine {
    let engine = Engine::open(dir.as_ref(), opts).unwrap();
    create_table(&engine, TABLE);
    engine
}

/// Opens the engine at `dir` with `opts` and creates [`TABLE`] with the one family `family` (a
/// test's own settings) unless it exists; answers the engine and the table's handle.
pub fn open_with_family(
    dir: impl AsRef<Path>,
    opts: EngineOptions,
    family: ColumnFamilyDescriptor,
) -> (Engine, Table) {
    let engine = Engine::open(dir.as_ref(), opts).unwrap();
    if !engine.admin().table_exists(TABLE).unwrap() {
        let desc = TableDescriptor::new(TableName::parse(TABLE).unwrap()).with_family(family);
        engine.admin().create_table(desc).unwrap();
    }
    let table = engine.table(TABLE).unwrap();
    (engine, table)
}

/// Options for a full-disk test on the fault-injecting file system `fs`: no automatic
/// compaction or split (so the test chooses every manifest write) and no free-space guard (the
/// guard is tested on its own; here a full disk is simulated directly).
pub fn quiet_options_on(fs: &ferrobase_engine::fs::fault::FaultFileSystem) -> EngineOptions {
    EngineOptions {
        compaction: ferrobase_engine::CompactionOptions {
            auto: false,
            major_interval: None,
            ..ferrobase_engine::CompactionOptions::default()
        },
        auto_split: false,
        min_free_space: Some(0),
        fs: std::sync::Arc::new(fs.clone()),
        ..EngineOptions::default()
    }
}
