//! `AdminService` (Admin.proto): what a region server answers for `Admin` and HBase's shell
//! (region info, online regions, flush and compaction requests, region loads), and
//! `AccessControlService` (AccessControl.proto), refused as a whole: ACLs are not served on the
//! native door yet (`ferrobase serve` refuses `--rpc-port` with `--acl`).
//!
//! ferrobase's engine flushes and compacts a table, not one region or one family: a request for
//! one region runs on the region's whole table (a superset: every region and every family),
//! which is what a flush or a compaction request promises anyway — the data stays the same,
//! only when the work happens differs. A family that the table does not have is refused, as
//! HBase's region server refuses it. Everything else a region server serves (opening, closing
//! and warming up regions, WAL replication and replay, store file lists, procedures,
//! quotas) is a `DoNotRetryIOException` naming the method and why. The slow log is
//! `GetLogEntries` (`slow_log.rs`).

use super::{decode, unknown_method, Ctx, Reply};
use crate::error::RpcError;
use crate::proto::admin::*;
use crate::proto::cluster_status::RegionLoad;
use crate::proto::hbase::region_specifier::RegionSpecifierType;
use crate::proto::hbase::{RegionInfo, RegionSpecifier};
use crate::regions::{
    meta_region_info, parse_region_name, pb_table_name, resolve, table_text, Region, Target,
    META_REGION_NAME,
};
use crate::state::{now_ms, Shared};
use ferrobase_engine::Admin;
use ferrobase_gateway::access::Operation;
use ferrobase_gateway::catalog;
use ferrobase_gateway::request::AdminRequest;

pub(super) fn call(ctx: &Ctx, method: &str, param: &[u8]) -> Result<Reply, RpcError> {
    let shared = &ctx.shared;
    let admin = shared.engine.admin();
    Ok(match method {
        "GetRegionInfo" => {
            let req: GetRegionInfoRequest = decode(param, method)?;
            let region_info = match resolve(shared, req.region.as_ref())? {
                Target::Meta => meta_region_info(),
                Target::Region(r) => region_info(&r),
            };
            let mut res = GetRegionInfoResponse {
                region_info: Some(region_info),
                splittable: Some(true),
                mergeable: Some(true),
                ..GetRegionInfoResponse::default()
            };
            if req.compaction_state == Some(true) {
                res.set_compaction_state(get_region_info_response::CompactionState::None);
            }
            Reply::pb(&res)
        }
        "GetOnlineRegion" => {
            let mut region_info = vec![meta_region_info()];
            for t in admin.list_tables()? {
                let table = t.to_string();
                for r in table_regions(&admin, &table)? {
                    region_info.push(region_info_of(&table, &r));
                }
            }
            Reply::pb(&GetOnlineRegionResponse { region_info })
        }
        "FlushRegion" => {
            let req: FlushRegionRequest = decode(param, method)?;
            match resolve(shared, req.region.as_ref())? {
                Target::Region(r) => {
                    let flush = ctx.authorize_admin(AdminRequest::Flush {
                        table: r.table.clone(),
                    })?;
                    check_family(&admin, &r, req.family.as_deref())?;
                    ctx.run_admin(flush)?;
                }
                // hbase:meta is drawn from the catalog: nothing to flush.
                Target::Meta => {
                    ctx.authorize(&Operation::Catalog)?;
                }
            }
            Reply::pb(&FlushRegionResponse {
                last_flush_time: Some(now_ms()),
                flushed: Some(true),
                wrote_flush_wal_marker: Some(false),
            })
        }
        "CompactRegion" => {
            let req: CompactRegionRequest = decode(param, method)?;
            refuse_mob_region(req.region.as_ref())?;
            match resolve(shared, req.region.as_ref())? {
                Target::Region(r) => {
                    let compact = ctx.authorize_admin(AdminRequest::Compact {
                        table: r.table.clone(),
                        major: req.major == Some(true),
                    })?;
                    check_family(&admin, &r, req.family.as_deref())?;
                    ctx.run_admin(compact)?;
                }
                Target::Meta => {
                    ctx.authorize(&Operation::Catalog)?;
                }
            }
            Reply::pb(&CompactRegionResponse {})
        }
        "GetRegionLoad" => {
            let req: GetRegionLoadRequest = decode(param, method)?;
            let table = req
                .table_name
                .as_ref()
                .map(|t| table_text(Some(t)))
                .transpose()?;
            Reply::pb(&GetRegionLoadResponse {
                region_loads: region_loads(shared, table.as_deref())?,
            })
        }
        "GetStoreFile" => {
            return Err(RpcError::unsupported(
                "AdminService.GetStoreFile: ferrobase does not name its block files to clients \
                 (they are not HFiles)",
            ))
        }
        "OpenRegion" | "CloseRegion" | "WarmupRegion" | "StopServer" | "UpdateFavoredNodes" => {
            return Err(RpcError::unsupported(format!(
                "AdminService.{method} is not served by ferrobase: it opens, closes and places \
                 its regions itself (one process is its master and its only region server)"
            )))
        }
        "ReplicateWALEntry" | "Replay" => {
            return Err(RpcError::unsupported(format!(
                "AdminService.{method}: ferrobase has no replication"
            )))
        }
        "GetLogEntries" => return super::slow_log::get_log_entries(ctx, param),
        "GetSpaceQuotaSnapshots" => {
            return Err(RpcError::unsupported(format!(
                "AdminService.{method}: quotas are not supported by ferrobase"
            )))
        }
        other => return Err(unknown_method("AdminService", other)),
    })
}

/// `AccessControlService` (grant, revoke, permissions): not served on the native door.
pub(super) fn access_control(method: &str) -> RpcError {
    RpcError::unsupported(format!(
        "AccessControlService.{method}: ACLs are not served on HBase's native RPC door yet \
         (`ferrobase serve` refuses --rpc-port with --acl; grant and revoke through the Thrift \
         door)"
    ))
}

/// The load of every region of `table` (every table: `None`), with `hbase:meta`'s first when
/// every table is asked for. ferrobase counts no requests per region: the counts are 0.
pub(super) fn region_loads(
    shared: &Shared,
    table: Option<&str>,
) -> Result<Vec<RegionLoad>, RpcError> {
    let admin = shared.engine.admin();
    let mut loads = Vec::new();
    let tables = match table {
        Some(t) => vec![t.to_string()],
        None => {
            loads.push(load(META_REGION_NAME.to_vec(), 1, 0, 0, 0));
            admin
                .list_tables()?
                .into_iter()
                .map(|t| t.to_string())
                .collect()
        }
    };
    for t in tables {
        let families = admin.describe(&t)?.families.len();
        for r in table_regions(&admin, &t)? {
            loads.push(load(
                catalog::region_row(&t, &r.start, r.id),
                families,
                r.file_count,
                r.file_bytes,
                r.memstore_bytes as u64,
            ));
        }
    }
    Ok(loads)
}

fn load(name: Vec<u8>, stores: usize, files: usize, file_bytes: u64, memstore: u64) -> RegionLoad {
    let mb = |b: u64| u32::try_from(b >> 20).unwrap_or(u32::MAX);
    let mut spec = RegionSpecifier {
        r#type: None,
        value: Some(name),
    };
    spec.set_type(RegionSpecifierType::RegionName);
    RegionLoad {
        region_specifier: Some(spec),
        stores: Some(u32::try_from(stores).unwrap_or(u32::MAX)),
        storefiles: Some(u32::try_from(files).unwrap_or(u32::MAX)),
        store_uncompressed_size_mb: Some(mb(file_bytes)),
        storefile_size_mb: Some(mb(file_bytes)),
        mem_store_size_mb: Some(mb(memstore)),
        read_requests_count: Some(0),
        write_requests_count: Some(0),
        filtered_read_requests_count: Some(0),
        data_locality: Some(1.0),
        region_size_mb: Some(mb(file_bytes + memstore)),
        ..RegionLoad::default()
    }
}

/// The table's regions; none when it was dropped meanwhile.
fn table_regions(
    admin: &Admin,
    table: &str,
) -> Result<Vec<ferrobase_engine::RegionInfo>, RpcError> {
    match admin.regions(table) {
        Ok(r) => Ok(r),
        Err(ferrobase_engine::Error::TableNotFound(_)) => Ok(Vec::new()),
        Err(e) => Err(e.into()),
    }
}

fn region_info(r: &Region) -> RegionInfo {
    RegionInfo {
        region_id: Some(r.id),
        table_name: Some(pb_table_name(&r.table)),
        start_key: Some(r.start.clone()),
        end_key: Some(r.end.clone()),
        offline: Some(false),
        split: Some(false),
        replica_id: Some(0),
    }
}

fn region_info_of(table: &str, r: &ferrobase_engine::RegionInfo) -> RegionInfo {
    region_info(&Region {
        table: table.to_string(),
        id: r.id,
        start: r.start.clone(),
        end: r.end.clone(),
    })
}

/// HBase's region server refuses a family the region does not have (`HRegion.requestCompaction`:
/// `NoSuchColumnFamilyException`, never retried).
fn check_family(admin: &Admin, r: &Region, family: Option<&[u8]>) -> Result<(), RpcError> {
    let Some(family) = family.filter(|f| !f.is_empty()) else {
        return Ok(());
    };
    if admin.describe(&r.table)?.family(family).is_none() {
        return Err(RpcError::fatal(
            "org.apache.hadoop.hbase.regionserver.NoSuchColumnFamilyException",
            format!(
                "column family {} does not exist in region {}",
                String::from_utf8_lossy(family),
                String::from_utf8_lossy(&catalog::region_row(&r.table, &r.start, r.id))
            ),
        ));
    }
    Ok(())
}

/// `compact 't', nil, 'MOB'` names the table's MOB region (`TABLE,.mob,0`), which HBase's
/// master serves when the table has MOB families; ferrobase has none.
fn refuse_mob_region(spec: Option<&RegionSpecifier>) -> Result<(), RpcError> {
    let name = spec
        .filter(|s| s.r#type() == RegionSpecifierType::RegionName)
        .and_then(|s| s.value.as_deref());
    if let Some((table, start, 0)) = name.and_then(parse_region_name) {
        if start == b".mob" {
            return Err(RpcError::unsupported(format!(
                "compaction type MOB is not supported by ferrobase (it has no MOB files; \
                 table {table})"
            )));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn by_name(name: &[u8]) -> RegionSpecifier {
        let mut spec = RegionSpecifier {
            r#type: None,
            value: Some(name.to_vec()),
        };
        spec.set_type(RegionSpecifierType::RegionName);
        spec
    }

    #[test]
    fn the_mob_region_is_refused_and_others_pass() {
        let mob = catalog::region_row("t1", b".mob", 0);
        let e = refuse_mob_region(Some(&by_name(&mob))).unwrap_err();
        assert!(
            e.message.contains("compaction type MOB is not supported"),
            "{e:?}"
        );
        assert!(e.do_not_retry);
        let plain = catalog::region_row("t1", b"", 7);
        assert!(refuse_mob_region(Some(&by_name(&plain))).is_ok());
        assert!(refuse_mob_region(None).is_ok());
    }

    #[test]
    fn region_loads_name_their_regions() {
        let l = load(b"t,,1.x.".to_vec(), 2, 3, 5 << 20, 1 << 20);
        assert_eq!(l.region_specifier.unwrap().value.unwrap(), b"t,,1.x.");
        assert_eq!((l.stores, l.storefiles), (Some(2), Some(3)));
        assert_eq!((l.storefile_size_mb, l.region_size_mb), (Some(5), Some(6)));
    }
}
