//! One client API on two backends: `Connection::open("file:DIR")` embeds the engine;
//! `Connection::open("thrift://host:port")` talks to an HBase Thrift1 gateway — ferrobase's own
//! `ferrobase serve` or Apache HBase's — so an application moves from one machine to a cluster
//! unchanged. The shell, the tools and the applications use it.
//!
//! # Example
//!
//! ```
//! use ferrobase_client::Connection;
//! use ferrobase_engine::{ColumnFamilyDescriptor, Get, Put, TableDescriptor, TableName};
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! # let dir = tempfile::tempdir()?;
//! # let url = format!("file:{}", dir.path().display());
//! // "file:DIR" embeds the engine; "thrift://127.0.0.1:9090" would talk to a gateway instead.
//! let conn = Connection::open(&url)?;
//! let desc = TableDescriptor::new(TableName::parse("inbox")?)
//!     .with_family(ColumnFamilyDescriptor::new("cf"));
//! conn.create_table(desc, &[])?;
//! let inbox = conn.table("inbox");
//! inbox.put(Put::new("user1").add_column("cf", "id", "post-42"))?;
//! let row = inbox.get(Get::new("user1"), Some(b"ValueFilter(=, 'substring:post')"))?;
//! assert_eq!(row.value(b"cf", b"id"), Some(&b"post-42"[..]));
//! assert_eq!(conn.list_tables()?, vec!["inbox".to_string()]);
//! # Ok(())
//! # }
//! ```

#![forbid(unsafe_code)]

mod access;
mod buffered;
pub mod catalog;
pub mod filter_language;
pub mod flags;
mod remote;
mod server_status;
mod slow_log;
pub use buffered::{
    mutation_size, BufferedMutator, BufferedMutatorParams, DEFAULT_MAX_KEY_VALUE_SIZE,
    DEFAULT_WRITE_BUFFER_SIZE,
};
pub use server_status::ServerStatus;
pub use slow_log::SlowLogEntry;

use ferrobase_engine::filter::parse_filter;
pub use ferrobase_engine::RegionInfo;
use ferrobase_engine::{
    ColumnFamilyDescriptor, Delete, Engine, EngineOptions, Get, Mutation, Put, RowResult, Scan,
    TableDescriptor,
};
pub use ferrobase_security::acl::{Actions, Scope, UserPermission};
pub use ferrobase_security::tls::{TlsClient, TlsError};
use ferrobase_thrift::hbase::AdminOp;
use remote::Remote;
use std::sync::Arc;

/// How to reach a `thrift://` gateway.
#[derive(Debug, Clone, Default)]
pub struct ConnectOptions {
    /// TLS to the gateway (default none: plain Thrift): the CA that signed the server's
    /// certificate and, for mutual TLS, the client's certificate and key.
    pub tls: Option<TlsClient>,
    /// A user and password for a gateway that authenticates with SASL PLAIN (`ferrobase serve
    /// --auth-file`); default none.
    pub credentials: Option<(String, String)>,
}

/// The kind of database a [`Connection`] reaches ([`Connection::backend`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Backend {
    /// An engine in this process (`file:DIR`).
    Embedded,
    /// `ferrobase serve`: Thrift1 plus ferrobase's `ferrobaseAdmin` extension (delete markers,
    /// raw and multi-version scans, table attributes, splits).
    Ferrobase,
    /// A Thrift1 gateway without the extension: Apache HBase's `hbase thrift`.
    HBaseThrift1,
}

impl std::fmt::Display for Backend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Backend::Embedded => "an embedded data directory",
            Backend::Ferrobase => "a ferrobase server",
            Backend::HBaseThrift1 => "an HBase Thrift1 gateway",
        })
    }
}

/// Client errors.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ClientError {
    /// An error of the embedded engine.
    #[error(transparent)]
    Engine(#[from] ferrobase_engine::Error),
    /// An exception declared by the gateway (`IOError`, `IllegalArgument`, `AlreadyExists`).
    #[error("{kind}: {message}")]
    Remote {
        /// The exception's name.
        kind: &'static str,
        /// Its message.
        message: String,
    },
    /// The connection failed or the gateway answered with something unreadable.
    #[error("transport error: {0}")]
    Transport(String),
    /// The operation has no equivalent in the backend (e.g. `alter` over HBase's Thrift1 API).
    #[error("{0}")]
    Unsupported(String),
    /// A connection string that names no backend: neither `thrift://HOST:PORT`, `file:DIR` nor
    /// the path of an existing data directory. Nothing was opened or created.
    #[error("{url:?} is not a connection string: {why}; use thrift://HOST:PORT for a server, file:DIR for a data directory (created if absent), or the path of an existing data directory")]
    BadUrl {
        /// The string given.
        url: String,
        /// What is wrong with it.
        why: String,
    },
    /// A cell of a catalog table (`hbase:meta`, `hbase:namespace`) that is not the protobuf
    /// message HBase stores there.
    #[error("{table} row {row:?}: {source}")]
    CatalogValue {
        /// The catalog table.
        table: &'static str,
        /// The row, as lossy UTF-8.
        row: String,
        /// Why the value does not decode.
        source: catalog::CatalogValueError,
    },
    /// Writes a [`BufferedMutator`] sent in the background failed (HBase's
    /// `RetriesExhaustedWithDetailsException`): `failed` mutations were in the failed batches
    /// (each row is atomic; other rows of a failed batch may have been written).
    #[error(
        "{failed} buffered mutation(s) failed, the first batch's first row {first_row:?}: {source}"
    )]
    MutationsFailed {
        /// Mutations in the failed batches since the last report.
        failed: usize,
        /// The first failed batch's first row, as lossy UTF-8.
        first_row: String,
        /// The first failed batch's error.
        source: Box<ClientError>,
    },
}

impl ClientError {
    /// True when the error says the table does not exist: the engine's `TableNotFound`, or a
    /// gateway's `IOError` carrying ferrobase's "table X does not exist" or HBase's
    /// `TableNotFoundException`.
    pub fn is_table_not_found(&self) -> bool {
        match self {
            ClientError::Engine(ferrobase_engine::Error::TableNotFound(_)) => true,
            ClientError::Remote { kind, message } => {
                *kind == "IOError"
                    && (message.contains("TableNotFoundException")
                        || (message.contains("table ") && message.ends_with(" does not exist")))
            }
            _ => false,
        }
    }

    /// True when the error says the namespace does not exist: the engine's
    /// `NamespaceNotFound`, or a gateway's `IOError` carrying its message or HBase's
    /// `NamespaceNotFoundException`.
    pub fn is_namespace_not_found(&self) -> bool {
        match self {
            ClientError::Engine(ferrobase_engine::Error::NamespaceNotFound(_)) => true,
            ClientError::Remote { kind, message } => {
                *kind == "IOError"
                    && (message.contains("NamespaceNotFoundException")
                        || (message.contains("namespace ") && message.ends_with(" does not exist")))
            }
            _ => false,
        }
    }

    /// True when the error says the table already exists: the engine's `TableExists`, or a
    /// gateway's `AlreadyExists`.
    pub fn is_table_exists(&self) -> bool {
        match self {
            ClientError::Engine(ferrobase_engine::Error::TableExists(_)) => true,
            ClientError::Remote { kind, .. } => *kind == "AlreadyExists",
            _ => false,
        }
    }
}

/// The client's result type.
pub type Result<T, E = ClientError> = std::result::Result<T, E>;

/// A connection to a database: embedded or remote. Cheap to clone; thread-safe.
#[derive(Clone)]
pub enum Connection {
    /// An engine in this process.
    Embedded(Engine),
    /// A Thrift gateway.
    Remote(Arc<Remote>),
}

impl std::fmt::Debug for Connection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Connection::Embedded(e) => write!(f, "Connection(file:{})", e.dir().display()),
            Connection::Remote(r) => write!(f, "Connection(thrift://{})", r.addr()),
        }
    }
}

impl Connection {
    /// Opens `file:DIR` (the data directory, created if absent), the path of an existing data
    /// directory, or `thrift://host:port`; anything else is [`ClientError::BadUrl`], with
    /// nothing opened or created.
    pub fn open(url: &str) -> Result<Connection> {
        Connection::open_with(url, &ConnectOptions::default())
    }

    /// Opens `url` as [`Connection::open`], reaching a `thrift://` gateway as `opts` says.
    pub fn open_with(url: &str, opts: &ConnectOptions) -> Result<Connection> {
        if let Some(addr) = url.strip_prefix("thrift://") {
            return Ok(Connection::Remote(Arc::new(Remote::connect_with(
                addr,
                opts.tls.as_ref(),
                opts.credentials
                    .as_ref()
                    .map(|(u, p)| (u.as_str(), p.as_str())),
            )?)));
        }
        let dir = match url.strip_prefix("file:") {
            Some(dir) => dir,
            None => {
                let bad = |why: String| ClientError::BadUrl {
                    url: url.to_string(),
                    why,
                };
                if let Some((scheme, _)) = url.split_once("://") {
                    return Err(bad(format!("no backend speaks {scheme}://")));
                }
                // A bare path embeds only a data directory that exists: `host:port` or a
                // mistyped URL must never become a new local store.
                if !std::path::Path::new(url).is_dir() {
                    return Err(bad("no such data directory".into()));
                }
                url
            }
        };
        if dir.is_empty() {
            return Err(ClientError::BadUrl {
                url: url.to_string(),
                why: "file: names no directory".into(),
            });
        }
        Ok(Connection::Embedded(Engine::open(
            dir,
            EngineOptions::default(),
        )?))
    }

    /// Wraps an already open engine.
    pub fn embedded(engine: Engine) -> Connection {
        Connection::Embedded(engine)
    }

    /// A short description: `file:DIR` or `thrift://ADDR`.
    pub fn describe(&self) -> String {
        match self {
            Connection::Embedded(e) => format!("file:{}", e.dir().display()),
            Connection::Remote(r) => format!("thrift://{}", r.addr()),
        }
    }

    /// Why the embedded engine is poisoned, once it is (see `Engine::poisoned`); `None` for a
    /// healthy engine and for a remote server (whose calls carry the reason in their errors).
    pub fn poisoned(&self) -> Option<String> {
        match self {
            Connection::Embedded(e) => e.poisoned(),
            Connection::Remote(_) => None,
        }
    }

    /// The embedded engine's health (healthy, degraded with writes suspended, poisoned; see
    /// `Engine::health`); `None` for a remote server (whose failed writes carry the reason).
    pub fn health(&self) -> Option<ferrobase_engine::Health> {
        match self {
            Connection::Embedded(e) => Some(e.health()),
            Connection::Remote(_) => None,
        }
    }

    /// True when the database takes ferrobase's filter-language extensions
    /// ([`filter_language::EXTENSIONS`]: `FuzzyRowFilter`, `MultiRowRangeFilter`,
    /// `RandomRowFilter`): an embedded engine and a ferrobase gateway do, Apache HBase's Thrift1
    /// gateway does not (its `ParseFilter` has no such names; a filter string naming one fails
    /// there with [`ClientError::Unsupported`]). Asks a gateway once per connection.
    pub fn filter_language_extensions(&self) -> Result<bool> {
        match self {
            Connection::Embedded(_) => Ok(true),
            Connection::Remote(r) => r.is_ferrobase(),
        }
    }

    /// What kind of database this connection reaches: an embedded engine, a ferrobase server, or
    /// another Thrift1 gateway (Apache HBase's), which carries no delete markers, raw scans or
    /// multi-version scans. Asks a gateway once per connection.
    pub fn backend(&self) -> Result<Backend> {
        match self {
            Connection::Embedded(_) => Ok(Backend::Embedded),
            Connection::Remote(r) => Ok(if r.is_ferrobase()? {
                Backend::Ferrobase
            } else {
                Backend::HBaseThrift1
            }),
        }
    }

    /// The table named `name`.
    pub fn table(&self, name: &str) -> Table {
        Table {
            conn: self.clone(),
            name: name.to_string(),
        }
    }

    /// Creates a table with optional split keys. Over a gateway, split keys need a ferrobase
    /// one: the table is created, then split at each key in order through its admin
    /// extension (Apache's gateway: refused before anything is created).
    pub fn create_table(&self, desc: TableDescriptor, splits: &[Vec<u8>]) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().create_table_with_splits(desc, splits)?),
            Connection::Remote(r) => {
                let mut keys = splits.to_vec();
                keys.sort();
                keys.dedup();
                if !keys.is_empty() && !r.is_ferrobase()? {
                    return Err(ClientError::Unsupported(
                        "pre-split tables cannot be created through HBase's Thrift1 API".into(),
                    ));
                }
                // The engine's rule, checked before the table exists.
                if keys.iter().any(|k| k.is_empty()) {
                    return Err(ferrobase_engine::Error::IllegalArgument(
                        "split keys must not be empty".into(),
                    )
                    .into());
                }
                let name = desc.name.to_string();
                r.create_table(&desc)?;
                for k in &keys {
                    r.admin_ext(AdminOp::Split, &name, k, &[])?;
                }
                Ok(())
            }
        }
    }

    /// Creates a namespace (through a ferrobase gateway's admin extension when remote).
    pub fn create_namespace(&self, ns: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().create_namespace(ns)?),
            Connection::Remote(r) => r.admin_ext(AdminOp::CreateNamespace, ns, b"", &[]),
        }
    }

    /// Drops an empty namespace.
    pub fn drop_namespace(&self, ns: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().drop_namespace(ns)?),
            Connection::Remote(r) => r.admin_ext(AdminOp::DropNamespace, ns, b"", &[]),
        }
    }

    /// Every namespace, sorted (`default` and `hbase` included): the embedded engine's, or
    /// over Thrift the rows of `hbase:namespace`, which ferrobase's and Apache HBase's
    /// gateways serve ([`Connection::namespace_descriptors`] has their properties too).
    pub fn list_namespaces(&self) -> Result<Vec<String>> {
        match self {
            Connection::Embedded(e) => {
                let mut names = e.admin().list_namespaces()?;
                names.sort();
                Ok(names)
            }
            Connection::Remote(_) => Ok(self
                .namespace_descriptors()?
                .into_iter()
                .map(|d| d.name)
                .collect()),
        }
    }

    /// Table names.
    pub fn list_tables(&self) -> Result<Vec<String>> {
        match self {
            Connection::Embedded(e) => Ok(e
                .admin()
                .list_tables()?
                .iter()
                .map(|n| n.to_string())
                .filter(|n| n != ferrobase_security::acl::ACL_TABLE)
                .collect()),
            Connection::Remote(r) => r.table_names(),
        }
    }

    /// The table's families.
    pub fn describe_table(&self, name: &str) -> Result<Vec<ColumnFamilyDescriptor>> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().describe(name)?.families),
            Connection::Remote(r) => r.column_descriptors(name),
        }
    }

    /// The table's durability and attributes (`MAX_FILESIZE`, `READONLY`, metadata, ...);
    /// over a gateway, from a ferrobase one's admin extension, and `None` from Apache's (Thrift1
    /// has no call that returns them).
    pub fn table_attributes(
        &self,
        name: &str,
    ) -> Result<
        Option<(
            ferrobase_engine::Durability,
            ferrobase_engine::TableAttributes,
        )>,
    > {
        match self {
            Connection::Embedded(e) => {
                let d = e.admin().describe(name)?;
                Ok(Some((d.durability, d.attributes)))
            }
            Connection::Remote(r) => r.table_attributes(name),
        }
    }

    /// Sets and unsets table attributes (HBase's spelling; `DURABILITY` included). Unsetting
    /// one that is not set fails with `Could not find attribute: KEY`. Over a gateway only a
    /// ferrobase one can (`ferrobaseAdmin`), each unset its own call after the sets.
    pub fn alter_table_attributes(
        &self,
        name: &str,
        set: &[(String, String)],
        unset: &[String],
    ) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().alter_table_attributes(name, set, unset)?),
            Connection::Remote(r) => {
                if !set.is_empty() {
                    r.admin_ext(AdminOp::SetTableAttributes, name, b"", set)?;
                }
                for k in unset {
                    r.admin_ext(AdminOp::UnsetTableAttribute, name, k.as_bytes(), &[])?;
                }
                Ok(())
            }
        }
    }

    /// True when the table exists.
    pub fn table_exists(&self, name: &str) -> Result<bool> {
        Ok(self
            .list_tables()?
            .iter()
            .any(|t| t == name || format!("default:{t}") == name))
    }

    /// True when the table is enabled.
    pub fn is_enabled(&self, name: &str) -> Result<bool> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().is_enabled(name)?),
            Connection::Remote(r) => r.is_enabled(name),
        }
    }

    /// Enables or disables a table.
    pub fn set_enabled(&self, name: &str, enabled: bool) -> Result<()> {
        match self {
            Connection::Embedded(e) => {
                if enabled {
                    e.admin().enable(name)?
                } else {
                    e.admin().disable(name)?
                }
                Ok(())
            }
            Connection::Remote(r) => r.set_enabled(name, enabled),
        }
    }

    /// Drops a disabled table.
    pub fn drop_table(&self, name: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().delete_table(name)?),
            Connection::Remote(r) => r.delete_table(name),
        }
    }

    /// Compacts (minor or major) every region of the table.
    pub fn compact(&self, name: &str, major: bool) -> Result<()> {
        match self {
            Connection::Embedded(e) => {
                if major {
                    e.admin().major_compact(name)?
                } else {
                    e.admin().compact(name)?
                }
                Ok(())
            }
            Connection::Remote(r) => r.compact(name, major),
        }
    }

    /// The table's regions.
    pub fn regions(&self, name: &str) -> Result<Vec<RegionInfo>> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().regions(name)?),
            Connection::Remote(r) => r.regions(name),
        }
    }

    /// Flushes the table's memstores. Over Thrift this needs a ferrobase gateway (HBase's
    /// Thrift1 API has no flush); likewise `split`, `truncate`, `put_family` and
    /// `delete_family`.
    pub fn flush(&self, name: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().flush(name)?),
            Connection::Remote(r) => r.admin_ext(AdminOp::Flush, name, b"", &[]),
        }
    }

    /// Takes snapshot `snapshot` of table `name` (flushed first unless `skip_flush`). Over
    /// Thrift this needs a ferrobase gateway, as every snapshot operation does.
    pub fn snapshot(&self, name: &str, snapshot: &str, skip_flush: bool) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().snapshot(name, snapshot, skip_flush)?),
            Connection::Remote(r) => {
                let attrs = [("SKIP_FLUSH".to_string(), skip_flush.to_string())];
                r.admin_ext(AdminOp::Snapshot, name, snapshot.as_bytes(), &attrs)
            }
        }
    }

    /// The server's slow-operation log, newest first (`get_slowlog_responses`): empty for an
    /// embedded engine (it has no doors to time); `Unsupported` through Apache HBase's gateway.
    pub fn slow_log(&self) -> Result<Vec<SlowLogEntry>> {
        match self {
            // An embedded engine has no doors: nothing is timed.
            Connection::Embedded(_) => Ok(Vec::new()),
            Connection::Remote(r) => r.slow_log(),
        }
    }

    /// What the shell's `status` prints beyond HBase's shapes (request rate, write suspensions
    /// by cause, flushes and compactions, open scanners): read from an embedded engine, or
    /// through a ferrobase server's `ferrobaseAdmin` `server_status`; `Unsupported` through
    /// Apache HBase's gateway.
    pub fn server_status(&self) -> Result<ServerStatus> {
        match self {
            Connection::Embedded(e) => Ok(ServerStatus::of(e)),
            Connection::Remote(r) => r.server_status(),
        }
    }

    /// The stored snapshots, by name.
    pub fn list_snapshots(&self) -> Result<Vec<ferrobase_engine::SnapshotInfo>> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().list_snapshots()?),
            Connection::Remote(r) => r.list_snapshots(),
        }
    }

    /// Deletes snapshot `snapshot`.
    pub fn delete_snapshot(&self, snapshot: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().delete_snapshot(snapshot)?),
            Connection::Remote(r) => {
                r.admin_ext(AdminOp::DeleteSnapshot, "", snapshot.as_bytes(), &[])
            }
        }
    }

    /// Creates table `name` from snapshot `snapshot`.
    pub fn clone_snapshot(&self, snapshot: &str, name: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().clone_snapshot(snapshot, name)?),
            Connection::Remote(r) => {
                r.admin_ext(AdminOp::CloneSnapshot, name, snapshot.as_bytes(), &[])
            }
        }
    }

    /// Puts snapshot `snapshot` back into its table, which must be disabled.
    pub fn restore_snapshot(&self, snapshot: &str) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().restore_snapshot(snapshot)?),
            Connection::Remote(r) => {
                r.admin_ext(AdminOp::RestoreSnapshot, "", snapshot.as_bytes(), &[])
            }
        }
    }

    /// Splits the table's regions at their midpoints, or the region holding `at` there.
    pub fn split(&self, name: &str, at: Option<&[u8]>) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().split(name, at)?),
            Connection::Remote(r) => r.admin_ext(AdminOp::Split, name, at.unwrap_or_default(), &[]),
        }
    }

    /// Disables (if needed), empties and re-enables the table.
    pub fn truncate(&self, name: &str, preserve_splits: bool) -> Result<()> {
        match self {
            Connection::Embedded(e) => {
                if e.admin().is_enabled(name)? {
                    e.admin().disable(name)?;
                }
                Ok(e.admin().truncate(name, preserve_splits)?)
            }
            Connection::Remote(r) => r.admin_ext(
                if preserve_splits {
                    AdminOp::TruncatePreserve
                } else {
                    AdminOp::Truncate
                },
                name,
                b"",
                &[],
            ),
        }
    }

    /// Adds a family, or changes an existing family's attributes, online.
    pub fn put_family(&self, name: &str, family: ColumnFamilyDescriptor) -> Result<()> {
        match self {
            Connection::Embedded(e) => {
                let exists = e.admin().describe(name)?.family(&family.name).is_some();
                if exists {
                    Ok(e.admin().modify_family(name, family)?)
                } else {
                    Ok(e.admin().add_family(name, family)?)
                }
            }
            Connection::Remote(r) => {
                let mut attrs = vec![("NAME".to_string(), family.name_str())];
                attrs.extend(
                    family
                        .to_attributes()
                        .into_iter()
                        .map(|(k, v)| (k.to_string(), v)),
                );
                // Listed by to_attributes only when set: sent either way, so turning it off
                // replaces the family's setting on the server as it does embedded.
                if !family.new_version_behavior {
                    attrs.push(("NEW_VERSION_BEHAVIOR".to_string(), "false".to_string()));
                }
                r.admin_ext(AdminOp::PutFamily, name, b"", &attrs)
            }
        }
    }

    /// Removes a family and its data.
    pub fn delete_family(&self, name: &str, family: &[u8]) -> Result<()> {
        match self {
            Connection::Embedded(e) => Ok(e.admin().delete_family(name, family)?),
            Connection::Remote(r) => r.admin_ext(AdminOp::DeleteFamily, name, family, &[]),
        }
    }
}

/// A table of a connection. Cheap to clone.
#[derive(Clone, Debug)]
pub struct Table {
    conn: Connection,
    name: String,
}

impl Table {
    /// The table's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Writes one row.
    pub fn put(&self, put: Put) -> Result<()> {
        self.put_all(vec![put])
    }

    /// Writes many rows.
    pub fn put_all(&self, puts: Vec<Put>) -> Result<()> {
        match &self.conn {
            Connection::Embedded(e) => Ok(e.table(&self.name)?.put_all(puts)?),
            Connection::Remote(r) => r.put_all(&self.name, puts),
        }
    }

    /// Applies puts and deletes in order; each row's mutation is atomic, the batch as a whole
    /// is not (HBase's `Table.batch` of mutations). Over a gateway, each run of puts is one
    /// call and each delete one.
    pub fn mutate(&self, mutations: Vec<Mutation>) -> Result<()> {
        match &self.conn {
            Connection::Embedded(e) => Ok(e.table(&self.name)?.mutate(mutations)?),
            Connection::Remote(r) => {
                let mut puts = Vec::new();
                for m in mutations {
                    match m {
                        Mutation::Put(p) => puts.push(p),
                        Mutation::Delete(d) => {
                            if !puts.is_empty() {
                                r.put_all(&self.name, std::mem::take(&mut puts))?;
                            }
                            r.delete(&self.name, d)?;
                        }
                    }
                }
                if puts.is_empty() {
                    Ok(())
                } else {
                    r.put_all(&self.name, puts)
                }
            }
        }
    }

    /// Buffered writes to this table (HBase's `Connection.getBufferedMutator`): see
    /// [`BufferedMutator`]. Starts its sender thread.
    pub fn buffered_mutator(&self, params: BufferedMutatorParams) -> Result<BufferedMutator> {
        BufferedMutator::new(self.clone(), params)
    }

    /// Applies a delete.
    pub fn delete(&self, delete: Delete) -> Result<()> {
        match &self.conn {
            Connection::Embedded(e) => Ok(e.table(&self.name)?.delete(delete)?),
            Connection::Remote(r) => r.delete(&self.name, delete),
        }
    }

    /// Reads one row; `filter` is a filter-language string.
    pub fn get(&self, get: Get, filter: Option<&[u8]>) -> Result<RowResult> {
        match &self.conn {
            Connection::Embedded(e) => {
                let mut get = get;
                if let Some(f) = filter {
                    get.filter = Some(parse_filter(f).map_err(ferrobase_engine::Error::from)?);
                }
                Ok(e.table(&self.name)?.get(&get)?)
            }
            Connection::Remote(r) => r.get(&self.name, &get, filter),
        }
    }

    /// Reads one row, as [`Table::get`], and answers what the read cost (scan explain,
    /// [`ReadCost`](ferrobase_engine::ReadCost)). Remote: through a ferrobase gateway's
    /// `ferrobaseAdmin` `get`; refused as `Unsupported` by Apache HBase's.
    pub fn get_explained(
        &self,
        get: Get,
        filter: Option<&[u8]>,
    ) -> Result<(RowResult, ferrobase_engine::ReadCost)> {
        match &self.conn {
            Connection::Embedded(e) => {
                let mut get = get;
                if let Some(f) = filter {
                    get.filter = Some(parse_filter(f).map_err(ferrobase_engine::Error::from)?);
                }
                Ok(e.table(&self.name)?.get_explained(&get)?)
            }
            Connection::Remote(r) => r.get_explained(&self.name, &get, filter),
        }
    }

    /// Opens a scanner; `filter` is a filter-language string. A scan with
    /// [`Scan::explain`] records what it costs ([`Scanner::cost`]); remote, through a ferrobase
    /// gateway only.
    pub fn scanner(&self, scan: Scan, filter: Option<&[u8]>) -> Result<Scanner> {
        match &self.conn {
            Connection::Embedded(e) => {
                let mut scan = scan;
                if let Some(f) = filter {
                    scan.filter = Some(parse_filter(f).map_err(ferrobase_engine::Error::from)?);
                }
                Ok(Scanner::Embedded(Box::new(
                    e.table(&self.name)?.scanner(&scan)?,
                )))
            }
            Connection::Remote(r) => r.scanner(&self.name, &scan, filter),
        }
    }

    /// Adds `amount` to a counter column (8-byte big-endian long); returns the new value.
    pub fn increment(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
    ) -> Result<i64> {
        match &self.conn {
            Connection::Embedded(e) => Ok(e
                .table(&self.name)?
                .increment(row, &[(family, qualifier, amount)])?[0]),
            Connection::Remote(r) => r.increment(&self.name, row, family, qualifier, amount),
        }
    }

    /// [`Table::increment`] whose new cell gets its own TTL in milliseconds (HBase's
    /// `Increment.setTTL`). Over a ferrobase gateway it goes through the `ferrobaseAdmin`
    /// extension (Thrift1's increment carries no attributes); through Apache HBase's gateway
    /// it is a [`ClientError::Unsupported`].
    pub fn increment_with_ttl(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        amount: i64,
        ttl_ms: i64,
    ) -> Result<i64> {
        match &self.conn {
            Connection::Embedded(e) => Ok(e.table(&self.name)?.increment_with_ttl(
                row,
                &[(family, qualifier, amount)],
                Some(ttl_ms),
            )?[0]),
            Connection::Remote(r) => {
                r.increment_with_ttl(&self.name, row, family, qualifier, amount, ttl_ms)
            }
        }
    }

    /// [`Table::append`] whose new cell gets its own TTL in milliseconds (HBase's
    /// `Append.setTTL`); over a gateway as [`Table::increment_with_ttl`].
    pub fn append_with_ttl(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
        ttl_ms: i64,
    ) -> Result<Vec<u8>> {
        match &self.conn {
            Connection::Embedded(e) => {
                let r = e.table(&self.name)?.append_with_ttl(
                    row,
                    &[(family, qualifier, value)],
                    Some(ttl_ms),
                )?;
                Ok(r.value(family, qualifier).unwrap_or_default().to_vec())
            }
            Connection::Remote(r) => {
                r.append_with_ttl(&self.name, row, family, qualifier, value, ttl_ms)
            }
        }
    }

    /// Applies `put` only if `family:qualifier` holds `expected` (or, with `None`, is absent);
    /// returns whether it was applied. Atomic for the row.
    pub fn check_and_put(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        expected: Option<&[u8]>,
        put: Put,
    ) -> Result<bool> {
        match &self.conn {
            Connection::Embedded(e) => Ok(e.table(&self.name)?.check_and_mutate(
                row,
                family,
                qualifier,
                ferrobase_engine::filter::CompareOp::Equal,
                expected,
                vec![ferrobase_engine::Mutation::Put(put)],
            )?),
            Connection::Remote(r) => {
                r.check_and_put(&self.name, row, family, qualifier, expected, put)
            }
        }
    }

    /// Appends to a column; returns the new value.
    pub fn append(
        &self,
        row: &[u8],
        family: &[u8],
        qualifier: &[u8],
        value: &[u8],
    ) -> Result<Vec<u8>> {
        match &self.conn {
            Connection::Embedded(e) => {
                let r = e
                    .table(&self.name)?
                    .append(row, &[(family, qualifier, value)])?;
                Ok(r.value(family, qualifier).unwrap_or_default().to_vec())
            }
            Connection::Remote(r) => r.append(&self.name, row, family, qualifier, value),
        }
    }
}

/// Results of a scan, fetched in batches from remote gateways.
pub enum Scanner {
    /// An embedded engine's scanner.
    Embedded(Box<ferrobase_engine::ResultScanner>),
    /// A gateway scanner.
    Remote(Box<remote::RemoteScanner>),
}

impl Scanner {
    /// Up to `n` more results; empty when done.
    pub fn next_batch(&mut self, n: usize) -> Result<Vec<RowResult>> {
        match self {
            Scanner::Embedded(s) => Ok(s.next_batch(n)?),
            Scanner::Remote(r) => r.next_batch(n),
        }
    }

    /// What the scan has cost so far, when it was opened with [`Scan::explain`] (else
    /// `None`). Remote, one call to the gateway while the scanner is open; once it has
    /// answered its end, the figures read as it closed.
    pub fn cost(&mut self) -> Result<Option<ferrobase_engine::ReadCost>> {
        match self {
            Scanner::Embedded(s) => Ok(s.cost()),
            Scanner::Remote(r) => r.cost(),
        }
    }
}

impl Iterator for Scanner {
    type Item = Result<RowResult>;

    fn next(&mut self) -> Option<Self::Item> {
        match self.next_batch(1) {
            Ok(mut v) => v.pop().map(Ok),
            Err(e) => Some(Err(e)),
        }
    }
}
