//! The server's structured logs: `tracing` events written by `tracing-subscriber` as one line
//! each on standard error (time, level, target, message, fields), filtered by a level set with
//! `--log-level`, else `RUST_LOG`, else `info`; the filter can be replaced while the server
//! runs (the console's `/logLevel`, HBase's idea). Standard output keeps the plain lines that
//! scripts read ("ferrobase serving ... on ADDR"); only diagnostics go through here.

use anyhow::{anyhow, Result};
use std::sync::{Arc, Mutex};
use tracing_subscriber::filter::EnvFilter;
use tracing_subscriber::layer::SubscriberExt;
use tracing_subscriber::reload;
use tracing_subscriber::util::SubscriberInitExt;
use tracing_subscriber::Registry;

/// The level used when neither `--log-level` nor `RUST_LOG` names one.
pub const DEFAULT_LEVEL: &str = "info";

/// The running filter: read and replaced by the console. Cheap to clone; thread-safe.
#[derive(Clone)]
pub struct LogControl {
    handle: reload::Handle<EnvFilter, Registry>,
    /// The directive in force, as given (`info`, `debug`, `ferrobase_native=debug,warn`).
    current: Arc<Mutex<String>>,
}

impl std::fmt::Debug for LogControl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("LogControl")
            .field("current", &self.current())
            .finish()
    }
}

impl LogControl {
    /// Installs the process's subscriber with `level` (a level or `RUST_LOG` directives), else
    /// `RUST_LOG`'s, else [`DEFAULT_LEVEL`]. Fails on a directive that does not parse, or when
    /// a subscriber is already installed.
    pub fn install(level: Option<&str>) -> Result<LogControl> {
        let directive = match level {
            Some(l) => l.to_string(),
            None => std::env::var("RUST_LOG")
                .ok()
                .filter(|v| !v.trim().is_empty())
                .unwrap_or_else(|| DEFAULT_LEVEL.to_string()),
        };
        let filter = parse(&directive)?;
        let (layer, handle) = reload::Layer::new(filter);
        let format = tracing_subscriber::fmt::layer()
            .with_writer(std::io::stderr)
            .with_ansi(false);
        tracing_subscriber::registry()
            .with(layer)
            .with(format)
            .try_init()
            .map_err(|e| anyhow!("installing the log subscriber: {e}"))?;
        Ok(LogControl {
            handle,
            current: Arc::new(Mutex::new(directive)),
        })
    }

    /// The directive in force.
    pub fn current(&self) -> String {
        self.current
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .clone()
    }

    /// Replaces the filter by `directive` (`trace`, `debug`, `info`, `warn`, `error`, `off`
    /// or `RUST_LOG` directives); a directive that does not parse changes nothing.
    pub fn set(&self, directive: &str) -> Result<()> {
        let directive = directive.trim();
        let filter = parse(directive)?;
        self.handle
            .reload(filter)
            .map_err(|e| anyhow!("changing the log level: {e}"))?;
        *self.current.lock().unwrap_or_else(|p| p.into_inner()) = directive.to_string();
        tracing::warn!(level = directive, "log level changed");
        Ok(())
    }
}

/// `directive` as a filter: refused when empty or when a part does not parse (`EnvFilter`
/// alone would skip a bad part silently).
fn parse(directive: &str) -> Result<EnvFilter> {
    if directive.trim().is_empty() {
        return Err(anyhow!(
            "a log level is trace, debug, info, warn, error or off, or RUST_LOG directives"
        ));
    }
    // A bare word would be taken as a target to trace: only levels stand alone here.
    const LEVELS: [&str; 6] = ["trace", "debug", "info", "warn", "error", "off"];
    if let Some(bad) = directive.split(',').map(str::trim).find(|part| {
        !part.contains('=') && !part.contains('[') && !LEVELS.contains(&&*part.to_lowercase())
    }) {
        return Err(anyhow!(
            "log level {bad:?}: a level is trace, debug, info, warn, error or off (or a \
             RUST_LOG directive TARGET=LEVEL)"
        ));
    }
    EnvFilter::builder().parse(directive).map_err(|e| {
        anyhow!(
            "log level {directive:?}: {e} (a level is trace, debug, info, warn, error or off, \
             or RUST_LOG directives such as ferrobase_native=debug,info)"
        )
    })
}

#[cfg(test)]
mod tests {
    #[test]
    fn bad_directives_are_refused() {
        assert!(super::parse("debug").is_ok());
        assert!(super::parse("ferrobase_native=debug,warn").is_ok());
        assert!(super::parse("").is_err());
        assert!(super::parse("loud").is_err());
    }
}
