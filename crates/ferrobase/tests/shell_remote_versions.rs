//! Over `--connect`, `get` and `scan` honour VERSIONS, TIMESTAMP and TIMERANGE as far as
//! HBase's Thrift1 API can carry them (a lower time bound is applied by the client, which is
//! exact: the newest versions below the upper bound that reach the lower one are the newest in
//! the range), print what the embedded shell prints; RAW, a multi-version scan and a lower
//! time bound combined with a filter go through a ferrobase server's `ferrobaseAdmin`
//! extension (refused with the reason through Apache HBase's gateway, which has none).

mod shell_harness;

use shell_harness::{no_timestamps, serve, shell, untimed};

const LOAD: &str = "create 't', {NAME => 'f', VERSIONS => 5}\n\
    put 't', 'r1', 'f:a', 'a10', 10\n\
    put 't', 'r1', 'f:a', 'a20', 20\n\
    put 't', 'r1', 'f:a', 'a30', 30\n\
    put 't', 'r1', 'f:b', 'b15', 15\n\
    put 't', 'r2', 'f:a', 'x5', 5\n\
    put 't', 'r3', 'f:a', 'y25', 25\n";

const READS: &str = "get 't', 'r1', {COLUMN => 'f:a', VERSIONS => 3}\n\
    get 't', 'r1', {VERSIONS => 2, TIMERANGE => [12, 30]}\n\
    get 't', 'r1', {TIMESTAMP => 20}\n\
    get 't', 'r1', {TIMESTAMP => 21}\n\
    get 't', 'r1', {COLUMN => 'f:a', TIMESTAMP => 10, VERSIONS => 3}\n\
    get 't', 'r1', {TIMERANGE => [16, 25]}\n\
    scan 't', {TIMERANGE => [12, 26]}\n\
    scan 't', {TIMESTAMP => 5}\n\
    scan 't', {TIMERANGE => [12, 26], LIMIT => 1}\n";

#[test]
fn versions_and_time_ranges_read_the_same_through_a_server_as_embedded() {
    let dir = tempfile::tempdir().unwrap();
    let embedded_dir = tempfile::tempdir().unwrap();
    let (embedded, ok) = shell(
        &["--data", &embedded_dir.path().display().to_string()],
        &format!("{LOAD}{READS}"),
    );
    assert!(ok, "{embedded}");
    let (_server, url) = serve(dir.path());
    let (remote, ok) = shell(&["--connect", &url], &format!("{LOAD}{READS}"));
    assert!(ok, "{remote}");
    assert_eq!(untimed(&remote), untimed(&embedded));
    let out = untimed(&remote);
    // Spot checks of the shared output.
    assert!(
        out.contains(
            " f:a                              timestamp=30, value=a30\n \
             f:a                              timestamp=20, value=a20\n \
             f:a                              timestamp=10, value=a10\n1 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            " f:a                              timestamp=20, value=a20\n \
             f:b                              timestamp=15, value=b15\n1 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains("COLUMN                            CELL\n0 row(s)\n"),
        "{out}"
    );
    assert!(
        out.contains(
            " r1                               column=f:a, timestamp=20, value=a20\n \
             r1                               column=f:b, timestamp=15, value=b15\n \
             r3                               column=f:a, timestamp=25, value=y25\n2 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            " r2                               column=f:a, timestamp=5, value=x5\n1 row(s)\n"
        ),
        "{out}"
    );
}

/// RAW and multi-version reads and a lower time bound under a filter (count's
/// FirstKeyOnlyFilter), which a Thrift1 `TScan` cannot carry, go through a ferrobase server's
/// `ferrobaseAdmin` extension and print what the embedded shell prints.
#[test]
fn raw_and_multi_version_scans_read_through_a_ferrobase_server_as_embedded() {
    let reads = "delete 't', 'r1', 'f:a', 20\n\
                 scan 't', {RAW => true}\nget 't', 'r1', {RAW => true}\n\
                 scan 't', {VERSIONS => 2}\nscan 't', {RAW => true, VERSIONS => 5}\n\
                 count 't', {TIMERANGE => [12, 26]}\n";
    let embedded_dir = tempfile::tempdir().unwrap();
    let (embedded, ok) = shell(
        &["--data", &embedded_dir.path().display().to_string()],
        &format!("{LOAD}{reads}"),
    );
    assert!(ok, "{embedded}");
    let dir = tempfile::tempdir().unwrap();
    let (_server, url) = serve(dir.path());
    let (remote, ok) = shell(&["--connect", &url], &format!("{LOAD}{reads}"));
    assert!(ok, "{remote}");
    assert_eq!(untimed(&remote), untimed(&embedded));
    let out = no_timestamps(&untimed(&remote));
    // The marker and the cell it masks, newest first.
    assert!(
        out.contains(
            " r1                               column=f:a, timestamp=T, type=Delete\n \
             r1                               column=f:a, timestamp=T, value=a20\n"
        ),
        "{out}"
    );
    assert!(out.contains("2 row(s)\n"), "{out}");
}
