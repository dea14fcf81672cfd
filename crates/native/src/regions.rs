//! Regions as HBase's client sees them: `hbase:meta`'s one region (`hbase:meta,,1`), and each
//! engine region named `TABLE,START,ID.ENCODED.` with the rows the Thrift door serves for
//! `hbase:meta` (`ferrobase_gateway::catalog`: one layout for both doors). A region name the
//! engine no longer has (split, dropped) is `NotServingRegionException`, so the client looks
//! the row up in `hbase:meta` again.

use crate::error::{RpcError, NOT_SERVING_REGION};
use crate::proto::hbase::region_specifier::RegionSpecifierType;
use crate::proto::hbase::{RegionInfo, RegionSpecifier, TableName as PbTableName};
use crate::state::Shared;
use ferrobase_engine::{Engine, TableName};
use ferrobase_gateway::catalog;

/// `hbase:meta`'s region name (`RegionInfoBuilder.FIRST_META_REGIONINFO`).
pub const META_REGION_NAME: &[u8] = b"hbase:meta,,1";

/// What a region specifier names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Target {
    /// The catalog region, served from the engine's catalog at the moment of the call.
    Meta,
    /// A region of a user table.
    Region(Region),
}

/// One region of a table, as the engine has it now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Region {
    /// The table, as the engine names it (`t` or `ns:t`).
    pub table: String,
    /// Region id.
    pub id: u64,
    /// Inclusive start row (empty: the table's start).
    pub start: Vec<u8>,
    /// Exclusive end row (empty: the table's end).
    pub end: Vec<u8>,
}

impl Region {
    /// Whether `row` falls in this region.
    pub fn contains(&self, row: &[u8]) -> bool {
        row >= self.start.as_slice() && (self.end.is_empty() || row < self.end.as_slice())
    }
}

/// The region a specifier names, as the engine has it now.
pub fn resolve(shared: &Shared, spec: Option<&RegionSpecifier>) -> Result<Target, RpcError> {
    let spec = spec.ok_or_else(|| RpcError::bad_request("the request names no region"))?;
    let value = spec.value.as_deref().unwrap_or_default();
    let not_serving = || {
        RpcError::retry(
            NOT_SERVING_REGION,
            format!(
                "Region {} is not online on {},{},{}",
                String::from_utf8_lossy(value),
                shared.host,
                shared.port,
                shared.start_code
            ),
        )
    };
    match spec.r#type() {
        RegionSpecifierType::RegionName => {
            if value == META_REGION_NAME {
                return Ok(Target::Meta);
            }
            let (table, start, id) = parse_region_name(value).ok_or_else(not_serving)?;
            find(&shared.engine, &table, |r| r.id == id && r.start == start)?
                .map(Target::Region)
                .ok_or_else(not_serving)
                .and_then(|t| online(shared, t).ok_or_else(not_serving))
        }
        RegionSpecifierType::EncodedRegionName => {
            if value == b"1588230740" {
                return Ok(Target::Meta);
            }
            let wanted = String::from_utf8_lossy(value).into_owned();
            for t in shared.engine.admin().list_tables()? {
                let table = t.to_string();
                if let Some(r) = find(&shared.engine, &table, |r| {
                    catalog::encoded_region_name(&table, &r.start, r.id) == wanted
                })? {
                    return online(shared, Target::Region(r)).ok_or_else(not_serving);
                }
            }
            Err(not_serving())
        }
    }
}

/// The target while its table is enabled: a disabled table's regions are closed, and HBase's
/// region server answers `NotServingRegionException` for them, which the client turns into
/// `TableNotEnabledException` after asking the master whether the table is disabled.
fn online(shared: &Shared, t: Target) -> Option<Target> {
    match &t {
        Target::Region(r) if !shared.engine.admin().is_enabled(&r.table).unwrap_or(true) => None,
        _ => Some(t),
    }
}

fn find(
    engine: &Engine,
    table: &str,
    pick: impl Fn(&ferrobase_engine::RegionInfo) -> bool,
) -> Result<Option<Region>, RpcError> {
    let regions = match engine.admin().regions(table) {
        Ok(r) => r,
        Err(ferrobase_engine::Error::TableNotFound(_)) => return Ok(None),
        Err(e) => return Err(e.into()),
    };
    Ok(regions.into_iter().find(|r| pick(r)).map(|r| Region {
        table: table.to_string(),
        id: r.id,
        start: r.start,
        end: r.end,
    }))
}

/// `(table, start, id)` of `TABLE,START,ID.ENCODED.` (or the old form `TABLE,START,ID`). The
/// start key may hold commas; the table name cannot.
pub fn parse_region_name(name: &[u8]) -> Option<(String, Vec<u8>, u64)> {
    let comma = name.iter().position(|&b| b == b',')?;
    let table = std::str::from_utf8(name.get(..comma)?).ok()?.to_string();
    let mut rest = name.get(comma + 1..)?;
    // `.ENCODED.`: 32 hex digits between dots at the end.
    if rest.len() >= 34 && rest.ends_with(b".") {
        let enc = rest.get(rest.len() - 34..)?;
        if enc.first() == Some(&b'.') && enc.get(1..33)?.iter().all(u8::is_ascii_hexdigit) {
            rest = rest.get(..rest.len() - 34)?;
        }
    }
    let last = rest.iter().rposition(|&b| b == b',')?;
    let id = std::str::from_utf8(rest.get(last + 1..)?)
        .ok()?
        .parse()
        .ok()?;
    Some((table, rest.get(..last)?.to_vec(), id))
}

/// The protobuf table name of `table` (`t` or `ns:t`).
pub fn pb_table_name(table: &str) -> PbTableName {
    let (ns, q) = table.split_once(':').unwrap_or(("default", table));
    PbTableName {
        namespace: Some(ns.as_bytes().to_vec()),
        qualifier: Some(q.as_bytes().to_vec()),
    }
}

/// The engine's name of a protobuf table name (`t` for the default namespace, else `ns:t`).
pub fn table_text(name: Option<&PbTableName>) -> Result<String, RpcError> {
    let name = name.ok_or_else(|| RpcError::bad_request("the request names no table"))?;
    let ns = String::from_utf8_lossy(name.namespace.as_deref().unwrap_or_default());
    let q = String::from_utf8_lossy(name.qualifier.as_deref().unwrap_or_default());
    let text = if ns.is_empty() || ns == "default" {
        q.into_owned()
    } else {
        format!("{ns}:{q}")
    };
    TableName::parse(&text).map_err(RpcError::from)?;
    Ok(text)
}

/// `hbase:meta`'s region info.
pub fn meta_region_info() -> RegionInfo {
    RegionInfo {
        region_id: Some(1),
        table_name: Some(pb_table_name("hbase:meta")),
        start_key: Some(Vec::new()),
        end_key: Some(Vec::new()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

/// The server name every region is on: this server.
pub fn server_name(shared: &Shared) -> catalog::ServerName {
    catalog::ServerName {
        host: shared.host.clone(),
        port: shared.port,
        start_code: shared.start_code,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn region_names_parse_with_commas_in_the_start_key() {
        let name = catalog::region_row("ns:t", b"a,b", 42);
        assert_eq!(
            parse_region_name(&name),
            Some(("ns:t".to_string(), b"a,b".to_vec(), 42))
        );
        assert_eq!(
            parse_region_name(b"t,,7"),
            Some(("t".to_string(), Vec::new(), 7))
        );
        assert_eq!(parse_region_name(b"garbage"), None);
        assert_eq!(parse_region_name(b"t,x,notanumber"), None);
    }
}
