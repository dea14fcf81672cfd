//! What a [`Server`](crate::Server) serves: one Thrift service's calls. The server's loop
//! (transports, protocol detection, limits, the call queue, TLS and SASL) is the same for every
//! service; a service says which methods it has, how each call's arguments are declared, runs
//! the call, and names the calls that open and close its scanners (for the per-connection
//! scanner quota). Thrift1's [`Handler`] (`Hbase`) and Thrift2's
//! [`Thrift2Handler`](crate::thrift2::Thrift2Handler) (`THBaseService`) implement it.

use crate::handler::{Handler, Outcome, Scanners};
use crate::thrift::{Field, TStruct, TValue};
use ferrobase_engine::Engine;

/// A Thrift service served by a [`Server`](crate::Server). Shared by every connection.
pub trait Service: Send + Sync {
    /// The service's IDL name, as call counters name it (`Hbase`, `THBaseService`).
    fn name(&self) -> &'static str;
    /// Every method the IDL declares.
    fn methods(&self) -> &'static [&'static str];
    /// The argument struct of `method` as the decoder reads it; `None` for no such method.
    fn arguments(&self, method: &str) -> Option<&'static [Field]>;
    /// Runs `method` for `user` (the connection's identity, if any) with its decoded
    /// arguments, moved in.
    fn call_owned(&self, user: Option<&str>, method: &str, args: TStruct) -> Outcome;
    /// Whether this call opens a scanner (its success is the scanner's `i32` id).
    fn opens_scanner(&self, method: &str, args: &TStruct) -> bool;
    /// The scanner this call closes, if it is a close: it runs without waiting for a handler
    /// (it only frees).
    fn closes_scanner(&self, method: &str, args: &TStruct) -> Option<i32>;
    /// The open scanners, swept for expired leases.
    fn scanners(&self) -> &Scanners;
    /// The engine served.
    fn engine(&self) -> &Engine;
    /// Whether the server closes the engine when it stops (false for a second door on an
    /// engine another server owns).
    fn owns_engine(&self) -> bool;
}

impl Service for Handler {
    fn name(&self) -> &'static str {
        crate::server::THRIFT_SERVICE
    }

    fn methods(&self) -> &'static [&'static str] {
        crate::idl::METHODS
    }

    fn arguments(&self, method: &str) -> Option<&'static [Field]> {
        crate::idl::arguments(method)
    }

    fn call_owned(&self, user: Option<&str>, method: &str, args: TStruct) -> Outcome {
        Handler::call_owned(self, user, method, args)
    }

    fn opens_scanner(&self, method: &str, args: &TStruct) -> bool {
        crate::scanner_quota::opens_scanner(method, args)
    }

    fn closes_scanner(&self, method: &str, args: &TStruct) -> Option<i32> {
        match args.get(1) {
            Some(TValue::I32(id)) if method == "scannerClose" => Some(*id),
            _ => None,
        }
    }

    fn scanners(&self) -> &Scanners {
        &self.scanners
    }

    fn engine(&self) -> &Engine {
        Handler::engine(self)
    }

    fn owns_engine(&self) -> bool {
        true
    }
}
