//! Runs shell statements against a [`Connection`], printing what the HBase shell prints.

use super::args::{hbase_message, text, CommandError, Res};
use super::bulk_tables::AnswerSource;
use super::syntax::{Statement, Value};
use ferrobase_client::Connection;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Attribute keys offered by completion.
pub const ATTRIBUTES: &[&str] = &[
    "NAME",
    "VERSIONS",
    "MIN_VERSIONS",
    "TTL",
    "KEEP_DELETED_CELLS",
    "BLOCKSIZE",
    "BLOCKCACHE",
    "IN_MEMORY",
    "BLOOMFILTER",
    "COMPRESSION",
    "DATA_BLOCK_ENCODING",
    "SPLITS",
    "NUMREGIONS",
    "SPLITALGO",
    "METHOD",
    "COLUMN",
    "COLUMNS",
    "LIMIT",
    "STARTROW",
    "STOPROW",
    "ROWPREFIXFILTER",
    "FILTER",
    "TIMERANGE",
    "TIMESTAMP",
    "REVERSED",
    "CACHE",
    "BATCH",
    "RAW",
    "INTERVAL",
    "FORMATTER",
    "FORMATTER_CLASS",
    "ROWKEY",
    "FROM",
    "TO",
    "METADATA",
    "CONFIGURATION",
    "MAX_FILESIZE",
    "READONLY",
    "DURABILITY",
];

/// The interpreter state.
pub struct Shell {
    /// The connection statements run on.
    pub conn: Connection,
    out: Box<dyn Write>,
    /// The statement's value, printed as `=> value` after `Took`, as irb does.
    pub(super) echo: Option<String>,
    /// Set by Ctrl-C (SIGINT) while a statement runs; long-running commands (scan, count,
    /// deleteall by prefix) stop at their next batch. Cleared before each statement.
    interrupt: Arc<AtomicBool>,
    /// Table references: variable name to table name (`t = get_table 't'`).
    pub(super) variables: HashMap<String, String>,
    /// Whether the statement prints `Took ...` (irb prints none for a bare expression).
    pub(super) took: bool,
    /// Where `disable_all`/`enable_all`/`drop_all` read their (y/n) answer; standard input when
    /// unset.
    pub(super) answers: Option<AnswerSource>,
    /// Rowkey schemas defined by `rowkey_schema`, by name.
    pub(super) rowkey_schemas: std::collections::BTreeMap<String, ferrobase_rowkey::Schema>,
    /// When the shell opened its connection (ms since the epoch): an embedded engine's start
    /// code in `status` and `list_regions`.
    pub(super) opened_ms: u64,
}

impl Shell {
    /// A shell on `conn` printing to `out`.
    pub fn new(conn: Connection, out: Box<dyn Write>) -> Shell {
        Shell {
            conn,
            out,
            echo: None,
            interrupt: Arc::new(AtomicBool::new(false)),
            variables: HashMap::new(),
            took: true,
            opened_ms: super::cluster_status::now_ms(),
            rowkey_schemas: Default::default(),
            answers: None,
        }
    }

    /// The flag Ctrl-C sets to interrupt the running statement (see [`Shell::run`]).
    pub fn interrupt_flag(&self) -> Arc<AtomicBool> {
        self.interrupt.clone()
    }

    /// Fails with [`CommandError::Interrupted`] once Ctrl-C was pressed.
    pub(super) fn check_interrupt(&self) -> Res<()> {
        if self.interrupt.load(Ordering::Relaxed) {
            return Err(CommandError::Interrupted);
        }
        Ok(())
    }

    /// Flushes what was printed (before waiting for input).
    pub(super) fn flush_output(&mut self) {
        let _ = self.out.flush();
    }

    /// Prints one line of output.
    pub(super) fn line(&mut self, s: &str) {
        let _ = writeln!(self.out, "{s}");
    }

    /// Runs one statement; prints its output, `Took ...` and, on failure, `ERROR: ...`.
    /// Returns false when it failed; `Ok(None)` means exit was requested.
    pub fn run(&mut self, st: &Statement) -> Option<bool> {
        if matches!(st.command.as_str(), "exit" | "quit") {
            return None;
        }
        let t0 = Instant::now();
        self.echo = None;
        self.took = st.command != "help";
        self.interrupt.store(false, Ordering::Relaxed);
        let res = match self.table_reference_statement(st) {
            Some(r) => r,
            None => self.dispatch(st),
        };
        let ok = match res {
            Ok(()) => true,
            Err(CommandError::Interrupted) => {
                let _ = self.out.flush();
                self.line("");
                self.line("ERROR: Interrupted (Ctrl-C)");
                false
            }
            Err(e) => {
                let known = !matches!(e, CommandError::Name(_))
                    && super::registry::find(&st.command).is_some_and(|c| c.is_supported());
                let table = match &st.receiver {
                    Some(var) => self.variables.get(var).cloned().unwrap_or_default(),
                    None => st.args.first().and_then(Value::as_text).unwrap_or_default(),
                };
                let msg = hbase_message(&e, &st.command, &table);
                // HBase's layout: the message, then where to read the command's usage.
                self.line("");
                self.line(&format!("ERROR: {}", msg.lines().next().unwrap_or("")));
                if known {
                    self.line("");
                    self.line(&format!("For usage try 'help \"{}\"'", st.command));
                }
                self.line("");
                false
            }
        };
        if self.took {
            self.line(&format!("Took {:.4} seconds", t0.elapsed().as_secs_f64()));
        }
        if let (true, Some(e)) = (ok, self.echo.take()) {
            self.line(&format!("=> {e}"));
        }
        let _ = self.out.flush();
        Some(ok)
    }
}

/// The names matching a `list`-style regular expression (anchored, as Java's `matches`).
pub(super) fn matching(pattern: Option<&Value>, names: Vec<String>) -> Res<Vec<String>> {
    let Some(p) = pattern else {
        return Ok(names);
    };
    let re = regex::Regex::new(&format!("^(?:{})$", text(p, "pattern")?))
        .map_err(|e| format!("bad pattern: {e}"))?;
    Ok(names.into_iter().filter(|n| re.is_match(n)).collect())
}
