//! Table references, as HBase's shell has them since 0.96: `t = create ...` / `t = get_table ...`
//! bind a variable, the table commands are its methods, `t.help` explains them, and variables
//! that are not table references are errors without a usage hint.

mod shell_harness;

use shell_harness::{embedded, no_timestamps, untimed};

#[test]
fn table_reference_methods_run_the_table_commands() {
    let (out, ok) = embedded(
        "t = create 't', 'f'\n\
         t.put 'r1', 'f:q', 'v1'\n\
         (1..2).each { |i| t.put \"x#{i}\", 'f:q', \"#{i}\" }\n\
         t.get 'r1'\n\
         t.incr 'c', 'f:n', 5\n\
         t.get_counter 'c', 'f:n'\n\
         t.append 'r1', 'f:q', '+'\n\
         t.delete 'x1', 'f:q'\n\
         t.deleteall 'x2'\n\
         t.scan\n\
         t.count\n",
    );
    assert!(ok, "{out}");
    let out = no_timestamps(&untimed(&out));
    assert!(
        out.starts_with("Created table t\n=> Hbase::Table - t\n"),
        "{out}"
    );
    assert!(
        out.contains("COLUMN                            CELL\n f:q                              timestamp=T, value=v1\n1 row(s)\n"),
        "{out}"
    );
    assert!(
        out.contains("COUNTER VALUE = 5\nCOUNTER VALUE = 5\n"),
        "{out}"
    );
    assert!(out.contains("CURRENT VALUE = v1+\n"), "{out}");
    assert!(
        out.contains(
            "ROW                               COLUMN+CELL\n \
             c                                column=f:n, timestamp=T, value=\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x05\n \
             r1                               column=f:q, timestamp=T, value=v1+\n2 row(s)\n"
        ),
        "{out}"
    );
    // HBase's `t.count` prints the count without returning it to irb (tests/shell/conformance).
    assert!(out.ends_with("2 row(s)\n"), "{out}");
}

#[test]
fn table_reference_admin_methods_describe_disable_and_drop() {
    let (out, ok) = embedded(
        "create 't', 'f', 'g'\n\
         t = get_table 't'\n\
         u = t\n\
         u.get_all_columns\n\
         t.describe\n\
         t.flush\n\
         t.disable\n\
         t.drop\n\
         exists 't'\n",
    );
    assert!(ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.contains("=> Hbase::Table - t\n=> Hbase::Table - t\n=> [\"f:\", \"g:\"]\nTable t is ENABLED\nt\nCOLUMN FAMILIES DESCRIPTION\n"),
        "{out}"
    );
    assert!(out.contains("Table t does not exist\n=> false\n"), "{out}");
}

#[test]
fn bare_reference_prints_its_value_without_took() {
    let (out, ok) = embedded("t = get_table 'later'\nt\n");
    assert!(ok, "{out}");
    // As irb: an assignment from a command is timed, a bare expression is not.
    assert_eq!(
        out.lines().filter(|l| l.starts_with("Took ")).count(),
        1,
        "{out}"
    );
    assert!(
        out.ends_with("=> Hbase::Table - later\n=> Hbase::Table - later\n"),
        "{out}"
    );
}

#[test]
fn table_reference_help_lists_the_methods_and_each_command() {
    let (out, ok) =
        embedded("t = get_table 't'\nt.help\nt.help 'scan'\nt.help 'nothing'\nhelp 'get_table'\n");
    assert!(ok, "{out}");
    assert!(out.contains("Help for table-reference commands."), "{out}");
    assert!(out.contains("ferrobase> t.help 'scan'"), "{out}");
    assert!(out.contains("scan: Scan rows"), "{out}");
    assert!(
        out.contains("Command 'nothing' does not exist. Please see general table help."),
        "{out}"
    );
    assert!(
        out.contains("get_table: Take a reference to a table"),
        "{out}"
    );
}

#[test]
fn reference_to_a_missing_table_fails_at_use_as_in_hbase() {
    let (out, ok) = embedded("t = get_table 'nope'\nt.get 'r'\nt.put 'r', 'f:q', 'v'\n");
    assert!(!ok);
    let out = untimed(&out);
    assert!(out.contains("=> Hbase::Table - nope\n"), "{out}");
    assert!(
        out.contains("ERROR: Unknown table nope!\n\nFor usage try 'help \"get\"'\n"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: Unknown table nope!\n\nFor usage try 'help \"put\"'\n"),
        "{out}"
    );
}

#[test]
fn undefined_variables_and_methods_are_name_errors() {
    let (out, ok) = embedded(
        "x.put 'r', 'f:q', 'v'\ny = list\nz = nothing\nt = get_table 't'\nt.truncate_all\n",
    );
    assert!(!ok);
    let out = untimed(&out);
    assert!(
        out.contains("ERROR: undefined local variable or method `x' for main:Object"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: ferrobase variables hold table references only: y = get_table 't' or y = create 't', 'f' (list does not return a table)\n"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: undefined local variable or method `nothing' for main:Object"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: undefined method `truncate_all' for Hbase::Table - t:Hbase::Table\n"),
        "{out}"
    );
    // A name error never reached a command: no usage hint.
    assert!(!out.contains("For usage try"), "{out}");
    // `y = list` was refused before it ran.
    assert!(!out.contains("TABLE\n"), "{out}");
}
