//! `/`: the start of the console, one plain HTML page rendered on the server (no script, no
//! fetch from anywhere: it works air-gapped): version, uptime, data directory, ports, health,
//! and the tables with their regions and sizes. Bounded: at most [`MAX_TABLES`] tables and
//! [`MAX_REGIONS`] regions are listed, so the page stays well under 200 KB.

use super::Ops;
use ferrobase_engine::Health;
use std::fmt::Write;

/// Tables listed on the page, at most.
pub const MAX_TABLES: usize = 200;
/// Region rows listed on the page, at most, over all tables.
pub const MAX_REGIONS: usize = 500;
/// Bytes of page past which no more table or region rows are written (the page then ends
/// with a note): the page stays under 200 KB whatever the names and keys.
pub const PAGE_BUDGET: usize = 180 << 10;
/// Bytes of a row key shown, at most (escaped, as the shell prints them).
const MAX_KEY_CHARS: usize = 40;

/// The page.
pub fn render(ops: &Ops) -> String {
    let mut out = String::with_capacity(16 << 10);
    // Writing to a String cannot fail.
    let _ = write_page(&mut out, ops);
    out
}

fn write_page(out: &mut String, ops: &Ops) -> std::fmt::Result {
    let version = env!("CARGO_PKG_VERSION");
    let uptime = ops.started.elapsed().as_secs();
    writeln!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>ferrobase</title>\n\
         <style>body{{font-family:sans-serif;margin:1.5em}}table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left}}\
         td.n{{text-align:right}}</style></head><body>\n<h1>ferrobase {version}</h1>"
    )?;
    let health = match ops.engine.health() {
        Health::Healthy => "healthy".to_string(),
        Health::Degraded { reason, .. } => format!("degraded (writes suspended): {reason}"),
        Health::Poisoned { reason } => format!("poisoned: {reason}"),
    };
    writeln!(out, "<h2>Server</h2>\n<table>")?;
    row(out, "Version", version)?;
    row(
        out,
        "Uptime",
        &format!(
            "{}h {:02}m {:02}s",
            uptime / 3600,
            uptime / 60 % 60,
            uptime % 60
        ),
    )?;
    row(out, "Data directory", &ops.data.display().to_string())?;
    row(out, "Health", &health)?;
    for (what, addr) in &ops.ports {
        row(out, &format!("Port: {what}"), &addr.to_string())?;
    }
    row(out, "Memstores", &bytes(ops.engine.memstore_bytes() as u64))?;
    writeln!(
        out,
        "</table>\n<p>Metrics for Prometheus: <a href=\"/metrics\">/metrics</a></p>"
    )?;

    let admin = ops.engine.admin();
    let mut tables = admin.list_tables().unwrap_or_default();
    tables.sort();
    writeln!(
        out,
        "<h2>Tables ({})</h2>\n<table><tr><th>Table</th><th>Regions</th><th>Store files</th>\
         <th>File bytes</th><th>Memstore bytes</th></tr>",
        tables.len()
    )?;
    let mut listed = Vec::new();
    for t in tables.iter().take(MAX_TABLES) {
        if out.len() > PAGE_BUDGET {
            break;
        }
        let name = t.to_string();
        let Ok(regions) = admin.regions(&name) else {
            continue;
        };
        let files: usize = regions.iter().map(|r| r.file_count).sum();
        let file_bytes: u64 = regions.iter().map(|r| r.file_bytes).sum();
        let mem: u64 = regions.iter().map(|r| r.memstore_bytes as u64).sum();
        writeln!(
            out,
            "<tr><td><a href=\"#t-{id}\">{n}</a></td><td class=n>{}</td><td class=n>{files}</td>\
             <td class=n>{}</td><td class=n>{}</td></tr>",
            regions.len(),
            bytes(file_bytes),
            bytes(mem),
            id = escape(&name),
            n = escape(&name),
        )?;
        listed.push((name, regions));
    }
    writeln!(out, "</table>")?;
    if tables.len() > MAX_TABLES {
        writeln!(
            out,
            "<p>{} more tables not listed (the first {MAX_TABLES} are).</p>",
            tables.len() - MAX_TABLES
        )?;
    }

    writeln!(out, "<h2>Regions</h2>")?;
    let mut budget = MAX_REGIONS;
    for (name, regions) in &listed {
        if out.len() > PAGE_BUDGET {
            writeln!(out, "<p>The page is cut here (it stays under 200 KB).</p>")?;
            break;
        }
        if budget == 0 {
            writeln!(
                out,
                "<p>More regions not listed (the first {MAX_REGIONS} are).</p>"
            )?;
            break;
        }
        writeln!(
            out,
            "<h3 id=\"t-{n}\">{n}</h3>\n<table><tr><th>Region</th><th>Start key</th>\
             <th>End key</th><th>Store files</th><th>File bytes</th><th>Memstore bytes</th></tr>",
            n = escape(name)
        )?;
        for r in regions.iter().take(budget) {
            if out.len() > PAGE_BUDGET {
                break;
            }
            writeln!(
                out,
                "<tr><td class=n>{}</td><td><code>{}</code></td><td><code>{}</code></td>\
                 <td class=n>{}</td><td class=n>{}</td><td class=n>{}</td></tr>",
                r.id,
                escape(&key(&r.start)),
                escape(&key(&r.end)),
                r.file_count,
                bytes(r.file_bytes),
                bytes(r.memstore_bytes as u64),
            )?;
        }
        budget = budget.saturating_sub(regions.len());
        writeln!(out, "</table>")?;
    }
    writeln!(out, "</body></html>")
}

fn row(out: &mut String, name: &str, value: &str) -> std::fmt::Result {
    writeln!(
        out,
        "<tr><th>{}</th><td>{}</td></tr>",
        escape(name),
        escape(value)
    )
}

/// A row key as the shell prints it (printable ASCII as is, other bytes `\xNN`), cut to
/// [`MAX_KEY_CHARS`] characters.
fn key(k: &[u8]) -> String {
    let mut s = String::new();
    for &b in k {
        if s.len() >= MAX_KEY_CHARS {
            s.push('…');
            break;
        }
        if b.is_ascii_graphic() || b == b' ' {
            s.push(b as char);
        } else {
            let _ = write!(s, "\\x{b:02X}");
        }
    }
    s
}

fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// HTML-escapes text for an element or an attribute in double quotes.
fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            '\'' => out.push_str("&#39;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_and_names_are_escaped() {
        assert_eq!(key(b"a\x00<b>"), "a\\x00<b>");
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
        assert_eq!(key(&[b'x'; 100]).chars().count(), MAX_KEY_CHARS + 1);
    }
}
