//! `hbase:meta` and `hbase:namespace` as the shell reads them, laid out as HBase 2.x lays the
//! two tables out (`docs/format/hbase-catalog.md` has the rows and the protobuf bytes).
//! Embedded, they are read-only views built from the engine's catalog (its tables, their
//! regions and states, its namespaces) at the moment of the read, with the Thrift gateway's
//! encoders (`ferrobase_gateway::catalog`); over `--connect` they are scanned from the
//! gateway, which serves both (ferrobase's and Apache HBase's), and `info:regioninfo` is
//! decoded for display (`ferrobase_client::catalog`). `scan`, `get` and `count` read them;
//! writes are refused.

use super::args::{client, columns_of, hash, int, text, CommandError, Res};
use super::cluster_status::{region_name, ServerIdentity};
use super::format;
use super::interpreter::Shell;
use super::syntax::Value;
use ferrobase_client::catalog::PbRegionInfo;
pub use ferrobase_client::catalog::{META, NAMESPACE};
use ferrobase_client::Connection;
use ferrobase_engine::Scan;
use ferrobase_gateway::catalog::{
    encoded_region_name, namespace_descriptor_bytes, region_row, table_state_bytes,
};

/// Whether `name` is one of the catalog views.
pub fn is_catalog(name: &str) -> bool {
    name == META || name == NAMESPACE
}

/// One cell of a view: column, timestamp, and the value as HBase's shell shows it.
pub struct ViewCell {
    family: String,
    qualifier: String,
    /// Milliseconds; `None`: the view's (when the shell opened the engine).
    timestamp: Option<i64>,
    shown: String,
}

/// One row of a view.
pub struct ViewRow {
    row: Vec<u8>,
    cells: Vec<ViewCell>,
}

/// A cell shown as HBase's shell shows an ordinary value (`toStringBinary`).
fn cell(family: &str, qualifier: &str, value: &[u8]) -> ViewCell {
    ViewCell {
        family: family.into(),
        qualifier: qualifier.into(),
        timestamp: None,
        shown: format::binary(value),
    }
}

/// The part of `RegionInfo.toString` every region has, without the closing brace:
/// `{ENCODED => ..., NAME => '...', STARTKEY => '...', ENDKEY => '...'`.
fn region_info_head(table: &str, start: &[u8], end: &[u8], region_id: u64) -> String {
    let name = region_name(table, start, region_id);
    let encoded = encoded_region_name(table, start, region_id);
    format!(
        "{{ENCODED => {encoded}, NAME => '{name}', STARTKEY => '{}', ENDKEY => '{}'",
        format::binary(start),
        format::binary(end)
    )
}

/// `info:regioninfo` as HBase's shell shows it (`RegionInfo.toString`):
/// `{ENCODED => ..., NAME => '...', STARTKEY => '...', ENDKEY => '...'`, then `OFFLINE`,
/// `SPLIT` and `REPLICA_ID` when set, then `}`.
pub fn region_info_text(info: &PbRegionInfo) -> String {
    let table = String::from_utf8_lossy(&info.table_name.display_name()).into_owned();
    let mut out = region_info_head(&table, &info.start_key, &info.end_key, info.region_id);
    if info.offline {
        out.push_str(", OFFLINE => true");
    }
    if info.split {
        out.push_str(", SPLIT => true");
    }
    if info.replica_id > 0 {
        out.push_str(&format!(", REPLICA_ID => {}", info.replica_id));
    }
    out.push('}');
    out
}

/// A served catalog cell as HBase's shell shows it: `info:regioninfo` decoded (an
/// undecodable value shown as bytes), `info:serverstartcode` as a decimal long, the rest as
/// bytes.
fn served_cell(view: &str, family: &[u8], qualifier: &[u8], value: &[u8]) -> String {
    if view == META && family == b"info" {
        if qualifier == b"regioninfo" {
            if let Ok(info) = PbRegionInfo::from_cell_value(value) {
                return region_info_text(&info);
            }
        }
        if qualifier == b"serverstartcode" {
            if let Ok(bytes) = <[u8; 8]>::try_from(value) {
                return i64::from_be_bytes(bytes).to_string();
            }
        }
    }
    format::binary(value)
}

/// Every row of a catalog table as the gateway serves it.
fn served_rows(conn: &Connection, view: &str) -> Res<Vec<ViewRow>> {
    let scanner = conn
        .table(view)
        .scanner(Scan::new(), None)
        .map_err(client)?;
    let mut rows = Vec::new();
    for r in scanner {
        let r = r.map_err(client)?;
        let cells = r
            .cells
            .iter()
            .map(|c| ViewCell {
                family: String::from_utf8_lossy(c.family()).into_owned(),
                qualifier: String::from_utf8_lossy(c.qualifier()).into_owned(),
                timestamp: Some(c.timestamp()),
                shown: served_cell(view, c.family(), c.qualifier(), c.value()),
            })
            .collect();
        rows.push(ViewRow {
            row: r.row().to_vec(),
            cells,
        });
    }
    Ok(rows)
}

impl Shell {
    /// The rows of a catalog view, in HBase's meta order (a table's state row, then its
    /// regions by start key; tables by name).
    fn catalog_rows(&mut self, view: &str) -> Res<Vec<ViewRow>> {
        if let Connection::Remote(_) = self.conn {
            return served_rows(&self.conn, view);
        }
        if view == NAMESPACE {
            let mut names = self.conn.list_namespaces().map_err(client)?;
            names.sort();
            return Ok(names
                .iter()
                .map(|n| ViewRow {
                    row: n.as_bytes().to_vec(),
                    cells: vec![cell("info", "d", &namespace_descriptor_bytes(n))],
                })
                .collect());
        }
        let server = ServerIdentity::of(&self.conn, self.opened_ms);
        let mut tables = self.conn.list_tables().map_err(client)?;
        tables.sort();
        let mut rows = Vec::new();
        for t in tables {
            let enabled = self.conn.is_enabled(&t).map_err(client)?;
            rows.push(ViewRow {
                row: t.as_bytes().to_vec(),
                cells: vec![cell("table", "state", &table_state_bytes(enabled))],
            });
            let mut regions = self.conn.regions(&t).map_err(client)?;
            regions.sort_by(|a, b| a.start.cmp(&b.start));
            for r in regions {
                let info = ViewCell {
                    family: "info".into(),
                    qualifier: "regioninfo".into(),
                    timestamp: None,
                    shown: region_info_head(&t, &r.start, &r.end, r.id) + "}",
                };
                rows.push(ViewRow {
                    row: region_row(&t, &r.start, r.id),
                    cells: vec![
                        info,
                        // ferrobase regions have no open sequence number of their own: 2, as
                        // a fresh HBase region records.
                        cell("info", "seqnumDuringOpen", &2u64.to_be_bytes()),
                        cell(
                            "info",
                            "server",
                            format!("{}:{}", server.host, server.port).as_bytes(),
                        ),
                        ViewCell {
                            family: "info".into(),
                            qualifier: "serverstartcode".into(),
                            timestamp: None,
                            shown: server.start_code.to_string(),
                        },
                        cell("info", "sn", server.server_name().as_bytes()),
                        cell(
                            "info",
                            "state",
                            if enabled { b"OPEN" as &[u8] } else { b"CLOSED" },
                        ),
                    ],
                });
            }
        }
        Ok(rows)
    }

    /// `scan 'hbase:meta'` / `scan 'hbase:namespace'` with COLUMNS, LIMIT, STARTROW, STOPROW,
    /// ROWPREFIXFILTER or REVERSED; `get` (one row, optional columns) and `count` as well.
    pub(super) fn read_catalog(&mut self, command: &str, view: &str, args: &[Value]) -> Res<()> {
        let mut rows = self.catalog_rows(view)?;
        let mut columns: Vec<Vec<u8>> = Vec::new();
        let mut limit = usize::MAX;
        let (mut start, mut stop, mut prefix, mut reversed) = (None, None, None, false);
        let mut exact = None;
        let mut opts = args.iter();
        if command == "get" {
            exact = Some(match opts.next() {
                Some(v) => super::args::bytes(v, "row")?,
                None => return Err(CommandError::Usage("get needs a row".into())),
            });
        }
        for v in opts {
            let pairs = match v {
                Value::Hash(_) => hash(v, "options")?,
                other => {
                    columns.extend(columns_of(other)?);
                    continue;
                }
            };
            for (k, v) in pairs {
                match k.as_str() {
                    "COLUMNS" | "COLUMN" => columns.extend(columns_of(&v)?),
                    "LIMIT" => limit = int(&v, "LIMIT")?.max(0) as usize,
                    "STARTROW" => start = Some(super::args::bytes(&v, "STARTROW")?),
                    "STOPROW" | "ENDROW" => stop = Some(super::args::bytes(&v, "STOPROW")?),
                    "ROWPREFIXFILTER" => prefix = Some(super::args::bytes(&v, "ROWPREFIXFILTER")?),
                    "REVERSED" => reversed = super::args::boolean(&v, "REVERSED")?,
                    "INTERVAL" | "CACHE" if command == "count" => {
                        int(&v, &k)?;
                    }
                    other => {
                        return Err(format!(
                            "{command} of {view}: option {other} is not supported by ferrobase's \
                             view of {view}"
                        )
                        .into())
                    }
                }
            }
        }
        rows.retain(|r| {
            exact.as_ref().is_none_or(|e| &r.row == e)
                && start.as_ref().is_none_or(|s| &r.row >= s)
                && stop.as_ref().is_none_or(|s| &r.row < s)
                && prefix.as_ref().is_none_or(|p| r.row.starts_with(p))
        });
        for r in &mut rows {
            r.cells.retain(|c| {
                columns.is_empty()
                    || columns.iter().any(|col| {
                        let want = format!("{}:{}", c.family, c.qualifier);
                        col.as_slice() == want.as_bytes() || col.as_slice() == c.family.as_bytes()
                    })
            });
        }
        rows.retain(|r| !r.cells.is_empty());
        if reversed {
            rows.reverse();
        }
        rows.truncate(limit);
        let opened = self.opened_ms as i64;
        let ts = |c: &ViewCell| c.timestamp.unwrap_or(opened);
        match command {
            "count" => {
                self.line(&format!("{} row(s)", rows.len()));
                self.echo = Some(rows.len().to_string());
            }
            "get" => {
                self.line(&format::header("COLUMN", "CELL"));
                for c in rows.iter().flat_map(|r| &r.cells) {
                    self.line(&format::two_columns(
                        &format!("{}:{}", c.family, c.qualifier),
                        &format!("timestamp={}, value={}", ts(c), c.shown),
                    ));
                }
                self.line(&format!("{} row(s)", rows.len()));
            }
            _ => {
                self.line(&format::header("ROW", "COLUMN+CELL"));
                for r in &rows {
                    for c in &r.cells {
                        self.line(&format::two_columns(
                            &format::binary(&r.row),
                            &format!(
                                "column={}:{}, timestamp={}, value={}",
                                c.family,
                                c.qualifier,
                                ts(c),
                                c.shown
                            ),
                        ));
                    }
                }
                self.line(&format!("{} row(s)", rows.len()));
            }
        }
        Ok(())
    }
}

/// The refusal of a write to a catalog view (`None` for other tables).
pub fn refuse_write(command: &str, table: &str) -> Option<CommandError> {
    is_catalog(table).then(|| {
        CommandError::Failed(format!(
            "{command}: {table} is read-only in ferrobase (a view of the engine's catalog; \
             create, alter and drop tables and namespaces instead)"
        ))
    })
}

/// Whether `text` names a catalog view (for the statement's first argument).
pub fn names_catalog(v: Option<&Value>) -> Option<String> {
    v.and_then(|v| text(v, "table name").ok())
        .filter(|t| is_catalog(t))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn served_region_infos_show_as_hbase_shell_shows_them() {
        // The oracle's hbase:namespace region (HBase 2.6.1), as its shell shows it.
        let cell = b"PBUF\x08\xab\xac\x80\x91\xa14\x12\x12\x0a\x05hbase\x12\x09namespace\x1a\x00\x22\x00\x28\x00\x30\x00\x38\x00";
        assert_eq!(
            served_cell(META, b"info", b"regioninfo", cell),
            "{ENCODED => afd758ae12e4e986f1a18a4b98c58502, NAME => \
             'hbase:namespace,,1795600422443.afd758ae12e4e986f1a18a4b98c58502.', STARTKEY => '', \
             ENDKEY => ''}"
        );
        let start_code = 1_795_600_420_118u64.to_be_bytes();
        assert_eq!(
            served_cell(META, b"info", b"serverstartcode", &start_code),
            "1795600420118"
        );
        // A value that does not decode is shown as its bytes, not a panic.
        assert_eq!(
            served_cell(META, b"info", b"regioninfo", b"PBUF\x0a"),
            "PBUF\\x0A"
        );
        let split = PbRegionInfo {
            split: true,
            offline: true,
            replica_id: 1,
            ..PbRegionInfo::default()
        };
        assert!(region_info_text(&split)
            .ends_with(", OFFLINE => true, SPLIT => true, REPLICA_ID => 1}"));
    }

    #[test]
    fn server_names_parse_from_meta_sn() {
        let s = ServerIdentity::parse("127.0.0.1,41059,1795600420118").unwrap();
        assert_eq!(
            (s.host.as_str(), s.port, s.start_code),
            ("127.0.0.1", 41059, 1_795_600_420_118)
        );
        assert_eq!(s.server_name(), "127.0.0.1,41059,1795600420118");
        assert!(ServerIdentity::parse("host,port,1").is_none());
        assert!(ServerIdentity::parse("host:1").is_none());
    }

    #[test]
    fn region_rows_are_hbase_region_names() {
        let row = region_row("t", b"r5", 1_700_000_000_123);
        assert_eq!(
            format::binary(&row),
            region_name("t", b"r5", 1_700_000_000_123)
        );
    }
}
