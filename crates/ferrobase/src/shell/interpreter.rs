//! Runs shell statements against a [`Connection`], printing what the HBase shell prints.

use super::args::{hbase_message, text, CommandError, Res};
use super::bulk_tables::{AnswerSource, BULK_COMMANDS};
use super::namespace::NAMESPACE_COMMANDS;
use super::rowkey::ROWKEY_COMMANDS;
use super::security::SECURITY_COMMANDS;
use super::syntax::{Statement, Value};
use ferrobase_client::Connection;
use std::collections::HashMap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::Instant;

/// Every command with its one-line help and an example.
pub const COMMANDS: &[(&str, &str, &str)] = &[
    ("create", "Create a table with column families and optional pre-splits.", "create 't1', {NAME => 'f1', VERSIONS => 5}, SPLITS => ['10', '20']"),
    ("alter", "Add, modify or delete column families.", "alter 't1', NAME => 'f1', VERSIONS => 3; alter 't1', 'delete' => 'f2'"),
    ("describe", "Print a table's schema.", "describe 't1'"),
    ("desc", "Alias of describe.", "desc 't1'"),
    ("list", "List tables, optionally matching a regular expression.", "list 'ns:.*'"),
    ("exists", "Does the table exist?", "exists 't1'"),
    ("is_enabled", "Is the table enabled?", "is_enabled 't1'"),
    ("is_disabled", "Is the table disabled?", "is_disabled 't1'"),
    ("enable", "Enable a table.", "enable 't1'"),
    ("disable", "Disable a table.", "disable 't1'"),
    ("drop", "Drop a disabled table.", "drop 't1'"),
    ("truncate", "Disable, empty and re-enable a table (region boundaries dropped).", "truncate 't1'"),
    ("truncate_preserve", "Like truncate, keeping region boundaries.", "truncate_preserve 't1'"),
    ("put", "Write a cell, optionally at a timestamp.", "put 't1', 'r1', 'f1:c1', 'value', 1234"),
    ("get", "Read a row: COLUMN(S), TIMESTAMP, TIMERANGE, VERSIONS, FILTER, RAW, FORMATTER; a column 'f:q:toLong' (or 'f:q:c(org.apache.hadoop.hbase.util.Bytes).toInt') prints its values through that Bytes method.", "get 't1', 'r1', {COLUMN => ['f1:c1', 'f1:hits:toLong'], VERSIONS => 3, FORMATTER => 'toString'}"),
    ("scan", "Scan rows: COLUMNS, LIMIT, STARTROW, STOPROW, ROWPREFIXFILTER, FILTER, TIMERANGE, TIMESTAMP, VERSIONS, REVERSED, CACHE, BATCH, RAW, FORMATTER; columns take converters as in get; ROWKEY => 'schema' with named key fields and FROM/TO reads by rowkey fields (see rowkey_schema).", "scan 't1', {COLUMNS => ['f1:c1', 'f1:hits:toLong'], LIMIT => 10, STARTROW => 'a'}"),
    ("delete", "Delete one version of a cell (the newest, or the one at a timestamp).", "delete 't1', 'r1', 'f1:c1', 1234"),
    ("deleteall", "Delete all versions of a row or a column up to a timestamp, or every row with a prefix.", "deleteall 't1', 'r1', 'f1:c1'; deleteall 't1', {ROWPREFIXFILTER => 'r'}"),
    ("count", "Count rows, printing progress every INTERVAL rows; ROWKEY => 'schema' with named key fields and FROM/TO counts by rowkey fields, as scan.", "count 't1', INTERVAL => 100000, CACHE => 1000"),
    ("incr", "Increment a counter cell.", "incr 't1', 'r1', 'f1:hits', 1"),
    ("get_counter", "Read a counter cell.", "get_counter 't1', 'r1', 'f1:hits'"),
    ("append", "Append to a cell's value.", "append 't1', 'r1', 'f1:c1', 'more'"),
    ("flush", "Flush a table's memstores to files.", "flush 't1'"),
    ("compact", "Minor-compact a table.", "compact 't1'"),
    ("major_compact", "Major-compact a table.", "major_compact 't1'"),
    ("split", "Split a table's regions at their midpoints, or at a row.", "split 't1', 'r5'"),
    ("list_regions", "List a table's regions: SERVER_NAME, REGION_NAME, START_KEY, END_KEY, SIZE (MB of files), REQ (0: not counted), LOCALITY; filter by server prefix, project columns.", "list_regions 't1'; list_regions 't1', '', ['START_KEY', 'SIZE']"),
    ("status", "Show the cluster's status: 'summary' (default), 'simple' or 'detailed'.", "status 'simple'"),
    ("version", "Show the version: VERSION, rREVISION, DATE.", "version"),
    ("whoami", "Show the current user and groups.", "whoami"),
    ("get_table", "Take a reference to a table, on which the table commands are methods (t.help lists them).", "t = get_table 't1'; t.put 'r1', 'f1:c1', 'v'; t.scan"),
    ("help", "Show help for every command or one.", "help 'scan'"),
    ("exit", "Leave the shell.", "exit"),
];

/// Every command of the shell with its one-line help and an example.
pub fn all_commands() -> impl Iterator<Item = &'static (&'static str, &'static str, &'static str)> {
    COMMANDS
        .iter()
        .chain(NAMESPACE_COMMANDS)
        .chain(ROWKEY_COMMANDS)
        .chain(BULK_COMMANDS)
        .chain(SECURITY_COMMANDS)
}

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
                    && all_commands().any(|c| c.0 == st.command);
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

    /// Runs one command (no variables involved).
    pub(super) fn dispatch(&mut self, st: &Statement) -> Res<()> {
        if let Some(r) = self.namespace_command(st) {
            return r;
        }
        if let Some(r) = self.cluster_status_command(st) {
            return r;
        }
        if let Some(r) = self.rowkey_command(st) {
            return r;
        }
        if let Some(r) = self.bulk_tables_command(st) {
            return r;
        }
        if let Some(r) = self.security_command(st) {
            return r;
        }
        if let Some(r) = self.ddl_command(st) {
            return r;
        }
        if let Some(r) = self.dml_command(st) {
            return r;
        }
        if let Some(r) = self.tools_command(st) {
            return r;
        }
        if let Some(r) = self.general_command(st) {
            return r;
        }
        Err(CommandError::Failed(format!(
            "Unknown command '{}'. Type help for the list of commands.",
            st.command
        )))
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
