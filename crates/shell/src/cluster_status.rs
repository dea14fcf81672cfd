//! `version`, `whoami`, `status` and `list_regions` in the shapes of HBase 2.x's shell
//! (`version.rb`, `whoami.rb`, `admin.rb`'s `status`, `list_regions.rb`), with what ferrobase
//! knows in place of a cluster's numbers.
//!
//! ferrobase is one server: the "master" and the one "region server" are the same process —
//! the embedded engine (this host, port 0, started when the shell opened it) or, over
//! `--connect`, the server `hbase:meta` names as its regions' host (`info:sn`), read with the
//! regions from the meta the gateway serves (ferrobase's or Apache HBase's). Load lines list only what ferrobase measures
//! (regions, stores, store files, their sizes, memstore sizes), under HBase's key names and
//! in HBase's order; a key HBase prints that ferrobase has no figure for (heap, request
//! counts, index sizes) is left out rather than printed as a made-up zero. `list_regions`
//! keeps HBase's columns: its `REQ` is 0 (requests are not counted per region) and its
//! `LOCALITY` 1.0 (every file is local).

use super::args::{arity, client, columns_of, hash, text, CommandError, Res};
use super::format;
use super::interpreter::Shell;
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};
use ferrobase_client::catalog::PbRegionInfo;
use ferrobase_client::{Connection, RegionInfo};
use ferrobase_gateway::catalog::encoded_region_name;
use std::time::{SystemTime, UNIX_EPOCH};

/// The columns of `list_regions` with their minimum widths, in HBase's order.
const REGION_COLUMNS: &[(&str, usize)] = &[
    ("SERVER_NAME", 12),
    ("REGION_NAME", 12),
    ("START_KEY", 10),
    ("END_KEY", 10),
    ("SIZE", 5),
    ("REQ", 5),
    ("LOCALITY", 10),
];

/// The one server of a ferrobase "cluster", as HBase's `ServerName`.
pub struct ServerIdentity {
    /// Host name.
    pub host: String,
    /// Port (0 for an embedded engine).
    pub port: u16,
    /// Start code: milliseconds since the epoch when the server (or embedded engine) started.
    pub start_code: u64,
}

impl ServerIdentity {
    /// The server a connection talks to; `opened` is when the shell opened it (ms). Over
    /// `--connect`, the server of the first region `hbase:meta` lists (`info:sn`), else the
    /// gateway's address with start code 0.
    pub fn of(conn: &Connection, opened: u64) -> ServerIdentity {
        match conn {
            Connection::Embedded(_) => ServerIdentity {
                host: ferrobase_gateway::catalog::host_name(),
                port: 0,
                start_code: opened,
            },
            Connection::Remote(_) => {
                let served = conn.meta_regions(None).ok().and_then(|regions| {
                    regions
                        .iter()
                        .find_map(|r| r.server_name.as_deref().and_then(ServerIdentity::parse))
                });
                if let Some(server) = served {
                    return server;
                }
                let addr = conn.describe();
                let addr = addr.trim_start_matches("thrift://");
                let (host, port) = addr.rsplit_once(':').unwrap_or((addr, "0"));
                ServerIdentity {
                    host: host.to_string(),
                    port: port.parse().unwrap_or(0),
                    start_code: 0,
                }
            }
        }
    }

    /// Reads HBase's `host,port,startcode`; `None` when `text` is not one.
    pub fn parse(text: &str) -> Option<ServerIdentity> {
        let mut parts = text.rsplitn(3, ',');
        let start_code = parts.next()?.parse().ok()?;
        let port = parts.next()?.parse().ok()?;
        let host = parts.next()?.to_string();
        Some(ServerIdentity {
            host,
            port,
            start_code,
        })
    }

    /// `host,port,startcode` (HBase's `ServerName.toString`).
    pub fn server_name(&self) -> String {
        format!("{},{},{}", self.host, self.port, self.start_code)
    }

    /// `host:port startcode`, as `status` prints a server.
    fn status_line(&self) -> String {
        format!("{}:{} {}", self.host, self.port, self.start_code)
    }
}

/// Milliseconds since the epoch, now.
pub fn now_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

/// A region as the served `hbase:meta` describes it; its sizes are unknown there: 0.
fn served_region(info: PbRegionInfo) -> RegionInfo {
    RegionInfo {
        id: info.region_id,
        start: info.start_key,
        end: info.end_key,
        memstore_bytes: 0,
        file_bytes: 0,
        file_count: 0,
    }
}

/// HBase's region name: `table,startkey,regionid.ENCODED.`, where ENCODED is the MD5 (hex) of
/// `table,startkey,regionid` (`RegionInfo.getRegionNameAsString`).
pub fn region_name(table: &str, start: &[u8], id: u64) -> String {
    let mut raw = format!("{table},").into_bytes();
    raw.extend_from_slice(start);
    raw.extend_from_slice(format!(",{id}").as_bytes());
    let encoded = encoded_region_name(table, start, id);
    format!("{}.{encoded}.", format::binary(&raw))
}

/// Whole mebibytes, as HBase's `getStorefileSizeMB`.
fn mb(bytes: u64) -> u64 {
    bytes / (1 << 20)
}

/// One table's regions with its family count.
struct TableRegions {
    name: String,
    families: usize,
    regions: Vec<RegionInfo>,
}

/// The `general` group's cluster commands, and `list_regions`.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "status",
        group: Group::General,
        help: "Show the cluster's status: 'summary' (default), 'simple' or 'detailed'.",
        examples: &["status", "status 'simple'", "status 'detailed'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.status(st)),
    },
    Command {
        name: "version",
        group: Group::General,
        help: "Show the version: VERSION, rREVISION, DATE.",
        examples: &["version"],
        writes: false,
        run: Run::Handler(|sh, st| sh.version(st)),
    },
    Command {
        name: "whoami",
        group: Group::General,
        help: "Show the current user and groups.",
        examples: &["whoami"],
        writes: false,
        run: Run::Handler(|sh, st| sh.whoami(st)),
    },
    Command {
        name: "list_regions",
        group: Group::Ddl,
        help: "List a table's regions: SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE (MB of files), REQ (0: not counted), LOCALITY; filter by server prefix, project columns.",
        examples: &["list_regions 't1'", "list_regions 't1', '', ['START_KEY', 'SIZE']"],
        writes: false,
        run: Run::Handler(|sh, st| sh.list_regions(st)),
    },
];

impl Shell {
    /// `version`: `VERSION, rREVISION, DATE`, as HBase's `VersionInfo`: the git revision and
    /// commit date of the build (`crate::build_info`).
    fn version(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 0)?;
        self.line(&format!(
            "{}, r{}, {}",
            env!("CARGO_PKG_VERSION"),
            crate::build_info::REVISION,
            crate::build_info::DATE,
        ));
        Ok(())
    }

    /// `whoami`: `user (auth:SIMPLE)` and `    groups: a, b`, as Hadoop's `User` with its
    /// shell-based group mapping (`id -Gn`).
    fn whoami(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 0)?;
        let id = |arg: &str| {
            std::process::Command::new("id")
                .arg(arg)
                .output()
                .ok()
                .filter(|o| o.status.success())
                .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
        };
        let user = id("-un")
            .or_else(|| std::env::var("USER").ok())
            .unwrap_or_else(|| "unknown".into());
        self.line(&format!("{user} (auth:SIMPLE)"));
        let groups = id("-Gn").unwrap_or_default();
        let groups: Vec<&str> = groups.split_whitespace().collect();
        if !groups.is_empty() {
            self.line(&format!("    groups: {}", groups.join(", ")));
        }
        Ok(())
    }

    /// A table's regions with the server holding each: over `--connect`, as the served
    /// `hbase:meta` lists them (their sizes unknown: 0); embedded, or when the gateway serves
    /// no meta, the connection's regions on `server`.
    fn regions_with_servers(&self, table: &str, server: &str) -> Res<Vec<(RegionInfo, String)>> {
        if let Connection::Remote(_) = self.conn {
            if let Ok(regions) = self.conn.meta_regions(Some(table)) {
                return Ok(regions
                    .into_iter()
                    .map(|r| {
                        let holder = r.server_name.unwrap_or_else(|| server.to_string());
                        (served_region(r.info), holder)
                    })
                    .collect());
            }
        }
        let regions = self.conn.regions(table).map_err(client)?;
        Ok(regions
            .into_iter()
            .map(|r| (r, server.to_string()))
            .collect())
    }

    /// Every table's regions (a table dropped meanwhile is skipped): over `--connect`, every
    /// table the served `hbase:meta` lists (Apache HBase's includes `hbase:namespace`).
    fn all_regions(&mut self) -> Res<Vec<TableRegions>> {
        if let Connection::Remote(_) = self.conn {
            if let Ok(regions) = self.conn.meta_regions(None) {
                let mut out: Vec<TableRegions> = Vec::new();
                for r in regions {
                    let name =
                        String::from_utf8_lossy(&r.info.table_name.display_name()).into_owned();
                    let region = served_region(r.info);
                    match out.last_mut() {
                        Some(t) if t.name == name => t.regions.push(region),
                        _ => {
                            let Ok(families) = self.conn.describe_table(&name) else {
                                continue;
                            };
                            out.push(TableRegions {
                                name,
                                families: families.len(),
                                regions: vec![region],
                            });
                        }
                    }
                }
                return Ok(out);
            }
        }
        let mut out = Vec::new();
        for name in self.conn.list_tables().map_err(client)? {
            let (Ok(regions), Ok(families)) =
                (self.conn.regions(&name), self.conn.describe_table(&name))
            else {
                continue;
            };
            out.push(TableRegions {
                name,
                families: families.len(),
                regions,
            });
        }
        Ok(out)
    }

    /// `status ['summary' | 'simple' | 'detailed']`, as HBase's `admin.rb` prints them.
    fn status(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 2)?;
        let kind = st
            .args
            .first()
            .map(|v| text(v, "status format"))
            .transpose()?
            .unwrap_or_else(|| "summary".into());
        // HBase's admin.rb prints the summary for any other format and reads the second
        // argument (the type) only for replication: here both are errors, not guesses.
        if !matches!(
            kind.as_str(),
            "summary" | "simple" | "detailed" | "replication"
        ) {
            return Err(CommandError::Usage(format!(
                "status: unknown format '{kind}' (summary, simple, detailed or replication)"
            )));
        }
        if kind != "replication" && st.args.len() > 1 {
            return Err(CommandError::Usage(format!(
                "status: the second argument (replication's source or sink) does not apply to \
                 format '{kind}'"
            )));
        }
        if kind == "replication" {
            return Err(CommandError::Failed(
                "status 'replication': ferrobase has no replication".into(),
            ));
        }
        if let Some(reason) = self.conn.poisoned() {
            // Every call would fail with this reason; say it instead of a summary.
            self.line(&format!(
                "1 active master, 0 backup masters, 0 servers, 1 dead ({}): engine poisoned: {reason}",
                self.conn.describe()
            ));
            return Ok(());
        }
        // Writes suspended by a full disk: reads go on, so the status follows, with the state.
        let degraded = match self.conn.health() {
            Some(h @ ferrobase_engine::Health::Degraded { .. }) => format!(", {h}"),
            _ => String::new(),
        };
        let tables = self.all_regions()?;
        let server = ServerIdentity::of(&self.conn, self.opened_ms);
        let regions: usize = tables.iter().map(|t| t.regions.len()).sum();
        // The console's facts; none through a gateway that does not serve them (Apache's).
        let facts = self.conn.server_status().ok();
        match kind.as_str() {
            "simple" | "detailed" => {
                let detailed = kind == "detailed";
                if detailed {
                    self.line(&format!("version {}", env!("CARGO_PKG_VERSION")));
                    self.line("0 regionsInTransition");
                }
                self.line(&format!("active master:  {}", server.status_line()));
                self.line("0 backup masters");
                if detailed {
                    self.line("master coprocessors: []");
                }
                if !degraded.is_empty() {
                    self.line(&format!("writes suspended{degraded}"));
                }
                self.line("1 live servers");
                self.line(&format!("    {}", server.status_line()));
                self.line(&format!("        {}", server_load(&tables, facts.as_ref())));
                if detailed {
                    for t in &tables {
                        for r in &t.regions {
                            self.line(&format!(
                                "        \"{}\"",
                                region_name(&t.name, &r.start, r.id).replace('"', "\\\"")
                            ));
                            self.line(&format!("            {}", region_load(t.families, r)));
                        }
                    }
                    self.line("0 dead servers");
                } else {
                    self.line("0 dead servers");
                    self.line(&format!("Aggregate load: 0, regions: {regions}"));
                }
                if let Some(f) = &facts {
                    self.print_facts(f, detailed);
                }
            }
            // HBase prints the summary for any other format.
            _ => {
                self.line(&format!(
                    "1 active master, 0 backup masters, 1 servers, 0 dead, {:.4} average load{degraded}",
                    regions as f64
                ));
                if let Some(f) = &facts {
                    self.line(&format!(
                        "ferrobase: {:.1} requests/s, {} write suspensions, {} flushes and \
                         compactions running{}",
                        f.requests_per_second,
                        f.write_suspensions_total(),
                        f.running.len(),
                        f.open_scanners
                            .map(|n| format!(", {n} open scanners"))
                            .unwrap_or_default()
                    ));
                }
            }
        }
        Ok(())
    }

    /// The console's facts after HBase's `status 'simple'` or `'detailed'` lines: the request
    /// rate, write suspensions by cause, open scanners, the flushes and compactions running,
    /// and the last ones that ended (the newest with `'simple'`, ten with `'detailed'`).
    fn print_facts(&mut self, f: &ferrobase_client::ServerStatus, detailed: bool) {
        self.line(&format!(
            "ferrobase: {:.1} requests/s (rows read and written); {} rows read, {} written in the \
             last {} min",
            f.requests_per_second,
            f.read_rows,
            f.write_rows,
            f.window_secs / 60
        ));
        let causes: Vec<String> = f
            .write_suspensions
            .iter()
            .map(|(c, n)| format!("{c}={n}"))
            .collect();
        self.line(&format!(
            "write suspensions: {} ({})",
            f.write_suspensions_total(),
            causes.join(", ")
        ));
        if let Some(n) = f.open_scanners {
            self.line(&format!("open scanners: {n}"));
        }
        self.line(&format!(
            "flushes and compactions running: {}",
            f.running.len()
        ));
        for j in &f.running {
            self.line(&format!("    {j}"));
        }
        let shown = if detailed { 10 } else { 1 };
        self.line(&format!(
            "recent flushes and compactions: {} kept, newest first",
            f.recent.len()
        ));
        for j in f.recent.iter().take(shown) {
            self.line(&format!("    {j}"));
        }
    }

    /// `list_regions 't'[, 'server' | {SERVER_NAME => 's', LOCALITY_THRESHOLD => f}[, [COLS]]]`.
    fn list_regions(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 3)?;
        let table = text(&st.args[0], "table name")?;
        let mut server_prefix: Option<String> = None;
        let mut locality_threshold = 1.0f64;
        match st.args.get(1) {
            None => {}
            Some(v @ Value::Hash(_)) => {
                for (k, v) in hash(v, "list_regions options")? {
                    match k.as_str() {
                        "SERVER_NAME" => server_prefix = Some(text(&v, "SERVER_NAME")?),
                        "LOCALITY_THRESHOLD" => {
                            let Value::Float(f) = v else {
                                return Err("LOCALITY_THRESHOLD must be a float value".into());
                            };
                            if !(0.0..=1.0).contains(&f) {
                                return Err(
                                    "LOCALITY_THRESHOLD must be between 0 and 1.0, inclusive"
                                        .into(),
                                );
                            }
                            locality_threshold = f;
                        }
                        other => return Err(format!("unknown list_regions option {other}").into()),
                    }
                }
            }
            Some(v) => server_prefix = Some(text(v, "server name")?).filter(|s| !s.is_empty()),
        }
        let mut columns: Vec<(&str, usize)> = Vec::new();
        match st.args.get(2) {
            None => columns.extend(REGION_COLUMNS),
            Some(v @ Value::Array(_)) => {
                for c in columns_of(v)? {
                    let c = String::from_utf8_lossy(&c).into_owned();
                    let Some(col) = REGION_COLUMNS
                        .iter()
                        .find(|(n, _)| n.eq_ignore_ascii_case(&c))
                    else {
                        return Err(format!(
                            "{c} is not a valid column. Possible values are SERVER_NAME, \
                             REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY."
                        )
                        .into());
                    };
                    columns.push(*col);
                }
            }
            Some(_) => {
                return Err("columns must be an array of strings. Possible values are \
                            SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE, REQ, LOCALITY."
                    .into())
            }
        }
        if !self.conn.is_enabled(&table).map_err(client)? {
            return Err(CommandError::Failed(format!(
                "Table {table} must be enabled."
            )));
        }
        let server = ServerIdentity::of(&self.conn, self.opened_ms).server_name();
        let regions = self.regions_with_servers(&table, &server)?;
        let locality = 1.0f64;
        let mut rows: Vec<Vec<String>> = Vec::new();
        for (r, server) in &regions {
            if server_prefix
                .as_ref()
                .is_some_and(|p| !server.starts_with(p.as_str()))
                || locality > locality_threshold
            {
                continue;
            }
            rows.push(
                columns
                    .iter()
                    .map(|(c, _)| match *c {
                        "SERVER_NAME" => server.clone(),
                        "REGION_NAME" => region_name(&table, &r.start, r.id),
                        "START_KEY" => format::binary(&r.start),
                        "END_KEY" => format::binary(&r.end),
                        "SIZE" => mb(r.file_bytes).to_string(),
                        "REQ" => "0".into(),
                        _ => format!("{locality:.1}"),
                    })
                    .collect(),
            );
        }
        let widths: Vec<usize> = columns
            .iter()
            .enumerate()
            .map(|(i, (_, w))| rows.iter().map(|r| r[i].len()).fold(*w, usize::max))
            .collect();
        let line = |cells: Vec<&str>| -> String {
            cells
                .iter()
                .zip(&widths)
                .map(|(c, w)| format!(" {c:>w$} |"))
                .collect()
        };
        self.line(&line(columns.iter().map(|(c, _)| *c).collect()));
        let dashes: Vec<String> = widths.iter().map(|w| "-".repeat(*w)).collect();
        self.line(&line(dashes.iter().map(String::as_str).collect()));
        for r in &rows {
            self.line(&line(r.iter().map(String::as_str).collect()));
        }
        self.line(&format!(" {} rows", rows.len()));
        Ok(())
    }
}

/// A server's load line: the keys of HBase's `ServerMetrics.toString` ferrobase has figures
/// for, in its order.
fn server_load(tables: &[TableRegions], facts: Option<&ferrobase_client::ServerStatus>) -> String {
    let regions: Vec<(usize, &RegionInfo)> = tables
        .iter()
        .flat_map(|t| t.regions.iter().map(move |r| (t.families, r)))
        .collect();
    let stores: usize = regions.iter().map(|(f, _)| f).sum();
    let files: usize = regions.iter().map(|(_, r)| r.file_count).sum();
    let file_mb: u64 = regions.iter().map(|(_, r)| mb(r.file_bytes)).sum();
    let mem_mb: u64 = regions
        .iter()
        .map(|(_, r)| mb(r.memstore_bytes as u64))
        .sum();
    let load = format!(
        "numberOfOnlineRegions={}, numberOfStores={stores}, numberOfStorefiles={files}, \
         storefileSizeMB={file_mb}, memstoreSizeMB={mem_mb}",
        regions.len()
    );
    match facts {
        // HBase's keys, in its order: the rate first, the counts after the memstore.
        Some(f) => format!(
            "requestsPerSecond={:.1}, {load}, readRequestsCount={}, writeRequestsCount={}",
            f.requests_per_second, f.read_rows, f.write_rows
        ),
        None => load,
    }
}

/// A region's load line: the keys of HBase's `RegionLoad.toString` (as `status 'detailed'`
/// prints it, checked against HBase 2.6.1) ferrobase has figures for, in its order.
fn region_load(families: usize, r: &RegionInfo) -> String {
    format!(
        "numberOfStores={families}, numberOfStorefiles={}, storefileSizeMB={}, memstoreSizeMB={}",
        r.file_count,
        mb(r.file_bytes),
        mb(r.memstore_bytes as u64)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_names_match_hbase_2_6() {
        // From HBase 2.6.1's RegionInfoBuilder.
        assert_eq!(
            region_name("t", b"r5", 1_700_000_000_123),
            "t,r5,1700000000123.4f956bebe2ed69c7a858e23a72d6dd6a."
        );
        assert_eq!(
            region_name("ns:t", b"", 7),
            "ns:t,,7.9040d88eb7c9188250868064ea3dd922."
        );
    }
}
