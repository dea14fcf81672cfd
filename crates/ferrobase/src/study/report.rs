//! A study's report: markdown printed to stdout and written to `OUT/NAME.md`.

use anyhow::{Context, Result};
use std::fmt::Write as _;
use std::path::Path;

/// A markdown table: a header, an alignment per column, rows of cells.
#[derive(Debug, Clone)]
pub struct Table {
    header: Vec<String>,
    right: Vec<bool>,
    rows: Vec<Vec<String>>,
}

impl Table {
    /// A table whose columns are named `header`; a name starting with `>` is right-aligned
    /// (numbers), the `>` is not shown.
    pub fn new(header: &[&str]) -> Table {
        Table {
            header: header
                .iter()
                .map(|h| h.trim_start_matches('>').to_string())
                .collect(),
            right: header.iter().map(|h| h.starts_with('>')).collect(),
            rows: Vec::new(),
        }
    }

    /// Adds a row (as many cells as columns).
    pub fn row(&mut self, cells: Vec<String>) {
        debug_assert_eq!(cells.len(), self.header.len());
        self.rows.push(cells);
    }

    /// The table as markdown, columns padded to their widest cell.
    pub fn markdown(&self) -> String {
        let widths: Vec<usize> = (0..self.header.len())
            .map(|i| {
                self.rows
                    .iter()
                    .map(|r| r[i].chars().count())
                    .chain([self.header[i].chars().count(), 3])
                    .max()
                    .unwrap_or(3)
            })
            .collect();
        let line = |cells: &[String]| {
            let mut s = String::from("|");
            for (i, c) in cells.iter().enumerate() {
                let pad = widths[i] - c.chars().count();
                if self.right[i] {
                    let _ = write!(s, " {}{} |", " ".repeat(pad), c);
                } else {
                    let _ = write!(s, " {}{} |", c, " ".repeat(pad));
                }
            }
            s.push('\n');
            s
        };
        let mut out = line(&self.header);
        out.push('|');
        for (i, w) in widths.iter().enumerate() {
            if self.right[i] {
                let _ = write!(out, " {}: |", "-".repeat(w - 1));
            } else {
                let _ = write!(out, " {} |", "-".repeat(*w));
            }
        }
        out.push('\n');
        for r in &self.rows {
            out.push_str(&line(r));
        }
        out
    }
}

/// Markdown text collected while a study runs; each part is printed as it is added.
#[derive(Debug, Default)]
pub struct Report {
    text: String,
}

impl Report {
    /// Adds a paragraph (or a heading) and prints it.
    pub fn text(&mut self, s: &str) {
        println!("{s}\n");
        self.text.push_str(s);
        self.text.push_str("\n\n");
    }

    /// Adds a table and prints it.
    pub fn table(&mut self, t: &Table) {
        self.text(t.markdown().trim_end());
    }

    /// Writes the report to `path`.
    pub fn write(&self, path: &Path) -> Result<()> {
        std::fs::write(path, &self.text).with_context(|| format!("writing {}", path.display()))
    }
}

/// A number with thousands separators (`1 234 567`), as the docs write them.
pub fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, ch) in s.chars().enumerate() {
        if i > 0 && (s.len() - i).is_multiple_of(3) {
            out.push(' ');
        }
        out.push(ch);
    }
    out
}

/// A float with `digits` significant figures at most, no exponent.
pub fn sig(x: f64, digits: usize) -> String {
    if x == 0.0 || !x.is_finite() {
        return format!("{x}");
    }
    let magnitude = x.abs().log10().floor() as i64;
    let decimals = (digits as i64 - 1 - magnitude).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if decimals == 0 {
        thousands(s.parse::<f64>().unwrap_or(x) as u64)
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_read_as_the_docs_write_them() {
        assert_eq!(thousands(1_234_567), "1 234 567");
        assert_eq!(thousands(100), "100");
        assert_eq!(sig(12.345, 3), "12.3");
        assert_eq!(sig(0.012345, 2), "0.012");
        assert_eq!(sig(123456.0, 3), "123 456");
    }

    #[test]
    fn table_pads_and_aligns() {
        let mut t = Table::new(&["name", ">n"]);
        t.row(vec!["a".into(), "10".into()]);
        assert_eq!(
            t.markdown(),
            "| name |   n |\n| ---- | --: |\n| a    |  10 |\n"
        );
    }
}
