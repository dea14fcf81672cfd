//! `ferrobase --version` prints the crate's version: the Python wheel's test checks it from PATH.

use std::process::Command;

#[test]
fn version_flag_prints_the_crate_version() {
    for flag in ["--version", "-V"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
            .arg(flag)
            .output()
            .expect("run ferrobase");
        assert!(out.status.success(), "{flag}: {out:?}");
        assert_eq!(
            String::from_utf8_lossy(&out.stdout),
            format!("ferrobase {}\n", env!("CARGO_PKG_VERSION"))
        );
    }
}
