//! HBase Export files never panic the reader: the input as a whole file (header and all), and
//! as the body of a file whose header is valid (uncompressed, record- and block-compressed with
//! each codec, chosen by the first byte), so the record, block and `Result` decoders are reached;
//! every record's key and value go through the Export record decoders.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/export_file/`, `fuzz/regressions/export_file/`).

use ferrobase_tools::result_codec::{decode_key, decode_result, KEY_CLASS, VALUE_CLASS};
use ferrobase_tools::sequence_file::{
    Codec, Compression, Header, SequenceFileReader, SequenceFileWriter,
};
use std::path::Path;

/// Reads every record of `file`; at most one record per input byte can come out.
fn read(file: &[u8]) {
    let Ok(mut r) = SequenceFileReader::new(file, Path::new("fuzz.seq")) else {
        return;
    };
    let mut n = 0usize;
    while let Ok(Some(rec)) = r.next_record() {
        n += 1;
        assert!(n <= file.len() + 1, "more records than bytes");
        if let Ok(row) = decode_key(&rec.key) {
            let _ = std::hint::black_box(decode_result(row, &rec.value));
        }
    }
}

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    read(data);
    let Some((&choice, body)) = data.split_first() else {
        return;
    };
    let compression = match choice % 7 {
        0 => Compression::None,
        1 => Compression::Record(Codec::Default),
        2 => Compression::Record(Codec::Gzip),
        3 => Compression::Record(Codec::Snappy),
        4 => Compression::Block(Codec::Default),
        5 => Compression::Block(Codec::Gzip),
        _ => Compression::Block(Codec::Snappy),
    };
    let sync = [0x5e; 16];
    let header = Header {
        key_class: KEY_CLASS.to_string(),
        value_class: VALUE_CLASS.to_string(),
        compression,
        metadata: Vec::new(),
        sync,
    };
    let w = SequenceFileWriter::with_header(Vec::new(), header).expect("a header writes to a Vec");
    let mut file = w.finish().expect("a Vec");
    // The body: the input, with "@@@@" standing for a sync escape and the marker.
    let mut i = 0;
    while i < body.len() {
        if body[i..].starts_with(b"@@@@") {
            file.extend_from_slice(&(-1i32).to_be_bytes());
            file.extend_from_slice(&sync);
            i += 4;
        } else {
            file.push(body[i]);
            i += 1;
        }
    }
    read(&file);
}
