//! The process's own figures, read from Linux's `/proc/self` (absent elsewhere: `None`).

/// Resident set size in bytes (`VmRSS` of `/proc/self/status`).
pub fn resident_bytes() -> Option<u64> {
    let status = std::fs::read_to_string("/proc/self/status").ok()?;
    let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
    let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
    Some(kib * 1024)
}

/// File descriptors open now (entries of `/proc/self/fd`, less the one that lists them).
pub fn open_fds() -> Option<u64> {
    let n = std::fs::read_dir("/proc/self/fd").ok()?.count() as u64;
    Some(n.saturating_sub(1))
}

/// The most file descriptors the process may open (the soft `Max open files` limit).
pub fn max_fds() -> Option<u64> {
    let limits = std::fs::read_to_string("/proc/self/limits").ok()?;
    let line = limits.lines().find(|l| l.starts_with("Max open files"))?;
    line.split_whitespace().nth(3)?.parse().ok()
}

#[cfg(test)]
mod tests {
    #[test]
    fn reads_its_own_figures_on_linux() {
        if cfg!(target_os = "linux") {
            assert!(super::resident_bytes().unwrap() > 1 << 20);
            assert!(super::open_fds().unwrap() >= 3);
            assert!(super::max_fds().unwrap() > 0);
        }
    }
}
