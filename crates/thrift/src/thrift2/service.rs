//! `THBaseService`, HBase's Thrift2 service: every method's argument struct and declared
//! exceptions, declared once with Thrift1's [`hbase_service!`](crate::hbase_service) macro (its
//! exception ids are the same: `TIOError` 1, `TIllegalArgument` 2). From it come the typed
//! argument structs, the [`Call`] enum a server dispatches on and the declarations
//! ([`arguments`]) its decoder reads each call against.

use super::batch::Puts;
use super::structs::{
    TAppend, TColumnFamilyDescriptor, TDelete, TGet, TIncrement, TLogQueryFilter,
    TNamespaceDescriptor, TPut, TRowMutations, TScan, TServerName, TTableDescriptor, TTableName,
};
use crate::hbase::service::{Exception, Method, Throws};

crate::hbase_service! {
    /// Whether a get would return a cell.
    "exists" => Exists(ExistsArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tget as tget: required TGet,
    }
    /// `exists` for each get.
    "existsAll" => ExistsAll(ExistsAllArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tgets as tgets: default Vec<TGet> = Vec::new(),
    }
    /// A row's cells.
    "get" => Get(GetArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tget as tget: required TGet,
    }
    /// `get` for each get, in order.
    "getMultiple" => GetMultiple(GetMultipleArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tgets as tgets: default Vec<TGet> = Vec::new(),
    }
    /// Writes a row.
    "put" => Put(PutArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tput as tput: required TPut,
    }
    /// Applies `tput` if the column holds `value` (absent: if the column is empty).
    "checkAndPut" => CheckAndPut(CheckAndPutArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: family as family: required Vec<u8>,
        4: qualifier as qualifier: required Vec<u8>,
        5: value as value: optional Vec<u8>,
        6: tput as tput: required TPut,
    }
    /// Writes rows.
    "putMultiple" => PutMultiple(PutMultipleArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tputs as tputs: default Puts = Puts::default(),
    }
    /// Deletes a row's cells.
    "deleteSingle" => DeleteSingle(DeleteSingleArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tdelete as tdelete: required TDelete,
    }
    /// Deletes rows' cells; answers the deletes that failed (none: a failure is an error).
    "deleteMultiple" => DeleteMultiple(DeleteMultipleArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tdeletes as tdeletes: default Vec<TDelete> = Vec::new(),
    }
    /// Applies `tdelete` if the column holds `value` (absent: if the column is empty).
    "checkAndDelete" => CheckAndDelete(CheckAndDeleteArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: family as family: required Vec<u8>,
        4: qualifier as qualifier: required Vec<u8>,
        5: value as value: optional Vec<u8>,
        6: tdelete as tdelete: required TDelete,
    }
    /// Adds to counters; answers their new cells.
    "increment" => Increment(IncrementArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tincrement as tincrement: required TIncrement,
    }
    /// Appends to cells; answers the new cells.
    "append" => Append(AppendArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tappend as tappend: required TAppend,
    }
    /// Opens a scanner.
    "openScanner" => OpenScanner(OpenScannerArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tscan as tscan: required TScan,
    }
    /// The next rows of a scanner.
    "getScannerRows" => GetScannerRows(GetScannerRowsArgs) throws(IOError, IllegalArgument) {
        1: scannerId as scanner_id: required i32,
        2: numRows as num_rows: default i32 = 1,
    }
    /// Closes a scanner.
    "closeScanner" => CloseScanner(CloseScannerArgs) throws(IOError, IllegalArgument) {
        1: scannerId as scanner_id: required i32,
    }
    /// Puts and deletes of one row, atomically.
    "mutateRow" => MutateRow(MutateRowArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: trowMutations as trow_mutations: required TRowMutations,
    }
    /// The first `numRows` rows of a scan, in one call.
    "getScannerResults" => GetScannerResults(GetScannerResultsArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: tscan as tscan: required TScan,
        3: numRows as num_rows: default i32 = 1,
    }
    /// The region holding a row.
    "getRegionLocation" => GetRegionLocation(GetRegionLocationArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: reload as reload: default bool = false,
    }
    /// A table's regions.
    "getAllRegionLocations" => GetAllRegionLocations(GetAllRegionLocationsArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
    }
    /// Applies `rowMutations` if the column compares with `value` by `compareOp`.
    "checkAndMutate" => CheckAndMutate(CheckAndMutateArgs) throws(IOError) {
        1: table as table: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: family as family: required Vec<u8>,
        4: qualifier as qualifier: required Vec<u8>,
        5: compareOp as compare_op: required i32,
        6: value as value: optional Vec<u8>,
        7: rowMutations as row_mutations: required TRowMutations,
    }
    /// A table's descriptor.
    "getTableDescriptor" => GetTableDescriptor(GetTableDescriptorArgs) throws(IOError) {
        1: table as table: required TTableName,
    }
    /// Tables' descriptors.
    "getTableDescriptors" => GetTableDescriptors(GetTableDescriptorsArgs) throws(IOError) {
        1: tables as tables: default Vec<TTableName> = Vec::new(),
    }
    /// Whether a table exists.
    "tableExists" => TableExists(TableExistsArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// The descriptors of the tables whose names match a regex.
    "getTableDescriptorsByPattern" =>
        GetTableDescriptorsByPattern(GetTableDescriptorsByPatternArgs) throws(IOError) {
        1: regex as regex: optional String,
        2: includeSysTables as include_sys_tables: default bool = false,
    }
    /// The descriptors of a namespace's tables.
    "getTableDescriptorsByNamespace" =>
        GetTableDescriptorsByNamespace(GetTableDescriptorsByNamespaceArgs) throws(IOError) {
        1: name as name: required String,
    }
    /// The names of the tables that match a regex.
    "getTableNamesByPattern" => GetTableNamesByPattern(GetTableNamesByPatternArgs) throws(IOError) {
        1: regex as regex: optional String,
        2: includeSysTables as include_sys_tables: default bool = false,
    }
    /// The names of a namespace's tables.
    "getTableNamesByNamespace" =>
        GetTableNamesByNamespace(GetTableNamesByNamespaceArgs) throws(IOError) {
        1: name as name: required String,
    }
    /// Creates a table (split at `splitKeys`).
    "createTable" => CreateTable(CreateTableArgs) throws(IOError) {
        1: desc as desc: required TTableDescriptor,
        2: splitKeys as split_keys: optional Vec<Vec<u8>>,
    }
    /// Deletes a (disabled) table.
    "deleteTable" => DeleteTable(DeleteTableArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// Empties a (disabled) table.
    "truncateTable" => TruncateTable(TruncateTableArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
        2: preserveSplits as preserve_splits: default bool = false,
    }
    /// Brings a table on-line.
    "enableTable" => EnableTable(EnableTableArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// Takes a table off-line.
    "disableTable" => DisableTable(DisableTableArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// Whether a table is on-line.
    "isTableEnabled" => IsTableEnabled(IsTableEnabledArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// Whether a table is off-line.
    "isTableDisabled" => IsTableDisabled(IsTableDisabledArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// Whether every region of a table is open.
    "isTableAvailable" => IsTableAvailable(IsTableAvailableArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
    }
    /// `isTableAvailable` with split keys.
    "isTableAvailableWithSplit" =>
        IsTableAvailableWithSplit(IsTableAvailableWithSplitArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
        2: splitKeys as split_keys: optional Vec<Vec<u8>>,
    }
    /// Adds a family.
    "addColumnFamily" => AddColumnFamily(AddColumnFamilyArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
        2: column as column: required TColumnFamilyDescriptor,
    }
    /// Deletes a family.
    "deleteColumnFamily" => DeleteColumnFamily(DeleteColumnFamilyArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
        2: column as column: required Vec<u8>,
    }
    /// Changes a family.
    "modifyColumnFamily" => ModifyColumnFamily(ModifyColumnFamilyArgs) throws(IOError) {
        1: tableName as table_name: required TTableName,
        2: column as column: required TColumnFamilyDescriptor,
    }
    /// Changes a table.
    "modifyTable" => ModifyTable(ModifyTableArgs) throws(IOError) {
        1: desc as desc: required TTableDescriptor,
    }
    /// Creates a namespace.
    "createNamespace" => CreateNamespace(CreateNamespaceArgs) throws(IOError) {
        1: namespaceDesc as namespace_desc: required TNamespaceDescriptor,
    }
    /// Changes a namespace.
    "modifyNamespace" => ModifyNamespace(ModifyNamespaceArgs) throws(IOError) {
        1: namespaceDesc as namespace_desc: required TNamespaceDescriptor,
    }
    /// Deletes an empty namespace.
    "deleteNamespace" => DeleteNamespace(DeleteNamespaceArgs) throws(IOError) {
        1: name as name: required String,
    }
    /// A namespace's descriptor.
    "getNamespaceDescriptor" => GetNamespaceDescriptor(GetNamespaceDescriptorArgs) throws(IOError) {
        1: name as name: required String,
    }
    /// Every namespace's descriptor.
    "listNamespaceDescriptors" =>
        ListNamespaceDescriptors(ListNamespaceDescriptorsArgs) throws(IOError) {}
    /// Every namespace's name.
    "listNamespaces" => ListNamespaces(ListNamespacesArgs) throws(IOError) {}
    /// Which Thrift server this is (`TWO`).
    "getThriftServerType" => GetThriftServerType(GetThriftServerTypeArgs) throws(IOError) {}
    /// The slow-log records of servers.
    "getSlowLogResponses" => GetSlowLogResponses(GetSlowLogResponsesArgs) throws(IOError) {
        1: serverNames as server_names: default Vec<TServerName> = Vec::new(),
        2: logQueryFilter as log_query_filter: optional TLogQueryFilter,
    }
    /// Clears servers' slow logs.
    "clearSlowLogResponses" => ClearSlowLogResponses(ClearSlowLogResponsesArgs) throws(IOError) {
        1: serverNames as server_names: default Vec<TServerName> = Vec::new(),
    }
    /// The cluster's id.
    "getClusterId" => GetClusterId(GetClusterIdArgs) throws(IOError) {}
}
