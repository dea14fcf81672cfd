//! Each seed application stores its tables' rowkey schemas as their `ROWKEY_SCHEMA` attribute
//! (issue 46), so the shell's `ROWKEY =>` reads, `describe` and the console's heat map decode
//! the keys the apps write: every row of every app table decodes with its table's schema,
//! embedded and through `ferrobase serve`, and the shell reads an app's row by its fields.

mod apps_harness;

use apps_harness::{app, binary, Server};
use ferrobase_client::Connection;
use ferrobase_engine::Scan;
use ferrobase_rowkey::Schema;
use std::io::Write;
use std::process::{Command, Stdio};

/// The app tables that carry a schema, with the one each must hold.
const TABLES: &[(&str, &str)] = &[
    ("behaviour_tall", "uid:u64dec10, ts:revts"),
    ("behaviour_wide", "uid:u64dec10"),
    ("files", "user:u32dec6, date:dec8, file:u32dec6"),
    ("files_by_date", "date:dec8, user:u32dec6, file:u32dec6"),
    (
        "hbase_gameCenter_log",
        "account:word/_, action:word/_, time:str19",
    ),
    ("mb_follow", "uid:u64dec10"),
    ("mb_post", "uid:u64dec10, ts:revtsdec"),
    ("mb_inbox", "uid:u64dec10"),
    ("mb_fanout", "ts:dec19, uid:u64dec10"),
    ("tb_animal", "id:u32dec4"),
    ("tb_shop", "id:u64dec8"),
    ("tb_item", "id:u64dec8"),
    ("tb_sale", "user:u64dec8, t:revts, product:u64dec8"),
    ("tb_user", "id:u64dec8"),
];

fn load_every_app(target: &[&str]) {
    let run = |a: &[&str]| {
        let mut args = vec![a[0]];
        args.extend_from_slice(target);
        args.extend_from_slice(&a[1..]);
        app(&args);
    };
    for scheme in ["tall", "wide"] {
        run(&[
            "behaviour-log",
            "--scheme",
            scheme,
            "record",
            "--uid",
            "7",
            "--item",
            "x",
            "--ts",
            "1000",
        ]);
    }
    run(&["file-search", "load-example"]);
    run(&["game-log", "load-sample"]);
    run(&["textbook", "load-example"]);
    run(&["microblog", "follow", "--user", "3", "--target", "1"]);
    run(&["microblog", "post", "--user", "1", "--text", "hello"]);
    run(&["microblog", "worker", "--once"]);
}

fn every_row_decodes(conn: &Connection) {
    let names = conn.list_tables().unwrap();
    for (table, want) in TABLES {
        let real = names
            .iter()
            .find(|n| n.eq_ignore_ascii_case(table))
            .unwrap_or_else(|| panic!("no table {table} in {names:?}"));
        let (_, attrs) = conn.table_attributes(real).unwrap().unwrap();
        let text = attrs
            .get("ROWKEY_SCHEMA")
            .unwrap_or_else(|| panic!("{table} has no ROWKEY_SCHEMA"));
        assert_eq!(text, *want, "{table}");
        let schema: Schema = text.parse().unwrap();
        let mut scanner = conn.table(real).scanner(Scan::new(), None).unwrap();
        let mut rows = 0;
        loop {
            let batch = scanner.next_batch(100).unwrap();
            if batch.is_empty() {
                break;
            }
            for r in batch {
                schema
                    .decode(r.row())
                    .unwrap_or_else(|e| panic!("{table}: row {:?}: {e}", r.row()));
                rows += 1;
            }
        }
        assert!(rows > 0 || *table == "mb_fanout", "{table} is empty");
    }
}

#[test]
fn app_tables_carry_their_rowkey_schemas_embedded() {
    let dir = tempfile::tempdir().unwrap();
    let data = dir.path().display().to_string();
    load_every_app(&["--data", &data]);
    every_row_decodes(&Connection::open(&format!("file:{data}")).unwrap());
}

#[test]
fn app_tables_carry_their_rowkey_schemas_through_a_server() {
    let server = Server::start();
    load_every_app(&["--connect", &server.url]);
    every_row_decodes(&Connection::open(&server.url).unwrap());
    // The shell reads an app's row by its key fields with the stored schema.
    let mut shell = Command::new(binary())
        .args(["shell", "--connect", &server.url])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    shell
        .stdin
        .take()
        .unwrap()
        .write_all(
            b"get 'files', {USER => 1, DATE => 20120914, FILE => 7}, 'info:category'\n\
              scan 'hbase_gameCenter_log', {ROWKEY => 'hbase_gameCenter_log', ACCOUNT => 'u52fa532aae9dc', ACTION => 'login', LIMIT => 1, COLUMNS => 'oneline:guid'}\n",
        )
        .unwrap();
    let out = shell.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("info:category") && stdout.contains("1 row(s)"),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        stdout.contains(
            " account=u52fa532aae9dc action=login time=\"2012-10-01 08:00:00\" column=oneline:guid"
        ),
        "{stdout}"
    );
}
