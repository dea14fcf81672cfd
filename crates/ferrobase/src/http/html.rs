//! What every page shares: the page frame and navigation, HTML and JSON escaping, row keys and
//! byte counts as text.

use std::fmt::Write;

/// Bytes of a row key shown, at most (escaped, as the shell prints them).
pub const MAX_KEY_CHARS: usize = 40;

/// The start of a page titled `title`, with the console's links; close it with [`end`].
pub fn start(out: &mut String, title: &str) {
    let _ = write!(
        out,
        "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>{t} - ferrobase</title>\n\
         <style>body{{font-family:sans-serif;margin:1.5em;max-width:80em}}\
         table{{border-collapse:collapse}}\
         td,th{{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}}\
         td.n{{text-align:right}}nav a{{margin-right:1em}}code{{font-size:90%}}</style>\
         </head><body>\n<nav><a href=\"/\">Console</a><a href=\"/#tables\">Tables</a>\
         <a href=\"/jobs\">Flushes and compactions</a><a href=\"/slowlog\">Slow operations</a><a href=\"/logLevel\">Log level</a>\
         <a href=\"/config\">Configuration</a>\
         <a href=\"/metrics\">Metrics</a></nav>\n<h1>{t}</h1>\n",
        t = escape(title)
    );
}

/// The end of a page.
pub fn end(out: &mut String) {
    out.push_str("</body></html>\n");
}

/// HTML-escapes text for an element or an attribute in double quotes.
pub fn escape(s: &str) -> String {
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

/// `s` as a JSON string, quotes included.
pub fn json_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// A row key as the shell prints it (printable ASCII as is, other bytes `\xNN`), cut to
/// [`MAX_KEY_CHARS`] characters.
pub fn key(k: &[u8]) -> String {
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

/// A byte count for people (B, KiB, MiB, GiB).
pub fn bytes(n: u64) -> String {
    match n {
        n if n >= 1 << 30 => format!("{:.1} GiB", n as f64 / (1u64 << 30) as f64),
        n if n >= 1 << 20 => format!("{:.1} MiB", n as f64 / (1u64 << 20) as f64),
        n if n >= 1 << 10 => format!("{:.1} KiB", n as f64 / 1024.0),
        n => format!("{n} B"),
    }
}

/// The value of `name` in a query string or a form body (`a=1&b=2`), percent-decoded.
pub fn param(query: &str, name: &str) -> Option<String> {
    query.split('&').find_map(|pair| {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        (k == name).then(|| percent_decode(v))
    })
}

fn percent_decode(s: &str) -> String {
    let bytes = s.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        match b {
            b'+' => out.push(b' '),
            b'%' => match bytes
                .get(i + 1..i + 3)
                .and_then(|h| std::str::from_utf8(h).ok())
                .and_then(|h| u8::from_str_radix(h, 16).ok())
            {
                Some(v) => {
                    out.push(v);
                    i += 2;
                }
                None => out.push(b'%'),
            },
            b => out.push(b),
        }
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keys_names_and_parameters_are_escaped() {
        assert_eq!(key(b"a\x00<b>"), "a\\x00<b>");
        assert_eq!(escape("<b>&\"'"), "&lt;b&gt;&amp;&quot;&#39;");
        assert_eq!(key(&[b'x'; 100]).chars().count(), MAX_KEY_CHARS + 1);
        assert_eq!(json_string("a\"\n"), "\"a\\\"\\u000a\"");
        assert_eq!(
            param("x=1&level=a%3Db+c", "level").as_deref(),
            Some("a=b c")
        );
        assert_eq!(param("x=1", "level"), None);
        assert_eq!(param("level=%zz", "level").as_deref(), Some("%zz"));
    }
}
