//! Table administration methods.

use super::convert::{column_descriptor, family_from, region_info};
use super::meta_order::compare_meta_rows;
use super::meta_view::{catalog_families, Catalog};
use super::names::{admin_op, table_name, table_text};
use super::{CallResult, Handler, ServiceError};
use crate::request::{AdminRequest, Executor, Failure, TableChange};
use crate::thrift::hbase::service::FerrobaseAdminArgs;
use crate::thrift::hbase::{AdminOp, ColumnDescriptor, TRegionInfo};
use crate::thrift::{TType, TValue, ThriftValue};
use ferrobase_engine::{Error, TableDescriptor, TableName};

/// What `enableTable`/`disableTable` make of a table.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum TableState {
    /// On-line.
    Enabled,
    /// Off-line.
    Disabled,
}

/// Which compaction `compact`/`majorCompact` ask for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Compaction {
    /// Some files.
    Minor,
    /// Every file, into one.
    Major,
}

impl Handler {
    /// Runs a table, namespace, maintenance or snapshot change through the shared executor,
    /// which authorizes it (with ACLs on) and does what follows it.
    fn run_admin(&self, user: &str, request: AdminRequest) -> Result<(), ServiceError> {
        let executor = Executor::new(&self.engine, self.access(), user);
        Ok(executor.admin(request)?)
    }

    pub(crate) fn set_table_state(
        &self,
        user: &str,
        table: &[u8],
        state: TableState,
    ) -> CallResult {
        let table = table_name(table)?;
        self.run_admin(
            user,
            match state {
                TableState::Enabled => AdminRequest::EnableTable { table },
                TableState::Disabled => AdminRequest::DisableTable { table },
            },
        )?;
        Ok(None)
    }

    /// The catalog tables are always enabled, as in HBase.
    pub(crate) fn is_table_enabled(&self, table: &[u8]) -> CallResult {
        if Catalog::of(table).is_some() {
            return Ok(Some(TValue::Bool(true)));
        }
        let name = table_name(table)?;
        Ok(Some(TValue::Bool(self.engine.admin().is_enabled(&name)?)))
    }

    /// `compact`/`majorCompact` take a table name or a region name (`table,start,id.`).
    pub(crate) fn compact(&self, user: &str, raw: &[u8], kind: Compaction) -> CallResult {
        let table = match raw.iter().position(|&b| b == b',') {
            Some(i) => &raw[..i],
            None => raw,
        };
        let table = table_name(table)?;
        self.run_admin(
            user,
            AdminRequest::Compact {
                table,
                major: kind == Compaction::Major,
            },
        )?;
        Ok(None)
    }

    /// The tables, less the system table `hbase:acl` (HBase lists no system table).
    pub(crate) fn get_table_names(&self) -> CallResult {
        let names = self.engine.admin().list_tables()?;
        Ok(Some(TValue::List(
            TType::Binary,
            names
                .iter()
                .map(|n| n.to_string())
                .filter(|n| n != crate::access::ACL_TABLE)
                .map(TValue::string)
                .collect(),
        )))
    }

    pub(crate) fn get_table_names_enabled(&self) -> CallResult {
        let admin = self.engine.admin();
        let mut out = Vec::new();
        for n in admin.list_tables()? {
            let name = n.to_string();
            if name == crate::access::ACL_TABLE {
                continue;
            }
            let enabled = admin.is_enabled(&name)?;
            out.push((TValue::string(name), TValue::Bool(enabled)));
        }
        Ok(Some(TValue::Map(TType::Binary, TType::Bool, out)))
    }

    /// A table's families; the catalog tables' as HBase 2.6.1 describes them.
    pub(crate) fn get_column_descriptors(&self, table: &[u8]) -> CallResult {
        if let Some(catalog) = Catalog::of(table) {
            let entries: Vec<(Vec<u8>, ColumnDescriptor)> = catalog_families(catalog)
                .into_iter()
                .map(|d| (d.name.clone(), d))
                .collect();
            return Ok(Some(entries.to_value()));
        }
        let name = table_name(table)?;
        let desc = self.engine.admin().describe(&name)?;
        let entries = desc
            .families
            .iter()
            .map(|f| {
                let mut key = f.name.clone();
                key.push(b':');
                (key, column_descriptor(f))
            })
            .collect::<Vec<_>>();
        Ok(Some(entries.to_value()))
    }

    pub(crate) fn get_table_regions(&self, table: &[u8]) -> CallResult {
        let name = table_name(table)?;
        // HBase's handler lists the table's region locations from hbase:meta, where an
        // unknown table has none: the answer is an empty list, not an error.
        let regions = match self.engine.admin().regions(&name) {
            Err(Error::TableNotFound(_)) => Vec::new(),
            other => other?,
        };
        let infos: Vec<_> = regions.iter().map(|r| region_info(&name, r)).collect();
        Ok(Some(infos.to_value()))
    }

    pub(crate) fn create_table(
        &self,
        user: &str,
        table: &[u8],
        families: &[ColumnDescriptor],
    ) -> CallResult {
        let name = table_name(table)?;
        let name = TableName::parse(&name)?;
        let mut desc = TableDescriptor::new(name);
        for f in families {
            desc = desc.with_family(family_from(f)?);
        }
        if desc.families.is_empty() {
            // HBase's master refuses it in its table sanity checks, an IOError.
            return Err(ServiceError::Io(
                "org.apache.hadoop.hbase.DoNotRetryIOException: Table should have at least one \
                 column family"
                    .into(),
            ));
        }
        self.run_admin(
            user,
            AdminRequest::CreateTable {
                descriptor: desc,
                splits: Vec::new(),
            },
        )?;
        Ok(None)
    }

    pub(crate) fn delete_table(&self, user: &str, table: &[u8]) -> CallResult {
        let name = table_name(table)?;
        let request = AdminRequest::DeleteTable {
            table: name.clone(),
        };
        match Executor::new(&self.engine, self.access(), user).admin(request) {
            // HBase's handler checks `tableExists` first and throws a plain IOException.
            Err(Failure::Engine(Error::TableNotFound(_))) => Err(ServiceError::Io(format!(
                "java.io.IOException: table {name} does not exist"
            ))),
            other => Ok(other.map(|()| None)?),
        }
    }

    /// `ferrobaseAdmin(1: op, 2: table, 3: key, 4: map<string,string> attributes)`: the
    /// administration HBase's Thrift1 API lacks, so clients of a ferrobase gateway can alter,
    /// flush, split and truncate. A ferrobase extension; Apache's gateway answers it with an
    /// unknown-method exception. Ops: `flush`, `split` (key optional), `truncate`,
    /// `truncate_preserve`, `put_family` (attributes in HBase's spelling, NAME included),
    /// `delete_family` (key = family), `set_table_attributes` (attributes in HBase's spelling,
    /// `DURABILITY` included), `unset_table_attribute` (key = the attribute), `table_attributes`
    /// (answers key, value, ... with `DURABILITY` first), `family_attributes` (answers, for each
    /// family, `NAME`, its name, then its attributes key, value, ... in HBase's spelling, as
    /// `describe` shows them), `create_namespace` and
    /// `drop_namespace` (table = the namespace), `increment` and `append` with a cell TTL
    /// (key = the row; see [`Handler::row_op_with_ttl`]), `delete` with exact markers and
    /// `scan_open`/`scan_next` with RAW and VERSIONS (`cell_ops.rs`).
    pub(crate) fn ferrobase_admin(&self, a: &FerrobaseAdminArgs, user: &str) -> CallResult {
        let op = admin_op(a)?;
        // A table or a namespace, which the engine validates.
        let name = table_text(&a.table_name)?;
        let key = Some(a.key.clone()).filter(|k| !k.is_empty());
        let admin = self.engine.admin();
        match op {
            AdminOp::Increment | AdminOp::Append => return self.row_op_with_ttl(user, a),
            AdminOp::Delete => return self.extension_delete(user, a),
            AdminOp::ScanOpen => return self.extension_scan_open(user, a),
            AdminOp::ScanNext => return self.extension_scan_next(a),
            AdminOp::ScanCost => return self.extension_scan_cost(a),
            AdminOp::Get => return self.extension_get(user, a),
            AdminOp::CreateNamespace => {
                self.run_admin(user, AdminRequest::CreateNamespace { namespace: name })?
            }
            AdminOp::DropNamespace => {
                self.run_admin(user, AdminRequest::DeleteNamespace { namespace: name })?
            }
            AdminOp::Flush => self.run_admin(user, AdminRequest::Flush { table: name })?,
            AdminOp::Split => self.run_admin(
                user,
                AdminRequest::Split {
                    table: name,
                    at: key,
                },
            )?,
            // The shell's truncate: disabled first, then emptied; both authorized before either
            // runs.
            AdminOp::Truncate | AdminOp::TruncatePreserve => {
                let executor = Executor::new(&self.engine, self.access(), user);
                let truncate = executor
                    .authorize_admin(AdminRequest::TruncateTable {
                        table: name.clone(),
                        preserve_splits: op == AdminOp::TruncatePreserve,
                    })
                    .map_err(super::denied)?;
                let disable = executor
                    .authorize_admin(AdminRequest::DisableTable {
                        table: name.clone(),
                    })
                    .map_err(super::denied)?;
                if admin.is_enabled(&name)? {
                    executor.run_admin(disable)?;
                }
                executor.run_admin(truncate)?;
            }
            AdminOp::TableAttributes => {
                let d = admin.describe(&name)?;
                let mut pairs = vec![
                    TValue::string("DURABILITY".to_string()),
                    TValue::string(d.durability.name().to_string()),
                ];
                for (k, v) in d.attributes.iter() {
                    pairs.push(TValue::string(k.to_string()));
                    pairs.push(TValue::string(v.to_string()));
                }
                return Ok(Some(TValue::List(TType::Binary, pairs)));
            }
            AdminOp::FamilyAttributes => {
                let d = admin.describe(&name)?;
                let mut items = Vec::new();
                for f in &d.families {
                    items.push(TValue::string("NAME".to_string()));
                    items.push(TValue::Binary(f.name.to_vec()));
                    for (k, v) in f.to_attributes() {
                        items.push(TValue::string(k.to_string()));
                        items.push(TValue::string(v));
                    }
                }
                return Ok(Some(TValue::List(TType::Binary, items)));
            }
            AdminOp::SetTableAttributes => self.run_admin(
                user,
                AdminRequest::AlterTable {
                    table: name,
                    changes: vec![TableChange::Attributes {
                        set: string_map(a),
                        unset: Vec::new(),
                    }],
                },
            )?,
            AdminOp::UnsetTableAttribute => {
                let key = key.ok_or_else(|| {
                    ServiceError::IllegalArgument("unset_table_attribute needs the key".into())
                })?;
                let key = String::from_utf8_lossy(&key).into_owned();
                self.run_admin(
                    user,
                    AdminRequest::AlterTable {
                        table: name,
                        changes: vec![TableChange::Attributes {
                            set: Vec::new(),
                            unset: vec![key],
                        }],
                    },
                )?;
            }
            AdminOp::PutFamily => {
                let (names, attributes): (Vec<_>, Vec<_>) =
                    string_map(a).into_iter().partition(|(k, _)| k == "NAME");
                let family = names
                    .into_iter()
                    .next()
                    .map(|(_, v)| v.into_bytes())
                    .ok_or_else(|| ServiceError::IllegalArgument("put_family needs NAME".into()))?;
                self.run_admin(
                    user,
                    AdminRequest::AlterTable {
                        table: name,
                        changes: vec![TableChange::PutFamily { family, attributes }],
                    },
                )?;
            }
            AdminOp::Snapshot => {
                let skip_flush = string_map(a)
                    .iter()
                    .any(|(k, v)| k == "SKIP_FLUSH" && v.eq_ignore_ascii_case("true"));
                self.run_admin(
                    user,
                    AdminRequest::Snapshot {
                        table: name,
                        name: snapshot_name(key)?,
                        skip_flush,
                    },
                )?;
            }
            AdminOp::ListSnapshots => {
                let mut items = Vec::new();
                for s in admin.list_snapshots()? {
                    items.push(TValue::string(s.name));
                    items.push(TValue::string(s.table.to_string()));
                    items.push(TValue::string(s.created_ms.to_string()));
                }
                return Ok(Some(TValue::List(TType::Binary, items)));
            }
            AdminOp::SlowLog => {
                let mut items = Vec::new();
                let calls = self
                    .slow_log
                    .as_ref()
                    .map(|l| l.entries())
                    .unwrap_or_default();
                for c in calls.into_iter().rev() {
                    let micros = u64::try_from(c.duration.as_micros()).unwrap_or(u64::MAX);
                    for s in [
                        c.at_ms.to_string(),
                        c.door.to_string(),
                        c.method,
                        c.table,
                        c.user,
                        micros.to_string(),
                        c.description,
                        c.explain,
                    ] {
                        items.push(TValue::string(s));
                    }
                }
                return Ok(Some(TValue::List(TType::Binary, items)));
            }
            AdminOp::ServerStatus => {
                let engine = &self.engine;
                let counts = engine.request_counts();
                let m = engine.metrics();
                let mut pairs = vec![
                    (
                        "requests_per_second".to_string(),
                        format!("{:.3}", counts.per_second),
                    ),
                    ("read_rows".into(), counts.read_rows.to_string()),
                    ("write_rows".into(), counts.write_rows.to_string()),
                    ("window_secs".into(), counts.window_secs.to_string()),
                ];
                for (cause, n) in ferrobase_engine::StallCause::ALL
                    .iter()
                    .zip(&m.write_suspensions_by_cause)
                {
                    let n = ferrobase_engine::Metrics::get(n);
                    pairs.push((
                        format!("write_suspensions.{}", cause.label()),
                        n.to_string(),
                    ));
                }
                pairs.push(("open_scanners".into(), self.scanners.len().to_string()));
                let jobs = engine.background_jobs();
                for j in &jobs.running {
                    pairs.push(("running".into(), j.summary_line()));
                }
                for j in &jobs.recent {
                    pairs.push(("recent".into(), j.summary_line()));
                }
                let items = pairs
                    .into_iter()
                    .flat_map(|(k, v)| [TValue::string(k), TValue::string(v)])
                    .collect();
                return Ok(Some(TValue::List(TType::Binary, items)));
            }
            AdminOp::DeleteSnapshot => self.run_admin(
                user,
                AdminRequest::DeleteSnapshot {
                    name: snapshot_name(key)?,
                },
            )?,
            AdminOp::CloneSnapshot => self.run_admin(
                user,
                AdminRequest::CloneSnapshot {
                    name: snapshot_name(key)?,
                    table: name,
                },
            )?,
            AdminOp::RestoreSnapshot => self.run_admin(
                user,
                AdminRequest::RestoreSnapshot {
                    name: snapshot_name(key)?,
                },
            )?,
            AdminOp::DeleteFamily => {
                let family = key.ok_or_else(|| {
                    ServiceError::IllegalArgument("delete_family needs the family".into())
                })?;
                self.run_admin(
                    user,
                    AdminRequest::AlterTable {
                        table: name,
                        changes: vec![TableChange::DeleteFamily(family)],
                    },
                )?;
            }
            // Reached only with access control off (it intercepts them otherwise): HBase's
            // answer without its AccessController.
            AdminOp::Grant | AdminOp::Revoke | AdminOp::UserPermission => {
                return Err(super::authorize::acl_off())
            }
            // The probe of a ferrobase gateway: the operations it serves.
            AdminOp::Capabilities => {
                return Ok(Some(TValue::List(
                    TType::Binary,
                    AdminOp::ALL
                        .iter()
                        .map(|op| TValue::string(op.name().to_string()))
                        .collect(),
                )))
            }
        }
        Ok(None)
    }

    /// `getRegionInfo(row)`: the region whose `hbase:meta` row is the last at or before `row`
    /// in meta order (HBase reverse-scans hbase:meta from `row`), over every table; clients
    /// ask with `table,row,99999999999999` for the region of `table` holding `row`. HBase's
    /// meta also lists its system tables' regions (`hbase:namespace`), which ferrobase has
    /// not: a row between tables can find another region there.
    pub(crate) fn get_region_info(&self, raw: &[u8]) -> CallResult {
        let admin = self.engine.admin();
        let mut best: Option<(Vec<u8>, TRegionInfo)> = None;
        for table in admin.list_tables()? {
            // HBase names a table of the default namespace without it.
            let name = table.to_string();
            for r in admin.regions(&name)? {
                let info = region_info(&name, &r);
                if compare_meta_rows(&info.name, raw).is_gt() {
                    continue;
                }
                if best
                    .as_ref()
                    .is_none_or(|(b, _)| compare_meta_rows(b, &info.name).is_lt())
                {
                    best = Some((info.name.clone(), info));
                }
            }
        }
        match best {
            Some((_, info)) => Ok(Some(info.to_value())),
            None => Err(ServiceError::Io(format!(
                "java.io.IOException: Cannot find row in hbase:meta, row={}",
                String::from_utf8_lossy(raw)
            ))),
        }
    }
}

/// The `map<string,string>` of `ferrobaseAdmin`'s field 4 as text pairs (non-binary entries
/// skipped).
fn string_map(a: &FerrobaseAdminArgs) -> Vec<(String, String)> {
    a.attributes
        .iter()
        .map(|(k, v)| {
            (
                String::from_utf8_lossy(k).into_owned(),
                String::from_utf8_lossy(v).into_owned(),
            )
        })
        .collect()
}

/// The snapshot a `ferrobaseAdmin` snapshot operation names (its key).
fn snapshot_name(key: Option<Vec<u8>>) -> Result<String, ServiceError> {
    let key =
        key.ok_or_else(|| ServiceError::IllegalArgument("the snapshot's name is missing".into()))?;
    String::from_utf8(key)
        .map_err(|_| ServiceError::IllegalArgument("a snapshot's name is text".into()))
}
