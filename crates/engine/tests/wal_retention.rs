//! The write-ahead log keeps only what is not flushed: once every edit is in a block file the
//! active segment is closed and deleted, and nothing acknowledged is lost by that.

mod support;

use ferrobase_engine::*;

fn wal_bytes(dir: &std::path::Path) -> u64 {
    std::fs::read_dir(dir.join("wal"))
        .unwrap()
        .map(|e| e.unwrap().metadata().unwrap().len())
        .sum()
}

#[test]
fn flushing_everything_deletes_the_logged_edits_and_keeps_the_data() {
    let dir = tempfile::tempdir().unwrap();
    {
        let engine = support::table::open_with_table(dir.path(), EngineOptions::default());
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
        // Writes after the roll land in the new segment.
        t.put(Put::new("after").add_column("cf", "q", "v")).unwrap();
    }
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = engine.table("t").unwrap();
    assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 2001);
    let got = t.get(&Get::new("after")).unwrap();
    assert_eq!(got.cells[0].value()[..], b"v"[..]);
}
