//! The write-ahead log keeps only what is not flushed: once every edit is in a block file the
//! active segment is closed and deleted, and nothing acknowledged is lost by that.

mod support;

use ferrobase_engine::*;

/// Bytes of the log's segments (a segment kept for reuse is not one: it holds only zeros,
/// checked below).
fn wal_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap())
        .filter(|e| !e.file_name().to_string_lossy().ends_with(".wal.free"))
        .map(|e| e.metadata().unwrap().len())
        .sum()
}

/// The segments kept for reuse, each checked to hold nothing but zeros.
fn recycled(dir: &std::path::Path) -> usize {
    let free: Vec<_> = std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.to_string_lossy().ends_with(".wal.free"))
        .collect();
    for p in &free {
        let bytes = std::fs::read(p).unwrap();
        assert!(!bytes.is_empty() && bytes.iter().all(|&b| b == 0), "{p:?}");
    }
    free.len()
}

#[test]
fn flushing_everything_deletes_the_logged_edits_and_keeps_the_data() {
    // Off by default; with recycling on, the flushed segment is kept, zeroed, for reuse.
    for kept in [0, 2] {
        let dir = tempfile::tempdir().unwrap();
        let opts = || EngineOptions {
            wal_recycled_segments: kept,
            ..EngineOptions::default()
        };
        {
            let engine = support::table::open_with_table(dir.path(), opts());
            let t = engine.table("t").unwrap();
            let puts = (0..2000)
                .map(|i| Put::new(format!("r{i:05}")).add_column("cf", "q", vec![7u8; 512]))
                .collect();
            t.put_all(puts).unwrap();
            assert!(wal_bytes(dir.path()) > 1_000_000);
            engine.admin().flush("t").unwrap();
            assert!(
                wal_bytes(dir.path()) < 1024,
                "WAL still holds {} bytes after everything was flushed",
                wal_bytes(dir.path())
            );
            // The 1 MiB segment deleted, or kept for the log to write over.
            assert_eq!(recycled(dir.path()), kept.min(1), "recycling {kept}");
            // Writes after the roll land in the new segment.
            t.put(Put::new("after").add_column("cf", "q", "v")).unwrap();
        }
        let engine = Engine::open(dir.path(), opts()).unwrap();
        let t = engine.table("t").unwrap();
        assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 2001);
        let got = t.get(&Get::new("after")).unwrap();
        assert_eq!(got.cells[0].value()[..], b"v"[..]);
    }
}
