//! `Scan`: open, next and close by scanner id; a scan reads only its region's rows, so the
//! client moves region by region as on HBase.

use super::reads::{columns, filter, meta_rows, refuse_unserved_read, select, time_range};
use super::results::encode_results;
use crate::cellblock::Codec;
use crate::error::{RpcError, UNKNOWN_SCANNER};
use crate::proto::client::{Cursor, Scan as PbScan, ScanRequest, ScanResponse};
use crate::regions::{self, Region, Target};
use crate::scanners::{self, NextRead, OpenScanner, Refused, Settings, Source};
use crate::services::{Ctx, Reply};
use ferrobase_engine::call_budget::{self, Heartbeat};
use ferrobase_engine::{Cell, ResultScanner, RowResult, Scan, ScanBatch};
use ferrobase_gateway::access::Operation;
use ferrobase_gateway::catalog;
use ferrobase_gateway::request::{Partial, Request, Response};
use std::cmp::Ordering;
use std::time::{Duration, Instant};

/// The engine's scan of `s`, limited to `region`'s rows.
pub(super) fn engine_scan(s: &PbScan, region: Option<&Region>) -> Result<Scan, RpcError> {
    refuse_unserved_read(s.store_limit, s.store_offset, s.cf_time_range.len())?;
    let mut scan = Scan::new();
    scan.reversed = s.reversed.unwrap_or(false);
    scan.start_row = s.start_row.clone().unwrap_or_default();
    scan.start_inclusive = s.include_start_row.unwrap_or(true);
    scan.stop_row = s.stop_row.clone().unwrap_or_default();
    scan.stop_inclusive = s.include_stop_row.unwrap_or(false);
    scan.spec.columns = columns(&s.column);
    scan.spec.time_range = time_range(s.time_range.as_ref());
    scan.spec.max_versions = s.max_versions.unwrap_or(1).max(1);
    scan.spec.filter = filter(s.filter.as_ref())?;
    scan.batch = s.batch_size.filter(|&b| b > 0).map(|b| b as usize);
    scan.allow_partial_results = s.allow_partial_results.unwrap_or(false);
    // With partial results allowed, one result holds at most this many bytes of a row.
    scan.max_result_size = s
        .max_result_size
        .filter(|&m| m > 0)
        .map(|m| m.min(usize::MAX as u64) as usize);
    // The read point an earlier scanner of this scan answered: the client passes it back when
    // it reopens the scanner in the same region (after an expired lease or a split).
    scan.read_point = s.mvcc_read_point.filter(|&p| p > 0);
    if let Some(r) = region {
        clamp(&mut scan, r);
    }
    Ok(scan)
}

/// Limits a scan to a region: forward from the region's start to its end, reversed from its
/// end down to its start.
pub(super) fn clamp(scan: &mut Scan, r: &Region) {
    if !scan.reversed {
        if scan.start_row.as_slice() < r.start.as_slice() {
            scan.start_row = r.start.clone();
            scan.start_inclusive = true;
        }
        if !r.end.is_empty()
            && (scan.stop_row.is_empty()
                || r.end.as_slice() < scan.stop_row.as_slice()
                || (r.end == scan.stop_row && scan.stop_inclusive))
        {
            scan.stop_row = r.end.clone();
            scan.stop_inclusive = false;
        }
    } else {
        if !r.end.is_empty()
            && (scan.start_row.is_empty() || scan.start_row.as_slice() >= r.end.as_slice())
        {
            scan.start_row = r.end.clone();
            scan.start_inclusive = false;
        }
        if !r.start.is_empty()
            && (scan.stop_row.is_empty() || scan.stop_row.as_slice() < r.start.as_slice())
        {
            scan.stop_row = r.start.clone();
            scan.stop_inclusive = true;
        }
    }
}

/// Whether a meta row lies in a scan's range (meta order).
pub(super) fn in_meta_range(row: &[u8], s: &PbScan) -> bool {
    let start = s.start_row.as_deref().unwrap_or_default();
    let stop = s.stop_row.as_deref().unwrap_or_default();
    let start_incl = s.include_start_row.unwrap_or(true);
    let stop_incl = s.include_stop_row.unwrap_or(false);
    let cmp = |a: &[u8], b: &[u8]| catalog::compare_meta_rows(a, b);
    if !s.reversed.unwrap_or(false) {
        let after_start = start.is_empty()
            || match cmp(row, start) {
                Ordering::Greater => true,
                Ordering::Equal => start_incl,
                Ordering::Less => false,
            };
        let before_stop = stop.is_empty()
            || match cmp(row, stop) {
                Ordering::Less => true,
                Ordering::Equal => stop_incl,
                Ordering::Greater => false,
            };
        after_start && before_stop
    } else {
        let below_start = start.is_empty()
            || match cmp(row, start) {
                Ordering::Less => true,
                Ordering::Equal => start_incl,
                Ordering::Greater => false,
            };
        let above_stop = stop.is_empty()
            || match cmp(row, stop) {
                Ordering::Greater => true,
                Ordering::Equal => stop_incl,
                Ordering::Less => false,
            };
        below_start && above_stop
    }
}

/// The time limit of a scan call whose client handles heartbeats, as HBase's
/// `RSRpcServices.getTimeLimit`: half the shorter of the scanner lease and the call's time left
/// (its budget: the client's timeout for the call, or `--max-read-time`), at least 10 ms
/// (`hbase.region.server.rpc.minimum.scan.time.limit.delta`).
fn heartbeat_deadline(shared: &crate::state::Shared) -> Instant {
    let lease = shared.opts.scanner_lease;
    let limit = match call_budget::remaining() {
        Some(left) => lease.min(left.max(MIN_SCAN_TIME_LIMIT)),
        None => lease,
    };
    Instant::now() + (limit / 2).max(MIN_SCAN_TIME_LIMIT)
}

/// HBase's `hbase.region.server.rpc.minimum.scan.time.limit.delta` default.
const MIN_SCAN_TIME_LIMIT: Duration = Duration::from_millis(10);

pub(super) fn scan(ctx: &Ctx, req: ScanRequest) -> Result<Reply, RpcError> {
    let shared = &ctx.shared;
    let opened = req.scanner_id.is_none();
    let id = match req.scanner_id {
        None => {
            let pb = req
                .scan
                .as_ref()
                .ok_or_else(|| RpcError::bad_request("Scan without a scan or a scanner id"))?;
            let source = match regions::resolve(shared, req.region.as_ref())? {
                Target::Meta => {
                    ctx.authorize(&Operation::Catalog)?;
                    let sel = columns(&pb.column);
                    let mut rows: Vec<RowResult> = meta_rows(ctx)?
                        .into_iter()
                        .filter(|r| in_meta_range(r.row(), pb))
                        .map(|r| select(r, &sel))
                        .filter(|r| !r.is_empty())
                        .collect();
                    if pb.reversed.unwrap_or(false) {
                        rows.reverse();
                    }
                    if pb.filter.is_some() {
                        return Err(RpcError::unsupported(
                            "a filtered scan of hbase:meta is not supported by ferrobase",
                        ));
                    }
                    Source::Rows(rows.into())
                }
                Target::Region(region) => {
                    let request = Request::Scan {
                        table: region.table.clone(),
                        scan: engine_scan(pb, Some(&region))?,
                        partial: Partial::Narrow,
                    };
                    match ctx.execute(request)? {
                        Response::Scanner(s) => Source::Table(s),
                        other => {
                            return Err(RpcError::bad_request(format!(
                                "a scan was answered {other:?}"
                            )))
                        }
                    }
                }
            };
            let limit = req.limit_of_rows.unwrap_or(0) as usize;
            let whole_rows = pb.batch_size.unwrap_or(0) == 0
                && !pb.allow_partial_results.unwrap_or(false)
                && matches!(source, Source::Table(_));
            let max_row_size = whole_rows.then_some(shared.opts.max_row_size);
            let max_bytes = pb
                .max_result_size
                .filter(|&m| m > 0)
                .map_or(shared.opts.max_result_bytes, |m| {
                    (m.min(usize::MAX as u64) as usize).min(shared.opts.max_result_bytes)
                });
            let settings = Settings {
                limit,
                max_bytes,
                max_row_size,
                owner: ctx.user().to_string(),
                need_cursor: pb.need_cursor_result.unwrap_or(false),
            };
            shared
                .scanners
                .open(source, settings, ctx.connection)
                .map_err(refused)?
        }
        // A scanner's later call: only its owner's (HBase's requireScannerOwner).
        Some(id) => {
            match shared.scanners.owner(id) {
                Some(owner) => ctx.authorize(&Operation::UseScanner {
                    owner: Some(owner.to_string()),
                })?,
                // Not open: answered below, nothing read.
                None => ctx.authorize(&Operation::Catalog)?,
            };
            id
        }
    };
    let Some(scanner) = shared.scanners.get(id) else {
        if req.close_scanner.unwrap_or(false) {
            return Ok(Reply::pb(&ScanResponse {
                scanner_id: Some(id),
                more_results: Some(false),
                ..ScanResponse::default()
            }));
        }
        return Err(RpcError::fatal(
            UNKNOWN_SCANNER,
            format!(
                "Unknown scanner '{id}'. This can happen due to any of the following reasons: \
                 a) Scanner id given is wrong, b) Scanner lease expired because of long wait \
                 between consecutive client checkins, c) Server may be closing down, d) \
                 RegionServer restart during upgrade.\nIf the issue is due to reason (b), a \
                 possible fix would be increasing the value of \
                 'hbase.client.scanner.timeout.period' configuration."
            ),
        ));
    };
    let asked = req.number_of_rows.unwrap_or(0) as usize;
    if req.close_scanner.unwrap_or(false) && asked == 0 {
        // Closed at once: a read ahead for it stops rather than finish for nobody.
        shared.scanners.close(id);
    }
    // A call or a read ahead that panicked on it left the scanner somewhere: it cannot go on.
    let Ok(mut open) = scanner.lock() else {
        shared.scanners.close(id);
        return Err(scanner_reset(
            id,
            "a read of it failed (see the server's log)",
        ));
    };
    let within_limit = |open: &OpenScanner| match open.limit {
        0 => asked,
        limit => asked.min(limit.saturating_sub(open.returned)),
    };
    let want = within_limit(&open);
    let max_bytes = open.max_bytes;
    // A client that takes heartbeats and partial results (HBase's client always does) gets
    // the rows read by the time limit, and asks again.
    let heartbeats = req.client_handles_heartbeats.unwrap_or(false)
        && req.client_handles_partials.unwrap_or(false);
    let batch = if want > 0 {
        let _deadline = Heartbeat::start(heartbeats.then(|| heartbeat_deadline(shared)));
        match open.next_batch(want, max_bytes) {
            Ok(batch) => batch,
            // The read may have passed rows it did not return: the scanner cannot go on from
            // where the client thinks it is. Closed, as HBase's `RSRpcServices.scan` closes it;
            // a later call is told to reopen from the row after its last (a retry of this one
            // would skip the rows lost).
            Err(e) => {
                drop(open);
                shared.scanners.close(id);
                if opened {
                    return Err(e.into());
                }
                let e = RpcError::from(e);
                return Err(scanner_reset(id, &format!("{}: {}", e.class, e.message)));
            }
        }
    } else {
        ScanBatch::default()
    };
    // The first answer names the read point, which the client passes back if it must reopen
    // the scanner in this region.
    let read_point = if opened {
        open.source.read_point()
    } else {
        None
    };
    let cursor = (batch.heartbeat && open.need_cursor)
        .then(|| batch.cursor.map(|row| Cursor { row: Some(row) }))
        .flatten();
    let (rows, heartbeat) = (batch.rows, batch.heartbeat);
    if let Some(max) = open.max_row_size {
        if let Some(big) = rows
            .iter()
            .find(|r| r.cells.iter().map(Cell::heap_size).sum::<usize>() > max)
        {
            drop(open);
            shared.scanners.close(id);
            return Err(ferrobase_engine::Error::RowTooBig {
                row: String::from_utf8_lossy(big.row()).into_owned(),
                limit: max,
            }
            .into());
        }
    }
    // Fewer rows than asked, under the byte limit and not in the middle of a row: the region
    // has no more.
    let exhausted = !heartbeat && ResultScanner::batch_found_end(&rows, want, max_bytes);
    let (rows, limit_reached) = count_rows(&mut open, rows);
    let closing = req.close_scanner.unwrap_or(false) || exhausted || limit_reached;
    // From the second full batch in a row, the next is read on a worker while this one is
    // encoded and answered, for a call asking as this one did (`scanners::read_ahead`).
    let next_rows = within_limit(&open);
    // What a scanner holds ahead stays small (whole rows read up to the cap; pieces of rows
    // only where the call's own byte limit is below it, so they are cut where the call would
    // cut them) and leaves most of the in-flight memory to the calls.
    let cap = ferrobase_gateway::read_ahead::MAX_BATCH_BYTES;
    let read_ahead = want > 0
        && open.answered(!heartbeat && !exhausted)
        && !closing
        && next_rows > 0
        && (max_bytes <= cap || open.max_row_size.is_some())
        && ResultScanner::batch_bytes(&rows) <= cap
        && shared.inflight.load(std::sync::atomic::Ordering::Acquire)
            < shared.opts.max_inflight_memory / 2
        && shared.read_ahead.wanted();
    if read_ahead {
        let next = NextRead {
            rows: next_rows,
            max_bytes: max_bytes.min(cap),
            heartbeat_after: heartbeats
                .then(|| heartbeat_deadline(shared).saturating_duration_since(Instant::now())),
        };
        scanners::read_ahead(&shared.read_ahead, &open, &scanner, next);
    }
    drop(open);
    let mut out = Vec::new();
    let results = encode_results(ctx.codec, &rows, &mut out);
    if closing {
        shared.scanners.close(id);
    }
    let (cells_per_result, results) = if ctx.codec == Codec::None {
        (Vec::new(), results)
    } else {
        (
            results
                .iter()
                .map(|r| r.associated_cell_count.unwrap_or(0) as u32)
                .collect(),
            Vec::new(),
        )
    };
    Ok(Reply::with_cells(
        &ScanResponse {
            cells_per_result,
            scanner_id: Some(id),
            more_results: Some(!limit_reached),
            ttl: Some(shared.opts.scanner_lease.as_millis() as u32),
            results,
            stale: Some(false),
            partial_flag_per_result: rows
                .iter()
                .map(|r| r.may_have_more_cells_in_row())
                .collect(),
            more_results_in_region: Some(!(exhausted || limit_reached)),
            heartbeat_message: heartbeat.then_some(true),
            scan_metrics: None,
            mvcc_read_point: read_point,
            cursor,
        },
        out,
    ))
}

/// Counts the complete rows among `rows` against the scanner's limit as HBase's
/// `RSRpcServices.scan` does, and keeps the results up to the limit. A result flagged as going
/// on leaves its row open; the row is complete at its last piece, or when a result of another row
/// follows (the rest of the open row was filtered out), and a limit reached that way returns
/// nothing of the other row.
fn count_rows(open: &mut OpenScanner, rows: Vec<RowResult>) -> (Vec<RowResult>, bool) {
    let reached = |open: &OpenScanner| open.limit > 0 && open.returned >= open.limit;
    let mut kept = Vec::with_capacity(rows.len());
    for r in rows {
        if open.partial_row.as_deref().is_some_and(|p| p != r.row()) {
            open.partial_row = None;
            open.returned += 1;
            if reached(open) {
                return (kept, true);
            }
        }
        if r.may_have_more_cells_in_row() {
            open.partial_row = Some(r.row().to_vec());
        } else {
            open.partial_row = None;
            open.returned += 1;
        }
        kept.push(r);
        if reached(open) {
            return (kept, true);
        }
    }
    (kept, false)
}

/// HBase's `ScannerResetException` for scanner `id`, closed because of `why`: its client
/// reopens the scan from the row after the last it got.
fn scanner_reset(id: u64, why: &str) -> RpcError {
    RpcError::fatal(
        "org.apache.hadoop.hbase.exceptions.ScannerResetException",
        format!("Scanner is closed on the server-side (scanner {id}; {why})"),
    )
}

/// A scanner not opened: the server's limit may clear as other clients close theirs (the
/// client retries); the connection's only when it closes its own (it does not).
fn refused(r: Refused) -> RpcError {
    match r {
        Refused::Server(max) => RpcError::retry(
            "java.io.IOException",
            format!(
                "the server holds its maximum of {max} open scanners; close scanners or try \
                 again later"
            ),
        ),
        Refused::Connection(max) => RpcError::unsupported(format!(
            "Too many open scanners on this connection: it holds {max} \
             (--max-scanners-per-connection); close some ResultScanners before opening more"
        )),
    }
}
