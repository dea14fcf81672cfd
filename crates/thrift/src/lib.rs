//! Thrift for ferrobase, shared by the gateway (`ferrobase-gateway`) and the client
//! (`ferrobase-client`): a generic codec and HBase's Thrift1 `Hbase` service declared once.
//!
//! - **The codec.** Values are decoded into a dynamic tree ([`TValue`]) so any struct can be
//!   read by field id. Binary and compact protocols, with limits so a malformed or hostile
//!   message never allocates unbounded memory: wire bytes per message, nesting depth, the memory
//!   decoding builds per request and across all requests in flight ([`Limits`],
//!   [`InflightMemory`]). A call's arguments are decoded against the method's declaration
//!   ([`Field`]), so undeclared fields are skipped without being built. (Transports — buffered,
//!   framed, TLS — live in the gateway and the client.)
//! - **The IDL.** [`hbase`] declares every struct of HBase's `Hbase.thrift` and one argument
//!   struct per service method as Rust types with named field ids, converted to and from the
//!   value tree ([`ThriftStruct`]); the declarations the decoder bounds memory with are derived
//!   from the same types, so a field id is written once.

#![forbid(unsafe_code)]

mod binary;
mod compact;
mod decode;
mod decoded;
mod direct_list;
mod encoded;
pub mod hbase;
pub mod packed_rows;
mod row_results;
pub mod thrift2;
mod typed;

pub use decoded::{Decoded, DecodedValue, Direct};
pub use direct_list::{DirectElement, DirectList};
pub use encoded::{EncodeValue, Encoded, ValueWriter, Wire};
pub use row_results::{
    read_rows_reply, read_scan_batch_reply, RawCell, RawRow, RawRows, RawScanBatch,
};
pub use typed::{IdlError, Owner, ThriftStruct, ThriftValue};

use std::io::Read;

/// Thrift's wire types (binary-protocol codes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TType {
    /// `bool`
    Bool,
    /// `byte` (i8)
    Byte,
    /// `double`
    Double,
    /// `i16`
    I16,
    /// `i32`
    I32,
    /// `i64`
    I64,
    /// `string` / `binary`
    Binary,
    /// `struct`
    Struct,
    /// `map`
    Map,
    /// `set`
    Set,
    /// `list`
    List,
}

impl TType {
    /// The binary protocol's type code.
    pub fn code(self) -> u8 {
        match self {
            TType::Bool => 2,
            TType::Byte => 3,
            TType::Double => 4,
            TType::I16 => 6,
            TType::I32 => 8,
            TType::I64 => 10,
            TType::Binary => 11,
            TType::Struct => 12,
            TType::Map => 13,
            TType::Set => 14,
            TType::List => 15,
        }
    }

    /// Decodes a binary-protocol type code.
    pub fn from_code(c: u8) -> Option<TType> {
        Some(match c {
            2 => TType::Bool,
            3 => TType::Byte,
            4 => TType::Double,
            6 => TType::I16,
            8 => TType::I32,
            10 => TType::I64,
            11 => TType::Binary,
            12 => TType::Struct,
            13 => TType::Map,
            14 => TType::Set,
            15 => TType::List,
            _ => return None,
        })
    }
}

/// A declared type: the IDL as data, so a decoder can tell what a method's arguments hold.
#[derive(Debug, Clone, Copy)]
pub enum Ty {
    /// `bool`
    Bool,
    /// `byte`
    Byte,
    /// `double`
    Double,
    /// `i16`
    I16,
    /// `i32` (and enums)
    I32,
    /// `i64`
    I64,
    /// `string` / `binary`
    Binary,
    /// A struct with these fields.
    Struct(&'static [Field]),
    /// `list<T>`
    List(&'static Ty),
    /// `set<T>`
    Set(&'static Ty),
    /// `map<K, V>`
    Map(&'static Ty, &'static Ty),
    /// A list the decoder builds straight into typed values, with no value tree
    /// ([`Direct`]; a [`TValue::Decoded`]).
    Direct(Direct),
}

impl Ty {
    /// The wire type values of this type are sent with.
    pub fn ttype(&self) -> TType {
        match self {
            Ty::Bool => TType::Bool,
            Ty::Byte => TType::Byte,
            Ty::Double => TType::Double,
            Ty::I16 => TType::I16,
            Ty::I32 => TType::I32,
            Ty::I64 => TType::I64,
            Ty::Binary => TType::Binary,
            Ty::Struct(_) => TType::Struct,
            Ty::List(_) => TType::List,
            Ty::Set(_) => TType::Set,
            Ty::Map(..) => TType::Map,
            Ty::Direct(_) => TType::List,
        }
    }
}

/// A declared struct field (or method argument).
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The field id.
    pub id: i16,
    /// The field's name in the IDL.
    pub name: &'static str,
    /// Its type.
    pub ty: Ty,
}

/// A decoded Thrift value.
#[derive(Debug, Clone, PartialEq)]
pub enum TValue {
    /// bool
    Bool(bool),
    /// byte
    Byte(i8),
    /// double
    Double(f64),
    /// i16
    I16(i16),
    /// i32
    I32(i32),
    /// i64
    I64(i64),
    /// string or binary
    Binary(Vec<u8>),
    /// struct
    Struct(TStruct),
    /// map with key and value types
    Map(TType, TType, Vec<(TValue, TValue)>),
    /// set with element type
    Set(TType, Vec<TValue>),
    /// list with element type
    List(TType, Vec<TValue>),
    /// A value its producer writes into the message itself (written only; never decoded).
    Encoded(Encoded),
    /// A list the decoder built straight into typed values (decoded only, for a declared
    /// [`Ty::Direct`]; written as its value tree).
    Decoded(Decoded),
}

impl TValue {
    /// The value's wire type.
    pub fn ttype(&self) -> TType {
        match self {
            TValue::Bool(_) => TType::Bool,
            TValue::Byte(_) => TType::Byte,
            TValue::Double(_) => TType::Double,
            TValue::I16(_) => TType::I16,
            TValue::I32(_) => TType::I32,
            TValue::I64(_) => TType::I64,
            TValue::Binary(_) => TType::Binary,
            TValue::Struct(_) => TType::Struct,
            TValue::Map(..) => TType::Map,
            TValue::Set(..) => TType::Set,
            TValue::List(..) => TType::List,
            TValue::Encoded(e) => e.ttype(),
            TValue::Decoded(_) => TType::List,
        }
    }

    /// A string value.
    pub fn string(s: impl Into<String>) -> TValue {
        TValue::Binary(s.into().into_bytes())
    }
}

/// A struct: fields by id, in the order read or to be written.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct TStruct {
    /// (field id, value) pairs.
    pub fields: Vec<(i16, TValue)>,
}

impl TStruct {
    /// An empty struct.
    pub fn new() -> Self {
        TStruct::default()
    }

    /// Adds a field (builder style).
    pub fn with(mut self, id: i16, v: TValue) -> Self {
        self.fields.push((id, v));
        self
    }

    /// The field with id `id`.
    pub fn get(&self, id: i16) -> Option<&TValue> {
        self.fields.iter().find(|(i, _)| *i == id).map(|(_, v)| v)
    }
}

/// Thrift message types.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MessageType {
    /// A call expecting a reply.
    Call = 1,
    /// A reply.
    Reply = 2,
    /// An application exception.
    Exception = 3,
    /// A call with no reply.
    Oneway = 4,
}

impl MessageType {
    fn from_code(c: u8) -> Option<MessageType> {
        Some(match c {
            1 => MessageType::Call,
            2 => MessageType::Reply,
            3 => MessageType::Exception,
            4 => MessageType::Oneway,
            _ => return None,
        })
    }
}

/// A message header.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MessageHeader {
    /// Method name.
    pub name: String,
    /// Message type.
    pub kind: MessageType,
    /// Sequence id echoed in the reply.
    pub seq_id: i32,
}

/// Limits applied while decoding a message.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest frame (framed transport) or message (buffered) in bytes on the wire (default
    /// 64 MiB). A message over it is malformed and closes the connection.
    pub max_message: usize,
    /// Deepest nesting of structs and containers (default 32).
    pub max_depth: usize,
    /// Most memory decoding one request may build, in bytes (default 256 MiB): every value is
    /// charged its in-memory size (a value slot is 32–64 bytes, so a 1-byte list element costs
    /// far more in memory than on the wire). A request over it is refused with an error naming
    /// the limit; the connection goes on.
    pub max_decoded: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: 64 << 20,
            max_depth: 32,
            max_decoded: 256 << 20,
        }
    }
}

/// Memory held by decoded requests across every connection, against a server-wide limit.
/// Thread-safe; shared by all connections.
#[derive(Debug)]
pub struct InflightMemory {
    limit: usize,
    used: std::sync::atomic::AtomicUsize,
}

impl InflightMemory {
    /// A pool of `limit` bytes.
    pub fn new(limit: usize) -> InflightMemory {
        InflightMemory {
            limit,
            used: std::sync::atomic::AtomicUsize::new(0),
        }
    }

    /// The server-wide limit in bytes.
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Bytes held now.
    pub fn used(&self) -> usize {
        self.used.load(std::sync::atomic::Ordering::Acquire)
    }

    /// Takes `n` bytes from the pool; false (taking nothing) when that would pass the limit.
    pub fn try_reserve(&self, n: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                u.checked_add(n).filter(|&t| t <= self.limit)
            })
            .is_ok()
    }

    /// Takes `n` bytes from the pool only while that leaves it at most half full; false (taking
    /// nothing) otherwise. For memory a connection keeps between calls (its reply buffer): it
    /// is counted, yet never takes the half that requests in flight can always have.
    pub fn try_reserve_spare(&self, n: usize) -> bool {
        use std::sync::atomic::Ordering;
        self.used
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |u| {
                u.checked_add(n).filter(|&t| t <= self.limit / 2)
            })
            .is_ok()
    }

    /// Gives back `n` bytes taken with [`InflightMemory::try_reserve`] or
    /// [`InflightMemory::try_reserve_spare`].
    pub fn release(&self, n: usize) {
        self.used.fetch_sub(n, std::sync::atomic::Ordering::AcqRel);
    }
}

/// Memory reserved from an [`InflightMemory`] for one request; given back when dropped (after
/// the call has run and been answered).
#[derive(Debug, Default)]
pub struct Reservation {
    pool: Option<std::sync::Arc<InflightMemory>>,
    bytes: usize,
}

impl Reservation {
    /// Bytes held.
    pub fn bytes(&self) -> usize {
        self.bytes
    }
}

impl Drop for Reservation {
    fn drop(&mut self) {
        if let Some(p) = &self.pool {
            p.release(self.bytes);
        }
    }
}

/// Which memory limit a request ran into.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Overrun {
    /// The request alone needs more than [`Limits::max_decoded`].
    Request(usize),
    /// Requests in flight together hold more than the [`InflightMemory`] limit.
    Server(usize),
}

impl std::fmt::Display for Overrun {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Overrun::Request(limit) => write!(
                f,
                "request refused: decoding it needs more than {limit} bytes of memory, the \
                 per-request limit (--max-request-memory)"
            ),
            Overrun::Server(limit) => write!(
                f,
                "server busy (CallQueueTooBigException): requests in flight hold more than \
                 {limit} bytes of memory (--max-inflight-memory); retry later"
            ),
        }
    }
}

/// Bytes reserved from the shared pool at a time, so that small values do not each touch it.
const RESERVE_CHUNK: usize = 256 << 10;

/// Decoding and transport errors.
#[derive(Debug, thiserror::Error)]
pub enum ThriftError {
    /// The peer closed the connection between messages.
    #[error("connection closed")]
    Eof,
    /// A socket error.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Bytes that are not valid Thrift, or past a wire limit.
    #[error("malformed request: {0}")]
    Malformed(String),
    /// A well-formed message read to its end but not built: decoding it would hold more memory
    /// than a limit allows. The connection is in step for the next call.
    #[error("{over}")]
    Refused {
        /// The refused call's header, to answer it.
        header: MessageHeader,
        /// The limit it ran into.
        over: Overrun,
    },
}

/// A [`ThriftError::Malformed`] with reason `s`.
pub fn malformed(s: impl Into<String>) -> ThriftError {
    ThriftError::Malformed(s.into())
}

fn cut_short(e: std::io::Error) -> ThriftError {
    if e.kind() == std::io::ErrorKind::UnexpectedEof {
        malformed("message cut short")
    } else {
        ThriftError::Io(e)
    }
}

/// A reader that counts every byte against a message budget, tracks nesting depth and charges
/// the memory that decoding builds against the request's limit and the server's pool.
pub struct Budget<'a, R: Read> {
    inner: &'a mut R,
    /// Wire bytes the message may still use.
    remaining: usize,
    /// Nesting levels still allowed.
    depth_left: usize,
    /// Memory the request may build, and may still build.
    memory_limit: usize,
    memory_left: usize,
    pool: Option<std::sync::Arc<InflightMemory>>,
    /// Reserved from the pool, and how much of that is not yet charged.
    reserved: usize,
    reserved_unused: usize,
    over: Option<Overrun>,
}

impl<R: Read> Drop for Budget<'_, R> {
    fn drop(&mut self) {
        if let Some(p) = self.pool.take() {
            p.release(self.reserved);
        }
    }
}

impl<'a, R: Read> Budget<'a, R> {
    /// A budget of `limits` over `inner`, with no shared pool.
    pub fn new(inner: &'a mut R, limits: &Limits) -> Budget<'a, R> {
        Budget {
            inner,
            remaining: limits.max_message,
            depth_left: limits.max_depth,
            memory_limit: limits.max_decoded,
            memory_left: limits.max_decoded,
            pool: None,
            reserved: 0,
            reserved_unused: 0,
            over: None,
        }
    }

    /// Also charges memory to `pool`, shared with other requests.
    pub fn with_pool(mut self, pool: std::sync::Arc<InflightMemory>) -> Self {
        self.pool = Some(pool);
        self
    }

    /// Caps the message at `n` wire bytes (a frame's length).
    pub fn with_wire_limit(mut self, n: usize) -> Self {
        self.remaining = self.remaining.min(n);
        self
    }

    /// Wire bytes the message may still use.
    pub fn remaining(&self) -> usize {
        self.remaining
    }

    /// The limit decoding ran into, if any: from then on values are read but not built.
    pub fn over_budget(&self) -> bool {
        self.over.is_some()
    }

    /// Bytes of memory charged so far (what the decoded values hold, as counted against
    /// [`Limits::max_decoded`]).
    pub fn decoded(&self) -> usize {
        self.memory_limit - self.memory_left
    }

    /// The limit decoding ran into, if any.
    pub fn overrun(&self) -> Option<Overrun> {
        self.over
    }

    /// The memory reserved from the pool, to hold while the call runs.
    /// (A budget dropped without this gives its reservation back at once.)
    pub fn into_reservation(mut self) -> Reservation {
        Reservation {
            pool: self.pool.take(),
            bytes: std::mem::take(&mut self.reserved),
        }
    }

    /// Charges `n` bytes of memory about to be built. False (and nothing charged) once a limit
    /// is reached; the budget then stays over.
    pub(crate) fn charge(&mut self, n: usize) -> bool {
        if self.over.is_some() {
            return false;
        }
        let Some(left) = self.memory_left.checked_sub(n) else {
            self.over = Some(Overrun::Request(self.memory_limit));
            return false;
        };
        if let Some(pool) = &self.pool {
            if self.reserved_unused < n {
                let want = n.max(RESERVE_CHUNK);
                if !pool.try_reserve(want) {
                    self.over = Some(Overrun::Server(pool.limit()));
                    return false;
                }
                self.reserved += want;
                self.reserved_unused += want;
            }
            self.reserved_unused -= n;
        }
        self.memory_left = left;
        true
    }

    pub(crate) fn take(&mut self, n: usize) -> Result<Vec<u8>, ThriftError> {
        if n > self.remaining {
            return Err(malformed(format!(
                "a {n}-byte field exceeds the message size limit"
            )));
        }
        self.remaining -= n;
        let mut buf = vec![0u8; n];
        self.inner.read_exact(&mut buf).map_err(cut_short)?;
        Ok(buf)
    }

    /// Reads `n` bytes onto the end of `buf`.
    pub(crate) fn read_into(&mut self, buf: &mut Vec<u8>, n: usize) -> Result<(), ThriftError> {
        if n > self.remaining {
            return Err(malformed(format!(
                "a {n}-byte field exceeds the message size limit"
            )));
        }
        self.remaining -= n;
        let start = buf.len();
        buf.resize(start + n, 0);
        let Some(dst) = buf.get_mut(start..) else {
            return Err(malformed("message cut short"));
        };
        self.inner.read_exact(dst).map_err(cut_short)
    }

    /// Reads past `n` bytes without keeping them.
    pub fn skip(&mut self, n: usize) -> Result<(), ThriftError> {
        if n > self.remaining {
            return Err(malformed(format!(
                "a {n}-byte field exceeds the message size limit"
            )));
        }
        self.remaining -= n;
        let copied = std::io::copy(
            &mut Read::take(&mut *self.inner, n as u64),
            &mut std::io::sink(),
        )
        .map_err(ThriftError::Io)?;
        if copied < n as u64 {
            return Err(malformed("message cut short"));
        }
        Ok(())
    }

    pub(crate) fn u8(&mut self) -> Result<u8, ThriftError> {
        Ok(self.array::<1>()?[0])
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], ThriftError> {
        if N > self.remaining {
            return Err(malformed("message size limit reached"));
        }
        self.remaining -= N;
        let mut a = [0u8; N];
        self.inner.read_exact(&mut a).map_err(cut_short)?;
        Ok(a)
    }

    /// Reads the very first byte of a message: `Eof` when the peer closed before it.
    pub(crate) fn first_byte(&mut self) -> Result<u8, ThriftError> {
        let mut one = [0u8; 1];
        loop {
            match self.inner.read(&mut one) {
                Ok(0) => return Err(ThriftError::Eof),
                Ok(_) => break,
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                Err(e) => return Err(ThriftError::Io(e)),
            }
        }
        if self.remaining == 0 {
            return Err(malformed("message size limit reached"));
        }
        self.remaining -= 1;
        Ok(one[0])
    }

    pub(crate) fn enter(&mut self) -> Result<(), ThriftError> {
        if self.depth_left == 0 {
            return Err(malformed("nesting too deep"));
        }
        self.depth_left -= 1;
        Ok(())
    }

    pub(crate) fn leave(&mut self) {
        self.depth_left += 1;
    }

    /// A container of `n` elements must have at least `n` bytes left (each takes ≥ 1 byte,
    /// except empty-struct/bool elements in compact lists, which still take one).
    pub(crate) fn check_count(&mut self, n: usize) -> Result<(), ThriftError> {
        if n > self.remaining {
            return Err(malformed(format!(
                "container of {n} elements exceeds the message size limit"
            )));
        }
        Ok(())
    }
}

/// Encodes and decodes with one of the two protocols.
pub trait Codec {
    /// Reads a message header; `Eof` if the peer closed cleanly before it.
    fn read_header<R: std::io::Read>(
        &self,
        b: &mut Budget<'_, R>,
    ) -> Result<MessageHeader, ThriftError>;
    /// Reads a struct, building every field (replies; the budget still applies: check
    /// [`Budget::over_budget`]).
    fn read_struct<R: std::io::Read>(&self, b: &mut Budget<'_, R>) -> Result<TStruct, ThriftError>;
    /// Reads a struct against its declaration: undeclared fields, and fields of another type
    /// than declared, are read past without being built.
    fn read_declared<R: std::io::Read>(
        &self,
        b: &mut Budget<'_, R>,
        fields: &'static [Field],
    ) -> Result<TStruct, ThriftError>;
    /// Writes a message header.
    fn write_header(&self, out: &mut Vec<u8>, h: &MessageHeader);
    /// Writes a struct.
    fn write_struct(&self, out: &mut Vec<u8>, s: &TStruct);
}

pub use binary::Binary;
pub use compact::Compact;

#[cfg(test)]
mod tests {
    use super::*;

    fn sample() -> TStruct {
        TStruct::new()
            .with(1, TValue::Binary(b"table".to_vec()))
            .with(2, TValue::I64(-1234567890123))
            .with(3, TValue::Bool(true))
            .with(
                5,
                TValue::List(
                    TType::Binary,
                    vec![TValue::string("a"), TValue::string("b")],
                ),
            )
            .with(
                6,
                TValue::Map(
                    TType::Binary,
                    TType::Struct,
                    vec![(
                        TValue::string("cf:q"),
                        TValue::Struct(
                            TStruct::new()
                                .with(1, TValue::I32(-7))
                                .with(2, TValue::Bool(false)),
                        ),
                    )],
                ),
            )
            .with(20, TValue::Double(1.5))
            .with(-3, TValue::I16(300))
            .with(
                21,
                TValue::List(TType::Bool, vec![TValue::Bool(true), TValue::Bool(false)]),
            )
            .with(22, TValue::Byte(-2))
    }

    fn round_trip<C: Codec>(c: &C) {
        let h = MessageHeader {
            name: "getRow".into(),
            kind: MessageType::Call,
            seq_id: 42,
        };
        let mut buf = Vec::new();
        c.write_header(&mut buf, &h);
        c.write_struct(&mut buf, &sample());
        let mut r = &buf[..];
        let mut b = Budget::new(&mut r, &Limits::default());
        assert_eq!(c.read_header(&mut b).unwrap(), h);
        assert_eq!(c.read_struct(&mut b).unwrap(), sample());
        // Every truncation is an error, never a panic.
        for cut in 0..buf.len() {
            let mut r = &buf[..cut];
            let mut b = Budget::new(&mut r, &Limits::default());
            let res = c.read_header(&mut b).and_then(|_| c.read_struct(&mut b));
            assert!(res.is_err(), "cut at {cut}");
        }
        // Garbage never panics.
        let mut rng = ferrobase_testkit::Rng::from_state(7);
        for _ in 0..2000 {
            let mut junk = buf.clone();
            for _ in 0..3 {
                let seed = rng.next_u64();
                let i = (seed % junk.len() as u64) as usize;
                junk[i] = (seed >> 20) as u8;
            }
            let mut r = &junk[..];
            let limits = Limits {
                max_message: 4096,
                max_depth: 8,
                max_decoded: 1 << 16,
            };
            let mut b = Budget::new(&mut r, &limits);
            let _ = c.read_header(&mut b).and_then(|_| c.read_struct(&mut b));
        }
    }

    #[test]
    fn binary_protocol_round_trips_and_rejects_truncation() {
        round_trip(&Binary);
    }

    #[test]
    fn compact_protocol_round_trips_and_rejects_truncation() {
        round_trip(&Compact);
    }
}
