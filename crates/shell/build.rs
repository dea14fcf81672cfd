//! The build's revision and date (issue 47): `git rev-parse --short HEAD` and the commit's date,
//! or "unknown" outside a git checkout (a crate tarball, a source copy). `FERROBASE_REVISION`
//! and `FERROBASE_BUILD_DATE` in the build's environment win (a packager's own figures).

use std::process::Command;

fn git(args: &[&str]) -> Option<String> {
    let out = Command::new("git").args(args).output().ok()?;
    let s = String::from_utf8(out.stdout).ok()?.trim().to_string();
    (out.status.success() && !s.is_empty()).then_some(s)
}

fn main() {
    println!("cargo:rerun-if-env-changed=FERROBASE_REVISION");
    println!("cargo:rerun-if-env-changed=FERROBASE_BUILD_DATE");
    // Rebuilt when HEAD moves: HEAD itself, the branch it names, and packed refs.
    if let Some(dir) = git(&["rev-parse", "--git-dir"]) {
        println!("cargo:rerun-if-changed={dir}/HEAD");
    }
    if let (Some(common), Some(head)) = (
        git(&["rev-parse", "--git-common-dir"]),
        git(&["symbolic-ref", "-q", "HEAD"]),
    ) {
        let branch = format!("{common}/{head}");
        if std::path::Path::new(&branch).exists() {
            println!("cargo:rerun-if-changed={branch}");
        }
        println!("cargo:rerun-if-changed={common}/packed-refs");
    }
    let revision = std::env::var("FERROBASE_REVISION")
        .ok()
        .or_else(|| git(&["rev-parse", "--short", "HEAD"]))
        .unwrap_or_else(|| "unknown".to_string());
    let date = std::env::var("FERROBASE_BUILD_DATE")
        .ok()
        .or_else(|| {
            git(&[
                "log",
                "-1",
                "--format=%cd",
                "--date=format:%a %b %e %H:%M:%S UTC %Y",
            ])
        })
        .unwrap_or_else(|| "unknown".to_string());
    println!("cargo:rustc-env=FERROBASE_REVISION={revision}");
    println!("cargo:rustc-env=FERROBASE_BUILD_DATE={date}");
}
