//! The general commands of HBase's shell that are not about the cluster (`help`); `status`,
//! `version` and `whoami` are in `cluster_status.rs`, `get_table` in `table_reference.rs`.

use super::args::{arity, text, Res};
use super::interpreter::Shell;
use super::registry;
use super::registry::{Command, Group, Run};
use super::syntax::Statement;

/// The `general` group's shell commands (`status`, `version`, `whoami` are in `cluster_status.rs`).
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "help",
        group: Group::General,
        help: "Show the command groups and their commands, a group's commands with their help ('help \"dml\"'), or one command's help and examples.",
        examples: &["help", "help 'dml'", "help 'scan'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.help(st)),
    },
    Command {
        name: "exit",
        group: Group::General,
        help: "Leave the shell (quit does the same).",
        examples: &["exit"],
        writes: false,
        run: Run::Interpreter,
    },
];

impl Shell {
    /// `help`, `help 'group'` or `help 'command'`, from the registry.
    fn help(&mut self, st: &Statement) -> Res<()> {
        arity(st, 0, 1)?;
        match st.args.first() {
            Some(v) => {
                let name = text(v, "command")?;
                match Group::ALL.into_iter().find(|g| g.name() == name) {
                    Some(group) => self.help_group(group),
                    None => self.help_command(&name)?,
                }
            }
            None => {
                self.line("ferrobase shell: HBase shell statements.");
                self.line("");
                self.line("COMMAND GROUPS:");
                for group in Group::ALL {
                    let names: Vec<&str> = registry::commands()
                        .filter(|c| c.group == group && c.is_supported())
                        .map(|c| c.name)
                        .collect();
                    if names.is_empty() {
                        continue;
                    }
                    self.line(&format!("  Group name: {}", group.name()));
                    self.line(&format!("  Commands: {}", names.join(", ")));
                    self.line("");
                }
                let missing: Vec<&str> = registry::commands()
                    .filter(|c| !c.is_supported())
                    .map(|c| c.name)
                    .collect();
                self.line(&format!(
                    "Not in ferrobase (each says why): {}",
                    missing.join(", ")
                ));
                self.line("Type help 'group' for a group's commands, help 'command' for one.");
            }
        }
        Ok(())
    }

    /// `help 'group'`: each command of the group with its help and first example.
    fn help_group(&mut self, group: Group) {
        for c in registry::commands().filter(|c| c.group == group) {
            self.line(&format!("{}: {}", c.name, c.help));
            if let Some(e) = c.examples.first() {
                self.line(&format!("  {e}"));
            }
        }
    }

    /// Prints one command's help and examples.
    pub(super) fn help_command(&mut self, name: &str) -> Res<()> {
        let c = registry::find(name)
            .ok_or_else(|| format!("unknown command '{name}'; type help for the list"))?;
        self.line(&format!("{name}: {}", c.help));
        if !c.examples.is_empty() {
            self.line(if c.examples.len() == 1 {
                "Example:"
            } else {
                "Examples:"
            });
            for e in c.examples {
                self.line(&format!("  {e}"));
            }
        }
        Ok(())
    }
}
