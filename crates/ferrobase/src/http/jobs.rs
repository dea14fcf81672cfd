//! `/jobs`: the flushes and compactions running now and the last ones that ended
//! (`Engine::background_jobs`, a ring the engine keeps), as HBase's region server UI lists its
//! compactions and flushes: table, region, family, files and bytes in and out, duration, why it
//! ran and how it ended. A timeline in inline SVG (one bar per job over the time the list
//! spans), a table, and `?format=json`. The console's `/` shows the running jobs and the latest
//! few ([`write_section`]).

use super::html::{self, bytes, escape, json_string};
use super::Ops;
use ferrobase_engine::{JobKind, JobRecord, JobState};
use std::fmt::Write;

/// Ended jobs the console's `/` lists (the page lists every one the engine keeps).
pub const CONSOLE_RECENT: usize = 10;

/// `/jobs`.
pub fn render_html(ops: &Ops) -> String {
    let mut out = String::with_capacity(32 << 10);
    html::start(&mut out, "Flushes and compactions");
    let jobs = ops.engine.background_jobs();
    // Writing to a String cannot fail.
    let _ = write_timeline(&mut out, &jobs.running, &jobs.recent);
    let _ = write_table(&mut out, "running", &jobs.running);
    let _ = write_table(&mut out, "recent", &jobs.recent);
    html::end(&mut out);
    out
}

/// `/jobs?format=json`: `{"running": [...], "recent": [...]}`, newest first in `recent`.
pub fn render_json(ops: &Ops) -> String {
    let jobs = ops.engine.background_jobs();
    let list = |l: &[JobRecord]| l.iter().map(json).collect::<Vec<_>>().join(",");
    format!(
        "{{\"running\":[{}],\"recent\":[{}]}}\n",
        list(&jobs.running),
        list(&jobs.recent)
    )
}

fn json(j: &JobRecord) -> String {
    let families: Vec<String> = j.families.iter().map(|f| json_string(f)).collect();
    format!(
        "{{\"id\":{},\"kind\":\"{}\",\"reason\":\"{}\",\"state\":\"{}\",\"table\":{},\
         \"region\":{},\"families\":[{}],\"started_ms\":{},\"duration_ms\":{:.3},\
         \"files_in\":{},\"bytes_in\":{},\"files_out\":{},\"bytes_out\":{}}}",
        j.id,
        j.kind.label(),
        j.reason.label(),
        j.state.label(),
        json_string(&j.table),
        j.region,
        families.join(","),
        j.started_ms,
        j.duration.as_secs_f64() * 1000.0,
        j.files_in,
        j.bytes_in,
        j.files_out,
        j.bytes_out
    )
}

/// The console's section: running jobs and the latest [`CONSOLE_RECENT`] ended.
pub fn write_section(out: &mut String, ops: &Ops) -> std::fmt::Result {
    let jobs = ops.engine.background_jobs();
    writeln!(
        out,
        "<h2 id=\"jobs\">Flushes and compactions</h2>\n<p>{} running; the last {} of {} kept \
         shown (<a href=\"/jobs\">all, with a timeline</a>, \
         <a href=\"/jobs?format=json\">JSON</a>).</p>",
        jobs.running.len(),
        jobs.recent.len().min(CONSOLE_RECENT),
        jobs.recent.len()
    )?;
    let mut listed = jobs.running.clone();
    listed.extend(jobs.recent.iter().take(CONSOLE_RECENT).cloned());
    write_table(out, "console", &listed)
}

fn write_table(out: &mut String, id: &str, jobs: &[JobRecord]) -> std::fmt::Result {
    if id != "console" {
        let title = if id == "running" {
            "Running"
        } else {
            "Ended, newest first"
        };
        writeln!(out, "<h2>{title} ({})</h2>", jobs.len())?;
    }
    writeln!(
        out,
        "<table id=\"jobs-{id}\"><tr><th>Started</th><th>Job</th><th>Table</th><th>Region</th>\
         <th>Families</th><th>Files in</th><th>Bytes in</th><th>Files out</th><th>Bytes out</th>\
         <th>Duration</th><th>Reason</th><th>State</th></tr>"
    )?;
    for j in jobs {
        writeln!(
            out,
            "<tr class=\"job\" data-kind=\"{kind}\" data-state=\"{state}\"><td>{}</td>\
             <td>{kind}</td><td><a href=\"/table/{t}\">{t}</a></td><td class=n>{}</td>\
             <td>{}</td><td class=n>{}</td><td class=n>{}</td><td class=n>{}</td>\
             <td class=n>{}</td><td class=n>{}</td><td>{}</td><td>{state}</td></tr>",
            clock(j.started_ms),
            j.region,
            escape(&j.families.join(", ")),
            j.files_in,
            bytes(j.bytes_in),
            j.files_out,
            bytes(j.bytes_out),
            duration(j),
            j.reason.label(),
            kind = j.kind.label(),
            state = j.state.label(),
            t = escape(&j.table),
        )?;
    }
    writeln!(out, "</table>")
}

/// One bar per job over the span the list covers: x is time, rows are jobs (newest at the
/// top), colour the kind, a hatched outline for a job still running.
fn write_timeline(
    out: &mut String,
    running: &[JobRecord],
    recent: &[JobRecord],
) -> std::fmt::Result {
    let jobs: Vec<&JobRecord> = running.iter().chain(recent).collect();
    if jobs.is_empty() {
        return writeln!(out, "<p>No flush or compaction has run yet.</p>");
    }
    let end_ms = |j: &JobRecord| j.started_ms as f64 + j.duration.as_secs_f64() * 1000.0;
    let from = jobs.iter().map(|j| j.started_ms).min().unwrap_or(0) as f64;
    let to = jobs.iter().map(|j| end_ms(j)).fold(from + 1.0, f64::max);
    writeln!(
        out,
        "<p>Each bar is a job over the time the list spans: blue a flush, amber a minor \
         compaction, red a major one; a dashed outline is still running. Hover for figures.</p>"
    )?;
    let (left, width, row_h) = (150.0, 700.0, 14.0);
    let height = 30.0 + row_h * jobs.len() as f64;
    writeln!(
        out,
        "<svg id=\"jobs-timeline\" width=\"{w}\" height=\"{height}\" viewBox=\"0 0 {w} {height}\" \
         xmlns=\"http://www.w3.org/2000/svg\" font-size=\"11\" font-family=\"sans-serif\">",
        w = left + width + 20.0
    )?;
    writeln!(
        out,
        "<text x=\"{left}\" y=\"12\">{}</text><text x=\"{}\" y=\"12\" text-anchor=\"end\">{} \
         ({:.1} s)</text>",
        clock(from as u64),
        left + width,
        clock(to as u64),
        (to - from) / 1000.0
    )?;
    for (i, j) in jobs.iter().enumerate() {
        let y = 20.0 + row_h * i as f64;
        let x = left + (j.started_ms as f64 - from) / (to - from) * width;
        let w = ((end_ms(j) - j.started_ms as f64) / (to - from) * width).max(2.0);
        let colour = match j.kind {
            JobKind::Flush => "#4a90d9",
            JobKind::MinorCompaction => "#e0a030",
            JobKind::MajorCompaction => "#c0392b",
        };
        let stroke = if j.state == JobState::Running {
            " stroke=\"#000\" stroke-dasharray=\"3,2\""
        } else {
            ""
        };
        writeln!(
            out,
            "<text x=\"{}\" y=\"{}\" text-anchor=\"end\">{} {}</text>\
             <rect class=\"job-bar\" x=\"{x:.1}\" y=\"{y:.1}\" width=\"{w:.1}\" height=\"{}\" \
             fill=\"{colour}\"{stroke}><title>{} of {} region {} ({}): {} in, {} out, {}, {}, \
             {}</title></rect>",
            left - 6.0,
            y + row_h - 4.0,
            j.kind.label(),
            j.id,
            row_h - 3.0,
            j.kind.label(),
            escape(&j.table),
            j.region,
            escape(&j.families.join(", ")),
            bytes(j.bytes_in),
            bytes(j.bytes_out),
            duration(j),
            j.reason.label(),
            j.state.label()
        )?;
    }
    writeln!(out, "</svg>")
}

fn duration(j: &JobRecord) -> String {
    let ms = j.duration.as_secs_f64() * 1000.0;
    if ms < 1000.0 {
        format!("{ms:.1} ms")
    } else {
        format!("{:.2} s", ms / 1000.0)
    }
}

/// `YYYY-MM-DD HH:MM:SS.mmm` (UTC) of ms since the epoch.
fn clock(ms: u64) -> String {
    super::slowlog::utc(ms)
}
