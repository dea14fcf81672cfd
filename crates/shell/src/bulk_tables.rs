//! `disable_all`, `enable_all` and `drop_all`, as HBase's shell runs them (`disable_all.rb`,
//! `enable_all.rb`, `drop_all.rb` and `admin.rb`): the tables whose whole name matches the
//! regular expression are listed, `Disable the above N tables (y/n)?` asks, and an answer
//! containing `y` or `Y` (Ruby's `answer =~ /y.*/i`) goes ahead. Each table's failure is printed
//! as `table:NAME, error:EXCEPTION` and counted, and the others still run.
//!
//! The answer is read from the terminal. When statements come from a file or a pipe (`-n`
//! included) there is none, as Ruby's `gets` finds none in HBase's shell then (checked against
//! HBase 2.6.1): the command fails with HBase's ``undefined method `chomp' for nil:NilClass``,
//! changing nothing, and a following `y` line is a statement of its own — so a script behaves
//! as under `hbase shell`, and `-n` stops there with exit status 1.

use super::args::{arity, client, text, CommandError, Res};
use super::interpreter::{matching, Shell};
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};

/// Where the answer to a confirmation comes from: the next line of input, `None` at its end.
pub type AnswerSource = Box<dyn FnMut() -> Option<String>>;

/// What a bulk command does to each table.
#[derive(Clone, Copy)]
enum Action {
    Disable,
    Enable,
    Drop,
}

impl Action {
    /// The verb of the question (`Disable the above 2 tables`).
    fn verb(self) -> &'static str {
        match self {
            Action::Disable => "Disable",
            Action::Enable => "Enable",
            Action::Drop => "Drop",
        }
    }

    /// The participle of the report (`2 tables successfully disabled`).
    fn done(self) -> &'static str {
        match self {
            Action::Disable => "disabled",
            Action::Enable => "enabled",
            Action::Drop => "dropped",
        }
    }
}

/// The `ddl` group's commands over every table a pattern matches.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "disable_all",
        group: Group::Ddl,
        help: "Disable every table matching a regular expression, after a (y/n) confirmation.",
        examples: &["disable_all 'ns:t.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.bulk(st, Action::Disable)),
    },
    Command {
        name: "enable_all",
        group: Group::Ddl,
        help: "Enable every table matching a regular expression, after a (y/n) confirmation.",
        examples: &["enable_all 't.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.bulk(st, Action::Enable)),
    },
    Command {
        name: "drop_all",
        group: Group::Ddl,
        help: "Drop every table matching a regular expression (disabled ones), after a (y/n) confirmation.",
        examples: &["drop_all 't.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.bulk(st, Action::Drop)),
    },
];

impl Shell {
    /// Sets where confirmations read their answer (the default: standard input, for a
    /// terminal session).
    pub fn set_answer_source(&mut self, source: AnswerSource) {
        self.answers = Some(source);
    }

    /// The next line of input, as Ruby's `gets`.
    fn read_answer(&mut self) -> Option<String> {
        self.flush_output();
        match &mut self.answers {
            Some(source) => source(),
            None => {
                let mut line = String::new();
                match std::io::stdin().read_line(&mut line) {
                    Ok(0) | Err(_) => None,
                    Ok(_) => Some(line.trim_end_matches(['\n', '\r']).to_string()),
                }
            }
        }
    }

    fn bulk(&mut self, st: &Statement, action: Action) -> Res<()> {
        arity(st, 1, 1)?;
        let regex = text(&st.args[0], "regex")?;
        let names = self.conn.list_tables().map_err(client)?;
        let tables = matching(Some(&Value::Str(regex.clone().into_bytes())), names)?;
        for t in &tables {
            self.line(t);
        }
        if tables.is_empty() {
            self.line(&format!("No tables matched the regex {regex}"));
            return Ok(());
        }
        self.line(&format!(
            "\n{} the above {} tables (y/n)?",
            action.verb(),
            tables.len()
        ));
        let Some(answer) = self.read_answer() else {
            return Err(CommandError::Failed(
                "undefined method `chomp' for nil:NilClass".into(),
            ));
        };
        if !answer.to_ascii_lowercase().contains('y') {
            return Ok(());
        }
        let mut failed = Vec::new();
        for t in &tables {
            if let Err(e) = self.apply(action, t) {
                self.line(&format!("table:{t}, error:{e}"));
                failed.push(t.clone());
            }
        }
        self.line(&format!(
            "{} tables successfully {}",
            tables.len() - failed.len(),
            action.done()
        ));
        if !failed.is_empty() {
            self.line(&format!(
                "{} tables not {} due to an exception: {}",
                failed.len(),
                action.done(),
                failed.join(",")
            ));
        }
        Ok(())
    }

    /// One table's action; the error text HBase's `IOException` would print.
    fn apply(&mut self, action: Action, table: &str) -> Result<(), String> {
        let enabled = self.conn.is_enabled(table).map_err(|e| e.to_string())?;
        let result = match (action, enabled) {
            (Action::Disable, false) => {
                return Err(format!(
                    "org.apache.hadoop.hbase.TableNotEnabledException: {table}"
                ))
            }
            (Action::Enable | Action::Drop, true) => {
                return Err(format!(
                    "org.apache.hadoop.hbase.TableNotDisabledException: {table}"
                ))
            }
            (Action::Drop, false) => self.conn.drop_table(table),
            (Action::Disable, true) => self.conn.set_enabled(table, false),
            (Action::Enable, false) => self.conn.set_enabled(table, true),
        };
        result.map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::super::syntax::parse;
    use super::*;
    use ferrobase_client::Connection;
    use std::sync::{Arc, Mutex};

    /// Output captured for inspection.
    #[derive(Clone, Default)]
    struct Captured(Arc<Mutex<Vec<u8>>>);

    impl std::io::Write for Captured {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            self.0.lock().unwrap().extend_from_slice(b);
            Ok(b.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }

    /// Runs `script` with `answers` given to the confirmations; the output without `Took`.
    fn run(script: &str, answers: &[&str]) -> String {
        let dir = tempfile::tempdir().unwrap();
        let conn = Connection::open(&format!("file:{}", dir.path().display())).unwrap();
        let out = Captured::default();
        let mut shell = Shell::new(conn, Box::new(out.clone()));
        let mut answers: Vec<String> = answers.iter().rev().map(|a| a.to_string()).collect();
        shell.set_answer_source(Box::new(move || answers.pop()));
        for st in parse(script).unwrap() {
            shell.run(&st);
        }
        let text = String::from_utf8(out.0.lock().unwrap().clone()).unwrap();
        text.lines()
            .filter(|l| !l.starts_with("Took "))
            .map(|l| format!("{l}\n"))
            .collect()
    }

    #[test]
    fn confirmed_bulk_commands_report_each_failure_and_count_the_rest() {
        let out = run(
            "create 't1', 'f'\ncreate 't2', 'f'\ncreate 'other', 'f'\ndisable 't2'\n\
             disable_all 't.*'\nis_enabled 'other'\nenable_all 't1'\n\
             drop_all 't.*'\nlist\n",
            &["y", "Yes please", "y"],
        );
        assert!(
            out.contains(
                "t1\nt2\n\nDisable the above 2 tables (y/n)?\n\
                 table:t2, error:org.apache.hadoop.hbase.TableNotEnabledException: t2\n\
                 1 tables successfully disabled\n\
                 1 tables not disabled due to an exception: t2\ntrue\n"
            ),
            "{out}"
        );
        assert!(out.contains("1 tables successfully enabled\n"), "{out}");
        assert!(
            out.contains(
                "table:t1, error:org.apache.hadoop.hbase.TableNotDisabledException: t1\n\
                 1 tables successfully dropped\n\
                 1 tables not dropped due to an exception: t1\n\
                 TABLE\nother\nt1\n2 row(s)\n"
            ),
            "{out}"
        );
    }

    #[test]
    fn an_answer_without_y_changes_nothing() {
        let out = run(
            "create 'a1', 'f'\ndisable_all 'a.*'\nis_enabled 'a1'\n",
            &["no"],
        );
        assert!(
            out.ends_with("Disable the above 1 tables (y/n)?\ntrue\n=> true\n"),
            "{out}"
        );
    }
}
