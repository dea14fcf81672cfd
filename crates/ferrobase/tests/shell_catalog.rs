//! `hbase:meta` and `hbase:namespace` through the shell (issue 27): read-only views of the
//! catalog at the moment of the read, laid out as HBase 2.x lays them out — one `table:state`
//! row per table, one row per region named `TABLE,STARTKEY,REGIONID.ENCODED.` with HBase's
//! `info:` columns, one `info:d` row per namespace — embedded and over `--connect` to
//! `ferrobase serve`; writes refused.

mod shell_harness;

use shell_harness::{serve, shell, untimed};

const SETUP: &str = "create 'm', 'f', SPLITS => ['k']\ncreate 'off', 'f'\ndisable 'off'\n";

fn region_names(out: &str) -> Vec<String> {
    out.lines()
        .filter_map(|l| l.split("NAME => '").nth(1))
        .filter_map(|l| l.split('\'').next())
        .map(str::to_string)
        .collect()
}

#[test]
fn hbase_meta_lists_every_region_and_table_state_as_hbase_2() {
    let dir = tempfile::tempdir().unwrap();
    let (server, url) = serve(dir.path());
    let embedded = tempfile::tempdir().unwrap();
    let data = embedded.path().display().to_string();
    for args in [vec!["--data", data.as_str()], vec!["--connect", &url]] {
        let (out, ok) = shell(
            &args,
            &format!(
                "{SETUP}scan 'hbase:meta'\ncount 'hbase:meta'\n\
                 scan 'hbase:meta', {{COLUMNS => 'info:regioninfo', STARTROW => 'm,k'}}\n\
                 get 'hbase:meta', 'off'\nlist_regions 'm', '', ['REGION_NAME']\n"
            ),
        );
        assert!(ok, "{args:?}: {out}");
        let out = untimed(&out);
        assert!(out.contains(" m  "), "{args:?}: {out}");
        assert!(
            out.contains("column=table:state, timestamp=") && out.contains("value=\\x08\\x00"),
            "{args:?}: {out}"
        );
        // The disabled table: TableState DISABLED, its region CLOSED.
        assert!(out.contains("value=\\x08\\x01"), "{args:?}: {out}");
        assert!(out.contains("value=CLOSED"), "{args:?}: {out}");
        for q in [
            "seqnumDuringOpen",
            "server",
            "serverstartcode",
            "sn",
            "state",
        ] {
            assert!(out.contains(&format!("column=info:{q}, ")), "{q}: {out}");
        }
        assert!(
            out.contains("STARTKEY => '', ENDKEY => 'k'}"),
            "{args:?}: {out}"
        );
        assert!(
            out.contains("STARTKEY => 'k', ENDKEY => ''}"),
            "{args:?}: {out}"
        );
        // Two tables and three regions: five rows; count agrees.
        assert!(out.contains("5 row(s)\n5 row(s)\n"), "{args:?}: {out}");
        // The region names are list_regions' names, and STARTROW picks m's second region.
        let names = region_names(&out);
        assert_eq!(names.len(), 3 + 2, "{args:?}: {out}");
        assert!(
            names[3].starts_with("m,k,") && names[3] == names[1],
            "{args:?}: {out}"
        );
        assert!(names[4].starts_with("off,,"), "{args:?}: {out}");
        let listed = out.split("REGION_NAME").nth(1).unwrap_or_default();
        assert!(
            listed.contains(&names[0]) && listed.contains(&names[1]),
            "{out}"
        );
        assert!(out.contains(" table:state "), "{args:?}: {out}");
        // Writes are refused, naming the view.
        let (out, ok) = shell(&args, "put 'hbase:meta', 'x', 'info:a', 'v'\n");
        assert!(!ok, "{out}");
        assert!(out.contains("ERROR: put: hbase:meta is read-only"), "{out}");
        let (out, _) = shell(&args, "disable 'm'\ndrop 'm'\ndisable 'off'\ndrop 'off'\n");
        assert!(!out.contains("ERROR"), "{out}");
    }
    drop(server);
}

#[test]
fn hbase_namespace_has_one_row_per_namespace_with_its_descriptor() {
    let dir = tempfile::tempdir().unwrap();
    let (server, url) = serve(dir.path());
    let embedded = tempfile::tempdir().unwrap();
    let data = embedded.path().display().to_string();
    for args in [vec!["--data", data.as_str()], vec!["--connect", &url]] {
        let (out, ok) = shell(
            &args,
            "create_namespace 'ns1'\nscan 'hbase:namespace'\nget 'hbase:namespace', 'ns1'\n\
             count 'hbase:namespace'\ndeleteall 'hbase:namespace', 'ns1'\n",
        );
        assert!(!ok, "{out}");
        let out = untimed(&out);
        for (ns, len) in [("default", 7), ("hbase", 5), ("ns1", 3)] {
            assert!(
                out.contains(&format!("value=\\x0A\\x{len:02}{ns}")),
                "{args:?} {ns}: {out}"
            );
        }
        assert!(out.contains("3 row(s)\nCOLUMN"), "{args:?}: {out}");
        assert!(out.contains(" info:d "), "{args:?}: {out}");
        assert!(
            out.contains("ERROR: deleteall: hbase:namespace is read-only"),
            "{args:?}: {out}"
        );
    }
    drop(server);
}

/// Over `--connect` the namespace commands read the served hbase:namespace (they were refused
/// before: HBase's Thrift1 API has no call listing namespaces).
#[test]
fn namespace_commands_over_connect_read_the_served_hbase_namespace() {
    let dir = tempfile::tempdir().unwrap();
    let (server, url) = serve(dir.path());
    let (out, ok) = shell(
        &["--connect", &url],
        "create_namespace 'ns1'\ncreate 'ns1:t1', 'f'\nlist_namespace\nlist_namespace 'n.*'\n\
         list_namespace_tables 'ns1'\ndescribe_namespace 'ns1'\ndescribe_namespace 'nope'\n",
    );
    assert!(!ok, "{out}");
    let out = untimed(&out);
    assert!(
        out.contains("NAMESPACE\ndefault\nhbase\nns1\n3 row(s)\n"),
        "{out}"
    );
    assert!(out.contains("NAMESPACE\nns1\n1 row(s)\n"), "{out}");
    assert!(out.contains("TABLE\nt1\n1 row(s)\n"), "{out}");
    assert!(out.contains("DESCRIPTION\n{NAME => 'ns1'}\n"), "{out}");
    assert!(out.contains("ERROR: Unknown namespace nope!"), "{out}");
    drop(server);
}
