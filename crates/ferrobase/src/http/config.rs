//! `/config`: the server's effective configuration (issue 47), the rows `ferrobase config show`
//! prints: every setting, its value, and where it came from (command line, environment, the
//! configuration file and the HBase property it was given as, or the default).

use super::html::{self, escape};
use std::fmt::Write;

/// The page.
pub fn render() -> String {
    let mut out = String::with_capacity(8 << 10);
    html::start(&mut out, "Configuration");
    let rows = crate::config::EFFECTIVE
        .get()
        .map_or(&[][..], Vec::as_slice);
    out.push_str(
        "<p>The settings this server runs with (<code>ferrobase config show</code> prints the \
         same for a command line). Precedence: command line, environment, configuration file, \
         default.</p>\n<table id=\"config\"><tr><th>Key</th><th>Value</th><th>Source</th></tr>\n",
    );
    for r in rows {
        let _ = writeln!(
            out,
            "<tr><td><code>{}</code></td><td><code>{}</code></td><td>{}</td></tr>",
            escape(&r.key),
            escape(&r.value),
            escape(&r.source)
        );
    }
    out.push_str("</table>\n");
    html::end(&mut out);
    out
}
