//! Reading an `hbase:namespace` `info:d` cell (`ferrobase_thrift::hbase::catalog::
//! PbNamespaceDescriptor::decode`: HBase.proto's `NamespaceDescriptor`, its name and its
//! `NameStringPair` properties) never panics, on a cell from a gateway, ferrobase's or Apache
//! HBase's; what decodes encodes back to a value that decodes to the same descriptor. Input:
//! the cell's value.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/namespace_descriptor/`, `fuzz/regressions/namespace_descriptor/`).

use ferrobase_gateway::thrift::hbase::catalog::PbNamespaceDescriptor;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Ok(d) = PbNamespaceDescriptor::decode(data) {
        let again = PbNamespaceDescriptor::decode(&d.encode());
        assert_eq!(again.as_ref(), Ok(&d), "re-encoding changes the descriptor");
    }
}
