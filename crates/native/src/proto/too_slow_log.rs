//! The slow-log messages of `AdminService.GetLogEntries`, as in hbase-protocol-shaded 2.6.1:
//! `HBase.proto`'s `LogRequest`/`LogEntry` envelope, `Admin.proto`'s `SlowLogResponseRequest`
//! and `SlowLogResponses`, and `TooSlowLog.proto`'s `SlowLogPayload` (package `hbase.pb`).
//! Checked against the .proto files field by field. Required fields are `Option`s, so that a
//! message missing one still decodes.

/// `HBase.proto` `LogRequest`: a log request's class name and its serialized message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogRequest {
    /// Required: the request's Java class (`...AdminProtos$SlowLogResponseRequest`).
    #[prost(string, optional, tag = "1")]
    pub log_class_name: Option<String>,
    /// Required: the request, serialized.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub log_message: Option<Vec<u8>>,
}

/// `HBase.proto` `LogEntry`: the answer's class name and its serialized message.
#[derive(Clone, PartialEq, prost::Message)]
pub struct LogEntry {
    /// Required: the answer's Java class, which the client loads to parse `log_message`.
    #[prost(string, optional, tag = "1")]
    pub log_class_name: Option<String>,
    /// Required.
    #[prost(bytes = "vec", optional, tag = "2")]
    pub log_message: Option<Vec<u8>>,
}

/// `Admin.proto` `SlowLogResponseRequest`: the filters and the limit of a slow-log read.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SlowLogResponseRequest {
    #[prost(string, optional, tag = "1")]
    pub region_name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub table_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub client_address: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub user_name: Option<String>,
    /// Default 10.
    #[prost(uint32, optional, tag = "5")]
    pub limit: Option<u32>,
    /// `AND` = 0, `OR` = 1 (the default).
    #[prost(int32, optional, tag = "6")]
    pub filter_by_operator: Option<i32>,
    /// `SLOW_LOG` = 0, `LARGE_LOG` = 1.
    #[prost(int32, optional, tag = "7")]
    pub log_type: Option<i32>,
}

/// `Admin.proto` `SlowLogResponses`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct SlowLogResponses {
    #[prost(message, repeated, tag = "1")]
    pub slow_log_payloads: Vec<SlowLogPayload>,
}

/// `TooSlowLog.proto` `SlowLogPayload`: one slow call (the fields ferrobase fills; the scan,
/// attributes and multi-call counts are left out).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SlowLogPayload {
    /// Required, ms since the epoch.
    #[prost(int64, optional, tag = "1")]
    pub start_time: Option<i64>,
    /// Required, ms.
    #[prost(int32, optional, tag = "2")]
    pub processing_time: Option<i32>,
    /// Required, ms.
    #[prost(int32, optional, tag = "3")]
    pub queue_time: Option<i32>,
    /// Required.
    #[prost(int64, optional, tag = "4")]
    pub response_size: Option<i64>,
    /// Required.
    #[prost(string, optional, tag = "5")]
    pub client_address: Option<String>,
    /// Required.
    #[prost(string, optional, tag = "6")]
    pub server_class: Option<String>,
    /// Required.
    #[prost(string, optional, tag = "7")]
    pub method_name: Option<String>,
    /// Required.
    #[prost(string, optional, tag = "8")]
    pub call_details: Option<String>,
    #[prost(string, optional, tag = "9")]
    pub param: Option<String>,
    /// Required.
    #[prost(string, optional, tag = "10")]
    pub user_name: Option<String>,
    #[prost(string, optional, tag = "11")]
    pub region_name: Option<String>,
    /// Required: `SLOW_LOG` = 0, `LARGE_LOG` = 1, `ALL` = 2.
    #[prost(int32, optional, tag = "15")]
    pub r#type: Option<i32>,
    #[prost(int64, optional, tag = "16")]
    pub block_bytes_scanned: Option<i64>,
    #[prost(int64, optional, tag = "20")]
    pub fs_read_time: Option<i64>,
}
