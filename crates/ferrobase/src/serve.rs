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

pub const USAGE: &str = "ferrobase serve [--data DIR] [--bind ADDR] [--port PORT] [--max-message BYTES] [--max-request-memory BYTES] [--max-inflight-memory BYTES] [--max-connections N] [--max-result-bytes BYTES] [--max-row-size BYTES] [--idle-timeout SECS] [--frame-timeout SECS] [--handlers N] [--max-queued-calls N] [--call-queue-timeout SECS] [--max-read-time SECS] [--max-scanners-per-connection N] [--max-mutations-per-call N] [--scanner-lease SECS] [--tls-cert PEM --tls-key PEM [--tls-client-ca PEM]] [--auth-file FILE] [--acl] [--superuser USER[,USER...]] [--insecure] [--durability SYNC_WAL|FSYNC_WAL|ASYNC_WAL] [--min-free-space BYTES] [--no-auto-compaction] [--wal-recovery strict|point-in-time] [--rpc-port PORT [--advertise HOST] [--zk-port PORT] [--rpc-auth simple] [--rpc-allow-plaintext] [--rpc-hide-tables] [--rpc-priority-handlers N]] [--http-port PORT] [--thrift2-port PORT] [--rest-port PORT [--rest-max-connections N] [--rest-max-scanners N]] [--log-level LEVEL] [--slow-ms MS] [--heatmap-bucket-secs SECS] [--max-open-files N]";

pub fn main(args: &[String]) -> Result<()> {
    let mut data = PathBuf::from("./ferrobase-data");
    let mut bind: IpAddr = [127, 0, 0, 1].into();
    let mut port: u16 = 9090;
    let mut opts = ServerOptions::default();
    let mut engine_opts = EngineOptions::default();
    let (mut tls_cert, mut tls_key, mut tls_client_ca) =
        (None::<PathBuf>, None::<PathBuf>, None::<PathBuf>);
    let mut insecure = false;
    let mut acl = false;
    let mut rpc_auth: Option<ferrobase_native::Identity> = None;
    let mut auth_file: Option<PathBuf> = None;
    let mut superusers: Vec<String> = Vec::new();
    let mut rpc_port: Option<u16> = None;
    let mut advertise: Option<String> = None;
    let mut zk_port: Option<u16> = None;
    let mut rpc_allow_plaintext = false;
    let mut rpc_hide_tables = false;
    let mut rpc_priority_handlers = ferrobase_native::NativeOptions::default().priority_handlers;
    let mut http_port: Option<u16> = None;
    let mut thrift2_port: Option<u16> = None;
    let mut rest_port: Option<u16> = None;
    let mut rest_defaults = ferrobase_rest::RestOptions::default();
    // Operations (issue 43): the log level and the slow-operation threshold.
    let mut log_level: Option<String> = None;
    let mut slow_ms: u64 = ferrobase_gateway::slow_log::DEFAULT_SLOW_MS;
    let mut it = args.iter();
    while let Some(a) = it.next() {
        let mut val = || it.next().with_context(|| format!("{a} needs a value"));
        match a.as_str() {
            "--data" => data = val()?.into(),
            "--bind" => bind = val()?.parse().context("--bind takes an IP address")?,
            "--port" => port = val()?.parse().context("--port takes a number")?,
            "--max-message" => {
                opts.limits.max_message = val()?.parse().context("--max-message takes bytes")?
            }
            "--max-request-memory" => {
                opts.limits.max_decoded =
                    val()?.parse().context("--max-request-memory takes bytes")?
            }
            "--max-inflight-memory" => {
                opts.max_inflight_memory = val()?
                    .parse()
                    .context("--max-inflight-memory takes bytes")?
            }
            "--max-connections" => {
                opts.max_connections = val()?.parse().context("--max-connections takes a number")?
            }
            "--max-result-bytes" => {
                opts.handler.max_result_bytes =
                    val()?.parse().context("--max-result-bytes takes bytes")?
            }
            "--max-row-size" => {
                engine_opts.max_row_size = val()?.parse().context("--max-row-size takes bytes")?
            }
            // The level of mutations whose request and table say USE_DEFAULT: FSYNC_WAL makes
            // every such write survive a power cut (docs/design/durability.md).
            "--durability" => {
                // SKIP_WAL is left to tables that ask for it: as a server default it would
                // lose every unflushed write at a process kill.
                use ferrobase_engine::Durability::{AsyncWal, FsyncWal, SyncWal};
                let level = ferrobase_engine::Durability::parse(val()?).ok();
                let Some(level @ (SyncWal | FsyncWal | AsyncWal)) = level else {
                    bail!("--durability takes SYNC_WAL, FSYNC_WAL or ASYNC_WAL");
                };
                engine_opts.default_durability = level;
            }
            // Writes are refused (retryably) while free space is below this; 0 turns it off.
            "--min-free-space" => {
                engine_opts.min_free_space =
                    Some(val()?.parse().context("--min-free-space takes bytes")?)
            }
            // Compactions only when asked (`majorCompact`, `compact`): no minor compaction after
            // a flush and no periodic major compaction, so a store keeps one file per flush, as
            // HBase does with a high hbase.hstore.compactionThreshold and
            // hbase.hregion.majorcompaction 0 (the differential tests run both sides so).
            "--no-auto-compaction" => {
                engine_opts.compaction.auto = false;
                engine_opts.compaction.major_interval = None;
            }
            // A complete WAL record that is damaged refuses the start (strict, the default);
            // point-in-time opens without it and everything logged after it, keeping copies
            // in wal-quarantine/ (docs/format/wal.md, "Recovery rules").
            "--wal-recovery" => {
                engine_opts.wal_recovery = match val()?.as_str() {
                    "strict" => ferrobase_engine::WalRecovery::Strict,
                    "point-in-time" => ferrobase_engine::WalRecovery::PointInTime,
                    _ => bail!("--wal-recovery takes strict or point-in-time"),
                }
            }
            "--idle-timeout" => {
                opts.idle_timeout = Some(Duration::from_secs(
                    val()?.parse().context("--idle-timeout takes seconds")?,
                ))
            }
            "--frame-timeout" => opts.frame_timeout = seconds(a, val()?)?,
            "--handlers" => {
                opts.calls.handlers = val()?.parse().context("--handlers takes a number")?;
                if opts.calls.handlers == 0 {
                    bail!("--handlers takes a number of at least 1");
                }
            }
            "--max-queued-calls" => {
                opts.calls.max_queued = val()?
                    .parse()
                    .context("--max-queued-calls takes a number")?
            }
            "--call-queue-timeout" => opts.calls.timeout = seconds(a, val()?)?,
            "--max-read-time" => {
                let secs: u64 = val()?
                    .parse()
                    .context("--max-read-time takes whole seconds (0: unlimited)")?;
                opts.calls.read_budget = (secs > 0).then(|| Duration::from_secs(secs));
            }
            "--max-scanners-per-connection" => {
                opts.max_scanners_per_connection = val()?
                    .parse()
                    .context("--max-scanners-per-connection takes a number")?
            }
            // Mutations one call may carry on every door; 0: no limit.
            "--max-mutations-per-call" => {
                opts.handler.max_mutations_per_call = val()?
                    .parse()
                    .context("--max-mutations-per-call takes a number")?
            }
            "--scanner-lease" => {
                let secs: f64 = val()?.parse().context("--scanner-lease takes seconds")?;
                opts.handler.scanner_lease = Duration::try_from_secs_f64(secs)
                    .ok()
                    .filter(|d| !d.is_zero())
                    .context("--scanner-lease takes a positive number of seconds")?;
            }
            // HBase's native RPC (hbase-client's protocol) on its own port; 0 picks a free one.
            "--rpc-port" => rpc_port = Some(val()?.parse().context("--rpc-port takes a number")?),
            // The host name the native door tells clients to connect to (hbase:meta, registry).
            "--advertise" => advertise = Some(val()?.clone()),
            // A read-only ZooKeeper endpoint for discovery (HBase's ZKConnectionRegistry,
            // kazoo-based clients); 2181 is ZooKeeper's port, 0 picks a free one.
            "--zk-port" => zk_port = Some(val()?.parse().context("--zk-port takes a number")?),
            // With TLS, the native door serves plaintext HBase clients too (HBase's
            // hbase.server.netty.tls.supportplaintext, true there; refused here by default).
            "--rpc-allow-plaintext" => rpc_allow_plaintext = true,
            // With ACLs, hbase:meta on the native door shows each user only the tables a grant
            // reaches (HBase shows every table's rows to every user).
            "--rpc-hide-tables" => rpc_hide_tables = true,
            "--rpc-priority-handlers" => {
                rpc_priority_handlers = val()?
                    .parse()
                    .context("--rpc-priority-handlers takes a number")?;
                if rpc_priority_handlers == 0 {
                    bail!("--rpc-priority-handlers takes a number of at least 1");
                }
            }
            // The HTTP port: /metrics for Prometheus and the console at / (HBase's master UI is
            // on 16010); 0 picks a free one.
            "--rest-port" => {
                rest_port = Some(val()?.parse().context("--rest-port takes a number")?)
            }
            "--rest-max-connections" => {
                rest_defaults.max_connections = val()?
                    .parse()
                    .context("--rest-max-connections takes a number")?
            }
            "--rest-max-scanners" => {
                rest_defaults.max_scanners = val()?
                    .parse()
                    .context("--rest-max-scanners takes a number")?
            }
            "--thrift2-port" => {
                thrift2_port = Some(val()?.parse().context("--thrift2-port takes a number")?)
            }
            "--http-port" => {
                http_port = Some(val()?.parse().context("--http-port takes a number")?)
            }
            // Logs: a level (trace, debug, info, warn, error, off) or RUST_LOG directives;
            // default RUST_LOG's, else info. Changeable at run time at the HTTP port's /logLevel.
            "--log-level" => log_level = Some(val()?.clone()),
            // Calls slower than this many milliseconds are logged and kept for /slowlog (HBase's
            // responseTooSlow); 0 keeps every call.
            "--slow-ms" => slow_ms = val()?.parse().context("--slow-ms takes milliseconds")?,
            "--max-open-files" => {
                let n: usize = val()?
                    .parse()
                    .context("--max-open-files takes a number of files")?;
                engine_opts.max_open_files = Some(n);
            }
            // The heat map's bucket width (default 60 s; shorter for tests and demos).
            "--heatmap-bucket-secs" => {
                let secs: u64 = val()?
                    .parse()
                    .context("--heatmap-bucket-secs takes seconds")?;
                if secs == 0 {
                    bail!("--heatmap-bucket-secs takes a number of seconds of at least 1");
                }
                engine_opts.heat_map.bucket = Duration::from_secs(secs);
            }
            "--tls-cert" => tls_cert = Some(val()?.into()),
            "--tls-key" => tls_key = Some(val()?.into()),
            "--tls-client-ca" => tls_client_ca = Some(val()?.into()),
            "--insecure" => insecure = true,
            "--acl" => acl = true,
            "--rpc-auth" => {
                rpc_auth = Some(match val()?.as_str() {
                    "simple" => ferrobase_native::Identity::Simple,
                    other => bail!(
                        "--rpc-auth {other}: the native door's users are known by `simple` (the \
                         name the client's connection header claims, as HBase's SIMPLE \
                         authentication)"
                    ),
                })
            }
            "--auth-file" => auth_file = Some(val()?.into()),
            "--superuser" => superusers.extend(
                val()?
                    .split(',')
                    .map(str::trim)
                    .filter(|u| !u.is_empty())
                    .map(String::from),
            ),
            other => bail!("unknown option {other}\nusage: {USAGE}"),
        }
    }
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

/// A positive number of seconds (fractions allowed) given to `option`.
fn seconds(option: &str, value: &str) -> Result<Duration> {
    value
        .parse::<f64>()
        .ok()
        .and_then(|secs| Duration::try_from_secs_f64(secs).ok())
        .filter(|d| !d.is_zero())
        .with_context(|| format!("{option} takes a positive number of seconds"))
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
pub fn passwd(args: &[String]) -> Result<()> {
    let [user] = args else {
        bail!("usage: ferrobase passwd USER < password");
    };
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
