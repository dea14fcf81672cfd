//! Writes a SequenceFile (docs/format/sequencefile.md): the header, then records or blocks, a
//! sync marker at least every [`SYNC_INTERVAL`] bytes (record layouts) or before every block.

use super::vint::write_vlong;
use super::{
    Compression, Header, BLOCK_SIZE, MAGIC, SYNC_ESCAPE, SYNC_INTERVAL, SYNC_SIZE, VERSION,
};
use std::io::{self, Write};

/// A SequenceFile being written to `W`. Keys and values are given already serialized (the bytes
/// of their Java classes' serializations). Not thread-safe; [`SequenceFileWriter::finish`] writes
/// the last block and returns the sink.
pub struct SequenceFileWriter<W: Write> {
    out: W,
    pos: u64,
    sync: [u8; SYNC_SIZE],
    /// Where the last sync marker ended (0 before the first, as Hadoop's writer).
    last_sync: u64,
    compression: Compression,
    /// Block layout: the records buffered for the current block.
    block: BlockBuffers,
    records: u64,
}

#[derive(Default)]
struct BlockBuffers {
    count: usize,
    key_lengths: Vec<u8>,
    keys: Vec<u8>,
    value_lengths: Vec<u8>,
    values: Vec<u8>,
}

/// Appends Hadoop's `Text.writeString`: a variable-length byte count, then the UTF-8 bytes.
fn put_text(out: &mut Vec<u8>, s: &[u8]) {
    write_vlong(out, s.len() as i64);
    out.extend_from_slice(s);
}

/// A fresh sync marker: the MD5 of this process, the time and a counter (Hadoop hashes a
/// `java.rmi.server.UID` and the time the same way). Markers need only differ between files.
pub fn new_sync() -> [u8; SYNC_SIZE] {
    use md5::Digest;
    use std::sync::atomic::{AtomicU64, Ordering};
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_nanos())
        .unwrap_or_default();
    let seed = format!(
        "{}:{}@{now}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    );
    md5::Md5::digest(seed.as_bytes()).into()
}

impl<W: Write> SequenceFileWriter<W> {
    /// Writes the header of a file of `key_class` → `value_class` records with `compression`,
    /// the given metadata and a fresh sync marker.
    pub fn new(
        out: W,
        key_class: &str,
        value_class: &str,
        compression: Compression,
        metadata: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> io::Result<Self> {
        Self::with_header(
            out,
            Header {
                key_class: key_class.to_string(),
                value_class: value_class.to_string(),
                compression,
                metadata,
                sync: new_sync(),
            },
        )
    }

    /// Writes `header` as given (its sync marker included) and returns the writer.
    pub fn with_header(out: W, header: Header) -> io::Result<Self> {
        let mut h = Vec::with_capacity(256);
        h.extend_from_slice(&MAGIC);
        h.push(VERSION);
        put_text(&mut h, header.key_class.as_bytes());
        put_text(&mut h, header.value_class.as_bytes());
        h.push(u8::from(header.compression != Compression::None));
        h.push(u8::from(matches!(
            header.compression,
            Compression::Block(_)
        )));
        if let Some(codec) = header.compression.codec() {
            put_text(&mut h, codec.class_name().as_bytes());
        }
        h.extend_from_slice(&(header.metadata.len() as i32).to_be_bytes());
        for (k, v) in &header.metadata {
            put_text(&mut h, k);
            put_text(&mut h, v);
        }
        h.extend_from_slice(&header.sync);
        let mut w = SequenceFileWriter {
            out,
            pos: 0,
            sync: header.sync,
            last_sync: 0,
            compression: header.compression,
            block: BlockBuffers::default(),
            records: 0,
        };
        w.write(&h)?;
        Ok(w)
    }

    fn write(&mut self, b: &[u8]) -> io::Result<()> {
        self.out.write_all(b)?;
        self.pos += b.len() as u64;
        Ok(())
    }

    fn write_sync(&mut self) -> io::Result<()> {
        let mut m = [0u8; 4 + SYNC_SIZE];
        m[..4].copy_from_slice(&SYNC_ESCAPE.to_be_bytes());
        m[4..].copy_from_slice(&self.sync);
        self.write(&m)?;
        self.last_sync = self.pos;
        Ok(())
    }

    /// Appends one record. `key` and `value` are serialized bytes; together under 2 GiB.
    pub fn append(&mut self, key: &[u8], value: &[u8]) -> io::Result<()> {
        let too_big = || io::Error::new(io::ErrorKind::InvalidInput, "a record of 2 GiB or more");
        self.records += 1;
        match self.compression {
            Compression::None | Compression::Record(_) => {
                if self.pos >= self.last_sync + SYNC_INTERVAL {
                    self.write_sync()?;
                }
                let compressed;
                let value = match self.compression {
                    Compression::Record(codec) => {
                        compressed = codec.compress(value);
                        &compressed[..]
                    }
                    _ => value,
                };
                let record_len = i32::try_from(key.len() + value.len()).map_err(|_| too_big())?;
                let mut head = [0u8; 8];
                head[..4].copy_from_slice(&record_len.to_be_bytes());
                head[4..].copy_from_slice(&(key.len() as i32).to_be_bytes());
                self.write(&head)?;
                self.write(key)?;
                self.write(value)
            }
            Compression::Block(_) => {
                i32::try_from(key.len() + value.len()).map_err(|_| too_big())?;
                let b = &mut self.block;
                b.count += 1;
                write_vlong(&mut b.key_lengths, key.len() as i64);
                b.keys.extend_from_slice(key);
                write_vlong(&mut b.value_lengths, value.len() as i64);
                b.values.extend_from_slice(value);
                if b.keys.len() + b.values.len() >= BLOCK_SIZE {
                    self.write_block()?;
                }
                Ok(())
            }
        }
    }

    /// Block layout: writes the buffered records as one block (nothing when none is buffered).
    fn write_block(&mut self) -> io::Result<()> {
        let Compression::Block(codec) = self.compression else {
            return Ok(());
        };
        if self.block.count == 0 {
            return Ok(());
        }
        let b = std::mem::take(&mut self.block);
        if self.last_sync != self.pos {
            self.write_sync()?;
        }
        let mut out = Vec::new();
        write_vlong(&mut out, b.count as i64);
        for buf in [&b.key_lengths, &b.keys, &b.value_lengths, &b.values] {
            let c = codec.compress(buf);
            write_vlong(&mut out, c.len() as i64);
            out.extend_from_slice(&c);
        }
        self.write(&out)
    }

    /// Records appended so far.
    pub fn records(&self) -> u64 {
        self.records
    }

    /// Bytes written so far (a buffered block not included).
    pub fn position(&self) -> u64 {
        self.pos
    }

    /// Writes the last block, flushes and returns the sink.
    pub fn finish(mut self) -> io::Result<W> {
        self.write_block()?;
        self.out.flush()?;
        Ok(self.out)
    }
}
