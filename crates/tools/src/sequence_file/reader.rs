//! Reads a SequenceFile (docs/format/sequencefile.md) record by record, checking every sync
//! marker against the header's. Every error names the file and the offset where the broken
//! piece starts; nothing on disk can make the reader panic or allocate more than the file holds
//! (lengths are read through `Read::take`, never trusted for an allocation).

use super::vint::vlong_size;
use super::{Codec, Compression, Header, MAGIC, SYNC_ESCAPE, SYNC_SIZE, VERSION};
use crate::error::{Error, Result};
use std::collections::VecDeque;
use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};

/// One record: its serialized key and value (a record-compressed value already decompressed)
/// and where it starts in the file (its block's start in a block-compressed file).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Record {
    /// The key's bytes.
    pub key: Vec<u8>,
    /// The value's bytes.
    pub value: Vec<u8>,
    /// The offset of the record (or of its block).
    pub offset: u64,
}

/// A SequenceFile open for reading. Not thread-safe.
pub struct SequenceFileReader<R: Read> {
    input: BufReader<R>,
    pos: u64,
    path: PathBuf,
    header: Header,
    /// Block layout: the records of the current block not yet returned.
    pending: VecDeque<Record>,
}

impl SequenceFileReader<std::fs::File> {
    /// Opens `path` and reads its header.
    pub fn open(path: &Path) -> Result<Self> {
        let f = std::fs::File::open(path).map_err(Error::io(path))?;
        SequenceFileReader::new(f, path)
    }
}

impl<R: Read> SequenceFileReader<R> {
    /// Reads the header from `input`; `path` names the file in errors.
    pub fn new(input: R, path: &Path) -> Result<Self> {
        let mut r = SequenceFileReader {
            input: BufReader::with_capacity(256 * 1024, input),
            pos: 0,
            path: path.to_path_buf(),
            header: Header {
                key_class: String::new(),
                value_class: String::new(),
                compression: Compression::None,
                metadata: Vec::new(),
                sync: [0; SYNC_SIZE],
            },
            pending: VecDeque::new(),
        };
        r.header = r.read_header()?;
        Ok(r)
    }

    /// The header.
    pub fn header(&self) -> &Header {
        &self.header
    }

    /// The file's path as given.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Bytes consumed so far.
    pub fn position(&self) -> u64 {
        self.pos
    }

    fn corrupt(&self, offset: u64, what: impl Into<String>) -> Error {
        Error::Corrupt {
            path: self.path.clone(),
            offset,
            what: what.into(),
        }
    }

    /// True at the end of the input.
    fn at_end(&mut self) -> Result<bool> {
        let buf = self.input.fill_buf().map_err(Error::io(&self.path))?;
        Ok(buf.is_empty())
    }

    /// Exactly `n` bytes, or `Truncated` naming `what` and `start`.
    fn bytes(&mut self, n: u64, start: u64, what: &'static str) -> Result<Vec<u8>> {
        let mut out = Vec::new();
        (&mut self.input)
            .take(n)
            .read_to_end(&mut out)
            .map_err(Error::io(&self.path))?;
        self.pos += out.len() as u64;
        if (out.len() as u64) < n {
            return Err(Error::Truncated {
                path: self.path.clone(),
                offset: start,
                what,
            });
        }
        Ok(out)
    }

    fn array<const N: usize>(&mut self, start: u64, what: &'static str) -> Result<[u8; N]> {
        let b = self.bytes(N as u64, start, what)?;
        Ok(b.try_into().expect("bytes returned N bytes"))
    }

    fn int(&mut self, start: u64, what: &'static str) -> Result<i32> {
        Ok(i32::from_be_bytes(self.array(start, what)?))
    }

    fn vlong(&mut self, start: u64, what: &'static str) -> Result<i64> {
        let [first] = self.array(start, what)?;
        let mut b = vec![first];
        b.extend(self.bytes(vlong_size(first) as u64 - 1, start, what)?);
        Ok(super::vint::read_vlong(&b)
            .expect("all of its bytes were read")
            .0)
    }

    /// A non-negative variable-length length.
    fn vlen(&mut self, start: u64, what: &'static str) -> Result<u64> {
        let at = self.pos;
        let v = self.vlong(start, what)?;
        u64::try_from(v).map_err(|_| self.corrupt(at, format!("negative length {v} in {what}")))
    }

    fn text(&mut self, what: &'static str) -> Result<Vec<u8>> {
        let start = self.pos;
        let n = self.vlen(start, what)?;
        self.bytes(n, start, what)
    }

    fn utf8(&mut self, what: &'static str) -> Result<String> {
        let at = self.pos;
        let b = self.text(what)?;
        String::from_utf8(b).map_err(|_| self.corrupt(at, format!("{what} is not UTF-8")))
    }

    fn read_header(&mut self) -> Result<Header> {
        let mut magic = Vec::new();
        (&mut self.input)
            .take(3)
            .read_to_end(&mut magic)
            .map_err(Error::io(&self.path))?;
        self.pos = magic.len() as u64;
        if magic != MAGIC {
            return Err(Error::BadMagic {
                path: self.path.clone(),
                found: magic,
            });
        }
        let [version] = self.array(0, "the header")?;
        if version != VERSION {
            return Err(Error::UnsupportedVersion {
                path: self.path.clone(),
                version,
            });
        }
        let key_class = self.utf8("the header's key class")?;
        let value_class = self.utf8("the header's value class")?;
        let [compressed, block] = self.array(0, "the header")?;
        let flag = |b: u8, at: u64, s: &Self| match b {
            0 => Ok(false),
            1 => Ok(true),
            _ => Err(s.corrupt(at, format!("header flag byte is {b}, not 0 or 1"))),
        };
        let at = self.pos - 2;
        let (compressed, block) = (flag(compressed, at, self)?, flag(block, at + 1, self)?);
        let compression = if compressed {
            let name = self.utf8("the header's codec")?;
            let codec = Codec::from_class_name(&name).ok_or_else(|| Error::UnsupportedCodec {
                path: self.path.clone(),
                codec: name,
            })?;
            if block {
                Compression::Block(codec)
            } else {
                Compression::Record(codec)
            }
        } else if block {
            return Err(self.corrupt(at, "header says block-compressed but not compressed"));
        } else {
            Compression::None
        };
        let at = self.pos;
        let count = self.int(at, "the header's metadata")?;
        let count = u32::try_from(count)
            .map_err(|_| self.corrupt(at, format!("metadata count {count} is negative")))?;
        let mut metadata = Vec::new();
        for _ in 0..count {
            let k = self.text("the header's metadata")?;
            let v = self.text("the header's metadata")?;
            metadata.push((k, v));
        }
        let sync = self.array(0, "the header's sync marker")?;
        Ok(Header {
            key_class,
            value_class,
            compression,
            metadata,
            sync,
        })
    }

    /// Reads a sync marker's 16 bytes (its escape already read at `start`) and checks them.
    fn check_sync(&mut self, start: u64) -> Result<()> {
        let m: [u8; SYNC_SIZE] = self.array(start, "a sync marker")?;
        if m != self.header.sync {
            return Err(Error::BadSync {
                path: self.path.clone(),
                offset: start,
            });
        }
        Ok(())
    }

    /// The next record; `None` at the end of the file.
    pub fn next_record(&mut self) -> Result<Option<Record>> {
        if let Compression::Block(codec) = self.header.compression {
            if self.pending.is_empty() && !self.at_end()? {
                self.read_block(codec)?;
            }
            return Ok(self.pending.pop_front());
        }
        loop {
            if self.at_end()? {
                return Ok(None);
            }
            let start = self.pos;
            let len = self.int(start, "a record")?;
            if len == SYNC_ESCAPE {
                self.check_sync(start)?;
                continue;
            }
            let key_len = self.int(start, "a record")?;
            if len < 0 || key_len < 0 || key_len > len {
                return Err(self.corrupt(
                    start,
                    format!("record length {len} with key length {key_len}"),
                ));
            }
            let key = self.bytes(key_len as u64, start, "a record")?;
            let mut value = self.bytes((len - key_len) as u64, start, "a record")?;
            if let Compression::Record(codec) = self.header.compression {
                value = codec
                    .decompress(&value, super::MAX_DECOMPRESSED)
                    .map_err(|e| self.corrupt(start, format!("record value: {e}")))?;
            }
            return Ok(Some(Record {
                key,
                value,
                offset: start,
            }));
        }
    }

    fn read_block(&mut self, codec: Codec) -> Result<()> {
        let start = self.pos;
        let escape = self.int(start, "a block's sync marker")?;
        if escape != SYNC_ESCAPE {
            return Err(self.corrupt(
                start,
                format!("block starts with {escape}, not a sync marker"),
            ));
        }
        self.check_sync(start)?;
        let count = self.vlen(start, "a block")?;
        let mut buffers = Vec::with_capacity(4);
        for what in ["key lengths", "keys", "value lengths", "values"] {
            let n = self.vlen(start, "a block")?;
            let c = self.bytes(n, start, "a block")?;
            let d = codec
                .decompress(&c, super::MAX_DECOMPRESSED)
                .map_err(|e| self.corrupt(start, format!("block's {what}: {e}")))?;
            buffers.push(d);
        }
        let [key_lengths, keys, value_lengths, values] =
            <[Vec<u8>; 4]>::try_from(buffers).expect("four buffers were read");
        let lengths = |b: &[u8], what: &str| -> Result<Vec<usize>> {
            let mut out = Vec::new();
            let mut rest = b;
            for _ in 0..count {
                let (v, n) = super::vint::read_vlong(rest).ok_or_else(|| {
                    self.corrupt(start, format!("block's {what} end before {count} lengths"))
                })?;
                rest = &rest[n..];
                out.push(usize::try_from(v).map_err(|_| {
                    self.corrupt(start, format!("negative length {v} in block's {what}"))
                })?);
            }
            if !rest.is_empty() {
                return Err(self.corrupt(
                    start,
                    format!("block's {what} hold more than {count} lengths"),
                ));
            }
            Ok(out)
        };
        let kl = lengths(&key_lengths, "key lengths")?;
        let vl = lengths(&value_lengths, "value lengths")?;
        if kl.iter().sum::<usize>() != keys.len() || vl.iter().sum::<usize>() != values.len() {
            return Err(self.corrupt(start, "block's lengths do not add up to its buffers"));
        }
        let (mut k, mut v) = (0, 0);
        for (a, b) in kl.into_iter().zip(vl) {
            self.pending.push_back(Record {
                key: keys[k..k + a].to_vec(),
                value: values[v..v + b].to_vec(),
                offset: start,
            });
            k += a;
            v += b;
        }
        Ok(())
    }
}
