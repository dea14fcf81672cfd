//! The DDL commands of HBase's shell (its `ddl` group: `create.rb`, `describe.rb`, `list.rb`,
//! `exists.rb`, `is_enabled.rb`, `is_disabled.rb`, `enable.rb`, `disable.rb`, `drop.rb`); `alter`
//! is in `alter.rs`, the `*_all` commands in `bulk_tables.rs`, `list_regions` in
//! `cluster_status.rs`, the namespace commands in `namespace.rs`.

use super::alter::{apply_family_attributes, TableAttributeChanges};
use super::args::{
    arity, bytes, client, columns_of, hash, illegal, int, text, to_bytes_binary, CommandError, Res,
};
use super::format;
use super::interpreter::{matching, Shell};
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};
use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, SplitAlgorithm, TableDescriptor, TableName};

/// The `ddl` group's table commands (HBase's `ddl` group; `*_all` in `bulk_tables.rs`).
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "create",
        group: Group::Ddl,
        help: "Create a table with column families and optional pre-splits (SPLITS, NUMREGIONS with SPLITALGO).",
        examples: &["create 't1', {NAME => 'f1', VERSIONS => 5}", "create 't1', 'f1', SPLITS => ['10', '20', '30']"],
        writes: false,
        run: Run::Handler(|sh, st| sh.create(st)),
    },
    Command {
        name: "alter",
        group: Group::Ddl,
        help: "Add, modify or delete column families, or change table attributes.",
        examples: &["alter 't1', NAME => 'f1', VERSIONS => 3", "alter 't1', 'delete' => 'f2'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.alter(st)),
    },
    Command {
        name: "describe",
        group: Group::Ddl,
        help: "Print a table's schema.",
        examples: &["describe 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.describe_command(st)),
    },
    Command {
        name: "desc",
        group: Group::Ddl,
        help: "Alias of describe.",
        examples: &["desc 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.describe_command(st)),
    },
    Command {
        name: "list",
        group: Group::Ddl,
        help: "List tables, optionally matching a regular expression.",
        examples: &["list", "list 'ns:.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.list_command(st)),
    },
    Command {
        name: "exists",
        group: Group::Ddl,
        help: "Does the table exist?",
        examples: &["exists 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.exists(st)),
    },
    Command {
        name: "is_enabled",
        group: Group::Ddl,
        help: "Is the table enabled?",
        examples: &["is_enabled 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.is_enabled(st)),
    },
    Command {
        name: "is_disabled",
        group: Group::Ddl,
        help: "Is the table disabled?",
        examples: &["is_disabled 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.is_enabled(st)),
    },
    Command {
        name: "enable",
        group: Group::Ddl,
        help: "Enable a table.",
        examples: &["enable 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.enable_or_disable(st)),
    },
    Command {
        name: "disable",
        group: Group::Ddl,
        help: "Disable a table.",
        examples: &["disable 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.enable_or_disable(st)),
    },
    Command {
        name: "drop",
        group: Group::Ddl,
        help: "Drop a disabled table.",
        examples: &["drop 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.drop(st)),
    },
    Command {
        name: "get_table",
        group: Group::Ddl,
        help: "Take a reference to a table, on which the table commands are methods (t.help lists them).",
        examples: &["t = get_table 't1'"],
        writes: false,
        run: Run::Interpreter,
    },
];

impl Shell {
    /// `describe 't'` and its alias `desc 't'`.
    fn describe_command(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 1, 1)?;
        self.describe(&text(&a[0], "table name")?)
    }

    /// `list ['regex']`.
    fn list_command(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 0, 1)?;
        self.list(a.first())
    }

    /// `exists 't'`.
    fn exists(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
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

    /// `is_enabled 't'` and `is_disabled 't'`.
    fn is_enabled(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 1, 1)?;
        let t = text(&a[0], "table name")?;
        let en = self.conn.is_enabled(&t).map_err(client)?;
        let v = if st.command == "is_enabled" { en } else { !en };
        self.line(&v.to_string());
        self.echo = Some(v.to_string());
        Ok(())
    }

    /// `enable 't'` and `disable 't'`.
    fn enable_or_disable(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
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

    /// `drop 't'` (a disabled table).
    fn drop(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 1, 1)?;
        let t = text(&a[0], "table name")?;
        if self.conn.is_enabled(&t).map_err(client)? {
            return Err(CommandError::Failed(format!(
                "Table {t} is enabled. Disable it first."
            )));
        }
        self.conn.drop_table(&t).map_err(client)
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
                            // HBase's admin.rb iterates the keys: only an array has them.
                            "SPLITS" if !matches!(v, Value::Array(_)) => {
                                return Err(format!(
                                    "SPLITS must be an array of split keys, got {}",
                                    v.kind()
                                )
                                .into())
                            }
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
        // HBase 2.4's describe.rb: each family, then a blank row; after the count, the table's
        // quotas, or that quotas are disabled (ferrobase has none).
        // Every attribute when the connection reads them all (embedded, or a ferrobase
        // gateway, which answers table attributes too); Thrift1's few through Apache's.
        let complete = described.is_some() || matches!(self.conn, Connection::Embedded(_));
        for f in &fams {
            self.line(&if complete {
                format::family(f)
            } else {
                format::family_thrift1(f)
            });
            self.line("");
        }
        self.line(&format!("{} row(s)", fams.len()));
        self.line("Quota is disabled");
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
