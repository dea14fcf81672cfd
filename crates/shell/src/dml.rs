//! The DML commands of HBase's shell (its `dml` group: `put.rb`, `get.rb`, `scan.rb`,
//! `delete.rb`, `deleteall.rb`, `count.rb`, `incr.rb`, `get_counter.rb`, `append.rb`,
//! `truncate.rb`, `truncate_preserve.rb`); their query options are in `query_options.rs`, value
//! converters in `converter.rs`, `ROWKEY =>` reads in `rowkey.rs`.

use super::args::{
    arity, boolean, bytes, client, columns_of, hash, int, parse_column, text, time_range,
    unsupported_option, CommandError, Res,
};
use super::catalog;
use super::converter::{self, Converter, Converters};
use super::explain;
use super::format;
use super::interpreter::Shell;
use super::query_options::{self, MetricsRequest, ScanMetrics};
use super::registry::{Command, Group, Run};
use super::rowkey::RowkeyScan;
use super::syntax::{Statement, Value};
use ferrobase_client::Connection;
use ferrobase_engine::{Delete, Get, Put, RowResult, Scan, LATEST_TIMESTAMP};

/// The `dml` group.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "put",
        group: Group::Dml,
        help: "Write a cell, optionally at a timestamp. The row may be given by its key fields, a hash encoded with the table's rowkey schema (ROWKEY => 'name' picks another; see rowkey_schema), here and in get, delete, deleteall, incr, get_counter and append.",
        examples: &["put 't1', 'r1', 'f1:c1', 'value'", "put 't1', 'r1', 'f1:c1', 'value', 1234", "put 'files', {USER => 1, DATE => 20120902, FILE => 7}, 'f:name', 'x'"],
        writes: true,
        run: Run::Handler(|sh, st| sh.put(st)),
    },
    Command {
        name: "get",
        group: Group::Dml,
        help: "Read a row: COLUMN(S), TIMESTAMP, TIMERANGE, VERSIONS, FILTER, RAW, FORMATTER, EXPLAIN (ferrobase: then what the read cost); a column 'f:q:toLong' (or 'f:q:c(org.apache.hadoop.hbase.util.Bytes).toInt') prints its values through that Bytes method. The row may be a hash of its rowkey fields (as in put).",
        examples: &["get 't1', 'r1'", "get 'files', {USER => 1, DATE => 20120902, FILE => 7}", "get 't1', 'r1', {COLUMN => ['f1:c1', 'f1:hits:toLong'], VERSIONS => 3, FORMATTER => 'toString'}"],
        writes: false,
        run: Run::Handler(|sh, st| sh.get(st)),
    },
    Command {
        name: "scan",
        group: Group::Dml,
        help: "Scan rows: COLUMNS, LIMIT, STARTROW, STOPROW, ROWPREFIXFILTER, FILTER, TIMERANGE, TIMESTAMP, VERSIONS, REVERSED, CACHE, BATCH, RAW, FORMATTER, EXPLAIN (ferrobase: the rows, then what the scan cost); columns take converters as in get; ROWKEY => 'schema' with named key fields and FROM/TO reads by rowkey fields (see rowkey_schema).",
        examples: &["scan 't1'", "scan 't1', {COLUMNS => ['f1:c1', 'f1:hits:toLong'], LIMIT => 10, STARTROW => 'a'}"],
        writes: false,
        run: Run::Handler(|sh, st| sh.scan(st)),
    },
    Command {
        name: "delete",
        group: Group::Dml,
        help: "Delete one version of a cell (the newest, or the one at a timestamp).",
        examples: &["delete 't1', 'r1', 'f1:c1'", "delete 't1', 'r1', 'f1:c1', 1234"],
        writes: true,
        run: Run::Handler(|sh, st| sh.delete(st)),
    },
    Command {
        name: "deleteall",
        group: Group::Dml,
        help: "Delete all versions of a row or a column up to a timestamp, or every row with a prefix.",
        examples: &["deleteall 't1', 'r1'", "deleteall 't1', 'r1', 'f1:c1'", "deleteall 't1', {ROWPREFIXFILTER => 'r'}"],
        writes: true,
        run: Run::Handler(|sh, st| sh.delete(st)),
    },
    Command {
        name: "count",
        group: Group::Dml,
        help: "Count rows, printing progress every INTERVAL rows; ROWKEY => 'schema' with named key fields and FROM/TO counts by rowkey fields, as scan.",
        examples: &["count 't1'", "count 't1', INTERVAL => 100000, CACHE => 1000"],
        writes: false,
        run: Run::Handler(|sh, st| sh.count(st)),
    },
    Command {
        name: "incr",
        group: Group::Dml,
        help: "Increment a counter cell.",
        examples: &["incr 't1', 'r1', 'f1:hits', 1"],
        writes: true,
        run: Run::Handler(|sh, st| sh.counter(st)),
    },
    Command {
        name: "get_counter",
        group: Group::Dml,
        help: "Read a counter cell.",
        examples: &["get_counter 't1', 'r1', 'f1:hits'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.counter(st)),
    },
    Command {
        name: "append",
        group: Group::Dml,
        help: "Append to a cell's value.",
        examples: &["append 't1', 'r1', 'f1:c1', 'more'"],
        writes: true,
        run: Run::Handler(|sh, st| sh.append(st)),
    },
    Command {
        name: "get_splits",
        group: Group::Dml,
        help: "Print a table's split keys (the start keys of its regions but the first), as HBase's `Bytes.toStringBinary` writes them.",
        examples: &["get_splits 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.get_splits(st)),
    },
    Command {
        name: "truncate",
        group: Group::Dml,
        help: "Disable, empty and re-enable a table (region boundaries dropped).",
        examples: &["truncate 't1'"],
        writes: true,
        run: Run::Handler(|sh, st| sh.truncate(st)),
    },
    Command {
        name: "truncate_preserve",
        group: Group::Dml,
        help: "Like truncate, keeping region boundaries.",
        examples: &["truncate_preserve 't1'"],
        writes: true,
        run: Run::Handler(|sh, st| sh.truncate(st)),
    },
];

impl Shell {
    /// `truncate 't'` and `truncate_preserve 't'`.
    /// `get_splits 't'`: HBase's count line (splits + 1), each split key, and the keys as the
    /// statement's value.
    fn get_splits(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 1)?;
        let table = text(&st.args[0], "table name")?;
        let regions = self.conn.regions(&table).map_err(client)?;
        // HBase's Thrift1 gateway lists no regions for a missing table instead of failing.
        if regions.is_empty() && !self.conn.table_exists(&table).map_err(client)? {
            return Err(CommandError::TableNotFound);
        }
        let splits: Vec<String> = regions
            .iter()
            .skip(1)
            .map(|r| format::binary(&r.start))
            .collect();
        self.line(&format!("Total number of splits = {}", splits.len() + 1));
        for s in &splits {
            self.line(s);
        }
        // irb's inspect of the Ruby strings.
        let inspected: Vec<String> = splits
            .iter()
            .map(|s| format!("\"{}\"", s.replace('\\', "\\\\").replace('"', "\\\"")))
            .collect();
        self.echo = Some(format!("[{}]", inspected.join(", ")));
        Ok(())
    }

    fn truncate(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 1, 1)?;
        let t = text(&a[0], "table name")?;
        self.line(&format!("Truncating '{t}' table (it may take a while):"));
        self.line("Disabling table...");
        self.line("Truncating table...");
        self.conn
            .truncate(&t, st.command == "truncate_preserve")
            .map_err(client)
    }

    fn put(&mut self, st: &Statement) -> Res<()> {
        arity(st, 4, 6)?;
        let name = text(&st.args[0], "table name")?;
        let row = self.row_key(&name, &st.args[1])?;
        let t = self.conn.table(&name);
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
        let mut put =
            Put::new(row).add_column_ts(f, q.unwrap_or_default(), ts, bytes(&st.args[3], "value")?);
        put.ttl_ms = ttl_ms;
        t.put(put).map_err(client)
    }

    fn get(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, usize::MAX)?;
        let name = text(&st.args[0], "table name")?;
        if catalog::is_catalog(&name) {
            return self.read_catalog("get", &name, &st.args[1..]);
        }
        let row = self.row_key(&name, &st.args[1])?;
        let t = self.conn.table(&name);
        let mut get = Get::new(row);
        let mut metrics = MetricsRequest::None;
        let mut filter = None;
        let mut converters = Converters::default();
        let mut explained = false;
        for v in &st.args[2..] {
            match v {
                Value::Hash(_) => {
                    for (k, v) in hash(v, "get options")? {
                        match k.as_str() {
                            "COLUMN" | "COLUMNS" => {
                                get = get_columns(get, option_columns(&v)?, &mut converters)?
                            }
                            "FORMATTER" => {
                                converters.set_default(Converter::parse(&text(&v, "FORMATTER")?)?)
                            }
                            "FORMATTER_CLASS" => {
                                converter::check_class(&text(&v, "FORMATTER_CLASS")?)?
                            }
                            "TIMESTAMP" => get = get.timestamp(int(&v, "TIMESTAMP")?),
                            "TIMERANGE" => get = get.time_range(time_range(&v)?),
                            "VERSIONS" => get = get.max_versions(get_versions(&v)?),
                            "FILTER" => filter = Some(filter_string(&v)?),
                            "RAW" => get = get.raw(boolean(&v, "RAW")?),
                            explain::OPTION => explained = explain::read(&v)?,
                            other if query_options::read(other, &v, false, &mut metrics)? => {}
                            other => return Err(format!("unknown get option {other}").into()),
                        }
                    }
                }
                other => get = get_columns(get, columns_of(other)?, &mut converters)?,
            }
        }
        let (r, cost) = if explained {
            let (r, cost) = t.get_explained(get, filter.as_deref()).map_err(client)?;
            (r, Some(cost))
        } else {
            (t.get(get, filter.as_deref()).map_err(client)?, None)
        };
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
        for l in cost.iter().flat_map(explain::lines) {
            self.line(&l);
        }
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
                        for c in option_columns(&v)? {
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
                    // HBase's `scan.setLimit(limit) if limit > 0`: 0 or less is no limit.
                    "LIMIT" => {
                        let limit = int(&v, "LIMIT")?;
                        if limit > 0 {
                            scan = scan.limit(limit as usize);
                        }
                    }
                    "STARTROW" => start = Some(bytes(&v, "STARTROW")?),
                    "STOPROW" | "ENDROW" => stop = Some(bytes(&v, "STOPROW")?),
                    "ROWPREFIXFILTER" => prefix = Some(bytes(&v, "ROWPREFIXFILTER")?),
                    "FILTER" => filter = Some(filter_string(&v)?),
                    "TIMERANGE" => scan = scan.time_range(time_range(&v)?),
                    "TIMESTAMP" => scan = scan.timestamp(int(&v, "TIMESTAMP")?),
                    "VERSIONS" => scan = scan.max_versions(int(&v, "VERSIONS")?.max(1) as u32),
                    "REVERSED" => scan = scan.reversed(boolean(&v, "REVERSED")?),
                    // HBase's `scan.setBatch(batch) if batch > 0`: 0 or less is no batching.
                    "BATCH" => {
                        let batch = int(&v, "BATCH")?;
                        if batch > 0 {
                            scan = scan.batch(batch as usize);
                        }
                    }
                    "RAW" => scan = scan.raw(boolean(&v, "RAW")?),
                    explain::OPTION => scan = scan.explain(explain::read(&v)?),
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
        if catalog::is_catalog(&name) {
            return self.read_catalog("scan", &name, &st.args[1..]);
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
        let explained = scan.explain;
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
        if explained {
            if let Some(cost) = scanner.cost().map_err(client)? {
                for l in explain::lines(&cost) {
                    self.line(&l);
                }
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
        let name = text(&st.args[0], "table name")?;
        let t = self.conn.table(&name);
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
        // A hash is deleteall's prefix form when it holds its options, else a row's key fields.
        let by_prefix = matches!(&st.args[1], Value::Hash(pairs) if pairs.iter().any(|(k, _)| {
            matches!(k.as_text().as_deref(), Some("ROWPREFIXFILTER" | "CACHE"))
        }));
        if !by_prefix {
            let row = self.row_key(&name, &st.args[1])?;
            return t.delete(delete_of(row)).map_err(client);
        }
        if !all {
            return Err(
                "delete takes a row (or its key fields); deleteall takes ROWPREFIXFILTER".into(),
            );
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
        let name = text(&st.args[0], "table name")?;
        if catalog::is_catalog(&name) {
            return self.read_catalog("count", &name, &st.args[1..]);
        }
        let t = self.conn.table(&name);
        let mut interval = 1000i64;
        let mut scan_opts = Vec::new();
        let mut rowkey = None;
        match st.args.get(1) {
            None => {}
            Some(Value::Int(n)) => interval = count_interval(*n)?,
            Some(v) => {
                let v = self.rowkey_count_options(v, &mut rowkey)?;
                for (k, v) in hash(&v, "count options")? {
                    match k.as_str() {
                        "INTERVAL" => interval = count_interval(int(&v, "INTERVAL")?)?,
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

    /// `incr 't', 'r', 'f:q'[, n]` and `get_counter 't', 'r', 'f:q'`.
    fn counter(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        let incr = st.command == "incr";
        if incr {
            arity(st, 3, 5)?;
        } else {
            arity(st, 3, 3)?;
        }
        let name = text(&a[0], "table name")?;
        let row = self.row_key(&name, &a[1])?;
        let t = self.conn.table(&name);
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
        let mut ttl_ms = None;
        for (i, v) in a[3..].iter().enumerate() {
            match v {
                Value::Hash(_) => ttl_ms = put_ttl(st, v)?,
                _ if i == 0 => n = int(v, "increment")?,
                other => return Err(format!("incr: unexpected argument {}", other.kind()).into()),
            }
        }
        let v = match ttl_ms {
            None => t.increment(&row, &f, &q, n),
            Some(ttl) => t.increment_with_ttl(&row, &f, &q, n, ttl),
        }
        .map_err(client)?;
        self.line(&format!("COUNTER VALUE = {v}"));
        Ok(())
    }

    /// `append 't', 'r', 'f:q', 'value'[, {TTL => ms}]`.
    fn append(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 4, 5)?;
        let ttl_ms = match a.get(4) {
            Some(opts) => put_ttl(st, opts)?,
            None => None,
        };
        let name = text(&a[0], "table name")?;
        let row = self.row_key(&name, &a[1])?;
        let t = self.conn.table(&name);
        let (f, q) = parse_column(&bytes(&a[2], "column")?);
        let (row, q, value) = (row, q.unwrap_or_default(), bytes(&a[3], "value")?);
        let v = match ttl_ms {
            None => t.append(&row, &f, &q, &value),
            Some(ttl) => t.append_with_ttl(&row, &f, &q, &value, ttl),
        }
        .map_err(client)?;
        self.line(&format!("CURRENT VALUE = {}", format::binary(&v)));
        Ok(())
    }
}

/// `VERSIONS` of a get: HBase's `Get.readVersions` refuses 0 or less.
fn get_versions(v: &Value) -> Res<u32> {
    match int(v, "VERSIONS")? {
        n if n <= 0 => Err("versions must be positive".into()),
        n => Ok(n.min(i64::from(u32::MAX)) as u32),
    }
}

/// `FILTER`: a filter string (HBase hands anything else to `setFilter`, which takes only a
/// Java `Filter` object the shell cannot build).
fn filter_string(v: &Value) -> Res<Vec<u8>> {
    match v {
        Value::Str(b) => Ok(b.clone()),
        other => Err(format!("FILTER must be a filter string, got {}", other.kind()).into()),
    }
}

/// `get` narrowed to `columns` (`family` or `family:qualifier`, each with its converter, if any,
/// registered in `converters`): a get's `COLUMNS` option and its positional columns alike.
fn get_columns(mut get: Get, columns: Vec<Vec<u8>>, converters: &mut Converters) -> Res<Get> {
    for c in columns {
        get = match converters.column(&c)? {
            (f, None) => get.add_family(f),
            (f, Some(q)) => get.add_column(f, q),
        };
    }
    Ok(get)
}

/// `COLUMN`/`COLUMNS` of get's, scan's and count's hash: a string or an array (whose items
/// HBase reads with `to_s`), as `table.rb` requires.
fn option_columns(v: &Value) -> Res<Vec<Vec<u8>>> {
    match v {
        Value::Str(_) | Value::Array(_) => columns_of(v),
        _ => Err("COLUMNS must be specified as a String or an Array".into()),
    }
}

/// count's progress interval: Ruby's `count % 0` raises `divided by 0`; `count % -n == 0`
/// holds for the multiples of n, so a negative interval reports as its absolute value.
fn count_interval(n: i64) -> Res<i64> {
    match n {
        0 => Err("divided by 0".into()),
        n => Ok(n.checked_abs().unwrap_or(i64::MAX)),
    }
}

/// The cell TTL of a put's, incr's or append's options hash, `{TTL => ms}` (HBase's shell:
/// `set_op_ttl`, that is `Put.setTTL`/`Increment.setTTL`/`Append.setTTL`, in milliseconds); `ATTRIBUTES` is accepted and the other options are refused
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
