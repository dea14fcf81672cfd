//! Every shell command, declared once: its name, its group (HBase's shell groups), its help
//! with examples, whether it writes cells, and what runs it. Each group's commands are declared
//! in that group's file (`ddl.rs`, `dml.rs`, ...); help, `help 'group'`, completion, dispatch and
//! the tests all read this registry. HBase's commands ferrobase does not have are registered too
//! ([`Run::Unsupported`]), so each answers one sentence saying so instead of a Ruby `NameError`.

use super::args::{CommandError, Res};
use super::interpreter::Shell;
use super::syntax::Statement;

/// The groups of HBase's shell (`help` lists them in this order), and ferrobase's own.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Group {
    /// `general`: status, version, whoami, help.
    General,
    /// `ddl`: tables and their families.
    Ddl,
    /// `namespace`.
    Namespace,
    /// `dml`: reads and writes of cells.
    Dml,
    /// `tools`: flush, compact, split and the cluster's maintenance.
    Tools,
    /// `snapshots`.
    Snapshots,
    /// `replication`.
    Replication,
    /// `quotas`.
    Quotas,
    /// `procedures`.
    Procedures,
    /// `security`: grants.
    Security,
    /// `rowkey`: ferrobase's rowkey schemas (`docs/design/rowkey.md`).
    Rowkey,
}

impl Group {
    /// Every group, in `help`'s order.
    pub const ALL: [Group; 11] = [
        Group::General,
        Group::Ddl,
        Group::Namespace,
        Group::Dml,
        Group::Tools,
        Group::Snapshots,
        Group::Replication,
        Group::Quotas,
        Group::Procedures,
        Group::Security,
        Group::Rowkey,
    ];

    /// The group's name, as `help 'name'` takes it.
    pub fn name(self) -> &'static str {
        match self {
            Group::General => "general",
            Group::Ddl => "ddl",
            Group::Namespace => "namespace",
            Group::Dml => "dml",
            Group::Tools => "tools",
            Group::Snapshots => "snapshots",
            Group::Replication => "replication",
            Group::Quotas => "quotas",
            Group::Procedures => "procedures",
            Group::Security => "security",
            Group::Rowkey => "rowkey",
        }
    }
}

/// What runs a command.
#[derive(Clone, Copy)]
pub enum Run {
    /// The command's handler.
    Handler(fn(&mut Shell, &Statement) -> Res<()>),
    /// An HBase command ferrobase does not have: it fails with this sentence.
    Unsupported(&'static str),
    /// Handled before dispatch by the interpreter (`exit`, `get_table`'s table references).
    Interpreter,
}

/// One shell command.
#[derive(Clone, Copy)]
pub struct Command {
    /// The name typed.
    pub name: &'static str,
    /// Its group.
    pub group: Group,
    /// One paragraph of help.
    pub help: &'static str,
    /// Statements showing its use (at least one; the tests run them).
    pub examples: &'static [&'static str],
    /// Whether it writes cells: refused on the catalog views (`hbase:meta`, `hbase:namespace`).
    pub writes: bool,
    /// What runs it.
    pub run: Run,
}

impl Command {
    /// Whether ferrobase runs it (not an unsupported HBase command).
    pub fn is_supported(&self) -> bool {
        !matches!(self.run, Run::Unsupported(_))
    }
}

/// HBase commands ferrobase does not have, each with the sentence it answers.
const UNSUPPORTED: &[Command] = &[
    unsupported(
        "list_peers",
        Group::Replication,
        "list_peers: ferrobase has no replication",
    ),
    unsupported(
        "add_peer",
        Group::Replication,
        "add_peer: ferrobase has no replication",
    ),
    unsupported(
        "list_quotas",
        Group::Quotas,
        "list_quotas: quotas are not supported by ferrobase (its limits are per server: docs/design/limits.md)",
    ),
    unsupported(
        "set_quota",
        Group::Quotas,
        "set_quota: quotas are not supported by ferrobase (its limits are per server: docs/design/limits.md)",
    ),
    unsupported(
        "list_procedures",
        Group::Procedures,
        "list_procedures: ferrobase runs each table change at once; there are no procedures to list",
    ),
    unsupported(
        "processlist",
        Group::General,
        "processlist: ferrobase does not list running tasks yet",
    ),
    unsupported(
        "balancer",
        Group::Tools,
        "balancer: ferrobase is one server; there are no regions to move",
    ),
    unsupported(
        "balance_switch",
        Group::Tools,
        "balance_switch: ferrobase is one server; it has no balancer",
    ),
    unsupported(
        "move",
        Group::Tools,
        "move: ferrobase is one server; there is nowhere to move a region",
    ),
    unsupported(
        "merge_region",
        Group::Tools,
        "merge_region: ferrobase does not merge regions",
    ),
];

/// An unsupported HBase command in `group` that answers `why`.
const fn unsupported(name: &'static str, group: Group, why: &'static str) -> Command {
    Command {
        name,
        group,
        help: why,
        examples: &[],
        writes: false,
        run: Run::Unsupported(why),
    }
}

/// Every command: each group's declarations, then HBase's commands ferrobase does not have.
pub fn commands() -> impl Iterator<Item = &'static Command> {
    super::general::COMMANDS
        .iter()
        .chain(super::cluster_status::COMMANDS)
        .chain(super::ddl::COMMANDS)
        .chain(super::bulk_tables::COMMANDS)
        .chain(super::namespace::COMMANDS)
        .chain(super::dml::COMMANDS)
        .chain(super::tools::COMMANDS)
        .chain(super::security::COMMANDS)
        .chain(super::rowkey::COMMANDS)
        .chain(super::snapshots::COMMANDS)
        .chain(super::slow_log::COMMANDS)
        .chain(UNSUPPORTED)
}

/// The command named `name`.
pub fn find(name: &str) -> Option<&'static Command> {
    commands().find(|c| c.name == name)
}

impl Shell {
    /// Runs the command `st` names through the registry.
    pub(super) fn dispatch(&mut self, st: &Statement) -> Res<()> {
        let Some(command) = find(&st.command) else {
            return Err(CommandError::Failed(format!(
                "Unknown command '{}'. Type help for the list of commands.",
                st.command
            )));
        };
        if command.writes {
            if let Some(view) = super::catalog::names_catalog(st.args.first()) {
                if let Some(e) = super::catalog::refuse_write(&st.command, &view) {
                    return Err(e);
                }
            }
        }
        match command.run {
            Run::Handler(run) => run(self, st),
            Run::Unsupported(why) => Err(CommandError::Failed(why.to_string())),
            Run::Interpreter => Err(CommandError::Failed(format!(
                "{} is not a statement here",
                st.command
            ))),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashSet;

    #[test]
    fn names_are_unique_and_every_supported_command_has_an_example_of_itself() {
        let mut seen = HashSet::new();
        for c in commands() {
            assert!(seen.insert(c.name), "{} registered twice", c.name);
            assert!(!c.help.is_empty(), "{} has no help", c.name);
            if c.is_supported() {
                assert!(!c.examples.is_empty(), "{} has no example", c.name);
            }
            for e in c.examples {
                let statements = super::super::syntax::parse(e).unwrap_or_else(|err| {
                    panic!("{}: example {e:?} does not parse: {err:?}", c.name)
                });
                assert!(
                    statements.iter().any(|s| s.command == c.name),
                    "{}: example {e:?} does not use it",
                    c.name
                );
            }
        }
    }

    /// HBase's commands that ferrobase registers are exercised by the conformance suite
    /// (tests/shell/conformance: HBase's own help examples, run embedded and over --connect and
    /// compared with HBase's output); ferrobase's own run their examples in an embedded shell.
    #[test]
    fn every_command_is_run_by_the_conformance_suite_or_its_examples_run() {
        let dir =
            std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/shell/conformance");
        let mut covered = HashSet::new();
        for entry in std::fs::read_dir(&dir).unwrap() {
            let path = entry.unwrap().path();
            if path.extension().is_none_or(|e| e != "txt") {
                continue;
            }
            let text = std::fs::read(&path).unwrap();
            for line in String::from_utf8_lossy(&text).lines() {
                // The command: the statement's first word (its examples use variables such
                // as `ts1` that only the suite's setup defines).
                if let Some(st) = line.strip_prefix("== ") {
                    let word = st
                        .split(|c: char| !(c.is_ascii_alphanumeric() || c == '_'))
                        .next()
                        .unwrap_or_default();
                    covered.insert(word.to_string());
                }
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let conn =
            ferrobase_client::Connection::open(&format!("file:{}", dir.path().display())).unwrap();
        let mut shell = Shell::new(conn, Box::new(std::io::sink()));
        let setup = super::super::syntax::parse("create 't1', 'f1'").unwrap();
        shell.run(&setup[0]);
        for c in commands().filter(|c| c.is_supported() && matches!(c.run, Run::Handler(_))) {
            if covered.contains(c.name) {
                continue;
            }
            assert!(
                c.group == Group::Rowkey || c.name == "help",
                "{} is an HBase command the conformance suite does not run: add HBase's \
                 example to tests/shell/conformance",
                c.name
            );
            for e in c.examples {
                for st in super::super::syntax::parse(e).unwrap() {
                    assert_eq!(
                        shell.run(&st),
                        Some(true),
                        "{}: example {e:?} failed",
                        c.name
                    );
                }
            }
        }
    }

    /// An HBase command ferrobase does not have answers one sentence saying so, not a Ruby
    /// `NameError`, bare or with arguments; `help` lists the groups.
    #[test]
    fn unsupported_commands_say_so_and_help_lists_groups() {
        #[derive(Clone, Default)]
        struct Out(std::sync::Arc<std::sync::Mutex<Vec<u8>>>);
        impl std::io::Write for Out {
            fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
                self.0.lock().unwrap().extend_from_slice(b);
                Ok(b.len())
            }
            fn flush(&mut self) -> std::io::Result<()> {
                Ok(())
            }
        }
        let dir = tempfile::tempdir().unwrap();
        let conn =
            ferrobase_client::Connection::open(&format!("file:{}", dir.path().display())).unwrap();
        let out = Out::default();
        let mut shell = Shell::new(conn, Box::new(out.clone()));
        for text in [
            "list_peers",
            "add_peer '1', CLUSTER_KEY => 'zk:2181:/hbase'",
            "balancer",
            "help",
            "help 'dml'",
        ] {
            for st in super::super::syntax::parse(text).unwrap() {
                shell.run(&st);
            }
        }
        let printed = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        assert!(
            printed.contains("ERROR: list_peers: ferrobase has no replication"),
            "{printed}"
        );
        assert!(
            printed.contains("ERROR: balancer: ferrobase is one server"),
            "{printed}"
        );
        assert!(!printed.contains("undefined local variable"), "{printed}");
        assert!(
            printed.contains("  Group name: dml\n  Commands: put, get, scan"),
            "{printed}"
        );
        assert!(
            printed.contains("get_counter: Read a counter cell."),
            "{printed}"
        );
    }
}
