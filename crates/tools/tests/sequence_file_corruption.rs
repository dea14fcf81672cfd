//! SequenceFiles written and read back in every layout and codec, and damaged ones: a flipped
//! magic, a broken sync marker, a truncated tail, a damaged compressed block, an unknown codec,
//! foreign classes. Each is a typed error naming the file and the offset; an import of a
//! directory holding one damaged file writes nothing.

use ferrobase_client::Connection;
use ferrobase_engine::{Cell, CellType, ColumnFamilyDescriptor, TableDescriptor, TableName};
use ferrobase_tools::result_codec::{encode_key, encode_result, KEY_CLASS, VALUE_CLASS};
use ferrobase_tools::sequence_file::vint::write_vlong;
use ferrobase_tools::sequence_file::{
    Codec, Compression, Record, SequenceFileReader, SequenceFileWriter, SYNC_SIZE,
};
use ferrobase_tools::{import_dir, Error};
use std::path::Path;

fn records(n: usize) -> Vec<(Vec<u8>, Vec<u8>)> {
    (0..n)
        .map(|i| {
            let key = if i % 50 == 0 {
                Vec::new()
            } else {
                format!("key-{i:05}").into_bytes()
            };
            let value = match i % 7 {
                0 => Vec::new(),
                1 => vec![i as u8; 3000],
                _ => format!("value {i} ").repeat(i % 13).into_bytes(),
            };
            (key, value)
        })
        .collect()
}

fn write(path: &Path, compression: Compression, recs: &[(Vec<u8>, Vec<u8>)]) {
    let f = std::fs::File::create(path).unwrap();
    let mut w = SequenceFileWriter::new(
        f,
        "k.Class",
        "v.Class",
        compression,
        vec![(b"m".to_vec(), b"1".to_vec())],
    )
    .unwrap();
    for (k, v) in recs {
        w.append(k, v).unwrap();
    }
    w.finish().unwrap();
}

fn read_all(path: &Path) -> Result<Vec<Record>, Error> {
    let mut r = SequenceFileReader::open(path)?;
    drain(&mut r)
}

fn drain<R: std::io::Read>(r: &mut SequenceFileReader<R>) -> Result<Vec<Record>, Error> {
    let mut out = Vec::new();
    while let Some(rec) = r.next_record()? {
        out.push(rec);
    }
    Ok(out)
}

const LAYOUTS: [Compression; 7] = [
    Compression::None,
    Compression::Record(Codec::Default),
    Compression::Record(Codec::Gzip),
    Compression::Record(Codec::Snappy),
    Compression::Block(Codec::Default),
    Compression::Block(Codec::Gzip),
    Compression::Block(Codec::Snappy),
];

#[test]
fn every_layout_and_codec_round_trips() {
    let dir = tempfile::tempdir().unwrap();
    // Enough for several blocks (1 MB each) and many sync markers.
    let recs = records(3000);
    for c in LAYOUTS {
        let p = dir.path().join(format!("{c:?}"));
        write(&p, c, &recs);
        let r = SequenceFileReader::open(&p).unwrap();
        assert_eq!(r.header().compression, c);
        assert_eq!(r.header().key_class, "k.Class");
        assert_eq!(r.header().metadata, vec![(b"m".to_vec(), b"1".to_vec())]);
        let got: Vec<_> = read_all(&p)
            .unwrap()
            .into_iter()
            .map(|r| (r.key, r.value))
            .collect();
        assert_eq!(got, recs, "{c:?}");
    }
}

/// Offsets of the sync escapes (-1 then the marker) after the header.
fn sync_offsets(path: &Path) -> Vec<usize> {
    let bytes = std::fs::read(path).unwrap();
    let sync = SequenceFileReader::open(path).unwrap().header().sync;
    let mut esc = vec![0xff; 4];
    esc.extend_from_slice(&sync);
    (0..bytes.len().saturating_sub(esc.len()))
        .filter(|&i| bytes[i..].starts_with(&esc))
        .collect()
}

fn damage(path: &Path, at: usize) {
    let mut b = std::fs::read(path).unwrap();
    b[at] ^= 0x5a;
    std::fs::write(path, b).unwrap();
}

#[test]
fn a_flipped_magic_is_bad_magic() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    write(&p, Compression::None, &records(10));
    damage(&p, 0);
    match read_all(&p) {
        Err(Error::BadMagic { path, found }) => {
            assert_eq!(path, p);
            assert_eq!(found.len(), 3);
        }
        other => panic!("{other:?}"),
    }
    let e = read_all(&p).unwrap_err().to_string();
    assert!(e.contains("not a Hadoop SequenceFile"), "{e}");
    // Not a SequenceFile at all, and an empty file.
    std::fs::write(&p, b"PAR1....").unwrap();
    assert!(matches!(read_all(&p), Err(Error::BadMagic { .. })));
    std::fs::write(&p, b"").unwrap();
    assert!(matches!(read_all(&p), Err(Error::BadMagic { .. })));
    std::fs::write(&p, b"SEQ\x05").unwrap();
    assert!(matches!(
        read_all(&p),
        Err(Error::UnsupportedVersion { version: 5, .. })
    ));
}

#[test]
fn a_broken_sync_marker_names_its_offset() {
    let dir = tempfile::tempdir().unwrap();
    for c in [
        Compression::None,
        Compression::Record(Codec::Default),
        Compression::Block(Codec::Default),
    ] {
        let p = dir.path().join(format!("{c:?}"));
        write(&p, c, &records(3000));
        let syncs = sync_offsets(&p);
        assert!(syncs.len() >= 2, "{c:?}: {} markers", syncs.len());
        let at = syncs[1];
        damage(&p, at + 4 + SYNC_SIZE / 2);
        match read_all(&p) {
            Err(Error::BadSync { path, offset }) => {
                assert_eq!(path, p);
                assert_eq!(offset, at as u64, "{c:?}");
            }
            other => panic!("{c:?}: {other:?}"),
        }
        let e = read_all(&p).unwrap_err().to_string();
        assert!(e.contains(&format!("at offset {at}: sync marker")), "{e}");
    }
}

#[test]
fn a_truncated_tail_names_the_record_it_cuts() {
    let dir = tempfile::tempdir().unwrap();
    let recs = records(40);
    for c in [
        Compression::None,
        Compression::Record(Codec::Gzip),
        Compression::Block(Codec::Snappy),
    ] {
        let p = dir.path().join("whole");
        write(&p, c, &recs);
        let whole = std::fs::read(&p).unwrap();
        let full = read_all(&p).unwrap();
        let cut = dir.path().join("cut");
        // Every length: an error naming where the cut piece starts, or (cut exactly between
        // records: the format has no trailer) a prefix of the records; never a panic.
        for len in 0..whole.len() {
            let read = SequenceFileReader::new(&whole[..len], &cut).and_then(|mut r| drain(&mut r));
            match read {
                Ok(got) => {
                    assert!(got.len() < full.len() || len == whole.len(), "{c:?} {len}");
                    assert_eq!(got[..], full[..got.len()], "{c:?} {len}");
                }
                Err(Error::Truncated { path, offset, .. }) => {
                    assert_eq!(path, cut);
                    assert!(offset <= len as u64, "{c:?} {len}: {offset}");
                }
                Err(Error::BadMagic { .. }) => assert!(len < 3),
                Err(e) => panic!("{c:?} {len}: {e}"),
            }
        }
        // Cut inside the last record of a record file: the error names that record's offset.
        if c == Compression::None {
            std::fs::write(&cut, &whole[..whole.len() - 1]).unwrap();
            let last = full.last().unwrap().offset;
            match read_all(&cut) {
                Err(Error::Truncated { offset, .. }) => assert_eq!(offset, last),
                other => panic!("{other:?}"),
            }
        }
    }
}

#[test]
fn a_damaged_compressed_block_is_corrupt() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    write(&p, Compression::Block(Codec::Default), &records(100));
    let at = sync_offsets(&p)[0];
    // Inside the first compressed buffer, past the marker, the record count and its length.
    damage(&p, at + 4 + SYNC_SIZE + 6);
    match read_all(&p) {
        Err(Error::Corrupt { offset, what, .. }) => {
            assert_eq!(offset, at as u64);
            assert!(what.contains("block's"), "{what}");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn an_unknown_codec_is_named() {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    let mut b = b"SEQ\x06".to_vec();
    for s in ["k", "v", "", "org.apache.hadoop.io.compress.BZip2Codec"] {
        if s.is_empty() {
            b.extend_from_slice(&[1, 0]);
            continue;
        }
        write_vlong(&mut b, s.len() as i64);
        b.extend_from_slice(s.as_bytes());
    }
    b.extend_from_slice(&[0; 4 + SYNC_SIZE]);
    std::fs::write(&p, b).unwrap();
    match read_all(&p) {
        Err(Error::UnsupportedCodec { codec, .. }) => {
            assert_eq!(codec, "org.apache.hadoop.io.compress.BZip2Codec")
        }
        other => panic!("{other:?}"),
    }
}

fn export_file(path: &Path, rows: std::ops::Range<usize>, compression: Compression) {
    let f = std::fs::File::create(path).unwrap();
    let mut w =
        SequenceFileWriter::new(f, KEY_CLASS, VALUE_CLASS, compression, Vec::new()).unwrap();
    for r in rows {
        let row = format!("row-{r:05}");
        let cells = vec![
            Cell::new(
                row.clone(),
                &b"cf"[..],
                &b"a"[..],
                10,
                CellType::Put,
                format!("v{r}"),
            ),
            Cell::new(
                row.clone(),
                &b"cf"[..],
                &b"b"[..],
                20,
                CellType::DeleteColumn,
                &b""[..],
            ),
        ];
        w.append(&encode_key(row.as_bytes()), &encode_result(&cells))
            .unwrap();
    }
    w.finish().unwrap();
}

fn table(conn: &Connection) {
    let desc = TableDescriptor::new(TableName::parse("t").unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[]).unwrap();
}

fn row_count(conn: &Connection) -> usize {
    let scan = ferrobase_engine::Scan::new().raw(true).max_versions(10);
    conn.table("t").scanner(scan, None).unwrap().count()
}

#[test]
fn an_import_with_a_damaged_file_writes_nothing() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    table(&conn);
    let input = dir.path().join("in");
    std::fs::create_dir(&input).unwrap();
    export_file(&input.join("part-m-00000"), 0..2000, Compression::None);
    export_file(
        &input.join("part-m-00001"),
        2000..4000,
        Compression::Block(Codec::Default),
    );
    // Hidden files are not inputs (Hadoop's FileInputFormat skips them).
    std::fs::write(input.join("_SUCCESS"), b"").unwrap();
    std::fs::write(input.join(".part-m-00000.crc"), b"garbage").unwrap();
    let second = input.join("part-m-00001");
    let whole = std::fs::read(&second).unwrap();
    std::fs::write(&second, &whole[..whole.len() - 10]).unwrap();
    let e = import_dir(&conn, "t", &input, &mut |_| {}).unwrap_err();
    assert!(
        matches!(&e, Error::Truncated { path, .. } if *path == second),
        "{e}"
    );
    assert!(e.to_string().contains("part-m-00001 at offset"), "{e}");
    assert_eq!(row_count(&conn), 0, "nothing applied");

    // Whole again: both files apply.
    std::fs::write(&second, &whole).unwrap();
    let s = import_dir(&conn, "t", &input, &mut |_| {}).unwrap();
    assert_eq!(
        (s.files, s.rows, s.cells, s.delete_markers),
        (2, 4000, 8000, 4000)
    );
    assert_eq!(row_count(&conn), 4000);
}

#[test]
fn foreign_files_and_missing_families_are_refused_before_writing() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().join("data").display())).unwrap();
    table(&conn);
    // A SequenceFile of other classes.
    let other = dir.path().join("other");
    std::fs::create_dir(&other).unwrap();
    write(&other.join("part-m-00000"), Compression::None, &records(3));
    let e = import_dir(&conn, "t", &other, &mut |_| {}).unwrap_err();
    assert!(
        matches!(e, Error::NotAnExport { ref key, .. } if key == "k.Class"),
        "{e}"
    );

    // A cell of another row than its record's key.
    let p = dir.path().join("mixed");
    let f = std::fs::File::create(&p).unwrap();
    let mut w =
        SequenceFileWriter::new(f, KEY_CLASS, VALUE_CLASS, Compression::None, Vec::new()).unwrap();
    let cell = Cell::new(
        &b"b"[..],
        &b"cf"[..],
        &b"q"[..],
        1,
        CellType::Put,
        &b"v"[..],
    );
    w.append(&encode_key(b"a"), &encode_result(&[cell]))
        .unwrap();
    w.finish().unwrap();
    let e = import_dir(&conn, "t", &p, &mut |_| {}).unwrap_err();
    assert!(
        matches!(e, Error::Corrupt { ref what, .. } if what.contains("not the record's")),
        "{e}"
    );

    // A family the table does not have.
    let p = dir.path().join("family");
    let f = std::fs::File::create(&p).unwrap();
    let mut w =
        SequenceFileWriter::new(f, KEY_CLASS, VALUE_CLASS, Compression::None, Vec::new()).unwrap();
    let cell = Cell::new(
        &b"a"[..],
        &b"nope"[..],
        &b"q"[..],
        1,
        CellType::Put,
        &b"v"[..],
    );
    w.append(&encode_key(b"a"), &encode_result(&[cell]))
        .unwrap();
    w.finish().unwrap();
    let e = import_dir(&conn, "t", &p, &mut |_| {}).unwrap_err();
    assert!(
        e.to_string()
            .contains("has no family nope: nothing was imported"),
        "{e}"
    );
    assert_eq!(row_count(&conn), 0);
}
