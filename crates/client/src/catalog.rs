//! The catalog tables as a client reads them: `hbase:namespace` (the namespaces and their
//! properties) and `hbase:meta` (every region with the server holding it), scanned through
//! the gateway as HBase 2.x lays them out (`docs/format/hbase-catalog.md`) — ferrobase's
//! gateway and Apache HBase's both serve them over Thrift1 — or read from the embedded
//! engine's catalog. The protobuf values are decoded by `ferrobase_thrift::hbase::catalog`,
//! which never panics: a value that does not decode is a [`ClientError::CatalogValue`].

use crate::{ClientError, Connection, Result};
use ferrobase_engine::{RowResult, Scan};
use ferrobase_thrift::hbase::catalog::PbNamespaceDescriptor;
pub use ferrobase_thrift::hbase::catalog::{
    CatalogValueError, PbRegionInfo, PbTableName, META, NAMESPACE,
};

/// A namespace and its properties (HBase's `NamespaceDescriptor`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamespaceDescriptor {
    /// The namespace's name.
    pub name: String,
    /// Its properties, sorted by key (ferrobase's namespaces have none; HBase's may).
    pub properties: Vec<(String, String)>,
}

/// One region as `hbase:meta` lists it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetaRegion {
    /// The meta row: the region's name, `table,start,id.ENCODED.`.
    pub row: Vec<u8>,
    /// `info:regioninfo`, decoded.
    pub info: PbRegionInfo,
    /// `info:sn`, the server holding the region (`host,port,startcode`), when the row has one.
    pub server_name: Option<String>,
}

/// A cell of a catalog table that does not decode.
fn bad_value(table: &'static str, row: &[u8], source: CatalogValueError) -> ClientError {
    ClientError::CatalogValue {
        table,
        row: String::from_utf8_lossy(row).into_owned(),
        source,
    }
}

impl Connection {
    /// Every row of `scan` on catalog table `table`.
    fn scan_catalog(&self, table: &str, scan: Scan) -> Result<Vec<RowResult>> {
        self.table(table).scanner(scan, None)?.collect()
    }

    /// Every namespace with its properties, sorted by name: from the embedded engine, or over
    /// Thrift from a scan of `hbase:namespace` (`info:d`), which both ferrobase's and Apache
    /// HBase's gateways serve.
    pub fn namespace_descriptors(&self) -> Result<Vec<NamespaceDescriptor>> {
        let mut out = match self {
            Connection::Embedded(e) => e
                .admin()
                .list_namespaces()?
                .into_iter()
                .map(|name| NamespaceDescriptor {
                    name,
                    properties: Vec::new(),
                })
                .collect(),
            Connection::Remote(_) => {
                let scan = Scan::new().add_column("info", "d");
                let mut out = Vec::new();
                for r in self.scan_catalog(NAMESPACE, scan)? {
                    let Some(value) = r.value(b"info", b"d") else {
                        continue;
                    };
                    let d = PbNamespaceDescriptor::decode(value)
                        .map_err(|e| bad_value(NAMESPACE, r.row(), e))?;
                    let mut properties = d.configuration;
                    properties.sort();
                    out.push(NamespaceDescriptor {
                        name: String::from_utf8_lossy(&d.name).into_owned(),
                        properties,
                    });
                }
                out
            }
        };
        out.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(out)
    }

    /// The regions `hbase:meta` lists, of `table` or of every table, in meta order, read
    /// through the gateway (a remote connection only: an embedded engine has no served meta;
    /// see [`Connection::regions`]). The scan runs from `table,,` to `table ,,`, as HBase's
    /// `MetaTableAccessor` bounds a table's rows; rows without `info:regioninfo` (the
    /// `table:state` rows) are skipped.
    pub fn meta_regions(&self, table: Option<&str>) -> Result<Vec<MetaRegion>> {
        if let Connection::Embedded(_) = self {
            return Err(ClientError::Unsupported(
                "hbase:meta is read through a gateway; an embedded engine lists its regions \
                 with Connection::regions"
                    .into(),
            ));
        }
        let mut scan = Scan::new()
            .add_column("info", "regioninfo")
            .add_column("info", "sn");
        if let Some(t) = table {
            scan = scan
                .with_start_row(format!("{t},,"))
                .with_stop_row(format!("{t} ,,"));
        }
        let mut out = Vec::new();
        for r in self.scan_catalog(META, scan)? {
            let Some(value) = r.value(b"info", b"regioninfo") else {
                continue;
            };
            let info =
                PbRegionInfo::from_cell_value(value).map_err(|e| bad_value(META, r.row(), e))?;
            if table.is_some_and(|t| info.table_name.display_name() != t.as_bytes()) {
                continue;
            }
            out.push(MetaRegion {
                row: r.row().to_vec(),
                server_name: r
                    .value(b"info", b"sn")
                    .map(|v| String::from_utf8_lossy(v).into_owned()),
                info,
            });
        }
        Ok(out)
    }
}
