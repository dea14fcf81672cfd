//! Composite rowkeys in the shell (`docs/design/rowkey.md`, "The shell"): named schemas of
//! `ferrobase-rowkey`, `rowkey_encode`/`rowkey_decode` against them, and `scan` by named fields
//! (`scan 't', {ROWKEY => 'files', USER => 1, FROM => 20120901, TO => 20120930}`), its rows
//! printed as `user=000001 date=20120912 file=000007`.
//!
//! `rowkey_schema 't', 'fields'` on an existing table stores the schema as the table's
//! `ROWKEY_SCHEMA` metadata (as `alter 't', METADATA => {'ROWKEY_SCHEMA' => '...'}` does), so
//! it outlives the session and is seen by every shell, embedded or over `--connect` to a
//! ferrobase server; a name that is no table (or a table behind Apache HBase's Thrift1
//! gateway, which cannot store table attributes) names a schema for the session only. A name
//! is looked up among the session's schemas, then as the `ROWKEY_SCHEMA` of the table of that
//! name. `describe` prints a table's schema, and `count` takes the same fields as `scan`.
//!
//! Where HBase's shell takes a row (`put`, `get`, `delete`, `deleteall`, `incr`,
//! `get_counter`, `append`), a hash of the key's fields writes or reads by field values:
//! `put 'files', {USER => 1, DATE => 20120902, FILE => 7}, 'f:name', 'x'` encodes the row with
//! the table's schema (`ROWKEY => 'name'` in the hash picks a named one).

use super::args::{arity, bytes, client, hash, text, CommandError, Res};
use super::format;
use super::interpreter::Shell;
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};
use ferrobase_engine::{RowResult, Scan};
use ferrobase_rowkey::{FieldType, Schema, Value as KeyValue};
use std::ops::Bound;

/// The table attribute (metadata key) that holds a table's own rowkey schema.
pub const SCHEMA_ATTRIBUTE: &str = "ROWKEY_SCHEMA";

/// A scan by named rowkey fields: the schema and the ranges its options select.
pub struct RowkeyScan {
    /// The schema rows are decoded with.
    pub schema: Schema,
    /// `[start, stop)` key ranges, in bucket order (one unless a salt or hash prefix is not
    /// determined by the given fields).
    pub ranges: Vec<(Vec<u8>, Vec<u8>)>,
}

impl RowkeyScan {
    /// `scan` restricted to each of the key ranges, in bucket order.
    pub fn scans(&self, scan: &Scan) -> Vec<Scan> {
        self.ranges
            .iter()
            .map(|(start, stop)| {
                scan.clone()
                    .with_start_row(start.clone())
                    .with_stop_row(stop.clone())
            })
            .collect()
    }

    /// A row key as its named fields (`user=000001 date=20120913 file=000003`), or as
    /// `Bytes.toStringBinary` when the schema does not decode it.
    pub fn shown(&self, key: &[u8]) -> String {
        self.schema
            .format_key(key)
            .unwrap_or_else(|_| format::binary(key))
    }
}

/// A shell value as the value of `field` (integers, floats and strings; strings in the text
/// form `rowkey_decode` prints for the numeric and timestamp fields).
fn key_value(schema: &Schema, field: &str, v: &Value) -> Res<KeyValue> {
    let f = schema
        .field(field)
        .ok_or_else(|| format!("rowkey schema has no field {field}"))?;
    if f.ty.is_derived() {
        return Err(derived(field));
    }
    let raw = match v {
        Value::Int(i) => i.to_string(),
        Value::Float(x) => x.to_string(),
        Value::Str(b) => match f.ty {
            FieldType::FixedStr { .. }
            | FieldType::Str
            | FieldType::Rev
            | FieldType::RevStr
            | FieldType::Word { .. } => {
                return String::from_utf8(b.clone())
                    .map(KeyValue::Str)
                    .map_err(|_| format!("{field} must be UTF-8 text").into())
            }
            FieldType::FixedBytes { .. } | FieldType::Bytes => {
                return Ok(KeyValue::Bytes(b.clone()))
            }
            _ => String::from_utf8_lossy(b).into_owned(),
        },
        Value::Const(c) => c.clone(),
        other => {
            return Err(
                format!("{field} must be a number or a string, got {}", other.kind()).into(),
            )
        }
    };
    schema.parse_value(field, &raw).map_err(rowkey_error)
}

/// Every value field of `schema` from a hash of `FIELD => value` pairs (field names matched
/// case-insensitively); a field missing, unknown or derived (a hash or salt) is an error.
fn all_fields(schema: &Schema, pairs: Vec<(String, Value)>) -> Res<Vec<KeyValue>> {
    let names: Vec<String> = schema.value_fields().map(|f| f.name.clone()).collect();
    let mut given: Vec<Option<KeyValue>> = vec![None; names.len()];
    for (k, v) in pairs {
        let field = field_named(schema, &k)
            .ok_or_else(|| format!("rowkey schema has no field {k}"))?
            .to_string();
        let Some(i) = names.iter().position(|n| *n == field) else {
            return Err(derived(&field));
        };
        given[i] = Some(key_value(schema, &field, &v)?);
    }
    given
        .into_iter()
        .zip(&names)
        .map(|(v, n)| v.ok_or_else(|| CommandError::from(format!("field {n} is missing"))))
        .collect()
}

/// The error for a value given to a derived field.
fn derived(field: &str) -> CommandError {
    CommandError::Usage(format!(
        "{field} is derived from other fields (a hash or salt): give the fields it is computed from"
    ))
}

/// A rowkey library error as the command's failure.
fn rowkey_error(e: ferrobase_rowkey::Error) -> CommandError {
    CommandError::Failed(e.to_string())
}

/// The schema field named `key`, case-insensitively (shell hash keys are usually uppercase
/// constants, schema fields lowercase).
fn field_named<'s>(schema: &'s Schema, key: &str) -> Option<&'s str> {
    schema
        .fields()
        .iter()
        .find(|f| f.name.eq_ignore_ascii_case(key))
        .map(|f| f.name.as_str())
}

/// A key as a double-quoted string the shell parses back to the same bytes: HBase's
/// `Bytes.toStringBinary`, with `"` and `#` escaped too.
pub fn quoted_key(key: &[u8]) -> String {
    let s = format::binary(key)
        .replace('"', "\\x22")
        .replace('#', "\\x23");
    format!("\"{s}\"")
}

/// ferrobase's `rowkey` group (`docs/design/rowkey.md`).
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "rowkey_schema",
        group: Group::Rowkey,
        help: "Define a named rowkey schema (rowkey_schema 'name', 'fields'), print one, or list them all. Named after an existing table, it is stored as the table's METADATA 'ROWKEY_SCHEMA' and persists; any other name lasts for this session. Field types: decN, uBdecN, u8..u64, i8..i64, f32, f64, revts, revtsdec, revint, jint, jlong, strN[/pad], bytesN[/pad], str, bytes, rev, revstr, word/C, desc(T), md5:K(fields), murmur3:K(fields), md5hex:K(fields), murmur3hex:K(fields), salt:N[/dec][(fields)] (docs/design/rowkey.md).",
        examples: &["rowkey_schema 'files', 'user:u32dec6, date:dec8, file:u32dec6'", "rowkey_schema"],
        writes: false,
        run: Run::Handler(|sh, st| sh.rowkey_schema(st)),
    },
    Command {
        name: "rowkey_encode",
        group: Group::Rowkey,
        help: "Encode a rowkey from named field values (a hash or 'name=value ...' text); prints it as a double-quoted string the shell reads back.",
        examples: &["rowkey_encode 'files', {USER => 1, DATE => 20120902, FILE => 7}"],
        writes: false,
        run: Run::Handler(|sh, st| sh.rowkey_encode(st)),
    },
    Command {
        name: "rowkey_decode",
        group: Group::Rowkey,
        help: "Decode a rowkey into its named fields.",
        examples: &["rowkey_decode 'files', '00000120120902000007'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.rowkey_decode(st)),
    },
];

impl Shell {
    /// The schema named `name`: a session schema, else the table `name`'s `ROWKEY_SCHEMA`.
    pub(super) fn schema_named(&mut self, name: &str) -> Res<Schema> {
        if let Some(s) = self.rowkey_schemas.get(name) {
            return Ok(s.clone());
        }
        let attrs = match self.conn.table_attributes(name) {
            Ok(Some((_, attrs))) => attrs,
            _ => Default::default(),
        };
        match attrs.get(SCHEMA_ATTRIBUTE) {
            Some(text) => text.parse().map_err(|e| {
                CommandError::Failed(format!(
                    "table {name}'s {SCHEMA_ATTRIBUTE} is not a rowkey schema: {e}"
                ))
            }),
            None => Err(CommandError::Failed(format!(
                "no rowkey schema named {name}: define one with rowkey_schema '{name}', 'fields', \
                 or set table {name}'s METADATA => {{'{SCHEMA_ATTRIBUTE}' => 'fields'}}"
            ))),
        }
    }

    /// A row argument of `put`, `get`, `delete`, `deleteall`, `incr`, `get_counter` or
    /// `append`: a string is the row key itself, as in HBase's shell; a hash names the key's
    /// fields (`{USER => 1, DATE => 20120902, FILE => 7}`), encoded with the table's
    /// `ROWKEY_SCHEMA`, or with the schema `ROWKEY => 'name'` in the hash names.
    pub(super) fn row_key(&mut self, table: &str, v: &Value) -> Res<Vec<u8>> {
        let Value::Hash(_) = v else {
            return bytes(v, "row");
        };
        let mut pairs = hash(v, "row key fields")?;
        let schema = match pairs.iter().position(|(k, _)| k == "ROWKEY") {
            Some(i) => {
                let (_, name) = pairs.remove(i);
                self.schema_named(&text(&name, "ROWKEY")?)?
            }
            None => self.schema_named(table)?,
        };
        let values = all_fields(&schema, pairs)?;
        schema.encode(&values).map_err(rowkey_error)
    }

    /// Every table's `ROWKEY_SCHEMA` metadata, by table name (none over a gateway that cannot
    /// return table attributes).
    fn table_schemas(&mut self) -> Res<Vec<(String, String)>> {
        let mut found = Vec::new();
        for table in self.conn.list_tables().map_err(client)? {
            if let Ok(Some((_, attrs))) = self.conn.table_attributes(&table) {
                if let Some(text) = attrs.get(SCHEMA_ATTRIBUTE) {
                    found.push((table, text.to_string()));
                }
            }
        }
        Ok(found)
    }

    /// `describe`'s line for the table's rowkey schema, after its attributes: the table's
    /// `ROWKEY_SCHEMA` metadata, else a session schema named after the table; nothing when
    /// there is neither.
    pub(super) fn describe_rowkey_schema(
        &mut self,
        table: &str,
        attrs: Option<&ferrobase_engine::TableAttributes>,
    ) {
        let line = match attrs.and_then(|a| a.get(SCHEMA_ATTRIBUTE)) {
            Some(text) => match text.parse::<Schema>() {
                Ok(schema) => format!("ROWKEY SCHEMA => '{schema}'"),
                Err(e) => format!("ROWKEY SCHEMA => '{text}' (not a rowkey schema: {e})"),
            },
            None => match self.rowkey_schemas.get(table) {
                Some(schema) => format!("ROWKEY SCHEMA => '{schema}' (this session only)"),
                None => return,
            },
        };
        self.line(&line);
    }

    /// Takes a `count` options value's `ROWKEY` and key fields into `rowkey`, returning the
    /// remaining options.
    pub(super) fn rowkey_count_options(
        &mut self,
        v: &Value,
        rowkey: &mut Option<RowkeyScan>,
    ) -> Res<Value> {
        let Value::Hash(pairs) = v else {
            return Ok(v.clone());
        };
        let mut pairs = pairs.clone();
        *rowkey = self.rowkey_scan(&mut pairs)?;
        Ok(Value::Hash(pairs))
    }

    fn rowkey_schema(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 2)?;
        match st.args.as_slice() {
            [] => {
                self.line("SCHEMA");
                // Session schemas shadow a table's (as lookups do), and are marked.
                let mut all: std::collections::BTreeMap<String, String> = self
                    .table_schemas()?
                    .into_iter()
                    .map(|(n, s)| (n, format!("'{s}'")))
                    .collect();
                for (n, s) in &self.rowkey_schemas {
                    all.insert(n.clone(), format!("'{s}' (this session only)"));
                }
                for (n, s) in &all {
                    self.line(&format!("{n} => {s}"));
                }
                self.line(&format!("{} row(s)", all.len()));
            }
            [name] => {
                let name = text(name, "schema name")?;
                let schema = self.schema_named(&name)?;
                self.echo = Some(format!("\"{schema}\""));
            }
            [name, fields] => {
                let name = text(name, "schema name")?;
                let schema: Schema = text(fields, "schema")?.parse().map_err(rowkey_error)?;
                self.echo = Some(format!("\"{schema}\""));
                if self.conn.table_exists(&name).map_err(client)? {
                    let set = [(SCHEMA_ATTRIBUTE.to_string(), schema.to_string())];
                    match self.conn.alter_table_attributes(&name, &set, &[]) {
                        Ok(()) => {
                            self.rowkey_schemas.remove(&name);
                            return Ok(());
                        }
                        // Apache HBase's Thrift1 gateway cannot store table attributes.
                        Err(ferrobase_client::ClientError::Unsupported(_)) => self.line(&format!(
                            "this gateway cannot store table attributes: {name}'s rowkey schema \
                             lasts for this session only"
                        )),
                        Err(e) => return Err(client(e)),
                    }
                }
                self.rowkey_schemas.insert(name, schema);
            }
            _ => unreachable!("arity checked"),
        }
        Ok(())
    }

    fn rowkey_encode(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, 2)?;
        let schema = self.schema_named(&text(&st.args[0], "schema name")?)?;
        let values = match &st.args[1] {
            Value::Hash(_) => all_fields(&schema, hash(&st.args[1], "fields")?)?,
            other => schema
                .parse_record(&text(other, "fields")?)
                .map_err(rowkey_error)?,
        };
        let key = schema.encode(&values).map_err(rowkey_error)?;
        let q = quoted_key(&key);
        self.line(&q);
        self.echo = Some(q);
        Ok(())
    }

    fn rowkey_decode(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, 2)?;
        let schema = self.schema_named(&text(&st.args[0], "schema name")?)?;
        let key = bytes(&st.args[1], "rowkey")?;
        let fields = schema.format_key(&key).map_err(rowkey_error)?;
        self.line(&fields);
        Ok(())
    }

    /// Reads a scan's `ROWKEY => 'schema'` and its field options out of `opts`, leaving the
    /// ordinary scan options; `None` without `ROWKEY`. The fields given must be the first value
    /// fields of the schema, in any order; `FROM`/`TO` bound the next one (both inclusive).
    pub(super) fn rowkey_scan(
        &mut self,
        opts: &mut Vec<(Value, Value)>,
    ) -> Res<Option<RowkeyScan>> {
        let Some(i) = opts
            .iter()
            .position(|(k, _)| k.as_text().as_deref() == Some("ROWKEY"))
        else {
            return Ok(None);
        };
        let (_, name) = opts.remove(i);
        let schema = self.schema_named(&text(&name, "ROWKEY")?)?;
        let names: Vec<String> = schema.value_fields().map(|f| f.name.clone()).collect();
        let mut given: Vec<Option<KeyValue>> = vec![None; names.len()];
        let (mut from, mut to) = (None, None);
        let mut rest = Vec::with_capacity(opts.len());
        for (k, v) in opts.drain(..) {
            let key = k.as_text().unwrap_or_default();
            match key.as_str() {
                "FROM" => from = Some(v),
                "TO" => to = Some(v),
                "STARTROW" | "STOPROW" | "ENDROW" | "ROWPREFIXFILTER" => {
                    return Err(format!(
                        "{key} cannot be combined with ROWKEY (the fields choose the rows)"
                    )
                    .into())
                }
                _ => match field_named(&schema, &key) {
                    Some(field) => {
                        let field = field.to_string();
                        let Some(i) = names.iter().position(|n| *n == field) else {
                            return Err(derived(&field));
                        };
                        given[i] = Some(key_value(&schema, &field, &v)?);
                    }
                    None => rest.push((k, v)),
                },
            }
        }
        *opts = rest;
        let m = given.iter().take_while(|v| v.is_some()).count();
        if let Some(j) = given.iter().skip(m).position(Option::is_some) {
            return Err(format!(
                "ROWKEY scans take the first fields of the key: {} is given but {} before it is \
                 not",
                names[m + j],
                names[m]
            )
            .into());
        }
        let prefix: Vec<KeyValue> = given.into_iter().flatten().collect();
        let ranges = if from.is_none() && to.is_none() {
            schema.prefix_ranges(&prefix)
        } else {
            let Some(next) = names.get(m) else {
                return Err(
                    "FROM and TO bound the field after those given, but every field is given"
                        .into(),
                );
            };
            let bound = |v: Option<Value>| -> Res<Bound<KeyValue>> {
                Ok(match v {
                    Some(v) => Bound::Included(key_value(&schema, next, &v)?),
                    None => Bound::Unbounded,
                })
            };
            schema.field_ranges(&prefix, bound(from)?, bound(to)?)
        }
        .map_err(rowkey_error)?;
        Ok(Some(RowkeyScan {
            ranges: ranges.into_iter().map(|r| (r.start, r.stop)).collect(),
            schema,
        }))
    }

    /// Runs `scan` over every range of `rk`, merged back into the order of the unsalted key
    /// (`Schema::scatter_merge`), printing rows by their fields. Returns the number of rows.
    pub(super) fn run_rowkey_scan(
        &mut self,
        table: &ferrobase_client::Table,
        scan: Scan,
        filter: Option<&[u8]>,
        rk: &RowkeyScan,
        converters: &super::converter::Converters,
    ) -> Res<usize> {
        let limit = scan.limit;
        let mut streams = Vec::with_capacity(rk.ranges.len());
        for (start, stop) in &rk.ranges {
            let s = scan
                .clone()
                .with_start_row(start.clone())
                .with_stop_row(stop.clone());
            let scanner = table.scanner(s, filter).map_err(client)?;
            streams.push(RowStream {
                scanner,
                buffered: Vec::new().into_iter(),
                error: None,
            });
        }
        let mut errors = Vec::new();
        let mut rows = 0usize;
        let mut last: Option<Vec<u8>> = None;
        {
            let merged = rk.schema.scatter_merge(streams.iter_mut(), limit);
            for (key, row) in merged {
                self.check_interrupt()?;
                if last.as_deref() != Some(key.as_slice()) {
                    rows += 1;
                    last = Some(key.clone());
                }
                let shown = rk
                    .schema
                    .format_key(&key)
                    .unwrap_or_else(|_| format::binary(&key));
                for c in &row.cells {
                    let value = converters.value(c)?;
                    self.line(&format::two_columns(
                        &shown,
                        &format::cell_with_value(c, &value),
                    ));
                }
            }
        }
        for s in &mut streams {
            if let Some(e) = s.error.take() {
                errors.push(e);
            }
        }
        if let Some(e) = errors.into_iter().next() {
            return Err(client(e));
        }
        Ok(rows)
    }
}

/// One range's scanner as an iterator of `(row key, row)`; a failure ends it and is kept.
struct RowStream {
    scanner: ferrobase_client::Scanner,
    buffered: std::vec::IntoIter<RowResult>,
    error: Option<ferrobase_client::ClientError>,
}

impl Iterator for RowStream {
    type Item = (Vec<u8>, RowResult);

    fn next(&mut self) -> Option<Self::Item> {
        loop {
            if let Some(r) = self.buffered.next() {
                return Some((r.row().to_vec(), r));
            }
            if self.error.is_some() {
                return None;
            }
            match self.scanner.next_batch(100) {
                Ok(batch) if batch.is_empty() => return None,
                Ok(batch) => self.buffered = batch.into_iter(),
                Err(e) => {
                    self.error = Some(e);
                    return None;
                }
            }
        }
    }
}
