//! `disable_all`, `enable_all` and `drop_all` from a file or a pipe, as HBase's shell runs them
//! (checked against HBase 2.6.1's shell): the matching tables listed, the (y/n) question, no
//! answer, and the command failing as HBase's does, changing nothing. Answered confirmations:
//! the unit tests of `bulk_tables.rs` and `tests/shell/test_interactive.py`.

mod shell_harness;

use shell_harness::{shell, untimed};

/// Runs `script` in an embedded shell on `dir`; its output (without `Took` lines) and status.
fn run(dir: &tempfile::TempDir, args: &[&str], script: &str) -> (String, bool) {
    let d = dir.path().display().to_string();
    let mut all = args.to_vec();
    all.extend(["--data", &d]);
    let (out, ok) = shell(&all, script);
    (untimed(&out), ok)
}

#[test]
fn piped_confirmation_has_no_answer_and_changes_nothing_as_in_hbase() {
    let dir = tempfile::tempdir().unwrap();
    let (out, ok) = run(
        &dir,
        &[],
        "create 't1', 'f'\ncreate 't2', 'f'\ncreate 'other', 'f'\n\
         disable_all 't.*'\ny\nis_enabled 't1'\ndrop_all 'nothing.*'\n",
    );
    assert!(!ok);
    assert!(
        out.contains(
            "t1\nt2\n\nDisable the above 2 tables (y/n)?\n\n\
             ERROR: undefined method `chomp' for nil:NilClass\n\n\
             For usage try 'help \"disable_all\"'\n"
        ),
        "{out}"
    );
    // The `y` line is a statement of its own, as in HBase (where it is a NameError).
    assert!(
        out.contains("ERROR: undefined local variable or method `y'"),
        "{out}"
    );
    assert!(out.contains("true\n=> true\n"), "{out}");
    assert!(
        out.ends_with("No tables matched the regex nothing.*\n"),
        "{out}"
    );
    // With -n the shell stops at the failing confirmation.
    let (out, ok) = run(&dir, &["-n"], "enable_all 't.*'\nlist\n");
    assert!(!ok);
    assert!(out.contains("Enable the above 2 tables (y/n)?\n"), "{out}");
    assert!(!out.contains("TABLE"), "{out}");
}
