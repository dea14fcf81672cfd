//! HBase's Thrift2 IDL (`thrift2/hbase.thrift`, hbase-thrift 2.6.1), declared once as Rust types:
//! [`structs`] holds the IDL's structs, enums and exceptions, [`service`] one argument struct per
//! method of `THBaseService`, its [`Call`] enum and the declarations the decoder bounds memory
//! with ([`arguments`]). The codec, the declaration macros and the exception ids are Thrift1's
//! (`docs/design/thrift-idl.md`): `TIOError` is field 1 of every result, `TIllegalArgument`
//! field 2.

pub mod batch;
pub mod service;
pub mod structs;

pub use batch::Puts;
pub use service::{arguments, throws, Call, METHODS};
pub use structs::*;
