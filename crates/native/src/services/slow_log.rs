//! `AdminService.GetLogEntries` for the slow log (HBase's `Admin.getLogEntries`, what its
//! shell's `get_slowlog_responses` calls on each region server): the calls every door of the
//! server kept as slower than `--slow-ms` (`ferrobase_gateway::slow_log`), newest first,
//! filtered and limited as HBase's region server does (`LogHandlerUtils`: table, user, client
//! address and region name, joined by OR unless AND; a limit, default 10). ferrobase records no
//! client address or region, so those conditions match no call. Large logs (`LARGE_LOG`) are
//! none: ferrobase keeps calls by time only. The call's explain line is its `param`.

use super::{decode, Ctx, Reply};
use crate::error::RpcError;
use crate::proto::too_slow_log::*;
use ferrobase_gateway::slow_log::SlowCall;
use prost::Message;

/// The class of the request HBase's client sends.
const REQUEST_CLASS: &str = "SlowLogResponseRequest";

/// The class of the answer, which HBase's client loads to parse it.
const RESPONSE_CLASS: &str =
    "org.apache.hadoop.hbase.shaded.protobuf.generated.AdminProtos$SlowLogResponses";

/// `GetLogEntries(LogRequest)`.
pub(super) fn get_log_entries(ctx: &Ctx, param: &[u8]) -> Result<Reply, RpcError> {
    let req: LogRequest = decode(param, "GetLogEntries")?;
    let class = req.log_class_name.unwrap_or_default();
    if !class.ends_with(REQUEST_CLASS) {
        return Err(RpcError::unsupported(format!(
            "AdminService.GetLogEntries: log class {class:?} is not served (ferrobase keeps a \
             slow log only)"
        )));
    }
    let filter: SlowLogResponseRequest = decode(
        &req.log_message.unwrap_or_default(),
        "SlowLogResponseRequest",
    )?;
    let calls = match (&ctx.shared.opts.slow_log, filter.log_type.unwrap_or(0)) {
        (Some(log), 0) => log.entries(),
        _ => Vec::new(),
    };
    let limit = filter.limit.unwrap_or(10) as usize;
    let payloads = calls
        .iter()
        .rev()
        .filter(|c| keeps(&filter, c))
        .take(limit)
        .map(payload)
        .collect();
    let answer = SlowLogResponses {
        slow_log_payloads: payloads,
    };
    Ok(Reply::pb(&LogEntry {
        log_class_name: Some(RESPONSE_CLASS.into()),
        log_message: Some(answer.encode_to_vec()),
    }))
}

/// Whether call `c` passes the request's filters (none given: every call).
fn keeps(f: &SlowLogResponseRequest, c: &SlowCall) -> bool {
    let given = |s: &Option<String>| s.as_deref().filter(|s| !s.is_empty()).map(str::to_owned);
    let mut tests = Vec::new();
    if let Some(t) = given(&f.table_name) {
        tests.push(c.table == t);
    }
    if let Some(u) = given(&f.user_name) {
        tests.push(c.user == u);
    }
    if given(&f.client_address).is_some() || given(&f.region_name).is_some() {
        tests.push(false);
    }
    if tests.is_empty() {
        return true;
    }
    if f.filter_by_operator == Some(0) {
        tests.iter().all(|&t| t)
    } else {
        tests.iter().any(|&t| t)
    }
}

fn payload(c: &SlowCall) -> SlowLogPayload {
    let millis = i32::try_from(c.duration.as_millis()).unwrap_or(i32::MAX);
    SlowLogPayload {
        start_time: Some(c.at_ms.saturating_sub(millis as u64) as i64),
        processing_time: Some(millis),
        queue_time: Some(0),
        response_size: Some(0),
        client_address: Some(String::new()),
        server_class: Some(format!("ferrobase {} door", c.door)),
        method_name: Some(c.method.clone()),
        call_details: Some(c.description.clone()),
        param: Some(c.explain.clone()),
        user_name: Some(c.user.clone()),
        region_name: Some(c.table.clone()),
        r#type: Some(0),
        block_bytes_scanned: Some(0),
        fs_read_time: Some(0),
    }
}
