//! The one interface every engine under test implements, and the settings they share.

use anyhow::Result;
use std::path::Path;

/// One cell of the stream: every engine stores exactly these.
pub struct CellIn {
    pub row: Vec<u8>,
    pub qualifier: Vec<u8>,
    pub ts: i64,
    pub value: Vec<u8>,
}

/// Settings aligned across engines; printed with the results.
#[derive(Clone, Copy, Debug)]
pub struct Settings {
    /// Block cache capacity in bytes.
    pub block_cache: usize,
    /// Bloom filter (10 bits per key) on data files.
    pub bloom: bool,
}

/// What the settings line of the report says; `{selection}` is ferrobase's compaction selection.
pub const SETTINGS_LINE: &str =
    "LZ4, 64 KiB blocks, 64 MiB memtable, bloom 10 bits/key (ferrobase: ROW bloom; sorted runs on; {selection}), \
two background jobs, WAL/journal written to the OS without fsync unless a row says fsync; \
writers wait when memtables hold 2 × 64 MiB (RocksDB) or 0.4 of the memory budget (ferrobase)";

/// An engine under test. Shared by reference between writer threads.
pub trait Store: Send + Sync {
    /// Writes `cells` atomically; with `fsync`, durable on return (group commit where the engine has it).
    /// Takes the cells by value: an engine whose API takes ownership of the bytes (ferrobase's
    /// `Put`, fjall's values) moves them in, as an application handing over its buffers would;
    /// RocksDB copies them into its write batch.
    fn write(&self, cells: Vec<CellIn>, fsync: bool) -> Result<()>;
    /// Whether the newest version of (row, qualifier) exists.
    fn get(&self, row: &[u8], qualifier: &[u8]) -> Result<bool>;
    /// The first `n` rows (tall-narrow: one cell each) under `prefix`; returns how many.
    fn scan_prefix(&self, prefix: &[u8], n: usize) -> Result<usize>;
    /// Up to `n` rows (tall-narrow: one cell each) from `start` on; returns how many.
    fn scan_from(&self, start: &[u8], n: usize) -> Result<usize>;
    /// The first `n` columns of a wide row; returns how many.
    fn wide(&self, row: &[u8], n: usize) -> Result<usize>;
    /// Flushes and compacts everything so reads hit files.
    fn settle(&self) -> Result<()>;
}

/// The key a key-value engine stores for a cell: row + family + qualifier + inverted timestamp,
/// so a prefix seek finds a column's newest version first, as ferrobase's cell order does.
#[cfg_attr(not(any(feature = "fjall", feature = "rocksdb")), allow(dead_code))]
pub fn kv_key(row: &[u8], qualifier: &[u8], ts: i64) -> Vec<u8> {
    let mut k = Vec::with_capacity(row.len() + qualifier.len() + 10);
    k.extend_from_slice(row);
    k.extend_from_slice(b"cf");
    k.extend_from_slice(qualifier);
    k.extend_from_slice(&(u64::MAX - ts as u64).to_be_bytes());
    k
}

/// The prefix of every cell of `row` under `kv_key` (all its columns, newest version first).
#[cfg_attr(not(any(feature = "fjall", feature = "rocksdb")), allow(dead_code))]
pub fn kv_row_prefix(row: &[u8]) -> Vec<u8> {
    let mut p = Vec::with_capacity(row.len() + 2);
    p.extend_from_slice(row);
    p.extend_from_slice(b"cf");
    p
}

/// The prefix of every version of (row, qualifier) under `kv_key`.
#[cfg_attr(not(any(feature = "fjall", feature = "rocksdb")), allow(dead_code))]
pub fn kv_column_prefix(row: &[u8], qualifier: &[u8]) -> Vec<u8> {
    let mut p = kv_row_prefix(row);
    p.extend_from_slice(qualifier);
    p
}

/// Bytes under `p`, recursively: every engine's directory is measured the same way.
pub fn dir_bytes(p: &Path) -> u64 {
    std::fs::read_dir(p)
        .map(|rd| {
            rd.filter_map(|e| e.ok())
                .map(|e| match e.metadata() {
                    Ok(m) if m.is_dir() => dir_bytes(&e.path()),
                    Ok(m) => m.len(),
                    Err(_) => 0,
                })
                .sum()
        })
        .unwrap_or(0)
}

/// Every file under `p`, recursively.
pub fn files_under(p: &Path, out: &mut Vec<std::path::PathBuf>) {
    if let Ok(rd) = std::fs::read_dir(p) {
        for e in rd.filter_map(|e| e.ok()) {
            let path = e.path();
            if path.is_dir() {
                files_under(&path, out);
            } else {
                out.push(path);
            }
        }
    }
}

/// Opens engine `name` in `dir` (created if new).
pub fn open(name: &str, dir: &Path, s: Settings) -> Result<Box<dyn Store>> {
    match name {
        "ferrobase" => Ok(Box::new(crate::ferro::Ferro::open(dir, s)?)),
        #[cfg(feature = "fjall")]
        "fjall" => Ok(Box::new(crate::fjall_store::Fjall::open(dir, s)?)),
        #[cfg(feature = "rocksdb")]
        "rocksdb" => Ok(Box::new(crate::rocks::Rocks::open(dir, s)?)),
        other => anyhow::bail!("engine {other} is not built in (see --features)"),
    }
}

/// The engines this build can run, ferrobase first.
#[cfg_attr(not(any(feature = "fjall", feature = "rocksdb")), allow(unused_mut))]
pub fn engines() -> Vec<&'static str> {
    let mut v = vec!["ferrobase"];
    #[cfg(feature = "fjall")]
    v.push("fjall");
    #[cfg(feature = "rocksdb")]
    v.push("rocksdb");
    v
}
