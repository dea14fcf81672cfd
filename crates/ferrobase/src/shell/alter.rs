//! `alter`: every form of HBase's `alter.rb`, read completely before anything changes. Family
//! specs (`{NAME => 'f', VERSIONS => 3}` or a bare `'f'`) add or modify a family, `'delete' =>
//! 'f'` and `METHOD => 'delete'` remove one. ferrobase keeps no table attributes or table
//! configuration besides `DURABILITY` (set by `create`), so `table_att_unset` and
//! `table_conf_unset` answer HBase's own "Could not find attribute/configuration" and setting a
//! table attribute is refused by name — never read as a family.

use super::args::{arity, attr_text, bytes, client, hash, illegal, text, Res};
use super::commands::Shell;
use super::syntax::{Statement, Value};
use ferrobase_engine::ColumnFamilyDescriptor;

/// One change of an `alter` statement.
enum Step {
    /// Add the family, or replace the existing family's descriptor.
    PutFamily(ColumnFamilyDescriptor),
    /// Remove the family and its data.
    DeleteFamily(Vec<u8>),
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
            | "NEW_VERSION_BEHAVIOR"
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
                    let Some(first) = names.first() else {
                        return Err(format!("NAME parameter missing for {m} method").into());
                    };
                    if m == "table_conf_unset" {
                        return Err(format!("Could not find configuration: {first}").into());
                    }
                    if first == "DURABILITY" {
                        return Err(
                            "ferrobase cannot change a table's DURABILITY after create".into()
                        );
                    }
                    return Err(format!("Could not find attribute: {first}").into());
                }
                (None | Some("table_att"), _) => {
                    let key = rest
                        .first()
                        .map(|(k, _)| k.as_str())
                        .or(fam_name.map(|_| "NAME"))
                        .unwrap_or("(none)");
                    return Err(format!(
                        "table attribute {key} is not supported by ferrobase (it keeps no table \
                         attributes but DURABILITY, set by create)"
                    )
                    .into());
                }
                (Some(other), _) => return Err(format!("Unknown method: {other}").into()),
            }
        }
        for step in steps {
            match step {
                Step::PutFamily(f) => self.conn.put_family(&name, f).map_err(client)?,
                Step::DeleteFamily(f) => self.conn.delete_family(&name, &f).map_err(client)?,
            }
        }
        self.line("Updating all regions with the new schema...");
        self.line("Done.");
        Ok(())
    }
}
