//! XML for the door's representations: a writer of HBase REST's JAXB output
//! (`<?xml ... standalone="yes"?>`, attributes and text escaped) and a reader of request bodies
//! into a small element tree, bounded in depth, that never panics on any input.

use crate::error::RestError;
use quick_xml::events::Event;

/// The declaration JAXB writes first.
pub const DECLARATION: &str = r#"<?xml version="1.0" encoding="UTF-8" standalone="yes"?>"#;

/// The deepest nesting a request body may have (HBase's models nest three deep).
const MAX_DEPTH: usize = 16;

/// `s` escaped for an attribute value or text.
pub fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&quot;"),
            _ => out.push(c),
        }
    }
    out
}

/// An element being written: `<name a="v" ...>children</name>` or `<name .../>`.
#[derive(Debug, Default)]
pub struct Writer {
    out: String,
}

impl Writer {
    /// A document, its declaration written.
    pub fn document() -> Writer {
        Writer {
            out: DECLARATION.to_string(),
        }
    }

    /// A fragment, without the declaration.
    pub fn fragment() -> Writer {
        Writer::default()
    }

    /// Opens `<name` with `attrs`; `empty`: closes it as `/>`.
    pub fn open(&mut self, name: &str, attrs: &[(&str, String)], empty: bool) {
        self.out.push('<');
        self.out.push_str(name);
        for (k, v) in attrs {
            self.out
                .push_str(&format!(" {}=\"{}\"", escape(k), escape(v)));
        }
        self.out.push_str(if empty { "/>" } else { ">" });
    }

    /// Text content.
    pub fn text(&mut self, s: &str) {
        self.out.push_str(&escape(s));
    }

    /// `</name>`.
    pub fn close(&mut self, name: &str) {
        self.out.push_str(&format!("</{name}>"));
    }

    /// The document's bytes.
    pub fn finish(self) -> Vec<u8> {
        self.out.into_bytes()
    }
}

/// An element of a request body.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Element {
    /// Its local name.
    pub name: String,
    /// Its attributes, unescaped, in document order.
    pub attrs: Vec<(String, String)>,
    /// Its child elements.
    pub children: Vec<Element>,
    /// Its text, concatenated and unescaped.
    pub text: String,
}

impl Element {
    /// The attribute `name`.
    pub fn attr(&self, name: &str) -> Option<&str> {
        self.attrs
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| v.as_str())
    }

    /// The children named `name`.
    pub fn children_named<'a>(&'a self, name: &'a str) -> impl Iterator<Item = &'a Element> {
        self.children.iter().filter(move |c| c.name == name)
    }
}

fn bad(e: impl std::fmt::Display) -> RestError {
    RestError::bad_request(format!("malformed XML: {e}"))
}

/// Parses `body` into its root element; anything but one well-formed root is a 400.
pub fn parse(body: &[u8]) -> Result<Element, RestError> {
    let text = std::str::from_utf8(body).map_err(bad)?;
    let mut reader = quick_xml::Reader::from_str(text);
    let mut stack: Vec<Element> = Vec::new();
    let mut root: Option<Element> = None;
    loop {
        let event = reader.read_event().map_err(bad)?;
        match event {
            Event::Start(ref e) | Event::Empty(ref e) => {
                if root.is_some() {
                    return Err(bad("content after the root element"));
                }
                if stack.len() >= MAX_DEPTH {
                    return Err(bad(format!("nested deeper than {MAX_DEPTH}")));
                }
                let mut el = Element {
                    name: String::from_utf8_lossy(e.local_name().as_ref()).into_owned(),
                    ..Element::default()
                };
                for a in e.attributes() {
                    let a = a.map_err(bad)?;
                    let value = a.unescape_value().map_err(bad)?.into_owned();
                    el.attrs.push((
                        String::from_utf8_lossy(a.key.local_name().as_ref()).into_owned(),
                        value,
                    ));
                }
                if matches!(event, Event::Empty(_)) {
                    match stack.last_mut() {
                        Some(parent) => parent.children.push(el),
                        None => root = Some(el),
                    }
                } else {
                    stack.push(el);
                }
            }
            Event::End(_) => {
                let el = stack.pop().ok_or_else(|| bad("unbalanced end tag"))?;
                match stack.last_mut() {
                    Some(parent) => parent.children.push(el),
                    None => root = Some(el),
                }
            }
            Event::Text(t) => {
                if let Some(top) = stack.last_mut() {
                    let s = t.decode().map_err(bad)?;
                    top.text
                        .push_str(&quick_xml::escape::unescape(&s).map_err(bad)?);
                }
            }
            Event::CData(t) => {
                if let Some(top) = stack.last_mut() {
                    top.text.push_str(&String::from_utf8_lossy(&t));
                }
            }
            Event::GeneralRef(r) => {
                if let Some(top) = stack.last_mut() {
                    let name = r.decode().map_err(bad)?;
                    let raw = format!("&{name};");
                    let s = quick_xml::escape::unescape(&raw).map_err(bad)?;
                    top.text.push_str(&s);
                }
            }
            Event::Eof => break,
            Event::Decl(_) | Event::PI(_) | Event::Comment(_) => {}
            Event::DocType(_) => return Err(bad("a DOCTYPE is not accepted")),
        }
    }
    if !stack.is_empty() {
        return Err(bad("unclosed element"));
    }
    root.ok_or_else(|| bad("no root element"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cell_set_parses() {
        let el = parse(
            br#"<?xml version="1.0"?><CellSet><Row key="cjE="><Cell column="Y2Y6YQ==">djE=</Cell></Row></CellSet>"#,
        )
        .unwrap();
        assert_eq!(el.name, "CellSet");
        let row = el.children_named("Row").next().unwrap();
        assert_eq!(row.attr("key"), Some("cjE="));
        assert_eq!(row.children.first().unwrap().text, "djE=");
    }

    #[test]
    fn malformed_documents_are_refused() {
        for bad in [
            &b"<a>"[..],
            b"",
            b"<a></b>",
            b"<a/><b/>",
            b"\xff",
            b"<!DOCTYPE x><a/>",
        ] {
            assert_eq!(parse(bad).unwrap_err().status, 400, "{bad:?}");
        }
        let deep = "<a>".repeat(100) + &"</a>".repeat(100);
        assert_eq!(parse(deep.as_bytes()).unwrap_err().status, 400);
    }
}
