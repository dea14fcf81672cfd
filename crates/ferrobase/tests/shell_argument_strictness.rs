//! An argument the shell does not understand is an error, never a guess, and the same error
//! embedded and over `--connect` to `ferrobase serve`: for every command, an unknown option
//! key, an extra positional argument and a value of the wrong type fail with a message naming
//! the problem, and the failed statement wrote and changed nothing. Values HBase's `table.rb`
//! reads in its own way (`LIMIT => 0` is no limit) are read as it reads them, and `describe`
//! over `--connect` shows every family attribute, as embedded.

mod shell_harness;

use shell_harness::{serve, shell, untimed};

/// The table every case runs against, and the row it holds.
const SETUP: &str = "create 't', {NAME => 'f', VERSIONS => 3}\n\
    put 't', 'r1', 'f:q', 'v1'\n";

/// One statement the shell must refuse, and a fragment of the error it must print.
struct Case {
    statement: &'static str,
    error: &'static str,
}

const fn case(statement: &'static str, error: &'static str) -> Case {
    Case { statement, error }
}

/// For each command: an unknown option key, an extra positional argument, a wrongly typed
/// value (where the command takes options or typed values).
const CASES: &[Case] = &[
    // put
    case(
        "put 't', 'r2', 'f:q', 'v', {FOO => 1}",
        "put: option FOO is not supported",
    ),
    case(
        "put 't', 'r3', 'f:q', 'v', 10, 11",
        "put: unexpected argument an integer",
    ),
    case(
        "put 't', 'r4', 'f:q', 'v', 'abc'",
        "timestamp must be an integer",
    ),
    case(
        "put 't', 'r5', 'f:q', 'v', {TTL => 'x'}",
        "TTL must be an integer",
    ),
    // get
    case("get 't', 'r1', {COLUM => 'f'}", "unknown get option COLUM"),
    case(
        "get 't', 'r1', {VERSIONS => 'abc'}",
        "VERSIONS must be an integer",
    ),
    case(
        "get 't', 'r1', {VERSIONS => 0}",
        "versions must be positive",
    ),
    case(
        "get 't', 'r1', {FILTER => 5}",
        "FILTER must be a filter string, got an integer",
    ),
    case(
        "get 't', 'r1', {COLUMN => {'f' => 1}}",
        "COLUMNS must be specified as a String or an Array",
    ),
    // scan
    case(
        "scan 't', {STARTROW => 'a', FOO => 1}",
        "unknown scan option FOO",
    ),
    case(
        "scan 't', {}, 'x'",
        "wrong number of arguments (given 3, expected 1..2)",
    ),
    case("scan 't', {LIMIT => 'ten'}", "LIMIT must be an integer"),
    case(
        "scan 't', {FILTER => 5}",
        "FILTER must be a filter string, got an integer",
    ),
    case(
        "scan 't', {COLUMNS => 5}",
        "COLUMNS must be specified as a String or an Array",
    ),
    case(
        "scan 't', {REVERSED => 'maybe'}",
        "REVERSED must be true or false",
    ),
    // count
    case("count 't', {FOO => 1}", "unknown count option FOO"),
    case(
        "count 't', 'x', 'y'",
        "wrong number of arguments (given 3, expected 1..2)",
    ),
    case(
        "count 't', {INTERVAL => 'x'}",
        "INTERVAL must be an integer",
    ),
    case("count 't', 0", "divided by 0"),
    case(
        "count 't', {COLUMNS => 5}",
        "COLUMNS must be specified as a String or an Array",
    ),
    // delete, deleteall
    case(
        "delete 't', 'r1', 'f:q', {FOO => 1}",
        "delete: option FOO is not supported",
    ),
    case(
        "delete 't', 'r1', 'f:q', 5, 6",
        "delete: unexpected argument an integer",
    ),
    case(
        "delete 't', 'r1', 'f:q', 'x'",
        "timestamp must be an integer",
    ),
    case(
        "deleteall 't', {ROWPREFIXFILTER => 'r', FOO => 1}",
        "unknown deleteall option FOO",
    ),
    case(
        "deleteall 't', 'r1', 'f:q', 5, 6",
        "deleteall: unexpected argument an integer",
    ),
    case(
        "deleteall 't', 'r1', 'f:q', 'x'",
        "timestamp must be an integer",
    ),
    // incr, get_counter, append
    case(
        "incr 't', 'c1', 'f:n', {FOO => 1}",
        "incr: option FOO is not supported",
    ),
    case(
        "incr 't', 'c2', 'f:n', 1, 2",
        "incr: unexpected argument an integer",
    ),
    case(
        "incr 't', 'c3', 'f:n', 'abc'",
        "increment must be an integer",
    ),
    case(
        "get_counter 't', 'r1', 'f:q', 1",
        "wrong number of arguments (given 4, expected 3)",
    ),
    case(
        "append 't', 'r6', 'f:q', 'x', {FOO => 1}",
        "append: option FOO is not supported",
    ),
    case(
        "append 't', 'r7', 'f:q', 'x', {}, 1",
        "wrong number of arguments (given 6, expected 4..5)",
    ),
    case(
        "append 't', 'r8', 'f:q', 'x', 5",
        "options must be a hash, got an integer",
    ),
    // create
    case(
        "create 't2', 'f', {FOO => 1}",
        "table attribute FOO is not supported",
    ),
    case(
        "create 't3', {NAME => 'f', FOO => 1}",
        "unknown column family attribute FOO",
    ),
    case(
        "create 't4', {NAME => 'f', VERSIONS => 'abc'}",
        "VERSIONS expects an integer",
    ),
    case(
        "create 't5', 'f', SPLITS => 5",
        "SPLITS must be an array of split keys, got an integer",
    ),
    case("create 't6', 5", "is not of Hash or String type"),
    // alter
    case(
        "alter 't', {NAME => 'f', FOO => 1}",
        "unknown column family attribute FOO",
    ),
    case(
        "alter 't', {NAME => 'f', VERSIONS => 'abc'}",
        "VERSIONS expects an integer",
    ),
    case(
        "alter 't', 5",
        "alter argument must be a hash, got an integer",
    ),
    case(
        "alter 't', {METHOD => 'bogus', NAME => 'f'}",
        "Unknown method: bogus",
    ),
    // describe, list, exists, is_enabled, is_disabled, enable, disable, drop, truncate
    case(
        "describe 't', 'x'",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case("describe 5", "table name must be a string, got an integer"),
    case(
        "list 'a', 'b'",
        "wrong number of arguments (given 2, expected 0..1)",
    ),
    case("list 5", "pattern must be a string, got an integer"),
    case(
        "exists 't', 1",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "is_enabled 't', 1",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "is_disabled 't', 1",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "enable 't', 'x'",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "disable 't', 'x'",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "drop 't', 'x'",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "truncate 't', 'x'",
        "wrong number of arguments (given 2, expected 1)",
    ),
    case(
        "truncate_preserve 't', 'x'",
        "wrong number of arguments (given 2, expected 1)",
    ),
    // flush, compact, major_compact, split
    case(
        "flush 't', 'f', 'x'",
        "wrong number of arguments (given 3, expected 1..2)",
    ),
    case(
        "compact 't', 'f', 5",
        "compaction type must be a string, got an integer",
    ),
    case(
        "compact 't', 'f', 'SOMETIMES'",
        "No enum constant org.apache.hadoop.hbase.client.CompactType.SOMETIMES",
    ),
    case(
        "major_compact 't', 'f', 'NORMAL', 1",
        "wrong number of arguments (given 4, expected 1..3)",
    ),
    case(
        "split 't', 'r', 'x'",
        "wrong number of arguments (given 3, expected 1..2)",
    ),
    case(
        "split 't', 5",
        "split point must be a string, got an integer",
    ),
    // status, version, whoami, help
    case("status 'bogus'", "status: unknown format 'bogus'"),
    case("status 'simple', 'x'", "does not apply to format 'simple'"),
    case(
        "status 'a', 'b', 'c'",
        "wrong number of arguments (given 3, expected 0..2)",
    ),
    case(
        "version 1",
        "wrong number of arguments (given 1, expected 0)",
    ),
    case(
        "whoami 1",
        "wrong number of arguments (given 1, expected 0)",
    ),
    case(
        "help 'scan', 'x'",
        "wrong number of arguments (given 2, expected 0..1)",
    ),
];

/// What a shell on the table after every case must print: the seeded row only, the table's
/// schema as created, one region, and none of the tables the failed creates named.
const CHECK: &str = "scan 't'\n\
    describe 't'\n\
    is_enabled 't'\n\
    exists 't2'\n\
    exists 't3'\n\
    exists 't4'\n\
    exists 't5'\n\
    exists 't6'\n";

/// Runs `script` embedded and over `--connect` to a fresh `ferrobase serve`: (mode, output).
fn both_modes(script: &str) -> Vec<(&'static str, String)> {
    let embedded_dir = tempfile::tempdir().unwrap();
    let (embedded, _) = shell(
        &["--data", &embedded_dir.path().display().to_string()],
        script,
    );
    let served_dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(served_dir.path());
    let (remote, _) = shell(&["--connect", &url], script);
    vec![
        ("embedded", untimed(&embedded)),
        ("--connect", untimed(&remote)),
    ]
}

#[test]
fn every_command_refuses_unknown_keys_extra_arguments_and_wrong_types_in_both_modes() {
    let mut script = String::from(SETUP);
    script.push_str("scan 't'\ndescribe 't'\n");
    for (i, c) in CASES.iter().enumerate() {
        script.push_str(&format!("exists 'strict_case_{i}'\n{}\n", c.statement));
    }
    script.push_str("exists 'strict_case_end'\n");
    script.push_str(CHECK);
    let mut failures = Vec::new();
    for (mode, out) in both_modes(&script) {
        let (before, rest) = out
            .split_once("Table strict_case_0 does not exist")
            .unwrap();
        for (i, c) in CASES.iter().enumerate() {
            let next = if i + 1 == CASES.len() {
                "Table strict_case_end does not exist".to_string()
            } else {
                format!("Table strict_case_{} does not exist", i + 1)
            };
            let start = if i == 0 {
                0
            } else {
                rest.find(&format!("Table strict_case_{i} does not exist"))
                    .unwrap()
            };
            let end = rest.find(&next).unwrap();
            let segment = &rest[start..end];
            let refused = segment
                .lines()
                .any(|l| l.starts_with("ERROR: ") && l.contains(c.error));
            if !refused {
                failures.push(format!(
                    "{mode}: `{}` should fail with an error containing {:?}; it printed:\n{segment}",
                    c.statement, c.error
                ));
            }
        }
        // Nothing written or changed: the table reads and describes as before the cases.
        let after = rest
            .split_once("Table strict_case_end does not exist")
            .unwrap()
            .1;
        let scan_and_describe = |text: &str| -> String {
            let from = text.find("ROW ").unwrap();
            let to = text.find("Quota is disabled").unwrap();
            text[from..to].to_string()
        };
        let shown_before = scan_and_describe(before);
        let shown_after = scan_and_describe(after);
        if shown_before != shown_after {
            failures.push(format!(
                "{mode}: a refused statement changed the table:\nbefore:\n{shown_before}\nafter:\n{shown_after}"
            ));
        }
        assert!(shown_after.contains("1 row(s)"), "{mode}: {shown_after}");
        for t in ["t2", "t3", "t4", "t5", "t6"] {
            if !after.contains(&format!("Table {t} does not exist")) {
                failures.push(format!("{mode}: a refused create made table {t}:\n{after}"));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn limit_and_batch_of_zero_or_less_read_every_row_as_hbase_table_rb_reads_them() {
    let script = "create 't', 'f'\n\
        put 't', 'a', 'f:q', '1'\n\
        put 't', 'b', 'f:q', '2'\n\
        put 't', 'c', 'f:q', '3'\n\
        scan 't', {LIMIT => -1}\n\
        scan 't', {LIMIT => 0}\n\
        scan 't', {BATCH => 0}\n\
        scan 't', {LIMIT => 2}\n\
        count 't', -2\n";
    for (mode, out) in both_modes(script) {
        let rows: Vec<&str> = out.lines().filter(|l| l.ends_with(" row(s)")).collect();
        assert_eq!(
            rows,
            ["3 row(s)", "3 row(s)", "3 row(s)", "2 row(s)", "3 row(s)"],
            "{mode}:\n{out}"
        );
        // A negative interval reports as its absolute value (Ruby's `count % -2 == 0`).
        assert!(out.contains("Current count: 2, row: b"), "{mode}:\n{out}");
        assert!(!out.contains("ERROR"), "{mode}:\n{out}");
    }
}

#[test]
fn describe_over_connect_shows_every_family_attribute_as_embedded() {
    let script = "create 'd', {NAME => 'f', TTL => 3600, VERSIONS => 4, MIN_VERSIONS => 1, \
        KEEP_DELETED_CELLS => 'TRUE', BLOOMFILTER => 'ROWCOL', COMPRESSION => 'GZ', \
        BLOCKSIZE => 32768, IN_MEMORY => true, DATA_BLOCK_ENCODING => 'PREFIX', \
        NEW_VERSION_BEHAVIOR => true}, {NAME => 'g'}\n\
        describe 'd'\n\
        alter 'd', {NAME => 'f', VERSIONS => 2}\n\
        alter 'd', {NAME => 'g', NEW_VERSION_BEHAVIOR => true, BLOCKSIZE => 16384}\n\
        alter 'd', {NAME => 'f', NEW_VERSION_BEHAVIOR => false}\n\
        describe 'd'\n";
    let modes = both_modes(script);
    let (embedded, remote) = (&modes[0].1, &modes[1].1);
    assert!(
        embedded.contains("MIN_VERSIONS => '1'")
            && embedded.contains("BLOCKSIZE => '16384 B (16KB)'"),
        "{embedded}"
    );
    assert!(!embedded.contains("ERROR"), "{embedded}");
    assert_eq!(embedded, remote, "describe differs over --connect");
}
