//! The namespace commands of HBase's shell (`create_namespace.rb`, `drop_namespace.rb`,
//! `list_namespace.rb`, `list_namespace_tables.rb`, `describe_namespace.rb`): `default` and
//! `hbase` always exist, `create 'ns:t', ...` needs `ns` created first, and only an empty
//! namespace can be dropped.

use super::args::{arity, client, hash, text, CommandError, Res};
use super::interpreter::{matching, Shell};
use super::registry::{Command, Group, Run};
use super::syntax::Statement;

/// The `namespace` group.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "create_namespace",
        group: Group::Namespace,
        help: "Create a namespace.",
        examples: &["create_namespace 'ns1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.create_namespace(st)),
    },
    Command {
        name: "drop_namespace",
        group: Group::Namespace,
        help: "Drop an empty namespace.",
        examples: &["drop_namespace 'ns1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.drop_namespace(st)),
    },
    Command {
        name: "list_namespace",
        group: Group::Namespace,
        help: "List namespaces, optionally matching a regular expression.",
        examples: &["list_namespace", "list_namespace 'ns.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.list_namespace(st)),
    },
    Command {
        name: "list_namespace_tables",
        group: Group::Namespace,
        help: "List the tables of a namespace.",
        examples: &["list_namespace_tables 'ns1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.list_namespace_tables(st)),
    },
    Command {
        name: "describe_namespace",
        group: Group::Namespace,
        help: "Describe a namespace.",
        examples: &["describe_namespace 'ns1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.describe_namespace(st)),
    },
    Command {
        name: "alter_namespace",
        group: Group::Namespace,
        help: "alter_namespace: namespace properties are not supported by ferrobase (its namespaces have a name only)",
        examples: &[],
        writes: false,
        run: Run::Unsupported("alter_namespace: namespace properties are not supported by ferrobase (its namespaces have a name only)"),
    },
];

impl Shell {
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
