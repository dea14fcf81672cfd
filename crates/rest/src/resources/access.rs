//! ACL checks of each REST request, with ACLs on: every resource translated into the
//! operations of the shared request model (`ferrobase_gateway::access::Operation`, decided by
//! `AccessChecker::authorize`, the rules of every door), reads narrowed to the columns the user
//! may read before they run (as HBase's `AccessControlFilter` runs before the user's filter),
//! listings filtered, scanners used by their owner only. A refusal is HBase REST's 403
//! (`ResourceBase.processException`: `Forbidden`, then the `AccessDeniedException`).

use crate::error::RestError;
use crate::http::Request;
use crate::server::Door;
use ferrobase_engine::{ResultScanner, Scan};
use ferrobase_gateway::access::{canonical_table, Denied, Operation, ANONYMOUS};
use ferrobase_gateway::request::{
    AdminRequest, AuthorizedAdmin, Executor, Failure, Partial, Request as DataRequest,
    Response as DataResponse,
};

/// HBase REST's answer to a denied request.
pub(super) fn forbidden(d: Denied) -> RestError {
    RestError::new(
        403,
        format!("Forbidden\r\norg.apache.hadoop.hbase.security.AccessDeniedException: {d}"),
    )
}

/// The request's user (with ACLs on, the door has set it).
pub(super) fn user(req: &Request) -> &str {
    req.user.as_deref().unwrap_or(ANONYMOUS)
}

/// The canonical name (`ns:t`, or `t` in the default namespace) of a table named by a path.
pub(super) fn table_name(t: &str) -> Result<String, RestError> {
    canonical_table(t)
        .map_err(|e| RestError::bad_request(format!("java.lang.IllegalArgumentException: {e}")))
}

/// Whether `req`'s user may perform `op` (always, with ACLs off).
pub(super) fn authorize(door: &Door, req: &Request, op: &Operation) -> Result<(), RestError> {
    match &door.access {
        None => Ok(()),
        Some(acl) => acl.authorize(user(req), op).map(drop).map_err(forbidden),
    }
}

/// A scanner of `scan` opened through the shared executor for the request's user (a partly
/// granted scan narrowed to the readable columns; nothing readable: 403).
pub(super) fn scanner(
    door: &Door,
    req: &Request,
    t: &str,
    scan: Scan,
    engine_error: fn(ferrobase_engine::Error) -> RestError,
) -> Result<ResultScanner, RestError> {
    let request = DataRequest::Scan {
        table: t.to_string(),
        scan,
        partial: Partial::Narrow,
    };
    match execute(door, req, request, engine_error)? {
        DataResponse::Scanner(s) => Ok(*s),
        other => Err(RestError::new(
            500,
            format!("Internal error\r\na scan was answered {other:?}"),
        )),
    }
}

/// A data request run by the shared executor for the request's user: authorized first with
/// ACLs on (a partly granted read narrowed; a refusal is the 403), then run; an engine failure
/// answered by `engine_error`.
pub(super) fn execute(
    door: &Door,
    req: &Request,
    request: DataRequest,
    engine_error: fn(ferrobase_engine::Error) -> RestError,
) -> Result<DataResponse, RestError> {
    run(door, req, request).map_err(|f| match f {
        Failure::Denied(d) => forbidden(d),
        Failure::Engine(e) => engine_error(e),
    })
}

/// A data request run by the shared executor for the request's user, its failure as the
/// executor gives it.
pub(super) fn run(
    door: &Door,
    req: &Request,
    request: DataRequest,
) -> Result<DataResponse, Failure> {
    Executor::new(&door.engine, door.access.as_ref(), user(req)).execute(request)
}

/// Whether a listing of table names shows `table` (HBase's `postGetTableNames`: any grant
/// reaching it; `hbase:acl` never).
pub(super) fn lists_table(door: &Door, req: &Request, table: &str) -> bool {
    door.access
        .as_ref()
        .is_none_or(|acl| acl.lists_table(user(req), table))
}

/// Whether a listing of namespaces shows `ns` (HBase's `postListNamespaceDescriptors`: ADMIN
/// on it; the REST door lists namespace descriptors).
pub(super) fn lists_namespace(door: &Door, req: &Request, ns: &str) -> bool {
    door.access
        .as_ref()
        .is_none_or(|acl| acl.describes_namespace(user(req), ns))
}

/// The owner of a scanner opened by `req` (recorded with it; `None` with ACLs off).
pub(super) fn scanner_owner(door: &Door, req: &Request) -> Option<String> {
    door.access.as_ref().map(|_| user(req).to_string())
}

/// A later request on a scanner: only its owner (HBase's `requireScannerOwner`).
pub(super) fn use_scanner(
    door: &Door,
    req: &Request,
    owner: Option<&str>,
) -> Result<(), RestError> {
    if door.access.is_none() {
        return Ok(());
    }
    authorize(
        door,
        req,
        &Operation::UseScanner {
            owner: owner.map(str::to_string),
        },
    )
}

/// An administrative request authorized by the shared executor for the request's user (a
/// refusal is the 403); run by [`run_admin`] once the resource's own checks pass.
pub(super) fn authorize_admin(
    door: &Door,
    req: &Request,
    request: AdminRequest,
) -> Result<AuthorizedAdmin, RestError> {
    Executor::new(&door.engine, door.access.as_ref(), user(req))
        .authorize_admin(request)
        .map_err(forbidden)
}

/// An authorized administrative request run, and followed up (the creator's or owner's grant on
/// a created or changed table, the grants of a dropped table or namespace), by the shared
/// executor.
pub(super) fn run_admin(
    door: &Door,
    req: &Request,
    authorized: AuthorizedAdmin,
) -> Result<(), ferrobase_engine::Error> {
    Executor::new(&door.engine, door.access.as_ref(), user(req))
        .run_admin(authorized)
        .map(drop)
}
