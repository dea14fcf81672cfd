//! The admin methods of `THBaseService`: table and namespace DDL, descriptors, enable and
//! disable, as HBase's `ThriftHBaseServiceHandler` runs them on its `Admin`.

use super::{not_supported, Thrift2Handler};
use crate::handler::names::table_name;
use crate::handler::{CallResult, ServiceError};
use crate::hbase_values::{apply_family_values, FamilyValueError, TableValue};
use crate::request::{AdminRequest, Executor, TableChange};
use crate::thrift::thrift2::{
    bloom_filter_type, compression_algorithm, data_block_encoding, durability, keep_deleted_cells,
    TColumnFamilyDescriptor, THRegionInfo, THRegionLocation, TNamespaceDescriptor, TServerName,
    TTableDescriptor, TTableName,
};
use crate::thrift::{TType, TValue, ThriftValue};
use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::{ColumnFamilyDescriptor, Durability, Error, TableDescriptor, TableName};

/// What a listing of tables answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum As {
    /// `TTableName`s.
    Names,
    /// `TTableDescriptor`s.
    Descriptors,
}

/// The table a `TTableName` names (`ns:qualifier`; no namespace, or `default`: `qualifier`),
/// checked as HBase's `TableName.valueOf`.
pub(super) fn name_of(t: &TTableName) -> Result<String, ServiceError> {
    let mut raw = Vec::new();
    if let Some(ns) =
        t.ns.as_ref()
            .filter(|ns| !ns.is_empty() && *ns != b"default")
    {
        raw.extend_from_slice(ns);
        raw.push(b':');
    }
    raw.extend_from_slice(&t.qualifier);
    table_name(&raw)
}

/// `tableNameFromHBase`: the namespace always set.
fn tname(n: &TableName) -> TTableName {
    TTableName {
        ns: Some(n.namespace().as_bytes().to_vec()),
        qualifier: n.qualifier().as_bytes().to_vec(),
    }
}

fn durability_code(d: Durability) -> i32 {
    match d {
        Durability::UseDefault => durability::USE_DEFAULT,
        Durability::SkipWal => durability::SKIP_WAL,
        Durability::AsyncWal => durability::ASYNC_WAL,
        Durability::SyncWal => durability::SYNC_WAL,
        Durability::FsyncWal => durability::FSYNC_WAL,
    }
}

/// An enum's value by its HBase name, from one of the IDL's tables.
fn code(table: &[(&str, i32)], name: &str) -> i32 {
    table
        .iter()
        .find(|(n, _)| n.eq_ignore_ascii_case(name))
        .map_or(0, |(_, c)| *c)
}

const BLOOM: &[(&str, i32)] = &[
    ("NONE", bloom_filter_type::NONE),
    ("ROW", bloom_filter_type::ROW),
    ("ROWCOL", bloom_filter_type::ROWCOL),
    (
        "ROWPREFIX_FIXED_LENGTH",
        bloom_filter_type::ROWPREFIX_FIXED_LENGTH,
    ),
];
const COMPRESSION: &[(&str, i32)] = &[
    ("LZO", compression_algorithm::LZO),
    ("GZ", compression_algorithm::GZ),
    ("NONE", compression_algorithm::NONE),
    ("SNAPPY", compression_algorithm::SNAPPY),
    ("LZ4", compression_algorithm::LZ4),
    ("BZIP2", compression_algorithm::BZIP2),
    ("ZSTD", compression_algorithm::ZSTD),
];
const ENCODING: &[(&str, i32)] = &[
    ("NONE", data_block_encoding::NONE),
    ("PREFIX", data_block_encoding::PREFIX),
    ("DIFF", data_block_encoding::DIFF),
    ("FAST_DIFF", data_block_encoding::FAST_DIFF),
    ("ROW_INDEX_V1", data_block_encoding::ROW_INDEX_V1),
];
const KEEP_DELETED: &[(&str, i32)] = &[
    ("FALSE", keep_deleted_cells::FALSE),
    ("TRUE", keep_deleted_cells::TRUE),
    ("TTL", keep_deleted_cells::TTL),
];

/// An enum's HBase name by its value.
fn enum_name(
    table: &[(&'static str, i32)],
    what: &str,
    v: i32,
) -> Result<&'static str, ServiceError> {
    table
        .iter()
        .find(|(_, c)| *c == v)
        .map(|(n, _)| *n)
        .ok_or_else(|| not_supported(&format!("{what} {v}")))
}

/// `columnFamilyDescriptorFromHBase`: every typed field set, HBase's defaults for what
/// ferrobase does not keep (replication scope 0, DFS replication 0, the cache-on-write and
/// evict hints false, tags compressed).
fn family_descriptor(f: &ColumnFamilyDescriptor) -> TColumnFamilyDescriptor {
    let ttl = if f.ttl_seconds >= FOREVER {
        i32::MAX
    } else {
        f.ttl_seconds as i32
    };
    TColumnFamilyDescriptor {
        name: f.name.clone(),
        attributes: None,
        configuration: None,
        block_size: Some(f.block_size as i32),
        bloom_filter_type: Some(code(BLOOM, f.bloom_filter.name())),
        compression_type: Some(code(COMPRESSION, f.compression.name())),
        dfs_replication: Some(0),
        data_block_encoding: Some(code(ENCODING, f.data_block_encoding.name())),
        keep_deleted_cells: Some(code(KEEP_DELETED, f.keep_deleted_cells.name())),
        max_versions: Some(f.max_versions as i32),
        min_versions: Some(f.min_versions as i32),
        scope: Some(0),
        time_to_live: Some(ttl),
        block_cache_enabled: Some(f.block_cache),
        cache_blooms_on_write: Some(false),
        cache_data_on_write: Some(false),
        cache_indexes_on_write: Some(false),
        compress_tags: Some(true),
        evict_blocks_on_close: Some(false),
        in_memory: Some(f.in_memory),
    }
}

/// `columnFamilyDescriptorFromThrift`: the typed fields set and the attributes (HBase's
/// spelling). Replication scope and configuration are refused unless at their defaults; the
/// hints ferrobase has no use for (DFS replication, cache-on-write, evict-on-close, tag
/// compression) are accepted and ignored.
fn family_from(d: &TColumnFamilyDescriptor) -> Result<ColumnFamilyDescriptor, ServiceError> {
    if d.configuration.as_ref().is_some_and(|c| !c.is_empty()) {
        return Err(not_supported("TColumnFamilyDescriptor.configuration"));
    }
    if d.scope.is_some_and(|s| s != 0) {
        return Err(not_supported("replication (TColumnFamilyDescriptor.scope)"));
    }
    let mut f = ColumnFamilyDescriptor::new(d.name.clone());
    let mut values = Vec::new();
    for (k, v) in d.attributes.iter().flatten() {
        let (Ok(k), Ok(v)) = (std::str::from_utf8(k), std::str::from_utf8(v)) else {
            return Err(not_supported("a family attribute that is not UTF-8"));
        };
        values.push((k.to_string(), v.to_string()));
    }
    // The values Java's ThriftConnection sends for every family, read as the native door reads
    // them.
    apply_family_values(&mut f, &values).map_err(|e| match e {
        FamilyValueError::Unsupported(why) => ServiceError::Io(why),
        FamilyValueError::Engine(e) => e.into(),
    })?;
    let mut set = |key: &str, value: Option<String>| -> Result<(), ServiceError> {
        if let Some(v) = value {
            f.set_attribute(key, &v)?;
        }
        Ok(())
    };
    set("BLOCKSIZE", d.block_size.map(|v| v.to_string()))?;
    set(
        "BLOOMFILTER",
        d.bloom_filter_type
            .map(|v| enum_name(BLOOM, "TBloomFilterType", v).map(str::to_string))
            .transpose()?,
    )?;
    set(
        "COMPRESSION",
        d.compression_type
            .map(|v| enum_name(COMPRESSION, "TCompressionAlgorithm", v).map(str::to_string))
            .transpose()?,
    )?;
    set(
        "DATA_BLOCK_ENCODING",
        d.data_block_encoding
            .map(|v| enum_name(ENCODING, "TDataBlockEncoding", v).map(str::to_string))
            .transpose()?,
    )?;
    set(
        "KEEP_DELETED_CELLS",
        d.keep_deleted_cells
            .map(|v| enum_name(KEEP_DELETED, "TKeepDeletedCells", v).map(str::to_string))
            .transpose()?,
    )?;
    set("VERSIONS", d.max_versions.map(|v| v.to_string()))?;
    set("MIN_VERSIONS", d.min_versions.map(|v| v.to_string()))?;
    set("TTL", d.time_to_live.map(|v| v.to_string()))?;
    set("BLOCKCACHE", d.block_cache_enabled.map(|v| v.to_string()))?;
    set("IN_MEMORY", d.in_memory.map(|v| v.to_string()))?;
    f.validate()?;
    Ok(f)
}

fn table_descriptor(d: &TableDescriptor) -> TTableDescriptor {
    TTableDescriptor {
        table_name: tname(&d.name),
        columns: Some(d.families.iter().map(family_descriptor).collect()),
        attributes: None,
        durability: Some(durability_code(d.durability)),
    }
}

impl Thrift2Handler {
    fn admin(&self) -> ferrobase_engine::Admin {
        self.engine_ref().admin()
    }

    /// Runs a table, namespace or maintenance change through the shared executor, which
    /// authorizes it (with ACLs on) and does what follows it.
    fn run_admin(&self, user: &str, request: AdminRequest) -> CallResult {
        Executor::new(self.engine_ref(), self.access.as_ref(), user).admin(request)?;
        Ok(None)
    }

    /// The user tables (less ferrobase's `hbase:acl`), sorted.
    fn user_tables(&self) -> Result<Vec<TableName>, ServiceError> {
        Ok(self
            .admin()
            .list_tables()?
            .into_iter()
            .filter(|n| n.to_string() != crate::access::ACL_TABLE)
            .collect())
    }

    /// Whether a listing `as_` shows table `n` to `user`.
    fn shows(&self, user: &str, n: &TableName, as_: As) -> bool {
        match as_ {
            As::Names => self.lists_table(user, &n.to_string()),
            As::Descriptors => self.describes_table(user, &n.to_string()),
        }
    }

    fn listing(&self, names: Vec<TableName>, as_: As) -> CallResult {
        Ok(Some(match as_ {
            As::Names => names.iter().map(tname).collect::<Vec<_>>().to_value(),
            As::Descriptors => {
                let mut out = Vec::with_capacity(names.len());
                for n in &names {
                    out.push(table_descriptor(&self.admin().describe(&n.to_string())?));
                }
                out.to_value()
            }
        }))
    }

    pub(super) fn table_exists(&self, t: &TTableName) -> CallResult {
        let name = name_of(t)?;
        Ok(Some(TValue::Bool(self.admin().table_exists(&name)?)))
    }

    pub(super) fn create_table(
        &self,
        user: &str,
        desc: &TTableDescriptor,
        split_keys: Option<&[Vec<u8>]>,
    ) -> CallResult {
        let name = TableName::parse(&name_of(&desc.table_name)?)?;
        let mut td = TableDescriptor::new(name);
        for (k, v) in desc.attributes.iter().flatten() {
            let (k, v) = (String::from_utf8_lossy(k), String::from_utf8_lossy(v));
            match crate::hbase_values::table_value(&k, &v) {
                TableValue::Default => {}
                TableValue::Coprocessor(k) => {
                    return Err(not_supported(&format!(
                        "table attribute {k} (ferrobase has no coprocessors)"
                    )))
                }
                // The typed field below decides.
                TableValue::Durability(_) => {}
                TableValue::Attribute(k, v) => td.attributes.set(k, v)?,
            }
        }
        for f in desc.columns.iter().flatten() {
            td = td.with_family(family_from(f)?);
        }
        td.durability = match desc.durability {
            None | Some(durability::USE_DEFAULT) => Durability::UseDefault,
            Some(durability::SKIP_WAL) => Durability::SkipWal,
            Some(durability::ASYNC_WAL) => Durability::AsyncWal,
            Some(durability::SYNC_WAL) => Durability::SyncWal,
            Some(durability::FSYNC_WAL) => Durability::FsyncWal,
            Some(other) => return Err(not_supported(&format!("TDurability {other}"))),
        };
        if td.families.is_empty() {
            // HBase's client refuses it before asking the master: an undeclared
            // IllegalArgumentException, a TApplicationException INTERNAL_ERROR.
            return Err(ServiceError::Internal(
                "java.lang.IllegalArgumentException: Table should have at least one column family"
                    .into(),
            ));
        }
        self.run_admin(
            user,
            AdminRequest::CreateTable {
                descriptor: td,
                splits: split_keys.unwrap_or_default().to_vec(),
            },
        )
    }

    pub(super) fn delete_table(&self, user: &str, t: &TTableName) -> CallResult {
        let table = name_of(t)?;
        self.run_admin(user, AdminRequest::DeleteTable { table })
    }

    pub(super) fn truncate_table(
        &self,
        user: &str,
        t: &TTableName,
        preserve_splits: bool,
    ) -> CallResult {
        let table = name_of(t)?;
        self.run_admin(
            user,
            AdminRequest::TruncateTable {
                table,
                preserve_splits,
            },
        )
    }

    pub(super) fn set_enabled(&self, user: &str, t: &TTableName, enabled: bool) -> CallResult {
        let table = name_of(t)?;
        self.run_admin(
            user,
            if enabled {
                AdminRequest::EnableTable { table }
            } else {
                AdminRequest::DisableTable { table }
            },
        )
    }

    /// `isTableEnabled` (`enabled`) and `isTableDisabled`.
    pub(super) fn is_enabled(&self, t: &TTableName, enabled: bool) -> CallResult {
        let on = self.admin().is_enabled(&name_of(t)?)?;
        Ok(Some(TValue::Bool(on == enabled)))
    }

    /// Every region of an existing table is open once it is enabled.
    pub(super) fn is_available(&self, t: &TTableName) -> CallResult {
        let name = name_of(t)?;
        let admin = self.admin();
        Ok(Some(TValue::Bool(
            admin.table_exists(&name)? && admin.is_enabled(&name)?,
        )))
    }

    pub(super) fn table_descriptor(&self, t: &TTableName) -> CallResult {
        let d = self
            .admin()
            .describe(&name_of(t)?)
            .map_err(super::client_error)?;
        Ok(Some(table_descriptor(&d).to_value()))
    }

    pub(super) fn table_descriptors(&self, tables: &[TTableName]) -> CallResult {
        let mut out = Vec::with_capacity(tables.len());
        for t in tables {
            out.push(table_descriptor(
                &self
                    .admin()
                    .describe(&name_of(t)?)
                    .map_err(super::client_error)?,
            ));
        }
        Ok(Some(out.to_value()))
    }

    /// `getTableNamesByPattern` / `getTableDescriptorsByPattern`: the user tables whose full
    /// name (`ns:qualifier`, `qualifier` in `default`) the regex matches whole (none: all).
    /// ferrobase lists no system table, so `includeSysTables` changes nothing.
    /// With ACLs on, each user sees the tables a grant reaches (names) or that the user may
    /// describe (descriptors), as HBase's `postGetTableNames`/`postGetTableDescriptors`.
    pub(super) fn tables_by_pattern(&self, regex: Option<&str>, as_: As, user: &str) -> CallResult {
        let re = regex
            .map(|r| {
                crate::hbase_values::java_regex(r).map_err(|e| {
                    ServiceError::Internal(format!("java.util.regex.PatternSyntaxException: {e}"))
                })
            })
            .transpose()?;
        let names = self
            .user_tables()?
            .into_iter()
            .filter(|n| re.as_ref().is_none_or(|re| re.is_match(&n.to_string())))
            .filter(|n| self.shows(user, n, as_))
            .collect();
        self.listing(names, as_)
    }

    /// `getTableNamesByNamespace` / `getTableDescriptorsByNamespace`.
    pub(super) fn tables_in_namespace(&self, ns: &str, as_: As, user: &str) -> CallResult {
        if !self.admin().list_namespaces()?.iter().any(|n| n == ns) {
            return Err(Error::NamespaceNotFound(ns.to_string()).into());
        }
        let names = self
            .user_tables()?
            .into_iter()
            .filter(|n| n.namespace() == ns && self.shows(user, n, as_))
            .collect();
        self.listing(names, as_)
    }

    /// `getRegionLocation` (`row`: the region holding it) and `getAllRegionLocations`: the
    /// table's regions, each on this server.
    pub(super) fn region_locations(&self, table: &[u8], row: Option<&[u8]>) -> CallResult {
        let name = table_name(table)?;
        let server = &self.inner.server;
        let regions = self.admin().regions(&name).map_err(super::client_error)?;
        let mut out: Vec<THRegionLocation> = regions
            .iter()
            .filter(|r| {
                row.is_none_or(|row| {
                    r.start.as_slice() <= row && (r.end.is_empty() || row < r.end.as_slice())
                })
            })
            .map(|r| THRegionLocation {
                server_name: TServerName {
                    host_name: server.host.clone(),
                    port: Some(i32::from(server.port)),
                    start_code: Some(server.start_code as i64),
                },
                region_info: THRegionInfo {
                    region_id: r.id as i64,
                    table_name: table.to_vec(),
                    start_key: Some(r.start.clone()),
                    end_key: Some(r.end.clone()),
                    offline: Some(false),
                    split: Some(false),
                    replica_id: Some(0),
                },
            })
            .collect();
        Ok(Some(match row {
            None => out.to_value(),
            Some(_) => match out.pop() {
                Some(l) => l.to_value(),
                None => {
                    return Err(ServiceError::Io(format!(
                        "no region of {name} holds the row"
                    )))
                }
            },
        }))
    }

    /// `addColumnFamily` (`add`) and `modifyColumnFamily`.
    pub(super) fn put_family(
        &self,
        user: &str,
        t: &TTableName,
        d: &TColumnFamilyDescriptor,
        add: bool,
    ) -> CallResult {
        let table = name_of(t)?;
        let f = family_from(d)?;
        let change = if add {
            TableChange::AddFamily(f)
        } else {
            TableChange::ModifyFamily(f)
        };
        self.run_admin(
            user,
            AdminRequest::AlterTable {
                table,
                changes: vec![change],
            },
        )
    }

    pub(super) fn delete_family(&self, user: &str, t: &TTableName, family: &[u8]) -> CallResult {
        let table = name_of(t)?;
        self.run_admin(
            user,
            AdminRequest::AlterTable {
                table,
                changes: vec![TableChange::DeleteFamily(family.to_vec())],
            },
        )
    }

    /// `createNamespace`: a namespace's configuration is not kept, so one is refused.
    pub(super) fn create_namespace(&self, user: &str, d: &TNamespaceDescriptor) -> CallResult {
        if d.configuration.as_ref().is_some_and(|c| !c.is_empty()) {
            return Err(not_supported("TNamespaceDescriptor.configuration"));
        }
        self.run_admin(
            user,
            AdminRequest::CreateNamespace {
                namespace: d.name.clone(),
            },
        )
    }

    pub(super) fn delete_namespace(&self, user: &str, name: &str) -> CallResult {
        self.run_admin(
            user,
            AdminRequest::DeleteNamespace {
                namespace: name.to_string(),
            },
        )
    }

    pub(super) fn namespace_descriptor(&self, name: &str) -> CallResult {
        if !self.admin().list_namespaces()?.iter().any(|n| n == name) {
            return Err(Error::NamespaceNotFound(name.to_string()).into());
        }
        Ok(Some(namespace(name).to_value()))
    }

    /// `listNamespaceDescriptors` (`descriptors`: with ACLs on, the namespaces the user may
    /// describe, as HBase's `postListNamespaceDescriptors`) and `listNamespaces` (every one,
    /// as HBase lists them).
    pub(super) fn list_namespaces(&self, descriptors: bool, user: &str) -> CallResult {
        let mut names = self.admin().list_namespaces()?;
        if descriptors {
            names.retain(|n| self.describes_namespace(user, n));
        }
        Ok(Some(if descriptors {
            names
                .iter()
                .map(|n| namespace(n))
                .collect::<Vec<_>>()
                .to_value()
        } else {
            TValue::List(
                TType::Binary,
                names.into_iter().map(TValue::string).collect(),
            )
        }))
    }
}

/// `namespaceDescriptorFromHBase`: the name (ferrobase keeps no configuration).
fn namespace(name: &str) -> TNamespaceDescriptor {
    TNamespaceDescriptor {
        name: name.to_string(),
        configuration: None,
    }
}
