//! `/slowlog`: the calls every door kept as slower than `--slow-ms`, newest first, as HTML or
//! (`?format=json`) a JSON array of objects with `at_ms`, `door`, `method`, `table`, `user`,
//! `duration_ms`, `description` and `explain` (what the call's reads cost, an explain line).

use super::html::{self, escape, json_string};
use super::Ops;
use ferrobase_engine::clock::UtcTime;
use std::fmt::Write;

/// The page.
pub fn render_html(ops: &Ops) -> String {
    let mut out = String::with_capacity(8 << 10);
    html::start(&mut out, "Slow operations");
    let _ = write_table(&mut out, ops);
    html::end(&mut out);
    out
}

/// The slow calls as a table (also a section of the console).
pub fn write_table(out: &mut String, ops: &Ops) -> std::fmt::Result {
    let calls = ops.slow_log.entries();
    writeln!(
        out,
        "<p>Calls that ran {} ms or longer (<code>--slow-ms</code>), the last {} kept, newest \
         first: {} now. As JSON: <a href=\"/slowlog?format=json\">/slowlog?format=json</a>.</p>",
        ops.slow_log.threshold().as_millis(),
        ferrobase_gateway::slow_log::DEFAULT_CAPACITY,
        calls.len()
    )?;
    writeln!(
        out,
        "<table id=\"slowlog\"><tr><th>Ended (UTC)</th><th>Door</th><th>Method</th><th>Table</th>\
         <th>User</th><th>Duration</th><th>Description</th><th>Explain</th></tr>"
    )?;
    for c in calls.iter().rev() {
        writeln!(
            out,
            "<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td class=n>{:.1} ms</td>\
             <td>{}</td><td><code>{}</code></td></tr>",
            utc(c.at_ms),
            c.door,
            escape(&c.method),
            escape(&c.table),
            escape(&c.user),
            c.duration.as_secs_f64() * 1000.0,
            escape(&c.description),
            escape(&c.explain)
        )?;
    }
    writeln!(out, "</table>")
}

/// The slow calls as JSON, oldest first.
pub fn render_json(ops: &Ops) -> String {
    let mut out = String::from("[");
    for (i, c) in ops.slow_log.entries().iter().enumerate() {
        let _ = write!(
            out,
            "{}\n{{\"at_ms\":{},\"door\":{},\"method\":{},\"table\":{},\"user\":{},\
             \"duration_ms\":{:.3},\"description\":{},\"explain\":{}}}",
            if i == 0 { "" } else { "," },
            c.at_ms,
            json_string(c.door),
            json_string(&c.method),
            json_string(&c.table),
            json_string(&c.user),
            c.duration.as_secs_f64() * 1000.0,
            json_string(&c.description),
            json_string(&c.explain)
        );
    }
    out.push_str("\n]\n");
    out
}

/// Milliseconds since the Unix epoch as `YYYY-MM-DD HH:MM:SS.mmm` (UTC).
pub fn utc(ms: u64) -> String {
    UtcTime::from_millis(i64::try_from(ms).unwrap_or(i64::MAX)).text()
}

#[cfg(test)]
mod tests {
    #[test]
    fn times_read_as_utc() {
        assert_eq!(super::utc(0), "1970-01-01 00:00:00.000");
        assert_eq!(super::utc(1_795_000_000_123), "2026-11-18 11:06:40.123");
    }
}
