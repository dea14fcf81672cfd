//! `ferrobase copy`: a table from one store to another (HBase's `CopyTable`).
//! `ferrobase export`, `ferrobase import` and `ferrobase import tsv`: a table to and from the
//! files of HBase's own `Export` and `Import` tools (Hadoop SequenceFiles of `Result`s; crate
//! `ferrobase-tools`) and delimited text as HBase's `ImportTsv` reads it, with HBase's argument
//! order and `-D` property names.

mod copy;
mod export;
mod import;
mod import_tsv;

pub(crate) use copy::{copy, CopyArgs, COPY_USAGE};
pub(crate) use export::{export, ExportArgs, EXPORT_USAGE};
pub(crate) use import::{import, ImportArgs, IMPORT_USAGE};
pub(crate) use import_tsv::{import_tsv, TsvArgs, TSV_USAGE};

use anyhow::{Context, Result};
use ferrobase_client::flags::ConnectFlags;
use ferrobase_client::Connection;

/// The connection options and positional arguments of every command here.
pub(crate) struct Common {
    pub(crate) url: String,
    pub(crate) connect_flags: ConnectFlags,
    pub(crate) positional: Vec<String>,
}

impl Common {
    pub(crate) fn connect(&self) -> Result<Connection> {
        Connection::open_with(&self.url, &self.connect_flags.options()?)
            .with_context(|| format!("opening {}", self.url))
    }
}

/// The store a transfer command reads or writes: `--connect`'s URL, or `--data`'s directory as
/// a bare path, which must exist (a mistyped path is not made a new, empty store), with
/// `FERROBASE_CONNECT`/`FERROBASE_DATA` when neither is given.
pub(crate) fn existing_store(args: &ferrobase_client::flags::ConnectArgs) -> Result<String> {
    let url = args.url()?;
    Ok(match url.strip_prefix("file:") {
        Some(dir) => dir.to_string(),
        None => url,
    })
}

/// `s` with HBase's `Bytes.toBytesBinary` escapes (`\xNN`) decoded.
pub(crate) fn to_bytes_binary(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            if let Some(v) = s
                .get(i + 2..i + 4)
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                out.push(v);
                i += 4;
                continue;
            }
        }
        out.push(b[i]);
        i += 1;
    }
    out
}

pub(crate) fn number<T: std::str::FromStr>(what: &str, v: &str) -> Result<T>
where
    T::Err: std::fmt::Display,
{
    v.parse().map_err(|e| anyhow::anyhow!("{what} {v:?}: {e}"))
}

/// The bytes of the files an import reads from `path` (a file or a directory of them), for the
/// progress bar's total; `None` when they cannot be listed (the import then says why).
fn input_bytes(path: &std::path::Path) -> Option<u64> {
    ferrobase_tools::import::input_files(path)
        .ok()
        .map(|files| {
            files
                .iter()
                .filter_map(|f| std::fs::metadata(f).ok())
                .map(|m| m.len())
                .sum()
        })
}

#[cfg(test)]
mod tests {
    use super::to_bytes_binary;

    #[test]
    fn binary_escapes_decode() {
        assert_eq!(to_bytes_binary(r"a\x00\xffb"), b"a\x00\xffb");
        assert_eq!(to_bytes_binary(r"\x4"), br"\x4");
        assert_eq!(to_bytes_binary("row"), b"row");
    }
}
