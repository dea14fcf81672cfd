//! An in-memory file system for crash tests (leveldb's `fault_injection_test.cc`, redb's
//! `CrashBackend`): it keeps, per file, the bytes synced and those not yet synced, and per
//! directory the entries synced with `sync_dir` and those not yet synced; it fails the Nth
//! operation of a kind with a chosen errno; and it simulates a power cut, after which only
//! what was synced is guaranteed to be there.
//!
//! With no fault set it is a plain in-memory file system. Paths must be absolute. Thread-safe
//! (one lock over the whole tree: made for correctness tests, not speed).
//!
//! By default a cut keeps a prefix of each file's unsynced bytes; [`FaultModel`] turns on what
//! real file systems and disks do besides (pages persisted out of order, zero-filled or stale
//! blocks in a grown file, torn overwrites, syncs that lie, directory trees created and removed
//! one entry at a time, space charged for metadata). `docs/design/durability.md` ("The
//! power-cut model") lists them.

mod model;

pub use model::{FaultModel, LyingDisk, TailFill};

use super::{DirEntry, FileLock, FileSystem, ReadableFile, WritableFile};
use crate::lock;
use ferrobase_testkit::Rng;
use std::collections::{BTreeMap, HashMap};
use std::ffi::OsString;
use std::io;
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::SystemTime;

/// A kind of operation, for choosing which one fails.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    /// `create` and `create_new`.
    Create,
    /// `open` for reading, `open_append` and `open_overwrite`.
    Open,
    /// A read from an open file.
    Read,
    /// An append to a file (an injected failure writes the first half of the bytes first, as
    /// a write cut short by a full disk may; over a file's own bytes, up to the page boundary
    /// before the half, as the kernel copies a write into cached pages a page at a time).
    Append,
    /// `sync_data` or `sync_all` of a file.
    Sync,
    /// `sync_dir`.
    SyncDir,
    /// `rename`.
    Rename,
    /// `remove_file` and `remove_dir_all`.
    Remove,
    /// `list_dir`.
    List,
    /// A truncation of an open file.
    Truncate,
    /// `create_dir_all`.
    CreateDir,
}

impl OpKind {
    /// Whether the operation changes what is stored (these are the points a power cut can
    /// fall on).
    pub fn mutates(self) -> bool {
        matches!(
            self,
            OpKind::Create
                | OpKind::Append
                | OpKind::Sync
                | OpKind::SyncDir
                | OpKind::Rename
                | OpKind::Remove
                | OpKind::CreateDir
                | OpKind::Truncate
        )
    }
}

/// A failure to inject: the `nth` (1-based) operation of `kind` whose path contains
/// `path_contains` fails with OS error `errno` (`libc::EIO`, `libc::ENOSPC`, ...).
#[derive(Debug, Clone)]
pub struct Fault {
    /// The kind of operation that fails.
    pub kind: OpKind,
    /// Only operations on a path containing this count (for a rename: either path); empty:
    /// every path.
    pub path_contains: String,
    /// Which matching operation fails, counted from when the fault is set (1: the next one).
    pub nth: u64,
    /// The OS error number returned.
    pub errno: i32,
}

/// What a power cut keeps of what was not synced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CutMode {
    /// Nothing: every file is its synced bytes, every directory its synced entries.
    DropUnsynced,
    /// A random part, as a real disk may: each file keeps its synced bytes plus a random prefix
    /// of the unsynced tail (or, if it was truncated since its last sync, either its synced
    /// bytes or a prefix of its current ones); each directory entry changed since the last
    /// `sync_dir` is, at random, as synced or as changed.
    KeepRandom {
        /// Seed of the choices.
        seed: u64,
    },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Node {
    File(u64),
    Dir(u64),
}

#[derive(Debug, Default, Clone)]
struct Dir {
    live: BTreeMap<OsString, Node>,
    durable: BTreeMap<OsString, Node>,
}

#[derive(Debug)]
struct MemFile {
    data: Vec<u8>,
    durable: Vec<u8>,
    /// Truncated since the last sync: `durable` is no longer a prefix of `data`.
    diverged: bool,
    /// Synced bytes written over in place since the last sync (a file opened for overwriting):
    /// a cut keeps the synced length, each overwritten page old or new.
    overwritten: bool,
    /// The shortest length the file was cut to since the last sync (`usize::MAX`: never).
    kept: usize,
    modified: SystemTime,
}

#[derive(Debug)]
struct PendingFault {
    fault: Fault,
    seen: u64,
}

#[derive(Debug)]
struct State {
    dirs: HashMap<u64, Dir>,
    files: HashMap<u64, MemFile>,
    next_ino: u64,
    faults: Vec<PendingFault>,
    injected: u64,
    mutations: u64,
    cut_at: Option<u64>,
    dead: bool,
    locks: HashMap<PathBuf, u64>,
    next_lock: u64,
    /// Simulated free space in bytes (`None`: unlimited): appends use it up, and one that does
    /// not fit writes what fits and fails with `ENOSPC`, as a full disk does.
    free: Option<u64>,
    model: FaultModel,
    /// Bytes of files removed or cut back lately: what a reused block may still hold.
    stale: Vec<u8>,
    /// What lying syncs damaged, per file.
    lies: Vec<(PathBuf, String)>,
    lie_rng: Rng,
    /// Operations per kind, for tests that report what they covered.
    counts: HashMap<OpKind, u64>,
}

/// How many bytes of removed files [`State::stale`] keeps.
const STALE_POOL: usize = 64 * 1024;

const ROOT: u64 = 0;

/// The size [`FileSystem::space`] reports for the in-memory file system (1 TiB).
pub const SIMULATED_TOTAL: u64 = 1 << 40;

fn eio() -> io::Error {
    io::Error::from_raw_os_error(libc::EIO)
}

fn not_found() -> io::Error {
    io::ErrorKind::NotFound.into()
}

/// The names along `path` (which must be absolute).
fn names(path: &Path) -> io::Result<Vec<OsString>> {
    let mut out = Vec::new();
    for c in path.components() {
        match c {
            Component::RootDir => {}
            Component::Normal(n) => out.push(n.to_os_string()),
            _ => {
                return Err(io::Error::new(
                    io::ErrorKind::InvalidInput,
                    "the in-memory file system takes absolute, normalised paths",
                ))
            }
        }
    }
    if !path.is_absolute() {
        return Err(io::Error::new(
            io::ErrorKind::InvalidInput,
            "the in-memory file system takes absolute paths",
        ));
    }
    Ok(out)
}

impl State {
    /// Counts the operation and fails it if the power is cut or a fault is due.
    fn check(&mut self, kind: OpKind, paths: &[&Path]) -> io::Result<()> {
        if self.dead {
            return Err(eio());
        }
        *self.counts.entry(kind).or_default() += 1;
        if kind.mutates() {
            self.mutations += 1;
            if self.cut_at.is_some_and(|n| self.mutations >= n) {
                self.dead = true;
                return Err(eio());
            }
        }
        let matches = |f: &Fault| {
            f.kind == kind
                && (f.path_contains.is_empty()
                    || paths
                        .iter()
                        .any(|p| p.to_string_lossy().contains(&f.path_contains)))
        };
        let mut fire = None;
        for (i, p) in self.faults.iter_mut().enumerate() {
            if matches(&p.fault) {
                p.seen += 1;
                if p.seen == p.fault.nth && fire.is_none() {
                    fire = Some(i);
                }
            }
        }
        if let Some(i) = fire {
            let f = self.faults.remove(i);
            self.injected += 1;
            return Err(io::Error::from_raw_os_error(f.fault.errno));
        }
        Ok(())
    }

    fn lookup(&self, path: &Path) -> io::Result<Node> {
        let mut node = Node::Dir(ROOT);
        for n in names(path)? {
            let Node::Dir(d) = node else {
                return Err(not_found());
            };
            node = *self
                .dirs
                .get(&d)
                .and_then(|d| d.live.get(&n))
                .ok_or_else(not_found)?;
        }
        Ok(node)
    }

    /// The directory holding `path`, and the name of `path` in it.
    fn parent(&self, path: &Path) -> io::Result<(u64, OsString)> {
        let name = path.file_name().ok_or_else(not_found)?.to_os_string();
        let parent = path.parent().ok_or_else(not_found)?;
        match self.lookup(parent)? {
            Node::Dir(d) => Ok((d, name)),
            Node::File(_) => Err(not_found()),
        }
    }

    fn dir_mut(&mut self, d: u64) -> &mut Dir {
        self.dirs.entry(d).or_default()
    }

    fn new_ino(&mut self) -> u64 {
        self.next_ino += 1;
        self.next_ino
    }

    fn file_mut(&mut self, ino: u64) -> io::Result<&mut MemFile> {
        self.files.get_mut(&ino).ok_or_else(not_found)
    }

    /// Removes the entry `path`, which must be a directory when `dir` and a file otherwise. A
    /// directory is unlinked whole: the entries inside it keep their synced state, which is
    /// what returns if the removal itself is lost.
    fn unlink(&mut self, path: &Path, dir: bool) -> io::Result<()> {
        if dir && self.model.non_atomic_dirs {
            return self.remove_tree(path);
        }
        self.check(OpKind::Remove, &[path])?;
        let (d, name) = self.parent(path)?;
        match self.dir_mut(d).live.get(&name).copied() {
            Some(node) if matches!(node, Node::Dir(_)) == dir => {
                self.dir_mut(d).live.remove(&name);
                self.released(node);
                Ok(())
            }
            Some(_) => Err(io::Error::other("wrong kind of entry")),
            None => Err(not_found()),
        }
    }

    /// `remove_dir_all` as the real one runs: each file unlinked and each directory removed
    /// once empty, depth first, one mutating operation each, so a cut or a fault can stop it
    /// part way.
    fn remove_tree(&mut self, path: &Path) -> io::Result<()> {
        let Node::Dir(d) = self.lookup(path)? else {
            return Err(io::Error::other("wrong kind of entry"));
        };
        let children: Vec<(OsString, Node)> = self
            .dirs
            .get(&d)
            .map(|d| d.live.iter().map(|(n, k)| (n.clone(), *k)).collect())
            .unwrap_or_default();
        for (name, node) in children {
            let child = path.join(&name);
            match node {
                Node::Dir(_) => self.remove_tree(&child)?,
                Node::File(_) => {
                    self.check(OpKind::Remove, &[&child])?;
                    self.dir_mut(d).live.remove(&name);
                    self.released(node);
                }
            }
        }
        self.check(OpKind::Remove, &[path])?;
        let (p, name) = self.parent(path)?;
        self.dir_mut(p).live.remove(&name);
        self.released(Node::Dir(d));
        Ok(())
    }

    /// An entry was unlinked: its bytes become stale blocks, and with metadata charged, its
    /// space comes back.
    fn released(&mut self, node: Node) {
        let len = match node {
            Node::File(ino) => {
                let Some(f) = self.files.get(&ino) else {
                    return;
                };
                let tail = f.data.len().saturating_sub(STALE_POOL);
                let bytes = f.data[tail..].to_vec();
                let len = f.data.len() as u64;
                self.stale.extend_from_slice(&bytes);
                let over = self.stale.len().saturating_sub(STALE_POOL);
                self.stale.drain(..over);
                len
            }
            Node::Dir(_) => 0,
        };
        let cost = self.model.metadata_bytes;
        if let Some(free) = self.free.as_mut().filter(|_| cost > 0) {
            *free += len + cost;
        }
    }

    /// Takes the space a new file or directory's metadata uses (`ENOSPC` if it does not fit).
    fn charge_metadata(&mut self) -> io::Result<()> {
        let cost = self.model.metadata_bytes;
        match &mut self.free {
            Some(free) if cost > 0 => {
                if *free < cost {
                    return Err(io::Error::from_raw_os_error(libc::ENOSPC));
                }
                *free -= cost;
                Ok(())
            }
            _ => Ok(()),
        }
    }

    fn create(&mut self, path: &Path, exclusive: bool) -> io::Result<u64> {
        self.check(OpKind::Create, &[path])?;
        let (d, name) = self.parent(path)?;
        match self.dirs.get(&d).and_then(|d| d.live.get(&name)).copied() {
            Some(Node::File(_)) if exclusive => Err(io::ErrorKind::AlreadyExists.into()),
            Some(Node::File(ino)) => {
                let f = self.file_mut(ino)?;
                f.data.clear();
                f.diverged = true;
                f.kept = 0;
                f.modified = SystemTime::now();
                Ok(ino)
            }
            Some(Node::Dir(_)) => Err(io::Error::other("is a directory")),
            None => {
                self.charge_metadata()?;
                let ino = self.new_ino();
                self.files.insert(
                    ino,
                    MemFile {
                        data: Vec::new(),
                        durable: Vec::new(),
                        diverged: false,
                        overwritten: false,
                        kept: usize::MAX,
                        modified: SystemTime::now(),
                    },
                );
                self.dir_mut(d).live.insert(name, Node::File(ino));
                Ok(ino)
            }
        }
    }
}

/// The in-memory, fault-injecting file system. Clones share one tree.
#[derive(Debug, Clone)]
pub struct FaultFileSystem {
    state: Arc<Mutex<State>>,
}

impl Default for FaultFileSystem {
    fn default() -> Self {
        Self::new()
    }
}

impl FaultFileSystem {
    /// An empty file system holding only the root directory `/`.
    pub fn new() -> Self {
        let mut dirs = HashMap::new();
        dirs.insert(ROOT, Dir::default());
        FaultFileSystem {
            state: Arc::new(Mutex::new(State {
                dirs,
                files: HashMap::new(),
                next_ino: ROOT,
                faults: Vec::new(),
                injected: 0,
                mutations: 0,
                cut_at: None,
                dead: false,
                locks: HashMap::new(),
                next_lock: 0,
                free: None,
                model: FaultModel::default(),
                stale: Vec::new(),
                lies: Vec::new(),
                lie_rng: Rng::new(0x11e5),
                counts: HashMap::new(),
            })),
        }
    }

    fn lock_state(&self) -> MutexGuard<'_, State> {
        lock::lock(&self.state)
    }

    /// Arms `fault`. Several may be armed; each fires once.
    pub fn inject(&self, fault: Fault) {
        self.lock_state()
            .faults
            .push(PendingFault { fault, seen: 0 });
    }

    /// Disarms every fault not yet fired.
    pub fn clear_faults(&self) {
        self.lock_state().faults.clear();
    }

    /// Sets the simulated free space in bytes (`None`: unlimited, the default). Appends use it
    /// up; one that does not fit writes the bytes that fit and fails with `ENOSPC` (a full
    /// disk), until space is set again. [`FileSystem::space`] reports it.
    pub fn set_free_space(&self, bytes: Option<u64>) {
        self.lock_state().free = bytes;
    }

    /// The simulated free space (`None`: unlimited).
    pub fn free_space(&self) -> Option<u64> {
        self.lock_state().free
    }

    /// Turns on the failures of `model` beyond the prefix model (all off by default).
    /// `seed` seeds the lying disk's choices.
    pub fn set_model(&self, model: FaultModel, seed: u64) {
        let mut g = self.lock_state();
        g.model = model;
        g.lie_rng = Rng::new(seed);
    }

    /// The failures turned on.
    pub fn model(&self) -> FaultModel {
        self.lock_state().model.clone()
    }

    /// What lying syncs damaged so far: the file and the page, oldest first.
    pub fn lies(&self) -> Vec<(PathBuf, String)> {
        self.lock_state().lies.clone()
    }

    /// Operations attempted so far, per kind (failed ones included; none while the power is
    /// down).
    pub fn op_counts(&self) -> HashMap<OpKind, u64> {
        self.lock_state().counts.clone()
    }

    /// Faults fired so far.
    pub fn injected(&self) -> u64 {
        self.lock_state().injected
    }

    /// Mutating operations ([`OpKind::mutates`]) performed so far, failed ones included.
    pub fn mutations(&self) -> u64 {
        self.lock_state().mutations
    }

    /// The power fails at the `n`th mutating operation from now (1: the next one): it and
    /// every later operation of any kind fail with `EIO`, as if the machine had stopped, until
    /// [`FaultFileSystem::power_cut`] restarts it.
    pub fn cut_power_after(&self, n: u64) {
        let mut g = self.lock_state();
        g.cut_at = Some(g.mutations + n.max(1));
    }

    /// Whether the power has failed (every operation fails).
    pub fn is_down(&self) -> bool {
        self.lock_state().dead
    }

    /// Simulates a power cut and a restart: what was not synced is lost as `mode` says, locks
    /// are released, armed faults disarmed, and operations work again. Handles opened before
    /// stay usable but see the surviving state.
    pub fn power_cut(&self, mode: CutMode) {
        let mut g = self.lock_state();
        let mut rng = match mode {
            CutMode::DropUnsynced => None,
            CutMode::KeepRandom { seed } => Some(Rng::from_state(seed | 1)),
        };
        let mut dir_ids: Vec<u64> = g.dirs.keys().copied().collect();
        dir_ids.sort_unstable();
        for id in dir_ids {
            let Some(d) = g.dirs.get_mut(&id) else {
                continue;
            };
            let mut kept = d.durable.clone();
            if let Some(rng) = rng.as_mut() {
                let names: Vec<OsString> = d.live.keys().chain(d.durable.keys()).cloned().collect();
                for n in names {
                    let (live, durable) = (d.live.get(&n), d.durable.get(&n));
                    if live != durable && rng.below(2) == 0 {
                        match live {
                            Some(node) => kept.insert(n, *node),
                            None => kept.remove(&n),
                        };
                    }
                }
            }
            d.live = kept.clone();
            d.durable = kept;
        }
        let mut file_ids: Vec<u64> = g.files.keys().copied().collect();
        file_ids.sort_unstable();
        let model = g.model.clone();
        let stale = std::mem::take(&mut g.stale);
        for id in file_ids {
            let Some(f) = g.files.get_mut(&id) else {
                continue;
            };
            let kept = match rng.as_mut() {
                None => f.durable.clone(),
                Some(rng) => model::cut_file(
                    &model,
                    &f.durable,
                    &f.data,
                    model::Change {
                        diverged: f.diverged,
                        overwritten: f.overwritten,
                        kept: f.kept,
                    },
                    &stale,
                    rng,
                ),
            };
            f.data = kept.clone();
            f.durable = kept;
            f.diverged = false;
            f.overwritten = false;
            f.kept = usize::MAX;
        }
        g.stale = stale;
        g.dead = false;
        g.cut_at = None;
        g.faults.clear();
        g.locks.clear();
    }

    fn create_file(&self, path: &Path, exclusive: bool) -> io::Result<Box<dyn WritableFile>> {
        let ino = self.lock_state().create(path, exclusive)?;
        Ok(Box::new(MemWritable {
            state: self.state.clone(),
            ino,
            path: path.to_path_buf(),
            cursor: None,
        }))
    }

    fn open_writable(
        &self,
        path: &Path,
        cursor: Option<AtomicUsize>,
    ) -> io::Result<Box<dyn WritableFile>> {
        Ok(Box::new(MemWritable {
            state: self.state.clone(),
            ino: self.open_file(path)?,
            path: path.to_path_buf(),
            cursor,
        }))
    }

    /// The file `path` names, for an open (an `Open` fault point).
    fn open_file(&self, path: &Path) -> io::Result<u64> {
        let mut g = self.lock_state();
        g.check(OpKind::Open, &[path])?;
        match g.lookup(path)? {
            Node::File(ino) => Ok(ino),
            Node::Dir(_) => Err(io::Error::other("is a directory")),
        }
    }

    /// Bytes of `path` not yet synced, and whether its directory entry is not yet synced
    /// (`None` when it does not exist). For tests that check what a step made durable.
    pub fn unsynced(&self, path: &Path) -> Option<(usize, bool)> {
        let g = self.lock_state();
        let Ok(Node::File(ino)) = g.lookup(path) else {
            return None;
        };
        let f = g.files.get(&ino)?;
        let (d, name) = g.parent(path).ok()?;
        let entry_unsynced = g
            .dirs
            .get(&d)
            .is_none_or(|d| d.durable.get(&name) != Some(&Node::File(ino)));
        Some((f.data.len().saturating_sub(f.durable.len()), entry_unsynced))
    }
}

struct MemWritable {
    state: Arc<Mutex<State>>,
    ino: u64,
    path: PathBuf,
    /// Where the next write goes, for a file opened for overwriting (`None`: at the end).
    cursor: Option<AtomicUsize>,
}

impl MemWritable {
    fn lock_state(&self) -> MutexGuard<'_, State> {
        lock::lock(&self.state)
    }
}

impl WritableFile for MemWritable {
    fn append(&self, data: &[u8]) -> io::Result<()> {
        let mut g = self.lock_state();
        let res = g.check(OpKind::Append, &[&self.path]);
        if res.is_err() && g.dead {
            return res;
        }
        let len = g.file_mut(self.ino)?.data.len();
        let at = self
            .cursor
            .as_ref()
            .map_or(len, |c| c.load(Ordering::Relaxed).min(len));
        let mut part = if res.is_ok() {
            data
        } else if at < len {
            // A write over cached pages cut short stops where the kernel stopped copying: at a
            // page boundary of the file (about half way, or none of it).
            let page = g.model.page_size.max(1);
            let end = (at + data.len() / 2) / page * page;
            &data[..end.saturating_sub(at).min(data.len())]
        } else {
            &data[..data.len() / 2]
        };
        let mut res = res;
        if let Some(free) = g.free {
            // Only bytes past the end take space; an overwrite reuses the file's blocks.
            let grow = (at + part.len()).saturating_sub(len) as u64;
            let mut used = grow;
            if grow > free {
                part = &part[..part.len() - (grow - free) as usize];
                res = Err(io::Error::from_raw_os_error(libc::ENOSPC));
                used = free;
            }
            g.free = Some(free - used);
        }
        let f = g.file_mut(self.ino)?;
        let over = part.len().min(len - at);
        f.data[at..at + over].copy_from_slice(&part[..over]);
        f.data.extend_from_slice(&part[over..]);
        if over > 0 && at < f.durable.len() {
            // Synced bytes overwritten: what a cut keeps is no longer a prefix of the data.
            f.overwritten = true;
        }
        f.modified = SystemTime::now();
        if let Some(c) = &self.cursor {
            c.store(at + part.len(), Ordering::Relaxed);
        }
        res
    }

    fn truncate(&self, len: u64) -> io::Result<()> {
        let mut g = self.lock_state();
        g.check(OpKind::Truncate, &[&self.path])?;
        let f = g.file_mut(self.ino)?;
        let len = usize::try_from(len).unwrap_or(usize::MAX);
        if len < f.data.len() {
            let cut = (f.data.len() - len) as u64;
            let gone = f.data.split_off(len);
            if f.durable.len() > len {
                f.diverged = true;
                f.kept = f.kept.min(len);
            }
            f.modified = SystemTime::now();
            if let Some(free) = &mut g.free {
                *free += cut;
            }
            g.stale
                .extend_from_slice(&gone[gone.len().saturating_sub(STALE_POOL)..]);
            let over = g.stale.len().saturating_sub(STALE_POOL);
            g.stale.drain(..over);
        }
        if let Some(c) = &self.cursor {
            c.store(len, Ordering::Relaxed);
        }
        Ok(())
    }

    fn sync_data(&self) -> io::Result<()> {
        let mut g = self.lock_state();
        g.check(OpKind::Sync, &[&self.path])?;
        let model = g.model.clone();
        let lying = model.lying_disk.as_ref().filter(|l| {
            l.path_contains.is_empty() || self.path.to_string_lossy().contains(&l.path_contains)
        });
        if let Some(disk) = lying {
            let g = &mut *g;
            let f = g.files.get_mut(&self.ino).ok_or_else(not_found)?;
            let told = model::lie(disk, model.page_size, &f.durable, &f.data, &mut g.lie_rng);
            if let Some((bytes, what)) = told {
                f.durable = bytes;
                f.diverged = true;
                f.kept = 0;
                g.lies.push((self.path.clone(), what));
                return Ok(());
            }
        }
        let f = g.file_mut(self.ino)?;
        if f.diverged || f.overwritten || f.durable.len() > f.data.len() {
            f.durable = f.data.clone();
            f.diverged = false;
            f.overwritten = false;
            f.kept = usize::MAX;
        } else {
            let from = f.durable.len();
            let tail = f.data[from..].to_vec();
            f.durable.extend_from_slice(&tail);
        }
        Ok(())
    }
}

struct MemReadable {
    state: Arc<Mutex<State>>,
    ino: u64,
    path: PathBuf,
}

impl ReadableFile for MemReadable {
    fn len(&self) -> io::Result<u64> {
        let g = lock::lock(&self.state);
        if g.dead {
            return Err(eio());
        }
        Ok(g.files.get(&self.ino).ok_or_else(not_found)?.data.len() as u64)
    }

    fn read_exact_at(&self, buf: &mut [u8], offset: u64) -> io::Result<()> {
        let mut g = lock::lock(&self.state);
        g.check(OpKind::Read, &[&self.path])?;
        let f = g.files.get(&self.ino).ok_or_else(not_found)?;
        let src = usize::try_from(offset)
            .ok()
            .and_then(|o| f.data.get(o..)?.get(..buf.len()))
            .ok_or(io::ErrorKind::UnexpectedEof)?;
        buf.copy_from_slice(src);
        Ok(())
    }
}

struct MemLock {
    state: Arc<Mutex<State>>,
    path: PathBuf,
    token: u64,
}

impl FileLock for MemLock {}

impl Drop for MemLock {
    fn drop(&mut self) {
        let mut g = lock::lock(&self.state);
        if g.locks.get(&self.path) == Some(&self.token) {
            g.locks.remove(&self.path);
        }
    }
}

impl FileSystem for FaultFileSystem {
    fn create(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.create_file(path, false)
    }

    fn create_new(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.create_file(path, true)
    }

    fn open_append(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.open_writable(path, None)
    }

    fn open_overwrite(&self, path: &Path) -> io::Result<Box<dyn WritableFile>> {
        self.open_writable(path, Some(AtomicUsize::new(0)))
    }

    fn open(&self, path: &Path) -> io::Result<Arc<dyn ReadableFile>> {
        Ok(Arc::new(MemReadable {
            state: self.state.clone(),
            ino: self.open_file(path)?,
            path: path.to_path_buf(),
        }))
    }

    fn rename(&self, from: &Path, to: &Path) -> io::Result<()> {
        let mut g = self.lock_state();
        g.check(OpKind::Rename, &[from, to])?;
        let (fd, fname) = g.parent(from)?;
        let (td, tname) = g.parent(to)?;
        let node = g.dir_mut(fd).live.remove(&fname).ok_or_else(not_found)?;
        g.dir_mut(td).live.insert(tname, node);
        Ok(())
    }

    fn remove_file(&self, path: &Path) -> io::Result<()> {
        self.lock_state().unlink(path, false)
    }

    fn remove_dir_all(&self, path: &Path) -> io::Result<()> {
        self.lock_state().unlink(path, true)
    }

    fn create_dir_all(&self, path: &Path) -> io::Result<()> {
        let mut g = self.lock_state();
        let one_at_a_time = g.model.non_atomic_dirs;
        if !one_at_a_time {
            g.check(OpKind::CreateDir, &[path])?;
        }
        let mut dir = ROOT;
        let mut at = PathBuf::from("/");
        for n in names(path)? {
            at.push(&n);
            let next = g.dir_mut(dir).live.get(&n).copied();
            dir = match next {
                Some(Node::Dir(d)) => d,
                Some(Node::File(_)) => return Err(io::ErrorKind::AlreadyExists.into()),
                None => {
                    if one_at_a_time {
                        // `mkdir` of each missing directory, a cut point each.
                        g.check(OpKind::CreateDir, &[&at])?;
                    }
                    g.charge_metadata()?;
                    let d = g.new_ino();
                    g.dirs.insert(d, Dir::default());
                    g.dir_mut(dir).live.insert(n, Node::Dir(d));
                    d
                }
            };
        }
        Ok(())
    }

    fn exists(&self, path: &Path) -> bool {
        self.lock_state().lookup(path).is_ok()
    }

    fn list_dir(&self, path: &Path) -> io::Result<Vec<DirEntry>> {
        let mut g = self.lock_state();
        g.check(OpKind::List, &[path])?;
        let Node::Dir(d) = g.lookup(path)? else {
            return Err(io::Error::other("not a directory"));
        };
        let dir = g.dirs.get(&d).cloned().unwrap_or_default();
        Ok(dir
            .live
            .iter()
            .map(|(name, node)| DirEntry {
                name: name.clone(),
                is_dir: matches!(node, Node::Dir(_)),
                len: match node {
                    Node::File(ino) => g.files.get(ino).map_or(0, |f| f.data.len() as u64),
                    Node::Dir(_) => 0,
                },
            })
            .collect())
    }

    fn sync_dir(&self, path: &Path) -> io::Result<()> {
        let mut g = self.lock_state();
        g.check(OpKind::SyncDir, &[path])?;
        let Node::Dir(d) = g.lookup(path)? else {
            return Err(io::Error::other("not a directory"));
        };
        let dir = g.dir_mut(d);
        dir.durable = dir.live.clone();
        Ok(())
    }

    fn lock(&self, path: &Path) -> io::Result<Box<dyn FileLock>> {
        let mut g = self.lock_state();
        if g.dead {
            return Err(eio());
        }
        if g.locks.contains_key(path) {
            return Err(io::ErrorKind::WouldBlock.into());
        }
        if g.lookup(path).is_err() {
            // Created as `open(O_CREAT)` would; not counted as a mutation.
            let (d, name) = g.parent(path)?;
            let ino = g.new_ino();
            g.files.insert(
                ino,
                MemFile {
                    data: Vec::new(),
                    durable: Vec::new(),
                    diverged: false,
                    overwritten: false,
                    kept: usize::MAX,
                    modified: SystemTime::now(),
                },
            );
            g.dir_mut(d).live.insert(name, Node::File(ino));
        }
        g.next_lock += 1;
        let token = g.next_lock;
        g.locks.insert(path.to_path_buf(), token);
        Ok(Box::new(MemLock {
            state: self.state.clone(),
            path: path.to_path_buf(),
            token,
        }))
    }

    fn modified(&self, path: &Path) -> io::Result<SystemTime> {
        let g = self.lock_state();
        match g.lookup(path)? {
            Node::File(ino) => Ok(g.files.get(&ino).ok_or_else(not_found)?.modified),
            Node::Dir(_) => Ok(SystemTime::now()),
        }
    }

    fn space(&self, _path: &Path) -> io::Result<super::Space> {
        let g = self.lock_state();
        if g.dead {
            return Err(eio());
        }
        Ok(super::Space {
            available: g.free.unwrap_or(SIMULATED_TOTAL),
            total: SIMULATED_TOTAL,
        })
    }
}

#[cfg(test)]
mod tests;
