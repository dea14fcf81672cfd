//! Files Apache HBase 2.6.1's own Export wrote (tests/fixtures/hbase-2.6.1, README there): read
//! cell for cell, imported, and written again byte for byte but for the sync marker.

use ferrobase_client::Connection;
use ferrobase_engine::{Cell, ColumnFamilyDescriptor, TableDescriptor, TableName};
use ferrobase_tools::import::read_export_file;
use ferrobase_tools::sequence_file::{Compression, SequenceFileReader, SYNC_SIZE};
use ferrobase_tools::{export_table, import_dir, ExportOptions};
use std::path::{Path, PathBuf};

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/fixtures/hbase-2.6.1")
        .join(name)
}

/// HBase's `Bytes.toStringBinary`.
fn to_string_binary(b: &[u8]) -> String {
    const KEEP: &[u8] = b" `~!@#$%^&*()-_=+[]{}|;:'\",.<>/?";
    b.iter()
        .map(|&c| {
            if c.is_ascii_alphanumeric() || KEEP.contains(&c) {
                (c as char).to_string()
            } else {
                format!("\\x{c:02X}")
            }
        })
        .collect()
}

fn line(c: &Cell) -> String {
    format!(
        "{}\t{}\t{}\t{}\t{}\t{}",
        to_string_binary(c.row()),
        to_string_binary(c.family()),
        to_string_binary(c.qualifier()),
        c.timestamp(),
        c.cell_type().name(),
        to_string_binary(c.value())
    )
}

fn lines_of(path: &Path) -> Vec<String> {
    let mut out = Vec::new();
    read_export_file(path, &mut |_, _, cells| {
        out.extend(cells.iter().map(line));
        Ok(())
    })
    .unwrap();
    out.sort();
    out
}

fn expected() -> Vec<String> {
    std::fs::read_to_string(fixture("cells.txt"))
        .unwrap()
        .lines()
        .map(str::to_string)
        .collect()
}

#[test]
fn every_cell_of_hbase_files_reads_in_every_compression() {
    let want = expected();
    assert_eq!(want.len(), 664);
    for (name, compression) in [
        ("export-none", "None"),
        ("export-block", "Block(Default)"),
        ("export-record", "Record(Default)"),
    ] {
        let r = SequenceFileReader::open(&fixture(name)).unwrap();
        assert_eq!(format!("{:?}", r.header().compression), compression);
        assert_eq!(lines_of(&fixture(name)), want, "{name}");
    }
}

fn table(conn: &Connection, name: &str) {
    let mut desc = TableDescriptor::new(TableName::parse(name).unwrap());
    for (f, v) in [("cf1", 10), ("cf2", 3), ("cf3", 1)] {
        let mut cf = ColumnFamilyDescriptor::new(f);
        cf.max_versions = v;
        desc = desc.with_family(cf);
    }
    conn.create_table(desc, &[]).unwrap();
}

/// The bytes of an export file with its sync marker (the header's and every repeat) blanked.
fn without_sync(path: &Path) -> Vec<u8> {
    let bytes = std::fs::read(path).unwrap();
    let sync = SequenceFileReader::open(path).unwrap().header().sync;
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while i < bytes.len() {
        if bytes[i..].starts_with(&sync) {
            out.extend_from_slice(&[0; SYNC_SIZE]);
            i += SYNC_SIZE;
        } else {
            out.push(bytes[i]);
            i += 1;
        }
    }
    out
}

#[test]
fn imported_and_exported_again_is_hbases_file_but_for_the_sync_marker() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    table(&conn, "fx");
    let applied = import_dir(&conn, "fx", &fixture("export-none"), &mut |_| {}).unwrap();
    assert_eq!(
        (applied.rows, applied.cells, applied.delete_markers),
        (40, 664, 17)
    );
    // As HBase's table was when exported: flushed, so no cell a marker masks is left.
    conn.flush("fx").unwrap();
    let out = dir.path().join("out");
    let opts = ExportOptions {
        versions: i32::MAX as u32,
        raw: true,
        ..ExportOptions::default()
    };
    let s = export_table(&conn, "fx", &out, &opts, &mut |_| {}).unwrap();
    assert_eq!((s.rows, s.cells, s.files.len()), (40, 664, 1));
    assert!(out.join("_SUCCESS").is_file());
    let ours = out.join("part-m-00000");
    assert_eq!(without_sync(&ours), without_sync(&fixture("export-none")));

    // The compressed layouts read back to the same cells (their bytes are zlib's choice).
    for (name, compression) in [
        (
            "block",
            Compression::Block(ferrobase_tools::sequence_file::Codec::Default),
        ),
        (
            "record",
            Compression::Record(ferrobase_tools::sequence_file::Codec::Default),
        ),
    ] {
        let out = dir.path().join(name);
        let opts = ExportOptions {
            compression,
            ..opts.clone()
        };
        export_table(&conn, "fx", &out, &opts, &mut |_| {}).unwrap();
        assert_eq!(lines_of(&out.join("part-m-00000")), expected(), "{name}");
    }
}
