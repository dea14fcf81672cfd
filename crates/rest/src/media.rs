//! Representations and content negotiation, as Jersey chooses among a resource's
//! `@Produces`/`@Consumes` media types: the client's `Accept` list by quality then order, a
//! wildcard meaning the resource's first (default) representation; a request body's
//! `Content-Type` picks its decoder.

use crate::error::RestError;
use crate::http::Request;

/// One representation of a model.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Repr {
    /// `application/json` (Jackson's view of HBase's JAXB models).
    Json,
    /// `text/xml` (JAXB).
    Xml,
    /// `application/x-protobuf` or `application/protobuf` (HBase REST's .proto messages).
    Protobuf,
    /// `application/octet-stream` (a single cell's value).
    Binary,
    /// `text/plain` (the models' `toString`).
    Text,
}

impl Repr {
    /// The media types that name this representation, the first the one answered.
    fn media(self) -> &'static [&'static str] {
        match self {
            Repr::Json => &["application/json"],
            Repr::Xml => &["text/xml"],
            Repr::Protobuf => &["application/x-protobuf", "application/protobuf"],
            Repr::Binary => &["application/octet-stream"],
            Repr::Text => &["text/plain"],
        }
    }

    /// The `Content-Type` this representation is answered with.
    pub fn content_type(self) -> &'static str {
        self.media()
            .first()
            .copied()
            .unwrap_or("application/octet-stream")
    }

    /// The representation a media type names (parameters ignored).
    pub fn of_media(media: &str) -> Option<Repr> {
        let m = media
            .split(';')
            .next()
            .unwrap_or_default()
            .trim()
            .to_ascii_lowercase();
        [
            Repr::Json,
            Repr::Xml,
            Repr::Protobuf,
            Repr::Binary,
            Repr::Text,
        ]
        .into_iter()
        .find(|r| r.media().contains(&m.as_str()))
    }
}

/// What `Accept` asks for, as (media type, quality), in header order.
fn accept_list(header: &str) -> Vec<(String, f32)> {
    header
        .split(',')
        .filter_map(|part| {
            let mut it = part.split(';');
            let media = it.next()?.trim().to_ascii_lowercase();
            if media.is_empty() {
                return None;
            }
            let q = it
                .filter_map(|p| p.trim().strip_prefix("q="))
                .find_map(|q| q.trim().parse::<f32>().ok())
                .unwrap_or(1.0);
            Some((media, q))
        })
        .collect()
}

fn matches(pattern: &str, repr: Repr) -> bool {
    repr.media().iter().any(|m| {
        pattern == *m
            || pattern == "*/*"
            || pattern
                .strip_suffix("/*")
                .is_some_and(|kind| m.split('/').next() == Some(kind))
    })
}

/// The representation answered: the first of `produces` (the resource's, its default first)
/// that the client's `Accept` prefers; 406 when it accepts none.
pub fn negotiate(req: &Request, produces: &[Repr]) -> Result<Repr, RestError> {
    let header = req.header("Accept").unwrap_or("*/*");
    let mut wanted = accept_list(header);
    if wanted.is_empty() {
        wanted.push(("*/*".into(), 1.0));
    }
    // Stable: equal qualities keep the header's order; exact types before wildcards.
    wanted.sort_by(|a, b| {
        b.1.partial_cmp(&a.1)
            .unwrap_or(std::cmp::Ordering::Equal)
            .then_with(|| a.0.contains('*').cmp(&b.0.contains('*')))
    });
    for (pattern, q) in &wanted {
        if *q <= 0.0 {
            continue;
        }
        if let Some(r) = produces.iter().copied().find(|r| matches(pattern, *r)) {
            return Ok(r);
        }
    }
    Err(RestError::not_acceptable(header))
}

/// The representation of a request's body, one of `consumes`; 415 otherwise (and without a
/// `Content-Type`).
pub fn body_repr(req: &Request, consumes: &[Repr]) -> Result<Repr, RestError> {
    let ct = req.header("Content-Type").unwrap_or("");
    Repr::of_media(ct)
        .filter(|r| consumes.contains(r))
        .ok_or_else(|| RestError::unsupported_media(ct))
}

/// The `Content-Type` of an answer in `repr`: the protobuf spelling the client asked for.
pub fn answer_type(req: &Request, repr: Repr) -> &'static str {
    if repr == Repr::Protobuf
        && req.header("Accept").is_some_and(|a| {
            accept_list(a)
                .iter()
                .any(|(m, _)| m == "application/protobuf")
        })
        && !req.header("Accept").is_some_and(|a| {
            accept_list(a)
                .iter()
                .any(|(m, _)| m == "application/x-protobuf")
        })
    {
        return "application/protobuf";
    }
    repr.content_type()
}
