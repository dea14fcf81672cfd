//! The configuration file (issue 47): `ferrobase.toml`, read by `ferrobase serve` and
//! `ferrobase config show` from `--config FILE` (or `FERROBASE_CONFIG`), else from
//! `DATA_DIR/ferrobase.toml` when present.
//!
//! Its keys are `serve`'s option names without the dashes (`max-read-time = 30`), and HBase's
//! property names where ferrobase has the setting (`"hbase.hregion.memstore.flush.size" =
//! 134217728`, also written as dotted keys or `[hbase.hregion]` tables), converted to
//! ferrobase's units (HBase's milliseconds to seconds). An unknown key is an error naming it and
//! the nearest known key; an HBase property ferrobase has no setting for is refused saying why.
//! Precedence: the command line, then the environment, then the file, then the default.

use anyhow::{anyhow, bail, Context, Result};
use clap::parser::ValueSource;
use clap::{ArgMatches, CommandFactory};
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The file's name inside a data directory.
pub const FILE_NAME: &str = "ferrobase.toml";

/// `ferrobase config ...`.
#[derive(clap::Subcommand, Debug)]
pub enum ConfigCommand {
    /// Print the effective configuration of `ferrobase serve` with these options: every
    /// setting, its value and where it came from (command line, environment, file, default).
    Show(Box<crate::serve::ServeArgs>),
    /// List the HBase property names the file accepts, the setting each sets and its unit, and
    /// those refused with the reason.
    Aliases,
}

/// How an HBase property becomes a ferrobase setting.
#[derive(Clone, Copy)]
enum Unit {
    /// The same value.
    Same,
    /// HBase's milliseconds to ferrobase's seconds (fractions kept).
    MillisToSeconds,
    /// HBase's milliseconds to ferrobase's whole seconds.
    MillisToWholeSeconds,
}

/// HBase's property names (hbase-default.xml, HBase 2.6) for ferrobase's settings.
pub const HBASE_ALIASES: &[(&str, &str)] = &[
    ("hbase.hregion.memstore.flush.size", "memstore-flush-size"),
    (
        "hbase.hregion.memstore.mslab.chunksize",
        "memstore-chunk-size",
    ),
    ("hbase.hregion.max.filesize", "region-split-size"),
    ("hbase.client.scanner.timeout.period", "scanner-lease"),
    ("hbase.regionserver.handler.count", "handlers"),
    ("hbase.thrift.maxWorkerThreads", "handlers"),
    (
        "hbase.regionserver.metahandler.count",
        "rpc-priority-handlers",
    ),
    ("hbase.ipc.server.max.callqueue.length", "max-queued-calls"),
    ("hbase.thrift.maxQueuedRequests", "max-queued-calls"),
    ("hbase.ipc.max.request.size", "max-message"),
    ("hbase.hstore.compactionThreshold", "compaction-min-files"),
    ("hbase.hstore.compaction.min", "compaction-min-files"),
    ("hbase.hstore.compaction.max", "compaction-max-files"),
    ("hbase.hstore.compaction.ratio", "compaction-ratio"),
    ("hbase.hstore.compaction.min.size", "compaction-min-size"),
    ("hbase.hregion.majorcompaction", "major-compaction-interval"),
    ("hbase.regionserver.maxlogs", "max-wal-segments"),
    ("hbase.client.keyvalue.maxsize", "max-cell-size"),
    ("hbase.table.max.rowsize", "max-row-size"),
    ("hbase.regionserver.thrift.ipaddress", "bind"),
    ("hbase.regionserver.thrift.port", "port"),
    ("hbase.thrift.server.socket.read.timeout", "frame-timeout"),
    ("hbase.thrift.connection.max-idletime", "idle-timeout"),
    ("hbase.regionserver.port", "rpc-port"),
    ("hbase.regionserver.hostname", "advertise"),
    ("hbase.zookeeper.property.clientPort", "zk-port"),
    ("hbase.rest.port", "rest-port"),
    ("hbase.regionserver.info.port", "http-port"),
    ("hbase.security.authorization", "acl"),
    ("hbase.superuser", "superuser"),
    (
        "hbase.server.netty.tls.supportplaintext",
        "rpc-allow-plaintext",
    ),
];

fn unit(alias: &str) -> Unit {
    match alias {
        "hbase.client.scanner.timeout.period" | "hbase.thrift.server.socket.read.timeout" => {
            Unit::MillisToSeconds
        }
        "hbase.hregion.majorcompaction" | "hbase.thrift.connection.max-idletime" => {
            Unit::MillisToWholeSeconds
        }
        _ => Unit::Same,
    }
}

/// HBase properties ferrobase has no setting for, and why (refused, not ignored).
pub const HBASE_REFUSED: &[(&str, &str)] = &[
    (
        "hfile.block.cache.size",
        "a fraction of the Java heap in HBase (default 0.4); ferrobase's block cache is 0.4 of \
         memory-budget (the heap's counterpart, in bytes), or set block-cache-size in bytes",
    ),
    (
        "hbase.regionserver.global.memstore.size",
        "a fraction of the Java heap in HBase (default 0.4); ferrobase's memstores may hold 0.4 \
         of memory-budget (the heap's counterpart, in bytes), or set global-memstore-limit in \
         bytes",
    ),
    (
        "hbase.hstore.blockingStoreFiles",
        "ferrobase does not block a region's writes on its store's file count: writers wait on \
         global-memstore-limit and free space (min-free-space) instead",
    ),
    (
        "hbase.rpc.timeout",
        "a client setting in HBase (each call's deadline); the server's limits are \
         max-read-time and call-queue-timeout",
    ),
];

/// Options that are not settings of the file.
const NOT_IN_FILE: &[&str] = &["config", "help", "version"];

/// One row of `config show`: a setting, its value and where it came from.
#[derive(Debug, Clone)]
pub struct Row {
    pub key: String,
    pub value: String,
    pub source: String,
}

/// The effective configuration of the running server, for the console's page.
pub static EFFECTIVE: OnceLock<Vec<Row>> = OnceLock::new();

/// Where a value from the file came from.
struct FromFile {
    file: PathBuf,
    alias: Option<String>,
}

/// A parsed file: `(setting, value as its option takes it, the key as written)`.
fn read(path: &Path, settings: &clap::Command) -> Result<Vec<(String, Option<String>, String)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("reading the configuration file {}", path.display()))?;
    let table: toml::Table = toml::from_str(&text)
        .with_context(|| format!("the configuration file {} is not TOML", path.display()))?;
    let mut flat = Vec::new();
    flatten("", &toml::Value::Table(table), &mut flat);
    let known: Vec<String> = settings
        .get_arguments()
        .filter_map(|a| a.get_long())
        .filter(|l| !NOT_IN_FILE.contains(l))
        .map(String::from)
        .collect();
    let mut out = Vec::new();
    for (key, value) in flat {
        let (setting, unit) = if known.contains(&key) {
            (key.clone(), Unit::Same)
        } else if let Some((_, s)) = HBASE_ALIASES.iter().find(|(a, _)| *a == key) {
            (s.to_string(), unit(&key))
        } else if let Some((_, why)) = HBASE_REFUSED.iter().find(|(a, _)| *a == key) {
            bail!(
                "{}: {key}: ferrobase has no such setting: {why}",
                path.display()
            );
        } else {
            let nearest = known
                .iter()
                .map(String::as_str)
                .chain(HBASE_ALIASES.iter().map(|(a, _)| *a))
                .max_by(|a, b| {
                    strsim::jaro_winkler(&key, a).total_cmp(&strsim::jaro_winkler(&key, b))
                })
                .unwrap_or("port");
            bail!(
                "{}: unknown key {key:?} (the nearest known key is {nearest:?}; `ferrobase \
                 config show` lists them all)",
                path.display()
            );
        };
        let arg = settings
            .get_arguments()
            .find(|a| a.get_long() == Some(setting.as_str()))
            .ok_or_else(|| anyhow!("{setting}: no such option"))?;
        let is_switch = matches!(arg.get_action(), clap::ArgAction::SetTrue);
        let text = scalar(&value, is_switch)
            .with_context(|| format!("{}: {key} = {value}", path.display()))?;
        let text = match unit {
            Unit::Same => text,
            Unit::MillisToSeconds | Unit::MillisToWholeSeconds => {
                let ms: f64 = text.parse().map_err(|_| {
                    anyhow!("{}: {key} takes milliseconds (got {text})", path.display())
                })?;
                match unit {
                    Unit::MillisToWholeSeconds => ((ms / 1000.0).round() as u64).to_string(),
                    _ => (ms / 1000.0).to_string(),
                }
            }
        };
        // A switch set to false is its default: nothing to pass.
        let text = match (is_switch, text.as_str()) {
            (true, "true") => None,
            (true, _) => continue,
            (false, _) => Some(text),
        };
        out.push((setting, text, key));
    }
    Ok(out)
}

fn flatten(prefix: &str, v: &toml::Value, out: &mut Vec<(String, toml::Value)>) {
    match v {
        toml::Value::Table(t) => {
            for (k, v) in t {
                let key = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}.{k}")
                };
                flatten(&key, v, out);
            }
        }
        _ => out.push((prefix.to_string(), v.clone())),
    }
}

/// A TOML value as the option's text (an array as a comma-separated list).
fn scalar(v: &toml::Value, is_switch: bool) -> Result<String> {
    Ok(match v {
        toml::Value::Boolean(b) => b.to_string(),
        _ if is_switch => bail!("takes true or false"),
        toml::Value::Integer(i) => i.to_string(),
        toml::Value::Float(f) => f.to_string(),
        toml::Value::String(s) => s.clone(),
        toml::Value::Array(items) => items
            .iter()
            .map(|i| scalar(i, false))
            .collect::<Result<Vec<_>>>()?
            .join(","),
        other => bail!("a {} is not a setting's value", other.type_str()),
    })
}

/// The `serve` options of a parsed command line (`serve` or `config show`).
fn serve_matches(m: &ArgMatches) -> Option<&ArgMatches> {
    match m.subcommand() {
        Some(("serve", sm)) => Some(sm),
        Some(("config", cm)) => match cm.subcommand() {
            Some(("show", sm)) => Some(sm),
            _ => None,
        },
        _ => None,
    }
}

/// The serve options' definitions.
fn serve_command() -> clap::Command {
    let mut cmd = crate::cli::Cli::command();
    cmd.build();
    cmd.find_subcommand("serve")
        .cloned()
        .expect("ferrobase serve is defined")
}

/// The command line with the configuration file's settings added where neither the command
/// line nor the environment gave them, and the rows of the effective configuration. `None`
/// when the command is not one that reads the file.
pub fn apply(argv: Vec<OsString>) -> Result<(Vec<OsString>, Option<Vec<Row>>)> {
    let cli = crate::cli::Cli::command();
    let Ok(m) = cli.try_get_matches_from(&argv) else {
        // The usage error is reported by the parse that follows.
        return Ok((argv, None));
    };
    let Some(sm) = serve_matches(&m) else {
        return Ok((argv, None));
    };
    let given = |id: &str| {
        matches!(
            sm.value_source(id),
            Some(ValueSource::CommandLine | ValueSource::EnvVariable)
        )
    };
    let data: PathBuf = sm
        .get_one::<PathBuf>("data")
        .cloned()
        .unwrap_or_else(|| PathBuf::from("./ferrobase-data"));
    let (file, beside_data) = match sm.get_one::<PathBuf>("config") {
        Some(f) => (Some(f.clone()), false),
        None => {
            let f = data.join(FILE_NAME);
            (f.is_file().then_some(f), true)
        }
    };
    let settings = serve_command();
    let mut argv = argv;
    let mut from_file: Vec<(String, FromFile)> = Vec::new();
    let mut seen: Vec<String> = Vec::new();
    if let Some(file) = &file {
        for (setting, value, key) in read(file, &settings)? {
            if setting == "data" && beside_data {
                bail!(
                    "{}: data: this file was found in the data directory; name another data \
                     directory on the command line, or this file with --config",
                    file.display()
                );
            }
            let id = settings
                .get_arguments()
                .find(|a| a.get_long() == Some(setting.as_str()))
                .map(|a| a.get_id().to_string())
                .unwrap_or_default();
            if seen.contains(&setting) {
                bail!(
                    "{}: {key} sets {setting}, which another key of the file sets too",
                    file.display()
                );
            }
            seen.push(setting.clone());
            if given(&id) {
                // Overridden, but a value the option would refuse is still an error of the file.
                if let Some(v) = &value {
                    let alone = settings
                        .clone()
                        .no_binary_name(true)
                        .try_get_matches_from([format!("--{setting}={v}")]);
                    if let Err(e) = alone {
                        eprintln!("ferrobase: in the configuration file {}:", file.display());
                        crate::cli::report(&e);
                        std::process::exit(2);
                    }
                }
                continue;
            }
            let alias = (key != setting).then(|| key.clone());
            argv.push(match value {
                Some(v) => format!("--{setting}={v}").into(),
                None => format!("--{setting}").into(),
            });
            from_file.push((
                setting,
                FromFile {
                    file: file.clone(),
                    alias,
                },
            ));
        }
    }
    let m = match crate::cli::Cli::command().try_get_matches_from(&argv) {
        Ok(m) => m,
        Err(e) => {
            if let Some(file) = &file {
                eprintln!("ferrobase: in the configuration file {}:", file.display());
            }
            crate::cli::report(&e);
            std::process::exit(2);
        }
    };
    let sm = serve_matches(&m).context("serve's options")?;
    let mut rows = Vec::new();
    for arg in settings.get_arguments() {
        let Some(long) = arg.get_long() else { continue };
        if NOT_IN_FILE.contains(&long) || long == "config" {
            continue;
        }
        let id = arg.get_id().as_str();
        let value = sm
            .get_raw(id)
            .map(|vals| {
                vals.map(|v| v.to_string_lossy().into_owned())
                    .collect::<Vec<_>>()
                    .join(",")
            })
            .unwrap_or_default();
        let source = match (
            sm.value_source(id),
            from_file.iter().find(|(s, _)| s == long),
        ) {
            (_, Some((_, f))) => match &f.alias {
                Some(alias) => format!("file {} (as {alias})", f.file.display()),
                None => format!("file {}", f.file.display()),
            },
            (Some(ValueSource::CommandLine), _) => "command line".to_string(),
            (Some(ValueSource::EnvVariable), _) => format!(
                "environment {}",
                arg.get_env()
                    .map_or(String::new(), |e| e.to_string_lossy().into_owned())
            ),
            _ if value.is_empty() => "default (not set)".to_string(),
            _ => "default".to_string(),
        };
        rows.push(Row {
            key: long.to_string(),
            value: if value.is_empty() {
                "-".to_string()
            } else {
                value
            },
            source,
        });
    }
    rows.insert(
        0,
        Row {
            key: "config".to_string(),
            value: file
                .as_ref()
                .map_or("-".to_string(), |f| f.display().to_string()),
            source: match (&file, sm.value_source("config")) {
                (None, _) => format!("none ({} not found)", data.join(FILE_NAME).display()),
                (Some(_), Some(ValueSource::CommandLine)) => "command line".to_string(),
                (Some(_), Some(ValueSource::EnvVariable)) => {
                    "environment FERROBASE_CONFIG".to_string()
                }
                (Some(_), _) => "the data directory".to_string(),
            },
        },
    );
    Ok((argv, Some(rows)))
}

/// `ferrobase config aliases`.
pub fn aliases() {
    for (alias, setting) in HBASE_ALIASES {
        let unit = match unit(alias) {
            Unit::Same => "",
            Unit::MillisToSeconds => " (ms in HBase, seconds here)",
            Unit::MillisToWholeSeconds => " (ms in HBase, whole seconds here)",
        };
        println!("{alias} = {setting}{unit}");
    }
    for (alias, why) in HBASE_REFUSED {
        println!("{alias}: refused: {why}");
    }
}

/// `ferrobase config show`: the rows as an aligned table.
pub fn show(rows: &[Row]) {
    let kw = rows.iter().map(|r| r.key.len()).max().unwrap_or(0);
    let vw = rows.iter().map(|r| r.value.len()).max().unwrap_or(0);
    println!("{:kw$}  {:vw$}  SOURCE", "KEY", "VALUE");
    for r in rows {
        println!("{:kw$}  {:vw$}  {}", r.key, r.value, r.source);
    }
}
