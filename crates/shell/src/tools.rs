//! The tools commands of HBase's shell (its `tools` group: `flush.rb`, `compact.rb`,
//! `major_compact.rb`, `split.rb`).

use super::args::{arity, bytes, client, text, Res};
use super::format;
use super::interpreter::Shell;
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};

/// The `tools` group.
pub(super) const COMMANDS: &[Command] = &[
    Command {
        name: "flush",
        group: Group::Tools,
        help: "Flush a table's memstores to files.",
        examples: &["flush 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.flush_or_compact(st)),
    },
    Command {
        name: "compact",
        group: Group::Tools,
        help: "Minor-compact a table.",
        examples: &["compact 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.flush_or_compact(st)),
    },
    Command {
        name: "major_compact",
        group: Group::Tools,
        help: "Major-compact a table.",
        examples: &["major_compact 't1'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.flush_or_compact(st)),
    },
    Command {
        name: "split",
        group: Group::Tools,
        help: "Split a table's regions at their midpoints, or at a row.",
        examples: &["split 't1'", "split 't1', 'r5'"],
        writes: false,
        run: Run::Handler(|sh, st| sh.split(st)),
    },
];

impl Shell {
    /// `flush 't'[, 'f']`, `compact 't'[, 'f'[, type]]` and `major_compact` as compact.
    fn flush_or_compact(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 1, if st.command == "flush" { 2 } else { 3 })?;
        let t = text(&a[0], "table name")?;
        // `compact 't', nil, 'MOB'`: HBase's compaction type (NORMAL or MOB).
        match a.get(2).map(|v| text(v, "compaction type")).transpose()? {
            None => {}
            Some(k) if k == "NORMAL" => {}
            Some(k) if k == "MOB" => {
                return Err(
                    "compaction type MOB is not supported by ferrobase (it has no \
                            MOB files)"
                        .into(),
                )
            }
            Some(k) => {
                return Err(format!(
                    "No enum constant org.apache.hadoop.hbase.client.CompactType.{k}"
                )
                .into())
            }
        }
        // One family's flush or compaction runs as the whole table's: the same cells
        // result, with more work done.
        if let Some(f) = a.get(1).filter(|v| **v != Value::Nil) {
            let f = bytes(f, "column family")?;
            let families = self.conn.describe_table(&t).map_err(client)?;
            if !families.iter().any(|d| d.name == f) {
                return Err(format!(
                    "column family {} does not exist in table {t}",
                    format::binary(&f)
                )
                .into());
            }
        }
        match st.command.as_str() {
            "compact" => self.conn.compact(&t, false).map_err(client),
            "major_compact" => self.conn.compact(&t, true).map_err(client),
            _ => self.conn.flush(&t).map_err(client),
        }
    }

    /// `split 't'[, 'row']`.
    fn split(&mut self, st: &Statement) -> Res<()> {
        let a = &st.args;
        arity(st, 1, 2)?;
        let t = text(&a[0], "table name")?;
        // HBase's admin.rb calls `split_point.to_java_bytes`, which only a string has.
        let key = match a.get(1) {
            None | Some(Value::Nil) => None,
            Some(v @ (Value::Str(_) | Value::Const(_))) => Some(bytes(v, "split key")?),
            Some(other) => {
                return Err(format!("split point must be a string, got {}", other.kind()).into())
            }
        };
        self.conn.split(&t, key.as_deref()).map_err(client)
    }
}
