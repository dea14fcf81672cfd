//! The configuration file (issue 47): every key round-trips from `ferrobase.toml` to `ferrobase
//! config show`, every HBase alias sets the right setting in ferrobase's units, unknown keys and
//! HBase properties ferrobase has no setting for are refused naming them, and the command line
//! beats the environment, which beats the file, which beats the default.

use std::collections::BTreeMap;
use std::path::Path;
use std::process::{Command, Output};

fn ferrobase(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_ferrobase"));
    cmd.args(args).current_dir(dir);
    for var in [
        "FERROBASE_DATA",
        "FERROBASE_CONFIG",
        "FERROBASE_PORT",
        "FERROBASE_BIND",
        "FERROBASE_RPC_PORT",
        "FERROBASE_ZK_PORT",
        "FERROBASE_HTTP_PORT",
        "FERROBASE_THRIFT2_PORT",
        "FERROBASE_REST_PORT",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run ferrobase")
}

fn text(out: &Output) -> String {
    format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    )
}

/// As [`ferrobase`], killed (and failed) if it is still running after 20 s: a `serve` that
/// should have refused its configuration.
fn ferrobase_bounded(dir: &Path, args: &[&str]) -> Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(args)
        .current_dir(dir)
        .env_remove("FERROBASE_DATA")
        .env_remove("FERROBASE_CONFIG")
        .env_remove("FERROBASE_PORT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .expect("run ferrobase");
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(20);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            child.kill().unwrap();
            panic!("{args:?} is still running: the configuration was accepted");
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

/// `config show`'s rows: key → (value, source).
fn show(dir: &Path, args: &[&str], env: &[(&str, &str)]) -> BTreeMap<String, (String, String)> {
    let out = ferrobase(dir, &[&["config", "show"], args].concat(), env);
    assert!(out.status.success(), "{args:?}: {}", text(&out));
    String::from_utf8(out.stdout)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let mut f = l.split_whitespace();
            let key = f.next().unwrap().to_string();
            let value = f.next().unwrap().to_string();
            (key, (value, f.collect::<Vec<_>>().join(" ")))
        })
        .collect()
}

/// A value other than the default for every setting, as TOML and as `config show` prints it.
const EVERY_KEY: &[(&str, &str, &str)] = &[
    ("data", "\"d2\"", "d2"),
    ("bind", "\"127.0.0.2\"", "127.0.0.2"),
    ("port", "9190", "9190"),
    ("max-message", "1000001", "1000001"),
    ("max-request-memory", "1000002", "1000002"),
    ("max-inflight-memory", "1000003", "1000003"),
    ("max-connections", "17", "17"),
    ("max-result-bytes", "1000004", "1000004"),
    ("max-row-size", "1000005", "1000005"),
    ("max-cell-size", "1000006", "1000006"),
    ("idle-timeout", "600", "600"),
    ("frame-timeout", "2.5", "2.5"),
    ("handlers", "7", "7"),
    ("max-queued-calls", "70", "70"),
    ("call-queue-timeout", "9", "9"),
    ("max-read-time", "0", "0"),
    ("max-scanners-per-connection", "11", "11"),
    ("max-mutations-per-call", "12", "12"),
    ("scanner-lease", "13.5", "13.5"),
    ("tls-cert", "\"c.pem\"", "c.pem"),
    ("tls-key", "\"k.pem\"", "k.pem"),
    ("tls-client-ca", "\"ca.pem\"", "ca.pem"),
    ("auth-file", "\"users\"", "users"),
    ("acl", "true", "true"),
    ("superuser", "[\"alice\", \"bob\"]", "alice,bob"),
    ("insecure", "true", "true"),
    ("durability", "\"FSYNC_WAL\"", "FSYNC_WAL"),
    ("min-free-space", "0", "0"),
    ("no-auto-compaction", "true", "true"),
    ("compaction-sorted-runs", "true", "true"),
    ("compaction-tiers", "true", "true"),
    ("wal-recovery", "\"point-in-time\"", "point-in-time"),
    ("memstore-flush-size", "1000007", "1000007"),
    ("memory-budget", "100000013", "100000013"),
    ("global-memstore-limit", "1000008", "1000008"),
    ("block-cache-size", "1000009", "1000009"),
    ("memstore-chunk-size", "1000015", "1000015"),
    ("wal-segment-size", "1000010", "1000010"),
    ("max-wal-segments", "5", "5"),
    ("wal-recycled-segments", "3", "3"),
    ("region-split-size", "1000011", "1000011"),
    ("no-auto-split", "true", "true"),
    ("compaction-min-files", "4", "4"),
    ("compaction-max-files", "20", "20"),
    ("compaction-ratio", "2.5", "2.5"),
    ("compaction-min-size", "1000012", "1000012"),
    ("major-compaction-interval", "0", "0"),
    ("rpc-port", "16020", "16020"),
    ("advertise", "\"db.example\"", "db.example"),
    ("zk-port", "2181", "2181"),
    ("rpc-auth", "\"simple\"", "simple"),
    ("rpc-allow-plaintext", "true", "true"),
    ("rpc-hide-tables", "true", "true"),
    ("rpc-priority-handlers", "3", "3"),
    ("http-port", "16010", "16010"),
    ("thrift2-port", "9091", "9091"),
    ("rest-port", "8080", "8080"),
    ("rest-max-connections", "21", "21"),
    ("rest-max-scanners", "22", "22"),
    ("log-level", "\"debug\"", "debug"),
    ("slow-ms", "5", "5"),
    ("heatmap-bucket-secs", "7", "7"),
    ("max-open-files", "99", "99"),
    ("no-scan-read-ahead", "true", "true"),
];

#[test]
fn every_key_round_trips_from_the_file_to_config_show() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("every.toml");
    let body: String = EVERY_KEY
        .iter()
        .map(|(k, v, _)| format!("{k} = {v}\n"))
        .collect();
    std::fs::write(&file, body).unwrap();
    let rows = show(tmp.path(), &["--config", file.to_str().unwrap()], &[]);
    // Every setting `config show` lists is in this test's table.
    let listed: Vec<&String> = rows.keys().filter(|k| *k != "config").collect();
    let covered: Vec<String> = EVERY_KEY.iter().map(|(k, _, _)| k.to_string()).collect();
    for k in &listed {
        assert!(covered.contains(k), "the test sets no value for {k}");
    }
    for (key, _, want) in EVERY_KEY {
        let (value, source) = &rows[*key];
        assert_eq!(value, want, "{key}");
        assert!(source.starts_with("file "), "{key}: {source}");
    }
    assert_eq!(rows["config"].1, "command line");
}

/// Each HBase alias (from `ferrobase config aliases`) sets its setting, in ferrobase's units.
#[test]
fn every_hbase_alias_sets_its_setting() {
    let tmp = tempfile::tempdir().unwrap();
    let out = ferrobase(tmp.path(), &["config", "aliases"], &[]);
    assert!(out.status.success(), "{}", text(&out));
    let listing = String::from_utf8(out.stdout).unwrap();
    // (HBase property, value in HBase's units, ferrobase's key, value in ferrobase's units)
    let cases: &[(&str, &str, &str, &str)] = &[
        (
            "hbase.hregion.memstore.flush.size",
            "67108864",
            "memstore-flush-size",
            "67108864",
        ),
        (
            "hbase.hregion.memstore.mslab.chunksize",
            "1048576",
            "memstore-chunk-size",
            "1048576",
        ),
        (
            "hbase.hregion.max.filesize",
            "1073741824",
            "region-split-size",
            "1073741824",
        ),
        (
            "hbase.client.scanner.timeout.period",
            "1500",
            "scanner-lease",
            "1.5",
        ),
        ("hbase.regionserver.handler.count", "12", "handlers", "12"),
        ("hbase.thrift.maxWorkerThreads", "13", "handlers", "13"),
        (
            "hbase.regionserver.metahandler.count",
            "4",
            "rpc-priority-handlers",
            "4",
        ),
        (
            "hbase.ipc.server.max.callqueue.length",
            "41",
            "max-queued-calls",
            "41",
        ),
        (
            "hbase.thrift.maxQueuedRequests",
            "42",
            "max-queued-calls",
            "42",
        ),
        (
            "hbase.ipc.max.request.size",
            "268435456",
            "max-message",
            "268435456",
        ),
        (
            "hbase.hstore.compactionThreshold",
            "5",
            "compaction-min-files",
            "5",
        ),
        (
            "hbase.hstore.compaction.min",
            "6",
            "compaction-min-files",
            "6",
        ),
        (
            "hbase.hstore.compaction.max",
            "15",
            "compaction-max-files",
            "15",
        ),
        (
            "hbase.hstore.compaction.ratio",
            "1.5",
            "compaction-ratio",
            "1.5",
        ),
        (
            "hbase.hstore.compaction.min.size",
            "1048576",
            "compaction-min-size",
            "1048576",
        ),
        (
            "hbase.hregion.majorcompaction",
            "86400000",
            "major-compaction-interval",
            "86400",
        ),
        ("hbase.regionserver.maxlogs", "8", "max-wal-segments", "8"),
        (
            "hbase.client.keyvalue.maxsize",
            "2097152",
            "max-cell-size",
            "2097152",
        ),
        (
            "hbase.table.max.rowsize",
            "4194304",
            "max-row-size",
            "4194304",
        ),
        (
            "hbase.regionserver.thrift.ipaddress",
            "\"127.0.0.3\"",
            "bind",
            "127.0.0.3",
        ),
        ("hbase.regionserver.thrift.port", "9095", "port", "9095"),
        (
            "hbase.thrift.server.socket.read.timeout",
            "2500",
            "frame-timeout",
            "2.5",
        ),
        (
            "hbase.thrift.connection.max-idletime",
            "600000",
            "idle-timeout",
            "600",
        ),
        ("hbase.regionserver.port", "16021", "rpc-port", "16021"),
        (
            "hbase.regionserver.hostname",
            "\"rs.example\"",
            "advertise",
            "rs.example",
        ),
        (
            "hbase.zookeeper.property.clientPort",
            "2182",
            "zk-port",
            "2182",
        ),
        ("hbase.rest.port", "8081", "rest-port", "8081"),
        (
            "hbase.regionserver.info.port",
            "16030",
            "http-port",
            "16030",
        ),
        ("hbase.security.authorization", "true", "acl", "true"),
        (
            "hbase.superuser",
            "\"hbase,admin\"",
            "superuser",
            "hbase,admin",
        ),
        (
            "hbase.server.netty.tls.supportplaintext",
            "true",
            "rpc-allow-plaintext",
            "true",
        ),
    ];
    let aliases: Vec<&str> = listing
        .lines()
        .filter(|l| !l.contains(": refused:"))
        .map(|l| l.split(" = ").next().unwrap())
        .collect();
    let tested: Vec<&str> = cases.iter().map(|c| c.0).collect();
    assert_eq!(aliases, tested, "the aliases listed and those tested");
    for (alias, hbase_value, key, want) in cases {
        let file = tmp.path().join("alias.toml");
        // Quoted, as in a file that lists HBase's properties.
        std::fs::write(&file, format!("\"{alias}\" = {hbase_value}\n")).unwrap();
        let rows = show(tmp.path(), &["--config", file.to_str().unwrap()], &[]);
        let (value, source) = &rows[*key];
        assert_eq!(value, want, "{alias}");
        assert!(
            source.ends_with(&format!("(as {alias})")),
            "{alias}: {source}"
        );
    }
    // Dotted keys and tables are the same names.
    let file = tmp.path().join("dotted.toml");
    std::fs::write(
        &file,
        "hbase.hregion.memstore.flush.size = 1048576\n[hbase.hstore]\ncompactionThreshold = 7\n",
    )
    .unwrap();
    let rows = show(tmp.path(), &["--config", file.to_str().unwrap()], &[]);
    assert_eq!(rows["memstore-flush-size"].0, "1048576");
    assert_eq!(rows["compaction-min-files"].0, "7");
}

#[test]
fn unknown_keys_and_settings_ferrobase_lacks_are_refused() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("bad.toml");
    let cases: &[(&str, &[&str])] = &[
        ("max-read-tme = 3\n", &["max-read-tme", "max-read-time"]),
        (
            "\"hbase.hregion.memstore.flush.sise\" = 3\n",
            &[
                "hbase.hregion.memstore.flush.sise",
                "hbase.hregion.memstore.flush.size",
            ],
        ),
        (
            "\"hfile.block.cache.size\" = 0.4\n",
            &[
                "hfile.block.cache.size",
                "memory-budget",
                "block-cache-size",
            ],
        ),
        (
            "\"hbase.hstore.blockingStoreFiles\" = 16\n",
            &["hbase.hstore.blockingStoreFiles"],
        ),
        (
            "\"hbase.rpc.timeout\" = 60000\n",
            &["hbase.rpc.timeout", "client setting"],
        ),
        ("port = \"http\"\n", &["--port", "http"]),
        ("acl = 1\n", &["acl", "true or false"]),
        (
            "port = 9090\n\"hbase.regionserver.thrift.port\" = 9091\n",
            &["port"],
        ),
        ("not toml", &["not TOML"]),
    ];
    for (body, words) in cases {
        std::fs::write(&file, body).unwrap();
        for cmd in [&["config", "show"][..], &["serve", "--port", "0"]] {
            let out = ferrobase_bounded(
                tmp.path(),
                &[cmd, &["--data", "d", "--config", file.to_str().unwrap()]].concat(),
            );
            let t = text(&out);
            assert_eq!(out.status.code(), Some(2), "{body}: {t}");
            for w in *words {
                assert!(t.contains(w), "{body}: {w} not in {t}");
            }
        }
    }
    assert!(
        !tmp.path().join("d").exists(),
        "a refused file created the data directory"
    );
}

#[test]
fn command_line_beats_environment_beats_file_beats_default() {
    let tmp = tempfile::tempdir().unwrap();
    let data = tmp.path().join("data");
    std::fs::create_dir(&data).unwrap();
    // DATA_DIR/ferrobase.toml, read without --config.
    std::fs::write(
        data.join("ferrobase.toml"),
        "port = 9001\nrest-port = 8001\nhandlers = 5\n",
    )
    .unwrap();
    let d = data.to_str().unwrap();
    let rows = show(
        tmp.path(),
        &["--data", d, "--port", "9003"],
        &[("FERROBASE_PORT", "9002"), ("FERROBASE_REST_PORT", "8002")],
    );
    assert_eq!(rows["port"], ("9003".into(), "command line".into()));
    assert_eq!(
        rows["rest-port"],
        ("8002".into(), "environment FERROBASE_REST_PORT".into())
    );
    assert_eq!(rows["handlers"].0, "5");
    assert!(
        rows["handlers"].1.starts_with("file "),
        "{:?}",
        rows["handlers"]
    );
    assert_eq!(rows["slow-ms"], ("1000".into(), "default".into()));
    assert_eq!(rows["config"].1, "the data directory");
    // FERROBASE_DATA names the directory whose file is read.
    let rows = show(tmp.path(), &[], &[("FERROBASE_DATA", d)]);
    assert_eq!(rows["port"].0, "9001");
    assert_eq!(rows["data"].1, "environment FERROBASE_DATA");
}

#[test]
fn serve_runs_with_the_file_settings() {
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.toml");
    std::fs::write(
        &file,
        "\"hbase.regionserver.thrift.port\" = 0\nhandlers = 3\n",
    )
    .unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--data", "d", "--config", file.to_str().unwrap()])
        .current_dir(tmp.path())
        .env_remove("FERROBASE_PORT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let mut line = String::new();
    std::io::BufRead::read_line(
        &mut std::io::BufReader::new(child.stdout.take().unwrap()),
        &mut line,
    )
    .unwrap();
    child.kill().unwrap();
    let _ = child.wait();
    // Port 0 from the file: a free port, not 9090.
    assert!(
        line.contains("serving the HBase Thrift API on 127.0.0.1:"),
        "{line}"
    );
    assert!(!line.contains(":9090 "), "{line}");
}

/// The console's `/config` page lists the rows `config show` prints, with their sources.
#[test]
fn the_console_shows_the_effective_configuration() {
    use std::io::{BufRead, Read, Write};
    let tmp = tempfile::tempdir().unwrap();
    let file = tmp.path().join("f.toml");
    std::fs::write(&file, "\"hbase.regionserver.handler.count\" = 7\n").unwrap();
    let mut child = Command::new(env!("CARGO_BIN_EXE_ferrobase"))
        .args(["serve", "--port", "0", "--http-port", "0", "--data", "d"])
        .args(["--config", file.to_str().unwrap()])
        .current_dir(tmp.path())
        .env_remove("FERROBASE_HTTP_PORT")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut lines = std::io::BufReader::new(child.stdout.take().unwrap()).lines();
    let http = loop {
        let line = lines.next().expect("serve's port lines").unwrap();
        if let Some(rest) = line.strip_prefix("ferrobase serving HTTP (metrics) on ") {
            break rest.split_whitespace().next().unwrap().to_string();
        }
    };
    let mut conn = std::net::TcpStream::connect(&http).unwrap();
    conn.write_all(b"GET /config HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        .unwrap();
    let mut page = String::new();
    conn.read_to_string(&mut page).unwrap();
    child.kill().unwrap();
    let _ = child.wait();
    assert!(page.starts_with("HTTP/1.1 200"), "{page}");
    assert!(
        page.contains("<td><code>handlers</code></td><td><code>7</code></td><td>file ")
            && page.contains("(as hbase.regionserver.handler.count)"),
        "{page}"
    );
    assert!(
        page.contains("<td><code>http-port</code></td><td><code>0</code></td><td>command line"),
        "{page}"
    );
    assert!(page.contains("href=\"/config\""), "{page}");
}
