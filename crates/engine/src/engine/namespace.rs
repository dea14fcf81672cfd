//! Namespaces: created and dropped like tables, persisted in the manifest ("namespaces" in
//! `docs/format/manifest.md`). `default` and `hbase` always exist; a table's namespace must
//! exist before the table is created, and only an empty namespace can be dropped.

use super::Inner;
use crate::error::{Error, Result};
use crate::schema::{is_builtin_namespace, validate_namespace};

impl Inner {
    /// Creates namespace `ns`.
    pub(crate) fn create_namespace(&self, ns: &str) -> Result<()> {
        self.check_open()?;
        validate_namespace(ns)?;
        let _ddl = self.ddl_lock.lock().unwrap_or_else(|p| p.into_inner());
        let _m = self.manifest_lock.lock().unwrap_or_else(|p| p.into_inner());
        {
            let mut cat = self.catalog.write().unwrap_or_else(|p| p.into_inner());
            if cat.has_namespace(ns) {
                return Err(Error::NamespaceExists(ns.to_string()));
            }
            cat.namespaces.insert(ns.to_string());
        }
        self.persist()
    }

    /// Drops namespace `ns`, which must exist, hold no table and not be `default` or `hbase`.
    pub(crate) fn drop_namespace(&self, ns: &str) -> Result<()> {
        self.check_open()?;
        if is_builtin_namespace(ns) {
            return Err(Error::IllegalArgument(format!(
                "Reserved namespace {ns} cannot be removed."
            )));
        }
        let _ddl = self.ddl_lock.lock().unwrap_or_else(|p| p.into_inner());
        let _m = self.manifest_lock.lock().unwrap_or_else(|p| p.into_inner());
        {
            let mut cat = self.catalog.write().unwrap_or_else(|p| p.into_inner());
            if !cat.namespaces.contains(ns) {
                return Err(Error::NamespaceNotFound(ns.to_string()));
            }
            let tables = cat.tables.keys().filter(|t| t.namespace() == ns).count();
            if tables > 0 {
                return Err(Error::NamespaceNotEmpty {
                    namespace: ns.to_string(),
                    tables,
                });
            }
            cat.namespaces.remove(ns);
        }
        self.persist()
    }

    /// Every namespace, sorted, `default` and `hbase` included.
    pub(crate) fn namespaces(&self) -> Result<Vec<String>> {
        self.check_open()?;
        let cat = self.catalog.read().unwrap_or_else(|p| p.into_inner());
        let mut all: Vec<String> = cat.namespaces.iter().cloned().collect();
        all.extend(["default".to_string(), "hbase".to_string()]);
        all.sort();
        Ok(all)
    }
}
