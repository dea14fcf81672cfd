//! Creating an application's tables on first use.

use crate::error::{AppError, Result};
use ferrobase_client::Connection;
use ferrobase_engine::{ColumnFamilyDescriptor, TableDescriptor, TableName};

/// A table an application needs: its name and families.
#[derive(Debug, Clone)]
pub struct TableSpec {
    /// The table's name.
    pub name: &'static str,
    /// Its column families, with their attributes.
    pub families: Vec<ColumnFamilyDescriptor>,
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
        }
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

/// Creates every table of `specs` that does not exist yet; existing tables are left as they
/// are. Safe to run concurrently: a table another client created first is not an error.
pub fn ensure_tables(conn: &Connection, specs: &[TableSpec]) -> Result<()> {
    for spec in specs {
        if conn.table_exists(spec.name)? {
            continue;
        }
        let name = TableName::parse(spec.name)
            .map_err(|e| AppError::invalid("table name", e.to_string()))?;
        let mut desc = TableDescriptor::new(name);
        for f in &spec.families {
            desc = desc.with_family(f.clone());
        }
        if let Err(e) = conn.create_table(desc, &[]) {
            if !conn.table_exists(spec.name)? {
                return Err(e.into());
            }
        }
    }
    Ok(())
}
