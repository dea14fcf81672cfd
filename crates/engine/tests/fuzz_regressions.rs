//! The engine's fuzz targets' checked-in inputs run under `cargo test`: every seed and every
//! input that once failed (`fuzz/corpus/<target>/`, `fuzz/regressions/<target>/`) goes through
//! the target's own harness and must not panic. `write_seed_corpora` (ignored; run it by name)
//! regenerates the binary seeds from the engine's own writers.

#[path = "../../../fuzz/harness/block_decompress.rs"]
mod block_decompress;
#[path = "../../../fuzz/harness/block_index.rs"]
mod block_index;
#[path = "../../../fuzz/harness/block_trailer.rs"]
mod block_trailer;
#[path = "../../../fuzz/harness/bloom_section.rs"]
mod bloom_section;
#[path = "../../../fuzz/harness/data_block.rs"]
mod data_block;
#[path = "../../../fuzz/harness/file_meta.rs"]
mod file_meta;
#[path = "../../../fuzz/harness/filter_language.rs"]
mod filter_language;
#[path = "../../../fuzz/harness/manifest_data.rs"]
mod manifest_data;
#[path = "../../../fuzz/harness/manifest_log.rs"]
mod manifest_log;
#[path = "../../../fuzz/harness/memstore_ops.rs"]
mod memstore_ops;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/wal_record.rs"]
mod wal_record;
#[path = "../../../fuzz/harness/wal_segment.rs"]
mod wal_segment;

use ferrobase_engine::fuzzing::masked_crc;
use ferrobase_engine::fuzzing::{
    decode_index, BlockBuilder, BlockFileWriter, FileMeta, FileOptions, Trailer,
    DEFAULT_BLOOM_CHUNK_BYTES, TRAILER_LEN,
};
use ferrobase_engine::fuzzing::{CellKey, CellType, KeyValue};
use ferrobase_engine::fuzzing::{ManifestData, RegionRecord, StoreRecord, TableRecord};
use ferrobase_engine::fuzzing::{WalCell, WalEdit, SEGMENT_MAGIC};
use ferrobase_engine::{
    BloomType, Bytes, ColumnFamilyDescriptor, Compression, DataBlockEncoding, TableDescriptor,
    TableName,
};

#[test]
fn block_decompress_inputs_replay() {
    let n = replay::replay("block_decompress", block_decompress::run);
    // The two Snappy payloads whose header declared up to 4 GiB (issue 32).
    assert!(n.regressions >= 2, "{n:?}");
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn data_block_inputs_replay() {
    let n = replay::replay("data_block", data_block::run);
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn bloom_section_inputs_replay() {
    let n = replay::replay("bloom_section", bloom_section::run);
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn memstore_ops_inputs_replay() {
    let n = replay::replay("memstore_ops", memstore_ops::run);
    assert!(n.corpus > 0, "{n:?}");
    // And programs no seed holds: 300 of pseudo-random bytes (xorshift, fixed seed).
    let mut x: u64 = 0x9e37_79b9_7f4a_7c15;
    for len in (0..300).map(|i| 16 + i * 7) {
        let program: Vec<u8> = (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                (x >> 24) as u8
            })
            .collect();
        memstore_ops::run(&program);
    }
}

#[test]
fn wal_record_inputs_replay() {
    let n = replay::replay("wal_record", wal_record::run);
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn manifest_data_inputs_replay() {
    let n = replay::replay("manifest_data", manifest_data::run);
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn manifest_log_inputs_replay() {
    let n = replay::replay("manifest_log", manifest_log::run);
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn filter_language_inputs_replay() {
    let n = replay::replay("filter_language", filter_language::run);
    // 3,000 nested ANDs and 3,000 nested parentheses (issue 32: the first overflowed the stack).
    assert!(n.regressions >= 2, "{n:?}");
    assert!(n.corpus > 0, "{n:?}");
}

#[test]
fn block_trailer_inputs_replay() {
    let n = replay::replay("block_trailer", block_trailer::run);
    assert!(n.corpus >= 2, "{n:?}");
}

#[test]
fn block_index_inputs_replay() {
    let n = replay::replay("block_index", block_index::run);
    assert!(n.corpus >= 2, "{n:?}");
}

#[test]
fn file_meta_inputs_replay() {
    let n = replay::replay("file_meta", file_meta::run);
    assert!(n.corpus >= 2, "{n:?}");
}

/// The seeds of the block file's section targets are real sections: each decodes as its own
/// kind, so a seed filed under the wrong target (or a format change that left them stale) shows.
#[test]
fn block_file_section_seeds_decode() {
    for path in replay::inputs("corpus", "block_trailer") {
        let data = std::fs::read(&path).unwrap();
        Trailer::decode(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    }
    for path in replay::inputs("corpus", "block_index") {
        let data = std::fs::read(&path).unwrap();
        let index = decode_index(&data).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        assert!(!index.is_empty(), "{}", path.display());
    }
    for path in replay::inputs("corpus", "file_meta") {
        let data = std::fs::read(&path).unwrap();
        assert!(FileMeta::decode(&data).is_some(), "{}", path.display());
    }
}

#[test]
fn wal_segment_inputs_replay() {
    let n = replay::replay("wal_segment", wal_segment::run);
    assert!(n.corpus > 0, "{n:?}");
}

fn kv(row: &str, qualifier: &str, ts: i64, cell_type: CellType, seq: u64, value: &str) -> KeyValue {
    KeyValue {
        key: CellKey {
            row: Bytes::copy_from_slice(row.as_bytes()),
            qualifier: Bytes::copy_from_slice(qualifier.as_bytes()),
            timestamp: ts,
            cell_type,
            seq,
        },
        value: Bytes::copy_from_slice(value.as_bytes()),
        ttl_ms: None,
    }
}

/// A few cells in key order: versions, a delete marker, a sequence id, shared row prefixes.
fn cells() -> Vec<KeyValue> {
    vec![
        kv("r1", "a", 20, CellType::Put, 0, "v2"),
        kv("r1", "a", 10, CellType::Put, 0, "v1"),
        kv("r1", "b", 15, CellType::DeleteColumn, 7, ""),
        kv("r10", "", 30, CellType::DeleteFamily, 0, ""),
        KeyValue {
            ttl_ms: Some(60_000),
            ..kv("r2", "q", 5, CellType::Put, 9, "value")
        },
    ]
}

/// The raw bytes of a framed section (`codec:u8 raw_len:u32 payload crc:u32`, codec NONE).
fn section(file: &[u8], offset: u64, len: u64) -> Vec<u8> {
    let framed = &file[offset as usize..(offset + len) as usize];
    assert_eq!(framed[0], Compression::None.id());
    framed[5..framed.len() - 4].to_vec()
}

fn write_seed(target: &str, name: &str, data: &[u8]) {
    let dir = replay::fuzz_dir().join("corpus").join(target);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join(name), data).unwrap();
}

#[test]
#[ignore = "writes fuzz/corpus/: run by name after a format change"]
fn write_seed_corpora() {
    let tmp = tempfile::tempdir().unwrap();
    for (bloom, encoding, name) in [
        (BloomType::Row, DataBlockEncoding::None, "row-bloom"),
        (
            BloomType::RowCol,
            DataBlockEncoding::Prefix,
            "rowcol-prefix",
        ),
    ] {
        let path = tmp.path().join(name);
        let opts = FileOptions {
            family: b"cf".to_vec(),
            block_size: 64,
            compression: Compression::None,
            encoding,
            bloom,
            major_compacted: false,
            bloom_chunk_bytes: DEFAULT_BLOOM_CHUNK_BYTES,
        };
        let mut w =
            BlockFileWriter::create(&ferrobase_engine::fs::OsFileSystem, &path, opts).unwrap();
        for c in cells() {
            w.add(&c).unwrap();
        }
        w.finish().unwrap();
        let file = std::fs::read(&path).unwrap();
        let trailer_bytes = &file[file.len() - TRAILER_LEN..];
        let t = Trailer::decode(trailer_bytes).unwrap();
        write_seed("block_trailer", name, trailer_bytes);
        let index = section(&file, t.index.offset, t.index.len);
        write_seed("block_index", name, &index);
        let meta = section(&file, t.meta.offset, t.meta.len);
        write_seed("file_meta", name, &meta);
        let bloom = section(&file, t.bloom.offset, t.bloom.len);
        write_seed("bloom_section", &format!("{name}-bloom-index"), &bloom);
    }
    for (encoding, name) in [
        (DataBlockEncoding::None, "block-v3-none"),
        (DataBlockEncoding::Prefix, "block-v3-prefix"),
    ] {
        let mut b = BlockBuilder::new(encoding);
        for c in cells() {
            b.add(&c);
        }
        write_seed("data_block", name, &b.take());
    }
    // Every codec's output for a block of 640 raw bytes (the harness's first byte is the raw
    // length in units of 64).
    let raw: Vec<u8> = cells()
        .iter()
        .flat_map(|c| [c.key.row.to_vec(), c.value.to_vec()].concat())
        .cycle()
        .take(640)
        .collect();
    for id in 1..=4u8 {
        if let Some(codec) = Compression::from_id(id) {
            let mut seed = vec![10u8];
            seed.extend_from_slice(&codec.compress(&raw));
            write_seed(
                "block_decompress",
                &format!("{codec:?}").to_lowercase(),
                &seed,
            );
        }
    }
    // A manifest of a namespace and a table of one region and one store.
    let manifest = ManifestData {
        last_seq: 12,
        next_region_id: 2,
        next_file_number: 4,
        namespaces: vec!["ns".to_string()],
        tables: vec![TableRecord {
            descriptor: TableDescriptor::new(TableName::parse("ns:t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
            enabled: true,
            regions: vec![RegionRecord {
                id: 1,
                start: Vec::new(),
                end: Vec::new(),
                stores: vec![StoreRecord {
                    family: b"cf".to_vec(),
                    flushed_seq: 12,
                    files: vec![3, 2],
                }],
            }],
        }],
    };
    write_seed("manifest_data", "one-table", &manifest.encode());
    // WAL records, and a segment of them with a torn last record.
    let edits = [
        WalEdit {
            seq: 1,
            region_id: 3,
            cells: vec![WalCell {
                family: Bytes::from_static(b"cf"),
                row: Bytes::from_static(b"r1"),
                qualifier: Bytes::from_static(b"a"),
                timestamp: 10,
                cell_type: CellType::Put,
                value: Bytes::from_static(b"v1"),
                ttl_ms: Some(60_000),
            }],
        },
        WalEdit {
            seq: 2,
            region_id: 3,
            cells: vec![
                WalCell {
                    family: Bytes::from_static(b"cf"),
                    row: Bytes::from_static(b"r2"),
                    qualifier: Bytes::new(),
                    timestamp: 11,
                    cell_type: CellType::DeleteFamily,
                    value: Bytes::new(),
                    ttl_ms: None,
                },
                WalCell {
                    family: Bytes::from_static(b"cf"),
                    row: Bytes::from_static(b"r2"),
                    qualifier: Bytes::from_static(b"b"),
                    timestamp: 12,
                    cell_type: CellType::Put,
                    value: Bytes::from_static(b"v"),
                    ttl_ms: None,
                },
            ],
        },
    ];
    let mut segment = SEGMENT_MAGIC.to_vec();
    for e in &edits {
        let mut payload = Vec::new();
        e.encode(&mut payload);
        segment.extend_from_slice(&(payload.len() as u32).to_be_bytes());
        segment.extend_from_slice(&masked_crc(&payload).to_be_bytes());
        segment.extend_from_slice(&payload);
    }
    write_seed("wal_segment", "two-records", &segment);
    write_seed("wal_segment", "torn-tail", &segment[..segment.len() - 3]);
    let mut payload = Vec::new();
    edits[1].encode(&mut payload);
    write_seed("wal_record", "wal-edit", &payload);
}
