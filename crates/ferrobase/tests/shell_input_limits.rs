//! The shell cannot be crashed or stalled by its input (issue 39, item 4): every recursive
//! construct of its language has a depth limit, and an error naming it, not a stack overflow;
//! and a statement spread over many lines is read in linear time (lines are collected while a
//! bracket, brace, parenthesis or loop body is open, as irb does, and the statement is parsed
//! once), from a pipe and from a file alike.

mod shell_harness;

use shell_harness::run;
use std::time::{Duration, Instant};

/// What a run of `ferrobase shell --data DIR` on `input` did: standard output and error, the
/// exit code (`None`: killed by a signal, as a stack overflow is), and how long it took.
struct Ran {
    stdout: String,
    stderr: String,
    code: Option<i32>,
    took: Duration,
}

/// Runs `input` from standard input and, as a script file, from a file.
fn from_pipe_and_file(input: &str) -> [(&'static str, Ran); 2] {
    let ran = |args: &[&str], stdin: &str| {
        let t0 = Instant::now();
        let out = run(args, &[("RUST_BACKTRACE", "0")], stdin);
        Ran {
            stdout: String::from_utf8_lossy(&out.stdout).into_owned(),
            stderr: String::from_utf8_lossy(&out.stderr).into_owned(),
            code: out.status.code(),
            took: t0.elapsed(),
        }
    };
    let dir = tempfile::tempdir().unwrap();
    let data = |mode: &str| dir.path().join(mode).display().to_string();
    let script = dir.path().join("script.rb");
    std::fs::write(&script, input).unwrap();
    let piped = ran(&["shell", "--data", &data("piped")], input);
    let file = ran(
        &[
            "shell",
            "--data",
            &data("file"),
            &script.display().to_string(),
        ],
        "",
    );
    [("piped", piped), ("file", file)]
}

fn assert_refused(what: &str, ran: &Ran, limit: &str) {
    assert_eq!(
        ran.code,
        Some(1),
        "{what}: exit {:?} (a signal is a crash)\nstderr: {}",
        ran.code,
        &ran.stderr[..ran.stderr.len().min(2000)]
    );
    assert!(
        ran.stdout.contains(limit),
        "{what}: no error naming the limit ({limit}):\n{}",
        &ran.stdout[..ran.stdout.len().min(2000)]
    );
}

#[test]
fn nesting_100000_deep_is_an_error_naming_the_limit_not_a_crash() {
    const DEEP: usize = 100_000;
    let loops = "(1..1).each { |i| ";
    // (what, input, whether a statement follows the refused one and must still run)
    let cases = [
        ("loops on one line", loops.repeat(DEEP), false),
        (
            "loops one per line, closed",
            format!(
                "{}list\n{}exists 'after'\n",
                format!("{loops}\n").repeat(DEEP),
                "}\n".repeat(DEEP)
            ),
            true,
        ),
        ("arrays", format!("scan 't', {}", "[".repeat(DEEP)), false),
        (
            "hashes one per line",
            format!("scan 't', {}", "{COLUMNS =>\n".repeat(DEEP)),
            false,
        ),
    ];
    for (what, input, after) in cases {
        let limit = if what.starts_with("loops") {
            "loops nested more than 64 levels deep"
        } else {
            "arrays and hashes nested more than 64 levels deep"
        };
        for (mode, ran) in from_pipe_and_file(&input) {
            let what = format!("{what}, {mode}");
            assert_refused(&what, &ran, limit);
            if after {
                assert!(
                    ran.stdout.contains("=> false"),
                    "{what}: the statement after the refused one did not run:\n{}",
                    &ran.stdout[ran.stdout.len().saturating_sub(2000)..]
                );
            }
        }
    }
}

#[test]
fn ten_thousand_nested_loop_lines_are_read_in_seconds() {
    const DEEP: usize = 10_000;
    let input = format!(
        "{}  put 't', 'r', 'f:q', 'v'\n{}exists 'after'\n",
        "1.times do |i|\n".repeat(DEEP),
        "end\n".repeat(DEEP)
    );
    for (mode, ran) in from_pipe_and_file(&input) {
        eprintln!("{DEEP}-deep 1.times do |i| ... end, {mode}: {:?}", ran.took);
        assert_refused(mode, &ran, "loops nested more than 64 levels deep");
        assert!(ran.stdout.contains("=> false"), "{mode}: {}", ran.stdout);
        assert!(
            ran.took < Duration::from_secs(10),
            "{mode}: {:?} for {DEEP} nested lines",
            ran.took
        );
    }
}

#[test]
fn twenty_thousand_line_statements_are_read_in_seconds_and_loops_within_the_limit_run() {
    const LINES: usize = 20_000;
    let numbers: String = (0..LINES).map(|i| format!("  {i},\n")).collect();
    let text: String = (0..LINES).map(|i| format!("line {i} {{ [ (\n")).collect();
    let within = 60;
    let input = format!(
        "create 't', 'f'\n\
         put 't', 'packed', 'f:q', [\n{numbers}  {LINES}\n].pack('N*')\n\
         put 't', 'text', 'f:q', '{text}'\n\
         {}put 't', \"r#{{i}}\", 'f:q', 'v'\n{}\
         count 't'\n",
        "1.times do |i|\n".repeat(within),
        "end\n".repeat(within)
    );
    for (mode, ran) in from_pipe_and_file(&input) {
        eprintln!(
            "{LINES}-line statements and {within} nested loops, {mode}: {:?}",
            ran.took
        );
        assert_eq!(ran.code, Some(0), "{mode}: {}\n{}", ran.stdout, ran.stderr);
        assert!(ran.stdout.contains("3 row(s)"), "{mode}: {}", ran.stdout);
        assert!(
            ran.took < Duration::from_secs(10),
            "{mode}: {:?} for {LINES}-line statements",
            ran.took
        );
    }
}
