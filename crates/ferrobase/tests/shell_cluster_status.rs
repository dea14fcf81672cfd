//! `version`, `whoami`, `status` and `list_regions` print HBase 2.x's shapes (its `version.rb`,
//! `whoami.rb`, `admin.rb` status formats and `list_regions.rb` table), embedded and through a
//! server.

mod shell_harness;

use shell_harness::{embedded, serve, shell, untimed};

fn script() -> &'static str {
    "create 't', 'f'\n\
     split 't', 'm'\n\
     put 't', 'a', 'f:q', 'v'\n\
     flush 't'\n\
     version\n\
     whoami\n\
     status\n\
     status 'simple'\n\
     status 'detailed'\n\
     list_regions 't'\n\
     list_regions 't', '', ['start_key', 'END_KEY', 'size']\n\
     list_regions 't', 'no-such-server'\n"
}

fn check_shapes(out: &str) {
    let lines: Vec<&str> = out.lines().collect();
    // `VERSION, rREVISION, DATE`: the build's git revision (these tests run in a checkout).
    let prefix = format!("{}, r", env!("CARGO_PKG_VERSION"));
    let version = lines
        .iter()
        .find_map(|l| l.strip_prefix(prefix.as_str()))
        .unwrap_or_else(|| panic!("no version line: {out}"));
    let (revision, date) = version.split_once(", ").expect("VERSION, rREVISION, DATE");
    assert!(
        revision.len() >= 7 && revision.bytes().all(|b| b.is_ascii_hexdigit()),
        "{out}"
    );
    assert!(!date.is_empty() && date != "unknown", "{out}");
    assert!(lines.iter().any(|l| l.ends_with(" (auth:SIMPLE)")), "{out}");
    assert!(
        lines
            .contains(&"1 active master, 0 backup masters, 1 servers, 0 dead, 2.0000 average load"),
        "{out}"
    );
    let simple = out
        .split("0 backup masters\n1 live servers\n")
        .nth(1)
        .unwrap();
    let simple: Vec<&str> = simple.lines().take(4).collect();
    assert!(
        simple[0].starts_with("    ") && simple[0].contains(':'),
        "{out}"
    );
    // HBase's keys in its order: the rate first, the request counts after the memstore.
    assert!(
        simple[1].starts_with("        requestsPerSecond=")
            && simple[1]
                .contains(", numberOfOnlineRegions=2, numberOfStores=2, numberOfStorefiles="),
        "{out}"
    );
    // One put, one flush: the heat map's rows and the job log's flush.
    assert!(
        simple[1].ends_with(", readRequestsCount=0, writeRequestsCount=1"),
        "{out}"
    );
    assert_eq!(
        simple[2..],
        ["0 dead servers", "Aggregate load: 0, regions: 2"],
        "{out}"
    );
    assert!(
        out.contains("0 regionsInTransition\nactive master:  "),
        "{out}"
    );
    assert!(
        out.contains("0 backup masters\nmaster coprocessors: []\n1 live servers\n"),
        "{out}"
    );
    assert!(out.contains("        \"t,m,"), "{out}");
    // The console's facts after HBase's lines: summary, simple and detailed.
    assert!(
        out.contains(
            "\nferrobase: 0.0 requests/s, 0 write suspensions, 0 flushes and compactions running"
        ),
        "{out}"
    );
    let facts = "write suspensions: 0 (wal_write=0, flush_write=0, low_disk_space=0, \
                 manifest_write=0)\n";
    assert_eq!(out.matches(facts).count(), 2, "{out}");
    assert_eq!(
        out.matches("\nflushes and compactions running: 0\nrecent flushes and compactions: 1 kept, newest first\n    flush t region ")
            .count(),
        2,
        "{out}"
    );
    assert!(out.contains(" [f] 0 files 0."), "{out}");
    assert!(out.contains(", requested, done\n"), "{out}");
    assert!(
        out.contains("            numberOfStores=1, numberOfStorefiles="),
        "{out}"
    );
    let header = lines
        .iter()
        .position(|l| l.trim_start().starts_with("SERVER_NAME |") && l.contains("REGION_NAME"))
        .unwrap();
    assert!(
        lines[header].ends_with("|       REQ |   LOCALITY |")
            || lines[header].ends_with("|   REQ |   LOCALITY |"),
        "{out}"
    );
    assert!(lines[header + 1].starts_with(" ---"), "{out}");
    assert!(
        lines[header + 2].contains(" |  t,,") || lines[header + 2].contains(" | t,,"),
        "{out}"
    );
    assert!(
        lines[header + 2].ends_with("|     0 |        1.0 |"),
        "{out}"
    );
    assert_eq!(lines[header + 4], " 2 rows", "{out}");
    assert!(
        out.contains(
            "  START_KEY |    END_KEY |  SIZE |\n ---------- | ---------- | ----- |\n            |          m |     0 |\n          m |            |     0 |\n 2 rows\n"
        ),
        "{out}"
    );
    assert!(out.contains(" ------------ | ------------ |"), "{out}");
    assert!(out.ends_with(" 0 rows\n"), "{out}");
}

#[test]
fn cluster_status_commands_print_hbase_shapes_embedded() {
    let (out, ok) = embedded(script());
    assert!(ok, "{out}");
    let out = untimed(&out);
    check_shapes(&out);
    // An embedded engine is this host, port 0.
    assert!(
        out.contains("active master:  ") && out.contains(":0 "),
        "{out}"
    );
}

#[test]
fn cluster_status_commands_print_hbase_shapes_through_a_server() {
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path());
    let (out, ok) = shell(&["--connect", &url], script());
    assert!(ok, "{out}");
    let out = untimed(&out);
    check_shapes(&out);
    // Through the server, its Thrift door's open scanners too (the shell's scans are closed).
    assert!(out.contains(", 0 open scanners\n"), "{out}");
    assert_eq!(out.matches("\nopen scanners: 0\n").count(), 2, "{out}");
    // The server is the one the served hbase:meta names (`info:sn`): the gateway's host, port
    // and start code, in status and in list_regions alike.
    let port = url.rsplit(':').next().unwrap();
    let master = out
        .lines()
        .find_map(|l| l.strip_prefix("active master:  "))
        .unwrap_or_else(|| panic!("{out}"));
    let (host_port, start_code) = master.split_once(' ').unwrap();
    assert!(host_port.ends_with(&format!(":{port}")), "{out}");
    assert_ne!(start_code, "0", "{out}");
    let (host, _) = host_port.rsplit_once(':').unwrap();
    assert!(
        out.contains(&format!("{host},{port},{start_code} |")),
        "{out}"
    );
}

#[test]
fn status_and_list_regions_refuse_what_hbase_refuses() {
    let (out, ok) = embedded(
        "create 't', 'f'\ndisable 't'\nlist_regions 't'\nstatus 'replication'\n\
         list_regions 't', '', ['bogus']\nlist_regions 't', {LOCALITY_THRESHOLD => 2.0}\n",
    );
    assert!(!ok);
    assert!(out.contains("ERROR: Table t must be enabled.\n"), "{out}");
    assert!(
        out.contains("ERROR: status 'replication': ferrobase has no replication\n"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: bogus is not a valid column. Possible values are SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY.\n"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: LOCALITY_THRESHOLD must be between 0 and 1.0, inclusive\n"),
        "{out}"
    );
}
