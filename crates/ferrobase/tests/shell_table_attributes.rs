//! Table attributes through the shell, as HBase's `alter`/`create`/`describe`: set by name, by
//! `METADATA` and `CONFIGURATION`, removed by `table_att_unset`/`table_conf_unset`, printed by
//! `describe` in HBase 2.6's `TABLE_ATTRIBUTES` shape, persisted, and acting on the table
//! (`READONLY` refuses writes) — embedded and through `ferrobase serve` (whose gateway sends
//! them to `describe` through its admin extension).

mod shell_harness;

use shell_harness::{serve, shell, untimed};

const DESCRIBE_ROW: &str = "t, {TABLE_ATTRIBUTES => {DURABILITY => 'ASYNC_WAL', MAX_FILESIZE => \
    '1073741824 B (1GB)', MEMSTORE_FLUSHSIZE => '134217728 B (128MB)', READONLY => 'true', \
    METADATA => {'hbase.hstore.blockingStoreFiles' => '20', 'team' => 'search'}}}\n";

#[test]
fn alter_sets_table_attributes_and_describe_prints_them_as_hbase() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (out, ok) = shell(
        &["--data", &d],
        "create 't', 'f', MAX_FILESIZE => '1073741824', METADATA => {'team' => 'search'}\n\
         describe 't'\n\
         alter 't', READONLY => true, DURABILITY => 'ASYNC_WAL', MEMSTORE_FLUSHSIZE => 134217728, \
         CONFIGURATION => {'hbase.hstore.blockingStoreFiles' => '20'}, BOGUS => 1\n",
    );
    assert!(ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.contains(
            "Table t is ENABLED\nt, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '1073741824 B (1GB)', \
             METADATA => {'team' => 'search'}}}\nCOLUMN FAMILIES DESCRIPTION\n"
        ),
        "{out}"
    );
    // HBase ignores a key it does not know, saying so.
    assert!(
        out.contains(
            "Unknown argument ignored: BOGUS\nUpdating all regions with the new schema...\n1/1 regions updated.\nDone.\n"
        ),
        "{out}"
    );
    // A new process reads them back from the data directory.
    let (out, ok) = shell(&["--data", &d], "describe 't'\nput 't', 'r', 'f:q', 'v'\n");
    assert!(!ok, "{out}");
    assert!(out.contains(DESCRIBE_ROW), "{out}");
    assert!(
        out.contains("ERROR: region is read only: table t has READONLY => true\n"),
        "{out}"
    );
}

#[test]
fn table_att_unset_and_table_conf_unset_remove_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let d = dir.path().display().to_string();
    let (out, ok) = shell(
        &["--data", &d],
        "create 't', 'f', READONLY => true, DURABILITY => 'SKIP_WAL', \
         CONFIGURATION => {'hbase.hstore.blockingStoreFiles' => '20'}, METADATA => {'a' => '1'}\n\
         alter 't', METHOD => 'table_att_unset', NAME => 'READONLY'\n\
         put 't', 'r', 'f:q', 'v'\n\
         alter 't', METHOD => 'table_conf_unset', NAME => 'hbase.hstore.blockingStoreFiles'\n\
         alter 't', METHOD => 'table_att_unset', NAME => ['DURABILITY', 'a']\n\
         describe 't'\n",
    );
    assert!(ok, "{out}");
    assert!(
        out.contains("Table t is ENABLED\nt\nCOLUMN FAMILIES DESCRIPTION\n"),
        "{out}"
    );
    let (out, ok) = shell(
        &["--data", &d],
        "alter 't', METHOD => 'table_att_unset', NAME => 'DURABILITY'\n\
         alter 't', METHOD => 'table_conf_unset', NAME => 'hbase.hstore.blockingStoreFiles'\n\
         alter 't', MAX_FILESIZE => 'big'\n\
         alter 't', 'coprocessor$1' => 'x.jar|C|1|'\n\
         alter 't', NAME => 'g', MAX_FILESIZE => '1024'\n\
         alter 't', {NAME => 'g'}, {MAX_FILESIZE => '1024'}, METHOD => 'table_att_unset', NAME => 'PRIORITY'\n\
         describe 't'\n",
    );
    assert!(!ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.contains("ERROR: Could not find attribute: DURABILITY\n"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: Could not find configuration: hbase.hstore.blockingStoreFiles\n"),
        "{out}"
    );
    assert!(
        out.contains("MAX_FILESIZE expects an integer, got \"big\""),
        "{out}"
    );
    assert!(
        out.contains("ERROR: table attribute coprocessor$1 is not supported by ferrobase"),
        "{out}"
    );
    // Nothing of a failing statement applies: no family g, no MAX_FILESIZE.
    assert!(!out.contains("Updating all regions"), "{out}");
    assert!(
        out.contains("Table t is ENABLED\nt\nCOLUMN FAMILIES DESCRIPTION\n{NAME => 'f'"),
        "{out}"
    );
    assert!(out.ends_with("}\n\n1 row(s)\nQuota is disabled\n"), "{out}");
}

#[test]
fn table_attributes_through_a_ferrobase_server_act_on_the_table() {
    let dir = tempfile::tempdir().unwrap();
    let (server, url) = serve(dir.path());
    let (out, ok) = shell(
        &["--connect", &url],
        "create 't', 'f', METADATA => {'team' => 'search'}\n\
         alter 't', READONLY => 'true'\n\
         put 't', 'r', 'f:q', 'v'\n\
         alter 't', METHOD => 'table_att_unset', NAME => 'READONLY'\n\
         put 't', 'r', 'f:q', 'v'\n\
         alter 't', METHOD => 'table_att_unset', NAME => 'READONLY'\n",
    );
    assert!(!ok, "{out}");
    assert!(out.contains("read only"), "{out}");
    assert!(out.contains("Could not find attribute: READONLY"), "{out}");
    assert_eq!(out.matches("ERROR:").count(), 2, "{out}");
    drop(server);
    // The server stored them: an embedded shell on its directory describes them.
    let d = dir.path().display().to_string();
    let (out, ok) = shell(&["--data", &d], "describe 't'\n");
    assert!(ok, "{out}");
    assert!(
        out.contains("t, {TABLE_ATTRIBUTES => {METADATA => {'team' => 'search'}}}\n"),
        "{out}"
    );
}

#[test]
fn describe_over_connect_to_a_ferrobase_server_prints_the_table_attributes() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path());
    let (out, ok) = shell(
        &["--connect", &url],
        "create 't', 'f', MAX_FILESIZE => '134217728', METADATA => {'team' => 'search'}\n\
         describe 't'\n",
    );
    assert!(ok, "{out}");
    assert!(
        out.contains(
            "t, {TABLE_ATTRIBUTES => {MAX_FILESIZE => '134217728 B (128MB)', METADATA => \
             {'team' => 'search'}}}\n"
        ),
        "{out}"
    );
    // And HBase's table_conf_unset message, checked on the attributes the server sent.
    let (out, ok) = shell(
        &["--connect", &url],
        "alter 't', METHOD => 'table_conf_unset', NAME => 'nope'\n",
    );
    assert!(
        !ok && out.contains("ERROR: Could not find configuration: nope\n"),
        "{out}"
    );
}
