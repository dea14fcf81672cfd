//! `Tracing.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6): the trace
//! context a client may attach to a `RequestHeader`.

/// The OpenTelemetry context of a call (W3C trace-context headers); the two ids are HTrace's,
/// deprecated since 2.5.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RPCTInfo {
    #[prost(int64, optional, tag = "1")]
    pub trace_id: Option<i64>,
    #[prost(int64, optional, tag = "2")]
    pub parent_id: Option<i64>,
    #[prost(map = "string, string", tag = "3")]
    pub headers: std::collections::HashMap<String, String>,
}
