//! Table references, as HBase's `hbase/table.rb` (since 0.96): `t = get_table 't'` or
//! `t = create 't', 'f'` binds the variable `t` to the table, and `t.put 'r', 'f:q', 'v'`,
//! `t.get 'r'`, `t.scan`, `t.count`, `t.delete`, `t.deleteall`, `t.incr`, `t.get_counter`,
//! `t.append`, `t.enable`, `t.disable`, `t.flush`, `t.drop`, `t.describe` run the shell command of
//! that name with the table as its first argument. `t.help` prints the table-reference help,
//! `t.help 'scan'` a command's. A bare `t` prints `=> Hbase::Table - t`, as irb inspects it.
//!
//! Variables hold table references only: a statement assigning anything else is refused before
//! it runs, rather than binding a value the shell could not use later. As in HBase, `get_table`
//! does not check that the table exists; a method of a reference to a missing table answers the
//! command's own `Unknown table t!`.

use super::args::{arity, text, CommandError, Res};
use super::interpreter::Shell;
use super::ruby;
use super::syntax::{Statement, Value};

/// The commands a table reference answers as methods, each forwarded to the shell command of
/// the same name with the table prepended (HBase's `add_shell_command` and `add_admin_utils`).
pub const TABLE_METHODS: &[&str] = &[
    "put",
    "get",
    "scan",
    "count",
    "delete",
    "deleteall",
    "incr",
    "get_counter",
    "get_splits",
    "append",
    "enable",
    "disable",
    "flush",
    "drop",
    "describe",
];

/// The text `t.help` prints.
pub const TABLE_HELP: &str = "\
Help for table-reference commands.

A table reference is a variable bound to a table, on which the table commands are methods.
Create a table and keep a reference to it:

  ferrobase> t = create 't', 'cf'

or take a reference to a table that exists:

  ferrobase> t = get_table 't'

Then call the commands on it, without the table name:

  ferrobase> t.put 'r', 'cf:q', 'v'
  ferrobase> t.get 'r'
  ferrobase> t.scan
  ferrobase> t.count

The methods are: put, get, scan, count, delete, deleteall, incr, get_counter, append,
get_all_columns, and the administrative enable, disable, flush, drop and describe.
Each takes the arguments of the shell command of the same name; for one of them type:

  ferrobase> t.help 'scan'

After t.drop the reference names a table that no longer exists: its methods fail.";

/// How irb prints a table reference (HBase's `Hbase::Table#to_s`).
pub fn inspect(table: &str) -> String {
    format!("Hbase::Table - {table}")
}

impl Shell {
    /// Runs `st` when it involves variables (an assignment, a method call on a reference, a
    /// bare variable, `get_table`); `None` when it is an ordinary command.
    pub(super) fn table_reference_statement(&mut self, st: &Statement) -> Option<Res<()>> {
        if let Some(var) = &st.receiver {
            return Some(self.call_method(var, st));
        }
        if let (Some(var), "=") = (&st.target, st.command.as_str()) {
            // `ts1 = 1000` (bound by the parser): irb echoes the value, untimed.
            self.variables.remove(var);
            self.took = false;
            if let Some(Value::Int(n)) = st.args.first() {
                self.echo = Some(n.to_string());
            }
            return Some(Ok(()));
        }
        if let Some(var) = &st.target {
            return Some(self.assign(var, st));
        }
        if st.command == "get_table" {
            return Some(self.get_table(st).map(|t| {
                self.echo = Some(inspect(&t));
            }));
        }
        if st.args.is_empty() {
            if let Some(t) = self.variables.get(&st.command).cloned() {
                // irb prints the value of an expression without a `Took` line.
                self.took = false;
                self.echo = Some(inspect(&t));
                return Some(Ok(()));
            }
            // A bare word that is neither a variable nor a command: Ruby's NameError (a `y`
            // line after a confirmation HBase's shell could not read, for one).
            if !is_command(&st.command) && st.command.starts_with(|c: char| c.is_ascii_lowercase())
            {
                return Some(Err(CommandError::Name(ruby::undefined(&st.command))));
            }
        }
        None
    }

    /// `get_table 't'`: the table's name (not checked, as HBase's).
    fn get_table(&mut self, st: &Statement) -> Res<String> {
        arity(st, 1, 1)?;
        text(&st.args[0], "table name")
    }

    /// `var = get_table 't'`, `var = create 't', ...` or `var = other_var`.
    fn assign(&mut self, var: &str, st: &Statement) -> Res<()> {
        let plain = Statement {
            target: None,
            ..st.clone()
        };
        let table = if st.receiver.is_none() && st.args.is_empty() {
            self.variables.get(&st.command).cloned()
        } else {
            None
        };
        let table = match (table, st.command.as_str()) {
            (Some(t), _) => {
                self.took = false;
                t
            }
            (None, "get_table") => self.get_table(st)?,
            (None, "create") => {
                self.dispatch(&plain)?;
                text(&st.args[0], "table name")?
            }
            (None, _) if st.args.is_empty() && !is_command(&st.command) => {
                return Err(CommandError::Name(ruby::undefined(&st.command)))
            }
            (None, other) => {
                return Err(CommandError::Name(format!(
                    "ferrobase variables hold table references only: {var} = get_table 't' or \
                     {var} = create 't', 'f' ({other} does not return a table)"
                )))
            }
        };
        self.variables.insert(var.to_string(), table.clone());
        self.echo = Some(inspect(&table));
        Ok(())
    }

    /// `var.method args`: the command `method` on the referenced table.
    fn call_method(&mut self, var: &str, st: &Statement) -> Res<()> {
        let table = self
            .variables
            .get(var)
            .cloned()
            .ok_or_else(|| CommandError::Name(ruby::undefined(var)))?;
        let method = st.command.as_str();
        match method {
            "help" => {
                arity(st, 0, 1)?;
                match st.args.first() {
                    None => self.line(TABLE_HELP),
                    Some(v) => {
                        let name = text(v, "command")?;
                        if !is_command(&name) {
                            self.line(&format!(
                                "Command '{name}' does not exist. Please see general table help."
                            ));
                            return Ok(());
                        }
                        self.help_command(&name)?;
                    }
                }
                self.took = false;
                Ok(())
            }
            "get_all_columns" => {
                arity(st, 0, 0)?;
                let families = self
                    .conn
                    .describe_table(&table)
                    .map_err(super::args::client)
                    .map_err(|e| match e {
                        CommandError::TableNotFound => {
                            CommandError::Failed(format!("Unknown table {table}!"))
                        }
                        e => e,
                    })?;
                let cols: Vec<String> = families
                    .iter()
                    .map(|f| format!("\"{}:\"", super::format::binary(&f.name)))
                    .collect();
                self.echo = Some(format!("[{}]", cols.join(", ")));
                Ok(())
            }
            m if TABLE_METHODS.contains(&m) => {
                let mut args = Vec::with_capacity(st.args.len() + 1);
                args.push(Value::Str(table.into_bytes()));
                args.extend(st.args.iter().cloned());
                let r = self.dispatch(&Statement {
                    args,
                    receiver: None,
                    target: None,
                    ..st.clone()
                });
                // HBase's `t.count` prints the count but returns nothing for irb to echo.
                if m == "count" {
                    self.echo = None;
                }
                r
            }
            other => Err(CommandError::Name(format!(
                "undefined method `{other}' for {}:Hbase::Table",
                inspect(&table)
            ))),
        }
    }
}

/// True when `name` is one of the shell's commands.
fn is_command(name: &str) -> bool {
    super::registry::find(name).is_some()
}
