//! A generic Thrift codec: values are decoded into a dynamic tree ([`TValue`]) so the handler
//! can read any struct by field id. Binary and compact protocols, framed and buffered
//! transports, with size limits so a malformed or hostile request never allocates unbounded
//! memory.

mod binary;
mod compact;
mod transport;

pub use transport::{Connection, Protocol, Transport};

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

/// Size limits applied while decoding.
#[derive(Debug, Clone, Copy)]
pub struct Limits {
    /// Largest frame (framed transport) or message (buffered) in bytes.
    pub max_message: usize,
    /// Deepest nesting of structs and containers.
    pub max_depth: usize,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_message: 64 << 20,
            max_depth: 32,
        }
    }
}

/// Decoding and transport errors.
#[derive(Debug, thiserror::Error)]
pub enum ThriftError {
    /// The peer closed the connection between messages.
    #[error("connection closed")]
    Eof,
    /// A socket error.
    #[error("I/O error: {0}")]
    Io(#[from] std::io::Error),
    /// Bytes that are not valid Thrift, or past a limit.
    #[error("malformed request: {0}")]
    Malformed(String),
}

pub(crate) fn malformed(s: impl Into<String>) -> ThriftError {
    ThriftError::Malformed(s.into())
}

/// A reader that counts every byte against a message budget and tracks nesting depth.
pub struct Budget<'a, R: std::io::Read> {
    /// The byte source.
    pub inner: &'a mut R,
    /// Bytes the message may still use.
    pub remaining: usize,
    /// Nesting levels still allowed.
    pub depth_left: usize,
}

impl<R: std::io::Read> Budget<'_, R> {
    pub(crate) fn take(&mut self, n: usize) -> Result<Vec<u8>, ThriftError> {
        if n > self.remaining {
            return Err(malformed(format!(
                "a {n}-byte field exceeds the message size limit"
            )));
        }
        self.remaining -= n;
        let mut buf = vec![0u8; n];
        self.inner.read_exact(&mut buf).map_err(|e| {
            if e.kind() == std::io::ErrorKind::UnexpectedEof {
                malformed("message cut short")
            } else {
                ThriftError::Io(e)
            }
        })?;
        Ok(buf)
    }

    pub(crate) fn u8(&mut self) -> Result<u8, ThriftError> {
        Ok(self.take(1)?[0])
    }

    pub(crate) fn array<const N: usize>(&mut self) -> Result<[u8; N], ThriftError> {
        let v = self.take(N)?;
        let mut a = [0u8; N];
        a.copy_from_slice(&v);
        Ok(a)
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
    /// Reads a struct.
    fn read_struct<R: std::io::Read>(&self, b: &mut Budget<'_, R>) -> Result<TStruct, ThriftError>;
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
        let mut b = Budget {
            inner: &mut r,
            remaining: 1 << 20,
            depth_left: 32,
        };
        assert_eq!(c.read_header(&mut b).unwrap(), h);
        assert_eq!(c.read_struct(&mut b).unwrap(), sample());
        // Every truncation is an error, never a panic.
        for cut in 0..buf.len() {
            let mut r = &buf[..cut];
            let mut b = Budget {
                inner: &mut r,
                remaining: 1 << 20,
                depth_left: 32,
            };
            let res = c.read_header(&mut b).and_then(|_| c.read_struct(&mut b));
            assert!(res.is_err(), "cut at {cut}");
        }
        // Garbage never panics.
        let mut seed = 7u64;
        for _ in 0..2000 {
            let mut junk = buf.clone();
            for _ in 0..3 {
                seed ^= seed << 13;
                seed ^= seed >> 7;
                seed ^= seed << 17;
                let i = (seed % junk.len() as u64) as usize;
                junk[i] = (seed >> 20) as u8;
            }
            let mut r = &junk[..];
            let mut b = Budget {
                inner: &mut r,
                remaining: 4096,
                depth_left: 8,
            };
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
