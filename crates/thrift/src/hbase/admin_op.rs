//! The operations of ferrobase's `ferrobaseAdmin` Thrift extension, declared once: the client
//! builds them, the gateway matches them (its ACL rule and its handler, each an exhaustive
//! match), and the wire carries [`AdminOp::name`]. A name no variant has is refused by the
//! gateway before any check or handler runs, for every user.

/// One `ferrobaseAdmin` operation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AdminOp {
    /// Which operations the gateway serves (answers their names): the client's probe for a
    /// ferrobase gateway, which Apache's answers "Invalid method name".
    Capabilities,
    /// `Increment` with a cell TTL.
    Increment,
    /// `Append` with a cell TTL.
    Append,
    /// A delete with exact markers (timestamps, family versions).
    Delete,
    /// A scanner with RAW or several VERSIONS, returning typed cells.
    ScanOpen,
    /// The next rows of a [`AdminOp::ScanOpen`] scanner.
    ScanNext,
    /// What a [`AdminOp::ScanOpen`] scanner opened with `EXPLAIN` has cost so far (scan
    /// explain; key = the scanner id), as an explain line.
    ScanCost,
    /// A Get (key = the row) with `scan_open`'s column, time, version, raw and filter
    /// attributes, answering its row as typed cells and, with `EXPLAIN`, what it cost.
    Get,
    /// `create_namespace`.
    CreateNamespace,
    /// `drop_namespace`.
    DropNamespace,
    /// Flushes a table's memstores.
    Flush,
    /// Splits a table (at a key, or its middle).
    Split,
    /// Empties a table.
    Truncate,
    /// Empties a table, keeping its region boundaries.
    TruncatePreserve,
    /// A table's attributes, `DURABILITY` first.
    TableAttributes,
    /// Every family's attributes.
    FamilyAttributes,
    /// Sets table attributes.
    SetTableAttributes,
    /// Removes one table attribute.
    UnsetTableAttribute,
    /// Adds a family or changes its attributes.
    PutFamily,
    /// Removes a family and its data.
    DeleteFamily,
    /// `grant`.
    Grant,
    /// `revoke`.
    Revoke,
    /// `user_permission`.
    UserPermission,
    /// Takes a snapshot (table = the table, key = the snapshot's name; attribute `SKIP_FLUSH`
    /// = `true` skips the flush).
    Snapshot,
    /// The snapshots (answers name, table, creation time in ms as text, ... per snapshot).
    ListSnapshots,
    /// Deletes a snapshot (key = its name).
    DeleteSnapshot,
    /// Creates a table from a snapshot (table = the new table, key = the snapshot's name).
    CloneSnapshot,
    /// Puts a snapshot back into its disabled table (key = the snapshot's name).
    RestoreSnapshot,
    /// The server's slow-operation log, newest first (answers eight strings per call: end
    /// time in ms, door, method, table, user, duration in µs, description, explain line).
    SlowLog,
    /// What the shell's `status` prints beyond HBase's shapes: key, value, ... strings
    /// (`requests_per_second`, `read_rows`, `write_rows`, `window_secs`,
    /// `write_suspensions.CAUSE`, `open_scanners` of the serving door, then one `running` and
    /// one `recent` pair per flush or compaction, its one-line summary).
    ServerStatus,
}

impl AdminOp {
    /// Every operation.
    pub const ALL: [AdminOp; 30] = [
        AdminOp::Capabilities,
        AdminOp::Increment,
        AdminOp::Append,
        AdminOp::Delete,
        AdminOp::ScanOpen,
        AdminOp::ScanNext,
        AdminOp::ScanCost,
        AdminOp::Get,
        AdminOp::CreateNamespace,
        AdminOp::DropNamespace,
        AdminOp::Flush,
        AdminOp::Split,
        AdminOp::Truncate,
        AdminOp::TruncatePreserve,
        AdminOp::TableAttributes,
        AdminOp::FamilyAttributes,
        AdminOp::SetTableAttributes,
        AdminOp::UnsetTableAttribute,
        AdminOp::PutFamily,
        AdminOp::DeleteFamily,
        AdminOp::Grant,
        AdminOp::Revoke,
        AdminOp::UserPermission,
        AdminOp::Snapshot,
        AdminOp::ListSnapshots,
        AdminOp::DeleteSnapshot,
        AdminOp::CloneSnapshot,
        AdminOp::RestoreSnapshot,
        AdminOp::SlowLog,
        AdminOp::ServerStatus,
    ];

    /// The name the wire carries (`ferrobaseAdmin`'s `operation` field).
    pub fn name(self) -> &'static str {
        match self {
            AdminOp::Capabilities => "capabilities",
            AdminOp::Increment => "increment",
            AdminOp::Append => "append",
            AdminOp::Delete => "delete",
            AdminOp::ScanOpen => "scan_open",
            AdminOp::ScanNext => "scan_next",
            AdminOp::ScanCost => "scan_cost",
            AdminOp::Get => "get",
            AdminOp::CreateNamespace => "create_namespace",
            AdminOp::DropNamespace => "drop_namespace",
            AdminOp::Flush => "flush",
            AdminOp::Split => "split",
            AdminOp::Truncate => "truncate",
            AdminOp::TruncatePreserve => "truncate_preserve",
            AdminOp::TableAttributes => "table_attributes",
            AdminOp::FamilyAttributes => "family_attributes",
            AdminOp::SetTableAttributes => "set_table_attributes",
            AdminOp::UnsetTableAttribute => "unset_table_attribute",
            AdminOp::PutFamily => "put_family",
            AdminOp::DeleteFamily => "delete_family",
            AdminOp::Grant => "grant",
            AdminOp::Revoke => "revoke",
            AdminOp::UserPermission => "user_permission",
            AdminOp::Snapshot => "snapshot",
            AdminOp::ListSnapshots => "list_snapshots",
            AdminOp::DeleteSnapshot => "delete_snapshot",
            AdminOp::CloneSnapshot => "clone_snapshot",
            AdminOp::RestoreSnapshot => "restore_snapshot",
            AdminOp::SlowLog => "slow_log",
            AdminOp::ServerStatus => "server_status",
        }
    }

    /// The operation `name` names; `None` for a name no operation has.
    pub fn parse(name: &str) -> Option<AdminOp> {
        AdminOp::ALL.into_iter().find(|op| op.name() == name)
    }

    /// Whether the operation is a grant, revoke or listing of grants (answered by the ACL
    /// layer, not the table handler).
    pub fn is_security(self) -> bool {
        matches!(
            self,
            AdminOp::Grant | AdminOp::Revoke | AdminOp::UserPermission
        )
    }
}

impl std::fmt::Display for AdminOp {
    /// The name the wire carries.
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_name_parses_back_and_names_are_distinct() {
        let mut names = std::collections::BTreeSet::new();
        for op in AdminOp::ALL {
            assert_eq!(AdminOp::parse(op.name()), Some(op));
            assert!(names.insert(op.name()), "{op:?}");
        }
        assert_eq!(AdminOp::parse("no_such_op"), None);
    }
}
