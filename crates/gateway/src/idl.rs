//! The `Hbase` service's declaration, from HBase's `Hbase.thrift` (hbase-thrift, 2.x): every
//! method's argument struct with its field ids and types, and the structs they carry. The
//! server decodes each call against it, so a field a method does not declare is never built.
//! `ferrobaseAdmin` is ferrobase's own addition.

use crate::thrift::{Field, Ty};

const fn f(id: i16, name: &'static str, ty: Ty) -> Field {
    Field { id, name, ty }
}

const TEXT: Ty = Ty::Binary;
const TEXT_LIST: Ty = Ty::List(&TEXT);
/// `map<Text, Text> attributes`.
const ATTRIBUTES: Ty = Ty::Map(&TEXT, &TEXT);

/// `struct ColumnDescriptor`.
pub const COLUMN_DESCRIPTOR: &[Field] = &[
    f(1, "name", TEXT),
    f(2, "maxVersions", Ty::I32),
    f(3, "compression", Ty::Binary),
    f(4, "inMemory", Ty::Bool),
    f(5, "bloomFilterType", Ty::Binary),
    f(6, "bloomFilterVectorSize", Ty::I32),
    f(7, "bloomFilterNbHashes", Ty::I32),
    f(8, "blockCacheEnabled", Ty::Bool),
    f(9, "timeToLive", Ty::I32),
];

/// `struct Mutation`.
pub const MUTATION: &[Field] = &[
    f(1, "isDelete", Ty::Bool),
    f(2, "column", TEXT),
    f(3, "value", TEXT),
    f(4, "writeToWAL", Ty::Bool),
];

/// `struct BatchMutation`.
pub const BATCH_MUTATION: &[Field] = &[
    f(1, "row", TEXT),
    f(2, "mutations", Ty::List(&Ty::Struct(MUTATION))),
];

/// `struct TIncrement`.
pub const TINCREMENT: &[Field] = &[
    f(1, "table", TEXT),
    f(2, "row", TEXT),
    f(3, "column", TEXT),
    f(4, "ammount", Ty::I64),
];

/// `struct TScan`.
pub const TSCAN: &[Field] = &[
    f(1, "startRow", TEXT),
    f(2, "stopRow", TEXT),
    f(3, "timestamp", Ty::I64),
    f(4, "columns", TEXT_LIST),
    f(5, "caching", Ty::I32),
    f(6, "filterString", TEXT),
    f(7, "batchSize", Ty::I32),
    f(8, "sortColumns", Ty::Bool),
    f(9, "reversed", Ty::Bool),
    f(10, "cacheBlocks", Ty::Bool),
];

/// `struct TAppend`.
pub const TAPPEND: &[Field] = &[
    f(1, "table", TEXT),
    f(2, "row", TEXT),
    f(3, "columns", TEXT_LIST),
    f(4, "values", TEXT_LIST),
];

/// `struct TAccessControlEntity` (HBase 2.x `Hbase.thrift`): `scope` is `TPermissionScope`
/// (TABLE = 0, NAMESPACE = 1), `actions` letters such as `RW`.
pub const TACCESS_CONTROL_ENTITY: &[Field] = &[
    f(1, "username", Ty::Binary),
    f(2, "scope", Ty::I32),
    f(4, "actions", Ty::Binary),
    f(5, "tableName", Ty::Binary),
    f(6, "nsName", Ty::Binary),
];

const MUTATIONS: Ty = Ty::List(&Ty::Struct(MUTATION));
const ROW_BATCHES: Ty = Ty::List(&Ty::Struct(BATCH_MUTATION));

const TABLE: &[Field] = &[f(1, "tableName", TEXT)];
const NONE: &[Field] = &[];
const SCANNER: &[Field] = &[f(1, "id", Ty::I32)];

/// The argument struct of method `name`; `None` for a method the service does not have.
pub fn arguments(name: &str) -> Option<&'static [Field]> {
    Some(match name {
        "enableTable"
        | "disableTable"
        | "isTableEnabled"
        | "getColumnDescriptors"
        | "getTableRegions"
        | "deleteTable" => TABLE,
        "compact" | "majorCompact" => const { &[f(1, "tableNameOrRegionName", TEXT)] },
        "getTableNames"
        | "getTableNamesWithIsTableEnabled"
        | "getThriftServerType"
        | "getClusterId" => NONE,
        "createTable" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(
                        2,
                        "columnFamilies",
                        Ty::List(&Ty::Struct(COLUMN_DESCRIPTOR)),
                    ),
                ]
            }
        }
        "get" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getVer" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(4, "numVersions", Ty::I32),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getVerTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(4, "timestamp", Ty::I64),
                    f(5, "numVersions", Ty::I32),
                    f(6, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRow" | "deleteAllRow" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowWithColumns" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "columns", TEXT_LIST),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowTs" | "deleteAllRowTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "timestamp", Ty::I64),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowWithColumnsTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "columns", TEXT_LIST),
                    f(4, "timestamp", Ty::I64),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRows" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "rows", TEXT_LIST),
                    f(3, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowsWithColumns" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "rows", TEXT_LIST),
                    f(3, "columns", TEXT_LIST),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowsTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "rows", TEXT_LIST),
                    f(3, "timestamp", Ty::I64),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowsWithColumnsTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "rows", TEXT_LIST),
                    f(3, "columns", TEXT_LIST),
                    f(4, "timestamp", Ty::I64),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "getRowOrBefore" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "family", TEXT),
                ]
            }
        }
        "mutateRow" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "mutations", MUTATIONS),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "mutateRowTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "mutations", MUTATIONS),
                    f(4, "timestamp", Ty::I64),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "mutateRows" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "rowBatches", ROW_BATCHES),
                    f(3, "attributes", ATTRIBUTES),
                ]
            }
        }
        "mutateRowsTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "rowBatches", ROW_BATCHES),
                    f(3, "timestamp", Ty::I64),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "atomicIncrement" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(4, "value", Ty::I64),
                ]
            }
        }
        "deleteAll" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "deleteAllTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(4, "timestamp", Ty::I64),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "increment" => const { &[f(1, "increment", Ty::Struct(TINCREMENT))] },
        "incrementRows" => const { &[f(1, "increments", Ty::List(&Ty::Struct(TINCREMENT)))] },
        "append" => const { &[f(1, "append", Ty::Struct(TAPPEND))] },
        "checkAndPut" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "row", TEXT),
                    f(3, "column", TEXT),
                    f(5, "value", TEXT),
                    f(6, "mput", Ty::Struct(MUTATION)),
                    f(7, "attributes", ATTRIBUTES),
                ]
            }
        }
        "scannerOpenWithScan" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "scan", Ty::Struct(TSCAN)),
                    f(3, "attributes", ATTRIBUTES),
                ]
            }
        }
        "scannerOpen" | "scannerOpenWithPrefix" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "startRow", TEXT),
                    f(3, "columns", TEXT_LIST),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        "scannerOpenWithStop" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "startRow", TEXT),
                    f(3, "stopRow", TEXT),
                    f(4, "columns", TEXT_LIST),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "scannerOpenTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "startRow", TEXT),
                    f(3, "columns", TEXT_LIST),
                    f(4, "timestamp", Ty::I64),
                    f(5, "attributes", ATTRIBUTES),
                ]
            }
        }
        "scannerOpenWithStopTs" => {
            const {
                &[
                    f(1, "tableName", TEXT),
                    f(2, "startRow", TEXT),
                    f(3, "stopRow", TEXT),
                    f(4, "columns", TEXT_LIST),
                    f(5, "timestamp", Ty::I64),
                    f(6, "attributes", ATTRIBUTES),
                ]
            }
        }
        "scannerGet" | "scannerClose" => SCANNER,
        "scannerGetList" => const { &[f(1, "id", Ty::I32), f(2, "nbRows", Ty::I32)] },
        "getRegionInfo" => const { &[f(1, "row", TEXT)] },
        "grant" | "revoke" => const { &[f(1, "info", Ty::Struct(TACCESS_CONTROL_ENTITY))] },
        "ferrobaseAdmin" => {
            const {
                &[
                    f(1, "operation", TEXT),
                    f(2, "tableName", TEXT),
                    f(3, "key", TEXT),
                    f(4, "attributes", ATTRIBUTES),
                ]
            }
        }
        _ => return None,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_served_method_is_declared() {
        for m in [
            "enableTable",
            "getTableNames",
            "createTable",
            "getVerTs",
            "getRowsWithColumnsTs",
            "mutateRowsTs",
            "incrementRows",
            "checkAndPut",
            "scannerOpenWithScan",
            "scannerGetList",
            "ferrobaseAdmin",
            "grant",
            "revoke",
        ] {
            assert!(arguments(m).is_some(), "{m}");
        }
        assert!(arguments("noSuchMethod").is_none());
    }
}
