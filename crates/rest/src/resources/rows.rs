//! `RowResource` (`/TABLE/ROWSPEC`: read, write and delete cells) and `MultiRowResource`
//! (`/TABLE/multiget?row=...`), with HBase's `RowSpec` grammar:
//! `row[,endrow]` or `prefix*`, then `/col[,col...]`, then `/ts` or `/start,end`, each part
//! URL-decoded as Java's `URLDecoder` does (`+` is a space).

use super::{is, method_not_allowed, ok};
use crate::error::RestError;
use crate::http::{percent_decode, Request, Response};
use crate::media::{body_repr, negotiate, Repr};
use crate::model::{unb64, CellSetModel, RowModel};
use crate::server::Door;
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::{
    Delete, Error as EngineError, Get, Mutation, Put, RowResult, Scan, Table, TimeRange,
};
use ferrobase_gateway::request::{
    Partial, Request as DataRequest, Response as DataResponse, Write,
};

/// A parsed row spec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct RowSpec {
    pub row: Vec<u8>,
    /// Exclusive end of a range or glob; `None`: one row.
    pub end_row: Option<Vec<u8>>,
    /// `family` or `family:qualifier` each, sorted and unique as HBase's `TreeSet`.
    pub columns: Vec<Vec<u8>>,
    pub start_time: i64,
    pub end_time: i64,
    pub max_versions: u32,
}

fn bad_spec(what: &str) -> RestError {
    RestError::bad_request(format!("java.lang.IllegalArgumentException: {what}"))
}

impl RowSpec {
    /// `RowSpec(path, keyEncoding)`.
    pub fn parse(path: &str, key_encoding: Option<&str>) -> Result<RowSpec, RestError> {
        let path = path.trim_start_matches('/');
        let mut parts = path.splitn(3, '/');
        let keys = parts.next().unwrap_or_default();
        let cols = parts.next();
        let times = parts.next();
        let decode = |s: &str| percent_decode(s, true);
        let (start, end) = match keys.split_once(',') {
            Some((s, e)) => (decode(s), Some(decode(e))),
            None => (decode(keys), None),
        };
        if start.is_empty() && end.is_none() {
            return Err(bad_spec("invalid path: no row"));
        }
        let mut spec = RowSpec {
            row: start.clone(),
            end_row: end,
            columns: Vec::new(),
            start_time: 0,
            end_time: i64::MAX,
            max_versions: 1,
        };
        if start.last() == Some(&b'*') {
            if spec.end_row.is_some() {
                return Err(bad_spec("invalid path: start row specified with wildcard"));
            }
            let prefix = start.get(..start.len() - 1).unwrap_or_default().to_vec();
            let mut end = prefix.clone();
            end.push(0xff);
            spec.row = prefix;
            spec.end_row = Some(end);
        }
        if let Some(cols) = cols.filter(|c| !c.is_empty()) {
            for c in cols.split(',') {
                if c.is_empty() {
                    return Err(bad_spec("invalid path"));
                }
                spec.columns.push(decode(c));
            }
            spec.columns.sort();
            spec.columns.dedup();
        }
        if let Some(times) = times.filter(|t| !t.is_empty()) {
            let times = times.trim_end_matches('/');
            let num = |s: &str| -> Result<i64, RestError> {
                String::from_utf8_lossy(&decode(s))
                    .trim()
                    .parse()
                    .map_err(|_| bad_spec(&format!("java.lang.NumberFormatException: {s:?}")))
            };
            match times.split_once(',') {
                Some((a, b)) => {
                    let (t0, t1) = (num(a)?, num(b)?);
                    if t1 != 0 {
                        spec.start_time = t0;
                        spec.end_time = t1;
                    } else {
                        spec.end_time = t0;
                    }
                }
                None => spec.end_time = num(times)?,
            }
        }
        if let Some(enc) = key_encoding {
            let decode_key = |k: &[u8]| -> Result<Vec<u8>, RestError> {
                let s = String::from_utf8_lossy(k);
                match enc {
                    "b64" | "base64" | "b64url" | "base64url" => {
                        unb64(&s.replace('-', "+").replace('_', "/"))
                    }
                    "b64basic" | "base64basic" => unb64(&s),
                    other => Err(bad_spec(&format!("unknown key encoding '{other}'"))),
                }
            };
            spec.row = decode_key(&spec.row)?;
            if let Some(e) = &spec.end_row {
                spec.end_row = Some(decode_key(e)?);
            }
            spec.columns = spec
                .columns
                .iter()
                .map(|c| decode_key(c))
                .collect::<Result<_, _>>()?;
        }
        Ok(spec)
    }

    /// `hasTimestamp`: one timestamp (`/row/col/ts`), not a range.
    fn timestamp(&self) -> Option<i64> {
        (self.start_time == 0 && self.end_time != i64::MAX).then_some(self.end_time)
    }

    fn time_range(&self) -> Result<TimeRange, RestError> {
        TimeRange::new(self.start_time, self.end_time)
            .map_err(|e| RestError::bad_request(format!("java.lang.IllegalArgumentException: {e}")))
    }

    /// The engine's `Get` of this spec's row (`RowResultGenerator`).
    fn get(&self) -> Result<Get, RestError> {
        let mut g = Get::new(self.row.clone())
            .time_range(self.time_range()?)
            .max_versions(self.max_versions.max(1));
        for c in &self.columns {
            g = match split_column(c) {
                (f, None) => g.add_family(f.to_vec()),
                (f, Some(q)) => g.add_column(f.to_vec(), q.to_vec()),
            };
        }
        Ok(g)
    }

    /// The engine's `Scan` of this spec's range (`ScannerResultGenerator`).
    pub fn scan(&self) -> Result<Scan, RestError> {
        let mut s = Scan::new()
            .with_start_row(self.row.clone())
            .time_range(self.time_range()?)
            .max_versions(self.max_versions.max(1));
        if let Some(end) = self.end_row.as_ref().filter(|e| !e.is_empty()) {
            s = s.with_stop_row(end.clone());
        }
        for c in &self.columns {
            s = match split_column(c) {
                (f, None) => s.add_family(f.to_vec()),
                (f, Some(q)) => s.add_column(f.to_vec(), q.to_vec()),
            };
        }
        Ok(s)
    }
}

/// `CellUtil.parseColumn`: `family` or `family:qualifier` (split at the first `:`).
pub(super) fn split_column(c: &[u8]) -> (&[u8], Option<&[u8]>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (
            c.get(..i).unwrap_or_default(),
            Some(c.get(i + 1..).unwrap_or_default()),
        ),
        None => (c, None),
    }
}

fn table(door: &Door, name: &str) -> Result<Table, RestError> {
    door.engine.table(name).map_err(RestError::from)
}

/// A read's failure: a missing table or family reads as no row (HBase's generators log and
/// answer 404 `Not found`).
/// The rows a get request answered (the executor answers a get with rows).
fn rows_of(answer: DataResponse) -> Result<Vec<RowResult>, RestError> {
    match answer {
        DataResponse::Rows(rows) => Ok(rows),
        other => Err(RestError::new(
            500,
            format!("Internal error\r\na get was answered {other:?}"),
        )),
    }
}

fn read_error(e: EngineError) -> RestError {
    ferrobase_engine::error_class::note(e.class());
    match e {
        EngineError::TableNotFound(_) | EngineError::NoSuchColumnFamily { .. } => {
            RestError::not_found()
        }
        other => other.into(),
    }
}

/// The key encoding of row specs (`Encoding` header, else `?e=`).
fn key_encoding(req: &Request) -> Option<String> {
    req.header("Encoding")
        .map(str::to_string)
        .or_else(|| req.query_param("e"))
}

/// `/TABLE/ROWSPEC`.
pub(super) fn row(door: &Door, req: &Request, t: &str, spec: &str) -> Result<Response, RestError> {
    let mut spec = RowSpec::parse(spec, key_encoding(req).as_deref())?;
    if let Some(v) = req.query_param("v") {
        spec.max_versions = v
            .trim()
            .parse::<i32>()
            .map_err(|_| {
                bad_spec(&format!(
                    "java.lang.NumberFormatException: For input string: \"{v}\""
                ))
            })?
            .max(1) as u32;
    }
    if is(req, "GET") {
        return get(door, req, t, &spec);
    }
    if is(req, "PUT") || is(req, "POST") {
        return put(door, req, t, &spec);
    }
    if is(req, "DELETE") {
        return delete(door, req, t, &spec);
    }
    Err(method_not_allowed())
}

fn get(door: &Door, req: &Request, t: &str, spec: &RowSpec) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Binary, Repr::Xml, Repr::Json, Repr::Protobuf])?;
    if repr == Repr::Binary && spec.columns.len() != 1 {
        return Err(RestError::new(
            400,
            "Bad request: Default 'GET' method only works if there is exactly 1 column in the \
             row. Using the 'Accept' header with one of these formats lets you retrieve the \
             entire row if it has multiple columns: text/xml, application/json, \
             application/x-protobuf, application/protobuf",
        ));
    }
    table(door, t).map_err(|_| RestError::not_found())?;
    let rows: Vec<RowResult> = match &spec.end_row {
        None => {
            let request = DataRequest::Get {
                table: t.to_string(),
                gets: vec![spec.get()?],
                partial: Partial::Narrow,
            };
            rows_of(super::access::execute(door, req, request, read_error)?)?
        }
        Some(_) => {
            let mut out = Vec::new();
            let mut scanner = super::access::scanner(door, req, t, spec.scan()?, read_error)?;
            let mut bytes = 0usize;
            for r in scanner.by_ref() {
                let r = r.map_err(read_error)?;
                bytes = bytes.saturating_add(r.cells.iter().map(|c| c.heap_size()).sum());
                out.push(r);
                if bytes > door.opts.max_result_bytes {
                    return Err(RestError::bad_request(format!(
                        "the rows read hold more than {} bytes (--max-result-bytes); read \
                         them with a scanner",
                        door.opts.max_result_bytes
                    )));
                }
            }
            out
        }
    };
    let model = CellSetModel::of_results(&rows);
    let Some(first) = model.rows.first().and_then(|r| r.cells.first()) else {
        return Err(RestError::not_found());
    };
    if repr == Repr::Binary {
        let ts = first.timestamp.unwrap_or_default();
        return Ok(
            Response::new(200, Repr::Binary.content_type(), first.value.clone())
                .with_header("X-Timestamp", ts.to_string()),
        );
    }
    Ok(ok(req, repr, model.encode(repr)))
}

fn put(door: &Door, req: &Request, t: &str, spec: &RowSpec) -> Result<Response, RestError> {
    let repr = body_repr(req, &[Repr::Xml, Repr::Json, Repr::Protobuf, Repr::Binary])?;
    let puts = if repr == Repr::Binary {
        vec![binary_put(req, spec)?]
    } else {
        let model = CellSetModel::decode(repr, &req.body)?;
        if let Some(check) = req.query_param("check").filter(|c| !c.is_empty()) {
            let check = super::check::Check::parse(&check)?;
            let return_results = req
                .query_param("rr")
                .is_some_and(|r| r.eq_ignore_ascii_case("true"));
            table(door, t)?;
            let target = super::check::Target { door, name: t };
            return super::check::run(req, &target, check, &model, spec, return_results);
        }
        cell_set_puts(&model, spec)?
    };
    table(door, t)?;
    let request = DataRequest::Write {
        table: t.to_string(),
        write: Write::Mutations(puts.into_iter().map(Mutation::Put).collect()),
    };
    super::access::execute(door, req, request, RestError::from)?;
    Ok(Response::empty(200))
}

/// The column of a write: `family:qualifier`, refused otherwise as HBase does.
fn write_column(col: &[u8]) -> Result<(Vec<u8>, Vec<u8>), RestError> {
    match split_column(col) {
        (f, Some(q)) => Ok((f.to_vec(), q.to_vec())),
        (_, None) => Err(RestError::new(400, "Bad request")),
    }
}

fn add_cell(put: Put, col: &[u8], ts: Option<i64>, value: Vec<u8>) -> Result<Put, RestError> {
    let (f, q) = write_column(col)?;
    Ok(match ts.filter(|&t| t != i64::MAX) {
        Some(ts) => put.add_column_ts(f, q, ts, value),
        None => put.add_column(f, q, value),
    })
}

/// `RowResource.update`: each row's key (else the spec's), each cell's column (else the
/// spec's columns in turn).
fn cell_set_puts(model: &CellSetModel, spec: &RowSpec) -> Result<Vec<Put>, RestError> {
    let mut puts = Vec::with_capacity(model.rows.len());
    for RowModel { key, cells } in &model.rows {
        let key = key.clone().unwrap_or_else(|| spec.row.clone());
        let mut put = Put::new(key);
        let mut next_spec_column = spec.columns.iter();
        for c in cells {
            let col = match &c.column {
                Some(col) => col.clone(),
                None => next_spec_column
                    .next()
                    .cloned()
                    .ok_or_else(|| RestError::new(400, "Bad request: Column found to be null."))?,
            };
            put = add_cell(put, &col, c.timestamp, c.value.clone())?;
        }
        if put.cells.is_empty() {
            return Err(RestError::bad_request(
                "java.lang.IllegalArgumentException: No columns to insert",
            ));
        }
        puts.push(put);
    }
    Ok(puts)
}

/// `RowResource.updateBinary`: the body is the value; row, column and timestamp from the spec
/// or the `X-Row`, `X-Column`, `X-Timestamp` headers.
fn binary_put(req: &Request, spec: &RowSpec) -> Result<Put, RestError> {
    let row = req
        .header("X-Row")
        .map(|r| r.as_bytes().to_vec())
        .unwrap_or_else(|| spec.row.clone());
    let column = req
        .header("X-Column")
        .map(|c| c.as_bytes().to_vec())
        .or_else(|| spec.columns.first().cloned())
        .ok_or_else(|| RestError::new(400, "Bad request: Column found to be null."))?;
    let ts = match req.header("X-Timestamp") {
        Some(t) => Some(t.trim().parse::<i64>().map_err(|_| {
            RestError::bad_request(format!(
                "java.lang.NumberFormatException: For input string: \"{t}\""
            ))
        })?),
        None => None,
    };
    add_cell(Put::new(row), &column, ts, req.body.clone())
}

/// `RowResource.delete`: the row, or its families and columns (every version, at or below the
/// spec's timestamp when it has one).
fn delete(door: &Door, req: &Request, t: &str, spec: &RowSpec) -> Result<Response, RestError> {
    let ts = spec.timestamp();
    let mut d = match ts {
        Some(ts) if spec.columns.is_empty() => Delete::with_timestamp(spec.row.clone(), ts),
        _ => Delete::new(spec.row.clone()),
    };
    for c in &spec.columns {
        d = match (split_column(c), ts) {
            ((f, None), Some(ts)) => d.add_family_ts(f.to_vec(), ts),
            ((f, None), None) => d.add_family(f.to_vec()),
            ((f, Some(q)), Some(ts)) => d.add_columns_ts(f.to_vec(), q.to_vec(), ts),
            ((f, Some(q)), None) => d.add_columns(f.to_vec(), q.to_vec()),
        };
    }
    table(door, t)?;
    let request = DataRequest::Write {
        table: t.to_string(),
        write: Write::Mutations(vec![Mutation::Delete(d)]),
    };
    super::access::execute(door, req, request, RestError::from)?;
    Ok(Response::empty(200))
}

/// `/TABLE/multiget[/COLUMNS]?row=SPEC&row=SPEC[&v=N][&filter=...]`.
pub(super) fn multiget(
    door: &Door,
    req: &Request,
    t: &str,
    columns: &str,
) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let versions = match req.query_param("v") {
        Some(v) => Some(v.trim().parse::<i32>().map_err(|_| {
            bad_spec(&format!(
                "java.lang.NumberFormatException: For input string: \"{v}\""
            ))
        })?),
        None => None,
    };
    let filter = match (req.query_param("filter_b64"), req.query_param("filter")) {
        (Some(b), _) => Some(unb64(&b.replace('-', "+").replace('_', "/"))?),
        (None, Some(f)) => Some(f.into_bytes()),
        (None, None) => None,
    };
    let enc = key_encoding(req);
    // A missing table is a 404 before any check (HBase's region lookup fails first).
    table(door, t)?;
    let mut gets = Vec::new();
    for rk in req.query_all("row") {
        let mut spec = RowSpec::parse(&rk, enc.as_deref())?;
        if let Some(v) = versions {
            spec.max_versions = v.max(1) as u32;
        }
        for c in columns.split(',').filter(|c| !c.is_empty()) {
            spec.columns.push(c.as_bytes().to_vec());
        }
        let mut g = spec.get()?;
        if let Some(f) = &filter {
            g = g.filter(parse_filter(f).map_err(|e| {
                RestError::bad_request(format!("java.lang.IllegalArgumentException: {e}"))
            })?);
        }
        gets.push(g);
    }
    let request = DataRequest::Get {
        table: t.to_string(),
        gets,
        partial: Partial::Narrow,
    };
    let rows = rows_of(super::access::execute(door, req, request, RestError::from)?)?;
    let model = CellSetModel::of_results(&rows);
    if model.rows.is_empty() {
        return Err(RestError::new(404, "No rows found."));
    }
    Ok(ok(req, repr, model.encode(repr)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn row_specs_parse_as_hbase_s() {
        let s = RowSpec::parse("r1/cf:a,cf:b/5", None).unwrap();
        assert_eq!(s.row, b"r1");
        assert_eq!(s.columns, vec![b"cf:a".to_vec(), b"cf:b".to_vec()]);
        assert_eq!(s.timestamp(), Some(5));
        let s = RowSpec::parse("a%20b+c*", None).unwrap();
        assert_eq!(s.row, b"a b c");
        assert_eq!(s.end_row, Some(b"a b c\xff".to_vec()));
        let s = RowSpec::parse("r/cf/1,9", None).unwrap();
        assert_eq!((s.start_time, s.end_time, s.timestamp()), (1, 9, None));
        assert_eq!(RowSpec::parse("r/cf/x", None).unwrap_err().status, 400);
        assert_eq!(RowSpec::parse("cjE=", Some("b64")).unwrap().row, b"r1");
        assert_eq!(RowSpec::parse("r", Some("rot13")).unwrap_err().status, 400);
    }
}
