//! The resources, routed as HBase REST's Jersey resources match paths (`RootResource`,
//! `TableResource` and those they lead to): `/`, `/version`, `/version/cluster`,
//! `/status/cluster`, `/namespaces[/NS[/tables]]`, then `/TABLE/...` (`schema`, `regions`,
//! `exists`, `scanner[/ID]`, `multiget`, a scan `...*`, a row spec).

mod access;
mod check;
mod rows;
mod scan;
mod table;

use crate::error::RestError;
use crate::http::{percent_decode, Request, Response};
use crate::media::{answer_type, negotiate, Repr};
use crate::model::{
    ClusterStatusModel, ClusterVersionModel, NamespacesModel, NodeModel, RegionLoadModel,
    TableListModel, VersionModel,
};
use crate::server::Door;
use ferrobase_gateway::catalog::region_row;

/// HBase REST's protocol version.
const REST_VERSION: &str = "0.0.3";

/// The answer to `req`.
pub(crate) fn handle(door: &Door, req: &Request) -> Response {
    match route(door, req) {
        Ok(r) => r,
        Err(e) => e.response(),
    }
}

/// A successful answer of `model` bytes in `repr`.
pub(crate) fn ok(req: &Request, repr: Repr, body: Vec<u8>) -> Response {
    Response::new(200, answer_type(req, repr), body)
}

/// `Cache-Control: no-cache`, which HBase's read-only resources answer with.
fn no_cache(r: Response) -> Response {
    r.with_header("Cache-Control", "no-cache")
}

fn method_not_allowed() -> RestError {
    RestError::new(405, "Method Not Allowed")
}

fn is(req: &Request, method: &str) -> bool {
    req.method.eq_ignore_ascii_case(method)
        || (method == "GET" && req.method.eq_ignore_ascii_case("HEAD"))
}

fn route(door: &Door, req: &Request) -> Result<Response, RestError> {
    let path = req.path.trim_start_matches('/');
    match path {
        "" => {
            require(req, "GET")?;
            tables(door, req)
        }
        "version" | "version/rest" => {
            require(req, "GET")?;
            version(door, req)
        }
        "version/cluster" => {
            require(req, "GET")?;
            let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json])?;
            let m = ClusterVersionModel(door.opts.cluster_version.clone());
            Ok(no_cache(ok(req, repr, m.encode(repr))))
        }
        "status/cluster" => {
            require(req, "GET")?;
            // It names every table and region: global ADMIN (HBase's
            // `preGetClusterMetrics`).
            access::authorize(
                door,
                req,
                &ferrobase_gateway::access::Operation::ClusterAdmin,
            )?;
            status(door, req)
        }
        "namespaces" | "namespaces/" => {
            require(req, "GET")?;
            let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
            let mut names = door.engine.admin().list_namespaces()?;
            names.retain(|n| access::lists_namespace(door, req, n));
            names.sort();
            Ok(ok(req, repr, NamespacesModel(names).encode(repr)))
        }
        p if p.starts_with("namespaces/") => {
            let rest = p.trim_start_matches("namespaces/");
            table::namespace(door, req, rest)
        }
        _ => {
            let (table, rest) = path.split_once('/').unwrap_or((path, ""));
            let table = String::from_utf8_lossy(&percent_decode(table, false)).into_owned();
            table_resource(door, req, &table, rest)
        }
    }
}

fn require(req: &Request, method: &str) -> Result<(), RestError> {
    if is(req, method) {
        Ok(())
    } else {
        Err(method_not_allowed())
    }
}

/// `TableResource`'s sub-resources of `/TABLE/REST`.
fn table_resource(
    door: &Door,
    req: &Request,
    table: &str,
    rest: &str,
) -> Result<Response, RestError> {
    match rest {
        "schema" => table::schema(door, req, table),
        "regions" => {
            require(req, "GET")?;
            table::regions(door, req, table)
        }
        "exists" => {
            require(req, "GET")?;
            table::exists(door, table)
        }
        "scanner" | "scanner/" => scan::create_scanner(door, req, table),
        r if r.starts_with("scanner/") => {
            scan::scanner_instance(door, req, r.trim_start_matches("scanner/"))
        }
        r if r.starts_with("multiget") => {
            require(req, "GET")?;
            let columns = r.trim_start_matches("multiget").replace('/', "");
            rows::multiget(door, req, table, &columns)
        }
        "" => Err(RestError::not_found()),
        // `{scanspec: .*[*]$}`: a prefix or whole-table scan.
        r if r.ends_with('*') => {
            require(req, "GET")?;
            scan::table_scan(door, req, table, r)
        }
        r => rows::row(door, req, table, r),
    }
}

fn tables(door: &Door, req: &Request) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let mut names: Vec<String> = door
        .engine
        .admin()
        .list_tables()?
        .into_iter()
        .filter(|t| t.namespace() != "hbase")
        .map(|t| t.to_string())
        .filter(|t| access::lists_table(door, req, t))
        .collect();
    names.sort();
    Ok(no_cache(ok(req, repr, TableListModel(names).encode(repr))))
}

fn version(door: &Door, req: &Request) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let m = VersionModel {
        rest: REST_VERSION.into(),
        jvm: format!("ferrobase {} (Rust)", env!("CARGO_PKG_VERSION")),
        os: format!("{} {}", std::env::consts::OS, std::env::consts::ARCH),
        server: format!("ferrobase/{}", env!("CARGO_PKG_VERSION")),
        jersey: String::new(),
        version: door.opts.cluster_version.clone(),
        revision: format!("ferrobase-{}", env!("CARGO_PKG_VERSION")),
    };
    Ok(no_cache(ok(req, repr, m.encode(repr))))
}

fn mib(bytes: u64) -> i32 {
    i32::try_from(bytes / (1024 * 1024)).unwrap_or(i32::MAX)
}

fn status(door: &Door, req: &Request) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let admin = door.engine.admin();
    let mut regions = Vec::new();
    let mut tables = admin.list_tables()?;
    tables.sort();
    for t in tables {
        let name = t.to_string();
        let stores = admin.describe(&name).map(|d| d.families.len()).unwrap_or(0);
        for r in admin.regions(&name).unwrap_or_default() {
            regions.push(RegionLoadModel {
                name: region_row(&name, &r.start, r.id),
                stores: i32::try_from(stores).unwrap_or(i32::MAX),
                storefiles: i32::try_from(r.file_count).unwrap_or(i32::MAX),
                storefile_size_mb: mib(r.file_bytes),
                memstore_size_mb: mib(r.memstore_bytes as u64),
            });
        }
    }
    let count = i32::try_from(regions.len()).unwrap_or(i32::MAX);
    let requests =
        i64::try_from(door.requests.load(std::sync::atomic::Ordering::Relaxed)).unwrap_or(i64::MAX);
    let m = ClusterStatusModel {
        live: vec![NodeModel {
            name: door.addr.to_string(),
            start_code: door.started_ms,
            requests,
            heap_size_mb: 0,
            max_heap_size_mb: 0,
            regions,
        }],
        regions: count,
        requests,
        average_load: f64::from(count),
    };
    Ok(no_cache(ok(req, repr, m.encode(repr))))
}
