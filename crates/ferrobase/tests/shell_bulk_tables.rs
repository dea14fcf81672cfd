//! `disable_all`, `enable_all` and `drop_all` as HBase's shell runs them: the matching tables
//! listed, the (y/n) question, the answer read from the next input line (a script's next line,
//! as Ruby's `gets`), per-table failures reported and counted, and input that ends before the
//! answer failing as in HBase (`-n` then exits 1).

mod shell_harness;

use shell_harness::{embedded, shell, untimed};

#[test]
fn disable_all_asks_then_disables_the_matching_tables() {
    let (out, ok) = embedded(
        "create 't1', 'f'\ncreate 't2', 'f'\ncreate 'other', 'f'\ndisable 't2'\n\
         disable_all 't.*'\ny\n\
         is_disabled 't1'\nis_enabled 'other'\n",
    );
    assert!(ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.contains(
            "t1\nt2\n\nDisable the above 2 tables (y/n)?\n\
             table:t2, error:org.apache.hadoop.hbase.TableNotEnabledException: t2\n\
             1 tables successfully disabled\n\
             1 tables not disabled due to an exception: t2\n"
        ),
        "{out}"
    );
    // The answer line was consumed, not run.
    assert!(!out.contains("ERROR"), "{out}");
    assert!(out.ends_with("true\n=> true\ntrue\n=> true\n"), "{out}");
}

#[test]
fn an_answer_without_y_changes_nothing_and_drop_all_drops_disabled_tables() {
    let (out, ok) = embedded(
        "create 'ns_a', 'f'\ncreate 'ns_b', 'f'\n\
         disable_all 'ns_.*'\nno\n\
         is_enabled 'ns_a'\n\
         disable_all 'ns_.*'\nYes please\n\
         drop_all 'ns_a'\nN\n\
         enable_all 'ns_b'\ny\n\
         drop_all 'ns_.*'\ny\n\
         list\n\
         drop_all 'nothing.*'\n",
    );
    assert!(ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.contains("Disable the above 2 tables (y/n)?\ntrue\n=> true\n"),
        "{out}"
    );
    assert!(out.contains("2 tables successfully disabled\n"), "{out}");
    assert!(
        out.contains("ns_a\n\nDrop the above 1 tables (y/n)?\nns_b\n"),
        "{out}"
    );
    assert!(out.contains("1 tables successfully enabled\n"), "{out}");
    assert!(
        out.contains(
            "table:ns_b, error:org.apache.hadoop.hbase.TableNotDisabledException: ns_b\n\
             1 tables successfully dropped\n\
             1 tables not dropped due to an exception: ns_b\nTABLE\nns_b\n1 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.ends_with("No tables matched the regex nothing.*\n"),
        "{out}"
    );
}

#[test]
fn input_ending_before_the_answer_fails_as_in_hbase() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (out, ok) = shell(
        &["-n", "--data", &d],
        "create 'a1', 'f'\ndisable_all 'a.*'\n",
    );
    assert!(!ok);
    assert!(
        out.contains("Disable the above 1 tables (y/n)?\n\nERROR: undefined method `chomp' for nil:NilClass\n\n"),
        "{out}"
    );
    assert!(!out.contains("For usage try"), "{out}");
    let (out, ok) = shell(&["--data", &d], "is_enabled 'a1'\n");
    assert!(ok && out.contains("true\n"), "{out}");
}
