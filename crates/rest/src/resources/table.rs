//! `SchemaResource` (a table's schema: read, create or replace, update, drop),
//! `RegionsResource`, `ExistsResource` and `NamespacesInstanceResource`.

use super::access::{authorize_admin, run_admin};
use super::{is, method_not_allowed, no_cache, ok};
use crate::error::RestError;
use crate::http::{percent_decode, Request, Response};
use crate::media::{body_repr, negotiate, Repr};
use crate::model::{TableInfoModel, TableListModel, TableRegionModel, TableSchemaModel};
use crate::server::Door;
use ferrobase_engine::Error as EngineError;
use ferrobase_gateway::access::Operation;
use ferrobase_gateway::catalog::region_row;
use ferrobase_gateway::request::{AdminRequest, TableChange};

const BODIES: &[Repr] = &[Repr::Xml, Repr::Json, Repr::Protobuf];

/// The absolute URL of this request (HBase's `uriInfo.getAbsolutePath()`), for `Location`.
pub(super) fn absolute(door: &Door, req: &Request, path: &str) -> String {
    let host = req
        .header("Host")
        .map(str::to_string)
        .unwrap_or_else(|| door.addr.to_string());
    let scheme = if door.opts.tls.is_some() {
        "https"
    } else {
        "http"
    };
    format!("{scheme}://{host}{path}")
}

/// `/TABLE/schema`.
pub(super) fn schema(door: &Door, req: &Request, table: &str) -> Result<Response, RestError> {
    let admin = door.engine.admin();
    let op_table = || super::access::table_name(table);
    if is(req, "GET") {
        let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
        // preGetTableDescriptors: ADMIN or CREATE on a table that exists.
        if admin.table_exists(table).unwrap_or(false) {
            super::access::authorize(door, req, &Operation::DescribeTable { table: op_table()? })?;
        }
        let desc = admin.describe(table)?;
        return Ok(no_cache(ok(
            req,
            repr,
            TableSchemaModel::of_descriptor(&desc).encode(repr),
        )));
    }
    if is(req, "DELETE") {
        // HBase's REST disables the table, then deletes it; both authorized before either runs.
        // A name the access rule cannot read is HBase REST's 400 first, for every user (the
        // executor would refuse a non-superuser's as 403).
        op_table()?;
        let disable = authorize_admin(
            door,
            req,
            AdminRequest::DisableTable {
                table: table.to_string(),
            },
        )?;
        let delete = authorize_admin(
            door,
            req,
            AdminRequest::DeleteTable {
                table: table.to_string(),
            },
        )?;
        match run_admin(door, req, disable) {
            Ok(()) | Err(EngineError::TableDisabled(_)) => {}
            Err(e) => return Err(e.into()),
        }
        run_admin(door, req, delete)?;
        return Ok(Response::empty(200));
    }
    let replace = if is(req, "PUT") {
        true
    } else if is(req, "POST") {
        false
    } else {
        return Err(method_not_allowed());
    };
    let model = TableSchemaModel::decode(body_repr(req, BODIES)?, &req.body)?;
    let wanted = model.to_descriptor(table)?;
    let created = Response::empty(201).with_header("Location", absolute(door, req, &req.path));
    if !admin.table_exists(table)? {
        // A name the access rule cannot read is HBase REST's 400 first, for every user (the
        // executor would refuse a non-superuser's as 403).
        op_table()?;
        let create = authorize_admin(
            door,
            req,
            AdminRequest::CreateTable {
                descriptor: wanted,
                splits: Vec::new(),
            },
        )?;
        return match run_admin(door, req, create) {
            Ok(()) => Ok(created),
            Err(EngineError::TableExists(_)) => Err(RestError::new(304, "Not modified")),
            Err(e) => Err(e.into()),
        };
    }
    let current = admin.describe(table)?;
    // `addColumnFamily`/`modifyColumnFamily` for each family the schema names; a replace
    // (`modifyTable` with the whole descriptor) also drops the families it leaves out and sets
    // its attributes.
    let mut changes: Vec<TableChange> = wanted
        .families
        .iter()
        .map(|f| match current.family(&f.name) {
            Some(_) => TableChange::ModifyFamily(f.clone()),
            None => TableChange::AddFamily(f.clone()),
        })
        .collect();
    if replace {
        changes.extend(
            current
                .families
                .iter()
                .filter(|f| wanted.family(&f.name).is_none())
                .map(|f| TableChange::DeleteFamily(f.name.clone())),
        );
        let set: Vec<(String, String)> = wanted
            .attributes
            .iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect();
        if !set.is_empty() {
            changes.push(TableChange::Attributes {
                set,
                unset: Vec::new(),
            });
        }
    }
    // A name the access rule cannot read: 400 first, as above.
    op_table()?;
    let alter = authorize_admin(
        door,
        req,
        AdminRequest::AlterTable {
            table: table.to_string(),
            changes,
        },
    )?;
    run_admin(door, req, alter)?;
    Ok(if replace {
        created
    } else {
        Response::empty(200)
    })
}

/// `/TABLE/regions`: the table's regions, each named as HBase names it and located at this
/// door.
pub(super) fn regions(door: &Door, req: &Request, table: &str) -> Result<Response, RestError> {
    let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
    let desc = door.engine.admin().describe(table)?;
    let name = desc.name.to_string();
    let regions = door
        .engine
        .admin()
        .regions(&name)?
        .into_iter()
        .map(|r| TableRegionModel {
            name: String::from_utf8_lossy(&region_row(&name, &r.start, r.id)).into_owned(),
            id: i64::try_from(r.id).unwrap_or(i64::MAX),
            start_key: r.start,
            end_key: r.end,
            location: door.addr.to_string(),
        })
        .collect();
    let m = TableInfoModel {
        name: table.to_string(),
        regions,
    };
    Ok(no_cache(ok(req, repr, m.encode(repr))))
}

/// `/TABLE/exists`: 200 when the table exists, else 404.
pub(super) fn exists(door: &Door, table: &str) -> Result<Response, RestError> {
    if door.engine.admin().table_exists(table).unwrap_or(false) {
        Ok(Response::empty(200))
    } else {
        Err(RestError::not_found())
    }
}

/// `/namespaces/NS` and `/namespaces/NS/tables`.
pub(super) fn namespace(door: &Door, req: &Request, rest: &str) -> Result<Response, RestError> {
    let (ns, sub) = rest.split_once('/').unwrap_or((rest, ""));
    let ns = String::from_utf8_lossy(&percent_decode(ns, false)).into_owned();
    let admin = door.engine.admin();
    let exists = admin.list_namespaces()?.contains(&ns);
    if sub == "tables" {
        if !is(req, "GET") {
            return Err(method_not_allowed());
        }
        if !exists {
            return Err(RestError::not_found());
        }
        let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
        let mut names: Vec<String> = admin
            .list_tables()?
            .into_iter()
            .filter(|t| {
                t.namespace() == ns && super::access::lists_table(door, req, &t.to_string())
            })
            .map(|t| t.qualifier().to_string())
            .collect();
        names.sort();
        return Ok(ok(req, repr, TableListModel(names).encode(repr)));
    }
    if !sub.is_empty() {
        return Err(RestError::not_found());
    }
    let namespace = || ns.clone();
    if is(req, "GET") {
        if !exists {
            return Err(RestError::not_found());
        }
        super::access::authorize(
            door,
            req,
            &Operation::DescribeNamespace {
                namespace: namespace(),
            },
        )?;
        let repr = negotiate(req, &[Repr::Text, Repr::Xml, Repr::Json, Repr::Protobuf])?;
        let body = match repr {
            Repr::Json => b"{\"properties\":null}".to_vec(),
            Repr::Protobuf => Vec::new(),
            Repr::Text => format!("{{NAME => '{ns}'}}").into_bytes(),
            _ => {
                let mut w = crate::xml::Writer::document();
                w.open("NamespaceProperties", &[], true);
                w.finish()
            }
        };
        return Ok(ok(req, repr, body));
    }
    if is(req, "POST") || is(req, "PUT") {
        let update = is(req, "PUT");
        // The creation authorized first (as HBase's preCreateNamespace runs before the
        // namespace is looked up); an update changes nothing, so only its rule is checked.
        let create = if update {
            super::access::authorize(
                door,
                req,
                &Operation::ModifyNamespace {
                    namespace: namespace(),
                },
            )?;
            None
        } else {
            Some(authorize_admin(
                door,
                req,
                AdminRequest::CreateNamespace {
                    namespace: namespace(),
                },
            )?)
        };
        if !update && exists {
            return Err(RestError::new(
                403,
                format!(
                    "Namespace '{ns}' already exists.  Use REST PUT to alter the existing \
                     namespace."
                ),
            ));
        }
        if update && !exists {
            return Err(RestError::new(
                403,
                format!("Namespace '{ns}' does not exist. Use REST POST to create the namespace."),
            ));
        }
        if namespace_properties(req)? {
            return Err(RestError::bad_request(
                "namespace properties are not supported by ferrobase (its namespaces have none)",
            ));
        }
        let Some(create) = create else {
            // Nothing to change: ferrobase's namespaces have no properties. HBase answers the
            // namespace's URL.
            return Ok(Response::new(
                200,
                "text/plain",
                absolute(door, req, &req.path),
            ));
        };
        run_admin(door, req, create)?;
        return Ok(Response::empty(201).with_header("Location", absolute(door, req, &req.path)));
    }
    if is(req, "DELETE") {
        let drop = authorize_admin(
            door,
            req,
            AdminRequest::DeleteNamespace {
                namespace: namespace(),
            },
        )?;
        if !exists {
            return Err(RestError::new(
                404,
                format!("Namespace '{ns}' does not exists.  Cannot drop namespace."),
            ));
        }
        run_admin(door, req, drop)?;
        return Ok(Response::empty(200));
    }
    Err(method_not_allowed())
}

/// Whether a namespace write's body (`NamespacesInstanceModel`) sets any property; an empty
/// body sets none, whatever its `Content-Type`.
fn namespace_properties(req: &Request) -> Result<bool, RestError> {
    if req.body.iter().all(u8::is_ascii_whitespace) {
        return Ok(false);
    }
    Ok(match body_repr(req, BODIES)? {
        Repr::Json => {
            let v: serde_json::Value = serde_json::from_slice(&req.body)
                .map_err(|e| RestError::bad_request(format!("malformed JSON: {e}")))?;
            v.get("properties")
                .is_some_and(|p| p.as_object().is_some_and(|o| !o.is_empty()))
        }
        Repr::Protobuf => {
            use prost::Message;
            !crate::proto::NamespaceProperties::decode(req.body.as_slice())
                .map_err(|e| RestError::bad_request(format!("malformed protobuf: {e}")))?
                .props
                .is_empty()
        }
        _ => !crate::xml::parse(&req.body)?.children.is_empty(),
    })
}
