//! The `Hbase` service's table and cluster methods: create, describe, enable, disable, drop,
//! compact, regions, grants and ferrobase's `ferrobaseAdmin`.

use super::convert::*;
use super::{reply, Remote};
use crate::{ClientError, Result};
use ferrobase_engine::schema::FOREVER;
use ferrobase_engine::RegionInfo;
use ferrobase_engine::{ColumnFamilyDescriptor, TableDescriptor};
use ferrobase_thrift::hbase::service::{
    CompactArgs, CreateTableArgs, DeleteTableArgs, DisableTableArgs, EnableTableArgs,
    FerrobaseAdminArgs, GetColumnDescriptorsArgs, GetTableNamesArgs, GetTableRegionsArgs,
    GrantArgs, IsTableEnabledArgs, MajorCompactArgs, RevokeArgs,
};
use ferrobase_thrift::hbase::AdminOp;
use ferrobase_thrift::hbase::{
    permission_scope, ColumnDescriptor, TAccessControlEntity, TRegionInfo,
};
use ferrobase_thrift::TValue;

impl Remote {
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
            self.admin_ext(AdminOp::SetTableAttributes, &table, b"", &table_attrs)?;
        }
        for (f, attrs) in extras {
            let mut all = vec![("NAME".to_string(), f.name_str())];
            all.extend(attrs);
            self.admin_ext(AdminOp::PutFamily, &table, b"", &all)?;
        }
        Ok(())
    }

    pub(crate) fn table_names(&self) -> Result<Vec<String>> {
        reply("getTableNames", self.call(&GetTableNamesArgs {})?)
    }

    /// The table's family descriptors: every attribute through a ferrobase gateway's
    /// `ferrobaseAdmin` `family_attributes`; through Apache HBase's gateway, those Thrift1's
    /// `ColumnDescriptor` carries (the others at their defaults).
    pub(crate) fn column_descriptors(&self, table: &str) -> Result<Vec<ColumnFamilyDescriptor>> {
        if self.is_ferrobase()? {
            return self.full_column_descriptors(table);
        }
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

    /// Every family's descriptor through `ferrobaseAdmin` `family_attributes` (for each family
    /// `NAME`, its name, then its attributes key, value, ...).
    fn full_column_descriptors(&self, table: &str) -> Result<Vec<ColumnFamilyDescriptor>> {
        use ferrobase_thrift::ThriftValue;
        let bad = |what: String| ClientError::Transport(format!("family_attributes: {what}"));
        let Some(answer) = self.admin_call(AdminOp::FamilyAttributes, table, b"", &[])? else {
            return Err(bad("no answer".into()));
        };
        let items = Vec::<Vec<u8>>::from_value(answer).map_err(|e| bad(e.to_string()))?;
        let mut out: Vec<ColumnFamilyDescriptor> = Vec::new();
        for pair in items.chunks(2) {
            let [k, v] = pair else {
                return Err(bad("a key without a value".into()));
            };
            let k = String::from_utf8_lossy(k);
            if k == "NAME" {
                out.push(ColumnFamilyDescriptor::new(v.clone()));
                continue;
            }
            let Some(f) = out.last_mut() else {
                return Err(bad(format!("attribute {k} before any NAME")));
            };
            let v = String::from_utf8_lossy(v);
            f.set_attribute(&k, &v)
                .map_err(|e| bad(format!("attribute {k}: {e}")))?;
        }
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The table's durability and attributes through a ferrobase gateway's `ferrobaseAdmin`
    /// `table_attributes` (a list of strings, key then value, `DURABILITY` first); `None`
    /// through Apache HBase's gateway, which has no call that returns them.
    /// The snapshots a ferrobase gateway holds (`ferrobaseAdmin list_snapshots`).
    pub(crate) fn list_snapshots(&self) -> Result<Vec<ferrobase_engine::SnapshotInfo>> {
        use ferrobase_thrift::ThriftValue;
        let bad = |what: String| ClientError::Transport(format!("list_snapshots: {what}"));
        let Some(answer) = self.admin_call(AdminOp::ListSnapshots, "", b"", &[])? else {
            return Err(bad("no answer".into()));
        };
        let items = Vec::<String>::from_value(answer).map_err(|e| bad(e.to_string()))?;
        items
            .chunks(3)
            .map(|s| {
                let [name, table, created] = s else {
                    return Err(bad(format!("an incomplete snapshot {s:?}")));
                };
                Ok(ferrobase_engine::SnapshotInfo {
                    name: name.clone(),
                    table: ferrobase_engine::TableName::parse(table)
                        .map_err(|e| bad(format!("table {table:?}: {e}")))?,
                    created_ms: created
                        .parse()
                        .map_err(|e| bad(format!("time {created:?}: {e}")))?,
                })
            })
            .collect()
    }

    pub(crate) fn table_attributes(
        &self,
        table: &str,
    ) -> Result<
        Option<(
            ferrobase_engine::Durability,
            ferrobase_engine::TableAttributes,
        )>,
    > {
        use ferrobase_thrift::ThriftValue;
        if !self.is_ferrobase()? {
            return Ok(None);
        }
        let bad = |what: String| ClientError::Transport(format!("table_attributes: {what}"));
        let Some(answer) = self.admin_call(AdminOp::TableAttributes, table, b"", &[])? else {
            return Err(bad("no answer".into()));
        };
        let items = Vec::<String>::from_value(answer).map_err(|e| bad(e.to_string()))?;
        let mut durability = ferrobase_engine::Durability::UseDefault;
        let mut attrs = ferrobase_engine::TableAttributes::default();
        for pair in items.chunks(2) {
            let [k, v] = pair else {
                return Err(bad(format!("key {:?} without a value", pair.first())));
            };
            if k == "DURABILITY" {
                durability = ferrobase_engine::Durability::parse(v)
                    .map_err(|e| bad(format!("DURABILITY {v:?}: {e}")))?;
            } else {
                attrs
                    .set(k, v)
                    .map_err(|e| bad(format!("attribute {k}: {e}")))?;
            }
        }
        Ok(Some((durability, attrs)))
    }

    /// A ferrobase gateway's administration extension (`ferrobaseAdmin`).
    pub(crate) fn admin_ext(
        &self,
        op: AdminOp,
        table: &str,
        key: &[u8],
        attrs: &[(String, String)],
    ) -> Result<()> {
        self.admin_call(op, table, key, attrs).map(|_| ())
    }

    /// `ferrobaseAdmin` with its answer.
    pub(crate) fn admin_call(
        &self,
        op: AdminOp,
        table: &str,
        key: &[u8],
        attrs: &[(String, String)],
    ) -> Result<Option<TValue>> {
        let attributes = attrs
            .iter()
            .map(|(k, v)| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect();
        self.admin_call_bytes(op, table, key, attributes)
    }

    /// `ferrobaseAdmin` with binary attribute values, and its answer.
    pub(crate) fn admin_call_bytes(
        &self,
        op: AdminOp,
        table: &str,
        key: &[u8],
        attributes: Vec<(Vec<u8>, Vec<u8>)>,
    ) -> Result<Option<TValue>> {
        let args = FerrobaseAdminArgs {
            operation: op.name().to_string(),
            table_name: table.as_bytes().to_vec(),
            key: key.to_vec(),
            attributes,
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
        let (op, res) = if grant {
            ("grant", self.call(&GrantArgs { info }))
        } else {
            ("revoke", self.call(&RevokeArgs { info }))
        };
        match res {
            // A gateway built without these methods (Apache's, as the oracle runs it).
            Err(ClientError::Transport(m)) if m.contains("Invalid method name") => {
                Err(ClientError::Unsupported(format!(
                    "{op} is not available through this gateway's Thrift1 API (it has no {op} \
                     method)"
                )))
            }
            other => other.map(|_| ()),
        }
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
}
