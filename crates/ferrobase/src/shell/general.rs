//! The general commands of HBase's shell that are not about the cluster (`help`); `status`,
//! `version` and `whoami` are in `cluster_status.rs`, `get_table` in `table_reference.rs`.

use super::args::{arity, text, Res};
use super::interpreter::{all_commands, Shell};
use super::syntax::Statement;

impl Shell {
    /// Runs a general command; `None` when `st` is not one.
    pub(super) fn general_command(&mut self, st: &Statement) -> Option<Res<()>> {
        Some(match st.command.as_str() {
            "help" => self.help(st),
            _ => return None,
        })
    }

    /// `help ['command']`.
    fn help(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
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

    /// Prints one command's help.
    pub(super) fn help_command(&mut self, name: &str) -> Res<()> {
        let (_, what, example) = all_commands()
            .find(|(c, _, _)| *c == name)
            .ok_or_else(|| format!("unknown command '{name}'; type help for the list"))?;
        self.line(&format!("{name}: {what}\nExample:\n  {example}"));
        Ok(())
    }
}
