//! `ferrobase --version` prints the crate's version and the build's git revision
//! (`ferrobase 0.1.0 (abc1234)`): the Python wheel's test checks the version from PATH.

use std::process::Command;

#[test]
fn version_flag_prints_the_crate_version() {
    for flag in ["--version", "-V"] {
        let out = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
            .arg(flag)
            .output()
            .expect("run ferrobase");
        assert!(out.status.success(), "{flag}: {out:?}");
        let line = String::from_utf8_lossy(&out.stdout);
        let revision = line
            .strip_prefix(&format!("ferrobase {} (", env!("CARGO_PKG_VERSION")))
            .and_then(|r| r.strip_suffix(")\n"))
            .unwrap_or_else(|| panic!("{flag}: {line:?}"));
        // These tests run in a checkout: the short hash of HEAD.
        assert!(
            revision.len() >= 7 && revision.bytes().all(|b| b.is_ascii_hexdigit()),
            "{flag}: {line:?}"
        );
    }
}
