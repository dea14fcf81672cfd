//! The `Hbase` service: every method's argument struct and declared exceptions, declared once
//! ([`hbase_service!`](crate::hbase_service) below). From it come the typed argument structs
//! (`GetRowTs`, …), the [`Call`] enum a server dispatches on, and the declarations
//! ([`arguments`]) its decoder reads each call against. `ferrobaseAdmin` is ferrobase's own
//! addition.

use super::batch::RowBatches;
use super::structs::{
    Attributes, ColumnDescriptor, Mutation, TAccessControlEntity, TAppend, TIncrement, TScan,
};

/// An exception a method may declare, with its field id in the method's result struct.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exception {
    /// `1: IOError io`, declared by every method.
    IOError,
    /// `2: IllegalArgument ia`.
    IllegalArgument,
    /// `3: AlreadyExists exist`.
    AlreadyExists,
}

impl Exception {
    /// The exception's field id in a result struct.
    pub const fn id(self) -> i16 {
        match self {
            Exception::IOError => 1,
            Exception::IllegalArgument => 2,
            Exception::AlreadyExists => 3,
        }
    }
}

/// The exceptions a method declares besides `IOError` (which every method declares).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Throws {
    /// Declares `2: IllegalArgument`.
    pub illegal_argument: bool,
    /// Declares `3: AlreadyExists`.
    pub already_exists: bool,
}

impl Throws {
    /// The declaration of `exceptions`.
    pub const fn of(exceptions: &[Exception]) -> Throws {
        let mut t = Throws {
            illegal_argument: false,
            already_exists: false,
        };
        let mut i = 0;
        while i < exceptions.len() {
            match exceptions[i] {
                Exception::IOError => {}
                Exception::IllegalArgument => t.illegal_argument = true,
                Exception::AlreadyExists => t.already_exists = true,
            }
            i += 1;
        }
        t
    }

    /// Whether `e` is declared.
    pub fn declares(self, e: Exception) -> bool {
        match e {
            Exception::IOError => true,
            Exception::IllegalArgument => self.illegal_argument,
            Exception::AlreadyExists => self.already_exists,
        }
    }
}

/// The field id of a method's result struct that holds its return value (the exceptions it
/// declares take [`Exception::id`]).
pub const RESULT_SUCCESS: i16 = 0;

/// A method's argument struct: which method it calls and what that method declares.
pub trait Method: crate::ThriftStruct {
    /// The method's name.
    const METHOD: &'static str;
    /// The exceptions the method declares.
    const THROWS: Throws;
}

/// Declares the service: per method `"name" => Variant(ArgsStruct) throws(...) { fields }`,
/// fields as in [`thrift_struct!`](crate::thrift_struct).
#[macro_export]
macro_rules! hbase_service {
    (
        $(
            $(#[$meta:meta])*
            $method:literal => $variant:ident($args:ident) throws($($exc:ident),*) {
                $($fields:tt)*
            }
        )*
    ) => {
        $(
            $crate::thrift_struct! {
                $(#[$meta])*
                #[doc = concat!("\n\nThe arguments of `", $method, "`.")]
                pub struct $args = method $method { $($fields)* }
            }

            impl Method for $args {
                const METHOD: &'static str = $method;
                const THROWS: Throws = Throws::of(&[$(Exception::$exc),*]);
            }
        )*

        /// A call of the service with its typed arguments.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Call {
            $(
                #[doc = concat!("`", $method, "`.")]
                $variant($args),
            )*
        }

        impl Call {
            /// The method's name.
            pub fn method(&self) -> &'static str {
                match self {
                    $( Call::$variant(_) => $method, )*
                }
            }

            /// The exceptions the method declares.
            pub fn throws(&self) -> Throws {
                match self {
                    $( Call::$variant(_) => <$args as Method>::THROWS, )*
                }
            }

            /// The call of method `name` with arguments `args` (as the decoder read them);
            /// `None` for a method the service does not have.
            pub fn from_struct(
                name: &str,
                args: $crate::TStruct,
            ) -> Option<Result<Call, $crate::IdlError>> {
                Some(match name {
                    $(
                        $method => <$args as $crate::ThriftStruct>::from_struct(args)
                            .map(Call::$variant),
                    )*
                    _ => return None,
                })
            }

            /// The arguments as the codec writes them.
            pub fn to_struct(&self) -> $crate::TStruct {
                match self {
                    $( Call::$variant(a) => $crate::ThriftStruct::to_struct(a), )*
                }
            }
        }

        /// The argument struct of method `name`, as the decoder reads it; `None` for a method
        /// the service does not have.
        pub fn arguments(name: &str) -> Option<&'static [$crate::Field]> {
            Some(match name {
                $( $method => <$args as $crate::ThriftStruct>::FIELDS, )*
                _ => return None,
            })
        }

        /// The exceptions method `name` declares; `None` for a method the service does not
        /// have.
        pub fn throws(name: &str) -> Option<Throws> {
            Some(match name {
                $( $method => <$args as Method>::THROWS, )*
                _ => return None,
            })
        }

        /// Every method of the service.
        pub const METHODS: &[&str] = &[$($method),*];
    };
}

crate::hbase_service! {
    /// Brings a table on-line.
    "enableTable" => EnableTable(EnableTableArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
    }
    /// Takes a table off-line.
    "disableTable" => DisableTable(DisableTableArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
    }
    /// Whether a table is on-line.
    "isTableEnabled" => IsTableEnabled(IsTableEnabledArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
    }
    /// Compacts a table (or a region's table).
    "compact" => Compact(CompactArgs) throws(IOError) {
        1: tableNameOrRegionName as table_name_or_region_name: required Vec<u8>,
    }
    /// Major-compacts a table (or a region's table).
    "majorCompact" => MajorCompact(MajorCompactArgs) throws(IOError) {
        1: tableNameOrRegionName as table_name_or_region_name: required Vec<u8>,
    }
    /// The user tables.
    "getTableNames" => GetTableNames(GetTableNamesArgs) throws(IOError) {}
    /// The user tables and whether each is enabled.
    "getTableNamesWithIsTableEnabled" =>
        GetTableNamesWithIsTableEnabled(GetTableNamesWithIsTableEnabledArgs) throws(IOError) {}
    /// Which Thrift server this is (ONE).
    "getThriftServerType" => GetThriftServerType(GetThriftServerTypeArgs) throws(IOError) {}
    /// The cluster's id (declared, not served: answered as an unknown method).
    "getClusterId" => GetClusterId(GetClusterIdArgs) throws(IOError) {}
    /// A table's column families.
    "getColumnDescriptors" => GetColumnDescriptors(GetColumnDescriptorsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
    }
    /// A table's regions.
    "getTableRegions" => GetTableRegions(GetTableRegionsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
    }
    /// Creates a table.
    "createTable" => CreateTable(CreateTableArgs)
        throws(IOError, IllegalArgument, AlreadyExists) {
        1: tableName as table_name: required Vec<u8>,
        2: columnFamilies as column_families: default Vec<ColumnDescriptor> = Vec::new(),
    }
    /// Deletes a table.
    "deleteTable" => DeleteTable(DeleteTableArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
    }
    /// The newest cell of a column.
    "get" => Get(GetArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// The newest versions of a column.
    "getVer" => GetVer(GetVerArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: numVersions as num_versions: required i32,
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// The newest versions of a column below a timestamp.
    "getVerTs" => GetVerTs(GetVerTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: timestamp as timestamp: required i64,
        5: numVersions as num_versions: required i32,
        6: attributes as attributes: default Attributes = Vec::new(),
    }
    /// A row.
    "getRow" => GetRow(GetRowArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Columns of a row.
    "getRowWithColumns" => GetRowWithColumns(GetRowWithColumnsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// A row below a timestamp.
    "getRowTs" => GetRowTs(GetRowTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: timestamp as timestamp: required i64,
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Columns of a row below a timestamp.
    "getRowWithColumnsTs" => GetRowWithColumnsTs(GetRowWithColumnsTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: timestamp as timestamp: required i64,
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Rows.
    "getRows" => GetRows(GetRowsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: rows as rows: default Vec<Vec<u8>> = Vec::new(),
        3: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Columns of rows.
    "getRowsWithColumns" => GetRowsWithColumns(GetRowsWithColumnsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: rows as rows: default Vec<Vec<u8>> = Vec::new(),
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Rows below a timestamp.
    "getRowsTs" => GetRowsTs(GetRowsTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: rows as rows: default Vec<Vec<u8>> = Vec::new(),
        3: timestamp as timestamp: required i64,
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Columns of rows below a timestamp.
    "getRowsWithColumnsTs" => GetRowsWithColumnsTs(GetRowsWithColumnsTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: rows as rows: default Vec<Vec<u8>> = Vec::new(),
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: timestamp as timestamp: required i64,
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// A family's cells in the last row at or before `row`. Declared by older IDLs (happybase
    /// 1.3's); HBase 2.6's gateway, and ferrobase's, answer it as an unknown method.
    "getRowOrBefore" => GetRowOrBefore(GetRowOrBeforeArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: family as family: required Vec<u8>,
    }
    /// Mutations of a row, at the current time.
    "mutateRow" => MutateRow(MutateRowArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: mutations as mutations: default Vec<Mutation> = Vec::new(),
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Mutations of a row at a timestamp.
    "mutateRowTs" => MutateRowTs(MutateRowTsArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: mutations as mutations: default Vec<Mutation> = Vec::new(),
        4: timestamp as timestamp: required i64,
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Mutations of rows, at the current time.
    "mutateRows" => MutateRows(MutateRowsArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: rowBatches as row_batches: default RowBatches = RowBatches::default(),
        3: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Mutations of rows at a timestamp.
    "mutateRowsTs" => MutateRowsTs(MutateRowsTsArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: rowBatches as row_batches: default RowBatches = RowBatches::default(),
        3: timestamp as timestamp: required i64,
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Adds to a counter; returns its new value.
    "atomicIncrement" => AtomicIncrement(AtomicIncrementArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: value as value: required i64,
    }
    /// Deletes every version of a column.
    "deleteAll" => DeleteAll(DeleteAllArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Deletes the versions of a column at or below a timestamp.
    "deleteAllTs" => DeleteAllTs(DeleteAllTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        4: timestamp as timestamp: required i64,
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Deletes a row.
    "deleteAllRow" => DeleteAllRow(DeleteAllRowArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Deletes a row's cells at or below a timestamp.
    "deleteAllRowTs" => DeleteAllRowTs(DeleteAllRowTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: timestamp as timestamp: required i64,
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Adds to a counter.
    "increment" => Increment(IncrementArgs) throws(IOError) {
        1: increment as increment: required TIncrement,
    }
    /// Adds to counters.
    "incrementRows" => IncrementRows(IncrementRowsArgs) throws(IOError) {
        1: increments as increments: default Vec<TIncrement> = Vec::new(),
    }
    /// Appends to cells; returns the new cells.
    "append" => Append(AppendArgs) throws(IOError) {
        1: append as append: required TAppend,
    }
    /// Applies `mput` if `column` holds `value` (absent: if the column is empty).
    "checkAndPut" => CheckAndPut(CheckAndPutArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: row as row: required Vec<u8>,
        3: column as column: required Vec<u8>,
        5: value as value: optional Vec<u8>,
        6: mput as mput: required Mutation,
        7: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Opens a scanner described by a `TScan`.
    "scannerOpenWithScan" => ScannerOpenWithScan(ScannerOpenWithScanArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: scan as scan: default TScan = TScan::default(),
        3: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Opens a scanner from a start row.
    "scannerOpen" => ScannerOpen(ScannerOpenArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: startRow as start_row: required Vec<u8>,
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Opens a scanner over a row range.
    "scannerOpenWithStop" => ScannerOpenWithStop(ScannerOpenWithStopArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: startRow as start_row: required Vec<u8>,
        3: stopRow as stop_row: required Vec<u8>,
        4: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Opens a scanner over the rows starting with a prefix.
    "scannerOpenWithPrefix" => ScannerOpenWithPrefix(ScannerOpenWithPrefixArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: startAndPrefix as start_and_prefix: required Vec<u8>,
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Opens a scanner from a start row, below a timestamp.
    "scannerOpenTs" => ScannerOpenTs(ScannerOpenTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: startRow as start_row: required Vec<u8>,
        3: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        4: timestamp as timestamp: required i64,
        5: attributes as attributes: default Attributes = Vec::new(),
    }
    /// Opens a scanner over a row range, below a timestamp.
    "scannerOpenWithStopTs" => ScannerOpenWithStopTs(ScannerOpenWithStopTsArgs) throws(IOError) {
        1: tableName as table_name: required Vec<u8>,
        2: startRow as start_row: required Vec<u8>,
        3: stopRow as stop_row: required Vec<u8>,
        4: columns as columns: default Vec<Vec<u8>> = Vec::new(),
        5: timestamp as timestamp: required i64,
        6: attributes as attributes: default Attributes = Vec::new(),
    }
    /// The next row of a scanner.
    "scannerGet" => ScannerGet(ScannerGetArgs) throws(IOError, IllegalArgument) {
        1: id as id: required i32,
    }
    /// The next rows of a scanner.
    "scannerGetList" => ScannerGetList(ScannerGetListArgs) throws(IOError, IllegalArgument) {
        1: id as id: required i32,
        2: nbRows as nb_rows: required i32,
    }
    /// Closes a scanner.
    "scannerClose" => ScannerClose(ScannerCloseArgs) throws(IOError, IllegalArgument) {
        1: id as id: required i32,
    }
    /// ferrobase's extension: `scannerOpenWithScan` and the scanner's first `nbRows` rows in
    /// one call. The answer is a `TScanBatch` (1: the scanner's id, set only while it stays
    /// open; 2: the rows; or, when `packed` is set, 3: the rows in one binary,
    /// `docs/design/hbase-compatibility.md`). The scanner closes in the same call when it has
    /// no more rows or `close` is set; each part is checked as the call it stands for.
    "ferrobaseScannerOpen" => FerrobaseScannerOpen(FerrobaseScannerOpenArgs) throws(IOError, IllegalArgument) {
        1: tableName as table_name: required Vec<u8>,
        2: scan as scan: default TScan = TScan::default(),
        3: nbRows as nb_rows: required i32,
        4: close as close: default bool = false,
        5: attributes as attributes: default Attributes = Vec::new(),
        6: packed as packed: default bool = false,
    }
    /// ferrobase's extension: `scannerGetList` answered as a `TScanBatch` (the id absent once
    /// the scanner closed: no more rows, or `close` set).
    "ferrobaseScannerNext" => FerrobaseScannerNext(FerrobaseScannerNextArgs) throws(IOError, IllegalArgument) {
        1: id as id: required i32,
        2: nbRows as nb_rows: required i32,
        3: close as close: default bool = false,
        4: packed as packed: default bool = false,
    }
    /// The region holding a meta row key `table,row,id`.
    "getRegionInfo" => GetRegionInfo(GetRegionInfoArgs) throws(IOError) {
        1: row as row: required Vec<u8>,
    }
    /// Grants actions at a table or namespace (HBase 2.x).
    "grant" => Grant(GrantArgs) throws(IOError) {
        1: info as info: required TAccessControlEntity,
    }
    /// Revokes actions at a table or namespace (HBase 2.x).
    "revoke" => Revoke(RevokeArgs) throws(IOError) {
        1: info as info: required TAccessControlEntity,
    }
    /// ferrobase's administration extension: `operation` on `tableName` (or namespace) with
    /// an optional `key` and attributes (`docs/design/` on the gateway lists the operations).
    "ferrobaseAdmin" => FerrobaseAdmin(FerrobaseAdminArgs) throws(IOError, IllegalArgument) {
        1: operation as operation: required String,
        2: tableName as table_name: default Vec<u8> = Vec::new(),
        3: key as key: default Vec<u8> = Vec::new(),
        4: attributes as attributes: default Attributes = Vec::new(),
    }
}
