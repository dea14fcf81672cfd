//! Namespaces: created and dropped like tables, persisted in the manifest ("namespaces" in
//! `docs/format/manifest.md`). `default` and `hbase` always exist; a table's namespace must
//! exist before the table is created, and only an empty namespace can be dropped.

use super::Inner;
use crate::error::{Error, Result};
use crate::lock;
use crate::schema::{is_builtin_namespace, validate_namespace};

impl Inner {
    /// Creates namespace `ns`.
    pub(crate) fn create_namespace(&self, ns: &str) -> Result<()> {
        let _op = self.enter()?;
        validate_namespace(ns)?;
        let _ddl = lock::lock(&self.ddl_lock);
        self.change_catalog(|cat| {
            if cat.has_namespace(ns) {
                return Err(Error::NamespaceExists(ns.to_string()));
            }
            cat.namespaces.insert(ns.to_string());
            Ok(())
        })
    }

    /// Drops namespace `ns`, which must exist, hold no table and not be `default` or `hbase`.
    pub(crate) fn drop_namespace(&self, ns: &str) -> Result<()> {
        let _op = self.enter()?;
        if is_builtin_namespace(ns) {
            return Err(Error::IllegalArgument(format!(
                "Reserved namespace {ns} cannot be removed."
            )));
        }
        let _ddl = lock::lock(&self.ddl_lock);
        self.change_catalog(|cat| {
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
            Ok(())
        })
    }

    /// Every namespace, sorted, `default` and `hbase` included.
    pub(crate) fn namespaces(&self) -> Result<Vec<String>> {
        let _op = self.enter()?;
        let cat = lock::read(&self.catalog);
        let mut all: Vec<String> = cat.namespaces.iter().cloned().collect();
        all.extend(["default".to_string(), "hbase".to_string()]);
        all.sort();
        Ok(all)
    }
}
