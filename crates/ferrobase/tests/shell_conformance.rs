//! The shell's conformance suite (tests/shell/conformance/README.md): every example statement of
//! HBase's shell help texts for the commands ferrobase offers, run in order, one session per
//! file, embedded, over `--connect` to `ferrobase serve` and (with `FERROBASE_HBASE_THRIFT`) over
//! `--connect` to Apache HBase's Thrift1 gateway. Each example prints what HBase's own shell
//! printed (recorded in the files), or fails with the clear refusal its file names.

mod shell_harness;

use shell_harness::{serve, serve_with, shell};
use std::path::{Path, PathBuf};

/// One example of a help text, with what it must do.
struct Case {
    /// The statement's lines, as the help text writes them.
    statement: Vec<String>,
    /// The line of its `==` in the file.
    line: usize,
    setup: Vec<String>,
    /// HBase's shell's output (`|` lines).
    expected: Vec<String>,
    /// Refused in every mode, with an error containing this.
    refused: Option<String>,
    /// Refused over Apache's Thrift1 gateway, with an error containing this.
    apache_refused: Option<String>,
    /// Refused over `--connect` to either gateway (what Thrift1 cannot carry), with an error
    /// containing this.
    connect_refused: Option<String>,
    /// Only success is checked.
    unchecked: bool,
    /// ferrobase's output differs from HBase's in a documented way: only success is checked,
    /// and the case is counted apart.
    differs: bool,
    /// As `differs`, over `--connect` to Apache's gateway only.
    apache_differs: bool,
}

/// A conformance file: its cases and the statements that clean up after them.
struct Suite {
    path: PathBuf,
    cases: Vec<Case>,
    teardown: Vec<String>,
    /// Options of the `ferrobase serve` the file runs against over `--connect` (`serve` lines).
    serve_args: Vec<String>,
}

fn parse(path: &Path) -> Suite {
    let text = std::fs::read_to_string(path).unwrap();
    let mut cases: Vec<Case> = Vec::new();
    let mut teardown = Vec::new();
    let mut serve_args = Vec::new();
    for (n, line) in text.lines().enumerate() {
        let at = || format!("{}:{}", path.display(), n + 1);
        if let Some(s) = line.strip_prefix("== ") {
            cases.push(Case {
                statement: vec![s.to_string()],
                line: n + 1,
                setup: Vec::new(),
                expected: Vec::new(),
                refused: None,
                apache_refused: None,
                connect_refused: None,
                unchecked: false,
                differs: false,
                apache_differs: false,
            });
            continue;
        }
        if let Some(s) = line.strip_prefix("teardown ") {
            teardown.push(s.to_string());
            continue;
        }
        if let Some(s) = line.strip_prefix("serve ") {
            serve_args.extend(s.split_whitespace().map(str::to_string));
            continue;
        }
        if line.trim().is_empty() || line.starts_with('#') {
            continue;
        }
        let case = cases
            .last_mut()
            .unwrap_or_else(|| panic!("{}: a case line before any case", at()));
        if let Some(s) = line.strip_prefix(".. ") {
            case.statement.push(s.to_string());
        } else if let Some(s) = line.strip_prefix("setup ") {
            case.setup.push(s.to_string());
        } else if line == "|" {
            case.expected.push(String::new());
        } else if let Some(s) = line.strip_prefix("| ") {
            case.expected.push(s.to_string());
        } else if let Some(s) = line.strip_prefix("refused: ") {
            case.refused = Some(s.to_string());
        } else if let Some(s) = line.strip_prefix("apache-refused: ") {
            case.apache_refused = Some(s.to_string());
        } else if let Some(s) = line.strip_prefix("connect-refused: ") {
            case.connect_refused = Some(s.to_string());
        } else if line.starts_with("unchecked: ") {
            case.unchecked = true;
        } else if line.starts_with("differs: ") {
            case.differs = true;
        } else if line.starts_with("apache-differs: ") {
            case.apache_differs = true;
        } else if line.starts_with("not-recorded: ") {
            // Left out of the recording of HBase's output (record.py); nothing to check here.
        } else {
            panic!("{}: not a conformance line: {line}", at());
        }
    }
    Suite {
        path: path.to_path_buf(),
        cases,
        teardown,
        serve_args,
    }
}

fn suites() -> Vec<Suite> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shell/conformance");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "txt"))
        .collect();
    files.sort();
    assert!(
        !files.is_empty(),
        "no conformance files in {}",
        dir.display()
    );
    files.iter().map(|p| parse(p)).collect()
}

/// The session's statements: the teardown first (a clean start on a shared server), then each
/// case's setup and example behind an `exists` marker whose output (`Table
/// conformance_case_N does not exist`) separates the cases' outputs.
fn script(suite: &Suite) -> String {
    let mut s: String = suite.teardown.iter().map(|l| format!("{l}\n")).collect();
    for (i, c) in suite.cases.iter().enumerate() {
        s.push_str(&format!("exists 'conformance_setup_{i}'\n"));
        for l in &c.setup {
            s.push_str(&format!("{l}\n"));
        }
        s.push_str(&format!("exists 'conformance_case_{i}'\n"));
        for l in &c.statement {
            s.push_str(&format!("{l}\n"));
        }
    }
    s.push_str(&format!(
        "exists 'conformance_teardown_{}'\n",
        suite.cases.len()
    ));
    for l in &suite.teardown {
        s.push_str(&format!("{l}\n"));
    }
    s
}

/// Each case's output, by case index.
fn split(out: &str, cases: usize) -> Vec<Vec<String>> {
    let marker =
        regex::Regex::new(r"^Table conformance_(setup|case|teardown)_(\d+) does not exist$")
            .unwrap();
    let mut chunks = vec![Vec::new(); cases];
    let mut current: Option<usize> = None;
    let mut skip = false;
    for line in out.lines() {
        if let Some(m) = marker.captures(line) {
            current = (&m[1] == "case").then(|| m[2].parse().unwrap());
            skip = true;
            continue;
        }
        if skip && (line.starts_with("Took ") || line == "=> false") {
            continue;
        }
        skip = false;
        if let Some(i) = current {
            chunks[i].push(line.to_string());
        }
    }
    chunks
}

/// Lines as compared: no `Took` lines; timestamps as `timestamp=T` (ferrobase prints
/// milliseconds, HBase 2.4's shell an ISO-8601 time); runs of spaces as one (HBase pads its
/// columns to the terminal's width, ferrobase to 32 characters); no trailing blank lines.
fn normalized(lines: &[String]) -> Vec<String> {
    let ts = regex::Regex::new(r"timestamp=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?|\d+)").unwrap();
    let spaces = regex::Regex::new(r" {2,}").unwrap();
    let mut out: Vec<String> = lines
        .iter()
        .filter(|l| !l.starts_with("Took "))
        .map(|l| {
            let l = ts.replace_all(l.trim_end(), "timestamp=T");
            spaces.replace_all(&l, " ").into_owned()
        })
        .collect();
    while out.last().is_some_and(|l| l.is_empty()) {
        out.pop();
    }
    out
}

/// Where a session runs.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Mode {
    Embedded,
    Ferrobase,
    Apache,
}

/// Whether the case's output differs from HBase's in `mode` in a documented way.
fn differs(case: &Case, mode: Mode) -> bool {
    case.differs || (case.apache_differs && mode == Mode::Apache)
}

/// How a case passed.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
enum Outcome {
    /// HBase's output, line for line (normalized).
    SameAsHbase,
    /// A clear refusal, as the file says.
    Refused,
    /// Succeeded; its output is not compared (hosts, times).
    Unchecked,
    /// Succeeded with a documented difference of output.
    Differs,
}

/// Checks one case's output: how it passed, or why it fails.
fn check(case: &Case, mode: Mode, got: &[String]) -> Result<Outcome, String> {
    let failed = got.iter().any(|l| l.starts_with("ERROR: "));
    // The most specific refusal for the mode: Apache's gateway, either gateway, every mode.
    let refusal = match (&case.apache_refused, &case.connect_refused, &case.refused) {
        (Some(r), _, _) if mode == Mode::Apache => Some(r),
        (_, Some(r), _) if mode != Mode::Embedded => Some(r),
        (_, _, r) => r.as_ref(),
    };
    if let Some(text) = refusal {
        let joined = got.join("\n");
        return if failed && joined.to_lowercase().contains(&text.to_lowercase()) {
            Ok(Outcome::Refused)
        } else {
            Err(format!("expected a refusal naming {text:?}"))
        };
    }
    if case.unchecked || differs(case, mode) {
        return match (failed, case.unchecked) {
            (true, _) => Err("expected success".into()),
            (false, true) => Ok(Outcome::Unchecked),
            (false, false) => Ok(Outcome::Differs),
        };
    }
    if normalized(got) == normalized(&case.expected) {
        Ok(Outcome::SameAsHbase)
    } else {
        Err("output differs from HBase's".into())
    }
}

/// Runs every file in `mode`; panics listing the cases that fail, after printing the counts.
fn run(mode: Mode, target: Option<&str>) {
    let mut outcomes: std::collections::HashMap<Outcome, usize> = Default::default();
    let mut failures = Vec::new();
    let mut total = 0;
    for suite in suites() {
        let dir = tempfile::tempdir().unwrap();
        let script = script(&suite);
        let (out, server) = match mode {
            Mode::Embedded => (
                shell(&["--data", &dir.path().display().to_string()], &script).0,
                None,
            ),
            Mode::Ferrobase => {
                let args: Vec<&str> = suite.serve_args.iter().map(String::as_str).collect();
                let (server, url) = serve_with(dir.path(), &args);
                (shell(&["--connect", &url], &script).0, Some(server))
            }
            Mode::Apache => (shell(&["--connect", target.unwrap()], &script).0, None),
        };
        drop(server);
        let chunks = split(&out, suite.cases.len());
        for (case, got) in suite.cases.iter().zip(&chunks) {
            total += 1;
            match check(case, mode, got) {
                Ok(o) => *outcomes.entry(o).or_default() += 1,
                Err(why) => failures.push(format!(
                    "{}:{}: {}\n  {why}\n  expected:\n{}\n  got:\n{}",
                    suite.path.file_name().unwrap().to_string_lossy(),
                    case.line,
                    case.statement.join(" "),
                    indent(&normalized(&case.expected)),
                    indent(&normalized(got)),
                )),
            }
        }
    }
    let n = |o| outcomes.get(&o).copied().unwrap_or(0);
    eprintln!(
        "conformance ({mode:?}): {total} examples: {} print HBase's output, {} are refused \
         clearly, {} succeed unchecked, {} succeed with a documented difference, {} fail",
        n(Outcome::SameAsHbase),
        n(Outcome::Refused),
        n(Outcome::Unchecked),
        n(Outcome::Differs),
        failures.len()
    );
    assert!(
        failures.is_empty(),
        "{} of {total} examples fail:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

fn indent(lines: &[String]) -> String {
    lines
        .iter()
        .map(|l| format!("    {l}"))
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn help_examples_run_embedded_as_in_hbase() {
    run(Mode::Embedded, None);
}

#[test]
fn help_examples_run_over_connect_to_ferrobase_as_in_hbase() {
    run(Mode::Ferrobase, None);
}

#[test]
fn help_examples_run_over_connect_to_apache_hbase_or_are_refused() {
    let Ok(hbase) = std::env::var("FERROBASE_HBASE_THRIFT") else {
        eprintln!("FERROBASE_HBASE_THRIFT is not set: the Apache HBase run is skipped");
        return;
    };
    run(Mode::Apache, Some(&format!("thrift://{hbase}")));
}

/// Regression: `delete 't', 'r', 'family', ts` deleted every version up to `ts` (as
/// `deleteall` does); HBase's deletes the family's cells at exactly `ts` (`addFamilyVersion`).
#[test]
fn delete_of_a_family_at_a_timestamp_removes_only_that_version() {
    let (out, ok) = shell_harness::embedded(
        "create 't', {NAME => 'f', VERSIONS => 3}\n\
         put 't', 'r', 'f:a', 'one', 1\n\
         put 't', 'r', 'f:a', 'two', 2\n\
         put 't', 'r', 'f:b', 'three', 2\n\
         delete 't', 'r', 'f', 2\n\
         get 't', 'r', {COLUMN => 'f', VERSIONS => 3}\n",
    );
    assert!(ok, "{out}");
    assert!(out.contains("timestamp=1, value=one"), "{out}");
    assert!(
        !out.contains("value=two") && !out.contains("value=three"),
        "{out}"
    );
}

/// `create ... SPLITS` over `--connect` to a ferrobase server makes the regions, as embedded.
#[test]
fn create_with_splits_over_connect_to_ferrobase_makes_the_regions() {
    let dir = tempfile::tempdir().unwrap();
    let (server, url) = serve(dir.path());
    let (out, ok) = shell(
        &["--connect", &url],
        "create 't1', 'f1', SPLITS => ['30', '10', '20', '40', '20']\n",
    );
    assert!(ok && out.contains("Created table t1"), "{out}");
    let (out, ok) = shell(&["--connect", &url], "create 't2', 'f1', SPLITS => ['']\n");
    assert!(!ok && out.contains("split keys must not be empty"), "{out}");
    drop(server);
    let e = ferrobase_engine::Engine::open(dir.path(), ferrobase_engine::EngineOptions::default())
        .unwrap();
    let starts: Vec<Vec<u8>> = e
        .admin()
        .regions("t1")
        .unwrap()
        .into_iter()
        .map(|r| r.start)
        .collect();
    let want: Vec<Vec<u8>> = ["", "10", "20", "30", "40"]
        .iter()
        .map(|k| k.as_bytes().to_vec())
        .collect();
    assert_eq!(starts, want);
    let tables: Vec<String> = e
        .admin()
        .list_tables()
        .unwrap()
        .iter()
        .map(|t| t.to_string())
        .collect();
    assert_eq!(tables, ["t1"]);
}

#[test]
fn case_outputs_are_split_at_their_markers() {
    let out = "Table conformance_setup_0 does not exist\nTook 0.1 seconds\n=> false\nCreated table t1\n\
               Table conformance_case_0 does not exist\nTook 0.1 seconds\n=> false\n0 row(s)\nTook 0.2 seconds\n\
               Table conformance_teardown_1 does not exist\nDropped\n";
    assert_eq!(
        split(out, 1),
        vec![vec!["0 row(s)".to_string(), "Took 0.2 seconds".to_string()]]
    );
}
