//! `ScannerModel` (what `POST /TABLE/scanner` carries) and its filter: HBase REST's filter JSON
//! (`ScannerModel.FilterModel`), translated into HBase's filter language and parsed by the
//! engine's `ParseFilter` (`ferrobase_engine::filter::parse_filter`), so a REST filter runs
//! exactly the filter the Thrift and shell doors run for the same text.

use super::unb64;
use crate::error::RestError;
use crate::media::Repr;
use crate::proto;
use crate::xml;
use prost::Message;

/// The deepest nesting of filter lists a scanner's filter may have.
const MAX_FILTER_DEPTH: usize = 32;

/// A scanner's specification, HBase's defaults where absent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScannerModel {
    /// First row (empty: the table's start).
    pub start_row: Vec<u8>,
    /// Stop row, exclusive (empty: the table's end).
    pub end_row: Vec<u8>,
    /// `family` or `family:qualifier` each.
    pub columns: Vec<Vec<u8>>,
    /// Cells per `GET` of the scanner (default `i32::MAX`).
    pub batch: i32,
    /// Time range start, inclusive.
    pub start_time: i64,
    /// Time range end, exclusive.
    pub end_time: i64,
    /// Versions per column (default `i32::MAX`).
    pub max_versions: i32,
    /// The filter, as HBase REST's filter JSON.
    pub filter: Option<String>,
    /// Rows fetched at once (-1: the server's).
    pub caching: i32,
    /// Visibility labels (refused when any).
    pub labels: Vec<String>,
}

impl Default for ScannerModel {
    fn default() -> Self {
        ScannerModel {
            start_row: Vec::new(),
            end_row: Vec::new(),
            columns: Vec::new(),
            batch: i32::MAX,
            start_time: 0,
            end_time: i64::MAX,
            max_versions: i32::MAX,
            filter: None,
            caching: -1,
            labels: Vec::new(),
        }
    }
}

fn bad(what: impl std::fmt::Display) -> RestError {
    RestError::bad_request(format!("malformed Scanner: {what}"))
}

fn int<T: TryFrom<i64>>(v: &serde_json::Value, name: &str) -> Result<T, RestError> {
    let n = match v {
        serde_json::Value::Number(n) => n.as_i64(),
        serde_json::Value::String(s) => s.trim().parse().ok(),
        _ => None,
    };
    n.and_then(|n| T::try_from(n).ok())
        .ok_or_else(|| bad(format!("{name} is not a number in range")))
}

fn text_int<T: std::str::FromStr>(s: &str, name: &str) -> Result<T, RestError> {
    s.trim()
        .parse()
        .map_err(|_| bad(format!("{name} {s:?} is not a number in range")))
}

impl ScannerModel {
    /// A request body in `repr`.
    pub fn decode(repr: Repr, body: &[u8]) -> Result<ScannerModel, RestError> {
        match repr {
            Repr::Json => Self::from_json(body),
            Repr::Xml => Self::from_xml(body),
            Repr::Protobuf => Self::from_proto(body),
            _ => Err(RestError::unsupported_media(repr.content_type())),
        }
    }

    fn from_json(body: &[u8]) -> Result<ScannerModel, RestError> {
        let v: serde_json::Value = serde_json::from_slice(body)
            .map_err(|e| RestError::bad_request(format!("malformed JSON: {e}")))?;
        let obj = v.as_object().ok_or_else(|| bad("not an object"))?;
        let mut m = ScannerModel::default();
        let s = |v: &serde_json::Value, name: &str| -> Result<String, RestError> {
            v.as_str()
                .map(str::to_string)
                .ok_or_else(|| bad(format!("{name} is not a string")))
        };
        for (k, v) in obj {
            if v.is_null() {
                continue;
            }
            match k.as_str() {
                "startRow" => m.start_row = unb64(&s(v, k)?)?,
                "endRow" => m.end_row = unb64(&s(v, k)?)?,
                "column" => {
                    let items = match v {
                        serde_json::Value::Array(a) => a.iter().collect(),
                        other => vec![other],
                    };
                    for c in items {
                        m.columns.push(unb64(&s(c, k)?)?);
                    }
                }
                "batch" => m.batch = int(v, k)?,
                "startTime" => m.start_time = int(v, k)?,
                "endTime" => m.end_time = int(v, k)?,
                "maxVersions" => m.max_versions = int(v, k)?,
                "caching" => m.caching = int(v, k)?,
                "filter" => m.filter = Some(s(v, k)?),
                "labels" => {
                    let items = match v {
                        serde_json::Value::Array(a) => a.iter().collect(),
                        other => vec![other],
                    };
                    for l in items {
                        m.labels.push(s(l, k)?);
                    }
                }
                "cacheBlocks" => {}
                other => return Err(bad(format!("unknown member {other:?}"))),
            }
        }
        Ok(m)
    }

    fn from_xml(body: &[u8]) -> Result<ScannerModel, RestError> {
        let root = xml::parse(body)?;
        if root.name != "Scanner" {
            return Err(bad(format!("the root element is <{}>", root.name)));
        }
        let mut m = ScannerModel::default();
        for (k, v) in &root.attrs {
            match k.as_str() {
                "startRow" => m.start_row = unb64(v)?,
                "endRow" => m.end_row = unb64(v)?,
                "batch" => m.batch = text_int(v, k)?,
                "startTime" => m.start_time = text_int(v, k)?,
                "endTime" => m.end_time = text_int(v, k)?,
                "maxVersions" => m.max_versions = text_int(v, k)?,
                "caching" => m.caching = text_int(v, k)?,
                _ => {}
            }
        }
        for c in &root.children {
            match c.name.as_str() {
                "column" => m.columns.push(unb64(&c.text)?),
                "filter" => m.filter = Some(c.text.clone()),
                "labels" => m.labels.push(c.text.clone()),
                _ => {}
            }
        }
        Ok(m)
    }

    fn from_proto(body: &[u8]) -> Result<ScannerModel, RestError> {
        let p = proto::Scanner::decode(body)
            .map_err(|e| RestError::bad_request(format!("malformed protobuf Scanner: {e}")))?;
        let d = ScannerModel::default();
        Ok(ScannerModel {
            start_row: p.start_row.unwrap_or_default(),
            end_row: p.end_row.unwrap_or_default(),
            columns: p.columns,
            batch: p.batch.unwrap_or(d.batch),
            start_time: p.start_time.unwrap_or(d.start_time),
            end_time: p.end_time.unwrap_or(d.end_time),
            max_versions: p.max_versions.unwrap_or(d.max_versions),
            filter: p.filter,
            caching: p.caching.unwrap_or(d.caching),
            labels: p.labels,
        })
    }
}

/// `bytes` as a quoted string of the filter language (`'` doubled).
fn quoted(out: &mut Vec<u8>, bytes: &[u8]) {
    out.push(b'\'');
    for &b in bytes {
        if b == b'\'' {
            out.push(b'\'');
        }
        out.push(b);
    }
    out.push(b'\'');
}

fn filter_bad(what: impl std::fmt::Display) -> RestError {
    RestError::bad_request(format!("malformed scanner filter: {what}"))
}

/// The member `name` of a filter object as a string.
fn member<'a>(
    f: &'a serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<&'a str, RestError> {
    f.get(name)
        .and_then(|v| v.as_str())
        .ok_or_else(|| filter_bad(format!("{name} is missing or not a string")))
}

fn number(f: &serde_json::Map<String, serde_json::Value>, name: &str) -> Result<i64, RestError> {
    match f.get(name) {
        Some(serde_json::Value::Number(n)) => n.as_i64(),
        Some(serde_json::Value::String(s)) => s.trim().parse().ok(),
        _ => None,
    }
    .ok_or_else(|| filter_bad(format!("{name} is missing or not a number")))
}

fn boolean(f: &serde_json::Map<String, serde_json::Value>, name: &str) -> Option<bool> {
    match f.get(name) {
        Some(serde_json::Value::Bool(b)) => Some(*b),
        Some(serde_json::Value::String(s)) => s.parse().ok(),
        _ => None,
    }
}

/// `CompareOperator` names as the filter language's operators.
fn compare_op(op: &str) -> Result<&'static str, RestError> {
    Ok(match op {
        "LESS" => "<",
        "LESS_OR_EQUAL" => "<=",
        "EQUAL" => "=",
        "NOT_EQUAL" => "!=",
        "GREATER_OR_EQUAL" => ">=",
        "GREATER" => ">",
        other => return Err(filter_bad(format!("unknown compare operator {other:?}"))),
    })
}

/// A `ByteArrayComparableModel` as the filter language's `'type:value'`.
fn comparator(out: &mut Vec<u8>, c: &serde_json::Value) -> Result<(), RestError> {
    let c = c
        .as_object()
        .ok_or_else(|| filter_bad("comparator is missing or not an object"))?;
    let (prefix, value) = match member(c, "type")? {
        "BinaryComparator" => ("binary:", unb64(member(c, "value")?)?),
        "BinaryPrefixComparator" => ("binaryprefix:", unb64(member(c, "value")?)?),
        "RegexStringComparator" => ("regexstring:", member(c, "value")?.as_bytes().to_vec()),
        "SubstringComparator" => ("substring:", member(c, "value")?.as_bytes().to_vec()),
        other => {
            return Err(filter_bad(format!(
                "the comparator {other} is not supported by ferrobase's REST door"
            )))
        }
    };
    let mut v = prefix.as_bytes().to_vec();
    v.extend_from_slice(&value);
    quoted(out, &v);
    Ok(())
}

/// The filter language text of a scanner's filter JSON (`FilterModel.build`).
pub fn filter_text(json: &str) -> Result<Vec<u8>, RestError> {
    let v: serde_json::Value =
        serde_json::from_str(json).map_err(|e| filter_bad(format!("not JSON: {e}")))?;
    let mut out = Vec::new();
    write_filter(&mut out, &v, 0)?;
    Ok(out)
}

fn write_filter(out: &mut Vec<u8>, v: &serde_json::Value, depth: usize) -> Result<(), RestError> {
    if depth > MAX_FILTER_DEPTH {
        return Err(filter_bad(format!("nested deeper than {MAX_FILTER_DEPTH}")));
    }
    let f = v
        .as_object()
        .ok_or_else(|| filter_bad("a filter is not an object"))?;
    let kind = member(f, "type")?;
    let args = |out: &mut Vec<u8>, name: &str| out.extend_from_slice(format!("{name}(").as_bytes());
    let inner = |f: &serde_json::Map<String, serde_json::Value>| -> Result<Vec<serde_json::Value>, RestError> {
        match f.get("filters") {
            Some(serde_json::Value::Array(a)) => Ok(a.clone()),
            Some(o @ serde_json::Value::Object(_)) => Ok(vec![o.clone()]),
            _ => Err(filter_bad("filters is missing")),
        }
    };
    match kind {
        "FilterList" => {
            let joiner: &[u8] = match member(f, "op")? {
                "MUST_PASS_ALL" => b" AND ",
                "MUST_PASS_ONE" => b" OR ",
                other => return Err(filter_bad(format!("unknown FilterList op {other:?}"))),
            };
            let list = inner(f)?;
            if list.is_empty() {
                return Err(filter_bad("an empty FilterList"));
            }
            for (i, sub) in list.iter().enumerate() {
                if i > 0 {
                    out.extend_from_slice(joiner);
                }
                out.push(b'(');
                write_filter(out, sub, depth + 1)?;
                out.push(b')');
            }
        }
        "SkipFilter" | "WhileMatchFilter" => {
            let list = inner(f)?;
            let sub = list.first().ok_or_else(|| filter_bad("filters is empty"))?;
            out.extend_from_slice(if kind == "SkipFilter" {
                b"SKIP ("
            } else {
                b"WHILE ("
            });
            write_filter(out, sub, depth + 1)?;
            out.push(b')');
        }
        "PrefixFilter" | "ColumnPrefixFilter" | "InclusiveStopFilter" => {
            args(out, kind);
            quoted(out, &unb64(member(f, "value")?)?);
            out.push(b')');
        }
        "MultipleColumnPrefixFilter" => {
            args(out, kind);
            let prefixes = match f.get("prefixes") {
                Some(serde_json::Value::Array(a)) => a.clone(),
                _ => return Err(filter_bad("prefixes is missing")),
            };
            for (i, p) in prefixes.iter().enumerate() {
                if i > 0 {
                    out.push(b',');
                }
                quoted(
                    out,
                    &unb64(
                        p.as_str()
                            .ok_or_else(|| filter_bad("a prefix is not a string"))?,
                    )?,
                );
            }
            out.push(b')');
        }
        "FirstKeyOnlyFilter" | "KeyOnlyFilter" => {
            args(out, kind);
            out.push(b')');
        }
        "PageFilter" => {
            args(out, kind);
            let n: i64 = member(f, "value")?
                .trim()
                .parse()
                .map_err(|_| filter_bad("PageFilter's value is not a number"))?;
            out.extend_from_slice(format!("{n})").as_bytes());
        }
        "ColumnCountGetFilter" => {
            args(out, kind);
            out.extend_from_slice(format!("{})", number(f, "limit")?).as_bytes());
        }
        "ColumnPaginationFilter" => {
            args(out, kind);
            out.extend_from_slice(
                format!("{}, {})", number(f, "limit")?, number(f, "offset")?).as_bytes(),
            );
        }
        "ColumnRangeFilter" => {
            args(out, kind);
            quoted(out, &unb64(member(f, "minColumn")?)?);
            out.extend_from_slice(
                format!(", {}, ", boolean(f, "minColumnInclusive").unwrap_or(false)).as_bytes(),
            );
            quoted(out, &unb64(member(f, "maxColumn")?)?);
            out.extend_from_slice(
                format!(", {})", boolean(f, "maxColumnInclusive").unwrap_or(false)).as_bytes(),
            );
        }
        "RowFilter" | "FamilyFilter" | "QualifierFilter" | "ValueFilter" => {
            args(out, kind);
            out.extend_from_slice(compare_op(member(f, "op")?)?.as_bytes());
            out.extend_from_slice(b", ");
            comparator(out, f.get("comparator").unwrap_or(&serde_json::Value::Null))?;
            out.push(b')');
        }
        "SingleColumnValueFilter" | "SingleColumnValueExcludeFilter" => {
            args(out, kind);
            quoted(out, &unb64(member(f, "family")?)?);
            out.extend_from_slice(b", ");
            let q = match f.get("qualifier").and_then(|q| q.as_str()) {
                Some(q) => unb64(q)?,
                None => Vec::new(),
            };
            quoted(out, &q);
            out.extend_from_slice(b", ");
            out.extend_from_slice(compare_op(member(f, "op")?)?.as_bytes());
            out.extend_from_slice(b", ");
            comparator(out, f.get("comparator").unwrap_or(&serde_json::Value::Null))?;
            let if_missing = boolean(f, "ifMissing");
            let latest = boolean(f, "latestVersion");
            if if_missing.is_some() || latest.is_some() {
                out.extend_from_slice(
                    format!(
                        ", {}, {}",
                        if_missing.unwrap_or(false),
                        latest.unwrap_or(true)
                    )
                    .as_bytes(),
                );
            }
            out.push(b')');
        }
        "DependentColumnFilter" => {
            args(out, kind);
            quoted(out, &unb64(member(f, "family")?)?);
            out.extend_from_slice(b", ");
            let q = match f.get("qualifier").and_then(|q| q.as_str()) {
                Some(q) => unb64(q)?,
                None => Vec::new(),
            };
            quoted(out, &q);
            out.extend_from_slice(
                format!(", {}, ", boolean(f, "dropDependentColumn").unwrap_or(false)).as_bytes(),
            );
            out.extend_from_slice(compare_op(member(f, "op")?)?.as_bytes());
            out.extend_from_slice(b", ");
            comparator(out, f.get("comparator").unwrap_or(&serde_json::Value::Null))?;
            out.push(b')');
        }
        "TimestampsFilter" => {
            args(out, kind);
            let ts = match f.get("timestamps") {
                Some(serde_json::Value::Array(a)) => a.clone(),
                _ => return Err(filter_bad("timestamps is missing")),
            };
            let ts: Vec<String> = ts
                .iter()
                .map(|t| {
                    t.as_i64()
                        .map(|t| t.to_string())
                        .ok_or_else(|| filter_bad("a timestamp is not a number"))
                })
                .collect::<Result<_, _>>()?;
            out.extend_from_slice(ts.join(", ").as_bytes());
            out.push(b')');
        }
        // HBase's RowRangeModel: base64 rows, a start inclusive and a stop exclusive unless
        // said otherwise (the filter language's ferrobase extension takes the same).
        "MultiRowRangeFilter" => {
            args(out, kind);
            let ranges = list(f, "ranges")?;
            for (i, r) in ranges.iter().enumerate() {
                let r = r
                    .as_object()
                    .ok_or_else(|| filter_bad("a range is not an object"))?;
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                let row = |name: &str| match r.get(name).and_then(|v| v.as_str()) {
                    Some(v) => unb64(v),
                    None => Ok(Vec::new()),
                };
                quoted(out, &row("startRow")?);
                out.extend_from_slice(
                    format!(", {}, ", boolean(r, "startRowInclusive").unwrap_or(true)).as_bytes(),
                );
                quoted(out, &row("stopRow")?);
                out.extend_from_slice(
                    format!(", {}", boolean(r, "stopRowInclusive").unwrap_or(false)).as_bytes(),
                );
            }
            out.push(b')');
        }
        // HBase's FuzzyKeyModel: a base64 key and mask (mask byte 0: fixed, 1: any).
        "FuzzyRowFilter" => {
            args(out, kind);
            let keys = list(f, "fuzzyKeys")?;
            for (i, k) in keys.iter().enumerate() {
                let k = k
                    .as_object()
                    .ok_or_else(|| filter_bad("a fuzzy key is not an object"))?;
                if i > 0 {
                    out.extend_from_slice(b", ");
                }
                quoted(out, &unb64(member(k, "key")?)?);
                out.extend_from_slice(b", ");
                quoted(out, &unb64(member(k, "mask")?)?);
            }
            out.push(b')');
        }
        "RandomRowFilter" => {
            args(out, kind);
            let chance = f
                .get("chance")
                .and_then(serde_json::Value::as_f64)
                .ok_or_else(|| filter_bad("chance is missing or not a number"))?;
            out.extend_from_slice(format!("{chance})").as_bytes());
        }
        other => {
            return Err(filter_bad(format!(
                "the filter type {other} is not supported by ferrobase's REST door \
                 (docs/design/rest.md)"
            )))
        }
    }
    Ok(())
}

/// The array member `name` of a filter (a lone object read as a list of one, as Jackson reads
/// HBase's lists).
fn list(
    f: &serde_json::Map<String, serde_json::Value>,
    name: &str,
) -> Result<Vec<serde_json::Value>, RestError> {
    match f.get(name) {
        Some(serde_json::Value::Array(a)) if !a.is_empty() => Ok(a.clone()),
        Some(o @ serde_json::Value::Object(_)) => Ok(vec![o.clone()]),
        _ => Err(filter_bad(format!("{name} is missing or empty"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn filters_become_filter_language() {
        let t = |j: &str| String::from_utf8(filter_text(j).unwrap()).unwrap();
        assert_eq!(
            t(r#"{"type":"PrefixFilter","value":"cm93"}"#),
            "PrefixFilter('row')"
        );
        assert_eq!(
            t(
                r#"{"type":"FilterList","op":"MUST_PASS_ALL","filters":[{"type":"KeyOnlyFilter"},{"type":"ValueFilter","op":"EQUAL","comparator":{"type":"BinaryComparator","value":"J3gn"}}]}"#
            ),
            "(KeyOnlyFilter()) AND (ValueFilter(=, 'binary:''x'''))"
        );
        assert_eq!(
            t(
                r#"{"type":"MultiRowRangeFilter","ranges":[{"startRow":"YQ==","stopRow":"Yg==","stopRowInclusive":true},{"startRow":"eA==","startRowInclusive":false}]}"#
            ),
            "MultiRowRangeFilter('a', true, 'b', true, 'x', false, '', false)"
        );
        assert_eq!(
            t(r#"{"type":"FuzzyRowFilter","fuzzyKeys":[{"key":"YWJj","mask":"AAEA"}]}"#),
            "FuzzyRowFilter('abc', '\u{0}\u{1}\u{0}')"
        );
        assert_eq!(
            t(r#"{"type":"RandomRowFilter","chance":0.25}"#),
            "RandomRowFilter(0.25)"
        );
    }

    #[test]
    fn bad_filters_are_400() {
        for j in [
            "{",
            "[]",
            r#"{"type":"Nope"}"#,
            r#"{"type":"PrefixFilter","value":"***"}"#,
            r#"{"type":"RowFilter","op":"EQUAL","comparator":{"type":"NullComparator"}}"#,
            r#"{"type":"FilterList","op":"MUST_PASS_ALL","filters":[]}"#,
        ] {
            assert_eq!(filter_text(j).unwrap_err().status, 400, "{j}");
        }
        let deep = r#"{"type":"SkipFilter","filters":["#.repeat(50)
            + r#"{"type":"KeyOnlyFilter"}"#
            + &"]}".repeat(50);
        assert_eq!(filter_text(&deep).unwrap_err().status, 400);
    }
}
