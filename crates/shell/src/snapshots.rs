//! The snapshot commands of HBase's shell (its `snapshots` group: `snapshot.rb`,
//! `list_snapshots.rb`, `list_table_snapshots.rb`, `clone_snapshot.rb`, `restore_snapshot.rb`,
//! `delete_snapshot.rb`), on the engine's snapshots (`docs/format/snapshot.md`). Embedded and
//! over `--connect` to a ferrobase server; HBase's own gateway has no snapshot calls.

use super::args::{arity, boolean, client, hash, text, unsupported_option, Res};
use super::format;
use super::interpreter::{matching, Shell};
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};

/// The `snapshots` group.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "snapshot",
        group: Group::Snapshots,
        help: "Take a snapshot of a table: its schema, regions and data, flushed first unless SKIP_FLUSH => true. Cheap (links to the table's immutable files).",
        examples: &["snapshot 't1', 's1'", "snapshot 't1', 's2', {SKIP_FLUSH => true}"],
        writes: false,
        run: Run::Handler(|sh, st| sh.snapshot(st)),
    },
    Command {
        name: "list_snapshots",
        group: Group::Snapshots,
        help: "List the snapshots, optionally those whose names match a regular expression.",
        examples: &["list_snapshots", "list_snapshots 's.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.list_snapshots(st, false)),
    },
    Command {
        name: "list_table_snapshots",
        group: Group::Snapshots,
        help: "List the snapshots of the tables whose names match a regular expression, optionally only the snapshots whose names match a second one.",
        examples: &["list_table_snapshots 't1'", "list_table_snapshots 't.*', 's.*'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.list_snapshots(st, true)),
    },
    Command {
        name: "clone_snapshot",
        group: Group::Snapshots,
        help: "Create a new table (enabled) with the schema, regions and data of a snapshot.",
        examples: &["clone_snapshot 's1', 't1_copy'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.clone_snapshot(st)),
    },
    Command {
        name: "restore_snapshot",
        group: Group::Snapshots,
        help: "Put a snapshot's schema, regions and data back into its table, which must be disabled (it stays disabled).",
        examples: &["restore_snapshot 's1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.restore_snapshot(st)),
    },
    Command {
        name: "delete_snapshot",
        group: Group::Snapshots,
        help: "Delete a snapshot; tables cloned or restored from it keep their data.",
        examples: &["delete_snapshot 's2'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.delete_snapshot(st)),
    },
];

/// The options hash of a snapshot command (its last argument, when a hash): each key checked
/// against `known`, the rest refused by name.
fn options(st: &Statement, at: usize, known: &[&str]) -> Res<Vec<(String, Value)>> {
    let Some(v) = st.args.get(at) else {
        return Ok(Vec::new());
    };
    let pairs = hash(v, "options")?;
    if let Some((k, _)) = pairs.iter().find(|(k, _)| !known.contains(&k.as_str())) {
        return Err(unsupported_option(&st.command, k));
    }
    Ok(pairs)
}

/// Milliseconds since the epoch as Ruby's `Time#to_s` prints them in UTC.
fn ruby_time(ms: i64) -> String {
    let utc = ferrobase_engine::clock::UtcTime::from_millis(ms.max(0)).text();
    format!("{} +0000", utc.get(..19).unwrap_or(&utc))
}

impl Shell {
    /// `snapshot 'table', 'name'[, {SKIP_FLUSH => true}]`.
    fn snapshot(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, 3)?;
        let table = text(&st.args[0], "table name")?;
        let name = text(&st.args[1], "snapshot name")?;
        let mut skip_flush = false;
        for (k, v) in options(st, 2, &["SKIP_FLUSH"])? {
            if k == "SKIP_FLUSH" {
                skip_flush = boolean(&v, "SKIP_FLUSH")?;
            }
        }
        self.conn
            .snapshot(&table, &name, skip_flush)
            .map_err(client)
    }

    /// `list_snapshots ['regex']` and `list_table_snapshots 'table regex'[, 'snapshot
    /// regex']`: HBase's two columns, then the names.
    fn list_snapshots(&mut self, st: &Statement, by_table: bool) -> Res<()> {
        let (table_pattern, name_pattern) = if by_table {
            arity(st, 1, 2)?;
            (st.args.first(), st.args.get(1))
        } else {
            arity(st, 0, 1)?;
            (None, st.args.first())
        };
        let all = self.conn.list_snapshots().map_err(client)?;
        let names = matching(name_pattern, all.iter().map(|s| s.name.clone()).collect())?;
        let tables = matching(
            table_pattern,
            all.iter().map(|s| s.table.to_string()).collect(),
        )?;
        let shown: Vec<_> = all
            .iter()
            .filter(|s| names.contains(&s.name) && tables.contains(&s.table.to_string()))
            .collect();
        self.line(&format::header("SNAPSHOT", "TABLE + CREATION TIME"));
        for s in &shown {
            self.line(&format::two_columns(
                &s.name,
                &format!("{} ({})", s.table, ruby_time(s.created_ms)),
            ));
        }
        self.line(&format!("{} row(s)", shown.len()));
        let quoted: Vec<String> = shown.iter().map(|s| format!("\"{}\"", s.name)).collect();
        self.echo = Some(format!("[{}]", quoted.join(", ")));
        Ok(())
    }

    /// `clone_snapshot 'name', 'table'`.
    fn clone_snapshot(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, 3)?;
        let name = text(&st.args[0], "snapshot name")?;
        let table = text(&st.args[1], "table name")?;
        options(st, 2, &[])?;
        self.conn.clone_snapshot(&name, &table).map_err(client)
    }

    /// `restore_snapshot 'name'`.
    fn restore_snapshot(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 2)?;
        let name = text(&st.args[0], "snapshot name")?;
        options(st, 1, &[])?;
        self.conn.restore_snapshot(&name).map_err(client)
    }

    /// `delete_snapshot 'name'`.
    fn delete_snapshot(&mut self, st: &Statement) -> Res<()> {
        arity(st, 1, 1)?;
        let name = text(&st.args[0], "snapshot name")?;
        self.conn.delete_snapshot(&name).map_err(client)
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn creation_times_print_as_ruby_prints_them() {
        assert_eq!(
            super::ruby_time(1_795_960_000_123),
            "2026-11-29 13:46:40 +0000"
        );
    }
}
