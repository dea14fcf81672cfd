//! Runs shell statements against a [`Connection`], printing what the HBase shell prints.

use super::alter::{apply_family_attributes, TableAttributeChanges};
use super::args::{
    arity, boolean, bytes, client, columns_of, hash, hbase_message, illegal, int, parse_column,
    text, time_range, to_bytes_binary, unsupported_option, CommandError, Res,
};
use super::bulk_tables::{AnswerSource, BULK_COMMANDS};
use super::converter::{self, Converter, Converters};
use super::format;
use super::namespace::NAMESPACE_COMMANDS;
use super::query_options::{self, MetricsRequest, ScanMetrics};
use super::rowkey::{RowkeyScan, ROWKEY_COMMANDS};
use super::security::SECURITY_COMMANDS;
use super::syntax::{Statement, Value};
use ferrobase_client::Connection;
use ferrobase_engine::{
    ColumnFamilyDescriptor, Delete, Get, Put, RowResult, Scan, SplitAlgorithm, TableDescriptor,
    TableName, LATEST_TIMESTAMP,
};
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
        let a = &st.args;
        match st.command.as_str() {
            "create" => self.create(st),
            "alter" => self.alter(st),
            "describe" | "desc" => {
                arity(st, 1, 1)?;
                self.describe(&text(&a[0], "table name")?)
            }
            "list" => {
                arity(st, 0, 1)?;
                self.list(a.first())
            }
            "exists" => {
                arity(st, 1, 1)?;
                let t = text(&a[0], "table name")?;
                let e = self.conn.table_exists(&t).map_err(client)?;
                self.line(&format!(
                    "Table {t} {} exist",
                    if e { "does" } else { "does not" }
                ));
                self.echo = Some(e.to_string());
                Ok(())
            }
            "is_enabled" | "is_disabled" => {
                arity(st, 1, 1)?;
                let t = text(&a[0], "table name")?;
                let en = self.conn.is_enabled(&t).map_err(client)?;
                let v = if st.command == "is_enabled" { en } else { !en };
                self.line(&v.to_string());
                self.echo = Some(v.to_string());
                Ok(())
            }
            "enable" | "disable" => {
                arity(st, 1, 1)?;
                let t = text(&a[0], "table name")?;
                let enable = st.command == "enable";
                // As HBase's admin.rb: enabling an enabled table (or disabling a disabled
                // one) is a no-op.
                if self.conn.is_enabled(&t).map_err(client)? == enable {
                    return Ok(());
                }
                self.conn.set_enabled(&t, enable).map_err(client)
            }
            "drop" => {
                arity(st, 1, 1)?;
                let t = text(&a[0], "table name")?;
                if self.conn.is_enabled(&t).map_err(client)? {
                    return Err(CommandError::Failed(format!(
                        "Table {t} is enabled. Disable it first."
                    )));
                }
                self.conn.drop_table(&t).map_err(client)
            }
            "truncate" | "truncate_preserve" => {
                arity(st, 1, 1)?;
                let t = text(&a[0], "table name")?;
                self.line(&format!("Truncating '{t}' table (it may take a while):"));
                self.line("Disabling table...");
                self.line("Truncating table...");
                self.conn
                    .truncate(&t, st.command == "truncate_preserve")
                    .map_err(client)
            }
            "put" => self.put(st),
            "get" => self.get(st),
            "scan" => self.scan(st),
            "delete" | "deleteall" => self.delete(st),
            "count" => self.count(st),
            "incr" | "get_counter" => self.counter(st),
            "append" => {
                arity(st, 4, 5)?;
                if let Some(opts) = a.get(4) {
                    reject_mutation_options(st, opts)?;
                }
                let t = self.conn.table(&text(&a[0], "table name")?);
                let (f, q) = parse_column(&bytes(&a[2], "column")?);
                let v = t
                    .append(
                        &bytes(&a[1], "row")?,
                        &f,
                        &q.unwrap_or_default(),
                        &bytes(&a[3], "value")?,
                    )
                    .map_err(client)?;
                self.line(&format!("CURRENT VALUE = {}", format::binary(&v)));
                Ok(())
            }
            "flush" | "compact" | "major_compact" => {
                arity(st, 1, if st.command == "flush" { 2 } else { 3 })?;
                let t = text(&a[0], "table name")?;
                // `compact 't', nil, 'MOB'`: HBase's compaction type (NORMAL or MOB).
                match a.get(2).map(|v| text(v, "compaction type")).transpose()? {
                    None => {}
                    Some(k) if k == "NORMAL" => {}
                    Some(k) if k == "MOB" => {
                        return Err(
                            "compaction type MOB is not supported by ferrobase (it has no \
                                    MOB files)"
                                .into(),
                        )
                    }
                    Some(k) => {
                        return Err(format!(
                            "No enum constant org.apache.hadoop.hbase.client.CompactType.{k}"
                        )
                        .into())
                    }
                }
                // One family's flush or compaction runs as the whole table's: the same cells
                // result, with more work done.
                if let Some(f) = a.get(1).filter(|v| **v != Value::Nil) {
                    let f = bytes(f, "column family")?;
                    let families = self.conn.describe_table(&t).map_err(client)?;
                    if !families.iter().any(|d| d.name == f) {
                        return Err(format!(
                            "column family {} does not exist in table {t}",
                            format::binary(&f)
                        )
                        .into());
                    }
                }
                match st.command.as_str() {
                    "compact" => self.conn.compact(&t, false).map_err(client),
                    "major_compact" => self.conn.compact(&t, true).map_err(client),
                    _ => self.conn.flush(&t).map_err(client),
                }
            }
            "split" => {
                arity(st, 1, 2)?;
                let t = text(&a[0], "table name")?;
                let key = a.get(1).map(|v| bytes(v, "split key")).transpose()?;
                self.conn.split(&t, key.as_deref()).map_err(client)
            }
            "help" => {
                arity(st, 0, 1)?;
                match a.first() {
                    Some(v) => {
                        let name = text(v, "command")?;
                        self.help_command(&name)?;
                    }
                    None => {
                        self.line("ferrobase shell: HBase shell statements. Commands:");
                        for (c, what, _) in all_commands() {
                            self.line(&format!("  {c:<18} {what}"));
                        }
                        self.line("Type help 'command' for an example.");
                    }
                }
                Ok(())
            }
            other => Err(CommandError::Failed(format!(
                "Unknown command '{other}'. Type help for the list of commands."
            ))),
        }
    }

    /// `incr 't', 'r', 'f:q'[, n]` and `get_counter 't', 'r', 'f:q'`.
    fn counter(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        let incr = st.command == "incr";
        if incr {
            arity(st, 3, 5)?;
        } else {
            arity(st, 3, 3)?;
        }
        let t = self.conn.table(&text(&a[0], "table name")?);
        let row = bytes(&a[1], "row")?;
        let (f, q) = parse_column(&bytes(&a[2], "column")?);
        let q = q.unwrap_or_default();
        if !incr {
            let r = t
                .get(Get::new(row).add_column(f.clone(), q.clone()), None)
                .map_err(client)?;
            match r.value(&f, &q) {
                None => self.line("No counter found at specified coordinates"),
                Some(v) => match <[u8; 8]>::try_from(v) {
                    Ok(b) => self.line(&format!("COUNTER VALUE = {}", i64::from_be_bytes(b))),
                    Err(_) => {
                        return Err(CommandError::Failed(
                            "the cell is not an 8-byte counter".into(),
                        ))
                    }
                },
            }
            return Ok(());
        }
        let mut n = 1;
        for (i, v) in a[3..].iter().enumerate() {
            match v {
                Value::Hash(_) => reject_mutation_options(st, v)?,
                _ if i == 0 => n = int(v, "increment")?,
                other => return Err(format!("incr: unexpected argument {}", other.kind()).into()),
            }
        }
        let v = t.increment(&row, &f, &q, n).map_err(client)?;
        self.line(&format!("COUNTER VALUE = {v}"));
        Ok(())
    }

    /// Prints one command's help.
    pub(super) fn help_command(&mut self, name: &str) -> Res<()> {
        let (_, what, example) = all_commands()
            .find(|(c, _, _)| *c == name)
            .ok_or_else(|| format!("unknown command '{name}'; type help for the list"))?;
        self.line(&format!("{name}: {what}\nExample:\n  {example}"));
        Ok(())
    }

    fn create(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, usize::MAX)?;
        let name = text(&st.args[0], "table name")?;
        let mut desc = TableDescriptor::new(TableName::parse(&name).map_err(illegal)?);
        let mut splits: Vec<Vec<u8>> = Vec::new();
        let mut numregions: Option<i64> = None;
        let mut algo: Option<SplitAlgorithm> = None;
        // HBase flattens the arguments: `create 't', ['f1', 'f2']` names two families.
        let mut flat = Vec::new();
        for v in &st.args[1..] {
            match v {
                Value::Array(items) => flat.extend(items.iter()),
                other => flat.push(other),
            }
        }
        for v in flat {
            match v {
                Value::Str(_) | Value::Const(_) => {
                    desc = desc.with_family(ColumnFamilyDescriptor::new(bytes(v, "family")?))
                }
                Value::Hash(_) => {
                    let pairs = hash(v, "family")?;
                    if let Some((_, n)) = pairs.iter().find(|(k, _)| k == "NAME") {
                        let mut f = ColumnFamilyDescriptor::new(bytes(n, "NAME")?);
                        apply_family_attributes(&mut f, &pairs)?;
                        desc = desc.with_family(f);
                        continue;
                    }
                    for (k, v) in pairs {
                        match k.as_str() {
                            "SPLITS" => {
                                splits =
                                    columns_of(&v)?.iter().map(|k| to_bytes_binary(k)).collect()
                            }
                            "SPLITS_FILE" => splits = splits_file(&text(&v, "SPLITS_FILE")?)?,
                            "NUMREGIONS" => numregions = Some(int(&v, "NUMREGIONS")?),
                            "SPLITALGO" => {
                                algo = Some(
                                    SplitAlgorithm::parse(&text(&v, "SPLITALGO")?)
                                        .map_err(illegal)?,
                                )
                            }
                            "DURABILITY" => {
                                desc.durability =
                                    ferrobase_engine::Durability::parse(&text(&v, "DURABILITY")?)
                                        .map_err(illegal)?
                            }

                            "METHOD" if text(&v, "METHOD")? == "table_att" => {}
                            "METHOD" => {
                                return Err(
                                    "table_att is currently the only supported method".into()
                                )
                            }
                            other => {
                                let mut changes = TableAttributeChanges::default();
                                if !changes.read(other, &v)? {
                                    return Err(format!(
                                        "table attribute {other} is not supported by ferrobase"
                                    )
                                    .into());
                                }
                                for (k, v) in &changes.set {
                                    desc.attributes.set(k, v).map_err(illegal)?;
                                }
                            }
                        }
                    }
                }
                other => {
                    return Err(format!(
                        "{} of {other:?} is not of Hash or String type",
                        other.kind()
                    )
                    .into())
                }
            }
        }
        match (numregions, algo) {
            (None, None) => {}
            (None, Some(_)) => return Err("Number of regions must be specified".into()),
            (Some(_), None) => return Err("Split algorithm must be specified".into()),
            (Some(n), _) if n <= 1 => return Err("Number of regions must be greater than 1".into()),
            (Some(n), Some(algo)) => splits = algo.split_keys(n as usize).map_err(illegal)?,
        }
        if desc.families.is_empty() {
            return Err("Table must have at least one column family".into());
        }
        self.conn.create_table(desc, &splits).map_err(client)?;
        self.line(&format!("Created table {name}"));
        self.echo = Some(format!("Hbase::Table - {name}"));
        Ok(())
    }

    fn describe(&mut self, name: &str) -> Res<()> {
        let fams = self.conn.describe_table(name).map_err(client)?;
        let enabled = self.conn.is_enabled(name).map_err(client)?;
        self.line(&format!(
            "Table {name} is {}",
            if enabled { "ENABLED" } else { "DISABLED" }
        ));
        let described = self.conn.table_attributes(name).map_err(client)?;
        let attributes = match &described {
            Some((durability, attrs)) => format::table_attributes(*durability, attrs),
            None => String::new(),
        };
        self.line(&format!("{name}{attributes}"));
        self.describe_rowkey_schema(name, described.as_ref().map(|(_, attrs)| attrs));
        self.line("COLUMN FAMILIES DESCRIPTION");
        for f in &fams {
            self.line(&match self.conn {
                Connection::Remote(_) => format::family_thrift1(f),
                Connection::Embedded(_) => format::family(f),
            });
        }
        self.line(&format!("{} row(s)", fams.len()));
        Ok(())
    }

    fn list(&mut self, pattern: Option<&Value>) -> Res<()> {
        let names = self.conn.list_tables().map_err(client)?;
        self.name_list("TABLE", matching(pattern, names)?);
        Ok(())
    }

    /// Prints names under a one-column header with HBase's `N row(s)` footer, and sets the
    /// statement's value to the list, as `list` and `list_namespace_tables` do.
    pub(super) fn name_list(&mut self, header: &str, names: Vec<String>) {
        self.line(header);
        for n in &names {
            self.line(n);
        }
        self.line(&format!("{} row(s)", names.len()));
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        self.echo = Some(format!("[{}]", quoted.join(", ")));
    }

    fn put(&mut self, st: &Statement) -> Res<()> {
        arity(st, 4, 6)?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let (f, q) = parse_column(&bytes(&st.args[2], "column")?);
        let mut ts = LATEST_TIMESTAMP;
        let mut ttl_ms = None;
        for (i, v) in st.args[4..].iter().enumerate() {
            match v {
                Value::Hash(_) => ttl_ms = put_ttl(st, v)?,
                _ if i == 0 => ts = int(v, "timestamp")?,
                other => return Err(format!("put: unexpected argument {}", other.kind()).into()),
            }
        }
        let mut put = Put::new(bytes(&st.args[1], "row")?).add_column_ts(
            f,
            q.unwrap_or_default(),
            ts,
            bytes(&st.args[3], "value")?,
        );
        put.ttl_ms = ttl_ms;
        t.put(put).map_err(client)
    }

    fn get(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, usize::MAX)?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let mut get = Get::new(bytes(&st.args[1], "row")?);
        let mut metrics = MetricsRequest::None;
        let mut filter = None;
        let mut converters = Converters::default();
        for v in &st.args[2..] {
            match v {
                Value::Hash(_) => {
                    for (k, v) in hash(v, "get options")? {
                        match k.as_str() {
                            "COLUMN" | "COLUMNS" => {
                                for c in columns_of(&v)? {
                                    get = match converters.column(&c)? {
                                        (f, None) => get.add_family(f),
                                        (f, Some(q)) => get.add_column(f, q),
                                    };
                                }
                            }
                            "FORMATTER" => {
                                converters.set_default(Converter::parse(&text(&v, "FORMATTER")?)?)
                            }
                            "FORMATTER_CLASS" => {
                                converter::check_class(&text(&v, "FORMATTER_CLASS")?)?
                            }
                            "TIMESTAMP" => get = get.timestamp(int(&v, "TIMESTAMP")?),
                            "TIMERANGE" => get = get.time_range(time_range(&v)?),
                            "VERSIONS" => {
                                get = get.max_versions(int(&v, "VERSIONS")?.max(1) as u32)
                            }
                            "FILTER" => filter = Some(bytes(&v, "FILTER")?),
                            "RAW" => get = get.raw(boolean(&v, "RAW")?),
                            other if query_options::read(other, &v, false, &mut metrics)? => {}
                            other => return Err(format!("unknown get option {other}").into()),
                        }
                    }
                }
                other => {
                    for c in columns_of(other)? {
                        get = match converters.column(&c)? {
                            (f, None) => get.add_family(f),
                            (f, Some(q)) => get.add_column(f, q),
                        };
                    }
                }
            }
        }
        let r = t.get(get, filter.as_deref()).map_err(client)?;
        self.line(&format::header("COLUMN", "CELL"));
        // Converted first: a converter's failure prints no partial result, as in HBase (which
        // prints the header, then the error).
        let mut lines = Vec::with_capacity(r.cells.len());
        for c in &r.cells {
            let col = format!(
                "{}:{}",
                format::binary(c.family()),
                format::binary(c.qualifier())
            );
            let value = converters.value(c)?;
            lines.push((col, format::cell_with_value(c, &value)));
        }
        for (col, body) in lines {
            let body = body
                .split_once(", ")
                .map(|x| x.1)
                .unwrap_or(&body)
                .to_string();
            self.line(&format::two_columns(&col, &body));
        }
        // HBase's get counts the row once, however many cells it has.
        self.line(&format!("{} row(s)", usize::from(!r.cells.is_empty())));
        Ok(())
    }

    /// A scan, its filter string and its value converters from scan options (`scan`'s and
    /// `count`'s hash).
    fn scan_spec(opts: Option<&Value>) -> Res<(Scan, Option<Vec<u8>>, Converters)> {
        let mut scan = Scan::new();
        let mut filter = None;
        let mut converters = Converters::default();
        let mut prefix = None;
        let mut start = None;
        let mut stop = None;
        if let Some(v) = opts {
            for (k, v) in hash(v, "scan options")? {
                match k.as_str() {
                    "COLUMNS" | "COLUMN" => {
                        for c in columns_of(&v)? {
                            scan = match converters.column(&c)? {
                                (f, None) => scan.add_family(f),
                                (f, Some(q)) => scan.add_column(f, q),
                            };
                        }
                    }
                    "FORMATTER" => {
                        converters.set_default(Converter::parse(&text(&v, "FORMATTER")?)?)
                    }
                    "FORMATTER_CLASS" => converter::check_class(&text(&v, "FORMATTER_CLASS")?)?,
                    "LIMIT" => scan = scan.limit(int(&v, "LIMIT")?.max(0) as usize),
                    "STARTROW" => start = Some(bytes(&v, "STARTROW")?),
                    "STOPROW" | "ENDROW" => stop = Some(bytes(&v, "STOPROW")?),
                    "ROWPREFIXFILTER" => prefix = Some(bytes(&v, "ROWPREFIXFILTER")?),
                    "FILTER" => filter = Some(bytes(&v, "FILTER")?),
                    "TIMERANGE" => scan = scan.time_range(time_range(&v)?),
                    "TIMESTAMP" => scan = scan.timestamp(int(&v, "TIMESTAMP")?),
                    "VERSIONS" => scan = scan.max_versions(int(&v, "VERSIONS")?.max(1) as u32),
                    "REVERSED" => scan = scan.reversed(boolean(&v, "REVERSED")?),
                    "BATCH" => scan = scan.batch(int(&v, "BATCH")?.max(1) as usize),
                    "RAW" => scan = scan.raw(boolean(&v, "RAW")?),
                    // METRICS and ALL_METRICS are scan's (it prints them); read here to check.
                    other if query_options::read(other, &v, true, &mut MetricsRequest::None)? => {}
                    other => return Err(format!("unknown scan option {other}").into()),
                }
            }
        }
        if let Some(p) = prefix {
            scan = scan.with_row_prefix(p);
        }
        if let Some(s) = start {
            scan = scan.with_start_row(s);
        }
        if let Some(s) = stop {
            scan = scan.with_stop_row(s);
        }
        Ok((scan, filter, converters))
    }

    fn scan(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 2)?;
        let name = text(&st.args[0], "table name")?;
        if name == "hbase:meta" {
            return Err(CommandError::Failed(
                "hbase:meta does not exist in ferrobase (it has no catalog table); \
                 list_regions 't' lists a table's regions"
                    .into(),
            ));
        }
        let t = self.conn.table(&name);
        let mut opts = match st.args.get(1) {
            Some(Value::Hash(pairs)) => Some(pairs.clone()),
            Some(other) => {
                return Err(format!("scan options must be a hash, got {}", other.kind()).into())
            }
            None => None,
        };
        let rowkey = match opts.as_mut() {
            Some(pairs) => self.rowkey_scan(pairs)?,
            None => None,
        };
        let mut metrics = MetricsRequest::None;
        for (k, v) in opts.iter().flatten() {
            if let Some(key @ ("METRICS" | "ALL_METRICS")) = k.as_text().as_deref() {
                query_options::read(key, v, true, &mut metrics)?;
            }
        }
        let (scan, filter, converters) = Self::scan_spec(opts.map(Value::Hash).as_ref())?;
        if let Some(rk) = rowkey {
            self.line(&format::header("ROW", "COLUMN+CELL"));
            let rows = self.run_rowkey_scan(&t, scan, filter.as_deref(), &rk, &converters)?;
            self.line(&format!("{rows} row(s)"));
            return Ok(());
        }
        let mut scanner = t.scanner(scan, filter.as_deref()).map_err(client)?;
        self.line(&format::header("ROW", "COLUMN+CELL"));
        let mut rows = 0;
        let mut last: Option<ferrobase_engine::Bytes> = None;
        let mut measured = ScanMetrics {
            remote: matches!(self.conn, Connection::Remote(_)),
            ..ScanMetrics::default()
        };
        loop {
            self.check_interrupt()?;
            let batch: Vec<RowResult> = scanner.next_batch(100).map_err(client)?;
            if batch.is_empty() {
                break;
            }
            measured.rpc_calls += 1;
            for r in batch {
                if last.as_deref() != Some(r.row()) {
                    rows += 1;
                    last = Some(r.row_bytes());
                }
                for c in &r.cells {
                    measured.bytes_in_results += query_options::estimated_serialized_size(c);
                    let value = converters.value(c)?;
                    self.line(&format::two_columns(
                        &format::binary(r.row()),
                        &format::cell_with_value(c, &value),
                    ));
                }
            }
        }
        self.line(&format!("{rows} row(s)"));
        if metrics != MetricsRequest::None {
            // HBase makes one call even when no row comes back.
            measured.rpc_calls = measured.rpc_calls.max(1);
            measured.rows_scanned = rows;
            measured.regions_scanned = self.conn.regions(t.name()).map_err(client)?.len() as u64;
            for l in measured.lines(&metrics) {
                self.line(&l);
            }
        }
        Ok(())
    }

    /// `delete 't', 'r', 'f:q'[, ts]` (one version), `deleteall 't', 'r'[, 'f[:q]'[, ts]]` (every
    /// version up to `ts`), and `deleteall 't', {ROWPREFIXFILTER => 'p'}[, 'f[:q]'[, ts]]`, which
    /// deletes the same coordinates in every row starting with the prefix.
    fn delete(&mut self, st: &Statement) -> Res<()> {
        let all = st.command == "deleteall";
        arity(st, if all { 2 } else { 3 }, 5)?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let mut rest: Vec<&Value> = st.args[2..].iter().collect();
        if let Some(opts @ Value::Hash(_)) = rest.last() {
            reject_mutation_options(st, opts)?;
            rest.pop();
        }
        if rest.len() > 2 {
            return Err(format!("{}: unexpected argument {}", st.command, rest[2].kind()).into());
        }
        // An empty column (`deleteall 't', 'r', '', ts`) means the whole row, as in HBase.
        let column = rest
            .first()
            .map(|c| bytes(c, "column"))
            .transpose()?
            .filter(|c| !c.is_empty())
            .map(|c| parse_column(&c));
        let ts = rest
            .get(1)
            .map(|v| int(v, "timestamp"))
            .transpose()?
            .unwrap_or(LATEST_TIMESTAMP);
        let delete_of = |row: Vec<u8>| -> Delete {
            match &column {
                None => Delete::with_timestamp(row, ts),
                // HBase's `delete` of a family is `addFamilyVersion`: the family's cells at
                // exactly `ts`; `deleteall`'s is `addFamily`: every version up to `ts`.
                Some((f, None)) if all => Delete::new(row).add_family_ts(f.clone(), ts),
                Some((f, None)) => Delete::new(row).add_family_version(f.clone(), ts),
                Some((f, Some(q))) if all => {
                    Delete::new(row).add_columns_ts(f.clone(), q.clone(), ts)
                }
                Some((f, Some(q))) => Delete::new(row).add_column_ts(f.clone(), q.clone(), ts),
            }
        };
        let Value::Hash(_) = &st.args[1] else {
            return t
                .delete(delete_of(bytes(&st.args[1], "row")?))
                .map_err(client);
        };
        if !all {
            return Err("delete takes a row, not a hash; deleteall takes ROWPREFIXFILTER".into());
        }
        let mut prefix = None;
        for (k, v) in hash(&st.args[1], "deleteall options")? {
            match k.as_str() {
                "ROWPREFIXFILTER" => prefix = Some(bytes(&v, "ROWPREFIXFILTER")?),
                // The scan that finds the rows: how many it fetches at a time.
                "CACHE" => {
                    int(&v, "CACHE")?;
                }
                other => return Err(format!("unknown deleteall option {other}").into()),
            }
        }
        let prefix = prefix.ok_or("deleteall with a hash needs ROWPREFIXFILTER")?;
        let mut scanner = t
            .scanner(
                Scan::new().with_row_prefix(prefix),
                Some(b"KeyOnlyFilter()"),
            )
            .map_err(client)?;
        loop {
            self.check_interrupt()?;
            let batch = scanner.next_batch(1000).map_err(client)?;
            if batch.is_empty() {
                break;
            }
            for r in batch {
                t.delete(delete_of(r.row().to_vec())).map_err(client)?;
            }
        }
        Ok(())
    }

    /// `count 't'[, {INTERVAL => n, CACHE => n, STARTROW/STOPROW/ROWPREFIXFILTER/COLUMNS/
    /// FILTER/TIMERANGE ...}]` (or the old `count 't', interval`): counts rows with a
    /// `FirstKeyOnlyFilter` ANDed to the user's filter, as HBase's `_count_internal`. With
    /// `ROWKEY => 'schema'` and key fields (as `scan` takes them) it counts those key ranges.
    fn count(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 2)?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let mut interval = 1000i64;
        let mut scan_opts = Vec::new();
        let mut rowkey = None;
        match st.args.get(1) {
            None => {}
            Some(Value::Int(n)) => interval = (*n).max(1),
            Some(v) => {
                let v = self.rowkey_count_options(v, &mut rowkey)?;
                for (k, v) in hash(&v, "count options")? {
                    match k.as_str() {
                        "INTERVAL" => interval = int(&v, "INTERVAL")?.max(1),
                        "CACHE" => {
                            int(&v, "CACHE")?;
                        }
                        "STARTROW" | "STOPROW" | "ENDROW" | "ROWPREFIXFILTER" | "COLUMNS"
                        | "COLUMN" | "FILTER" | "TIMERANGE" | "TIMESTAMP" | "CACHE_BLOCKS" => {
                            scan_opts.push((Value::Str(k.into_bytes()), v))
                        }
                        other => return Err(format!("unknown count option {other}").into()),
                    }
                }
            }
        }
        let (scan, filter, _) = Self::scan_spec(Some(&Value::Hash(scan_opts)))?;
        let filter = match filter {
            Some(f) => {
                let mut all = b"(".to_vec();
                all.extend_from_slice(&f);
                all.extend_from_slice(b") AND FirstKeyOnlyFilter()");
                all
            }
            None => b"FirstKeyOnlyFilter() AND KeyOnlyFilter()".to_vec(),
        };
        let scans = match &rowkey {
            Some(rk) => RowkeyScan::scans(rk, &scan),
            None => vec![scan],
        };
        let mut n = 0i64;
        for scan in scans {
            let mut scanner = t.scanner(scan, Some(&filter)).map_err(client)?;
            let mut last: Option<ferrobase_engine::Bytes> = None;
            loop {
                self.check_interrupt()?;
                let batch = scanner.next_batch(1000).map_err(client)?;
                if batch.is_empty() {
                    break;
                }
                for r in batch {
                    if last.as_deref() == Some(r.row()) {
                        continue;
                    }
                    last = Some(r.row_bytes());
                    n += 1;
                    if n % interval == 0 {
                        let shown = match &rowkey {
                            Some(rk) => rk.shown(r.row()),
                            None => format::binary(r.row()),
                        };
                        self.line(&format!("Current count: {n}, row: {shown}"));
                    }
                }
            }
        }
        self.line(&format!("{n} row(s)"));
        self.echo = Some(n.to_string());
        Ok(())
    }
}

/// The names matching a `list`-style regular expression (anchored, as Java's `matches`).
/// `SPLITS_FILE => 'path'`: one split key a line, as HBase's `admin.rb` reads it (through
/// `toBytesBinary`).
fn splits_file(path: &str) -> Res<Vec<Vec<u8>>> {
    if !std::path::Path::new(path).exists() {
        return Err(format!("Splits file {path} doesn't exist").into());
    }
    let text = std::fs::read(path).map_err(|e| format!("Splits file {path}: {e}"))?;
    // Ruby's `File.foreach` and `chomp`: lines without their `\n` or `\r\n`.
    Ok(text
        .split_inclusive(|&b| b == b'\n')
        .map(|l| {
            let l = l.strip_suffix(b"\n").unwrap_or(l);
            to_bytes_binary(l.strip_suffix(b"\r").unwrap_or(l))
        })
        .collect())
}

pub(super) fn matching(pattern: Option<&Value>, names: Vec<String>) -> Res<Vec<String>> {
    let Some(p) = pattern else {
        return Ok(names);
    };
    let re = regex::Regex::new(&format!("^(?:{})$", text(p, "pattern")?))
        .map_err(|e| format!("bad pattern: {e}"))?;
    Ok(names.into_iter().filter(|n| re.is_match(n)).collect())
}

/// The cell TTL of a put's options hash, `{TTL => ms}` (HBase's shell: `set_op_ttl`, that is
/// `Put.setTTL`, in milliseconds); `ATTRIBUTES` is accepted and the other options are refused
/// as [`reject_mutation_options`] refuses them.
fn put_ttl(st: &Statement, v: &Value) -> Res<Option<i64>> {
    let mut ttl = None;
    for (k, v) in hash(v, "options")? {
        match k.as_str() {
            "TTL" => ttl = Some(int(&v, "TTL")?),
            _ => check_mutation_option(st, &k, &v)?,
        }
    }
    Ok(ttl)
}

/// Checks a put/incr/append/delete options hash: `ATTRIBUTES` is accepted (operation
/// attributes, read only by coprocessors); every other option (`VISIBILITY`, `TTL`) is refused,
/// since dropping one silently would misread the statement.
fn reject_mutation_options(st: &Statement, v: &Value) -> Res<()> {
    for (k, v) in hash(v, "options")? {
        check_mutation_option(st, &k, &v)?;
    }
    Ok(())
}

/// One option of a mutation's options hash, as [`reject_mutation_options`] checks it.
fn check_mutation_option(st: &Statement, k: &str, v: &Value) -> Res<()> {
    // Operation attributes reach only coprocessors, which ferrobase has none of: HBase
    // without one that reads them writes the same cells.
    if k == "ATTRIBUTES" {
        query_options::read(k, v, false, &mut MetricsRequest::None)?;
        return Ok(());
    }
    if k == "VISIBILITY" {
        return Err(CommandError::Usage(format!(
            "{}: option VISIBILITY is not supported by ferrobase (it has no visibility labels)",
            st.command
        )));
    }
    Err(unsupported_option(&st.command, k))
}
