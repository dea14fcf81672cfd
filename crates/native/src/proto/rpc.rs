//! `RPC.proto` (package `hbase.pb`), as in hbase-protocol-shaded 2.6.1 (branch-2.6), with what
//! older 2.x releases lack (the connection and request `attribute`s, `server_overloaded`,
//! `SecurityPreamableResponse`): the connection header and the per-call request and response
//! headers of HBase's native RPC.

use super::hbase::{NameBytesPair, VersionInfo};
use super::tracing::RPCTInfo;

/// The user of a connection (`required string effective_user = 1`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct UserInformation {
    #[prost(string, optional, tag = "1")]
    pub effective_user: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub real_user: Option<String>,
}

/// Sent once after the six-byte preamble, prefixed by a 4-byte big-endian length.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ConnectionHeader {
    #[prost(message, optional, tag = "1")]
    pub user_info: Option<UserInformation>,
    #[prost(string, optional, tag = "2")]
    pub service_name: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub cell_block_codec_class: Option<String>,
    #[prost(string, optional, tag = "4")]
    pub cell_block_compressor_class: Option<String>,
    #[prost(message, optional, tag = "5")]
    pub version_info: Option<VersionInfo>,
    #[prost(string, optional, tag = "6")]
    pub rpc_crypto_cipher_transformation: Option<String>,
    #[prost(message, repeated, tag = "7")]
    pub attribute: Vec<NameBytesPair>,
}

/// The server's answer to a connection header, when it negotiates encryption.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ConnectionHeaderResponse {
    #[prost(message, optional, tag = "1")]
    pub crypto_cipher_meta: Option<CryptoCipherMeta>,
}

/// The length of the cell block that follows a request or response parameter.
#[derive(Clone, PartialEq, prost::Message)]
pub struct CellBlockMeta {
    #[prost(uint32, optional, tag = "1")]
    pub length: Option<u32>,
}

/// A server-side exception carried to the client in a `ResponseHeader`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ExceptionResponse {
    #[prost(string, optional, tag = "1")]
    pub exception_class_name: Option<String>,
    #[prost(string, optional, tag = "2")]
    pub stack_trace: Option<String>,
    #[prost(string, optional, tag = "3")]
    pub hostname: Option<String>,
    #[prost(int32, optional, tag = "4")]
    pub port: Option<i32>,
    #[prost(bool, optional, tag = "5")]
    pub do_not_retry: Option<bool>,
    #[prost(bool, optional, tag = "6")]
    pub server_overloaded: Option<bool>,
}

/// Cipher metadata for Apache Commons Crypto (`required string transformation = 1`).
#[derive(Clone, PartialEq, prost::Message)]
pub struct CryptoCipherMeta {
    #[prost(string, optional, tag = "1")]
    pub transformation: Option<String>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub in_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub in_iv: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub out_key: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub out_iv: Option<Vec<u8>>,
}

/// The header of every call, written with `writeDelimitedTo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestHeader {
    #[prost(uint32, optional, tag = "1")]
    pub call_id: Option<u32>,
    #[prost(message, optional, tag = "2")]
    pub trace_info: Option<RPCTInfo>,
    #[prost(string, optional, tag = "3")]
    pub method_name: Option<String>,
    /// True when a parameter message follows.
    #[prost(bool, optional, tag = "4")]
    pub request_param: Option<bool>,
    /// Present when a cell block follows the parameter.
    #[prost(message, optional, tag = "5")]
    pub cell_block_meta: Option<CellBlockMeta>,
    /// 0 is NORMAL, 200 HIGH (`HConstants`); absent means NORMAL.
    #[prost(uint32, optional, tag = "6")]
    pub priority: Option<u32>,
    /// The call's timeout in milliseconds.
    #[prost(uint32, optional, tag = "7")]
    pub timeout: Option<u32>,
    #[prost(message, repeated, tag = "8")]
    pub attribute: Vec<NameBytesPair>,
}

/// The header of every response, written with `writeDelimitedTo`.
#[derive(Clone, PartialEq, prost::Message)]
pub struct ResponseHeader {
    #[prost(uint32, optional, tag = "1")]
    pub call_id: Option<u32>,
    /// Present when the call failed; then no response message follows.
    #[prost(message, optional, tag = "2")]
    pub exception: Option<ExceptionResponse>,
    #[prost(message, optional, tag = "3")]
    pub cell_block_meta: Option<CellBlockMeta>,
}

/// The answer to the security preamble (`required string server_principal = 1`; the spelling is
/// HBase's).
#[derive(Clone, PartialEq, prost::Message)]
pub struct SecurityPreamableResponse {
    #[prost(string, optional, tag = "1")]
    pub server_principal: Option<String>,
}
