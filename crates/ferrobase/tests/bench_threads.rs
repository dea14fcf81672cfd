//! `ferrobase bench threads` runs at a tiny size and prints both of its tables, a line for every
//! workload and count (its figures are not checked: a benchmark asserts nothing about time).

#![cfg(feature = "lab")]

use std::process::Command;

#[test]
fn bench_threads_prints_a_line_per_workload_and_count() {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["bench", "threads", "--rows", "500", "--value-len", "100"])
        .args(["--seconds", "0.05", "--reps", "2"])
        .args(["--threads", "1,3", "--connections", "2,5"])
        .arg("--dir")
        .arg(dir.path())
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("| workload  | threads |"), "{text}");
    assert!(text.contains("| workload  |   conns |"), "{text}");
    for workload in ["get", "scan100", "ycsb_a", "load"] {
        for count in [1, 3, 2, 5] {
            let line = format!("| {workload:<9} | {count:>7} |");
            assert!(text.contains(&line), "no line {line:?} in\n{text}");
        }
    }
    // The scratch directories are gone.
    assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 0);
}
