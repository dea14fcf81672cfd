//! A catalog to run every DDL kind on, and a way to compare catalogs: shared by the tests
//! of DDL against a full disk and power cuts (`ddl_disk_full.rs`, `catalog_transaction.rs`).

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use ferrobase_engine::fs::fault::FaultFileSystem;
use ferrobase_engine::*;

/// The data directory on the fault file system.
pub const DIR: &str = "/db";

/// `EngineOptions::manifest_log_threshold` of [`options`] when set (`manifest_log.rs` sets 0,
/// so every change goes through the manifest's edit log); the default otherwise.
pub static LOG_THRESHOLD: std::sync::OnceLock<u64> = std::sync::OnceLock::new();

/// Options for DDL tests on `fs` (no background compaction or split).
pub fn options(fs: &FaultFileSystem) -> EngineOptions {
    let mut o = super::table::quiet_options_on(fs);
    if let Some(t) = LOG_THRESHOLD.get() {
        o.manifest_log_threshold = *t;
    }
    o
}

/// Table `name` with `families` (default settings).
pub fn table_desc(name: &str, families: &[&str]) -> TableDescriptor {
    families.iter().fold(
        TableDescriptor::new(TableName::parse(name).unwrap()),
        |d, f| d.with_family(ColumnFamilyDescriptor::new(*f)),
    )
}

/// The starting catalog: `other` (the bystander), `t` (families `cf`, `cf2`, two regions,
/// one row), `off` (disabled, one row) and namespace `ns_old`.
pub fn setup(fs: &FaultFileSystem) -> Engine {
    let engine = Engine::open(DIR, options(fs)).unwrap();
    let admin = engine.admin();
    admin.create_table(table_desc("other", &["cf"])).unwrap();
    admin
        .create_table_with_splits(table_desc("t", &["cf", "cf2"]), &[b"m".to_vec()])
        .unwrap();
    admin.create_table(table_desc("off", &["cf"])).unwrap();
    for name in ["other", "t", "off"] {
        put(&engine, name, "r1");
    }
    admin.disable("off").unwrap();
    admin.create_namespace("ns_old").unwrap();
    engine
}

/// Writes `row` (`cf:q` = the row key) to `table`, fsynced.
pub fn put(engine: &Engine, table: &str, row: &str) {
    engine
        .table(table)
        .unwrap()
        .put(
            Put::new(row)
                .add_column("cf", "q", row)
                .durability(Durability::FsyncWal),
        )
        .unwrap();
}

/// True when `row` of `table` reads back with any cell.
pub fn present(engine: &Engine, table: &str, row: &str) -> bool {
    !engine
        .table(table)
        .unwrap()
        .get(&Get::new(row))
        .unwrap()
        .cells
        .is_empty()
}

/// What the catalog holds: namespaces, and per table its schema, state and region bounds.
pub fn catalog(engine: &Engine) -> String {
    let admin = engine.admin();
    let mut out = format!("{:?}\n", admin.list_namespaces().unwrap());
    for name in admin.list_tables().unwrap() {
        let name = name.to_string();
        let regions: Vec<_> = admin
            .regions(&name)
            .unwrap()
            .into_iter()
            .map(|r| (r.start, r.end))
            .collect();
        out += &format!(
            "{name} enabled={} {:?} {regions:?}\n",
            admin.is_enabled(&name).unwrap(),
            admin.describe(&name).unwrap()
        );
    }
    out
}

/// A DDL call.
pub type Ddl = fn(&Admin) -> Result<()>;

/// Every DDL that writes the manifest, on the catalog `setup` builds, with the number of its
/// manifest write (`disable` first flushes each of the table's two regions, each flush writing
/// the manifest).
pub fn ddls() -> Vec<(&'static str, u64, Ddl)> {
    vec![
        ("create table", 1, |a| {
            a.create_table(table_desc("new", &["cf"]))
        }),
        ("drop table", 1, |a| a.delete_table("off")),
        ("truncate table", 1, |a| a.truncate("off", false)),
        ("disable table", 3, |a| a.disable("t")),
        ("enable table", 1, |a| a.enable("off")),
        ("add family", 1, |a| {
            a.add_family("t", ColumnFamilyDescriptor::new("cf3"))
        }),
        ("modify family", 1, |a| {
            let mut f = ColumnFamilyDescriptor::new("cf2");
            f.max_versions = 7;
            a.modify_family("t", f)
        }),
        ("delete family", 1, |a| a.delete_family("t", b"cf2")),
        ("table attributes", 1, |a| {
            a.alter_table_attributes("t", &[("MAX_FILESIZE".into(), "1048576".into())], &[])
        }),
        ("create namespace", 1, |a| a.create_namespace("ns_new")),
        ("drop namespace", 1, |a| a.drop_namespace("ns_old")),
    ]
}
