//! `/heatmap/TABLE`: the table's key-range heat map drawn as Bigtable's Key Visualizer draws
//! it, as inline SVG: time on x (one column per bucket, oldest left), the key space on y (the
//! ranges' boundaries in key order, table start at the top), colour = operations in the range
//! (dark: none; red, then yellow, then white: the most on the map). Each cell's hover title
//! names its time and key range, decoded by the table's `ROWKEY_SCHEMA` when one is declared
//! (`crates/rowkey`), and its counts. `?metric=reads|writes|bytes` colours by one figure (default
//! `ops`: reads + writes); `?format=json` answers the figures as JSON. Bounded: cells are drawn
//! newest first until the page holds [`PAGE_BUDGET`] bytes.

use super::html::{self, escape, json_string};
use super::Ops;
use ferrobase_engine::heat_map::{HeatMapSnapshot, HeatRange};
use ferrobase_engine::Bytes;
use ferrobase_gateway::slow_log::printable;
use ferrobase_rowkey::Schema;
use std::fmt::Write;

/// Bytes of page past which no more cells are drawn (the page stays under 200 KB).
pub const PAGE_BUDGET: usize = 180 << 10;
/// The plot's size in pixels.
const WIDTH: f64 = 900.0;
const HEIGHT: f64 = 480.0;
/// Room on the left for key labels, at the bottom for times.
const LEFT: f64 = 260.0;
const BOTTOM: f64 = 30.0;
/// Key labels on the y axis, at most.
const Y_LABELS: usize = 16;

/// Which figure colours the map.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Metric {
    /// Reads and writes.
    Ops,
    /// Rows read.
    Reads,
    /// Rows written.
    Writes,
    /// Bytes read and written.
    Bytes,
}

impl Metric {
    fn parse(s: Option<&str>) -> Metric {
        match s {
            Some("reads") => Metric::Reads,
            Some("writes") => Metric::Writes,
            Some("bytes") => Metric::Bytes,
            _ => Metric::Ops,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Metric::Ops => "ops",
            Metric::Reads => "reads",
            Metric::Writes => "writes",
            Metric::Bytes => "bytes",
        }
    }

    fn of(self, r: &HeatRange) -> u64 {
        match self {
            Metric::Ops => r.reads + r.writes,
            Metric::Reads => r.reads,
            Metric::Writes => r.writes,
            Metric::Bytes => r.read_bytes + r.write_bytes,
        }
    }
}

/// The table's rowkey schema, when its `ROWKEY_SCHEMA` metadata declares one that parses.
fn schema_of(ops: &Ops, table: &str) -> Option<Schema> {
    let desc = ops.engine.admin().describe(table).ok()?;
    desc.attributes.get("ROWKEY_SCHEMA")?.parse().ok()
}

/// A key for people: `name=value ...` by the schema when it decodes, else the shell's escaped
/// bytes; `(start)` and `(end)` for the table's ends.
fn key_text(schema: Option<&Schema>, key: &[u8], end: bool) -> String {
    if key.is_empty() {
        return if end { "(end)" } else { "(start)" }.to_string();
    }
    let raw = printable(key);
    match schema.and_then(|s| s.format_key(key).ok()) {
        Some(decoded) => format!("{decoded} ({raw})"),
        None => raw,
    }
}

/// The page (`None`: no such table).
pub fn render_html(ops: &Ops, table: &str, query: &str) -> Option<String> {
    ops.engine.admin().describe(table).ok()?;
    let metric = Metric::parse(html::param(query, "metric").as_deref());
    let mut out = String::with_capacity(32 << 10);
    html::start(&mut out, &format!("Heat map of {table}"));
    let _ = writeln!(
        out,
        "<p>Time on x (one column per bucket, newest right), the key space on y (table start \
         at the top), colour = {} per key range: dark none, then red, yellow, white for the \
         most. Hover a cell for its keys and counts. Colour by: \
         <a href=\"?metric=ops\">ops</a> <a href=\"?metric=reads\">reads</a> \
         <a href=\"?metric=writes\">writes</a> <a href=\"?metric=bytes\">bytes</a>; \
         <a href=\"?format=json\">JSON</a>.</p>",
        metric.name()
    );
    let _ = write_svg(&mut out, ops, table, metric);
    html::end(&mut out);
    Some(out)
}

/// The map as an `<svg>` element (also drawn on the console).
pub fn write_svg(out: &mut String, ops: &Ops, table: &str, metric: Metric) -> std::fmt::Result {
    let Some(snap) = ops.engine.heat_map(table) else {
        return writeln!(
            out,
            "<p>No reads or writes recorded on {} yet.</p>",
            escape(table)
        );
    };
    let schema = schema_of(ops, table);
    draw(out, table, &snap, schema.as_ref(), metric, PAGE_BUDGET)
}

/// Draws `snap` into `out`, stopping once `out` holds `budget` bytes.
fn draw(
    out: &mut String,
    table: &str,
    snap: &HeatMapSnapshot,
    schema: Option<&Schema>,
    metric: Metric,
    budget: usize,
) -> std::fmt::Result {
    let (Some(first), Some(last)) = (snap.columns.first(), snap.columns.last()) else {
        return writeln!(out, "<p>No reads or writes recorded yet.</p>");
    };
    let step = snap.bucket_secs.max(1);
    let slots = ((last.start_secs - first.start_secs) / step + 1) as f64;
    // The y axis: every boundary of every bucket, in key order.
    let mut ys: Vec<&Bytes> = snap.columns.iter().flat_map(|c| &c.bounds).collect();
    ys.sort();
    ys.dedup();
    let rank = |k: &Bytes| -> usize {
        if k.is_empty() {
            return 0;
        }
        ys.partition_point(|b| *b < k)
    };
    let rows = ys.len().max(1) as f64;
    let max = snap
        .columns
        .iter()
        .flat_map(|c| c.ranges.iter().map(|r| metric.of(r)))
        .max()
        .unwrap_or(0)
        .max(1);
    let cell_w = WIDTH / slots;
    let row_h = HEIGHT / rows;
    writeln!(
        out,
        "<svg id=\"heatmap\" data-table=\"{}\" xmlns=\"http://www.w3.org/2000/svg\" \
         width=\"{w}\" height=\"{h}\" viewBox=\"0 0 {w} {h}\" \
         style=\"background:#fff;font:11px sans-serif\">\n\
         <rect x=\"{LEFT}\" y=\"0\" width=\"{WIDTH}\" height=\"{HEIGHT}\" fill=\"#10102a\"/>",
        escape(table),
        w = LEFT + WIDTH + 10.0,
        h = HEIGHT + BOTTOM,
    )?;
    // Key labels: up to Y_LABELS boundaries, evenly spaced.
    let every = ys.len().div_ceil(Y_LABELS).max(1);
    for (i, k) in ys.iter().enumerate().step_by(every) {
        let mut label = key_text(schema, k, false);
        if label.chars().count() > 40 {
            label = label.chars().take(39).collect::<String>() + "…";
        }
        writeln!(
            out,
            "<text x=\"{}\" y=\"{:.1}\" text-anchor=\"end\">{}</text>",
            LEFT - 4.0,
            i as f64 * row_h + 10.0,
            escape(&label)
        )?;
    }
    // Time labels: the first and last buckets, and a few between.
    let label_every = (slots as u64 / 6).max(1);
    for slot in (0..slots as u64).step_by(label_every as usize) {
        time_label(out, slot, cell_w, first.start_secs + slot * step, step < 60)?;
    }
    // Cells, newest bucket first so a cut page keeps the recent ones.
    let mut drawn = 0usize;
    let mut cut = false;
    'columns: for c in snap.columns.iter().rev() {
        let x = LEFT + ((c.start_secs - first.start_secs) / step) as f64 * cell_w;
        for r in &c.ranges {
            if out.len() > budget {
                cut = true;
                break 'columns;
            }
            let v = metric.of(r);
            if v == 0 {
                continue;
            }
            let (y0, y1) = (
                rank(&r.start),
                if r.end.is_empty() {
                    ys.len()
                } else {
                    rank(&r.end)
                },
            );
            let t = (v as f64 / max as f64).sqrt();
            writeln!(
                out,
                "<rect class=\"cell\" x=\"{x:.1}\" y=\"{:.1}\" width=\"{:.1}\" height=\"{:.1}\" \
                 fill=\"{}\" data-start=\"{}\" data-end=\"{}\" data-reads=\"{}\" \
                 data-writes=\"{}\"><title>{} UTC, {} s\nkeys [{} , {})\n{} reads, {} writes, \
                 {} read, {} written</title></rect>",
                y0 as f64 * row_h,
                cell_w.max(1.0),
                ((y1.max(y0 + 1) - y0) as f64 * row_h).max(1.0),
                colour(t),
                escape(&printable(&r.start)),
                escape(&printable(&r.end)),
                r.reads,
                r.writes,
                super::slowlog::utc(c.start_secs * 1000)
                    .get(..16)
                    .unwrap_or_default(),
                step,
                escape(&key_text(schema, &r.start, false)),
                escape(&key_text(schema, &r.end, true)),
                r.reads,
                r.writes,
                html::bytes(r.read_bytes),
                html::bytes(r.write_bytes),
            )?;
            drawn += 1;
        }
    }
    writeln!(out, "</svg>")?;
    writeln!(
        out,
        "<p>{drawn} cells over {} buckets of {step} s and {} key boundaries; the hottest \
         cell holds {max} {}.{}</p>",
        snap.columns.len(),
        ys.len(),
        metric.name(),
        if cut {
            " The older buckets are not drawn: the page stays under 200 KB."
        } else {
            ""
        }
    )
}

/// A time under the plot: `HH:MM` (UTC), `HH:MM:SS` for buckets under a minute.
fn time_label(
    out: &mut String,
    slot: u64,
    cell_w: f64,
    secs: u64,
    seconds: bool,
) -> std::fmt::Result {
    let utc = super::slowlog::utc(secs * 1000);
    let end = if seconds { 19 } else { 16 };
    writeln!(
        out,
        "<text x=\"{:.1}\" y=\"{}\">{}</text>",
        LEFT + slot as f64 * cell_w,
        HEIGHT + 14.0,
        utc.get(11..end).unwrap_or_default()
    )
}

/// Dark blue at 0, red, yellow, white at 1.
fn colour(t: f64) -> String {
    let stops = [
        (0.0, [40.0, 30.0, 90.0]),
        (0.4, [210.0, 40.0, 30.0]),
        (0.8, [255.0, 220.0, 40.0]),
        (1.0, [255.0, 255.0, 230.0]),
    ];
    let t = t.clamp(0.0, 1.0);
    let mut rgb = stops[3].1;
    for w in stops.windows(2) {
        let ((a, ca), (b, cb)) = (w[0], w[1]);
        if t <= b {
            let f = (t - a) / (b - a);
            rgb = [0, 1, 2].map(|i| ca[i] + (cb[i] - ca[i]) * f);
            break;
        }
    }
    format!(
        "#{:02x}{:02x}{:02x}",
        rgb[0] as u8, rgb[1] as u8, rgb[2] as u8
    )
}

/// The figures as JSON (`None`: no such table): `{"table", "bucket_secs", "columns": [{
/// "start_secs", "ranges": [{"start", "end", "start_decoded", "end_decoded", "reads",
/// "writes", "read_bytes", "write_bytes"}]}]}`; keys as the shell escapes them.
pub fn render_json(ops: &Ops, table: &str) -> Option<String> {
    ops.engine.admin().describe(table).ok()?;
    let schema = schema_of(ops, table);
    let snap = ops.engine.heat_map(table).unwrap_or(HeatMapSnapshot {
        bucket_secs: 0,
        columns: Vec::new(),
    });
    let mut out = format!(
        "{{\"table\":{},\"bucket_secs\":{},\"columns\":[",
        json_string(table),
        snap.bucket_secs
    );
    for (i, c) in snap.columns.iter().enumerate() {
        let _ = write!(
            out,
            "{}\n{{\"start_secs\":{},\"ranges\":[",
            if i == 0 { "" } else { "," },
            c.start_secs
        );
        for (j, r) in c.ranges.iter().enumerate() {
            let decoded = |k: &Bytes| match schema.as_ref().and_then(|s| s.format_key(k).ok()) {
                Some(d) if !k.is_empty() => json_string(&d),
                _ => "null".to_string(),
            };
            let _ = write!(
                out,
                "{}{{\"start\":{},\"end\":{},\"start_decoded\":{},\"end_decoded\":{},\
                 \"reads\":{},\"writes\":{},\"read_bytes\":{},\"write_bytes\":{}}}",
                if j == 0 { "" } else { "," },
                json_string(&printable(&r.start)),
                json_string(&printable(&r.end)),
                decoded(&r.start),
                decoded(&r.end),
                r.reads,
                r.writes,
                r.read_bytes,
                r.write_bytes
            );
        }
        out.push_str("]}");
    }
    out.push_str("\n]}\n");
    Some(out)
}

/// `Metric` for the console, which colours by operations.
pub fn ops_metric() -> Metric {
    Metric::Ops
}

#[cfg(test)]
mod tests {
    use super::*;
    use ferrobase_engine::heat_map::HeatColumn;

    #[test]
    fn a_hot_range_is_bright_and_named() {
        let range = |start: &'static [u8], end: &'static [u8], writes| HeatRange {
            start: Bytes::from_static(start),
            end: Bytes::from_static(end),
            reads: 0,
            writes,
            read_bytes: 0,
            write_bytes: writes * 10,
        };
        let snap = HeatMapSnapshot {
            bucket_secs: 60,
            columns: vec![HeatColumn {
                start_secs: 1_800_000_000 / 60 * 60,
                ranges: vec![range(b"", b"m", 1), range(b"m", b"", 100)],
                bounds: vec![Bytes::new(), Bytes::from_static(b"m")],
            }],
        };
        let mut out = String::new();
        draw(&mut out, "t", &snap, None, Metric::Ops, PAGE_BUDGET).unwrap();
        assert!(out.contains("keys [m , (end))"), "{out}");
        assert!(out.contains(&colour(1.0)));
        assert!(out.contains(&colour(0.1)));
        assert_eq!(out.matches("class=\"cell\"").count(), 2);
        // A tiny budget draws no cell, and says so.
        let mut cut = String::new();
        draw(&mut cut, "t", &snap, None, Metric::Ops, 10).unwrap();
        assert!(cut.contains("not drawn"));
    }
}
