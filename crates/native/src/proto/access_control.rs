//! `AccessControl.proto`: permissions, and the requests of `grant`, `revoke`,
//! `getUserPermissions` and `hasUserPermissions` (which HBase 2.2+ clients send to
//! `MasterService`).

use super::hbase::TableName;

/// A permission at one scope.
#[derive(Clone, PartialEq, prost::Message)]
pub struct Permission {
    /// Required.
    #[prost(enumeration = "permission::Type", optional, tag = "1")]
    pub r#type: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub global_permission: Option<GlobalPermission>,
    #[prost(message, optional, tag = "3")]
    pub namespace_permission: Option<NamespacePermission>,
    #[prost(message, optional, tag = "4")]
    pub table_permission: Option<TablePermission>,
}

/// Nested types of [`Permission`].
pub mod permission {
    /// `Permission.Action`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Action {
        Read = 0,
        Write = 1,
        Exec = 2,
        Create = 3,
        Admin = 4,
    }

    /// `Permission.Type`.
    #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, prost::Enumeration)]
    #[repr(i32)]
    pub enum Type {
        Global = 1,
        Namespace = 2,
        Table = 3,
    }
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct TablePermission {
    #[prost(message, optional, tag = "1")]
    pub table_name: Option<TableName>,
    #[prost(bytes = "vec", optional, tag = "2")]
    pub family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub qualifier: Option<Vec<u8>>,
    #[prost(
        enumeration = "permission::Action",
        repeated,
        packed = "false",
        tag = "4"
    )]
    pub action: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct NamespacePermission {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub namespace_name: Option<Vec<u8>>,
    #[prost(
        enumeration = "permission::Action",
        repeated,
        packed = "false",
        tag = "2"
    )]
    pub action: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GlobalPermission {
    #[prost(
        enumeration = "permission::Action",
        repeated,
        packed = "false",
        tag = "1"
    )]
    pub action: Vec<i32>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct UserPermission {
    /// Required.
    #[prost(bytes = "vec", optional, tag = "1")]
    pub user: Option<Vec<u8>>,
    /// Required.
    #[prost(message, optional, tag = "3")]
    pub permission: Option<Permission>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GrantRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub user_permission: Option<UserPermission>,
    #[prost(bool, optional, default = "false", tag = "2")]
    pub merge_existing_permissions: Option<bool>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GrantResponse {}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RevokeRequest {
    /// Required.
    #[prost(message, optional, tag = "1")]
    pub user_permission: Option<UserPermission>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RevokeResponse {}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetUserPermissionsRequest {
    #[prost(enumeration = "permission::Type", optional, tag = "1")]
    pub r#type: Option<i32>,
    #[prost(message, optional, tag = "2")]
    pub table_name: Option<TableName>,
    #[prost(bytes = "vec", optional, tag = "3")]
    pub namespace_name: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "4")]
    pub column_family: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "5")]
    pub column_qualifier: Option<Vec<u8>>,
    #[prost(bytes = "vec", optional, tag = "6")]
    pub user_name: Option<Vec<u8>>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetUserPermissionsResponse {
    #[prost(message, repeated, tag = "1")]
    pub user_permission: Vec<UserPermission>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct HasUserPermissionsRequest {
    #[prost(bytes = "vec", optional, tag = "1")]
    pub user_name: Option<Vec<u8>>,
    #[prost(message, repeated, tag = "2")]
    pub permission: Vec<Permission>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct HasUserPermissionsResponse {
    #[prost(bool, repeated, packed = "false", tag = "1")]
    pub has_user_permission: Vec<bool>,
}
