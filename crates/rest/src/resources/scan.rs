//! `ScannerResource` (`POST /TABLE/scanner`: open a scanner), `ScannerInstanceResource`
//! (`GET /TABLE/scanner/ID`: the next cells, 204 when done; `DELETE`) and `TableScanResource`
//! (`GET /TABLE/PREFIX*` and `/TABLE/*`: a stateless scan with query parameters).

use super::rows::{split_column, RowSpec};
use super::table::absolute;
use super::{is, method_not_allowed, ok};
use crate::error::RestError;
use crate::http::{BodyPiece, Request, Response};
use crate::media::{answer_type, body_repr, negotiate, Repr};
use crate::model::{
    b64, column_of, filter_text, unb64, CellModel, CellSetModel, RowModel, ScannerModel,
};
use crate::scanners::OpenScanner;
use crate::server::{now_ms, Door};
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::{Error as EngineError, ResultScanner, Scan, TimeRange};
use ferrobase_gateway::request::{
    Failure, Partial, Request as DataRequest, Response as DataResponse,
};

/// Rows the stateless scan's protobuf answer puts in one length-prefixed chunk
/// (`hbase.rest.scan.fetchsize`, 10).
const FETCH_SIZE: usize = 10;

fn parse_error(e: impl std::fmt::Display) -> RestError {
    RestError::bad_request(format!("java.lang.IllegalArgumentException: {e}"))
}

/// `POST` (or `PUT`) `/TABLE/scanner`: 201 with the new scanner's `Location`.
pub(super) fn create_scanner(door: &Door, req: &Request, t: &str) -> Result<Response, RestError> {
    if !(is(req, "POST") || is(req, "PUT")) {
        return Err(method_not_allowed());
    }
    let model = ScannerModel::decode(
        body_repr(req, &[Repr::Xml, Repr::Json, Repr::Protobuf])?,
        &req.body,
    )?;
    if !model.labels.is_empty() {
        return Err(RestError::bad_request(
            "visibility labels are not supported by ferrobase (docs/design/rest.md)",
        ));
    }
    let spec = RowSpec {
        row: model.start_row.clone(),
        end_row: Some(model.end_row.clone()),
        columns: model.columns.clone(),
        start_time: model.start_time,
        end_time: model.end_time,
        max_versions: u32::try_from(model.max_versions.max(1)).unwrap_or(u32::MAX),
    };
    let mut scan = spec.scan()?;
    if let Some(f) = model.filter.as_deref().filter(|f| !f.trim().is_empty()) {
        scan = scan.filter(parse_filter(&filter_text(f)?).map_err(parse_error)?);
    }
    // A missing table opens a scanner all the same, as HBase's does: its first GET is a 404
    // (HBase's region lookup fails before any check, so nothing is checked for it). An
    // existing table's read is narrowed to what the user may read.
    // (`Engine::table` hands out a handle without looking, so existence is asked first; a table
    // dropped in between is missing too.)
    let scanner = if door.engine.admin().table_exists(t).unwrap_or(false) {
        let request = DataRequest::Scan {
            table: t.to_string(),
            scan,
            partial: Partial::Narrow,
        };
        match super::access::run(door, req, request) {
            Ok(DataResponse::Scanner(s)) => Some(*s),
            Ok(other) => {
                return Err(RestError::new(
                    500,
                    format!("Internal error\r\na scan was answered {other:?}"),
                ))
            }
            Err(Failure::Engine(EngineError::TableNotFound(_))) => None,
            Err(Failure::Engine(e)) => return Err(e.into()),
            Err(Failure::Denied(d)) => return Err(super::access::forbidden(d)),
        }
    } else {
        None
    };
    let batch = usize::try_from(model.batch.max(1)).unwrap_or(usize::MAX);
    let id = door.scanners.insert(
        OpenScanner::new(scanner, batch, super::access::scanner_owner(door, req)),
        door.started_ms.max(now_ms()),
    )?;
    let location = absolute(
        door,
        req,
        &format!("{}/{id}", req.path.trim_end_matches('/')),
    );
    Ok(Response::empty(201).with_header("Location", location))
}

/// `/TABLE/scanner/ID`.
pub(super) fn scanner_instance(
    door: &Door,
    req: &Request,
    id: &str,
) -> Result<Response, RestError> {
    if let Some(s) = door.scanners.get(id) {
        let owner = s.lock().unwrap_or_else(|p| p.into_inner()).owner.clone();
        super::access::use_scanner(door, req, owner.as_deref())?;
    }
    if is(req, "DELETE") {
        return if door.scanners.remove(id) {
            Ok(Response::empty(200))
        } else {
            Err(RestError::not_found())
        };
    }
    if !is(req, "GET") {
        return Err(method_not_allowed());
    }
    let repr = negotiate(req, &[Repr::Binary, Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let scanner = door.scanners.get(id).ok_or_else(RestError::not_found)?;
    let mut s = scanner.lock().unwrap_or_else(|p| p.into_inner());
    if repr == Repr::Binary {
        let Some(cell) = s.next_cell()? else {
            return Ok(Response::empty(204));
        };
        return Ok(
            Response::new(200, Repr::Binary.content_type(), cell.value().to_vec())
                .with_header("Cache-Control", "no-cache")
                .with_header("X-Row", b64(cell.row()))
                .with_header("X-Column", b64(&column_of(&cell)))
                .with_header("X-Timestamp", cell.timestamp().to_string()),
        );
    }
    let num = |name: &str| -> Result<i64, RestError> {
        match req.query_param(name) {
            Some(v) => v.trim().parse().map_err(|_| RestError::not_found()),
            None => Ok(0),
        }
    };
    let mut max_rows = num("n")?;
    let max_values = num("c")?;
    let limit = if max_values > 0 {
        usize::try_from(max_values).unwrap_or(usize::MAX)
    } else {
        s.batch
    };
    let mut model = CellSetModel::default();
    let mut row: Option<RowModel> = None;
    let mut bytes = 0usize;
    let mut count = limit;
    loop {
        let Some(cell) = s.next_cell()? else {
            if count == limit {
                return Ok(Response::empty(204));
            }
            break;
        };
        if let Some(r) = &row {
            if r.key.as_deref() != Some(cell.row()) {
                if max_rows > 0 {
                    max_rows -= 1;
                    if max_rows == 0 {
                        s.put_back(cell);
                        break;
                    }
                }
                model.rows.extend(row.take());
            }
        }
        let r = row.get_or_insert_with(|| RowModel {
            key: Some(cell.row().to_vec()),
            cells: Vec::new(),
        });
        bytes = bytes.saturating_add(cell.heap_size());
        r.cells.push(CellModel {
            column: Some(column_of(&cell)),
            timestamp: Some(cell.timestamp()),
            value: cell.value().to_vec(),
        });
        count -= 1;
        if count == 0 || bytes >= door.opts.max_result_bytes {
            break;
        }
    }
    model.rows.extend(row);
    Ok(ok(req, repr, model.encode(repr)).with_header("Cache-Control", "no-cache"))
}

/// `GET /TABLE/SPEC*`: `TableResource.getScanResource` and `TableScanResource`.
pub(super) fn table_scan(
    door: &Door,
    req: &Request,
    t: &str,
    spec: &str,
) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let num = |name: &str, default: i64| -> Result<i64, RestError> {
        match req.query_param(name) {
            Some(v) => v.trim().parse().map_err(|_| {
                RestError::new(
                    404,
                    format!("Not found\r\nquery parameter {name}={v:?} is not a number"),
                )
            }),
            None => Ok(default),
        }
    };
    let limit = num("limit", i64::from(i32::MAX))?;
    let max_versions = num("maxversions", 1)?;
    let batch = num("batchsize", -1)?;
    let start_time = num("starttime", 0)?;
    let end_time = num("endtime", i64::MAX)?;
    let reversed = req
        .query_param("reversed")
        .is_some_and(|r| r.eq_ignore_ascii_case("true"));
    let start_row = req.query_param("startrow").unwrap_or_default();
    let end_row = req.query_param("endrow").unwrap_or_default();
    let prefix = crate::http::percent_decode(spec.get(..spec.len() - 1).unwrap_or_default(), false);
    let mut scan = Scan::new()
        .reversed(reversed)
        .max_versions(u32::try_from(max_versions.max(1)).unwrap_or(u32::MAX))
        .time_range(TimeRange::new(start_time, end_time).map_err(parse_error)?);
    if !start_row.is_empty() {
        scan = scan.with_start_row(start_row.into_bytes());
    } else if !prefix.is_empty() {
        scan = scan.with_start_row(prefix.clone());
    }
    if !end_row.is_empty() {
        scan = scan.with_stop_row(end_row.into_bytes());
    }
    if batch > 0 {
        scan = scan.batch(usize::try_from(batch).unwrap_or(usize::MAX));
    }
    for c in req.query_all("column") {
        let c = c.trim().as_bytes().to_vec();
        scan = match split_column(&c) {
            (f, None) => scan.add_family(f.to_vec()),
            (f, Some(q)) => scan.add_column(f.to_vec(), q.to_vec()),
        };
    }
    let mut filter: Vec<u8> = match (req.query_param("filter_b64"), req.query_param("filter")) {
        (Some(b), _) => unb64(&b.replace('-', "+").replace('_', "/"))?,
        (None, Some(f)) => f.into_bytes(),
        (None, None) => Vec::new(),
    };
    if !prefix.is_empty() {
        let mut p = b"PrefixFilter('".to_vec();
        for &b in &prefix {
            if b == b'\'' {
                p.push(b'\'');
            }
            p.push(b);
        }
        p.extend_from_slice(b"')");
        filter = if filter.is_empty() {
            p
        } else {
            let mut both = b"(".to_vec();
            both.extend_from_slice(&filter);
            both.extend_from_slice(b") AND ");
            both.extend_from_slice(&p);
            both
        };
    }
    if !filter.is_empty() {
        scan = scan.filter(parse_filter(&filter).map_err(parse_error)?);
    }
    door.engine.table(t)?;
    let scanner = super::access::scanner(door, req, t, scan, RestError::from)?;
    let limit = usize::try_from(limit.max(0)).unwrap_or(usize::MAX);
    Ok(stream_rows(req, repr, scanner, limit))
}

/// `TableScanResource`'s answer, streamed as HBase streams it: JSON and XML as one CellSet
/// written a row at a time, protobuf as CellSets of up to ten rows each after its length as a
/// big-endian 16-bit number (`ProtobufStreamingOutput`). At most `limit` rows; memory is one
/// batch of rows whatever the table's size.
fn stream_rows(req: &Request, repr: Repr, mut scanner: ResultScanner, limit: usize) -> Response {
    let (head, tail): (Vec<u8>, Vec<u8>) = match repr {
        Repr::Json => (b"{\"Row\":[".to_vec(), b"]}".to_vec()),
        Repr::Xml => {
            let mut w = crate::xml::Writer::document();
            w.open("CellSet", &[], false);
            (w.finish(), b"</CellSet>".to_vec())
        }
        _ => (Vec::new(), Vec::new()),
    };
    let mut left = limit;
    let mut first = true;
    let mut tail = Some(tail);
    let stream = move || -> BodyPiece {
        if left == 0 {
            return tail.take().map(Ok);
        }
        let rows = match scanner.next_batch(FETCH_SIZE.min(left)) {
            Ok(rows) => rows,
            Err(e) => return Some(Err(e.to_string())),
        };
        if rows.is_empty() {
            left = 0;
            return tail.take().map(Ok);
        }
        left -= rows.len();
        let model = CellSetModel::of_results(&rows);
        let mut out = Vec::new();
        match repr {
            Repr::Json => {
                for r in &model.rows {
                    if !first {
                        out.push(b',');
                    }
                    first = false;
                    out.extend_from_slice(r.to_json().as_bytes());
                }
            }
            Repr::Xml => {
                let mut w = crate::xml::Writer::fragment();
                for r in &model.rows {
                    r.write_xml(&mut w);
                }
                out = w.finish();
            }
            _ => {
                let bytes = model.encode(Repr::Protobuf);
                let Ok(len) = u16::try_from(bytes.len()) else {
                    return Some(Err(format!(
                        "{} rows encode to {} bytes, more than the 16-bit length of HBase's \
                         protobuf scan stream can say",
                        model.rows.len(),
                        bytes.len()
                    )));
                };
                out.extend_from_slice(&len.to_be_bytes());
                out.extend_from_slice(&bytes);
            }
        }
        Some(Ok(out))
    };
    Response::streamed(answer_type(req, repr), head, Box::new(stream))
}
