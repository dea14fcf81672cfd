//! HBase's Thrift1 IDL (`Hbase.thrift`, hbase-thrift 2.x), declared once as Rust types:
//! [`structs`] holds the IDL's structs and exceptions, [`service`] one argument struct per
//! method of the `Hbase` service, the [`Call`] enum and the declarations the
//! decoder bounds memory with ([`arguments`]).

pub mod admin_op;
pub mod batch;
pub mod catalog;
pub mod service;
pub mod structs;

pub use admin_op::AdminOp;
pub use batch::RowBatches;
pub use service::{arguments, throws, Call, Exception, Method, Throws, RESULT_SUCCESS};
pub use structs::*;
