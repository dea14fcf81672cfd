//! The Thrift backend: HBase's Thrift1 `Hbase` service over a buffered binary connection.
//! This file holds the connection and the call of one typed method ([`Remote::call`]); the
//! methods the client uses are grouped as the IDL groups them: `admin.rs` (tables, regions,
//! grants, `ferrobaseAdmin`), `writes.rs` (mutations, increments, check-and-put, appends),
//! `reads.rs` (gets and scanners), `cell_ops.rs` (deletes with exact markers and RAW or
//! multi-version scans through `ferrobaseAdmin`); `convert.rs` converts between the engine's types and the
//! IDL's structs (`ferrobase_thrift::hbase`).

mod admin;
mod cell_ops;
mod convert;
mod reads;
mod writes;

pub use reads::RemoteScanner;

use crate::{ClientError, Result};
use ferrobase_security::tls::{ClientWire, TlsClient, Wire};
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::hbase::{
    AlreadyExists, Exception, IOError, IllegalArgument, Method, TApplicationException,
    RESULT_SUCCESS,
};
use ferrobase_thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, RawRows, RawScanBatch, TStruct,
    TValue, ThriftStruct, ThriftValue,
};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::{Mutex, OnceLock};

/// What a reply may take: 256 MiB on the wire, 1 GiB decoded.
const REPLY_LIMITS: Limits = Limits {
    max_message: 256 << 20,
    max_depth: 32,
    max_decoded: 1 << 30,
};

/// A connection to a Thrift gateway. Calls are serialised on one socket.
pub struct Remote {
    addr: String,
    /// The socket and what is in flight on it.
    io: Mutex<Io>,
    /// Messages go as frames (after SASL authentication).
    framed: bool,
    /// Whether the gateway answers `ferrobaseAdmin` (a ferrobase gateway), learnt on first need.
    ferrobase: OnceLock<bool>,
    /// Set when a ferrobase gateway answered `ferrobaseScannerOpen` as an unknown method (one
    /// older than it): scans go through HBase's scanner calls.
    no_scan_batches: std::sync::atomic::AtomicBool,
}

/// The socket (plain or TLS) behind its read buffer, the last sequence id, and a scanner's
/// call sent ahead of need (`Scan::async_prefetch`).
struct Io {
    wire: BufReader<ClientWire>,
    seq_id: i32,
    /// The call sent ahead and not read yet, by its ticket: at most one (its reply comes before
    /// any later call's on the socket).
    ahead: Option<(u64, Ahead)>,
    /// Replies to calls sent ahead that another call had to read first, by ticket.
    parked: Vec<(u64, Result<Fetched>)>,
    /// The last ticket handed out.
    tickets: u64,
}

/// What a call sent ahead returns: `scannerGetList`'s rows or `ferrobaseScannerNext`'s batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Ahead {
    Rows,
    Batch,
}

/// The reply to a call sent ahead.
pub(super) enum Fetched {
    Rows(Option<RawRows>),
    Batch(RawScanBatch),
}

pub(super) fn transport(e: impl std::fmt::Display) -> ClientError {
    ClientError::Transport(e.to_string())
}

/// The return value of method `name`, as its declared type.
pub(super) fn reply<T: ThriftValue>(name: &str, v: Option<TValue>) -> Result<T> {
    let v = v.ok_or_else(|| transport(format!("the reply to {name} has no result")))?;
    T::from_value(v).map_err(|e| transport(format!("the reply to {name}: {e}")))
}

/// The message of a declared exception `e` (its struct) in a result.
fn exception_message(e: Exception, v: TValue) -> String {
    let message = match e {
        Exception::IOError => IOError::from_value(v).map(|e| e.message),
        Exception::IllegalArgument => IllegalArgument::from_value(v).map(|e| e.message),
        Exception::AlreadyExists => AlreadyExists::from_value(v).map(|e| e.message),
    };
    message.unwrap_or_default()
}

/// The host part of `host:port` (`[v6]:port` too), the name the server's certificate must carry.
fn host_of(addr: &str) -> &str {
    let host = addr.rsplit_once(':').map_or(addr, |(h, _)| h);
    host.trim_start_matches('[').trim_end_matches(']')
}

impl Remote {
    /// Connects to `host:port`.
    pub fn connect(addr: &str) -> Result<Remote> {
        Remote::connect_with(addr, None, None)
    }

    /// Connects to `host:port`, over TLS when `tls` is given (the server's certificate must
    /// name `host`). The TLS handshake runs before this returns; a server that refuses the
    /// client's certificate answers after the client's last handshake message, so under TLS 1.3
    /// the refusal is reported by the first call.
    /// With `credentials` (user, password), authenticates with SASL PLAIN first (a gateway
    /// started with `--auth-file`).
    pub fn connect_with(
        addr: &str,
        tls: Option<&TlsClient>,
        credentials: Option<(&str, &str)>,
    ) -> Result<Remote> {
        let s = TcpStream::connect(addr)
            .map_err(|e| transport(format!("connecting to {addr}: {e}")))?;
        let _ = s.set_nodelay(true);
        let wire = match tls {
            None => Wire::Plain(s),
            Some(tls) => {
                let host = host_of(addr);
                let mut wire = tls.connect(host, s).map_err(transport)?;
                if let Wire::Tls(t) = &mut wire {
                    while t.conn.is_handshaking() {
                        t.conn
                            .complete_io(&mut t.sock)
                            .map_err(|e| transport(format!("TLS handshake with {addr}: {e}")))?;
                    }
                }
                wire
            }
        };
        let mut wire = wire;
        if let Some((user, password)) = credentials {
            ferrobase_security::sasl::connect_plain(&mut wire, user, password)
                .map_err(|e| transport(format!("authenticating to {addr}: {e}")))?;
        }
        Ok(Remote {
            addr: addr.to_string(),
            io: Mutex::new(Io {
                wire: BufReader::new(wire),
                seq_id: 0,
                ahead: None,
                parked: Vec::new(),
                tickets: 0,
            }),
            framed: credentials.is_some(),
            ferrobase: OnceLock::new(),
            no_scan_batches: std::sync::atomic::AtomicBool::new(false),
        })
    }

    /// The gateway's address.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Calls the method of `args` and returns its success value (None for void), or its
    /// exception.
    pub(super) fn call<A: Method>(&self, args: &A) -> Result<Option<TValue>> {
        self.call_struct(A::METHOD, &args.to_struct())
    }

    /// Calls a method whose success value is `list<TRowResult>` (`scannerGetList`), reading the
    /// rows straight into one buffer ([`RawRows`]) without a value tree; `None` for no value.
    pub(super) fn call_rows<A: Method>(&self, args: &A) -> Result<Option<RawRows>> {
        let mut g = self.lock_io();
        self.send(&mut g, A::METHOD, &args.to_struct())?;
        Self::receive_rows(&mut g, self.framed, A::METHOD)
    }

    fn receive_rows(g: &mut Io, framed: bool, name: &str) -> Result<Option<RawRows>> {
        let (rest, rows) = Self::receive(g, framed, name, |b| {
            ferrobase_thrift::read_rows_reply(b).map(|(rows, rest)| (rest, rows))
        })?;
        Self::exceptions(rest)?;
        Ok(rows)
    }

    /// Calls a method whose success value is a `TScanBatch` (`ferrobaseScannerOpen`,
    /// `ferrobaseScannerNext`): the scanner's id while it stays open, and its rows read straight
    /// into one buffer.
    pub(super) fn call_scan_batch<A: Method>(&self, args: &A) -> Result<RawScanBatch> {
        let mut g = self.lock_io();
        self.send(&mut g, A::METHOD, &args.to_struct())?;
        Self::receive_scan_batch(&mut g, self.framed, A::METHOD)
    }

    fn receive_scan_batch(g: &mut Io, framed: bool, name: &str) -> Result<RawScanBatch> {
        let (rest, batch) = Self::receive(g, framed, name, |b| {
            ferrobase_thrift::read_scan_batch_reply(b).map(|(batch, rest)| (rest, batch))
        })?;
        Self::exceptions(rest)?;
        batch.ok_or_else(|| ClientError::Transport(format!("the reply to {name} holds no batch")))
    }

    /// Sends a scanner's next call (`scannerGetList` or `ferrobaseScannerNext`) without
    /// waiting for its reply; [`Remote::receive_ahead`] with the ticket returned reads it. Any
    /// other call on this connection reads it first and keeps it for its ticket.
    pub(super) fn send_ahead<A: Method>(&self, args: &A, kind: Ahead) -> Result<u64> {
        let mut g = self.lock_io();
        self.send(&mut g, A::METHOD, &args.to_struct())?;
        g.tickets += 1;
        let ticket = g.tickets;
        g.ahead = Some((ticket, kind));
        Ok(ticket)
    }

    /// The reply to the call sent ahead as `ticket`.
    pub(super) fn receive_ahead(&self, ticket: u64) -> Result<Fetched> {
        let mut g = self.io.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(i) = g.parked.iter().position(|(t, _)| *t == ticket) {
            return g.parked.swap_remove(i).1;
        }
        match g.ahead {
            Some((t, kind)) if t == ticket => {
                g.ahead = None;
                Self::read_ahead(&mut g, self.framed, kind)
            }
            _ => Err(transport(format!(
                "the reply to a scanner's call sent ahead (ticket {ticket}) was lost"
            ))),
        }
    }

    fn read_ahead(g: &mut Io, framed: bool, kind: Ahead) -> Result<Fetched> {
        match kind {
            Ahead::Rows => Self::receive_rows(g, framed, "scannerGetList").map(Fetched::Rows),
            Ahead::Batch => {
                Self::receive_scan_batch(g, framed, "ferrobaseScannerNext").map(Fetched::Batch)
            }
        }
    }

    /// The socket, its reply to a call sent ahead read and kept first when one is pending.
    fn lock_io(&self) -> std::sync::MutexGuard<'_, Io> {
        let mut g = self.io.lock().unwrap_or_else(|p| p.into_inner());
        if let Some((ticket, kind)) = g.ahead.take() {
            let reply = Self::read_ahead(&mut g, self.framed, kind);
            g.parked.push((ticket, reply));
        }
        g
    }

    /// Whether scans may use `ferrobaseScannerOpen`/`ferrobaseScannerNext` (a ferrobase
    /// gateway that serves them).
    pub(super) fn scan_batches(&self) -> Result<bool> {
        Ok(self.is_ferrobase()?
            && !self
                .no_scan_batches
                .load(std::sync::atomic::Ordering::Relaxed))
    }

    /// Notes that the gateway does not serve the scanner calls with rows.
    pub(super) fn without_scan_batches(&self) {
        self.no_scan_batches
            .store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// The declared exception among a reply's fields, as an error.
    fn exceptions(body: TStruct) -> Result<()> {
        for (id, v) in body.fields {
            for (e, kind) in [
                (Exception::IOError, "IOError"),
                (Exception::IllegalArgument, "IllegalArgument"),
                (Exception::AlreadyExists, "AlreadyExists"),
            ] {
                if id == e.id() {
                    let message = exception_message(e, v);
                    return Err(ClientError::Remote { kind, message });
                }
            }
        }
        Ok(())
    }

    /// Calls `name` with arguments written as `args` (some of its values written by their
    /// producers, [`ferrobase_thrift::Encoded`]); its success value, if any.
    pub(super) fn call_struct(&self, name: &str, args: &TStruct) -> Result<Option<TValue>> {
        let (mut body, _) = self.exchange_struct(name, args, |b| {
            Binary.read_struct(b).map(|body| (body, None::<()>))
        })?;
        let mut success = None;
        if let Some(i) = body.fields.iter().position(|(id, _)| *id == RESULT_SUCCESS) {
            success = Some(body.fields.swap_remove(i).1);
        }
        Self::exceptions(body)?;
        Ok(success)
    }

    fn exchange_struct<T>(
        &self,
        name: &str,
        args: &TStruct,
        read: impl FnOnce(
            &mut Budget<'_, BufReader<ClientWire>>,
        )
            -> std::result::Result<(TStruct, Option<T>), ferrobase_thrift::ThriftError>,
    ) -> Result<(TStruct, Option<T>)> {
        let mut g = self.lock_io();
        self.send(&mut g, name, args)?;
        Self::receive(&mut g, self.framed, name, read)
    }

    /// Writes the call of `name` with arguments `args` (some of its values written by their
    /// producers, [`ferrobase_thrift::Encoded`]).
    fn send(&self, g: &mut Io, name: &str, args: &TStruct) -> Result<()> {
        g.seq_id = g.seq_id.wrapping_add(1);
        let seq_id = g.seq_id;
        // Sized once for values their producer writes (a batch of puts).
        let hint: usize = (args.fields.iter())
            .map(|(_, v)| match v {
                TValue::Encoded(e) => e.size_hint(),
                _ => 0,
            })
            .sum();
        let mut msg = Vec::with_capacity(256 + hint);
        Binary.write_header(
            &mut msg,
            &MessageHeader {
                name: name.into(),
                kind: MessageType::Call,
                seq_id,
            },
        );
        Binary.write_struct(&mut msg, args);
        if self.framed {
            let len = (msg.len() as u32).to_be_bytes();
            msg.splice(0..0, len);
        }
        let w = g.wire.get_mut();
        w.write_all(&msg)
            .and_then(|()| w.flush())
            .map_err(transport)
    }

    /// Reads the reply to the call of `name` sent last: its body with `read`, which gives the
    /// reply's fields (as a tree) and what it read apart; an application exception is an error.
    fn receive<T>(
        g: &mut Io,
        framed: bool,
        name: &str,
        read: impl FnOnce(
            &mut Budget<'_, BufReader<ClientWire>>,
        )
            -> std::result::Result<(TStruct, Option<T>), ferrobase_thrift::ThriftError>,
    ) -> Result<(TStruct, Option<T>)> {
        if framed {
            // The frame holds exactly the reply; its length is not needed to parse it.
            let mut len = [0u8; 4];
            std::io::Read::read_exact(&mut g.wire, &mut len).map_err(transport)?;
        }
        let mut b = Budget::new(&mut g.wire, &REPLY_LIMITS);
        let h = Binary.read_header(&mut b).map_err(transport)?;
        let (body, value) = read(&mut b).map_err(transport)?;
        if let Some(over) = b.overrun() {
            return Err(ClientError::Transport(format!(
                "the reply to {name} is larger than this client decodes ({over})"
            )));
        }
        if h.kind == MessageType::Exception {
            let msg = TApplicationException::from_struct(body)
                .map(|e| e.message)
                .unwrap_or_default();
            return Err(ClientError::Transport(if msg.is_empty() {
                "application exception".into()
            } else {
                msg
            }));
        }
        Ok((body, value))
    }

    /// True when the gateway is ferrobase's: it answers `ferrobaseAdmin` (here an unknown op,
    /// which changes nothing) with a declared exception, where Apache's answers "Invalid method
    /// name".
    pub(crate) fn is_ferrobase(&self) -> Result<bool> {
        if let Some(&known) = self.ferrobase.get() {
            return Ok(known);
        }
        let known = match self.admin_ext(AdminOp::Capabilities, "-", b"", &[]) {
            Err(ClientError::Unsupported(_)) => false,
            Err(ClientError::Transport(e)) => return Err(ClientError::Transport(e)),
            _ => true,
        };
        Ok(*self.ferrobase.get_or_init(|| known))
    }
}
