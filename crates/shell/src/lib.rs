//! `ferrobase shell`: the HBase shell's language, embedded (`--data DIR`) or against a gateway
//! (`--connect thrift://HOST:PORT`). Interactive on a terminal (line editing, history kept
//! across sessions, completion, multi-line input); otherwise runs the statements of a file or
//! standard input and exits non-zero if any failed. `-n` (`--noninteractive`), as HBase's
//! `hbase shell -n`, never prompts, echoes each line behind the prompt as HBase's irb does, and
//! stops at the first failing statement with exit status 1.
//! Ctrl-C while a statement runs interrupts it and returns to the prompt.

#![forbid(unsafe_code)]

mod alter;
/// The build's git revision and commit date (`build.rs`; "unknown" outside a checkout).
pub mod build_info {
    /// `git rev-parse --short HEAD` of the build.
    pub const REVISION: &str = env!("FERROBASE_REVISION");
    /// The date of that commit.
    pub const DATE: &str = env!("FERROBASE_BUILD_DATE");
}
mod args;
mod bulk_tables;
mod catalog;
mod cluster_status;
mod continuation;
mod converter;
mod ddl;
mod dml;
mod explain;
mod format;
#[doc(hidden)]
pub mod fuzzing;
mod general;
mod interpreter;
mod namespace;
mod query_options;
mod registry;
mod rowkey;
mod ruby;
mod security;
mod slow_log;
mod snapshots;
mod syntax;
mod table_reference;
mod tools;

use anyhow::{bail, Context, Result};
use continuation::Continuation;
use ferrobase_client::Connection;
use interpreter::{Shell, ATTRIBUTES};
use std::io::{IsTerminal, Read, Write};
use syntax::Value;

pub use format::family as describe_family;

/// Feeds lines to the shell, running each statement once it is complete. Returns how many
/// statements failed and whether `exit` was reached.
///
/// Lines are collected while [`Continuation`] says a construct is open, and only then parsed:
/// each line is lexed once, so a statement of N lines costs O(N), not the O(N²) of parsing all
/// pending input after every line.
#[derive(Default)]
struct Feeder {
    pending: String,
    /// The open constructs of `pending` (or of the statement being skipped).
    open: Continuation,
    /// The rest of a refused statement is being skipped: lines are dropped until its open
    /// constructs close, so its tail is not run as statements of its own.
    skipping: bool,
    failures: usize,
    /// Stop at the first failure (`-n`).
    stop_on_failure: bool,
    /// Integer variables set by `name = integer`, later ones last.
    globals: Vec<(String, i64)>,
}

impl Feeder {
    /// Adds a line; runs what is complete. `None` means exit.
    fn feed(&mut self, shell: &mut Shell, line: &str, out: &mut dyn std::io::Write) -> Option<()> {
        self.open.push(line);
        self.open.push("\n");
        if self.skipping {
            if self.open.depth() <= 0 {
                self.skipping = false;
                self.open = Continuation::default();
            }
            return Some(());
        }
        self.pending.push_str(line);
        self.pending.push('\n');
        if self.open.open() {
            return Some(());
        }
        match syntax::parse_with(&self.pending, &self.globals) {
            Ok(stmts) => {
                self.pending.clear();
                self.open = Continuation::default();
                for st in stmts {
                    if let (Some(var), [Value::Int(n)]) = (&st.target, st.args.as_slice()) {
                        if st.command == "=" {
                            self.globals.push((var.clone(), *n));
                        }
                    }
                    match shell.run(&st) {
                        None => return None,
                        Some(true) => {}
                        Some(false) => {
                            self.failures += 1;
                            if self.stop_on_failure {
                                return None;
                            }
                        }
                    }
                }
            }
            Err(e) if e.incomplete => {}
            Err(e) => {
                let _ = writeln!(out, "ERROR: {e}");
                self.pending.clear();
                // Refused while still open (nested past the limits): skip to its end.
                self.skipping = self.open.depth() > 0;
                if !self.skipping {
                    self.open = Continuation::default();
                }
                self.failures += 1;
                if self.stop_on_failure {
                    return None;
                }
            }
        }
        Some(())
    }

    /// The end of the input: a statement still pending is an error.
    fn finish(&mut self, out: &mut dyn std::io::Write) {
        if self.skipping || self.pending.trim().is_empty() {
            return;
        }
        if let Err(e) = syntax::parse_with(&self.pending, &self.globals) {
            let _ = writeln!(out, "ERROR: {e}");
            self.failures += 1;
        }
        self.pending.clear();
    }
}

/// `ferrobase shell ARGS`: opens the store or server `args` name and runs the shell on it.
/// The command line of `ferrobase shell`.
#[derive(clap::Args, Debug, Clone)]
pub struct ShellArgs {
    /// Where the data is: `--data DIR` or `--connect URL` with its TLS and login flags.
    #[command(flatten)]
    pub connect: ferrobase_client::flags::ConnectArgs,
    /// Stop at the first failing statement and echo each line, as `hbase shell -n`.
    #[arg(short = 'n', long)]
    pub noninteractive: bool,
    /// A script of shell statements; without it, the statements come from stdin (a prompt on a
    /// terminal).
    #[arg(value_name = "FILE")]
    pub file: Option<String>,
}

/// Runs `ferrobase shell`.
pub fn main(args: ShellArgs) -> Result<()> {
    let url = args.connect.url()?;
    let connect = args.connect.flags();
    let (file, noninteractive) = (args.file, args.noninteractive);
    let opts = connect.options()?;
    let conn = Connection::open_with(&url, &opts).with_context(|| format!("opening {url}"))?;
    if file.is_none() && !noninteractive && std::io::stdin().is_terminal() {
        return interactive(conn);
    }
    let text = match &file {
        Some(f) => std::fs::read_to_string(f).with_context(|| format!("reading {f}"))?,
        None => {
            let mut s = String::new();
            std::io::stdin().read_to_string(&mut s)?;
            s
        }
    };
    let mut shell = Shell::new(conn, Box::new(std::io::stdout()));
    // A (y/n) confirmation finds no answer, as Ruby's `gets` finds none in HBase's shell when
    // its statements come from a file or a pipe: the input is the script's.
    shell.set_answer_source(Box::new(|| None));
    let mut feeder = Feeder {
        stop_on_failure: noninteractive,
        ..Feeder::default()
    };
    let mut stdout = std::io::stdout();
    for (n, line) in text.lines().enumerate() {
        if noninteractive {
            // As `hbase shell -n`, whose irb echoes each line behind its prompt (`:1*` on a
            // statement's continuation lines).
            let (level, mark) = if feeder.pending.is_empty() {
                (0, '>')
            } else {
                (1, '*')
            };
            let _ = writeln!(stdout, "ferrobase(main):{:03}:{level}{mark} {line}", n + 1);
        }
        if feeder.feed(&mut shell, line, &mut stdout).is_none() {
            break;
        }
    }
    feeder.finish(&mut stdout);
    if feeder.failures > 0 {
        bail!("{} statement(s) failed", feeder.failures);
    }
    Ok(())
}

struct Helper {
    tables: Vec<String>,
    /// The input last validated and its open constructs, so that each Enter lexes only the
    /// lines added since (a pasted statement of N lines costs O(N), not O(N²)).
    validated: std::sync::Mutex<(String, Continuation)>,
}

impl rustyline::completion::Completer for Helper {
    type Candidate = String;

    fn complete(
        &self,
        line: &str,
        pos: usize,
        _ctx: &rustyline::Context<'_>,
    ) -> rustyline::Result<(usize, Vec<String>)> {
        let before = &line[..pos];
        let start = before
            .rfind(|c: char| {
                !(c.is_ascii_alphanumeric() || c == '_' || c == ':' || c == '.' || c == '-')
            })
            .map_or(0, |i| i + 1);
        let word = &before[start..];
        let quoted = before[..start].ends_with('\'') || before[..start].ends_with('"');
        let first_word = before[..start].trim().is_empty();
        let mut out: Vec<String> = Vec::new();
        if quoted {
            out.extend(self.tables.iter().filter(|t| t.starts_with(word)).cloned());
        } else if let (true, Some((var, method))) = (first_word, word.split_once('.')) {
            // `t.pu<Tab>`: the methods of a table reference.
            out.extend(
                table_reference::TABLE_METHODS
                    .iter()
                    .chain(&["help", "get_all_columns"])
                    .filter(|m| m.starts_with(method))
                    .map(|m| format!("{var}.{m}")),
            );
        } else if first_word {
            out.extend(
                registry::commands()
                    .filter(|c| c.is_supported())
                    .map(|c| c.name.to_string())
                    .filter(|c| c.starts_with(word)),
            );
        } else {
            out.extend(
                ATTRIBUTES
                    .iter()
                    .map(|a| a.to_string())
                    .filter(|a| a.starts_with(word)),
            );
        }
        Ok((start, out))
    }
}

impl rustyline::hint::Hinter for Helper {
    type Hint = String;
}

impl rustyline::highlight::Highlighter for Helper {}

impl rustyline::validate::Validator for Helper {
    fn validate(
        &self,
        ctx: &mut rustyline::validate::ValidationContext<'_>,
    ) -> rustyline::Result<rustyline::validate::ValidationResult> {
        use rustyline::validate::ValidationResult;
        let input = ctx.input();
        let open = {
            let mut g = self
                .validated
                .lock()
                .unwrap_or_else(std::sync::PoisonError::into_inner);
            let (seen, open) = &mut *g;
            // Only lines added after the last Enter are new; an edit above starts afresh.
            let grown = input.starts_with(seen.as_str())
                && (seen.is_empty() || input[seen.len()..].starts_with('\n'));
            if !grown {
                seen.clear();
                *open = Continuation::default();
            }
            open.push(&input[seen.len()..]);
            seen.clear();
            seen.push_str(input);
            open.open()
        };
        if open {
            return Ok(ValidationResult::Incomplete);
        }
        // The statement is handed over (or refused): the next input starts afresh.
        *self
            .validated
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner) = Default::default();
        Ok(match syntax::parse(input) {
            Err(e) if e.incomplete => ValidationResult::Incomplete,
            _ => ValidationResult::Valid(None),
        })
    }
}

impl rustyline::Helper for Helper {}

fn history_path() -> std::path::PathBuf {
    match std::env::var_os("FERROBASE_HISTORY") {
        Some(p) => p.into(),
        None => std::env::var_os("HOME")
            .map(std::path::PathBuf::from)
            .unwrap_or_default()
            .join(".ferrobase_history"),
    }
}

fn interactive(conn: Connection) -> Result<()> {
    let tables = conn.list_tables().unwrap_or_default();
    let mut editor: rustyline::Editor<Helper, rustyline::history::DefaultHistory> =
        rustyline::Editor::new()?;
    editor.set_helper(Some(Helper {
        tables,
        validated: Default::default(),
    }));
    let history = history_path();
    let _ = editor.load_history(&history);
    println!(
        "ferrobase shell ({}); type help for the commands, exit to leave.",
        conn.describe()
    );
    let mut shell = Shell::new(conn, Box::new(std::io::stdout()));
    // Ctrl-C at the prompt reaches rustyline as a key (the terminal is in raw mode then);
    // while a statement runs it is SIGINT, which sets the shell's interrupt flag instead of
    // ending the process, and the statement stops at its next batch.
    signal_hook::flag::register(signal_hook::consts::SIGINT, shell.interrupt_flag())
        .context("installing the Ctrl-C handler")?;
    let mut feeder = Feeder::default();
    let mut n = 1;
    loop {
        let prompt = format!("ferrobase(main):{n:03}:0> ");
        match editor.readline(&prompt) {
            Ok(line) => {
                let _ = editor.add_history_entry(line.as_str());
                let _ = editor.append_history(&history);
                let mut stdout = std::io::stdout();
                if feeder.feed(&mut shell, &line, &mut stdout).is_none() {
                    break;
                }
                if let Some(h) = editor.helper_mut() {
                    if let Ok(t) = shell.conn.list_tables() {
                        h.tables = t;
                    }
                }
                n += 1;
            }
            Err(rustyline::error::ReadlineError::Interrupted) => continue,
            Err(rustyline::error::ReadlineError::Eof) => break,
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
