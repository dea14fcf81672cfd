//! Runs shell statements against a [`Connection`], printing what the HBase shell prints.

use super::format;
use super::syntax::{Statement, Value};
use ferrobase_client::{ClientError, Connection};
use ferrobase_engine::{
    ColumnFamilyDescriptor, Delete, Get, Put, RowResult, Scan, SplitAlgorithm, TableDescriptor,
    TableName, TimeRange, LATEST_TIMESTAMP,
};
use std::io::Write;
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
    ("get", "Read a row: COLUMN(S), TIMESTAMP, TIMERANGE, VERSIONS, FILTER, RAW.", "get 't1', 'r1', {COLUMN => 'f1:c1', VERSIONS => 3}"),
    ("scan", "Scan rows: COLUMNS, LIMIT, STARTROW, STOPROW, ROWPREFIXFILTER, FILTER, TIMERANGE, TIMESTAMP, VERSIONS, REVERSED, CACHE, BATCH, RAW.", "scan 't1', {COLUMNS => ['f1:c1'], LIMIT => 10, STARTROW => 'a'}"),
    ("delete", "Delete one version of a cell (the newest, or the one at a timestamp).", "delete 't1', 'r1', 'f1:c1', 1234"),
    ("deleteall", "Delete all versions of a row or a column up to a timestamp, or every row with a prefix.", "deleteall 't1', 'r1', 'f1:c1'; deleteall 't1', {ROWPREFIXFILTER => 'r'}"),
    ("count", "Count rows, printing progress every INTERVAL rows.", "count 't1', INTERVAL => 100000, CACHE => 1000"),
    ("incr", "Increment a counter cell.", "incr 't1', 'r1', 'f1:hits', 1"),
    ("get_counter", "Read a counter cell.", "get_counter 't1', 'r1', 'f1:hits'"),
    ("append", "Append to a cell's value.", "append 't1', 'r1', 'f1:c1', 'more'"),
    ("flush", "Flush a table's memstores to files.", "flush 't1'"),
    ("compact", "Minor-compact a table.", "compact 't1'"),
    ("major_compact", "Major-compact a table.", "major_compact 't1'"),
    ("split", "Split a table's regions at their midpoints, or at a row.", "split 't1', 'r5'"),
    ("list_regions", "List a table's regions.", "list_regions 't1'"),
    ("status", "Show the server's status.", "status"),
    ("version", "Show the version.", "version"),
    ("help", "Show help for every command or one.", "help 'scan'"),
    ("exit", "Leave the shell.", "exit"),
];

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
];

type Res<T> = Result<T, String>;

fn client(e: ClientError) -> String {
    e.to_string()
}

fn text(v: &Value, what: &str) -> Res<String> {
    v.as_text()
        .ok_or_else(|| format!("{what} must be a string, got {}", v.kind()))
}

fn bytes(v: &Value, what: &str) -> Res<Vec<u8>> {
    match v {
        Value::Str(b) => Ok(b.clone()),
        Value::Const(c) => Ok(c.as_bytes().to_vec()),
        Value::Int(i) => Ok(i.to_string().into_bytes()),
        other => Err(format!("{what} must be a string, got {}", other.kind())),
    }
}

fn int(v: &Value, what: &str) -> Res<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Str(s) => String::from_utf8_lossy(s)
            .parse()
            .map_err(|_| format!("{what} must be an integer")),
        other => Err(format!("{what} must be an integer, got {}", other.kind())),
    }
}

fn boolean(v: &Value, what: &str) -> Res<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Str(_) | Value::Const(_) => match v
            .as_text()
            .unwrap_or_default()
            .to_ascii_lowercase()
            .as_str()
        {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("{what} must be true or false")),
        },
        other => Err(format!(
            "{what} must be true or false, got {}",
            other.kind()
        )),
    }
}

/// A hash argument as (UPPERCASE KEY, value) pairs.
fn hash(v: &Value, what: &str) -> Res<Vec<(String, Value)>> {
    match v {
        Value::Hash(pairs) => pairs
            .iter()
            .map(|(k, v)| Ok((text(k, "a hash key")?, v.clone())))
            .collect(),
        other => Err(format!("{what} must be a hash, got {}", other.kind())),
    }
}

fn attr_text(v: &Value) -> Res<String> {
    Ok(match v {
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(_) | Value::Const(_) => v.as_text().unwrap_or_default(),
        other => {
            return Err(format!(
                "attribute value must be a string, number or boolean, got {}",
                other.kind()
            ))
        }
    })
}

fn parse_column(c: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (c[..i].to_vec(), Some(c[i + 1..].to_vec())),
        None => (c.to_vec(), None),
    }
}

fn columns_of(v: &Value) -> Res<Vec<Vec<u8>>> {
    match v {
        Value::Array(items) => items.iter().map(|i| bytes(i, "a column")).collect(),
        other => Ok(vec![bytes(other, "COLUMNS")?]),
    }
}

fn family_from_hash(pairs: &[(String, Value)]) -> Res<ColumnFamilyDescriptor> {
    let name = pairs
        .iter()
        .find(|(k, _)| k == "NAME")
        .map(|(_, v)| bytes(v, "NAME"))
        .transpose()?
        .ok_or("a column family hash needs NAME")?;
    let mut f = ColumnFamilyDescriptor::new(name);
    for (k, v) in pairs {
        match k.as_str() {
            "NAME" | "REPLICATION_SCOPE" | "METHOD" => {}
            key => f
                .set_attribute(key, &attr_text(v)?)
                .map_err(|e| e.to_string())?,
        }
    }
    f.validate().map_err(|e| e.to_string())?;
    Ok(f)
}

/// The interpreter state.
pub struct Shell {
    /// The connection statements run on.
    pub conn: Connection,
    out: Box<dyn Write>,
    /// The statement's value, printed as `=> value` after `Took`, as irb does.
    echo: Option<String>,
}

impl Shell {
    /// A shell on `conn` printing to `out`.
    pub fn new(conn: Connection, out: Box<dyn Write>) -> Shell {
        Shell {
            conn,
            out,
            echo: None,
        }
    }

    fn line(&mut self, s: &str) {
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
        let res = self.dispatch(st);
        let ok = match res {
            Ok(()) => true,
            Err(e) => {
                self.line(&format!("ERROR: {}", e.lines().next().unwrap_or("")));
                false
            }
        };
        if st.command != "help" {
            self.line(&format!("Took {:.4} seconds", t0.elapsed().as_secs_f64()));
        }
        if let (true, Some(e)) = (ok, self.echo.take()) {
            self.line(&format!("=> {e}"));
        }
        let _ = self.out.flush();
        Some(ok)
    }

    fn need(&self, st: &Statement, n: usize, usage: &str) -> Res<()> {
        if st.args.len() < n {
            return Err(format!("{} needs {n} argument(s): {usage}", st.command));
        }
        Ok(())
    }

    fn dispatch(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        match st.command.as_str() {
            "create" => self.create(st),
            "alter" => self.alter(st),
            "describe" | "desc" => {
                self.need(st, 1, "describe 't'")?;
                self.describe(&text(&a[0], "table name")?)
            }
            "list" => self.list(a.first()),
            "exists" => {
                self.need(st, 1, "exists 't'")?;
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
                self.need(st, 1, "is_enabled 't'")?;
                let t = text(&a[0], "table name")?;
                let en = self.conn.is_enabled(&t).map_err(client)?;
                let v = if st.command == "is_enabled" { en } else { !en };
                self.line(&v.to_string());
                self.echo = Some(v.to_string());
                Ok(())
            }
            "enable" | "disable" => {
                self.need(st, 1, "enable 't'")?;
                let t = text(&a[0], "table name")?;
                self.conn
                    .set_enabled(&t, st.command == "enable")
                    .map_err(client)
            }
            "drop" => {
                self.need(st, 1, "drop 't'")?;
                let t = text(&a[0], "table name")?;
                if self.conn.is_enabled(&t).map_err(client)? {
                    return Err(format!("Table {t} is enabled. Disable it first."));
                }
                self.conn.drop_table(&t).map_err(client)
            }
            "truncate" | "truncate_preserve" => {
                self.need(st, 1, "truncate 't'")?;
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
            "incr" | "get_counter" => {
                self.need(st, 3, "incr 't', 'r', 'f:q'[, n]")?;
                let t = self.conn.table(&text(&a[0], "table name")?);
                let row = bytes(&a[1], "row")?;
                let (f, q) = parse_column(&bytes(&a[2], "column")?);
                let q = q.unwrap_or_default();
                let n = if st.command == "incr" {
                    a.get(3)
                        .map(|v| int(v, "increment"))
                        .transpose()?
                        .unwrap_or(1)
                } else {
                    0
                };
                if st.command == "get_counter" {
                    let r = t
                        .get(Get::new(row).add_column(f.clone(), q.clone()), None)
                        .map_err(client)?;
                    match r.value(&f, &q) {
                        None => self.line("ERROR: counter not found"),
                        Some(v) => match <[u8; 8]>::try_from(v) {
                            Ok(b) => {
                                self.line(&format!("COUNTER VALUE = {}", i64::from_be_bytes(b)))
                            }
                            Err(_) => return Err("the cell is not an 8-byte counter".into()),
                        },
                    }
                    return Ok(());
                }
                let v = t.increment(&row, &f, &q, n).map_err(client)?;
                self.line(&format!("COUNTER VALUE = {v}"));
                Ok(())
            }
            "append" => {
                self.need(st, 4, "append 't', 'r', 'f:q', 'value'")?;
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
            "flush" | "compact" | "major_compact" | "split" => {
                self.need(st, 1, "flush 't'")?;
                let t = text(&a[0], "table name")?;
                match st.command.as_str() {
                    "compact" => self.conn.compact(&t, false).map_err(client),
                    "major_compact" => self.conn.compact(&t, true).map_err(client),
                    "flush" => self.conn.flush(&t).map_err(client),
                    _ => {
                        let key = a.get(1).map(|v| bytes(v, "split key")).transpose()?;
                        self.conn.split(&t, key.as_deref()).map_err(client)
                    }
                }
            }
            "list_regions" => {
                self.need(st, 1, "list_regions 't'")?;
                let t = text(&a[0], "table name")?;
                let regions = self.conn.regions(&t).map_err(client)?;
                self.line(&format!(
                    "{:<24} | {:<20} | {:<20} | {:>12} | {:>8}",
                    "REGION ID", "START_KEY", "END_KEY", "SIZE(bytes)", "FILES"
                ));
                for r in &regions {
                    self.line(&format!(
                        "{:<24} | {:<20} | {:<20} | {:>12} | {:>8}",
                        r.id,
                        format::binary(&r.start),
                        format::binary(&r.end),
                        r.file_bytes,
                        r.file_count
                    ));
                }
                self.line(&format!("{} rows", regions.len()));
                Ok(())
            }
            "status" => {
                let tables = self.conn.list_tables().map_err(client)?;
                let mut regions = 0;
                for t in &tables {
                    regions += self.conn.regions(t).map_err(client)?.len();
                }
                self.line(&format!(
                    "1 active master, 0 backup masters, 1 servers, 0 dead, {regions}.0000 average load ({} tables, {})",
                    tables.len(),
                    self.conn.describe()
                ));
                Ok(())
            }
            "version" => {
                self.line(&format!(
                    "ferrobase {} (HBase 2.x shell language), {}",
                    env!("CARGO_PKG_VERSION"),
                    self.conn.describe()
                ));
                Ok(())
            }
            "help" => {
                match a.first() {
                    Some(v) => {
                        let name = text(v, "command")?;
                        let (_, what, example) = COMMANDS
                            .iter()
                            .find(|(c, _, _)| *c == name)
                            .ok_or_else(|| {
                                format!("unknown command '{name}'; type help for the list")
                            })?;
                        self.line(&format!("{name}: {what}\nExample:\n  {example}"));
                    }
                    None => {
                        self.line("ferrobase shell: HBase shell statements. Commands:");
                        for (c, what, _) in COMMANDS {
                            self.line(&format!("  {c:<18} {what}"));
                        }
                        self.line("Type help 'command' for an example.");
                    }
                }
                Ok(())
            }
            other => Err(format!(
                "Unknown command '{other}'. Type help for the list of commands."
            )),
        }
    }

    fn create(&mut self, st: &Statement) -> Res<()> {
        self.need(
            st,
            2,
            "create 't', 'f1'[, {NAME => 'f2', ...}][, SPLITS => [...]]",
        )?;
        let name = text(&st.args[0], "table name")?;
        let mut desc = TableDescriptor::new(TableName::parse(&name).map_err(|e| e.to_string())?);
        let mut splits: Vec<Vec<u8>> = Vec::new();
        let mut numregions: Option<usize> = None;
        let mut algo = SplitAlgorithm::HexStringSplit;
        for v in &st.args[1..] {
            match v {
                Value::Str(_) | Value::Const(_) => {
                    desc = desc.with_family(ColumnFamilyDescriptor::new(bytes(v, "family")?))
                }
                Value::Hash(_) => {
                    let pairs = hash(v, "family")?;
                    if pairs.iter().any(|(k, _)| k == "NAME") {
                        desc = desc.with_family(family_from_hash(&pairs)?);
                        continue;
                    }
                    for (k, v) in pairs {
                        match k.as_str() {
                            "SPLITS" => splits = columns_of(&v)?,
                            "NUMREGIONS" => numregions = Some(int(&v, "NUMREGIONS")? as usize),
                            "SPLITALGO" => {
                                algo = SplitAlgorithm::parse(&text(&v, "SPLITALGO")?)
                                    .map_err(|e| e.to_string())?
                            }
                            "DURABILITY" => {
                                desc.durability =
                                    ferrobase_engine::Durability::parse(&text(&v, "DURABILITY")?)
                                        .map_err(|e| e.to_string())?
                            }
                            other => return Err(format!("unknown table option {other}")),
                        }
                    }
                }
                other => return Err(format!("create: unexpected argument {}", other.kind())),
            }
        }
        if let Some(n) = numregions {
            splits = algo.split_keys(n).map_err(|e| e.to_string())?;
        }
        self.conn.create_table(desc, &splits).map_err(client)?;
        self.line(&format!("Created table {name}"));
        self.echo = Some(format!("Hbase::Table - {name}"));
        Ok(())
    }

    fn alter(&mut self, st: &Statement) -> Res<()> {
        self.need(st, 2, "alter 't', {NAME => 'f', VERSIONS => 3}")?;
        let name = text(&st.args[0], "table name")?;
        let existing = self.conn.describe_table(&name).map_err(client)?;
        for v in &st.args[1..] {
            let pairs = hash(v, "alter argument")?;
            if let Some((_, fam)) = pairs.iter().find(|(k, _)| k.eq_ignore_ascii_case("delete")) {
                self.conn
                    .delete_family(&name, &bytes(fam, "family")?)
                    .map_err(client)?;
                continue;
            }
            let is_delete = pairs
                .iter()
                .any(|(k, v)| k == "METHOD" && v.as_text().is_some_and(|m| m == "delete"));
            let fam_name = pairs
                .iter()
                .find(|(k, _)| k == "NAME")
                .map(|(_, v)| bytes(v, "NAME"))
                .transpose()?
                .ok_or("alter needs NAME => 'family' (or 'delete' => 'family')")?;
            if is_delete {
                self.conn.delete_family(&name, &fam_name).map_err(client)?;
                continue;
            }
            // Attributes not given keep their current values, as in HBase's alter.
            let mut f = existing
                .iter()
                .find(|f| f.name == fam_name)
                .cloned()
                .unwrap_or_else(|| ColumnFamilyDescriptor::new(fam_name.clone()));
            for (k, v) in &pairs {
                if k != "NAME" && k != "METHOD" && k != "REPLICATION_SCOPE" {
                    f.set_attribute(k, &attr_text(v)?)
                        .map_err(|e| e.to_string())?;
                }
            }
            f.validate().map_err(|e| e.to_string())?;
            self.conn.put_family(&name, f).map_err(client)?;
        }
        self.line("Updating all regions with the new schema...");
        self.line("Done.");
        Ok(())
    }

    fn describe(&mut self, name: &str) -> Res<()> {
        let fams = self.conn.describe_table(name).map_err(client)?;
        let enabled = self.conn.is_enabled(name).map_err(client)?;
        self.line(&format!(
            "Table {name} is {}",
            if enabled { "ENABLED" } else { "DISABLED" }
        ));
        self.line(name);
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
        let re = match pattern {
            Some(p) => Some(
                regex::Regex::new(&format!("^(?:{})$", text(p, "pattern")?))
                    .map_err(|e| format!("bad pattern: {e}"))?,
            ),
            None => None,
        };
        let names: Vec<String> = self
            .conn
            .list_tables()
            .map_err(client)?
            .into_iter()
            .filter(|n| re.as_ref().is_none_or(|r| r.is_match(n)))
            .collect();
        self.line("TABLE");
        for n in &names {
            self.line(n);
        }
        self.line(&format!("{} row(s)", names.len()));
        let quoted: Vec<String> = names.iter().map(|n| format!("\"{n}\"")).collect();
        self.echo = Some(format!("[{}]", quoted.join(", ")));
        Ok(())
    }

    fn put(&mut self, st: &Statement) -> Res<()> {
        self.need(st, 4, "put 't', 'r', 'f:q', 'value'[, ts]")?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let (f, q) = parse_column(&bytes(&st.args[2], "column")?);
        let ts = match st.args.get(4) {
            Some(Value::Hash(_)) | None => LATEST_TIMESTAMP,
            Some(v) => int(v, "timestamp")?,
        };
        let put = Put::new(bytes(&st.args[1], "row")?).add_column_ts(
            f,
            q.unwrap_or_default(),
            ts,
            bytes(&st.args[3], "value")?,
        );
        t.put(put).map_err(client)
    }

    fn get(&mut self, st: &Statement) -> Res<()> {
        self.need(st, 2, "get 't', 'r'[, {COLUMN => 'f:q', ...}]")?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let mut get = Get::new(bytes(&st.args[1], "row")?);
        let mut filter = None;
        for v in &st.args[2..] {
            match v {
                Value::Hash(_) => {
                    for (k, v) in hash(v, "get options")? {
                        match k.as_str() {
                            "COLUMN" | "COLUMNS" => {
                                for c in columns_of(&v)? {
                                    get = match parse_column(&c) {
                                        (f, None) => get.add_family(f),
                                        (f, Some(q)) => get.add_column(f, q),
                                    };
                                }
                            }
                            "TIMESTAMP" => get = get.timestamp(int(&v, "TIMESTAMP")?),
                            "TIMERANGE" => get = get.time_range(time_range(&v)?),
                            "VERSIONS" => {
                                get = get.max_versions(int(&v, "VERSIONS")?.max(1) as u32)
                            }
                            "FILTER" => filter = Some(bytes(&v, "FILTER")?),
                            "RAW" => get = get.raw(boolean(&v, "RAW")?),
                            other => return Err(format!("unknown get option {other}")),
                        }
                    }
                }
                other => {
                    for c in columns_of(other)? {
                        get = match parse_column(&c) {
                            (f, None) => get.add_family(f),
                            (f, Some(q)) => get.add_column(f, q),
                        };
                    }
                }
            }
        }
        let r = t.get(get, filter.as_deref()).map_err(client)?;
        self.line(&format!(" {:<32} {}", "COLUMN", "CELL"));
        for c in &r.cells {
            let col = format!(
                "{}:{}",
                format::binary(c.family()),
                format::binary(c.qualifier())
            );
            let body = format::cell(c);
            let body = body
                .split_once(", ")
                .map(|x| x.1)
                .unwrap_or(&body)
                .to_string();
            self.line(&format::two_columns(&col, &body));
        }
        self.line(&format!("{} row(s)", r.cells.len()));
        Ok(())
    }

    fn scan_spec(&self, st: &Statement) -> Res<(Scan, Option<Vec<u8>>)> {
        let mut scan = Scan::new();
        let mut filter = None;
        let mut prefix = None;
        let mut start = None;
        let mut stop = None;
        if let Some(v) = st.args.get(1) {
            for (k, v) in hash(v, "scan options")? {
                match k.as_str() {
                    "COLUMNS" | "COLUMN" => {
                        for c in columns_of(&v)? {
                            scan = match parse_column(&c) {
                                (f, None) => scan.add_family(f),
                                (f, Some(q)) => scan.add_column(f, q),
                            };
                        }
                    }
                    "LIMIT" => scan = scan.limit(int(&v, "LIMIT")?.max(0) as usize),
                    "STARTROW" => start = Some(bytes(&v, "STARTROW")?),
                    "STOPROW" | "ENDROW" => stop = Some(bytes(&v, "STOPROW")?),
                    "ROWPREFIXFILTER" => prefix = Some(bytes(&v, "ROWPREFIXFILTER")?),
                    "FILTER" => filter = Some(bytes(&v, "FILTER")?),
                    "TIMERANGE" => scan = scan.time_range(time_range(&v)?),
                    "TIMESTAMP" => scan = scan.timestamp(int(&v, "TIMESTAMP")?),
                    "VERSIONS" => scan = scan.max_versions(int(&v, "VERSIONS")?.max(1) as u32),
                    "REVERSED" => scan = scan.reversed(boolean(&v, "REVERSED")?),
                    "CACHE" | "CACHE_BLOCKS" => {}
                    "BATCH" => scan = scan.batch(int(&v, "BATCH")?.max(1) as usize),
                    "RAW" => scan = scan.raw(boolean(&v, "RAW")?),
                    other => return Err(format!("unknown scan option {other}")),
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
        Ok((scan, filter))
    }

    fn scan(&mut self, st: &Statement) -> Res<()> {
        self.need(st, 1, "scan 't'[, {...}]")?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let (scan, filter) = self.scan_spec(st)?;
        let mut scanner = t.scanner(scan, filter.as_deref()).map_err(client)?;
        self.line(&format!(" {:<32} {}", "ROW", "COLUMN+CELL"));
        let mut rows = 0;
        let mut last: Option<ferrobase_engine::Bytes> = None;
        loop {
            let batch: Vec<RowResult> = scanner.next_batch(100).map_err(client)?;
            if batch.is_empty() {
                break;
            }
            for r in batch {
                if last.as_deref() != Some(r.row()) {
                    rows += 1;
                    last = Some(r.row_bytes());
                }
                for c in &r.cells {
                    self.line(&format::two_columns(
                        &format::binary(r.row()),
                        &format::cell(c),
                    ));
                }
            }
        }
        self.line(&format!("{rows} row(s)"));
        Ok(())
    }

    fn delete(&mut self, st: &Statement) -> Res<()> {
        self.need(st, 2, "deleteall 't', 'r'[, 'f:q'[, ts]]")?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        if let Value::Hash(_) = &st.args[1] {
            // deleteall 't', {ROWPREFIXFILTER => 'prefix'}
            let pairs = hash(&st.args[1], "deleteall options")?;
            let prefix = pairs
                .iter()
                .find(|(k, _)| k == "ROWPREFIXFILTER")
                .map(|(_, v)| bytes(v, "ROWPREFIXFILTER"))
                .transpose()?
                .ok_or("deleteall with a hash needs ROWPREFIXFILTER")?;
            let mut scanner = t
                .scanner(
                    Scan::new().with_row_prefix(prefix),
                    Some(b"KeyOnlyFilter()"),
                )
                .map_err(client)?;
            loop {
                let batch = scanner.next_batch(1000).map_err(client)?;
                if batch.is_empty() {
                    break;
                }
                for r in batch {
                    t.delete(Delete::new(r.row_bytes())).map_err(client)?;
                }
            }
            return Ok(());
        }
        let row = bytes(&st.args[1], "row")?;
        let ts = st
            .args
            .get(3)
            .map(|v| int(v, "timestamp"))
            .transpose()?
            .unwrap_or(LATEST_TIMESTAMP);
        let all = st.command == "deleteall";
        let d = match st.args.get(2) {
            None if all => Delete::with_timestamp(row, ts),
            None => return Err("delete needs a column: delete 't', 'r', 'f:q'".into()),
            Some(c) => {
                let (f, q) = parse_column(&bytes(c, "column")?);
                match (q, all) {
                    (None, _) => Delete::new(row).add_family_ts(f, ts),
                    (Some(q), true) => Delete::new(row).add_columns_ts(f, q, ts),
                    (Some(q), false) => Delete::new(row).add_column_ts(f, q, ts),
                }
            }
        };
        t.delete(d).map_err(client)
    }

    fn count(&mut self, st: &Statement) -> Res<()> {
        self.need(st, 1, "count 't'[, INTERVAL => n]")?;
        let t = self.conn.table(&text(&st.args[0], "table name")?);
        let mut interval = 1000i64;
        if let Some(v) = st.args.get(1) {
            for (k, v) in hash(v, "count options")? {
                match k.as_str() {
                    "INTERVAL" => interval = int(&v, "INTERVAL")?.max(1),
                    "CACHE" => {}
                    other => return Err(format!("unknown count option {other}")),
                }
            }
        }
        let mut scanner = t
            .scanner(
                Scan::new(),
                Some(b"FirstKeyOnlyFilter() AND KeyOnlyFilter()"),
            )
            .map_err(client)?;
        let mut n = 0i64;
        loop {
            let batch = scanner.next_batch(1000).map_err(client)?;
            if batch.is_empty() {
                break;
            }
            for r in batch {
                n += 1;
                if n % interval == 0 {
                    self.line(&format!(
                        "Current count: {n}, row: {}",
                        format::binary(r.row())
                    ));
                }
            }
        }
        self.line(&format!("{n} row(s)"));
        self.echo = Some(n.to_string());
        Ok(())
    }
}

fn time_range(v: &Value) -> Res<TimeRange> {
    match v {
        Value::Array(items) if items.len() == 2 => TimeRange::new(
            int(&items[0], "TIMERANGE start")?,
            int(&items[1], "TIMERANGE end")?,
        )
        .map_err(|e| e.to_string()),
        _ => Err("TIMERANGE must be [start, end)".into()),
    }
}
