//! The command line on clap (issue 47): every command of clap's tree answers `--help` and
//! `ferrobase help COMMAND` (exit 0), a bad option exits 2 naming it, `docs/cli.md` is what the
//! binary's own definitions render, the completions print, and `-h` creates nothing.

use std::path::Path;
use std::process::{Command, Output};

fn ferrobase_in(dir: &Path, args: &[&str]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .current_dir(dir)
        .env_remove("FERROBASE_DATA")
        .env_remove("FERROBASE_CONNECT")
        .env_remove("FERROBASE_CONFIG")
        .output()
        .expect("run ferrobase")
}

fn ferrobase(args: &[&str]) -> Output {
    ferrobase_in(Path::new(env!("CARGO_MANIFEST_DIR")), args)
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// Every command path of clap's tree (`serve`, `bench engine`, ...), from the headings of the
/// markdown the binary renders by walking it.
fn commands() -> Vec<Vec<String>> {
    let out = ferrobase(&["help-markdown"]);
    assert!(out.status.success(), "{}", text(&out));
    let md = String::from_utf8(out.stdout).unwrap();
    let paths: Vec<Vec<String>> = md
        .lines()
        .filter_map(|l| l.strip_prefix("## ferrobase"))
        .map(|p| p.split_whitespace().map(String::from).collect())
        .collect();
    assert!(paths.len() > 15, "{paths:?}");
    paths
}

#[test]
fn every_command_answers_help() {
    for path in commands() {
        let words: Vec<&str> = path.iter().map(String::as_str).collect();
        for help in ["--help", "-h"] {
            let mut args = words.clone();
            args.push(help);
            let out = ferrobase(&args);
            assert!(out.status.success(), "{args:?}: {}", text(&out));
            let usage = format!(
                "Usage: {}",
                ["ferrobase"]
                    .iter()
                    .chain(&words)
                    .copied()
                    .collect::<Vec<_>>()
                    .join(" ")
            );
            assert!(text(&out).contains(&usage), "{args:?}: {}", text(&out));
        }
        if !words.is_empty() {
            let mut args = vec!["help"];
            args.extend(&words);
            let out = ferrobase(&args);
            assert!(out.status.success(), "{args:?}: {}", text(&out));
        }
    }
}

#[test]
fn a_bad_option_exits_2_naming_it() {
    for path in commands() {
        let mut args: Vec<&str> = path.iter().map(String::as_str).collect();
        args.push("--no-such-option");
        let out = ferrobase(&args);
        let t = text(&out);
        assert!(t.contains("--no-such-option"), "{args:?}: {t}");
        assert_eq!(out.status.code(), Some(2), "{args:?}: {t}");
    }
    // A bad value: clap's message names the option and what it takes.
    let out = ferrobase(&["serve", "--port", "http"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("--port"), "{}", text(&out));
    // The commands whose own code parses their options (HBase's spellings: `--new.name=`, `-D`)
    // exit 2 on a usage error too.
    for args in [
        &["copy", "a", "t", "b", "--bogus", "1"][..],
        &["copy", "a", "t"],
        &["export", "t"],
        &["export", "t", "out", "-D", "bogus.property=1"],
        &["import", "t"],
        &["import", "tsv", "t"],
        &["app", "textbook", "--bogus"],
        &["app", "no-such-app"],
    ] {
        let out = ferrobase(args);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", text(&out));
    }
    let out = ferrobase(&["no-such-command"]);
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    assert!(text(&out).contains("no-such-command"), "{}", text(&out));
}

#[test]
fn docs_cli_md_is_current() {
    let out = ferrobase(&["help-markdown"]);
    assert!(out.status.success(), "{}", text(&out));
    let want = String::from_utf8(out.stdout).unwrap();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/cli.md");
    let have = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        have == want,
        "docs/cli.md is not current: regenerate it with \
         `cargo run -p ferrobase -- help-markdown > docs/cli.md`"
    );
}

#[test]
fn completions_print_for_each_shell() {
    for shell in ["bash", "zsh", "fish"] {
        let out = ferrobase(&["completions", shell]);
        assert!(out.status.success(), "{shell}: {}", text(&out));
        let script = String::from_utf8_lossy(&out.stdout);
        assert!(
            script.contains("ferrobase") && script.contains("serve"),
            "{shell}"
        );
        assert!(script.contains("max-read-time"), "{shell}");
    }
    assert_eq!(ferrobase(&["completions", "tcsh"]).status.code(), Some(2));
}

#[test]
fn help_and_refusals_create_nothing() {
    let tmp = tempfile::tempdir().unwrap();
    for args in [
        &["shell", "-h"][..],
        &["shell", "--help"],
        &["serve", "-h"],
        &["serve", "--bogus"],
        &["app", "textbook", "--help"],
        &["study", "bogus"],
        &["export", "-h"],
        &["config", "show"],
        &["passwd", "--help"],
    ] {
        let out = ferrobase_in(tmp.path(), args);
        let left: Vec<_> = std::fs::read_dir(tmp.path())
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert!(left.is_empty(), "{args:?} created {left:?}: {}", text(&out));
    }
}

#[test]
fn passwd_help_is_help_not_a_user() {
    let out = ferrobase(&["passwd", "--help"]);
    assert!(out.status.success(), "{}", text(&out));
    assert!(text(&out).contains("Usage: ferrobase passwd <USER>"));
    assert_eq!(ferrobase(&["passwd"]).status.code(), Some(2));
}

#[test]
fn ferrobase_data_and_connect_stand_in_for_the_flags() {
    use std::io::Write;
    let tmp = tempfile::tempdir().unwrap();
    let run = |args: &[&str], env: &[(&str, &str)], stdin: &str| {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_ferrobase"));
        cmd.args(args)
            .current_dir(tmp.path())
            .env_remove("FERROBASE_DATA")
            .env_remove("FERROBASE_CONNECT")
            .stdin(std::process::Stdio::piped())
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped());
        for (k, v) in env {
            cmd.env(k, v);
        }
        let mut child = cmd.spawn().unwrap();
        child
            .stdin
            .take()
            .unwrap()
            .write_all(stdin.as_bytes())
            .unwrap();
        child.wait_with_output().unwrap()
    };
    let out = run(
        &["shell"],
        &[("FERROBASE_DATA", "from-env")],
        "create 't', 'f'\n",
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(tmp.path().join("from-env").is_dir());
    // The command line wins over the environment.
    let out = run(
        &["shell", "--data", "from-flag"],
        &[("FERROBASE_DATA", "from-env")],
        "list\n",
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(tmp.path().join("from-flag").is_dir());
    // export reads the same variable.
    let out = run(
        &["export", "t", "out"],
        &[("FERROBASE_DATA", "from-env")],
        "",
    );
    assert!(out.status.success(), "{}", text(&out));
    assert!(tmp.path().join("out/_SUCCESS").is_file());
    // A FERROBASE_CONNECT that is not a server's URL is refused, as --connect's.
    let out = run(
        &["shell"],
        &[("FERROBASE_CONNECT", "localhost:9090")],
        "list\n",
    );
    assert!(!out.status.success());
    assert!(text(&out).contains("thrift://HOST:PORT"), "{}", text(&out));
}
