//! The shell's rowkey commands (`docs/design/rowkey.md`, "The shell"): named schemas,
//! `rowkey_encode`/`rowkey_decode`, and `scan` by named fields — over the seed articles' file
//! table (article 2) and a salted event table whose bucket scans merge back into key order.

mod shell_harness;

use ferrobase_rowkey::{Schema, Value};
use shell_harness::{embedded, no_timestamps, serve, shell, untimed};

const FILES: &str = "rowkey_schema 'files', 'user:u32dec6, date:dec8, file:u32dec6'\n\
    create 'files', 'f'\n\
    (1..9).each { |i| put 'files', \"0000012012091#{i}00000#{i}\", 'f:name', \"file#{i}\" }\n\
    put 'files', '00000220120912000001', 'f:name', 'other'\n";

#[test]
fn rowkey_encode_and_decode_against_a_named_schema() {
    let (out, ok) = embedded(
        "rowkey_schema 'files', 'user : u32dec6,date:dec8, file:u32dec6'\n\
         rowkey_schema 'files'\n\
         rowkey_encode 'files', {USER => 1, DATE => 20120902, FILE => 7}\n\
         rowkey_encode 'files', 'file=7 user=1 date=20120902'\n\
         rowkey_decode 'files', '00000120120902000007'\n\
         rowkey_schema 'posts', 'uid:u64, ts:revts'\n\
         rowkey_encode 'posts', {UID => 42, TS => 1700000000000}\n\
         rowkey_decode 'posts', \"\\x00\\x00\\x00\\x00\\x00\\x00\\x00*\\x7F\\xFF\\xFEt0\\x1A\\x97\\xFF\"\n\
         rowkey_schema\n",
    );
    assert!(ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.starts_with(
            "=> \"user:u32dec6, date:dec8, file:u32dec6\"\n=> \"user:u32dec6, date:dec8, file:u32dec6\"\n\
             \"00000120120902000007\"\n=> \"00000120120902000007\"\n\
             \"00000120120902000007\"\n=> \"00000120120902000007\"\n\
             user=000001 date=20120902 file=000007\n"
        ),
        "{out}"
    );
    // The printed key is the library's encoding, and reads back (decoded) as the same fields.
    let key: Schema = "uid:u64, ts:revts".parse().unwrap();
    let key = key
        .encode(&[Value::U64(42), Value::I64(1_700_000_000_000)])
        .unwrap();
    assert_eq!(key.len(), 16);
    assert!(
        out.contains("\"\\x00\\x00\\x00\\x00\\x00\\x00\\x00*\\x7F\\xFF\\xFEt0\\x1A\\x97\\xFF\"\n"),
        "{out}"
    );
    assert!(out.contains("uid=42 ts=1700000000000\n"), "{out}");
    assert!(
        out.contains(
            "SCHEMA\nfiles => 'user:u32dec6, date:dec8, file:u32dec6' (this session only)\n\
             posts => 'uid:u64, ts:revts' (this session only)\n2 row(s)\n"
        ),
        "{out}"
    );
}

#[test]
fn scan_by_named_fields_selects_the_key_range_and_prints_fields() {
    let (out, ok) = embedded(&format!(
        "{FILES}scan 'files', {{ROWKEY => 'files', USER => 1, FROM => 20120913, TO => 20120915}}\n\
         scan 'files', {{ROWKEY => 'files', USER => 2}}\n\
         scan 'files', {{ROWKEY => 'files', USER => 1, LIMIT => 2, COLUMNS => 'f:name'}}\n"
    ));
    assert!(ok, "{out}");
    let out = no_timestamps(&untimed(&out));
    assert!(
        out.contains(
            "ROW                               COLUMN+CELL\n \
             user=000001 date=20120913 file=000003 column=f:name, timestamp=T, value=file3\n \
             user=000001 date=20120914 file=000004 column=f:name, timestamp=T, value=file4\n \
             user=000001 date=20120915 file=000005 column=f:name, timestamp=T, value=file5\n3 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(" user=000002 date=20120912 file=000001 column=f:name, timestamp=T, value=other\n1 row(s)\n"),
        "{out}"
    );
    assert!(out.contains("value=file2\n2 row(s)\n"), "{out}");
}

#[test]
fn salted_schema_from_table_metadata_scans_every_bucket_in_key_order() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let schema: Schema = "b:salt:4(user), user:dec4, ts:revts".parse().unwrap();
    let mut script = String::from(
        "create 'events', 'e', METADATA => {'ROWKEY_SCHEMA' => 'b:salt:4(user), user:dec4, ts:revts'}\n",
    );
    for user in 1..=5u64 {
        for ts in [100i64, 200, 300] {
            let key = schema.encode(&[Value::U64(user), Value::I64(ts)]).unwrap();
            let escaped: String = key.iter().map(|b| format!("\\x{b:02X}")).collect();
            script.push_str(&format!(
                "put 'events', \"{escaped}\", 'e:q', 'u{user}t{ts}'\n"
            ));
        }
    }
    let (out, ok) = shell(&["--data", &d], &script);
    assert!(ok, "{out}");
    // Over a new process the schema comes from the table's metadata.
    let (out, ok) = shell(
        &["--data", &d],
        "scan 'events', {ROWKEY => 'events'}\n\
         scan 'events', {ROWKEY => 'events', USER => 3, FROM => 150, TO => 300}\n\
         scan 'events', {ROWKEY => 'events', LIMIT => 4}\n",
    );
    assert!(ok, "{out}");
    let out = no_timestamps(&untimed(&out));
    let values: Vec<&str> = out
        .lines()
        .filter_map(|l| l.split("value=").nth(1))
        .collect();
    let mut all = Vec::new();
    for user in 1..=5 {
        for ts in [300, 200, 100] {
            all.push(format!("u{user}t{ts}"));
        }
    }
    let mut expected: Vec<String> = all.clone();
    expected.extend(["u3t300".to_string(), "u3t200".to_string()]);
    expected.extend(all[..4].iter().cloned());
    assert_eq!(values, expected, "{out}");
    assert!(
        out.contains(" b=1 user=0003 ts=300 ") || out.contains(" user=0003 ts=300 "),
        "{out}"
    );
}

#[test]
fn rowkey_mistakes_are_errors_naming_the_field() {
    let (out, ok) = embedded(&format!(
        "{FILES}scan 'files', {{ROWKEY => 'files', DATE => 20120913}}\n\
         scan 'files', {{ROWKEY => 'files', USER => 1, STARTROW => 'a'}}\n\
         rowkey_encode 'files', {{USER => 1, DATE => 20120902}}\n\
         rowkey_encode 'files', {{USER => 1234567, DATE => 20120902, FILE => 1}}\n\
         rowkey_decode 'files', '0000012012'\n\
         rowkey_decode 'nope', 'x'\n\
         rowkey_schema 'bad', 'user:dec99'\n"
    ));
    assert!(!ok);
    let out = untimed(&out);
    for e in [
        "ERROR: ROWKEY scans take the first fields of the key: date is given but user before it is not\n",
        "ERROR: STARTROW cannot be combined with ROWKEY",
        "ERROR: field file is missing\n",
        "ERROR: field `user`",
        "ERROR: field `date` at offset 6",
        "ERROR: no rowkey schema named nope",
        "ERROR: invalid schema: field `user`: decimal width 99 is not 1 to 20",
    ] {
        assert!(out.contains(e), "{e}\n{out}");
    }
}

/// The files of [`FILES`] in a table whose schema is declared by `rowkey_schema` after it
/// exists, so it is stored in the table's metadata.
const STORED: &str = "create 'files', 'f'\n\
    rowkey_schema 'files', 'user:u32dec6, date:dec8, file:u32dec6'\n\
    (1..9).each { |i| put 'files', \"0000012012091#{i}00000#{i}\", 'f:name', \"file#{i}\" }\n\
    put 'files', '00000220120912000001', 'f:name', 'other'\n";

#[test]
fn schema_declared_on_a_table_persists_in_its_metadata() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (out, ok) = shell(
        &["--data", &d],
        &format!("{STORED}rowkey_schema 'scratch', 'id:u32dec6'\nrowkey_schema\n"),
    );
    assert!(ok, "{out}");
    assert!(
        untimed(&out).contains(
            "SCHEMA\nfiles => 'user:u32dec6, date:dec8, file:u32dec6'\n\
             scratch => 'id:u32dec6' (this session only)\n2 row(s)\n"
        ),
        "{out}"
    );
    // A new process: the table's schema is still there, the session's is gone; so is it
    // through a server, to a shell over --connect.
    let listing = "SCHEMA\nfiles => 'user:u32dec6, date:dec8, file:u32dec6'\n1 row(s)\n";
    let script = "rowkey_schema\nrowkey_decode 'files', '00000120120913000003'\n";
    let (out, ok) = shell(&["--data", &d], script);
    assert!(ok, "{out}");
    assert!(untimed(&out).contains(listing), "{out}");
    assert!(
        out.contains("user=000001 date=20120913 file=000003\n"),
        "{out}"
    );
    let (_server, url) = serve(dir.path());
    let (out, ok) = shell(&["--connect", &url], script);
    assert!(ok, "{out}");
    assert!(untimed(&out).contains(listing), "{out}");
    assert!(
        out.contains("user=000001 date=20120913 file=000003\n"),
        "{out}"
    );
    // Declared over --connect on another table, it is stored there too.
    let (out, ok) = shell(
        &["--connect", &url],
        "create 'posts', 'p'\nrowkey_schema 'posts', 'uid:u64, ts:revts'\n",
    );
    assert!(ok, "{out}");
    let (out, ok) = shell(&["--connect", &url], "rowkey_schema 'posts'\n");
    assert!(ok, "{out}");
    assert!(out.contains("=> \"uid:u64, ts:revts\"\n"), "{out}");
}

#[test]
fn describe_prints_the_rowkey_schema_embedded_and_over_connect() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (out, ok) = shell(
        &["--data", &d],
        &format!("{STORED}create 'plain', 'p'\nrowkey_schema 'plain', 'x:u64'\ndescribe 'files'\n"),
    );
    assert!(ok, "{out}");
    let expected = "Table files is ENABLED\n\
        files, {TABLE_ATTRIBUTES => {METADATA => {'ROWKEY_SCHEMA' => 'user:u32dec6, date:dec8, file:u32dec6'}}}\n\
        ROWKEY SCHEMA => 'user:u32dec6, date:dec8, file:u32dec6'\n\
        COLUMN FAMILIES DESCRIPTION\n";
    assert!(untimed(&out).contains(expected), "{out}");
    let (_server, url) = serve(dir.path());
    let (out, ok) = shell(&["--connect", &url], "describe 'files'\ndescribe 'plain'\n");
    assert!(ok, "{out}");
    let out = untimed(&out);
    assert!(out.contains(expected), "{out}");
    assert!(out.contains("ROWKEY SCHEMA => 'x:u64'\n"), "{out}");
    // A table without a schema describes as before: no such line.
    let (out, ok) = embedded("create 't', 'f'\ndescribe 't'\n");
    assert!(ok, "{out}");
    assert!(!out.contains("ROWKEY"), "{out}");
}

#[test]
fn count_takes_rowkey_fields_as_scan_does() {
    let (out, ok) = embedded(&format!(
        "{STORED}count 'files', {{ROWKEY => 'files', USER => 1, FROM => 20120913, TO => 20120915}}\n\
         count 'files', {{ROWKEY => 'files', USER => 2}}\n\
         count 'files', {{ROWKEY => 'files', USER => 1, INTERVAL => 4}}\n\
         count 'files', {{ROWKEY => 'files', USER => 3}}\n\
         count 'files', {{ROWKEY => 'files', DATE => 20120913}}\n"
    ));
    assert!(!ok, "the last count is an error: {out}");
    let counts: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("=> ") && l[3..].parse::<u64>().is_ok())
        .collect();
    assert_eq!(counts, ["=> 3", "=> 1", "=> 9", "=> 0"], "{out}");
    assert!(
        out.contains(
            "Current count: 4, row: user=000001 date=20120914 file=000004\n\
             Current count: 8, row: user=000001 date=20120918 file=000008\n9 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("ERROR: ROWKEY scans take the first fields of the key"),
        "{out}"
    );
}

#[test]
fn count_over_a_salted_schema_counts_every_bucket() {
    let schema: Schema = "b:salt:4(user), user:dec4, ts:revts".parse().unwrap();
    let mut script = String::from(
        "create 'events', 'e', METADATA => {'ROWKEY_SCHEMA' => 'b:salt:4(user), user:dec4, ts:revts'}\n",
    );
    for user in 1..=5u64 {
        for ts in [100i64, 200, 300] {
            let key = schema.encode(&[Value::U64(user), Value::I64(ts)]).unwrap();
            let escaped: String = key.iter().map(|b| format!("\\x{b:02X}")).collect();
            script.push_str(&format!("put 'events', \"{escaped}\", 'e:q', 'v'\n"));
        }
    }
    script.push_str(
        "count 'events', {ROWKEY => 'events'}\n\
         count 'events', {ROWKEY => 'events', USER => 3, FROM => 150, TO => 300}\n",
    );
    let (out, ok) = embedded(&script);
    assert!(ok, "{out}");
    let counts: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("=> ") && l[3..].parse::<u64>().is_ok())
        .collect();
    assert_eq!(counts, ["=> 15", "=> 2"], "{out}");
}

/// Against Apache HBase's Thrift1 gateway (`FERROBASE_HBASE_THRIFT=host:port`, as
/// `scripts/test.sh` sets it): the schema cannot be stored there, so it lasts for the session,
/// and the shell says so; `describe`, the listing and `count` use it.
#[test]
fn against_apache_hbase_a_tables_schema_lasts_for_the_session() {
    let Ok(hbase) = std::env::var("FERROBASE_HBASE_THRIFT") else {
        eprintln!("FERROBASE_HBASE_THRIFT is not set: the Apache HBase run is skipped");
        return;
    };
    let url = format!("thrift://{hbase}");
    let (out, ok) = shell(
        &["--connect", &url],
        "create 'rowkey_session', 'f'\n\
         rowkey_schema 'rowkey_session', 'user:u32dec6, date:dec8, file:u32dec6'\n\
         put 'rowkey_session', '00000120120913000003', 'f:name', 'x'\n\
         describe 'rowkey_session'\n\
         rowkey_schema\n\
         count 'rowkey_session', {ROWKEY => 'rowkey_session', USER => 1}\n\
         disable 'rowkey_session'\n\
         drop 'rowkey_session'\n",
    );
    assert!(ok, "{out}");
    let out = untimed(&out);
    for line in [
        "this gateway cannot store table attributes: rowkey_session's rowkey schema lasts for this session only\n",
        "rowkey_session\nROWKEY SCHEMA => 'user:u32dec6, date:dec8, file:u32dec6' (this session only)\n",
        "SCHEMA\nrowkey_session => 'user:u32dec6, date:dec8, file:u32dec6' (this session only)\n1 row(s)\n",
        "1 row(s)\n=> 1\n",
    ] {
        assert!(out.contains(line), "{line}\n{out}");
    }
}

#[test]
fn put_get_and_delete_take_a_row_by_its_key_fields() {
    let (out, ok) = embedded(&format!(
        "{STORED}put 'files', {{USER => 3, DATE => 20121001, FILE => 9}}, 'f:name', 'by fields'\n\
         get 'files', {{USER => 3, DATE => 20121001, FILE => 9}}\n\
         get 'files', '00000320121001000009', 'f:name'\n\
         incr 'files', {{USER => 3, DATE => 20121001, FILE => 9}}, 'f:hits', 2\n\
         get_counter 'files', {{USER => 3, DATE => 20121001, FILE => 9}}, 'f:hits'\n\
         append 'files', {{USER => 3, DATE => 20121001, FILE => 9}}, 'f:name', '!'\n\
         rowkey_schema 'other', 'file:u32dec6, user:u32dec6'\n\
         put 'files', {{ROWKEY => 'other', FILE => 1, USER => 2}}, 'f:name', 'named schema'\n\
         get 'files', '000001000002'\n\
         delete 'files', {{USER => 3, DATE => 20121001, FILE => 9}}, 'f:hits'\n\
         deleteall 'files', {{USER => 1, DATE => 20120911, FILE => 1}}\n\
         scan 'files', {{ROWKEY => 'files', USER => 1, FROM => 20120911, TO => 20120912}}\n\
         deleteall 'files', {{ROWPREFIXFILTER => '000003'}}\n\
         get 'files', {{USER => 3, DATE => 20121001, FILE => 9}}\n\
         put 'files', {{USER => 3, DATE => 20121001}}, 'f:name', 'x'\n\
         get 'files', {{USER => 3, DATE => 20121001, FILE => 9, SIZE => 1}}\n\
         put 'nope', {{USER => 1}}, 'f:name', 'x'\n"
    ));
    assert!(!ok);
    let out = no_timestamps(&untimed(&out));
    for want in [
        "COLUMN                            CELL\n f:name                           timestamp=T, value=by fields\n1 row(s)\n\
         COLUMN                            CELL\n f:name                           timestamp=T, value=by fields\n1 row(s)\n",
        "COUNTER VALUE = 2\nCOUNTER VALUE = 2\nCURRENT VALUE = by fields!\n",
        " f:name                           timestamp=T, value=named schema\n1 row(s)\n",
        "ROW                               COLUMN+CELL\n \
         user=000001 date=20120912 file=000002 column=f:name, timestamp=T, value=file2\n1 row(s)\n",
        "COLUMN                            CELL\n0 row(s)\n",
        "ERROR: field file is missing\n",
        "ERROR: rowkey schema has no field SIZE\n",
        "ERROR: no rowkey schema named nope",
    ] {
        assert!(out.contains(want), "{want}\n---\n{out}");
    }
}
