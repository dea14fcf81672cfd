//! `ErrorHandling.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6):
//! exceptions in protobuf form, as a failed procedure reports them (`GetProcedureResultResponse`).

/// A Java `StackTraceElement`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct StackTraceElementMessage {
    #[prost(string, optional, tag = "1")]
    pub declaring_class: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub method_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub file_name: Option<String>,
    #[prost(int32, optional, tag = "4")]
    pub line_number: Option<i32>,
}

/// A Java exception: class, message, stack trace.
#[derive(Clone, PartialEq, prost::Message)]
pub struct GenericExceptionMessage {
    #[prost(string, optional, tag = "1")]
    pub class_name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub message: Option<String>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub error_info: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "4")]
    pub trace: Vec<StackTraceElementMessage>,
}

/// An exception from another process (a procedure's failure).
#[derive(Clone, PartialEq, prost::Message)]
pub struct ForeignExceptionMessage {
    #[prost(string, optional, tag = "1")]
    pub source: Option<String>,
    #[prost(message, optional, tag = "2")]
    pub generic_exception: Option<GenericExceptionMessage>,
}
