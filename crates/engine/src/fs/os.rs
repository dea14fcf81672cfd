//! The operating system's file system, with the engine's fast paths: block reads that check
//! the page cache without waiting (`preadv2(RWF_NOWAIT)`) and skip zeroing their buffer,
//! readahead advice (`posix_fadvise`), and WAL writeback started early (`sync_file_range`).

use super::{DirEntry, FileLock, FileSystem, ReadableFile, WritableFile};
use std::fs::{File, OpenOptions};
use std::io::{self, Seek, Write};
use std::os::unix::fs::FileExt;
use std::path::Path;
use std::sync::Arc;
use std::time::SystemTime;

/// The real file system (`std::fs` and `libc`). Stateless; cheap to share.
#[derive(Debug, Default, Clone, Copy)]
pub struct OsFileSystem;

/// A file written through `write(2)`: at its end when opened for appending, else at its offset
/// (from 0 for a file created or opened for overwriting).
struct OsWritableFile(File);

impl WritableFile for OsWritableFile {
    fn append(&self, data: &[u8]) -> io::Result<()> {
        (&self.0).write_all(data)
    }

    fn sync_data(&self) -> io::Result<()> {
        self.0.sync_data()
    }

    fn truncate(&self, len: u64) -> io::Result<()> {
        self.0.set_len(len)?;
        // A file opened for appending writes at its end anyway; one opened by `create` writes
        // at its offset, which must not stay past the new end.
        (&self.0).seek(io::SeekFrom::Start(len)).map(drop)
    }

    fn sync_all(&self) -> io::Result<()> {
        self.0.sync_all()
    }

    fn start_writeback(&self, offset: u64, len: u64) {
        start_writeback(&self.0, offset, len);
    }

    fn preallocate(&self, len: u64) {
        #[cfg(target_os = "linux")]
        {
            use std::os::fd::AsRawFd;
            // SAFETY: fallocate only reads the descriptor and the integers; any value is
            // accepted (a bad one is an error return: this is advice).
            let failed = unsafe {
                libc::fallocate(
                    self.0.as_raw_fd(),
                    libc::FALLOC_FL_KEEP_SIZE,
                    0,
                    len as libc::off64_t,
                )
            } != 0;
            if failed {
                // A nearly full disk may have given part of it: handed back at once, not held
                // until the segment closes.
                if let Ok(m) = self.0.metadata() {
                    self.trim_preallocated(m.len());
                }
            }
        }
        #[cfg(not(target_os = "linux"))]
        let _ = len;
    }

    fn trim_preallocated(&self, len: u64) {
        if self.0.metadata().is_ok_and(|m| m.len() == len) {
            let _ = self.0.set_len(len);
        }
    }
}

/// A file read with `pread(2)`.
struct OsReadableFile(File);

impl ReadableFile for OsReadableFile {
    fn len(&self) -> io::Result<u64> {
        Ok(self.0.metadata()?.len())
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        FileExt::read_exact_at(&self.0, buf, offset)
    }

    fn read_block(
        &self,
        len: usize,
        offset: u64,
        on_cold: Option<&dyn Fn()>,
    ) -> io::Result<Vec<u8>> {
        read_exact_at_uninit(&self.0, len, offset, on_cold)
    }

    fn advise_random(&self) {
        advise(&self.0, 0, 0, libc::POSIX_FADV_RANDOM);
    }

    fn readahead(&self, offset: u64, len: u64) {
        advise(&self.0, offset, len, libc::POSIX_FADV_WILLNEED);
    }
}

/// An open file holding an advisory lock (released when the descriptor closes).
struct OsFileLock(#[expect(dead_code, reason = "held only to keep the lock")] File);

impl FileLock for OsFileLock {}

impl FileSystem for OsFileSystem {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(OsWritableFile(File::create(path)?)))
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let f = OpenOptions::new()
            .create_new(true)
            .append(true)
            .open(path)?;
        Ok(Box::new(OsWritableFile(f)))
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        let f = OpenOptions::new().append(true).open(path)?;
        Ok(Box::new(OsWritableFile(f)))
    }

    fn open_overwrite(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        // Not `O_APPEND`: writes go to the file offset, from 0 (`truncate` moves it).
        let f = OpenOptions::new().write(true).open(path)?;
        Ok(Box::new(OsWritableFile(f)))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        Ok(Arc::new(OsReadableFile(File::open(path)?)))
    }

    fn read(&self, path: &Path) -> io::Result<Vec<u8>> {
        std::fs::read(path)
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::rename(from, to)
    }

    fn hard_link(&self, from: &Path, to: &Path) -> io::Result<()> {
        std::fs::hard_link(from, to)
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_file(path)
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::remove_dir_all(path)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        std::fs::create_dir_all(path)
    }

    fn exists(&self, path: &Path) -> bool {
        path.exists()
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let mut out = Vec::new();
        for e in std::fs::read_dir(path)? {
            let e = e?;
            let m = e.metadata()?;
            out.push(DirEntry {
                name: e.file_name(),
                is_dir: m.is_dir(),
                len: if m.is_dir() { 0 } else { m.len() },
            });
        }
        Ok(out)
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        File::open(path)?.sync_all()
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        let f = OpenOptions::new()
            .create(true)
            .truncate(false)
            .write(true)
            .open(path)?;
        match f.try_lock() {
            Ok(()) => Ok(Box::new(OsFileLock(f))),
            Err(std::fs::TryLockError::WouldBlock) => Err(io::ErrorKind::WouldBlock.into()),
            Err(std::fs::TryLockError::Error(e)) => Err(e),
        }
    }

    fn modified(&self, path: &Path) -> io::Result<SystemTime> {
        std::fs::metadata(path)?.modified()
    }

    fn space(&self, path: &Path) -> io::Result<super::Space> {
        use std::os::unix::ffi::OsStrExt;
        let c = std::ffi::CString::new(path.as_os_str().as_bytes())
            .map_err(|_| io::Error::new(io::ErrorKind::InvalidInput, "path holds a NUL byte"))?;
        // SAFETY: `statvfs` is plain data, for which all-zero bytes are a valid value.
        let mut st: libc::statvfs = unsafe { std::mem::zeroed() };
        // SAFETY: `c` is a NUL-terminated path that outlives the call; `st` is plain data the
        // call fills in, read only when it returned 0.
        if unsafe { libc::statvfs(c.as_ptr(), &mut st) } != 0 {
            return Err(io::Error::last_os_error());
        }
        let frsize = st.f_frsize as u64;
        Ok(super::Space {
            available: (st.f_bavail as u64).saturating_mul(frsize),
            total: (st.f_blocks as u64).saturating_mul(frsize),
        })
    }
}

/// Asks the OS to start writing `len` bytes of `file` from `offset` to disk, without waiting
/// for them. Advice: a failure is ignored (a later sync still covers them).
fn start_writeback(file: &File, offset: u64, len: u64) {
    #[cfg(target_os = "linux")]
    {
        use std::os::fd::AsRawFd;
        // SAFETY: sync_file_range only reads the descriptor and the three integers; any value
        // is accepted (a bad one is an error return).
        unsafe {
            libc::sync_file_range(
                file.as_raw_fd(),
                offset as libc::off64_t,
                len as libc::off64_t,
                libc::SYNC_FILE_RANGE_WRITE,
            );
        }
    }
    #[cfg(not(target_os = "linux"))]
    let _ = (file, offset, len);
}

/// Gives the OS `advice` (`POSIX_FADV_*`) about `len` bytes at `offset` of `file` (`len` 0:
/// to the end). Advice only changes speed, so an error (e.g. an unsupported file system) is
/// ignored.
fn advise(file: &File, offset: u64, len: u64, advice: libc::c_int) {
    use std::os::fd::AsRawFd;
    let (Ok(off), Ok(len)) = (libc::off_t::try_from(offset), libc::off_t::try_from(len)) else {
        return;
    };
    // SAFETY: a valid open descriptor; posix_fadvise reads no memory of ours.
    unsafe { libc::posix_fadvise(file.as_raw_fd(), off, len, advice) };
}

/// False once the kernel refused `RWF_NOWAIT` (older kernels, some file systems).
static NOWAIT_READS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(true);

/// Reads what of `len` bytes at `offset` is in the page cache into `buf`, without waiting for
/// the disk (`preadv2` with `RWF_NOWAIT`). False when some of it is not cached.
#[cfg(all(target_os = "linux", target_env = "gnu"))]
fn read_cached_part(file: &File, buf: &mut Vec<u8>, len: usize, offset: u64) -> bool {
    use std::os::fd::AsRawFd;
    use std::sync::atomic::Ordering::Relaxed;
    let Ok(at) = libc::off_t::try_from(offset) else {
        return false;
    };
    if !NOWAIT_READS.load(Relaxed) {
        return false;
    }
    let spare = buf.spare_capacity_mut();
    let iov = libc::iovec {
        iov_base: spare.as_mut_ptr().cast(),
        iov_len: len.min(spare.len()),
    };
    // The system call itself rather than glibc's `preadv2` wrapper (glibc 2.26): the shipped
    // binary links against glibc 2.17 (manylinux2014, python/build_manylinux.sh). The offset is
    // passed as its low and high halves; on a 64-bit target the high half is 0. A kernel without
    // the call (< 4.6) answers ENOSYS, one without RWF_NOWAIT (< 4.14) EOPNOTSUPP: both below.
    // SAFETY: one iovec over the vector's unused capacity, which the kernel only writes to;
    // the length is then extended by exactly the bytes it reported.
    let n = unsafe {
        libc::syscall(
            libc::SYS_preadv2,
            file.as_raw_fd(),
            &iov as *const libc::iovec,
            1 as libc::c_int,
            at,
            0 as libc::off_t,
            libc::RWF_NOWAIT,
        )
    };
    if n < 0 {
        let e = std::io::Error::last_os_error().raw_os_error();
        if matches!(e, Some(libc::EOPNOTSUPP | libc::EINVAL | libc::ENOSYS)) {
            NOWAIT_READS.store(false, Relaxed);
        }
        return false;
    }
    // SAFETY: preadv2 initialized `n` bytes (n ≤ iov_len ≤ spare capacity).
    unsafe { buf.set_len(n as usize) };
    n as usize == len
}

#[cfg(not(all(target_os = "linux", target_env = "gnu")))]
fn read_cached_part(_: &File, _: &mut Vec<u8>, _: usize, _: u64) -> bool {
    false
}

/// Reads `len` bytes at `offset` into a new buffer without zeroing it first (a data block is
/// read on every block-cache miss; zeroing it cost as much as the read). With `on_cold`, what
/// the page cache holds is read first without waiting, and `on_cold` runs before the rest is
/// waited for (to ask the OS for more of the file in the same trip to the disk).
fn read_exact_at_uninit(
    file: &File,
    len: usize,
    offset: u64,
    on_cold: Option<&dyn Fn()>,
) -> std::io::Result<Vec<u8>> {
    use std::os::fd::AsRawFd;
    let mut buf: Vec<u8> = Vec::with_capacity(len);
    if let Some(cold) = on_cold {
        if !read_cached_part(file, &mut buf, len, offset) {
            cold();
        }
    }
    while buf.len() < len {
        let done = buf.len();
        let at = offset
            .checked_add(done as u64)
            .and_then(|o| libc::off_t::try_from(o).ok())
            .ok_or_else(|| std::io::Error::other("read offset out of range"))?;
        let spare = buf.spare_capacity_mut();
        // SAFETY: the pointer and length describe the vector's unused capacity, which pread
        // only writes to; the length is then extended by exactly the bytes pread reported.
        let n = unsafe { libc::pread(file.as_raw_fd(), spare.as_mut_ptr().cast(), len - done, at) };
        if n < 0 {
            let e = std::io::Error::last_os_error();
            if e.kind() == std::io::ErrorKind::Interrupted {
                continue;
            }
            return Err(e);
        }
        if n == 0 {
            return Err(std::io::ErrorKind::UnexpectedEof.into());
        }
        // SAFETY: pread initialized `n` more bytes (n ≤ len - done ≤ spare capacity).
        unsafe { buf.set_len(done + n as usize) };
    }
    Ok(buf)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_check_the_page_cache_first_and_ask_for_readahead_only_when_it_misses() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("data");
        let data: Vec<u8> = (0..300_000u32).map(|i| (i % 251) as u8).collect();
        std::fs::write(&path, &data).unwrap();
        let file = File::open(&path).unwrap();
        let colds = std::cell::Cell::new(0);
        let on_cold = || colds.set(colds.get() + 1);
        // Just written: in the page cache, read without waiting, no readahead asked for.
        let got = read_exact_at_uninit(&file, 70_000, 1000, Some(&on_cold)).unwrap();
        assert_eq!(got, data[1000..71_000]);
        assert_eq!(colds.get(), 0);
        // Dropped from the page cache (where the file system honours it): the rest is read
        // after the callback, whole.
        file.sync_all().unwrap();
        advise(&file, 0, 0, libc::POSIX_FADV_DONTNEED);
        let got = read_exact_at_uninit(&file, 100_000, 150_000, Some(&on_cold)).unwrap();
        assert_eq!(got, data[150_000..250_000]);
        assert!(colds.get() <= 1);
        // Without a callback the plain read path; past the end is an error, not a short read.
        assert_eq!(
            read_exact_at_uninit(&file, 10, 5, None).unwrap(),
            data[5..15]
        );
        assert!(read_exact_at_uninit(&file, 100, 299_950, Some(&on_cold)).is_err());
    }
}
