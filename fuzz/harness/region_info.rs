//! Reading an `hbase:meta` `info:regioninfo` cell (`ferrobase_thrift::hbase::catalog::
//! PbRegionInfo::from_cell_value`: the `PBUF` magic, then HBase.proto's `RegionInfo` with its
//! nested `TableName`) never panics, on a cell from a gateway, ferrobase's or Apache HBase's;
//! what decodes encodes back to a value that decodes to the same region. Input: the cell's
//! value.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/region_info/`, `fuzz/regressions/region_info/`).

use ferrobase_gateway::thrift::hbase::catalog::PbRegionInfo;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Ok(info) = PbRegionInfo::from_cell_value(data) {
        let again = PbRegionInfo::from_cell_value(&info.to_cell_value());
        assert_eq!(again.as_ref(), Ok(&info), "re-encoding changes the region");
    }
}
