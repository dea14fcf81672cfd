//! Files of a data directory, for tests that look at what the engine wrote.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use std::path::{Path, PathBuf};

/// Every file under `dir` (recursively) whose name ends in `suffix`, sorted; none when `dir`
/// cannot be read.
pub fn files_with_suffix(dir: &Path, suffix: &str) -> Vec<PathBuf> {
    let mut out = Vec::new();
    collect(dir, suffix, &mut out);
    out.sort();
    out
}

fn collect(dir: &Path, suffix: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    for p in rd.flatten().map(|e| e.path()) {
        if p.is_dir() {
            collect(&p, suffix, out);
        } else if p.to_string_lossy().ends_with(suffix) {
            out.push(p);
        }
    }
}
