//! `/logLevel` (HBase's page of the same name): the log filter in force, and a form that
//! replaces it. `GET /logLevel` shows it; `POST /logLevel?level=debug` (or the form's body
//! `level=debug`) changes it at once for every thread; a level that does not parse is refused
//! with 400 and changes nothing.

use super::html::{self, escape};
use super::Ops;
use std::fmt::Write;

/// The page, with `message` (the outcome of a change) above the form when given.
pub fn render(ops: &Ops, message: Option<&str>) -> String {
    let mut out = String::with_capacity(2 << 10);
    html::start(&mut out, "Log level");
    if let Some(m) = message {
        let _ = writeln!(out, "<p id=\"outcome\"><b>{}</b></p>", escape(m));
    }
    let _ = write_form(&mut out, ops);
    html::end(&mut out);
    out
}

/// The level in force and the form (also a section of the console).
pub fn write_form(out: &mut String, ops: &Ops) -> std::fmt::Result {
    writeln!(
        out,
        "<p>Logs go to standard error, one line per event. Level now: \
         <code id=\"level\">{}</code></p>\n\
         <form method=\"post\" action=\"/logLevel\"><label>New level or RUST_LOG directives: \
         <input name=\"level\" value=\"{}\"></label> <button type=\"submit\">Set</button></form>\n\
         <p>trace, debug, info, warn, error or off; or TARGET=LEVEL parts such as \
         <code>ferrobase_native=debug,info</code>. Also <code>POST /logLevel?level=debug</code>.</p>",
        escape(&ops.log.current()),
        escape(&ops.log.current())
    )
}

/// `POST /logLevel` with `level` from the query or the body: (status, page).
pub fn change(ops: &Ops, query: &str, body: &str) -> (u16, String) {
    let level = html::param(query, "level").or_else(|| html::param(body.trim(), "level"));
    let Some(level) = level else {
        return (
            400,
            render(ops, Some("no level given: POST /logLevel?level=debug")),
        );
    };
    match ops.log.set(&level) {
        Ok(()) => (
            200,
            render(ops, Some(&format!("log level set to {}", level.trim()))),
        ),
        Err(e) => (400, render(ops, Some(&format!("{e:#}")))),
    }
}
