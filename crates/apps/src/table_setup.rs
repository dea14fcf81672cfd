//! Creating an application's tables on first use.

use crate::error::{AppError, Result};
use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, TableDescriptor, TableName};

/// The table attribute that declares a table's rowkey schema (`ferrobase-rowkey` syntax): the
/// shell's `ROWKEY =>` reads, `describe` and the web console's heat map decode keys with it.
pub const ROWKEY_SCHEMA_ATTRIBUTE: &str = "ROWKEY_SCHEMA";

/// A table an application needs: its name, families and key schema.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// The table's name.
    pub name: &'static str,
    /// Its column families, with their attributes.
    pub families: Vec<ColumnFamilyDescriptor>,
    /// The schema its row keys are built with, stored as its `ROWKEY_SCHEMA` attribute.
    pub rowkey: Option<&'static str>,
}

impl TableSpec {
    /// A table of families with HBase's default attributes (one version).
    pub fn new(name: &'static str, families: &[&str]) -> TableSpec {
        TableSpec {
            name,
            families: families
                .iter()
                .map(|f| ColumnFamilyDescriptor::new(f.as_bytes()))
                .collect(),
            rowkey: None,
        }
    }

    /// Declares the table's rowkey schema (stored as its `ROWKEY_SCHEMA` attribute).
    pub fn rowkey(mut self, schema: &'static str) -> TableSpec {
        self.rowkey = Some(schema);
        self
    }

    /// Sets `VERSIONS` of `family`.
    pub fn versions(mut self, family: &str, versions: u32) -> TableSpec {
        for f in &mut self.families {
            if f.name == family.as_bytes() {
                f.max_versions = versions;
            }
        }
        self
    }
}

/// Creates every table of `specs` that does not exist yet, and stores each one's rowkey schema
/// where the table has none (tables created before schemas were stored get theirs); existing
/// families are left as they are. Safe to run concurrently: a table another client created
/// first is not an error. Through Apache HBase's Thrift1 gateway, which cannot store table
/// attributes, the schema is not stored.
pub fn ensure_tables(conn: &Connection, specs: &[TableSpec]) -> Result<()> {
    for spec in specs {
        if !conn.table_exists(spec.name)? {
            create(conn, spec)?;
        }
        if let Some(schema) = spec.rowkey {
            store_rowkey_schema(conn, spec.name, schema)?;
        }
    }
    Ok(())
}

/// Sets `ROWKEY_SCHEMA` on `table` unless it holds one already (a user's own is kept).
fn store_rowkey_schema(conn: &Connection, table: &str, schema: &str) -> Result<()> {
    let Some((_, attrs)) = conn.table_attributes(table)? else {
        return Ok(()); // a gateway without table attributes
    };
    if attrs.get(ROWKEY_SCHEMA_ATTRIBUTE).is_some() {
        return Ok(());
    }
    let set = [(ROWKEY_SCHEMA_ATTRIBUTE.to_string(), schema.to_string())];
    match conn.alter_table_attributes(table, &set, &[]) {
        Ok(()) | Err(ferrobase_client::ClientError::Unsupported(_)) => Ok(()),
        Err(e) => Err(e.into()),
    }
}

/// Creates the table of `spec`.
fn create(conn: &Connection, spec: &TableSpec) -> Result<()> {
    let name =
        TableName::parse(spec.name).map_err(|e| AppError::invalid("table name", e.to_string()))?;
    let mut desc = TableDescriptor::new(name);
    for f in &spec.families {
        desc = desc.with_family(f.clone());
    }
    if let Err(e) = conn.create_table(desc, &[]) {
        if !conn.table_exists(spec.name)? {
            return Err(e.into());
        }
    }
    Ok(())
}
