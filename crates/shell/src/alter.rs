//! `alter`: every form of HBase's `alter.rb`, read completely before anything changes. Family
//! specs (`{NAME => 'f', VERSIONS => 3}` or a bare `'f'`) add or modify a family, `'delete' =>
//! 'f'` and `METHOD => 'delete'` remove one. A hash without `NAME` (or with `METHOD =>
//! 'table_att'`) sets table attributes as HBase's `update_tdb_from_arg`: `MAX_FILESIZE`,
//! `READONLY`, `MEMSTORE_FLUSHSIZE`, `DURABILITY`, `COMPACTION_ENABLED`, `SPLIT_ENABLED`, ...,
//! and the keys of `METADATA => {...}` and `CONFIGURATION => {...}` (one map in HBase 2.x, shown
//! under `METADATA` by `describe`); `table_att_unset` and `table_conf_unset` remove them, with
//! HBase's "Could not find attribute/configuration" for one that is not set. An unknown key is
//! reported as HBase does (`Unknown argument ignored: KEY`); `OWNER` is kept as HBase keeps it
//! (and makes the owner a grantee of the table on a server with ACLs); coprocessors, which
//! ferrobase cannot honour, are refused by name. Every change is checked before any applies.

use super::args::{arity, attr_text, bytes, client, hash, illegal, text, CommandError, Res};
use super::interpreter::Shell;
use super::syntax::{Statement, Value};
use ferrobase_engine::ColumnFamilyDescriptor;

/// One change of an `alter` statement.
enum Step {
    /// Add the family, or replace the existing family's descriptor.
    PutFamily(ColumnFamilyDescriptor),
    /// Remove the family and its data.
    DeleteFamily(Vec<u8>),
}

/// The table attributes HBase's shell sets by name (besides `METADATA` and `CONFIGURATION`).
pub const TABLE_ATTRIBUTES: &[&str] = &[
    "MAX_FILESIZE",
    "READONLY",
    "COMPACTION_ENABLED",
    "SPLIT_ENABLED",
    "MERGE_ENABLED",
    "NORMALIZATION_ENABLED",
    "NORMALIZER_TARGET_REGION_COUNT",
    "NORMALIZER_TARGET_REGION_SIZE",
    "NORMALIZER_TARGET_REGION_SIZE_MB",
    "MEMSTORE_FLUSHSIZE",
    "DURABILITY",
    "PRIORITY",
    "FLUSH_POLICY",
    "REGION_MEMSTORE_REPLICATION",
    "SPLIT_POLICY",
    "REGION_REPLICATION",
];

/// Table attribute changes read from `create`'s or `alter`'s hashes.
#[derive(Default)]
pub struct TableAttributeChanges {
    /// Attributes to set, in HBase's spelling (`METADATA`/`CONFIGURATION` keys as given).
    pub set: Vec<(String, String)>,
    /// Attributes to remove.
    pub unset: Vec<String>,
    /// Keys HBase ignores with `Unknown argument ignored: KEY`.
    pub ignored: Vec<String>,
}

impl TableAttributeChanges {
    /// Reads one table-attribute pair (`METHOD` and `NAME` already taken out). `Ok(false)`
    /// when `key` is not a table attribute at all (the caller decides).
    pub fn read(&mut self, key: &str, v: &Value) -> Res<bool> {
        match key {
            "METADATA" | "CONFIGURATION" => {
                for (k, v) in hash(v, key)? {
                    self.set.push((k, attr_text(&v)?));
                }
            }
            // HBase's `setOwnerString`: kept among the table's values (described under
            // METADATA); a server with ACLs grants the owner every action on the table.
            "OWNER" => self.set.push((key.to_string(), attr_text(v)?)),
            k if k.to_ascii_lowercase().contains("coprocessor") => {
                return Err(format!(
                    "table attribute {k} is not supported by ferrobase (it has no coprocessors)"
                )
                .into())
            }
            k if TABLE_ATTRIBUTES.contains(&k) => self.set.push((k.to_string(), attr_text(v)?)),
            _ => return Ok(false),
        }
        Ok(true)
    }

    /// True when nothing changes.
    pub fn is_empty(&self) -> bool {
        self.set.is_empty() && self.unset.is_empty()
    }
}

/// Applies a family hash's attributes (every key but `NAME`) to `f`. Shared with `create`.
pub fn apply_family_attributes(
    f: &mut ColumnFamilyDescriptor,
    pairs: &[(String, Value)],
) -> Res<()> {
    for (k, v) in pairs {
        match k.as_str() {
            "NAME" => {}
            // ferrobase has no replication; only the default scope means what it says.
            "REPLICATION_SCOPE" => {
                if attr_text(v)? != "0" {
                    return Err(
                        "REPLICATION_SCOPE other than 0 is not supported by ferrobase \
                                (it has no replication)"
                            .into(),
                    );
                }
            }
            "CONFIGURATION"
            | "METADATA"
            | "MOB_THRESHOLD"
            | "IS_MOB"
            | "STORAGE_POLICY"
            | "ENCRYPTION"
            | "ENCRYPTION_KEY"
            | "DFS_REPLICATION"
            | "CACHE_DATA_ON_WRITE"
            | "CACHE_INDEX_ON_WRITE"
            | "CACHE_BLOOMS_ON_WRITE"
            | "EVICT_BLOCKS_ON_CLOSE"
            | "PREFETCH_BLOCKS_ON_OPEN"
            | "COMPRESSION_COMPACT"
            | "MOB_COMPACT_PARTITION_POLICY" => {
                return Err(
                    format!("column family attribute {k} is not supported by ferrobase").into(),
                )
            }
            key => f.set_attribute(key, &attr_text(v)?).map_err(illegal)?,
        }
    }
    f.validate().map_err(illegal)
}

/// The names an unset method names: one string or an array of them.
fn unset_names(v: Option<&Value>, method: &str) -> Res<Vec<String>> {
    match v {
        None => Err(format!("NAME parameter missing for {method} method").into()),
        Some(Value::Array(items)) => items.iter().map(|i| text(i, "NAME")).collect(),
        Some(other) => Ok(vec![text(other, "NAME")?]),
    }
}

impl Shell {
    /// `alter 't', SPEC, ...`: validates every spec, then applies them in order.
    pub(super) fn alter(&mut self, st: &Statement) -> Res<()> {
        arity(st, 2, usize::MAX)?;
        let name = text(&st.args[0], "table name")?;
        let existing = self.conn.describe_table(&name).map_err(client)?;
        let current = |fam: &[u8]| {
            existing
                .iter()
                .find(|f| f.name == fam)
                .cloned()
                .unwrap_or_else(|| ColumnFamilyDescriptor::new(fam.to_vec()))
        };
        let mut steps = Vec::new();
        let mut table = TableAttributeChanges::default();
        let mut conf_unset = Vec::new();
        for arg in &st.args[1..] {
            let pairs = match arg {
                Value::Str(_) | Value::Const(_) => {
                    let mut f = current(&bytes(arg, "family")?);
                    apply_family_attributes(&mut f, &[])?;
                    steps.push(Step::PutFamily(f));
                    continue;
                }
                other => hash(other, "alter argument")?,
            };
            if let Some((_, fam)) = pairs.iter().find(|(k, _)| k == "delete") {
                if pairs.len() > 1 {
                    return Err("'delete' => 'family' takes no other keys".into());
                }
                steps.push(Step::DeleteFamily(bytes(fam, "family")?));
                continue;
            }
            let method = pairs
                .iter()
                .find(|(k, _)| k == "METHOD")
                .map(|(_, v)| text(v, "METHOD"))
                .transpose()?;
            let fam_name = pairs.iter().find(|(k, _)| k == "NAME").map(|(_, v)| v);
            let rest: Vec<&(String, Value)> = pairs
                .iter()
                .filter(|(k, _)| k != "METHOD" && k != "NAME")
                .collect();
            match (method.as_deref(), fam_name) {
                (None, Some(n)) => {
                    let mut f = current(&bytes(n, "NAME")?);
                    apply_family_attributes(&mut f, &pairs)?;
                    steps.push(Step::PutFamily(f));
                }
                (Some("delete"), n) => {
                    let n = n.ok_or("NAME parameter missing for delete method")?;
                    if let Some((k, _)) = rest.first() {
                        return Err(format!("Unknown argument for the delete method: {k}").into());
                    }
                    steps.push(Step::DeleteFamily(bytes(n, "NAME")?));
                }
                (Some(m @ ("table_att_unset" | "table_conf_unset")), n) => {
                    if let Some((k, _)) = rest.first() {
                        return Err(format!("Unknown argument for the {m} method: {k}").into());
                    }
                    let names = unset_names(n, m)?;
                    if names.is_empty() {
                        return Err(format!("NAME parameter missing for {m} method").into());
                    }
                    if m == "table_conf_unset" {
                        conf_unset.extend(names.iter().cloned());
                    }
                    table.unset.extend(names);
                }
                (None | Some("table_att"), _) => {
                    for (k, v) in rest {
                        if !table.read(k, v)? {
                            table.ignored.push(k.clone());
                        }
                    }
                }
                (Some(other), _) => return Err(format!("Unknown method: {other}").into()),
            }
        }
        self.check_table_attributes(&name, &table, &conf_unset)?;
        for k in &table.ignored {
            self.line(&format!("Unknown argument ignored: {k}"));
        }
        if steps.is_empty() && table.is_empty() {
            return Ok(());
        }
        for step in steps {
            match step {
                Step::PutFamily(f) => self.conn.put_family(&name, f).map_err(client)?,
                Step::DeleteFamily(f) => self.conn.delete_family(&name, &f).map_err(client)?,
            }
        }
        if !table.is_empty() {
            self.conn
                .alter_table_attributes(&name, &table.set, &table.unset)
                .map_err(client)?;
        }
        // HBase's progress lines: every region takes the schema when the change applies.
        let regions = self.conn.regions(&name).map_err(client)?.len();
        self.line("Updating all regions with the new schema...");
        self.line(&format!("{regions}/{regions} regions updated."));
        self.line("Done.");
        Ok(())
    }

    /// Checks table attribute changes before anything applies: each value (on a scratch copy
    /// of the table's attributes), and that each attribute to unset is set — HBase's `Could
    /// not find attribute: KEY` (`configuration` for `table_conf_unset`). Over a gateway, which
    /// cannot read them, the server checks instead.
    fn check_table_attributes(
        &mut self,
        name: &str,
        changes: &TableAttributeChanges,
        conf_unset: &[String],
    ) -> Res<()> {
        let Some((durability, mut attrs)) = self.conn.table_attributes(name).map_err(client)?
        else {
            return Ok(());
        };
        let mut durable = durability != ferrobase_engine::Durability::UseDefault;
        for (k, v) in &changes.set {
            if k == "DURABILITY" {
                ferrobase_engine::Durability::parse(v).map_err(illegal)?;
                durable = true;
            } else {
                attrs.set(k, v).map_err(illegal)?;
            }
        }
        for k in &changes.unset {
            let found = if k == "DURABILITY" {
                std::mem::replace(&mut durable, false)
            } else {
                attrs.remove(k).is_some()
            };
            if !found {
                let what = if conf_unset.contains(k) {
                    "configuration"
                } else {
                    "attribute"
                };
                return Err(CommandError::Usage(format!("Could not find {what}: {k}")));
            }
        }
        Ok(())
    }
}
