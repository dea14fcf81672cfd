//! HBase's access-control model: users, grants of the actions R, W, X, C, A at global,
//! namespace, table, family and qualifier scope, and the table `hbase:acl` that keeps them.
//! The checks HBase's `AccessController` makes are the gateway's (`ferrobase_gateway::access`).

pub mod acl_table;
pub mod permission;

pub use acl_table::{canonical_table, AclStore, ACL_TABLE};
pub use permission::{Action, Actions, Scope, UserPermission};
