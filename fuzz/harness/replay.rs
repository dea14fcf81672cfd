//! Replays a fuzz target's checked-in inputs under `cargo test`, so the inputs that once failed
//! stay fixed without a nightly toolchain: the seed corpus (`fuzz/corpus/<target>/`) and the
//! regressions (`fuzz/regressions/<target>/`). Included with `#[path]` by the engine's,
//! gateway's and binary's `fuzz_regressions.rs` tests, beside the target's harness.
//!
//! Only panics show here: a plain run cannot see a huge allocation that succeeds lazily (a
//! Snappy header once sized a 4 GiB buffer unseen), so allocation bounds are checked by the
//! fuzz script's AddressSanitizer pass (`-malloc_limit_mb`) and by the decoders' own tests. A
//! capping `#[global_allocator]` here would clash with the engine's mimalloc, which workspace
//! builds turn on.

#![allow(
    dead_code,
    reason = "each test binary that includes this shared module uses a part of it"
)]

use std::path::{Path, PathBuf};

/// The fuzz workspace at the repository's root.
pub fn fuzz_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../fuzz")
}

/// Every file in `fuzz/<kind>/<target>/` (`kind`: `corpus` or `regressions`), sorted; none
/// when the folder does not exist.
pub fn inputs(kind: &str, target: &str) -> Vec<PathBuf> {
    let Ok(dir) = std::fs::read_dir(fuzz_dir().join(kind).join(target)) else {
        return Vec::new();
    };
    let mut out: Vec<PathBuf> = dir
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.is_file())
        .collect();
    out.sort();
    out
}

/// How many inputs a replay ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Replayed {
    /// Seed corpus inputs.
    pub corpus: usize,
    /// Inputs that once failed.
    pub regressions: usize,
}

/// Runs `run` on every checked-in input of `target`; a panic names the input's file.
pub fn replay(target: &str, run: fn(&[u8])) -> Replayed {
    let mut counts = [0usize; 2];
    for (kind, count) in ["corpus", "regressions"].into_iter().zip(&mut counts) {
        for path in inputs(kind, target) {
            let data = std::fs::read(&path).unwrap();
            if std::panic::catch_unwind(|| run(&data)).is_err() {
                panic!("{target}: input {} fails", path.display());
            }
            *count += 1;
        }
    }
    Replayed {
        corpus: counts[0],
        regressions: counts[1],
    }
}
