//! Every cell of a table as text, for the tests that compare a store before and after a tool
//! ran on it (`cli_inspect.rs`'s repair, `cli_snapshot.rs`'s export and import).

/// Every cell of `table` (raw: every version and delete marker), as `row/family:qualifier@ts
/// Type value` lines.
pub fn cells(engine: &ferrobase_engine::Engine, table: &str) -> Vec<String> {
    engine
        .table(table)
        .unwrap()
        .scan_all(&ferrobase_engine::Scan::new().raw(true).max_versions(100))
        .unwrap()
        .iter()
        .flat_map(|r| r.cells.iter())
        .map(|c| {
            format!(
                "{}/{}:{}@{} {:?} {}",
                c.row().escape_ascii(),
                c.family().escape_ascii(),
                c.qualifier().escape_ascii(),
                c.timestamp(),
                c.cell_type(),
                c.value().escape_ascii()
            )
        })
        .collect()
}
