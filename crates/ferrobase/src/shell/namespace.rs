//! The namespace commands of HBase's shell (`create_namespace.rb`, `drop_namespace.rb`,
//! `list_namespace.rb`, `list_namespace_tables.rb`, `describe_namespace.rb`): `default` and
//! `hbase` always exist, `create 'ns:t', ...` needs `ns` created first, and only an empty
//! namespace can be dropped.

use super::args::{arity, client, hash, text, CommandError, Res};
use super::interpreter::{matching, Shell};
use super::syntax::Statement;

/// The namespace commands with their help and an example (listed by `help`).
pub const NAMESPACE_COMMANDS: &[(&str, &str, &str)] = &[
    (
        "create_namespace",
        "Create a namespace.",
        "create_namespace 'ns1'",
    ),
    (
        "drop_namespace",
        "Drop an empty namespace.",
        "drop_namespace 'ns1'",
    ),
    (
        "list_namespace",
        "List namespaces, optionally matching a regular expression.",
        "list_namespace 'ns.*'",
    ),
    (
        "list_namespace_tables",
        "List the tables of a namespace.",
        "list_namespace_tables 'ns1'",
    ),
    (
        "describe_namespace",
        "Describe a namespace.",
        "describe_namespace 'ns1'",
    ),
];

impl Shell {
    /// Runs a namespace command; `None` when `st` is not one.
    pub(super) fn namespace_command(&mut self, st: &Statement) -> Option<Res<()>> {
        Some(match st.command.as_str() {
            "create_namespace" => self.create_namespace(st),
            "drop_namespace" => self.drop_namespace(st),
            "list_namespace" => self.list_namespace(st),
            "list_namespace_tables" => self.list_namespace_tables(st),
            "describe_namespace" => self.describe_namespace(st),
            "alter_namespace" => Err(CommandError::Failed(
                "alter_namespace: namespace properties are not supported by ferrobase (its \
                 namespaces have a name only)"
                    .into(),
            )),
            _ => return None,
        })
    }

    fn create_namespace(&mut self, st: &Statement) -> Res<()> {
        // HBase also takes a hash of namespace properties (quotas); ferrobase has none, so a
        // property is refused rather than dropped.
        arity(st, 1, 2)?;
        let ns = text(&st.args[0], "namespace")?;
        if let Some(props) = st.args.get(1) {
            if let Some((k, _)) = hash(props, "namespace properties")?.first() {
                return Err(CommandError::Failed(format!(
                    "namespace property {k} is not supported by ferrobase (its namespaces have \
                     a name only)"
                )));
            }
        }
        self.conn.create_namespace(&ns).map_err(client)
    }

    fn drop_namespace(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 1)?;
        let ns = text(&st.args[0], "namespace")?;
        self.conn.drop_namespace(&ns).map_err(client)
    }

    fn list_namespace(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 1)?;
        let names = self.conn.list_namespaces().map_err(client)?;
        self.name_list("NAMESPACE", matching(st.args.first(), names)?);
        // HBase's list_namespace prints the names without returning them to irb.
        self.echo = None;
        Ok(())
    }

    /// The namespace's tables, unqualified, after checking it exists.
    fn namespace_tables(&mut self, st: &Statement) -> Res<(String, Vec<String>)> {
        arity(st, 1, 1)?;
        let ns = text(&st.args[0], "namespace")?;
        let all = self.conn.list_namespaces().map_err(client)?;
        if !all.contains(&ns) {
            return Err(CommandError::NamespaceNotFound);
        }
        let tables = self
            .conn
            .list_tables()
            .map_err(client)?
            .into_iter()
            .filter_map(|t| match t.split_once(':') {
                Some((n, q)) if n == ns => Some(q.to_string()),
                None if ns == "default" => Some(t),
                _ => None,
            })
            .collect();
        Ok((ns, tables))
    }

    fn list_namespace_tables(&mut self, st: &Statement) -> Res<()> {
        let (_, tables) = self.namespace_tables(st)?;
        self.name_list("TABLE", tables);
        Ok(())
    }

    /// `{NAME => 'ns', KEY => 'VALUE', ...}` (HBase's `NamespaceDescriptor.toString`, its
    /// properties sorted by key): over `--connect` from `hbase:namespace`, so a namespace of
    /// Apache HBase shows its properties; ferrobase's have none.
    fn describe_namespace(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 1)?;
        let ns = text(&st.args[0], "namespace")?;
        let Some(d) = self
            .conn
            .namespace_descriptors()
            .map_err(client)?
            .into_iter()
            .find(|d| d.name == ns)
        else {
            return Err(CommandError::NamespaceNotFound);
        };
        let mut shown = format!("{{NAME => '{ns}'");
        for (k, v) in &d.properties {
            shown.push_str(&format!(", {k} => '{v}'"));
        }
        shown.push('}');
        self.line("DESCRIPTION");
        self.line(&shown);
        // HBase 2.4's describe_namespace.rb ends with the namespace's quotas, or this line.
        self.line("Quota is disabled");
        Ok(())
    }
}
