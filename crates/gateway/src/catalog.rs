//! `hbase:meta` and `hbase:namespace` as HBase 2.x lays them out, built from the engine's
//! catalog at the moment of a read: in `hbase:meta` one `table:state` row per table, then one
//! row per region `TABLE,START,ID.ENCODED.` with `info:regioninfo`, `seqnumDuringOpen`,
//! `server`, `serverstartcode`, `sn` and `state`; in `hbase:namespace` one row per namespace
//! with `info:d` (`docs/format/hbase-catalog.md` has the rows and the protobuf bytes). The
//! gateway serves both read-only over Thrift1; the embedded shell shows them from the same
//! encoders, HBase.proto's messages of `ferrobase_thrift::hbase::catalog`.

use ferrobase_engine::{Engine, Error};
use ferrobase_thrift::hbase::catalog::{
    PbNamespaceDescriptor, PbRegionInfo, PbTableName, PbTableState,
};
pub use ferrobase_thrift::hbase::catalog::{META, NAMESPACE};
use md5::{Digest, Md5};

/// The one server of a ferrobase "cluster", as HBase's `ServerName`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ServerName {
    /// Host name.
    pub host: String,
    /// Port (0 for an embedded engine).
    pub port: u16,
    /// Start code: milliseconds since the epoch when the server started.
    pub start_code: u64,
}

impl ServerName {
    /// `host,port,startcode` (HBase's `ServerName.toString`).
    pub fn server_name(&self) -> String {
        format!("{},{},{}", self.host, self.port, self.start_code)
    }
}

/// One cell of a catalog row; its timestamp is the server's start code.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogCell {
    /// Family (`info` or `table`).
    pub family: &'static str,
    /// Qualifier.
    pub qualifier: &'static str,
    /// The value as HBase stores it.
    pub value: Vec<u8>,
}

impl CatalogCell {
    /// `family:qualifier`.
    pub fn column(&self) -> String {
        format!("{}:{}", self.family, self.qualifier)
    }
}

/// One row of a catalog view.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogRow {
    /// Row key.
    pub row: Vec<u8>,
    /// Cells in column order.
    pub cells: Vec<CatalogCell>,
}

/// Compares two `hbase:meta` rows as HBase's `MetaCellComparator` does (the order of
/// [`meta_rows`], and of a region lookup's reversed scan).
pub fn compare_meta_rows(left: &[u8], right: &[u8]) -> std::cmp::Ordering {
    crate::handler::meta_order::compare_meta_rows(left, right)
}

/// `(namespace, qualifier)` of a table name as HBase stores it (`default` when unqualified).
fn split_table(table: &str) -> (&str, &str) {
    table.split_once(':').unwrap_or(("default", table))
}

/// `info:regioninfo`: `PBUF` then HBase.proto's `RegionInfo` (region_id = 1, table_name = 2
/// {namespace = 1, qualifier = 2}, start_key = 3, end_key = 4, offline = 5, split = 6,
/// replica_id = 7), every field written, as `ProtobufUtil.toRegionInfo` writes them.
pub fn region_info_bytes(table: &str, start: &[u8], end: &[u8], id: u64) -> Vec<u8> {
    let (ns, qualifier) = split_table(table);
    PbRegionInfo {
        region_id: id,
        table_name: PbTableName {
            namespace: ns.as_bytes().to_vec(),
            qualifier: qualifier.as_bytes().to_vec(),
        },
        start_key: start.to_vec(),
        end_key: end.to_vec(),
        ..PbRegionInfo::default()
    }
    .to_cell_value()
}

/// `table:state`: HBase.proto's `TableState` (state = 1: ENABLED 0, DISABLED 1), no magic.
pub fn table_state_bytes(enabled: bool) -> Vec<u8> {
    let state = if enabled {
        PbTableState::Enabled
    } else {
        PbTableState::Disabled
    };
    state.encode()
}

/// `info:d` of `hbase:namespace`: HBase.proto's `NamespaceDescriptor` (name = 1; no
/// configuration pairs, field 2, since ferrobase's namespaces have no properties), no magic,
/// as HBase 2.6's `TableNamespaceManager` writes it.
pub fn namespace_descriptor_bytes(name: &str) -> Vec<u8> {
    PbNamespaceDescriptor {
        name: name.as_bytes().to_vec(),
        configuration: Vec::new(),
    }
    .encode()
}

/// The rows of `hbase:namespace` for `engine`: one per namespace (`default`, `hbase` and the
/// created ones), in byte order, each with `info:d`.
pub fn namespace_rows(engine: &Engine) -> Result<Vec<CatalogRow>, Error> {
    let mut names = engine.admin().list_namespaces()?;
    names.sort();
    Ok(names
        .into_iter()
        .map(|n| CatalogRow {
            cells: vec![cell("info", "d", namespace_descriptor_bytes(&n))],
            row: n.into_bytes(),
        })
        .collect())
}

/// The MD5 (lower-case hex) of `table,start,id`: a region's encoded name.
pub fn encoded_region_name(table: &str, start: &[u8], id: u64) -> String {
    let mut raw = format!("{table},").into_bytes();
    raw.extend_from_slice(start);
    raw.extend_from_slice(format!(",{id}").as_bytes());
    Md5::digest(&raw)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// The raw region name `table,start,id.ENCODED.` (`RegionInfo.getRegionName`).
pub fn region_row(table: &str, start: &[u8], id: u64) -> Vec<u8> {
    let mut raw = format!("{table},").into_bytes();
    raw.extend_from_slice(start);
    raw.extend_from_slice(format!(",{id}.").as_bytes());
    raw.extend_from_slice(encoded_region_name(table, start, id).as_bytes());
    raw.push(b'.');
    raw
}

fn cell(family: &'static str, qualifier: &'static str, value: impl Into<Vec<u8>>) -> CatalogCell {
    CatalogCell {
        family,
        qualifier,
        value: value.into(),
    }
}

/// The rows of `hbase:meta` for `engine` served as `server`, in HBase's meta order (a table's
/// state row, then its regions by start key; tables by name). The system table `hbase:acl` is
/// left out, as `getTableNames` leaves it out.
pub fn meta_rows(engine: &Engine, server: &ServerName) -> Result<Vec<CatalogRow>, Error> {
    let admin = engine.admin();
    let mut rows = Vec::new();
    for table in admin.list_tables()? {
        let t = table.to_string();
        if t == crate::access::ACL_TABLE {
            continue;
        }
        let enabled = admin.is_enabled(&t)?;
        rows.push(CatalogRow {
            row: t.as_bytes().to_vec(),
            cells: vec![cell("table", "state", table_state_bytes(enabled))],
        });
        for r in admin.regions(&t)? {
            rows.push(CatalogRow {
                row: region_row(&t, &r.start, r.id),
                cells: vec![
                    cell(
                        "info",
                        "regioninfo",
                        region_info_bytes(&t, &r.start, &r.end, r.id),
                    ),
                    // ferrobase regions have no open sequence number of their own: 2, as a
                    // fresh HBase region records.
                    cell("info", "seqnumDuringOpen", 2u64.to_be_bytes()),
                    cell("info", "server", format!("{}:{}", server.host, server.port)),
                    cell("info", "serverstartcode", server.start_code.to_be_bytes()),
                    cell("info", "sn", server.server_name()),
                    cell("info", "state", if enabled { "OPEN" } else { "CLOSED" }),
                ],
            });
        }
    }
    rows.sort_by(|a, b| compare_meta_rows(&a.row, &b.row));
    Ok(rows)
}

/// This machine's host name, as a region server's name shows it (Linux's
/// `/proc/sys/kernel/hostname`, else `$HOSTNAME`, else `localhost`).
pub fn host_name() -> String {
    std::fs::read_to_string("/proc/sys/kernel/hostname")
        .ok()
        .map(|s| s.trim().to_string())
        .filter(|s| !s.is_empty())
        .or_else(|| std::env::var("HOSTNAME").ok())
        .unwrap_or_else(|| "localhost".into())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn catalog_protobufs_are_hbase_2_bytes() {
        // As the oracle's hbase:namespace and hbase:meta hold them.
        assert_eq!(namespace_descriptor_bytes("default"), b"\x0a\x07default");
        assert_eq!(table_state_bytes(true), b"\x08\x00");
        assert_eq!(table_state_bytes(false), b"\x08\x01");
        let ri = region_info_bytes("ns:t", b"a", b"", 300);
        assert_eq!(
            ri,
            b"PBUF\x08\xac\x02\x12\x07\x0a\x02ns\x12\x01t\x1a\x01a\x22\x00\x28\x00\x30\x00\x38\x00"
        );
        let ri = region_info_bytes("t", b"", b"k", 1);
        assert!(ri.starts_with(b"PBUF\x08\x01\x12\x0c\x0a\x07default\x12\x01t\x1a\x00\x22\x01k"));
    }

    #[test]
    fn region_rows_end_in_the_md5_of_their_name() {
        let row = region_row("t", b"r5", 7);
        let md5 = encoded_region_name("t", b"r5", 7);
        assert_eq!(md5.len(), 32);
        assert_eq!(row, format!("t,r5,7.{md5}.").into_bytes());
    }
}
