//! `ferrobase serve`: the Thrift gateway on an embedded engine.

use anyhow::{bail, Context, Result};
use ferrobase_engine::{Engine, EngineOptions};
use ferrobase_gateway::access::AccessOptions;
use ferrobase_gateway::sasl::PasswordFile;
use ferrobase_gateway::tls::TlsServer;
use ferrobase_gateway::{Server, ServerOptions};
use std::net::{IpAddr, SocketAddr};
use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Duration;

/// The options of `ferrobase serve`: every engine and server setting. Each is also a key of
/// the configuration file (`crate::config`, its name without the dashes: `max-read-time = 30`).
#[derive(clap::Args, Debug, Clone)]
pub struct ServeArgs {
    /// The data directory (created when missing).
    #[arg(
        long,
        value_name = "DIR",
        env = "FERROBASE_DATA",
        hide_env_values = true,
        default_value = "./ferrobase-data"
    )]
    pub data: PathBuf,
    /// A configuration file (TOML): these options' names as keys, HBase's property names as
    /// aliases (docs/cli.md, README "Configuration"). Without it, DATA_DIR/ferrobase.toml is
    /// read when present. The command line and the environment win over the file.
    #[arg(
        long,
        value_name = "FILE",
        env = "FERROBASE_CONFIG",
        hide_env_values = true
    )]
    pub config: Option<PathBuf>,
    /// The address every port binds (a non-loopback one needs TLS, --auth-file or --insecure).
    #[arg(
        long,
        value_name = "ADDR",
        env = "FERROBASE_BIND",
        hide_env_values = true,
        default_value = "127.0.0.1"
    )]
    pub bind: IpAddr,
    /// The HBase Thrift (Thrift1) port; 0 picks a free one.
    #[arg(
        long,
        value_name = "PORT",
        env = "FERROBASE_PORT",
        hide_env_values = true,
        default_value_t = 9090
    )]
    pub port: u16,
    /// Largest Thrift message accepted, in bytes (also the native door's and REST's bodies).
    #[arg(long, value_name = "BYTES", default_value_t = ServerOptions::default().limits.max_message)]
    pub max_message: usize,
    /// Memory one request may decode into, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = ServerOptions::default().limits.max_decoded)]
    pub max_request_memory: usize,
    /// Memory all requests in flight may hold together, in bytes.
    #[arg(long, value_name = "BYTES", default_value_t = ServerOptions::default().max_inflight_memory)]
    pub max_inflight_memory: usize,
    /// Connections served at once (each door).
    #[arg(long, value_name = "N", default_value_t = ServerOptions::default().max_connections)]
    pub max_connections: usize,
    /// Largest result of one call, in bytes.
    #[arg(long, value_name = "BYTES",
          default_value_t = ServerOptions::default().handler.max_result_bytes)]
    pub max_result_bytes: usize,
    /// Do not read a long scan's next batch while its last is answered (Thrift1, Thrift2 and
    /// the native door; by default, from a scanner's second full batch in a row, the next is
    /// read on a worker thread so its call finds the rows ready).
    #[arg(long)]
    pub no_scan_read_ahead: bool,
    /// Largest row a Get returns, in bytes (HBase's hbase.table.max.rowsize).
    #[arg(long, value_name = "BYTES", default_value_t = EngineOptions::default().max_row_size)]
    pub max_row_size: usize,
    /// Largest cell (key and value) accepted, in bytes (HBase's hbase.client.keyvalue.maxsize).
    #[arg(long, value_name = "BYTES", default_value_t = EngineOptions::default().max_cell_size)]
    pub max_cell_size: usize,
    /// A connection idle this long is closed; not given: never.
    #[arg(long, value_name = "SECS")]
    pub idle_timeout: Option<u64>,
    /// A request's frame must arrive within this many seconds.
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = ServerOptions::default().frame_timeout.as_secs_f64())]
    pub frame_timeout: f64,
    /// Handler threads running calls (HBase's hbase.regionserver.handler.count).
    #[arg(long, value_name = "N", value_parser = at_least_one,
          default_value_t = ServerOptions::default().calls.handlers)]
    pub handlers: usize,
    /// Calls waiting for a handler before new ones are refused (retryably).
    #[arg(long, value_name = "N", default_value_t = ServerOptions::default().calls.max_queued)]
    pub max_queued_calls: usize,
    /// A call waiting longer than this many seconds for a handler is refused.
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = ServerOptions::default().calls.timeout.as_secs_f64())]
    pub call_queue_timeout: f64,
    /// Time one read may run, in whole seconds (0: unlimited).
    #[arg(long, value_name = "SECS",
          default_value_t = ServerOptions::default().calls.read_budget.map_or(0, |d| d.as_secs()))]
    pub max_read_time: u64,
    /// Open scanners one connection may hold.
    #[arg(long, value_name = "N",
          default_value_t = ServerOptions::default().max_scanners_per_connection)]
    pub max_scanners_per_connection: usize,
    /// Mutations one call may carry on every door (0: no limit).
    #[arg(long, value_name = "N",
          default_value_t = ServerOptions::default().handler.max_mutations_per_call)]
    pub max_mutations_per_call: usize,
    /// An idle scanner is closed after this many seconds (HBase's
    /// hbase.client.scanner.timeout.period).
    #[arg(long, value_name = "SECS", value_parser = positive_seconds,
          default_value_t = ServerOptions::default().handler.scanner_lease.as_secs_f64())]
    pub scanner_lease: f64,
    /// The server's certificate chain (PEM): TLS on every door.
    #[arg(long, value_name = "PEM")]
    pub tls_cert: Option<PathBuf>,
    /// The key of --tls-cert (PEM).
    #[arg(long, value_name = "PEM")]
    pub tls_key: Option<PathBuf>,
    /// Clients must present a certificate this CA signed; its CN is the user (mutual TLS).
    #[arg(long, value_name = "PEM")]
    pub tls_client_ca: Option<PathBuf>,
    /// Password logins (SASL PLAIN, HTTP Basic) from this file (lines of `ferrobase passwd`).
    #[arg(long, value_name = "FILE")]
    pub auth_file: Option<PathBuf>,
    /// Check grants (hbase:acl) on every call (HBase's hbase.security.authorization).
    #[arg(long)]
    pub acl: bool,
    /// Users allowed everything (comma-separated, repeatable; HBase's hbase.superuser).
    #[arg(long, value_name = "USER[,USER...]", value_delimiter = ',')]
    pub superuser: Vec<String>,
    /// Serve a non-loopback address in the clear and without authentication anyway.
    #[arg(long)]
    pub insecure: bool,
    /// The durability of writes that say USE_DEFAULT: SYNC_WAL, FSYNC_WAL (survives a power
    /// cut) or ASYNC_WAL.
    #[arg(long, value_name = "LEVEL", value_parser = server_durability, default_value = "SYNC_WAL")]
    pub durability: ferrobase_engine::Durability,
    /// Writes are refused (retryably) while free space is below this many bytes; 0 turns the
    /// guard off. Not given: 1 GiB, at most 1% of the file system.
    #[arg(long, value_name = "BYTES")]
    pub min_free_space: Option<u64>,
    /// Compactions only when asked (major_compact, compact): no minor compaction after a flush
    /// and no periodic major compaction.
    #[arg(long)]
    pub no_auto_compaction: bool,
    /// Files that share no row form a sorted run: minor compactions weigh it as one file and a
    /// major compaction leaves alone a file it would copy unchanged, so data written in key
    /// order (time series) is not rewritten; a store then keeps several files after
    /// major_compact where HBase has one (docs/design/compaction.md). Off: HBase's selection.
    #[arg(long)]
    pub compaction_sorted_runs: bool,
    /// Minor compactions merge only files of about one size (5 to compaction-max-files adjacent
    /// files, the largest at most twice the smallest): random-key data is rewritten about once
    /// per tier instead of once per doubling of the store, with more files between compactions
    /// (docs/design/compaction.md). Off: HBase's selection.
    #[arg(long)]
    pub compaction_tiers: bool,
    /// What opening does with a damaged complete WAL record: strict (refuse to start) or
    /// point-in-time (open without it and everything after it, keeping copies).
    #[arg(long, value_name = "MODE", value_parser = ["strict", "point-in-time"],
          default_value = "strict")]
    pub wal_recovery: String,
    /// A region's memstores are flushed past this many bytes (HBase's
    /// hbase.hregion.memstore.flush.size).
    #[arg(long, value_name = "BYTES", default_value_t = EngineOptions::default().memstore_flush_size)]
    pub memstore_flush_size: usize,
    /// The memory the engine plans for, as HBase's region server plans by its heap: memstores
    /// and block cache take 0.4 of it each unless set themselves (HBase's
    /// hbase.regionserver.global.memstore.size and hfile.block.cache.size); the rest is for
    /// compactions, file indexes and bloom filters, and calls in flight.
    #[arg(long, value_name = "BYTES", value_parser = at_least_one_mib,
          default_value_t = EngineOptions::default().memory_budget)]
    pub memory_budget: usize,
    /// Writers wait while all memstores together exceed this many bytes (the largest is flushed
    /// from 0.95 of it on). Not given: 0.4 of --memory-budget.
    #[arg(long, value_name = "BYTES")]
    pub global_memstore_limit: Option<usize>,
    /// The block cache's capacity in bytes. Not given: 0.4 of --memory-budget.
    #[arg(long, value_name = "BYTES")]
    pub block_cache_size: Option<usize>,
    /// Memstores keep their cells (and the skip list's nodes) in chunks of this many bytes,
    /// pooled for the next memstores after a flush (HBase's MSLAB and chunk pool,
    /// hbase.hregion.memstore.mslab.chunksize); 0 gives each write's cells one buffer of their
    /// own instead (hbase.hregion.memstore.mslab.enabled=false).
    #[arg(long, value_name = "BYTES",
          default_value_t = EngineOptions::default().memstore_chunk_bytes)]
    pub memstore_chunk_size: usize,
    /// A WAL segment is closed past this many bytes.
    #[arg(long, value_name = "BYTES", default_value_t = EngineOptions::default().wal_segment_bytes)]
    pub wal_segment_size: u64,
    /// WAL segments kept, once their edits are flushed, to be written over instead of new
    /// files (RocksDB's recycle_log_file_num; docs/format/wal.md, "Recycled segments"): less
    /// CPU per logged byte, twice the WAL's bytes written (each kept segment is zeroed and
    /// synced). 0, the default, deletes every one.
    #[arg(long, value_name = "N",
          default_value_t = EngineOptions::default().wal_recycled_segments)]
    pub wal_recycled_segments: usize,
    /// Past this many closed WAL segments the oldest edits are flushed (HBase's
    /// hbase.regionserver.maxlogs).
    #[arg(long, value_name = "N", value_parser = at_least_one,
          default_value_t = EngineOptions::default().max_wal_segments)]
    pub max_wal_segments: usize,
    /// A region splits when its files exceed this many bytes (HBase's hbase.hregion.max.filesize).
    #[arg(long, value_name = "BYTES", default_value_t = EngineOptions::default().region_split_size)]
    pub region_split_size: u64,
    /// Regions never split by themselves (only when asked).
    #[arg(long)]
    pub no_auto_split: bool,
    /// Fewest files a minor compaction merges (HBase's hbase.hstore.compaction.min).
    #[arg(long, value_name = "N", value_parser = at_least_one,
          default_value_t = EngineOptions::default().compaction.min_files)]
    pub compaction_min_files: usize,
    /// Most files a minor compaction merges (HBase's hbase.hstore.compaction.max).
    #[arg(long, value_name = "N", value_parser = at_least_one,
          default_value_t = EngineOptions::default().compaction.max_files)]
    pub compaction_max_files: usize,
    /// A file joins a minor compaction only if at most this times the others' sum (HBase's
    /// hbase.hstore.compaction.ratio).
    #[arg(long, value_name = "RATIO", default_value_t = EngineOptions::default().compaction.ratio)]
    pub compaction_ratio: f64,
    /// Selections smaller than this many bytes skip the ratio test (HBase's
    /// hbase.hstore.compaction.min.size).
    #[arg(long, value_name = "BYTES", default_value_t = EngineOptions::default().compaction.min_size)]
    pub compaction_min_size: u64,
    /// Seconds between automatic major compactions, 0: none (HBase's
    /// hbase.hregion.majorcompaction, in ms there).
    #[arg(long, value_name = "SECS", default_value_t = EngineOptions::default()
          .compaction.major_interval.map_or(0, |d| d.as_secs()))]
    pub major_compaction_interval: u64,
    /// HBase's native RPC (hbase-client's protocol) on this port; 0 picks a free one; equal to
    /// --port: both protocols on one port.
    #[arg(
        long,
        value_name = "PORT",
        env = "FERROBASE_RPC_PORT",
        hide_env_values = true
    )]
    pub rpc_port: Option<u16>,
    /// The host name the native door tells clients to connect to.
    #[arg(long, value_name = "HOST")]
    pub advertise: Option<String>,
    /// A read-only ZooKeeper endpoint for discovery on this port (needs --rpc-port).
    #[arg(
        long,
        value_name = "PORT",
        env = "FERROBASE_ZK_PORT",
        hide_env_values = true
    )]
    pub zk_port: Option<u16>,
    /// How the native door knows its users for ACLs: simple (the name the client claims).
    #[arg(long, value_name = "simple", value_parser = rpc_identity)]
    pub rpc_auth: Option<ferrobase_native::Identity>,
    /// With TLS, the native door serves plaintext clients too.
    #[arg(long)]
    pub rpc_allow_plaintext: bool,
    /// With ACLs, hbase:meta on the native door shows each user only the tables a grant reaches.
    #[arg(long)]
    pub rpc_hide_tables: bool,
    /// Handler threads for the native door's priority calls (meta, admin).
    #[arg(long, value_name = "N", value_parser = at_least_one,
          default_value_t = ferrobase_native::NativeOptions::default().priority_handlers)]
    pub rpc_priority_handlers: usize,
    /// The HTTP port: /metrics for Prometheus and the console at /; 0 picks a free one.
    #[arg(
        long,
        value_name = "PORT",
        env = "FERROBASE_HTTP_PORT",
        hide_env_values = true
    )]
    pub http_port: Option<u16>,
    /// HBase's Thrift2 API on this port (9091 is the conventional one); 0 picks a free one.
    #[arg(
        long,
        value_name = "PORT",
        env = "FERROBASE_THRIFT2_PORT",
        hide_env_values = true
    )]
    pub thrift2_port: Option<u16>,
    /// HBase's REST API on this port (HBase's is 8080); 0 picks a free one.
    #[arg(
        long,
        value_name = "PORT",
        env = "FERROBASE_REST_PORT",
        hide_env_values = true
    )]
    pub rest_port: Option<u16>,
    /// Connections the REST door serves at once.
    #[arg(long, value_name = "N",
          default_value_t = ferrobase_rest::RestOptions::default().max_connections)]
    pub rest_max_connections: usize,
    /// Scanners the REST door keeps open.
    #[arg(long, value_name = "N",
          default_value_t = ferrobase_rest::RestOptions::default().max_scanners)]
    pub rest_max_scanners: usize,
    /// Logs: a level (trace, debug, info, warn, error, off) or RUST_LOG directives; not given:
    /// RUST_LOG's, else info. Changeable at run time at the HTTP port's /logLevel.
    #[arg(long, value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Calls slower than this many milliseconds are logged and kept for /slowlog; 0 keeps every
    /// call.
    #[arg(long, value_name = "MS", default_value_t = ferrobase_gateway::slow_log::DEFAULT_SLOW_MS)]
    pub slow_ms: u64,
    /// The heat map's bucket width in seconds.
    #[arg(long, value_name = "SECS", value_parser = clap::value_parser!(u64).range(1..),
          default_value_t = EngineOptions::default().heat_map.bucket.as_secs())]
    pub heatmap_bucket_secs: u64,
    /// Block files kept open at most; not given: half the open-file limit less a reserve.
    #[arg(long, value_name = "N")]
    pub max_open_files: Option<usize>,
}

/// A positive number of seconds, fractions allowed.
fn positive_seconds(s: &str) -> Result<f64, String> {
    s.parse::<f64>()
        .ok()
        .filter(|secs| Duration::try_from_secs_f64(*secs).is_ok_and(|d| !d.is_zero()))
        .ok_or_else(|| "takes a positive number of seconds".to_string())
}

/// A memory budget: at least 1 MiB (a smaller one would leave memstores a few cells).
fn at_least_one_mib(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 << 20 => Ok(n),
        _ => Err("takes a number of bytes, at least 1048576 (1 MiB)".to_string()),
    }
}

fn at_least_one(s: &str) -> Result<usize, String> {
    match s.parse::<usize>() {
        Ok(n) if n >= 1 => Ok(n),
        _ => Err("takes a number of at least 1".to_string()),
    }
}

/// SKIP_WAL is left to tables that ask for it: as a server default it would lose every
/// unflushed write at a process kill.
fn server_durability(s: &str) -> Result<ferrobase_engine::Durability, String> {
    use ferrobase_engine::Durability::{AsyncWal, FsyncWal, SyncWal};
    match ferrobase_engine::Durability::parse(s) {
        Ok(level @ (SyncWal | FsyncWal | AsyncWal)) => Ok(level),
        _ => Err("--durability takes SYNC_WAL, FSYNC_WAL or ASYNC_WAL".to_string()),
    }
}

fn rpc_identity(s: &str) -> Result<ferrobase_native::Identity, String> {
    match s {
        "simple" => Ok(ferrobase_native::Identity::Simple),
        other => Err(format!(
            "--rpc-auth {other}: the native door's users are known by `simple` (the name the \
             client's connection header claims, as HBase's SIMPLE authentication)"
        )),
    }
}

pub fn main(a: ServeArgs) -> Result<()> {
    let data = a.data;
    let bind = a.bind;
    let port = a.port;
    let mut opts = ServerOptions::default();
    let mut engine_opts = EngineOptions::default();
    let (tls_cert, tls_key, tls_client_ca) = (a.tls_cert, a.tls_key, a.tls_client_ca);
    let insecure = a.insecure;
    let acl = a.acl;
    let rpc_auth = a.rpc_auth;
    let auth_file = a.auth_file;
    let superusers: Vec<String> = a
        .superuser
        .iter()
        .map(|u| u.trim())
        .filter(|u| !u.is_empty())
        .map(String::from)
        .collect();
    let (rpc_port, advertise, zk_port) = (a.rpc_port, a.advertise, a.zk_port);
    let rpc_allow_plaintext = a.rpc_allow_plaintext;
    let rpc_hide_tables = a.rpc_hide_tables;
    let rpc_priority_handlers = a.rpc_priority_handlers;
    let (http_port, thrift2_port, rest_port) = (a.http_port, a.thrift2_port, a.rest_port);
    let rest_defaults = ferrobase_rest::RestOptions {
        max_connections: a.rest_max_connections,
        max_scanners: a.rest_max_scanners,
        ..Default::default()
    };
    // Operations (issue 43): the log level and the slow-operation threshold.
    let log_level = a.log_level;
    let slow_ms = a.slow_ms;
    opts.limits.max_message = a.max_message;
    opts.limits.max_decoded = a.max_request_memory;
    opts.max_inflight_memory = a.max_inflight_memory;
    opts.max_connections = a.max_connections;
    opts.handler.max_result_bytes = a.max_result_bytes;
    opts.handler.scan_read_ahead = !a.no_scan_read_ahead;
    opts.idle_timeout = a.idle_timeout.map(Duration::from_secs);
    opts.frame_timeout = Duration::from_secs_f64(a.frame_timeout);
    opts.calls.handlers = a.handlers;
    opts.calls.max_queued = a.max_queued_calls;
    opts.calls.timeout = Duration::from_secs_f64(a.call_queue_timeout);
    opts.calls.read_budget = (a.max_read_time > 0).then(|| Duration::from_secs(a.max_read_time));
    opts.max_scanners_per_connection = a.max_scanners_per_connection;
    opts.handler.max_mutations_per_call = a.max_mutations_per_call;
    opts.handler.scanner_lease = Duration::from_secs_f64(a.scanner_lease);
    engine_opts.max_row_size = a.max_row_size;
    engine_opts.max_cell_size = a.max_cell_size;
    // The level of mutations whose request and table say USE_DEFAULT: FSYNC_WAL makes every
    // such write survive a power cut (docs/design/durability.md).
    engine_opts.default_durability = a.durability;
    engine_opts.min_free_space = a.min_free_space;
    // A complete WAL record that is damaged refuses the start (strict, the default);
    // point-in-time opens without it and everything logged after it, keeping copies in
    // wal-quarantine/ (docs/format/wal.md, "Recovery rules").
    engine_opts.wal_recovery = match a.wal_recovery.as_str() {
        "point-in-time" => ferrobase_engine::WalRecovery::PointInTime,
        _ => ferrobase_engine::WalRecovery::Strict,
    };
    engine_opts.memstore_flush_size = a.memstore_flush_size;
    // One memory budget (issue 44): memstores and block cache are 0.4 of it each, as HBase
    // shares its heap, unless given themselves.
    engine_opts.memory_budget = a.memory_budget;
    engine_opts.global_memstore_limit = a.global_memstore_limit;
    engine_opts.block_cache_bytes = a.block_cache_size;
    engine_opts.memstore_chunk_bytes = a.memstore_chunk_size;
    // Indexes and blooms read in the background after the start (at most an eighth of the
    // memory budget), so the first calls after a restart do not each wait for their files'.
    engine_opts.warm_file_sections = true;
    engine_opts.wal_segment_bytes = a.wal_segment_size;
    engine_opts.max_wal_segments = a.max_wal_segments;
    engine_opts.wal_recycled_segments = a.wal_recycled_segments;
    engine_opts.region_split_size = a.region_split_size;
    engine_opts.auto_split = !a.no_auto_split;
    engine_opts.compaction.min_files = a.compaction_min_files;
    engine_opts.compaction.max_files = a.compaction_max_files;
    engine_opts.compaction.ratio = a.compaction_ratio;
    engine_opts.compaction.sorted_runs = a.compaction_sorted_runs;
    engine_opts.compaction.tiers = a
        .compaction_tiers
        .then(ferrobase_engine::SizeTiers::default);
    engine_opts.compaction.min_size = a.compaction_min_size;
    engine_opts.compaction.major_interval =
        (a.major_compaction_interval > 0).then(|| Duration::from_secs(a.major_compaction_interval));
    // Compactions only when asked (`majorCompact`, `compact`): no minor compaction after a
    // flush and no periodic major compaction, so a store keeps one file per flush, as HBase
    // does with a high hbase.hstore.compactionThreshold and hbase.hregion.majorcompaction 0
    // (the differential tests run both sides so).
    if a.no_auto_compaction {
        engine_opts.compaction.auto = false;
        engine_opts.compaction.major_interval = None;
    }
    engine_opts.max_open_files = a.max_open_files;
    // The heat map's bucket width (default 60 s; shorter for tests and demos).
    engine_opts.heat_map.bucket = Duration::from_secs(a.heatmap_bucket_secs);
    let log = crate::logging::LogControl::install(log_level.as_deref())?;
    let slow_log = Arc::new(ferrobase_gateway::slow_log::SlowLog::new(
        Duration::from_millis(slow_ms),
        ferrobase_gateway::slow_log::DEFAULT_CAPACITY,
    ));
    opts.slow_log = Some(slow_log.clone());
    tracing::info!(
        data = %data.display(),
        %bind,
        port,
        durability = ?engine_opts.default_durability,
        handlers = opts.calls.handlers,
        max_queued_calls = opts.calls.max_queued,
        max_connections = opts.max_connections,
        slow_ms,
        log_level = %log.current(),
        heatmap_bucket_secs = engine_opts.heat_map.bucket.as_secs(),
        memory_budget = engine_opts.memory_limits().budget,
        global_memstore_limit = engine_opts.memory_limits().global_memstore_limit,
        block_cache_size = engine_opts.memory_limits().block_cache,
        "starting ferrobase {}",
        env!("CARGO_PKG_VERSION")
    );
    opts.addr = SocketAddr::new(bind, port);
    opts.tls = match (&tls_cert, &tls_key) {
        (Some(cert), Some(key)) => Some(
            TlsServer::from_pem_files(cert, key, tls_client_ca.as_deref())
                .context("loading the TLS certificate and key")?,
        ),
        (None, None) if tls_client_ca.is_some() => {
            bail!("--tls-client-ca needs --tls-cert and --tls-key")
        }
        (None, None) => None,
        _ => bail!("--tls-cert and --tls-key go together"),
    };
    if let Some(path) = &auth_file {
        if tls_client_ca.is_some() {
            bail!(
                "--auth-file and --tls-client-ca are two ways to name the user of a connection; \
                 choose one"
            );
        }
        opts.passwords = Some(Arc::new(PasswordFile::load(path)?));
    }
    exposure_check(bind, opts.tls.is_some(), auth_file.is_some(), insecure)?;
    // Authenticated users (mutual TLS, passwords) imply ACLs, as a secure HBase cluster checks
    // them.
    if acl || tls_client_ca.is_some() || auth_file.is_some() || !superusers.is_empty() {
        opts.access = Some(AccessOptions {
            superusers,
            store: None,
        });
    }
    let max_row_size = engine_opts.max_row_size;
    crate::limits::raise_nofile_limit();
    let started = std::time::Instant::now();
    let engine = Engine::open(&data, engine_opts)
        .with_context(|| format!("opening data directory {}", data.display()))?;
    tracing::info!(
        capacity = engine.file_handles().capacity(),
        open = engine.file_handles().open_count(),
        "block files kept open at most: {} (the handle cache; half the open-file limit less a \
         reserve)",
        engine.file_handles().capacity()
    );
    let opts_tls = opts.tls.is_some();
    if let Some(access) = &opts.access {
        tracing::info!(
            "ACLs on (grants in hbase:acl); superusers: {}",
            if access.superusers.is_empty() {
                "none".to_string()
            } else {
                access.superusers.join(", ")
            }
        );
    }
    if rpc_port.is_some() && opts.passwords.is_some() {
        // Fail closed: the native door takes no password logins.
        bail!(
            "--rpc-port cannot be combined with --auth-file yet: HBase's native RPC door takes no \
             logins (docs/design/native-protocol.md)"
        );
    }
    if rpc_auth.is_some() && tls_client_ca.is_some() {
        bail!(
            "--rpc-auth and --tls-client-ca are two ways to name the user of a native connection; \
             with a client CA the certificate's CN is the user: leave --rpc-auth out"
        );
    }
    if rpc_auth.is_some() && (rpc_port.is_none() || opts.access.is_none()) {
        bail!("--rpc-auth names how the native RPC door knows its users for ACLs; it needs --rpc-port and --acl");
    }
    // With a client CA, the certificate's CN is the user on the native door as on Thrift's.
    let rpc_auth = rpc_auth.or_else(|| {
        tls_client_ca
            .is_some()
            .then_some(ferrobase_native::Identity::Certificate)
    });
    if rpc_port.is_some() && opts.access.is_some() && rpc_auth.is_none() {
        // Fail closed: without a way to know who a native connection is, no grant can apply.
        bail!(
            "--rpc-port with ACLs needs a way to know its users: --tls-client-ca (the client \
             certificate's CN) or --rpc-auth simple (the name the client claims, HBase's SIMPLE \
             authentication; trusted networks only; docs/design/security.md, \"The native door\")"
        );
    }
    if rpc_hide_tables && (rpc_port.is_none() || opts.access.is_none()) {
        bail!("--rpc-hide-tables hides tables from users of the native RPC door; it needs --rpc-port and ACLs (--acl)");
    }
    if rpc_allow_plaintext {
        if tls_client_ca.is_some() {
            bail!(
                "--rpc-allow-plaintext with --tls-client-ca: a plaintext connection carries no \
                 certificate, so it would have no user; with a client CA the native door takes \
                 TLS only"
            );
        }
        if rpc_port.is_none() || opts.tls.is_none() {
            bail!("--rpc-allow-plaintext lets the native RPC door serve plaintext beside TLS; it needs --rpc-port, --tls-cert and --tls-key");
        }
        if !bind.is_loopback() && !insecure {
            bail!(
                "refusing to serve HBase's native RPC in plaintext on {bind} \
                 (--rpc-allow-plaintext): anyone who reaches this address could read and change \
                 every table. Leave it out (TLS only), bind a loopback address, or pass \
                 --insecure"
            );
        }
    }
    if rest_port.is_some()
        && opts.access.is_some()
        && tls_client_ca.is_none()
        && opts.passwords.is_none()
    {
        // Fail closed: a request without a user is refused (401), so this door would refuse
        // every request.
        bail!(
            "--rest-port with ACLs needs a way to know its users: --tls-client-ca (the client \
             certificate's CN) or --auth-file with --tls-cert and --tls-key (HTTP Basic logins); \
             docs/design/rest.md, \"Security\""
        );
    }
    if rest_port.is_some() && opts.passwords.is_some() && opts.tls.is_none() {
        // HTTP Basic sends the password as is.
        bail!(
            "--rest-port with --auth-file needs --tls-cert and --tls-key: the REST door takes \
             HTTP Basic logins over TLS only (docs/design/rest.md, \"Security\")"
        );
    }
    if http_port.is_some() && opts.passwords.is_some() && opts.tls.is_none() {
        // HTTP Basic sends the password as is.
        bail!(
            "--http-port with --auth-file needs --tls-cert and --tls-key: the HTTP port takes \
             HTTP Basic logins over TLS only (docs/design/operations.md, \"Security\")"
        );
    }
    if http_port.is_some()
        && opts.access.is_some()
        && tls_client_ca.is_none()
        && opts.passwords.is_none()
    {
        // Fail closed: a request without a user is refused (401), so the port would refuse
        // every request.
        bail!(
            "--http-port with ACLs needs a way to know its users: --tls-client-ca (the client \
             certificate's CN) or --auth-file with --tls-cert and --tls-key (HTTP Basic logins); \
             docs/design/operations.md, \"Security\""
        );
    }
    if advertise.is_some() && rpc_port.is_none() {
        bail!("--advertise names the host of the native RPC door; it needs --rpc-port");
    }
    if zk_port.is_some() && rpc_port.is_none() {
        bail!(
            "--zk-port publishes the native RPC door in ZooKeeper's protocol; it needs --rpc-port"
        );
    }
    // One store of grants for every door over this engine (each caches the grants).
    if let Some(access) = &mut opts.access {
        access.store = Some(Arc::new(
            ferrobase_gateway::access::AclStore::open(&engine)
                .context("opening the grants in hbase:acl")?,
        ));
    }
    // The HTTP port's pages are checked against the same grants.
    let http_access = match &opts.access {
        Some(access) => Some(Arc::new(ferrobase_gateway::access::AccessChecker::new(
            access
                .store
                .clone()
                .context("the grants in hbase:acl are opened above")?,
            access.superusers.iter().cloned(),
        ))),
        None => None,
    };
    let (http_tls, http_passwords) = (opts.tls.clone(), opts.passwords.clone());
    let native_access = match (&opts.access, rpc_auth) {
        (Some(access), Some(identity)) => {
            let store = access
                .store
                .clone()
                .context("the grants in hbase:acl are opened above")?;
            Some(ferrobase_native::NativeAccess {
                checker: Arc::new(ferrobase_gateway::access::AccessChecker::new(
                    store,
                    access.superusers.iter().cloned(),
                )),
                identity,
                hide_tables: rpc_hide_tables,
            })
        }
        _ => None,
    };
    let native = match rpc_port {
        Some(p) => {
            let native_opts = ferrobase_native::NativeOptions {
                addr: SocketAddr::new(bind, p),
                advertise: advertise.clone(),
                max_message: opts.limits.max_message,
                max_inflight_memory: opts.max_inflight_memory,
                max_connections: opts.max_connections,
                handlers: opts.calls.handlers,
                max_queued_calls: opts.calls.max_queued,
                // HBase's priority queue: ten calls waiting per priority handler.
                priority_handlers: rpc_priority_handlers,
                max_queued_priority_calls: rpc_priority_handlers * 10,
                read_budget: opts.calls.read_budget,
                scanner_lease: opts.handler.scanner_lease,
                max_result_bytes: opts.handler.max_result_bytes,
                max_scanners_per_connection: opts.max_scanners_per_connection,
                max_mutations_per_call: opts.handler.max_mutations_per_call,
                max_row_size,
                access: native_access,
                tls: opts.tls.clone(),
                allow_plaintext: rpc_allow_plaintext,
                slow_log: opts.slow_log.clone(),
                scan_read_ahead: opts.handler.scan_read_ahead,
                ..ferrobase_native::NativeOptions::default()
            };
            // `--rpc-port` equal to `--port`: one port for both protocols, told apart by a
            // connection's first bytes (HBase RPC's `HBas`/`Regist`, which no Thrift client
            // sends first), the decrypted ones with TLS.
            Some(if p == port && p != 0 {
                ferrobase_native::NativeServer::on_shared_port(engine.clone(), native_opts, p)?
            } else {
                ferrobase_native::NativeServer::bind(engine.clone(), native_opts)
                    .with_context(|| format!("binding the native RPC port {bind}:{p}"))?
            })
        }
        None => None,
    };
    // The Thrift port serves HBase's RPC too whenever the native door is on.
    opts.handoff = native.as_ref().map(|n| {
        let handoff = n.handoff();
        ferrobase_gateway::ProtocolHandoff {
            magics: ferrobase_native::Handoff::MAGICS.to_vec(),
            serve: Arc::new(move |handed| handoff.serve(handed)),
        }
    });
    let http_engine = engine.clone();
    // HBase's Thrift2 default port (9090) is Thrift1's here; 9091 is the conventional choice.
    let thrift2 = match thrift2_port {
        Some(p) => {
            let mut t2_opts = ServerOptions {
                addr: SocketAddr::new(bind, p),
                handoff: None,
                ..opts.clone()
            };
            // Java's ThriftConnection sends its filters as protobuf: the native door's
            // conversion reads them.
            t2_opts.handler.protobuf_filters = Some(ferrobase_gateway::handler::ProtobufFilters(
                Arc::new(ferrobase_native::filters::decode_filter_bytes),
            ));
            Some(
                Server::bind_thrift2(engine.clone(), t2_opts)
                    .with_context(|| format!("binding the Thrift2 port {bind}:{p}"))?,
            )
        }
        None => None,
    };
    // HBase's REST default port is 8080; `--rest-port 0` picks a free one.
    let rest = match rest_port {
        Some(p) => {
            let rest_opts = ferrobase_rest::RestOptions {
                addr: SocketAddr::new(bind, p),
                max_body: opts.limits.max_message,
                handlers: opts.calls.handlers,
                max_result_bytes: opts.handler.max_result_bytes,
                read_budget: opts.calls.read_budget,
                max_inflight_memory: opts.max_inflight_memory,
                tls: opts.tls.clone(),
                passwords: opts.passwords.clone(),
                access: opts.access.clone(),
                ..rest_defaults
            };
            Some(
                ferrobase_rest::RestServer::bind(engine.clone(), rest_opts)
                    .with_context(|| format!("binding the REST port {bind}:{p}"))?,
            )
        }
        None => None,
    };
    let server = Server::bind(engine, opts).with_context(|| format!("binding {bind}:{port}"))?;
    let addr = server.local_addr()?;
    let stop = server.stop_handle()?;
    let signalled = Arc::new(AtomicBool::new(false));
    for sig in [signal_hook::consts::SIGTERM, signal_hook::consts::SIGINT] {
        signal_hook::flag::register(sig, signalled.clone())?;
    }
    let native_stop = native.as_ref().map(|n| n.stop_handle()).transpose()?;
    let thrift2_stop = thrift2.as_ref().map(|t| t.stop_handle()).transpose()?;
    let rest_stop = rest.as_ref().map(|r| r.stop_handle());
    let http_stop = (
        stop.clone(),
        native_stop.clone(),
        thrift2_stop.clone(),
        rest_stop.clone(),
    );
    let mut ports = vec![("HBase Thrift API".to_string(), addr)];
    std::thread::spawn(move || {
        while !signalled.load(Ordering::Acquire) {
            std::thread::sleep(Duration::from_millis(100));
        }
        tracing::info!("shutting down");
        if let Some(n) = &native_stop {
            n.stop();
        }
        if let Some(r) = &rest_stop {
            r.stop();
        }
        if let Some(t) = &thrift2_stop {
            // The Thrift2 door's calls finish before Thrift1's server closes the engine.
            t.stop();
            let deadline = std::time::Instant::now() + Duration::from_secs(30);
            while t.running_calls() > 0 && std::time::Instant::now() < deadline {
                std::thread::sleep(Duration::from_millis(10));
            }
        }
        stop.stop();
    });
    if let (Some(native), Some(p)) = (&native, zk_port) {
        let zk = ferrobase_native::zookeeper::ZkServer::bind(
            &native.discovery(),
            ferrobase_native::zookeeper::ZkOptions {
                addr: SocketAddr::new(bind, p),
                ..Default::default()
            },
        )
        .with_context(|| format!("binding the ZooKeeper port {bind}:{p}"))?;
        // Scripts and tests read this line to learn the port.
        println!(
            "ferrobase serving ZooKeeper's protocol (read-only, /hbase) on {}",
            zk.local_addr()?
        );
        ports.push(("ZooKeeper (read-only)".to_string(), zk.local_addr()?));
        std::thread::Builder::new()
            .name("ferrobase-zk-accept".into())
            .spawn(move || {
                if let Err(e) = zk.run() {
                    tracing::error!("the ZooKeeper endpoint stopped: {e}");
                }
            })?;
    }
    if let Some(native) = native {
        let addr = native.local_addr()?;
        // Scripts and tests read this line to learn the port.
        println!(
            "ferrobase serving HBase's native RPC on {addr}{} (advertised as {}:{})",
            match (opts_tls, rpc_allow_plaintext) {
                (false, _) => "",
                (true, false) => " over TLS",
                (true, true) => " over TLS and in plaintext",
            },
            native.advertised_host(),
            addr.port()
        );
        ports.push(("HBase native RPC".to_string(), addr));
        std::thread::Builder::new()
            .name("ferrobase-rpc-accept".into())
            .spawn(move || {
                if let Err(e) = native.run() {
                    tracing::error!("the native RPC door stopped: {e}");
                }
            })?;
    }
    let thrift2_done = match thrift2 {
        Some(t2) => {
            let addr = t2.local_addr()?;
            // Scripts and tests read this line to learn the port.
            println!(
                "ferrobase serving HBase's Thrift2 API on {addr}{}",
                if opts_tls { " over TLS" } else { "" }
            );
            ports.push(("HBase Thrift2 API".to_string(), addr));
            Some(
                std::thread::Builder::new()
                    .name("ferrobase-thrift2-accept".into())
                    .spawn(move || {
                        if let Err(e) = t2.run() {
                            tracing::error!("the Thrift2 door stopped: {e}");
                        }
                    })?,
            )
        }
        None => None,
    };
    if let Some(rest) = rest {
        let addr = rest.local_addr()?;
        // Scripts and tests read this line to learn the port.
        println!(
            "ferrobase serving HBase's REST API on {addr}{}",
            if opts_tls { " over HTTPS" } else { "" }
        );
        ports.push(("HBase REST API".to_string(), addr));
        std::thread::Builder::new()
            .name("ferrobase-rest-accept".into())
            .spawn(move || {
                if let Err(e) = rest.run() {
                    eprintln!("ferrobase: the REST door stopped: {e}");
                }
            })?;
    }
    if let Some(p) = http_port {
        // Same bind address as the other doors, so exposure_check above covers it too.
        let security = crate::http::HttpSecurity {
            tls: http_tls,
            passwords: http_passwords,
            access: http_access,
        };
        let http = crate::http::HttpServer::bind(SocketAddr::new(bind, p), security)
            .with_context(|| format!("binding the HTTP port {bind}:{p}"))?;
        let http_addr = http.local_addr();
        ports.push(("HTTP (metrics, console)".to_string(), http_addr));
        http.spawn(crate::http::Ops {
            engine: http_engine.clone(),
            data: data.clone(),
            started,
            ports,
            thrift: http_stop.0,
            native: http_stop.1,
            thrift2: http_stop.2,
            rest: http_stop.3,
            slow_log,
            log,
        })?;
        // Scripts and tests read this line to learn the port.
        println!(
            "ferrobase serving HTTP (metrics) on {http_addr}{}",
            if opts_tls { " over HTTPS" } else { "" }
        );
    }
    // Scripts and tests read this line to learn the port.
    println!(
        "ferrobase serving the HBase Thrift API on {addr}{} (data in {})",
        if opts_tls { " over TLS" } else { "" },
        data.display()
    );
    server.run()?;
    // The Thrift2 door was stopped, its calls drained, before Thrift1's (which closed the engine).
    if let Some(t2) = thrift2_done {
        let _ = t2.join();
    }
    tracing::info!("stopped cleanly");
    Ok(())
}

/// Redis' protected mode for the Thrift port: serving a non-loopback address in the clear and
/// without authentication lets anyone who reaches the port read and change every table, so it
/// takes `--insecure`, and then a warning. Passwords without TLS are allowed with a warning:
/// they cross the network in the clear.
fn exposure_check(bind: IpAddr, tls: bool, passwords: bool, insecure: bool) -> Result<()> {
    if bind.is_loopback() || tls {
        return Ok(());
    }
    if passwords {
        tracing::warn!(
            "WARNING: serving {bind} without TLS: SASL PLAIN passwords cross the \
             network in the clear (add --tls-cert and --tls-key)"
        );
        return Ok(());
    }
    if !insecure {
        bail!(
            "refusing to serve {bind} without TLS or authentication: anyone who reaches this \
             address could read and change every table. Serve TLS (--tls-cert PEM --tls-key PEM, \
             and --tls-client-ca PEM to authenticate clients), authenticate with passwords \
             (--auth-file FILE), bind a loopback address (--bind 127.0.0.1), or pass --insecure \
             to serve it in the clear anyway"
        );
    }
    tracing::warn!(
        "WARNING: serving {bind} without TLS or authentication (--insecure): anyone \
         who reaches this address can read and change every table"
    );
    Ok(())
}

/// `ferrobase passwd USER`: reads a password from the first line of stdin and prints the
/// `--auth-file` line for it (PBKDF2-HMAC-SHA256, random salt).
pub fn passwd(user: &str) -> Result<()> {
    if user.is_empty() || user.contains(':') || user.contains(',') {
        bail!("a user name may not be empty or contain ':' or ','");
    }
    let mut line = String::new();
    std::io::stdin().read_line(&mut line)?;
    let password = line.trim_end_matches(['\r', '\n']);
    if password.is_empty() {
        bail!("no password on stdin");
    }
    println!("{}", PasswordFile::hash_line(user, password.as_bytes()));
    Ok(())
}
