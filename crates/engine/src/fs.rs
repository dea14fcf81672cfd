//! The file-system seam: every file and directory the engine touches goes through a
//! [`FileSystem`] (leveldb's `Env`, redb's `StorageBackend`).
//!
//! [`OsFileSystem`] is the real one and the default of `EngineOptions::fs`; it keeps the fast
//! paths the engine relies on (`pread`/`preadv2(RWF_NOWAIT)` for blocks, `posix_fadvise` for
//! readahead, `sync_file_range` for WAL writeback). `fault::FaultFileSystem` (the `fault-fs`
//! feature, which tests turn on; not in the shipped binary) is an in-memory file system that tracks
//! what was synced, fails chosen operations and simulates power cuts, for crash tests.
//!
//! Durability model (what the engine may assume, and what the fault file system enforces): bytes
//! appended to a file survive a power cut only once the file was synced; a directory entry
//! created, renamed or removed survives only once the directory was synced with
//! [`FileSystem::sync_dir`]. The engine's ordering of these steps is written down in
//! `docs/format/manifest.md` ("Commit protocol"). What else a power cut or a disk may do (pages
//! persisted out of order, zero-filled or stale tails, torn overwrites, lying syncs, directory
//! trees created and removed part way) is the fault file system's `FaultModel`, described in
//! `docs/design/durability.md` ("The power-cut model").

#[doc(hidden)]
#[cfg(any(test, feature = "fault-fs"))]
pub mod fault;
mod os;

pub use os::OsFileSystem;

use std::ffi::OsString;
use std::io;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

/// One entry of a directory listing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DirEntry {
    /// The entry's name (not its path).
    pub name: OsString,
    /// Whether it is a directory.
    pub is_dir: bool,
    /// Its length in bytes (0 for a directory).
    pub len: u64,
}

/// Space on a file system, in bytes (`statvfs`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Space {
    /// Bytes an unprivileged writer may still use (`f_bavail * f_frsize`).
    pub available: u64,
    /// The file system's size (`f_blocks * f_frsize`).
    pub total: u64,
}

/// A held directory lock; dropping it releases the lock.
pub trait FileLock: Send + Sync {}

/// A file open for appending. Writes go to the end; nothing is durable until a sync returns.
///
/// Implementations are thread-safe, but the engine has one writer per file at a time.
pub trait WritableFile: Send + Sync {
    /// Appends all of `data` at the end of the file.
    fn append(&self, data: &[u8]) -> io::Result<()>;

    /// Makes the file's bytes durable (`fdatasync`).
    fn sync_data(&self) -> io::Result<()>;

    /// Makes the file's bytes and metadata durable (`fsync`). Defaults to
    /// [`WritableFile::sync_data`].
    fn sync_all(&self) -> io::Result<()> {
        self.sync_data()
    }

    /// Cuts the file to its first `len` bytes; later appends go after them (`ftruncate`). Used
    /// to cut off the bytes of a WAL write that failed part way. Not durable until a sync.
    fn truncate(&self, len: u64) -> io::Result<()>;

    /// Asks the OS to start writing `len` bytes from `offset` to disk without waiting
    /// (`sync_file_range`). Advice only: it changes speed, never durability; the default does
    /// nothing.
    fn start_writeback(&self, offset: u64, len: u64) {
        let _ = (offset, len);
    }

    /// Asks the file system to allocate the file's first `len` bytes on disk without changing
    /// its length (`fallocate` with `FALLOC_FL_KEEP_SIZE`), so appends up to there allocate
    /// nothing when they are synced. The caller keeps appends out while it runs. Advice only:
    /// on an error (a file system without it, a full disk) what was allocated is given back at
    /// once, and the blocks past the file's end are given back by
    /// [`WritableFile::trim_preallocated`]; the default does nothing.
    fn preallocate(&self, len: u64) {
        let _ = len;
    }

    /// Gives back the blocks [`WritableFile::preallocate`] allocated past the file's end, `len`
    /// (a `ftruncate` to it; nothing when the file's length is not `len`, so no byte is ever
    /// cut). The caller keeps appends out while it runs. Advice as well: an error is ignored;
    /// the default does nothing.
    fn trim_preallocated(&self, len: u64) {
        let _ = len;
    }
}

/// A file open for positional reads. Thread-safe.
pub trait ReadableFile: Send + Sync {
    /// The file's length in bytes.
    fn len(&self) -> io::Result<u64>;

    /// Whether the file is empty.
    fn is_empty(&self) -> io::Result<bool> {
        Ok(self.len()? == 0)
    }

    /// Fills `buf` from `offset`; a short file is `UnexpectedEof`.
    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()>;

    /// Reads `len` bytes at `offset` into a new buffer (a data block). With `on_cold`, an
    /// implementation that can tell what is cached reads that part first without waiting and
    /// calls `on_cold` before it waits for the rest (so the caller can ask for more of the file
    /// in the same trip to the disk). The default zero-fills a buffer and never calls `on_cold`.
    fn read_block(
        &self,
        len: usize,
        offset: u64,
        on_cold: Option<&dyn Fn()>,
    ) -> io::Result<Vec<u8>> {
        let _ = on_cold;
        let mut buf = vec![0; len];
        self.read_exact_at(&mut buf, offset)?;
        Ok(buf)
    }

    /// Advice: reads will be random, block-sized (`POSIX_FADV_RANDOM`). Default: nothing.
    fn advise_random(&self) {}

    /// Advice: `len` bytes at `offset` will be read soon (`POSIX_FADV_WILLNEED`). Default:
    /// nothing.
    fn readahead(&self, offset: u64, len: u64) {
        let _ = (offset, len);
    }
}

/// The operations the engine performs on files and directories. Object-safe: the engine holds
/// an `Arc<dyn FileSystem>`. Thread-safe.
///
/// Errors are plain `io::Error`s; the engine adds the path (`IoContext`). Paths are those the
/// engine builds under its data directory.
pub trait FileSystem: Send + Sync + std::fmt::Debug {
    /// Creates `path` (truncating an existing file) for appending.
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;

    /// Creates `path` for appending; `AlreadyExists` if it exists.
    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;

    /// Opens the existing file `path` for appending at its end (its bytes kept); `NotFound` if
    /// it does not exist. Writes nothing, so it needs no free space.
    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;

    /// Opens the existing file `path` for writing over its bytes from its start: each
    /// `append` writes the next bytes in place (growing the file past its end as an append
    /// does), and `truncate` moves the next write to the new end. `NotFound` if it does not
    /// exist. A recycled WAL segment is written so, its cached pages reused.
    fn open_overwrite(&self, path: &Path) -> io::Result<Box<dyn WritableFile>>;

    /// Opens `path` for reading.
    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>>;

    /// Reads the whole file at `path`.
    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        let f = self.open(path)?;
        let len = usize::try_from(f.len()?).map_err(|_| io::Error::other("file too large"))?;
        let mut buf = vec![0; len];
        f.read_exact_at(&mut buf, 0)?;
        Ok(buf)
    }

    /// Renames `from` to `to`, replacing `to` atomically if it exists.
    fn rename(&self, from: &Path, to: &Path) -> io::Result<()>;

    /// Makes `to` a second name of the file at `from` (a hard link): the bytes stay until
    /// both names are removed. `AlreadyExists` if `to` exists. The default copies the bytes
    /// into a new synced file (for file systems without links); either way the new name is
    /// durable only once its directory is synced.
    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        let bytes = self.read(from)?;
        let f = self.create_new(to)?;
        f.append(&bytes)?;
        f.sync_all()
    }

    /// Removes the file at `path`.
    fn remove_file(&self, path: &Path) -> io::Result<()>;

    /// Removes the directory at `path` and everything in it.
    fn remove_dir_all(&self, path: &Path) -> io::Result<()>;

    /// Creates the directory `path` and any missing parents; nothing if it exists.
    fn create_dir_all(&self, path: &Path) -> io::Result<()>;

    /// Whether anything exists at `path`.
    fn exists(&self, path: &Path) -> bool;

    /// The entries of directory `path`, in no particular order.
    fn list_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>>;

    /// Makes the entries of directory `path` (files created, renamed or removed in it) durable.
    fn sync_dir(&self, path: &Path) -> io::Result<()>;

    /// Takes an exclusive lock on the file at `path` (created if missing); `WouldBlock` when
    /// another holder has it.
    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>>;

    /// When the file at `path` was last modified.
    fn modified(&self, path: &Path) -> io::Result<SystemTime>;

    /// Free and total space of the file system holding `path` (`statvfs`). Cheap (no I/O),
    /// but the engine still calls it at most about once a second.
    fn space(&self, path: &Path) -> io::Result<Space>;
}

/// The default file system: the operating system's.
pub fn os() -> Arc<dyn FileSystem> {
    Arc::new(OsFileSystem)
}
