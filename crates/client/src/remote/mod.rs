//! The Thrift backend: HBase's Thrift1 `Hbase` service over a buffered binary connection.

use crate::{ClientError, Result, Scanner};
use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::RegionInfo;
use ferrobase_engine::{
    Cell, CellType, ColumnFamilyDescriptor, Delete, Get, Put, RowResult, Scan, TableDescriptor,
    LATEST_TIMESTAMP,
};
use ferrobase_gateway::tls::{ClientWire, TlsClient, Wire};
use ferrobase_thrift::hbase::service::{
    AppendArgs, AtomicIncrementArgs, CheckAndPutArgs, CompactArgs, CreateTableArgs, DeleteAllArgs,
    DeleteAllRowArgs, DeleteAllRowTsArgs, DeleteAllTsArgs, DeleteTableArgs, DisableTableArgs,
    EnableTableArgs, FerrobaseAdminArgs, GetColumnDescriptorsArgs, GetRowWithColumnsArgs,
    GetRowWithColumnsTsArgs, GetTableNamesArgs, GetTableRegionsArgs, GetVerArgs, GetVerTsArgs,
    GrantArgs, IsTableEnabledArgs, MajorCompactArgs, MutateRowsArgs, MutateRowsTsArgs, RevokeArgs,
    ScannerCloseArgs, ScannerGetListArgs, ScannerOpenWithScanArgs,
};
use ferrobase_thrift::hbase::{
    permission_scope, AlreadyExists, BatchMutation, ColumnDescriptor, Exception, IOError,
    IllegalArgument, Method, Mutation, TAccessControlEntity, TAppend, TApplicationException, TCell,
    TRegionInfo, TRowResult, TScan, RESULT_SUCCESS,
};
use ferrobase_thrift::{
    Binary, Budget, Codec, Limits, MessageHeader, MessageType, TValue, ThriftStruct, ThriftValue,
};
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

fn column(family: &[u8], qualifier: Option<&[u8]>) -> Vec<u8> {
    let mut c = family.to_vec();
    if let Some(q) = qualifier {
        c.push(b':');
        c.extend_from_slice(q);
    }
    c
}

fn columns_of(sel: &ferrobase_engine::ColumnSelection) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for (f, qs) in sel {
        if qs.is_empty() {
            out.push(column(f, None));
        }
        for q in qs {
            out.push(column(f, Some(q)));
        }
    }
    out
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

/// The return value of method `name`, as its declared type.
fn reply<T: ThriftValue>(name: &str, v: Option<TValue>) -> Result<T> {
    let v = v.ok_or_else(|| transport(format!("the reply to {name} has no result")))?;
    T::from_value(v).map_err(|e| transport(format!("the reply to {name}: {e}")))
}

/// A `TRowResult` as a row with cells sorted by column.
fn row_result(r: TRowResult) -> RowResult {
    // One buffer for the row, shared by the result and each of its cells.
    let row = ferrobase_engine::Bytes::from(r.row);
    let mut cells = Vec::new();
    let mut push = |name: &[u8], cell: TCell| {
        let (family, qualifier) = match name.iter().position(|&b| b == b':') {
            Some(i) => (name[..i].to_vec(), name[i + 1..].to_vec()),
            None => (name.to_vec(), Vec::new()),
        };
        cells.push(Cell::new(
            row.clone(),
            family,
            qualifier,
            cell.timestamp,
            CellType::Put,
            cell.value,
        ));
    };
    for (name, cell) in r.columns.unwrap_or_default() {
        push(&name, cell);
    }
    for c in r.sorted_columns.unwrap_or_default() {
        push(&c.column_name, c.cell);
    }
    cells.sort_by(|a, b| {
        (a.family(), a.qualifier())
            .cmp(&(b.family(), b.qualifier()))
            .then(b.timestamp().cmp(&a.timestamp()))
    });
    RowResult::new(row, cells)
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

    /// Calls the method of `args` and returns its success value (None for void), or its
    /// exception.
    fn call<A: Method>(&self, args: &A) -> Result<Option<TValue>> {
        let name = A::METHOD;
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
        Binary.write_struct(&mut msg, &args.to_struct());
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
            let msg = TApplicationException::from_struct(body)
                .map(|e| e.message)
                .unwrap_or_default();
            return Err(ClientError::Transport(if msg.is_empty() {
                "application exception".into()
            } else {
                msg
            }));
        }
        let mut success = None;
        for (id, v) in body.fields {
            if id == RESULT_SUCCESS {
                success = Some(v);
                continue;
            }
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
        Ok(success)
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

        let column_families = desc
            .families
            .iter()
            .map(|f| ColumnDescriptor {
                name: column(&f.name, Some(b"")),
                max_versions: f.max_versions as i32,
                compression: f.compression.name().to_string(),
                in_memory: f.in_memory,
                bloom_filter_type: f.bloom_filter.name().to_string(),
                block_cache_enabled: f.block_cache,
                time_to_live: if f.ttl_seconds >= FOREVER {
                    -1
                } else {
                    f.ttl_seconds as i32
                },
                ..ColumnDescriptor::default()
            })
            .collect();
        self.call(&CreateTableArgs {
            table_name: desc.name.to_string().into_bytes(),
            column_families,
        })?;
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
        reply("getTableNames", self.call(&GetTableNamesArgs {})?)
    }

    pub(crate) fn column_descriptors(&self, table: &str) -> Result<Vec<ColumnFamilyDescriptor>> {
        let args = GetColumnDescriptorsArgs {
            table_name: table.as_bytes().to_vec(),
        };
        let entries: Vec<(Vec<u8>, ColumnDescriptor)> =
            reply("getColumnDescriptors", self.call(&args)?)?;
        let mut out = Vec::new();
        for (_, d) in entries {
            let name = d.name.strip_suffix(b":").unwrap_or(&d.name);
            let mut f = ColumnFamilyDescriptor::new(name);
            f.max_versions = d.max_versions.max(1) as u32;
            let _ = f.set_attribute("COMPRESSION", &d.compression);
            f.in_memory = d.in_memory;
            let _ = f.set_attribute("BLOOMFILTER", &d.bloom_filter_type);
            f.block_cache = d.block_cache_enabled;
            f.ttl_seconds = if d.time_to_live <= 0 {
                FOREVER
            } else {
                i64::from(d.time_to_live)
            };
            out.push(f);
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    pub(crate) fn is_enabled(&self, table: &str) -> Result<bool> {
        let args = IsTableEnabledArgs {
            table_name: table.as_bytes().to_vec(),
        };
        reply("isTableEnabled", self.call(&args)?)
    }

    pub(crate) fn set_enabled(&self, table: &str, enabled: bool) -> Result<()> {
        let table_name = table.as_bytes().to_vec();
        if enabled {
            self.call(&EnableTableArgs { table_name })?;
        } else {
            self.call(&DisableTableArgs { table_name })?;
        }
        Ok(())
    }

    pub(crate) fn delete_table(&self, table: &str) -> Result<()> {
        self.call(&DeleteTableArgs {
            table_name: table.as_bytes().to_vec(),
        })?;
        Ok(())
    }

    pub(crate) fn compact(&self, table: &str, major: bool) -> Result<()> {
        let table_name_or_region_name = table.as_bytes().to_vec();
        if major {
            self.call(&MajorCompactArgs {
                table_name_or_region_name,
            })?;
        } else {
            self.call(&CompactArgs {
                table_name_or_region_name,
            })?;
        }
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
        let args = FerrobaseAdminArgs {
            operation: op.to_string(),
            table_name: table.as_bytes().to_vec(),
            key: key.to_vec(),
            attributes: attrs
                .iter()
                .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
                .collect(),
        };
        match self.call(&args) {
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
        let table = scope == permission_scope::TABLE;
        let info = TAccessControlEntity {
            username: user.to_string(),
            scope,
            actions: actions.to_string(),
            table_name: table.then(|| name.as_bytes().to_vec()),
            ns_name: (!table).then(|| name.to_string()),
        };
        if grant {
            self.call(&GrantArgs { info })?;
        } else {
            self.call(&RevokeArgs { info })?;
        }
        Ok(())
    }

    pub(crate) fn regions(&self, table: &str) -> Result<Vec<RegionInfo>> {
        let args = GetTableRegionsArgs {
            table_name: table.as_bytes().to_vec(),
        };
        let infos: Vec<TRegionInfo> = reply("getTableRegions", self.call(&args)?)?;
        Ok(infos
            .into_iter()
            .map(|r| RegionInfo {
                id: r.id as u64,
                start: r.start_key,
                end: r.end_key,
                memstore_bytes: 0,
                file_bytes: 0,
                file_count: 0,
            })
            .collect())
    }

    fn mutation(column: Vec<u8>, value: Vec<u8>, wal: bool) -> Mutation {
        Mutation {
            is_delete: false,
            column,
            value,
            write_to_wal: wal,
        }
    }

    pub(crate) fn put_all(&self, table: &str, puts: Vec<Put>) -> Result<()> {
        // One mutateRowsTs per distinct timestamp (Thrift1 mutations carry no timestamp).
        let mut by_ts: std::collections::BTreeMap<i64, Vec<BatchMutation>> = Default::default();
        for p in puts {
            let wal = p.durability != ferrobase_engine::Durability::SkipWal;
            let mut per_ts: std::collections::BTreeMap<i64, Vec<Mutation>> = Default::default();
            for c in p.cells {
                per_ts.entry(c.timestamp).or_default().push(Self::mutation(
                    column(&c.family, Some(&c.qualifier)),
                    c.value,
                    wal,
                ));
            }
            for (ts, mutations) in per_ts {
                by_ts.entry(ts).or_default().push(BatchMutation {
                    row: p.row.clone(),
                    mutations,
                });
            }
        }
        for (ts, row_batches) in by_ts {
            let table_name = table.as_bytes().to_vec();
            if ts == LATEST_TIMESTAMP {
                self.call(&MutateRowsArgs {
                    table_name,
                    row_batches,
                    attributes: Vec::new(),
                })?;
            } else {
                self.call(&MutateRowsTsArgs {
                    table_name,
                    row_batches,
                    timestamp: ts,
                    attributes: Vec::new(),
                })?;
            }
        }
        Ok(())
    }

    pub(crate) fn delete(&self, table: &str, d: Delete) -> Result<()> {
        let table_name = table.as_bytes().to_vec();
        if d.cells.is_empty() {
            if d.timestamp == LATEST_TIMESTAMP {
                self.call(&DeleteAllRowArgs {
                    table_name,
                    row: d.row,
                    attributes: Vec::new(),
                })?;
            } else {
                self.call(&DeleteAllRowTsArgs {
                    table_name,
                    row: d.row,
                    timestamp: d.timestamp,
                    attributes: Vec::new(),
                })?;
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
            if c.timestamp == LATEST_TIMESTAMP {
                self.call(&DeleteAllArgs {
                    table_name: table_name.clone(),
                    row: d.row.clone(),
                    column: col,
                    attributes: Vec::new(),
                })?;
            } else {
                self.call(&DeleteAllTsArgs {
                    table_name: table_name.clone(),
                    row: d.row.clone(),
                    column: col,
                    timestamp: c.timestamp,
                    attributes: Vec::new(),
                })?;
            }
        }
        Ok(())
    }

    fn scan_struct(scan: &Scan, filter: Option<&[u8]>) -> Result<TScan> {
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
        let mut s = TScan::default();
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
            s.start_row = Some(start);
        }
        if !scan.stop_row.is_empty() {
            let mut stop = scan.stop_row.clone();
            if scan.stop_inclusive && !scan.reversed {
                stop.push(0);
            }
            s.stop_row = Some(stop);
        }
        s.timestamp = time_bound(&scan.time_range);
        if !scan.columns.is_empty() {
            s.columns = Some(columns_of(&scan.columns));
        }
        s.caching = Some(scan.caching.min(i32::MAX as usize) as i32);
        s.filter_string = filter.map(<[u8]>::to_vec);
        s.batch_size = scan.batch.map(|b| b.min(i32::MAX as usize) as i32);
        if scan.allow_partial_results && scan.max_result_size.is_some() {
            // Without partial results a maximum size means whole rows, which is what a
            // gateway returns; with them, Thrift1 has no field to carry the size.
            return Err(ClientError::Unsupported(
                "a maximum result size with partial results (Thrift1 carries only batch)".into(),
            ));
        }
        if scan.reversed {
            s.reversed = Some(true);
        }
        Ok(s)
    }

    pub(crate) fn scanner(
        self: &Arc<Self>,
        table: &str,
        scan: &Scan,
        filter: Option<&[u8]>,
    ) -> Result<Scanner> {
        if let Some(name) = filter.and_then(crate::filter_language::extension_in) {
            if !self.is_ferrobase()? {
                return Err(ClientError::Unsupported(format!(
                    "{name} is not in Apache HBase's filter language (its Thrift1 gateway's \
                     ParseFilter has no {name}); it is a ferrobase extension"
                )));
            }
        }
        let args = ScannerOpenWithScanArgs {
            table_name: table.as_bytes().to_vec(),
            scan: Self::scan_struct(scan, filter)?,
            attributes: Vec::new(),
        };
        let id: i32 = reply("scannerOpenWithScan", self.call(&args)?)?;
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
        let table_name = table.as_bytes().to_vec();
        if get.max_versions > 1 {
            if filter.is_some() {
                return Err(ClientError::Unsupported(
                    "a filtered multi-version get over Thrift1".into(),
                ));
            }
            // Learn the columns, then read their versions.
            let newest = self.get(table, &get.clone().max_versions(1), None)?;
            let ts = time_bound(&get.time_range);
            let num_versions = get.max_versions as i32;
            let mut cells = Vec::new();
            for c in &newest.cells {
                let table_name = table_name.clone();
                let row = get.row.clone();
                let column = column(c.family(), Some(c.qualifier()));
                let versions: Vec<TCell> = match ts {
                    Some(timestamp) => reply(
                        "getVerTs",
                        self.call(&GetVerTsArgs {
                            table_name,
                            row,
                            column,
                            timestamp,
                            num_versions,
                            attributes: Vec::new(),
                        })?,
                    )?,
                    None => reply(
                        "getVer",
                        self.call(&GetVerArgs {
                            table_name,
                            row,
                            column,
                            num_versions,
                            attributes: Vec::new(),
                        })?,
                    )?,
                };
                for v in versions {
                    cells.push(Cell::new(
                        get.row.clone(),
                        c.family_bytes(),
                        c.qualifier_bytes(),
                        v.timestamp,
                        CellType::Put,
                        ferrobase_engine::Bytes::from(v.value),
                    ));
                }
            }
            return Ok(
                keep_from(RowResult::new(get.row.clone(), cells), get.time_range.min)
                    .unwrap_or_else(empty),
            );
        }
        if filter.is_none() {
            // One round trip: getRowWithColumns(Ts).
            let row = get.row.clone();
            let columns = columns_of(&get.columns);
            let rows: Vec<TRowResult> = match time_bound(&get.time_range) {
                Some(timestamp) => reply(
                    "getRowWithColumnsTs",
                    self.call(&GetRowWithColumnsTsArgs {
                        table_name,
                        row,
                        columns,
                        timestamp,
                        attributes: Vec::new(),
                    })?,
                )?,
                None => reply(
                    "getRowWithColumns",
                    self.call(&GetRowWithColumnsArgs {
                        table_name,
                        row,
                        columns,
                        attributes: Vec::new(),
                    })?,
                )?,
            };
            return Ok(rows
                .into_iter()
                .next()
                .map(row_result)
                .and_then(|r| keep_from(r, get.time_range.min))
                .unwrap_or_else(empty));
        }
        let mut stop = get.row.clone();
        stop.push(0);
        let mut scan = Scan::new()
            .with_start_row(get.row.clone())
            .with_stop_row(stop)
            .time_range(get.time_range);
        scan.columns = get.columns.clone();
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
        let args = AtomicIncrementArgs {
            table_name: table.as_bytes().to_vec(),
            row: row.to_vec(),
            column: column(family, Some(qualifier)),
            value: amount,
        };
        reply("atomicIncrement", self.call(&args)?)
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
        let args = CheckAndPutArgs {
            table_name: table.as_bytes().to_vec(),
            row: row.to_vec(),
            column: column(family, Some(qualifier)),
            value: expected.map(<[u8]>::to_vec),
            mput: Self::mutation(column(&c.family, Some(&c.qualifier)), c.value.clone(), true),
            attributes: Vec::new(),
        };
        reply("checkAndPut", self.call(&args)?)
    }

    pub(crate) fn append(
        &self,
        table: &str,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
    ) -> Result<Vec<u8>> {
        let args = AppendArgs {
            append: TAppend {
                table: table.as_bytes().to_vec(),
                row: row.to_vec(),
                columns: vec![column(family, Some(qualifier))],
                values: vec![value.to_vec()],
            },
        };
        let cells: Vec<TCell> = match self.call(&args)? {
            None => Vec::new(),
            some => reply("append", some)?,
        };
        Ok(cells
            .into_iter()
            .next()
            .map(|c| c.value)
            .unwrap_or_default())
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
            let args = ScannerGetListArgs {
                id: self.id,
                nb_rows: want.min(i32::MAX as usize) as i32,
            };
            let rows: Vec<TRowResult> = match self.remote.call(&args)? {
                None => Vec::new(),
                some => reply("scannerGetList", some)?,
            };
            if rows.is_empty() {
                self.close();
                return Ok(Vec::new());
            }
            let rows: Vec<RowResult> = rows
                .into_iter()
                .map(row_result)
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
            let _ = self.remote.call(&ScannerCloseArgs { id: self.id });
        }
    }
}

impl Drop for RemoteScanner {
    fn drop(&mut self) {
        self.close();
    }
}
