//! The console: server-rendered HTML, no script, nothing fetched from anywhere (it works
//! air-gapped). `/` is the summary (version, uptime, data directory, ports, request rate,
//! health and write suspensions), the tables, the slow operations and the log level;
//! `/table/NAME` is one table as `describe` shows it, its regions (boundaries, sizes, store
//! files, reads and writes from the heat map) and its heat map. Bounded: at most
//! [`MAX_TABLES`] tables and [`MAX_REGIONS`] regions listed, and every page stops adding rows at
//! [`PAGE_BUDGET`] bytes, so none passes 200 KB.

use super::html::{self, bytes, escape, key};
use super::{heatmap, jobs, log_level, slowlog, Ops};
use ferrobase_engine::{Health, Metrics, RegionInfo};
use std::fmt::Write;

/// Tables listed on `/`, at most.
pub const MAX_TABLES: usize = 200;
/// Region rows listed on a table's page, at most.
pub const MAX_REGIONS: usize = 500;
/// Bytes of page past which no more rows are written (the page then ends with a note).
pub const PAGE_BUDGET: usize = 150 << 10;

/// `/`.
pub fn render(ops: &Ops) -> String {
    let mut out = String::with_capacity(16 << 10);
    html::start(
        &mut out,
        &format!("ferrobase {}", env!("CARGO_PKG_VERSION")),
    );
    // Writing to a String cannot fail.
    let _ = write_summary(&mut out, ops);
    let _ = write_doors(&mut out, ops);
    let _ = write_tables(&mut out, ops);
    let _ = jobs::write_section(&mut out, ops);
    let _ = writeln!(out, "<h2 id=\"slow\">Slow operations</h2>");
    let _ = slowlog::write_table(&mut out, ops);
    let _ = writeln!(out, "<h2 id=\"log\">Log level</h2>");
    let _ = log_level::write_form(&mut out, ops);
    html::end(&mut out);
    out
}

fn write_summary(out: &mut String, ops: &Ops) -> std::fmt::Result {
    let version = env!("CARGO_PKG_VERSION");
    let uptime = ops.started.elapsed();
    let secs = uptime.as_secs();
    let health = match ops.engine.health() {
        Health::Healthy => "healthy".to_string(),
        Health::Degraded { reason, .. } => format!("degraded (writes suspended): {reason}"),
        Health::Poisoned { reason } => format!("poisoned: {reason}"),
    };
    let m = ops.engine.metrics();
    let calls: u64 = ops.calls_answered();
    writeln!(out, "<h2 id=\"server\">Server</h2>\n<table id=\"summary\">")?;
    row(out, "Version", version)?;
    row(
        out,
        "Uptime",
        &format!("{}h {:02}m {:02}s", secs / 3600, secs / 60 % 60, secs % 60),
    )?;
    row(out, "Data directory", &ops.data.display().to_string())?;
    for (what, addr) in &ops.ports {
        row(out, &format!("Port: {what}"), &addr.to_string())?;
    }
    row(
        out,
        "Requests",
        &format!(
            "{calls} calls answered by every door, {:.1} per second on average",
            calls as f64 / uptime.as_secs_f64().max(1e-3)
        ),
    )?;
    row(out, "Health", &health)?;
    row(
        out,
        "Write suspensions",
        &format!(
            "{} ({:.1} s suspended in all), {} stalls at the memstore limit",
            Metrics::get(&m.write_suspensions),
            Metrics::get(&m.write_suspended_ms) as f64 / 1000.0,
            Metrics::get(&m.write_stalls)
        ),
    )?;
    let causes: Vec<String> = ferrobase_engine::StallCause::ALL
        .iter()
        .zip(&m.write_suspensions_by_cause)
        .map(|(c, n)| format!("{} {}", c.label(), Metrics::get(n)))
        .collect();
    row(out, "Write suspensions by cause", &causes.join(", "))?;
    row(out, "Memstores", &bytes(ops.engine.memstore_bytes() as u64))?;
    row(
        out,
        "Flushes, compactions, splits",
        &format!(
            "{}, {}, {}",
            Metrics::get(&m.flushes),
            Metrics::get(&m.compactions),
            Metrics::get(&m.splits)
        ),
    )?;
    row(
        out,
        "Slow-operation threshold",
        &format!("{} ms", ops.slow_log.threshold().as_millis()),
    )?;
    row(out, "Log level", &ops.log.current())?;
    writeln!(out, "</table>")
}

/// Every door's failures by class (the classes that occurred), open scanners and leases.
fn write_doors(out: &mut String, ops: &Ops) -> std::fmt::Result {
    writeln!(
        out,
        "<h2 id=\"doors\">Doors</h2>\n<table id=\"door-list\"><tr><th>Door</th>\
         <th>Errors</th><th>By class</th><th>Open scanners</th><th>Scanner leases expired</th></tr>"
    )?;
    for d in ops.door_facts() {
        let classes: Vec<String> = d
            .errors
            .iter()
            .filter(|(_, n)| *n > 0)
            .map(|(c, n)| format!("{} {n}", c.label()))
            .collect();
        writeln!(
            out,
            "<tr class=\"door\" data-door=\"{door}\"><td>{door}</td><td class=n>{}</td><td>{}</td>\
             <td class=n>{}</td><td class=n>{}</td></tr>",
            d.error_total(),
            escape(&classes.join(", ")),
            d.open_scanners,
            d.leases_expired,
            door = d.door,
        )?;
    }
    writeln!(out, "</table>")
}

fn write_tables(out: &mut String, ops: &Ops) -> std::fmt::Result {
    let admin = ops.engine.admin();
    let mut tables = admin.list_tables().unwrap_or_default();
    tables.sort();
    writeln!(
        out,
        "<h2 id=\"tables\">Tables ({})</h2>\n<table id=\"table-list\"><tr><th>Table</th>\
         <th>Families</th><th>Regions</th><th>Store files</th><th>File bytes</th>\
         <th>Memstore bytes</th><th>Heat map</th></tr>",
        tables.len()
    )?;
    for t in tables.iter().take(MAX_TABLES) {
        if out.len() > PAGE_BUDGET {
            writeln!(
                out,
                "</table><p>The list is cut here (the page stays under 200 KB).</p>"
            )?;
            return Ok(());
        }
        let name = t.to_string();
        let Ok(regions) = admin.regions(&name) else {
            continue;
        };
        let families = admin
            .describe(&name)
            .map(|d| {
                d.families
                    .iter()
                    .map(|f| String::from_utf8_lossy(&f.name).into_owned())
                    .collect::<Vec<_>>()
                    .join(", ")
            })
            .unwrap_or_default();
        let files: usize = regions.iter().map(|r| r.file_count).sum();
        let file_bytes: u64 = regions.iter().map(|r| r.file_bytes).sum();
        let mem: u64 = regions.iter().map(|r| r.memstore_bytes as u64).sum();
        writeln!(
            out,
            "<tr><td><a class=\"table\" href=\"/table/{u}\">{n}</a></td><td>{}</td>\
             <td class=n>{}</td><td class=n>{files}</td><td class=n>{}</td><td class=n>{}</td>\
             <td><a href=\"/heatmap/{u}\">heat map</a></td></tr>",
            escape(&families),
            regions.len(),
            bytes(file_bytes),
            bytes(mem),
            u = escape(&name),
            n = escape(&name),
        )?;
    }
    writeln!(out, "</table>")?;
    if tables.len() > MAX_TABLES {
        writeln!(
            out,
            "<p>{} more tables not listed (the first {MAX_TABLES} are).</p>",
            tables.len() - MAX_TABLES
        )?;
    }
    Ok(())
}

/// `/table/NAME` (`None`: no such table).
pub fn render_table(ops: &Ops, name: &str) -> Option<String> {
    let admin = ops.engine.admin();
    let desc = admin.describe(name).ok()?;
    let regions = admin.regions(name).ok()?;
    let mut out = String::with_capacity(32 << 10);
    html::start(&mut out, &format!("Table {name}"));
    let _ = write_table_page(&mut out, ops, name, &desc, &regions);
    html::end(&mut out);
    Some(out)
}

fn write_table_page(
    out: &mut String,
    ops: &Ops,
    name: &str,
    desc: &ferrobase_engine::TableDescriptor,
    regions: &[RegionInfo],
) -> std::fmt::Result {
    let enabled = ops.engine.admin().is_enabled(name).unwrap_or(true);
    writeln!(
        out,
        "<h2 id=\"describe\">Description</h2>\n<p>Table {} is {}.</p>\n<pre id=\"families\">",
        escape(name),
        if enabled { "ENABLED" } else { "DISABLED" }
    )?;
    let attrs: Vec<String> = desc
        .attributes
        .iter()
        .map(|(k, v)| format!("'{k}' => '{v}'"))
        .collect();
    if !attrs.is_empty() {
        writeln!(
            out,
            "{}, {{TABLE_ATTRIBUTES => {{METADATA => {{{}}}}}}}",
            escape(name),
            escape(&attrs.join(", "))
        )?;
    }
    writeln!(out, "COLUMN FAMILIES DESCRIPTION")?;
    for f in &desc.families {
        writeln!(out, "{}", escape(&ferrobase_shell::describe_family(f)))?;
    }
    writeln!(out, "</pre>")?;

    // Reads and writes per region, from the heat map (its ranges start at region boundaries).
    let heat = ops.engine.heat_map(name);
    let counts = |r: &RegionInfo| -> (u64, u64) {
        let Some(h) = &heat else { return (0, 0) };
        h.columns
            .iter()
            .flat_map(|c| &c.ranges)
            .filter(|x| {
                x.start.as_ref() >= r.start.as_slice()
                    && (r.end.is_empty() || x.start.as_ref() < r.end.as_slice())
            })
            .fold((0, 0), |(a, b), x| (a + x.reads, b + x.writes))
    };
    writeln!(
        out,
        "<h2 id=\"regions\">Regions ({})</h2>\n<table id=\"region-list\"><tr><th>Region</th>\
         <th>Start key</th><th>End key</th><th>Store files</th><th>File bytes</th>\
         <th>Memstore bytes</th><th>Reads</th><th>Writes</th></tr>",
        regions.len()
    )?;
    for r in regions.iter().take(MAX_REGIONS) {
        if out.len() > PAGE_BUDGET {
            writeln!(
                out,
                "</table><p>The list is cut here (the page stays under 200 KB).</p>"
            )?;
            return Ok(());
        }
        let (reads, writes) = counts(r);
        writeln!(
            out,
            "<tr class=\"region\"><td class=n>{}</td><td><code>{}</code></td>\
             <td><code>{}</code></td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td>\
             <td class=n>{reads}</td><td class=n>{writes}</td></tr>",
            r.id,
            escape(&key(&r.start)),
            escape(&key(&r.end)),
            r.file_count,
            bytes(r.file_bytes),
            bytes(r.memstore_bytes as u64),
        )?;
    }
    writeln!(out, "</table>")?;
    if regions.len() > MAX_REGIONS {
        writeln!(
            out,
            "<p>{} more regions not listed.</p>",
            regions.len() - MAX_REGIONS
        )?;
    }
    writeln!(
        out,
        "<p>Reads and writes: rows, over the heat map's window (the last hours).</p>\n\
         <h2 id=\"heat\">Heat map</h2>\n<p><a href=\"/heatmap/{u}\">Full page</a>, \
         <a href=\"/heatmap/{u}?format=json\">JSON</a>.</p>",
        u = escape(name)
    )?;
    heatmap::write_svg(out, ops, name, heatmap::ops_metric())
}

fn row(out: &mut String, name: &str, value: &str) -> std::fmt::Result {
    writeln!(
        out,
        "<tr><th>{}</th><td>{}</td></tr>",
        escape(name),
        escape(value)
    )
}
