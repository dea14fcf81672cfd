//! `EXPLAIN => true` on `get` and `scan` (ferrobase's scan explain, issue 43): the rows as
//! usual, then what the read cost as a table of the engine's [`ReadCost`] figures, embedded and
//! over `--connect` to a ferrobase server (its `ferrobaseAdmin` `get` and `scan_cost`).

use super::args::{boolean, Res};
use super::format;
use super::syntax::Value;
use ferrobase_engine::ReadCost;

/// The option's name in `get`'s and `scan`'s hash.
pub const OPTION: &str = "EXPLAIN";

/// Reads `EXPLAIN => true|false`.
pub fn read(v: &Value) -> Res<bool> {
    boolean(v, OPTION)
}

/// The cost table printed after the rows: a blank line, `COST  VALUE`, then each figure by
/// its name in the explain line, in its order.
pub fn lines(cost: &ReadCost) -> Vec<String> {
    let mut out = vec![String::new(), format::header("COST", "VALUE")];
    for (name, value) in cost.fields() {
        out.push(format::two_columns(name, &value.to_string()));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_table_lists_every_figure_in_the_explain_line_order() {
        let cost = ReadCost {
            files_skipped_by_bloom: 3,
            ..ReadCost::default()
        };
        let l = lines(&cost);
        assert_eq!(l[0], "");
        assert!(l[1].starts_with("COST "), "{}", l[1]);
        assert_eq!(l.len(), 2 + cost.fields().len());
        assert!(l
            .iter()
            .any(|x| x.split_whitespace().collect::<Vec<_>>() == ["files_skipped_by_bloom", "3"]));
    }
}
