//! The Thrift backend: HBase's Thrift1 `Hbase` service over a buffered binary connection.

use crate::{ClientError, Result, Scanner};
use ferrobase_engine::client::RegionInfo;
use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::{
    Cell, CellType, ColumnFamilyDescriptor, Delete, Get, Put, RowResult, Scan, TableDescriptor,
    LATEST_TIMESTAMP,
};
use ferrobase_gateway::thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, TStruct, TType, TValue,
};
use ferrobase_gateway::tls::{ClientWire, TlsClient, Wire};
use std::io::{BufReader, Write};
use std::net::TcpStream;
use std::sync::{Arc, Mutex, OnceLock};

/// What a reply may take: 256 MiB on the wire, 1 GiB decoded.
const REPLY_LIMITS: Limits = Limits {
    max_message: 256 << 20,
    max_depth: 32,
    max_decoded: 1 << 30,
};

/// A connection to a Thrift gateway. Calls are serialised on one socket.
pub struct Remote {
    addr: String,
    /// The socket (plain or TLS) behind its read buffer, and the last sequence id.
    io: Mutex<(BufReader<ClientWire>, i32)>,
    /// Messages go as frames (after SASL authentication).
    framed: bool,
    /// Whether the gateway answers `ferrobaseAdmin` (a ferrobase gateway), learnt on first need.
    ferrobase: OnceLock<bool>,
}

/// The family attributes HBase's Thrift1 `ColumnDescriptor` carries. The others (MIN_VERSIONS,
/// KEEP_DELETED_CELLS, BLOCKSIZE, DATA_BLOCK_ENCODING) are set through a ferrobase gateway's
/// `ferrobaseAdmin put_family` and cannot be set through Apache HBase's Thrift1 gateway.
const THRIFT1_FAMILY_ATTRIBUTES: [&str; 6] = [
    "VERSIONS",
    "TTL",
    "BLOCKCACHE",
    "IN_MEMORY",
    "BLOOMFILTER",
    "COMPRESSION",
];

/// The attributes of `f` that differ from a new family's and that Thrift1's `ColumnDescriptor`
/// cannot carry, in HBase's spelling.
fn beyond_thrift1(f: &ColumnFamilyDescriptor) -> Vec<(String, String)> {
    let defaults = ColumnFamilyDescriptor::new(f.name.clone()).to_attributes();
    f.to_attributes()
        .into_iter()
        .zip(defaults)
        .filter(|((k, v), (_, d))| !THRIFT1_FAMILY_ATTRIBUTES.contains(k) && v != d)
        .map(|((k, v), _)| (k.to_string(), v))
        .collect()
}

fn transport(e: impl std::fmt::Display) -> ClientError {
    ClientError::Transport(e.to_string())
}

fn bin(b: impl Into<Vec<u8>>) -> TValue {
    TValue::Binary(b.into())
}

fn text(s: &str) -> TValue {
    TValue::string(s)
}

fn no_attrs() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, Vec::new())
}

fn column(family: &[u8], qualifier: Option<&[u8]>) -> Vec<u8> {
    let mut c = family.to_vec();
    if let Some(q) = qualifier {
        c.push(b':');
        c.extend_from_slice(q);
    }
    c
}

fn columns_of(sel: &ferrobase_engine::client::ColumnSelection) -> TValue {
    let mut out = Vec::new();
    for (f, qs) in sel {
        if qs.is_empty() {
            out.push(bin(column(f, None)));
        }
        for q in qs {
            out.push(bin(column(f, Some(q))));
        }
    }
    TValue::List(TType::Binary, out)
}

/// The exclusive upper bound of a time range as Thrift1's `*Ts` calls and `TScan.timestamp`
/// take it (they read `[0, ts)`); `None` when unbounded. A lower bound is applied by the client
/// ([`keep_from`]): the newest versions below the upper bound that are not below the lower
/// bound are exactly the newest versions in the range.
fn time_bound(tr: &ferrobase_engine::TimeRange) -> Option<i64> {
    (tr.max != i64::MAX).then_some(tr.max)
}

/// Drops the cells of `row` older than `min` (a time range's lower bound, which Thrift1 cannot
/// carry); `None` when none is left.
fn keep_from(mut row: RowResult, min: i64) -> Option<RowResult> {
    if min > 0 {
        row.cells.retain(|c| c.timestamp() >= min);
    }
    (!row.cells.is_empty()).then_some(row)
}

/// Why RAW cannot be read over Thrift1, worded as HBase's shell words an unusable argument.
const RAW_UNSUPPORTED: &str = "RAW => true is not expressible through HBase's Thrift1 API (its \
    TScan and get calls carry no raw flag, so delete markers and the cells they mask cannot be \
    read); use an embedded shell (--data DIR) or HBase's own shell";

/// Parses a `TRowResult` into a row with cells sorted by column.
fn row_result(v: &TValue) -> Option<RowResult> {
    let TValue::Struct(s) = v else { return None };
    let Some(TValue::Binary(row)) = s.get(1) else {
        return None;
    };
    // One buffer for the row, shared by the result and each of its cells.
    let row = ferrobase_engine::Bytes::copy_from_slice(row);
    let mut cells = Vec::new();
    let mut push = |name: &[u8], cell: &TStruct| {
        let (family, qualifier) = match name.iter().position(|&b| b == b':') {
            Some(i) => (name[..i].to_vec(), name[i + 1..].to_vec()),
            None => (name.to_vec(), Vec::new()),
        };
        let value = match cell.get(1) {
            Some(TValue::Binary(b)) => b.clone(),
            _ => Vec::new(),
        };
        let timestamp = match cell.get(2) {
            Some(TValue::I64(t)) => *t,
            _ => 0,
        };
        cells.push(Cell::new(
            row.clone(),
            family,
            qualifier,
            timestamp,
            CellType::Put,
            value,
        ));
    };
    if let Some(TValue::Map(_, _, entries)) = s.get(2) {
        for (k, v) in entries {
            if let (TValue::Binary(name), TValue::Struct(cell)) = (k, v) {
                push(name, cell);
            }
        }
    }
    if let Some(TValue::List(_, cols)) = s.get(3) {
        for c in cols {
            if let TValue::Struct(tc) = c {
                if let (Some(TValue::Binary(name)), Some(TValue::Struct(cell))) =
                    (tc.get(1), tc.get(2))
                {
                    push(name, cell);
                }
            }
        }
    }
    cells.sort_by(|a, b| {
        (a.family(), a.qualifier())
            .cmp(&(b.family(), b.qualifier()))
            .then(b.timestamp().cmp(&a.timestamp()))
    });
    Some(RowResult::new(row, cells))
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
            ferrobase_gateway::sasl::connect_plain(&mut wire, user, password)
                .map_err(|e| transport(format!("authenticating to {addr}: {e}")))?;
        }
        Ok(Remote {
            addr: addr.to_string(),
            io: Mutex::new((BufReader::new(wire), 0)),
            framed: credentials.is_some(),
            ferrobase: OnceLock::new(),
        })
    }

    /// The gateway's address.
    pub fn addr(&self) -> &str {
        &self.addr
    }

    /// Calls `name` and returns its success value (None for void), or its exception.
    fn call(&self, name: &str, args: TStruct) -> Result<Option<TValue>> {
        let mut g = self.io.lock().unwrap_or_else(|p| p.into_inner());
        g.1 = g.1.wrapping_add(1);
        let seq_id = g.1;
        let mut msg = Vec::new();
        Binary.write_header(
            &mut msg,
            &MessageHeader {
                name: name.into(),
                kind: MessageType::Call,
                seq_id,
            },
        );
        Binary.write_struct(&mut msg, &args);
        if self.framed {
            let len = (msg.len() as u32).to_be_bytes();
            msg.splice(0..0, len);
        }
        let w = g.0.get_mut();
        w.write_all(&msg)
            .and_then(|()| w.flush())
            .map_err(transport)?;
        if self.framed {
            // The frame holds exactly the reply; its length is not needed to parse it.
            let mut len = [0u8; 4];
            std::io::Read::read_exact(&mut g.0, &mut len).map_err(transport)?;
        }
        let mut b = Budget::new(&mut g.0, &REPLY_LIMITS);
        let h = Binary.read_header(&mut b).map_err(transport)?;
        let body = Binary.read_struct(&mut b).map_err(transport)?;
        if let Some(over) = b.overrun() {
            return Err(ClientError::Transport(format!(
                "the reply to {name} is larger than this client decodes ({over})"
            )));
        }
        if h.kind == MessageType::Exception {
            let msg = match body.get(1) {
                Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                _ => "application exception".into(),
            };
            return Err(ClientError::Transport(msg));
        }
        for (id, kind) in [(1, "IOError"), (2, "IllegalArgument"), (3, "AlreadyExists")] {
            if let Some(TValue::Struct(e)) = body.get(id) {
                let message = match e.get(1) {
                    Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
                    _ => String::new(),
                };
                return Err(ClientError::Remote { kind, message });
            }
        }
        Ok(body.get(0).cloned())
    }

    /// True when the gateway is ferrobase's: it answers `ferrobaseAdmin` (here an unknown op,
    /// which changes nothing) with a declared exception, where Apache's answers "Invalid method
    /// name".
    pub(crate) fn is_ferrobase(&self) -> Result<bool> {
        if let Some(&known) = self.ferrobase.get() {
            return Ok(known);
        }
        let known = match self.admin_ext("capabilities", "-", b"", &[]) {
            Err(ClientError::Unsupported(_)) => false,
            Err(ClientError::Transport(e)) => return Err(ClientError::Transport(e)),
            _ => true,
        };
        Ok(*self.ferrobase.get_or_init(|| known))
    }

    /// Creates the table. Family attributes Thrift1's `ColumnDescriptor` lacks (MIN_VERSIONS,
    /// KEEP_DELETED_CELLS, BLOCKSIZE, DATA_BLOCK_ENCODING) are set right after through a
    /// ferrobase gateway's `ferrobaseAdmin`; Apache's gateway cannot take them, so the call
    /// fails before creating anything rather than create a table without them.
    pub(crate) fn create_table(&self, desc: &TableDescriptor) -> Result<()> {
        let extras: Vec<(&ColumnFamilyDescriptor, Vec<(String, String)>)> = desc
            .families
            .iter()
            .map(|f| (f, beyond_thrift1(f)))
            .filter(|(_, attrs)| !attrs.is_empty())
            .collect();
        let mut table_attrs: Vec<(String, String)> = desc
            .attributes
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if desc.durability != ferrobase_engine::Durability::UseDefault {
            table_attrs.push(("DURABILITY".into(), desc.durability.name().to_string()));
        }
        if let Some((k, _)) = table_attrs.first() {
            if !self.is_ferrobase()? {
                return Err(ClientError::Unsupported(format!(
                    "table attribute {k} cannot be set through HBase's Thrift1 API (createTable \
                     takes only column descriptors); create the table with HBase's shell or Admin API"
                )));
            }
        }
        if let Some((f, attrs)) = extras.first() {
            if !self.is_ferrobase()? {
                let names: Vec<&str> = attrs.iter().map(|(k, _)| k.as_str()).collect();
                return Err(ClientError::Unsupported(format!(
                    "{} of family {} cannot be set through HBase's Thrift1 API (its ColumnDescriptor \
                     has no such field); create the table with HBase's shell or Admin API",
                    names.join(", "),
                    f.name_str()
                )));
            }
        }
        let fams = desc
            .families
            .iter()
            .map(|f| {
                TValue::Struct(
                    TStruct::new()
                        .with(1, bin(column(&f.name, Some(b""))))
                        .with(2, TValue::I32(f.max_versions as i32))
                        .with(3, text(f.compression.name()))
                        .with(4, TValue::Bool(f.in_memory))
                        .with(5, text(f.bloom_filter.name()))
                        .with(8, TValue::Bool(f.block_cache))
                        .with(
                            9,
                            TValue::I32(if f.ttl_seconds >= FOREVER {
                                -1
                            } else {
                                f.ttl_seconds as i32
                            }),
                        ),
                )
            })
            .collect();
        self.call(
            "createTable",
            TStruct::new()
                .with(1, text(&desc.name.to_string()))
                .with(2, TValue::List(TType::Struct, fams)),
        )?;
        let table = desc.name.to_string();
        if !table_attrs.is_empty() {
            self.admin_ext("set_table_attributes", &table, b"", &table_attrs)?;
        }
        for (f, attrs) in extras {
            let mut all = vec![("NAME".to_string(), f.name_str())];
            all.extend(attrs);
            self.admin_ext("put_family", &table, b"", &all)?;
        }
        Ok(())
    }

    pub(crate) fn table_names(&self) -> Result<Vec<String>> {
        match self.call("getTableNames", TStruct::new())? {
            Some(TValue::List(_, items)) => Ok(items
                .iter()
                .filter_map(|v| match v {
                    TValue::Binary(b) => Some(String::from_utf8_lossy(b).into_owned()),
                    _ => None,
                })
                .collect()),
            _ => Ok(Vec::new()),
        }
    }

    pub(crate) fn column_descriptors(&self, table: &str) -> Result<Vec<ColumnFamilyDescriptor>> {
        let Some(TValue::Map(_, _, entries)) =
            self.call("getColumnDescriptors", TStruct::new().with(1, text(table)))?
        else {
            return Ok(Vec::new());
        };
        let mut out = Vec::new();
        for (_, v) in entries {
            let TValue::Struct(s) = v else { continue };
            let Some(TValue::Binary(name)) = s.get(1) else {
                continue;
            };
            let name = name.strip_suffix(b":").unwrap_or(name);
            let mut f = ColumnFamilyDescriptor::new(name);
            if let Some(TValue::I32(v)) = s.get(2) {
                f.max_versions = (*v).max(1) as u32;
            }
            if let Some(TValue::Binary(c)) = s.get(3) {
                let _ = f.set_attribute("COMPRESSION", &String::from_utf8_lossy(c));
            }
            if let Some(TValue::Bool(b)) = s.get(4) {
                f.in_memory = *b;
            }
            if let Some(TValue::Binary(c)) = s.get(5) {
                let _ = f.set_attribute("BLOOMFILTER", &String::from_utf8_lossy(c));
            }
            if let Some(TValue::Bool(b)) = s.get(8) {
                f.block_cache = *b;
            }
            if let Some(TValue::I32(t)) = s.get(9) {
                f.ttl_seconds = if *t <= 0 { FOREVER } else { i64::from(*t) };
            }
            out.push(f);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    pub(crate) fn is_enabled(&self, table: &str) -> Result<bool> {
        Ok(matches!(
            self.call("isTableEnabled", TStruct::new().with(1, text(table)))?,
            Some(TValue::Bool(true))
        ))
    }

    pub(crate) fn set_enabled(&self, table: &str, enabled: bool) -> Result<()> {
        self.call(
            if enabled {
                "enableTable"
            } else {
                "disableTable"
            },
            TStruct::new().with(1, text(table)),
        )?;
        Ok(())
    }

    pub(crate) fn delete_table(&self, table: &str) -> Result<()> {
        self.call("deleteTable", TStruct::new().with(1, text(table)))?;
        Ok(())
    }

    pub(crate) fn compact(&self, table: &str, major: bool) -> Result<()> {
        self.call(
            if major { "majorCompact" } else { "compact" },
            TStruct::new().with(1, text(table)),
        )?;
        Ok(())
    }

    /// A ferrobase gateway's administration extension (`ferrobaseAdmin`).
    pub(crate) fn admin_ext(
        &self,
        op: &str,
        table: &str,
        key: &[u8],
        attrs: &[(String, String)],
    ) -> Result<()> {
        self.admin_call(op, table, key, attrs).map(|_| ())
    }

    /// `ferrobaseAdmin` with its answer.
    pub(crate) fn admin_call(
        &self,
        op: &str,
        table: &str,
        key: &[u8],
        attrs: &[(String, String)],
    ) -> Result<Option<TValue>> {
        let map = attrs.iter().map(|(k, v)| (text(k), text(v))).collect();
        let args = TStruct::new()
            .with(1, text(op))
            .with(2, text(table))
            .with(3, bin(key.to_vec()))
            .with(4, TValue::Map(TType::Binary, TType::Binary, map));
        match self.call("ferrobaseAdmin", args) {
            Err(ClientError::Transport(m)) if m.contains("Invalid method name") => {
                Err(ClientError::Unsupported(format!(
                "{op} is not available through HBase's Thrift1 API (this gateway is not ferrobase)"
            )))
            }
            other => other,
        }
    }

    /// Thrift1's `grant`/`revoke(TAccessControlEntity)`: a table (`scope` 0) or namespace
    /// (`scope` 1) grant, as HBase 2.x's gateway takes it.
    pub(crate) fn thrift_grant(
        &self,
        grant: bool,
        user: &str,
        scope: i32,
        name: &str,
        actions: &str,
    ) -> Result<()> {
        let mut e = TStruct::new()
            .with(1, text(user))
            .with(2, TValue::I32(scope))
            .with(4, text(actions));
        e = if scope == 0 {
            e.with(5, text(name))
        } else {
            e.with(6, text(name))
        };
        let method = if grant { "grant" } else { "revoke" };
        self.call(method, TStruct::new().with(1, TValue::Struct(e)))
            .map(|_| ())
    }

    pub(crate) fn regions(&self, table: &str) -> Result<Vec<RegionInfo>> {
        let Some(TValue::List(_, items)) =
            self.call("getTableRegions", TStruct::new().with(1, text(table)))?
        else {
            return Ok(Vec::new());
        };
        Ok(items
            .iter()
            .filter_map(|v| match v {
                TValue::Struct(s) => Some(RegionInfo {
                    id: match s.get(3) {
                        Some(TValue::I64(i)) => *i as u64,
                        _ => 0,
                    },
                    start: match s.get(1) {
                        Some(TValue::Binary(b)) => b.clone(),
                        _ => Vec::new(),
                    },
                    end: match s.get(2) {
                        Some(TValue::Binary(b)) => b.clone(),
                        _ => Vec::new(),
                    },
                    memstore_bytes: 0,
                    file_bytes: 0,
                    file_count: 0,
                }),
                _ => None,
            })
            .collect())
    }

    fn mutation(is_delete: bool, col: Vec<u8>, value: Vec<u8>, wal: bool) -> TValue {
        TValue::Struct(
            TStruct::new()
                .with(1, TValue::Bool(is_delete))
                .with(2, bin(col))
                .with(3, bin(value))
                .with(4, TValue::Bool(wal)),
        )
    }

    pub(crate) fn put_all(&self, table: &str, puts: Vec<Put>) -> Result<()> {
        // One mutateRowsTs per distinct timestamp (Thrift1 mutations carry no timestamp).
        let mut by_ts: std::collections::BTreeMap<i64, Vec<TValue>> = Default::default();
        for p in puts {
            let wal = p.durability != ferrobase_engine::Durability::SkipWal;
            let mut per_ts: std::collections::BTreeMap<i64, Vec<TValue>> = Default::default();
            for c in p.cells {
                per_ts.entry(c.timestamp).or_default().push(Self::mutation(
                    false,
                    column(&c.family, Some(&c.qualifier)),
                    c.value,
                    wal,
                ));
            }
            for (ts, muts) in per_ts {
                by_ts.entry(ts).or_default().push(TValue::Struct(
                    TStruct::new()
                        .with(1, bin(p.row.clone()))
                        .with(2, TValue::List(TType::Struct, muts)),
                ));
            }
        }
        for (ts, batches) in by_ts {
            let args = TStruct::new()
                .with(1, text(table))
                .with(2, TValue::List(TType::Struct, batches));
            if ts == LATEST_TIMESTAMP {
                self.call("mutateRows", args.with(3, no_attrs()))?;
            } else {
                self.call(
                    "mutateRowsTs",
                    args.with(3, TValue::I64(ts)).with(4, no_attrs()),
                )?;
            }
        }
        Ok(())
    }

    pub(crate) fn delete(&self, table: &str, d: Delete) -> Result<()> {
        if d.cells.is_empty() {
            let args = TStruct::new().with(1, text(table)).with(2, bin(d.row));
            if d.timestamp == LATEST_TIMESTAMP {
                self.call("deleteAllRow", args.with(3, no_attrs()))?;
            } else {
                self.call(
                    "deleteAllRowTs",
                    args.with(3, TValue::I64(d.timestamp)).with(4, no_attrs()),
                )?;
            }
            return Ok(());
        }
        for c in d.cells {
            let col = match c.cell_type {
                CellType::DeleteColumn => column(&c.family, Some(&c.qualifier)),
                CellType::DeleteFamily => column(&c.family, None),
                other => {
                    return Err(ClientError::Unsupported(format!(
                        "{} markers cannot be written through HBase's Thrift1 API (it deletes all versions up to a timestamp)",
                        other.name()
                    )))
                }
            };
            let args = TStruct::new()
                .with(1, text(table))
                .with(2, bin(d.row.clone()))
                .with(3, bin(col));
            if c.timestamp == LATEST_TIMESTAMP {
                self.call("deleteAll", args.with(4, no_attrs()))?;
            } else {
                self.call(
                    "deleteAllTs",
                    args.with(4, TValue::I64(c.timestamp)).with(5, no_attrs()),
                )?;
            }
        }
        Ok(())
    }

    fn scan_struct(scan: &Scan, filter: Option<&[u8]>) -> Result<TStruct> {
        if scan.filter.is_some() {
            return Err(ClientError::Unsupported(
                "over Thrift, give filters as filter-language strings".into(),
            ));
        }
        if scan.raw {
            return Err(ClientError::Unsupported(RAW_UNSUPPORTED.into()));
        }
        if scan.time_range.min > 0 && filter.is_some() {
            return Err(ClientError::Unsupported(
                "a time range with a lower bound together with a filter is not expressible \
                 through HBase's Thrift1 API (it filters cells of [0, ts), some of which the \
                 lower bound would have excluded before the filter saw them)"
                    .into(),
            ));
        }
        if scan.max_versions > 1 {
            return Err(ClientError::Unsupported(format!(
                "VERSIONS => {} in a scan is not expressible through HBase's Thrift1 API (its \
                 TScan has no maxVersions: a scan returns the newest version of each cell); \
                 get a row's versions with get, or use an embedded shell (--data DIR)",
                scan.max_versions
            )));
        }
        let mut s = TStruct::new();
        if !scan.start_row.is_empty() {
            let mut start = scan.start_row.clone();
            if !scan.start_inclusive {
                if scan.reversed {
                    // Reversed with an exclusive start: the largest row below it comes first.
                    return Err(ClientError::Unsupported(
                        "an exclusive start row in a reversed scan".into(),
                    ));
                }
                start.push(0);
            }
            s = s.with(1, bin(start));
        }
        if !scan.stop_row.is_empty() {
            let mut stop = scan.stop_row.clone();
            if scan.stop_inclusive && !scan.reversed {
                stop.push(0);
            }
            s = s.with(2, bin(stop));
        }
        if let Some(ts) = time_bound(&scan.time_range) {
            s = s.with(3, TValue::I64(ts));
        }
        if !scan.columns.is_empty() {
            s = s.with(4, columns_of(&scan.columns));
        }
        s = s.with(5, TValue::I32(scan.caching.min(i32::MAX as usize) as i32));
        if let Some(f) = filter {
            s = s.with(6, bin(f.to_vec()));
        }
        if let Some(b) = scan.batch {
            s = s.with(7, TValue::I32(b.min(i32::MAX as usize) as i32));
        }
        if scan.allow_partial_results && scan.max_result_size.is_some() {
            // Without partial results a maximum size means whole rows, which is what a
            // gateway returns; with them, Thrift1 has no field to carry the size.
            return Err(ClientError::Unsupported(
                "a maximum result size with partial results (Thrift1 carries only batch)".into(),
            ));
        }
        if scan.reversed {
            s = s.with(9, TValue::Bool(true));
        }
        Ok(s)
    }

    pub(crate) fn scanner(
        self: &Arc<Self>,
        table: &str,
        scan: &Scan,
        filter: Option<&[u8]>,
    ) -> Result<Scanner> {
        let ts = Self::scan_struct(scan, filter)?;
        if let Some(name) = filter.and_then(crate::filter_language::extension_in) {
            if !self.is_ferrobase()? {
                return Err(ClientError::Unsupported(format!(
                    "{name} is not in Apache HBase's filter language (its Thrift1 gateway's \
                     ParseFilter has no {name}); it is a ferrobase extension"
                )));
            }
        }
        let id = match self.call(
            "scannerOpenWithScan",
            TStruct::new()
                .with(1, text(table))
                .with(2, TValue::Struct(ts))
                .with(3, no_attrs()),
        )? {
            Some(TValue::I32(id)) => id,
            other => return Err(transport(format!("unexpected scanner id {other:?}"))),
        };
        Ok(Scanner::Remote(Box::new(RemoteScanner {
            remote: self.clone(),
            id,
            limit: scan.limit,
            min_ts: scan.time_range.min,
            returned: 0,
            closed: false,
        })))
    }

    pub(crate) fn get(
        self: &Arc<Self>,
        table: &str,
        get: &Get,
        filter: Option<&[u8]>,
    ) -> Result<RowResult> {
        if get.raw {
            return Err(ClientError::Unsupported(RAW_UNSUPPORTED.into()));
        }
        let empty = || RowResult::new(get.row.clone(), Vec::new());
        if get.max_versions > 1 {
            if filter.is_some() {
                return Err(ClientError::Unsupported(
                    "a filtered multi-version get over Thrift1".into(),
                ));
            }
            // Learn the columns, then read their versions.
            let newest = self.get(
                table,
                &Get {
                    max_versions: 1,
                    ..get.clone()
                },
                None,
            )?;
            let ts = time_bound(&get.time_range);
            let mut cells = Vec::new();
            for c in &newest.cells {
                let col = column(c.family(), Some(c.qualifier()));
                let args = TStruct::new()
                    .with(1, text(table))
                    .with(2, bin(get.row.clone()))
                    .with(3, bin(col));
                let reply = match ts {
                    Some(ts) => self.call(
                        "getVerTs",
                        args.with(4, TValue::I64(ts))
                            .with(5, TValue::I32(get.max_versions as i32))
                            .with(6, no_attrs()),
                    )?,
                    None => self.call(
                        "getVer",
                        args.with(4, TValue::I32(get.max_versions as i32))
                            .with(5, no_attrs()),
                    )?,
                };
                if let Some(TValue::List(_, items)) = reply {
                    for it in items {
                        if let TValue::Struct(s) = it {
                            cells.push(Cell::new(
                                get.row.clone(),
                                c.family_bytes(),
                                c.qualifier_bytes(),
                                match s.get(2) {
                                    Some(TValue::I64(t)) => *t,
                                    _ => 0,
                                },
                                CellType::Put,
                                match s.get(1) {
                                    Some(TValue::Binary(b)) => {
                                        ferrobase_engine::Bytes::from(b.clone())
                                    }
                                    _ => ferrobase_engine::Bytes::new(),
                                },
                            ));
                        }
                    }
                }
            }
            return Ok(
                keep_from(RowResult::new(get.row.clone(), cells), get.time_range.min)
                    .unwrap_or_else(empty),
            );
        }
        if filter.is_none() {
            // One round trip: getRowWithColumns(Ts).
            let args = TStruct::new()
                .with(1, text(table))
                .with(2, bin(get.row.clone()))
                .with(3, columns_of(&get.columns));
            let reply = match time_bound(&get.time_range) {
                Some(ts) => self.call(
                    "getRowWithColumnsTs",
                    args.with(4, TValue::I64(ts)).with(5, no_attrs()),
                )?,
                None => self.call("getRowWithColumns", args.with(4, no_attrs()))?,
            };
            let row = match reply {
                Some(TValue::List(_, items)) => items.first().and_then(row_result),
                _ => None,
            };
            return Ok(row
                .and_then(|r| keep_from(r, get.time_range.min))
                .unwrap_or_else(empty));
        }
        let mut stop = get.row.clone();
        stop.push(0);
        let scan = Scan {
            columns: get.columns.clone(),
            time_range: get.time_range,
            ..Scan::new()
                .with_start_row(get.row.clone())
                .with_stop_row(stop)
        };
        let mut s = self.scanner(table, &scan, filter)?;
        let mut rows = s.next_batch(1)?;
        Ok(rows.pop().unwrap_or_else(empty))
    }

    pub(crate) fn increment(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        let args = TStruct::new()
            .with(1, text(table))
            .with(2, bin(row.to_vec()))
            .with(3, bin(column(family, Some(qualifier))))
            .with(4, TValue::I64(amount));
        match self.call("atomicIncrement", args)? {
            Some(TValue::I64(v)) => Ok(v),
            other => Err(transport(format!("unexpected increment reply {other:?}"))),
        }
    }

    pub(crate) fn check_and_put(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: Option<&[u8]>,
        put: Put,
    ) -> Result<bool> {
        if put.cells.len() != 1 || put.row != row {
            return Err(ClientError::Unsupported(
                "HBase's Thrift1 checkAndPut carries exactly one cell of the checked row".into(),
            ));
        }
        let c = &put.cells[0];
        let mput = Self::mutation(
            false,
            column(&c.family, Some(&c.qualifier)),
            c.value.clone(),
            true,
        );
        let mut args = TStruct::new()
            .with(1, text(table))
            .with(2, bin(row.to_vec()))
            .with(3, bin(column(family, Some(qualifier))));
        if let Some(v) = expected {
            args = args.with(5, bin(v.to_vec()));
        }
        match self.call("checkAndPut", args.with(6, mput).with(7, no_attrs()))? {
            Some(TValue::Bool(b)) => Ok(b),
            other => Err(transport(format!("unexpected checkAndPut reply {other:?}"))),
        }
    }

    pub(crate) fn append(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
    ) -> Result<Vec<u8>> {
        let ap = TStruct::new()
            .with(1, text(table))
            .with(2, bin(row.to_vec()))
            .with(
                3,
                TValue::List(TType::Binary, vec![bin(column(family, Some(qualifier)))]),
            )
            .with(4, TValue::List(TType::Binary, vec![bin(value.to_vec())]));
        match self.call("append", TStruct::new().with(1, TValue::Struct(ap)))? {
            Some(TValue::List(_, cells)) => match cells.first() {
                Some(TValue::Struct(c)) => match c.get(1) {
                    Some(TValue::Binary(b)) => Ok(b.clone()),
                    _ => Ok(Vec::new()),
                },
                _ => Ok(Vec::new()),
            },
            _ => Ok(Vec::new()),
        }
    }
}

/// A scanner open on the gateway; closed when exhausted or dropped.
pub struct RemoteScanner {
    remote: Arc<Remote>,
    id: i32,
    limit: Option<usize>,
    /// The scan's time range's lower bound, applied here (Thrift1 carries only the upper).
    min_ts: i64,
    returned: usize,
    closed: bool,
}

impl RemoteScanner {
    pub(crate) fn next_batch(&mut self, n: usize) -> Result<Vec<RowResult>> {
        if self.closed {
            return Ok(Vec::new());
        }
        let want = match self.limit {
            Some(l) => n.min(l.saturating_sub(self.returned)),
            None => n,
        };
        if want == 0 {
            self.close();
            return Ok(Vec::new());
        }
        // Rows left empty by the lower time bound are skipped: an empty batch means the end.
        loop {
            let reply = self.remote.call(
                "scannerGetList",
                TStruct::new()
                    .with(1, TValue::I32(self.id))
                    .with(2, TValue::I32(want.min(i32::MAX as usize) as i32)),
            )?;
            let rows: Vec<RowResult> = match reply {
                Some(TValue::List(_, items)) => items.iter().filter_map(row_result).collect(),
                _ => Vec::new(),
            };
            if rows.is_empty() {
                self.close();
                return Ok(rows);
            }
            let rows: Vec<RowResult> = rows
                .into_iter()
                .filter_map(|r| keep_from(r, self.min_ts))
                .collect();
            if !rows.is_empty() {
                self.returned += rows.len();
                return Ok(rows);
            }
        }
    }

    fn close(&mut self) {
        if !self.closed {
            self.closed = true;
            let _ = self
                .remote
                .call("scannerClose", TStruct::new().with(1, TValue::I32(self.id)));
        }
    }
}

impl Drop for RemoteScanner {
    fn drop(&mut self) {
        self.close();
    }
}
