//! The common setup of engine tests: an engine with a table of one family `cf`.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::{ColumnFamilyDescriptor, Engine, EngineOptions, TableDescriptor, TableName};
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
