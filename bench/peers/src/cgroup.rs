//! A memory cgroup for an engine's process (`--memory-limit`): the kernel charges the process's
//! page cache to it, so data larger than the limit is read from disk as data larger than memory
//! would be, on a machine with more memory than that.

use anyhow::{bail, Context, Result};
use std::path::{Path, PathBuf};

/// The process's own memory cgroup, a child of the one it was in; it moves back to that one and
/// removes its own when dropped.
pub struct Limited {
    dir: PathBuf,
    parent: PathBuf,
}

/// The process's cgroup path in the hierarchy whose `/proc/self/cgroup` line `matches`.
fn own_group(matches: impl Fn(&str) -> bool) -> Option<String> {
    let text = std::fs::read_to_string("/proc/self/cgroup").ok()?;
    text.lines().find_map(|l| {
        let mut f = l.splitn(3, ':');
        let (_, controllers, path) = (f.next()?, f.next()?, f.next()?);
        matches(controllers).then(|| path.trim_start_matches('/').to_string())
    })
}

/// This process's memory cgroup directory and the file that limits a group's memory: cgroup
/// v1's memory hierarchy when mounted, else v2's unified one; `None` without either.
fn memory_hierarchy() -> Option<(PathBuf, &'static str)> {
    let v1 = Path::new("/sys/fs/cgroup/memory");
    let v2 = Path::new("/sys/fs/cgroup");
    if v1.join("memory.limit_in_bytes").exists() {
        let own = own_group(|c| c.split(',').any(|x| x == "memory")).unwrap_or_default();
        Some((v1.join(own), "memory.limit_in_bytes"))
    } else if std::fs::read_to_string(v2.join("cgroup.controllers"))
        .is_ok_and(|c| c.split_whitespace().any(|x| x == "memory"))
    {
        let own = own_group(str::is_empty).unwrap_or_default();
        Some((v2.join(own), "memory.max"))
    } else {
        None
    }
}

/// Removes the cgroup of a child process that ended without removing it (killed): the child
/// made it beside this process's own group ([`Limited::enter`]).
pub fn remove_left_by(child: u32) {
    if let Some((parent, _)) = memory_hierarchy() {
        let _ = std::fs::remove_dir(parent.join(format!("ferrobase-peer-{child}")));
    }
}

impl Limited {
    /// Creates a cgroup limited to `bytes` (memory and page cache) and moves this process into
    /// it: cgroup v1's memory hierarchy when mounted, else v2's unified one.
    pub fn enter(bytes: u64) -> Result<Limited> {
        let Some((parent, limit_file)) = memory_hierarchy() else {
            bail!(
                "--memory-limit needs a memory cgroup controller (v1 or v2) under /sys/fs/cgroup"
            );
        };
        let dir = parent.join(format!("ferrobase-peer-{}", std::process::id()));
        std::fs::create_dir(&dir)
            .with_context(|| format!("creating {} (--memory-limit needs root)", dir.display()))?;
        let limited = Limited {
            dir: dir.clone(),
            parent,
        };
        std::fs::write(dir.join(limit_file), bytes.to_string())
            .with_context(|| format!("setting {}", dir.join(limit_file).display()))?;
        std::fs::write(dir.join("cgroup.procs"), std::process::id().to_string())
            .with_context(|| format!("moving into {}", dir.display()))?;
        eprintln!("  cgroup: {} limited to {} MiB", dir.display(), bytes >> 20);
        Ok(limited)
    }
}

impl Drop for Limited {
    fn drop(&mut self) {
        // A cgroup with a process in it cannot be removed: move out first.
        let _ = std::fs::write(
            self.parent.join("cgroup.procs"),
            std::process::id().to_string(),
        );
        let _ = std::fs::remove_dir(&self.dir);
    }
}
