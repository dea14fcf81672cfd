//! The `Hbase` service's declaration, from HBase's `Hbase.thrift` (hbase-thrift, 2.x): declared
//! once, typed, in `ferrobase-thrift` ([`ferrobase_thrift::hbase`]), shared with the client. The
//! server decodes each call against [`arguments`], derived from the typed argument structs, so
//! a field a method does not declare is never built. `ferrobaseAdmin` is ferrobase's own
//! addition.

pub use ferrobase_thrift::hbase::service::{arguments, throws, Call, METHODS};

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
        assert_eq!(METHODS.len(), 53);
    }
}
