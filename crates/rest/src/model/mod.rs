//! HBase REST's models (`org.apache.hadoop.hbase.rest.model`) and their representations: each
//! model writes JSON (Jackson over JAXB: member names and order as HBase's), XML (JAXB) and
//! protobuf (`crate::proto`), and those a request carries also read them.

mod cell_set;
mod listing;
mod scanner;
mod schema;

pub use cell_set::{column_of, CellModel, CellSetModel, RowModel};
pub use listing::{
    ClusterStatusModel, ClusterVersionModel, NamespacesModel, NodeModel, RegionLoadModel,
    TableInfoModel, TableListModel, TableRegionModel, VersionModel,
};
pub use scanner::{filter_text, ScannerModel};
pub use schema::{ColumnSchemaModel, TableSchemaModel};

use crate::error::RestError;
use base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
use base64::engine::DecodePaddingMode;
use base64::Engine as _;

/// Java's `Base64.getDecoder()`/Jackson's: the standard alphabet, padding written, accepted
/// or not when read.
const B64: GeneralPurpose = GeneralPurpose::new(
    &base64::alphabet::STANDARD,
    GeneralPurposeConfig::new()
        .with_encode_padding(true)
        .with_decode_padding_mode(DecodePaddingMode::Indifferent),
);

/// `bytes` in base64.
pub fn b64(bytes: &[u8]) -> String {
    B64.encode(bytes)
}

/// Base64 `s` decoded; not base64 is a 400.
pub fn unb64(s: &str) -> Result<Vec<u8>, RestError> {
    B64.decode(s.trim())
        .map_err(|e| RestError::bad_request(format!("malformed base64 {:?}: {e}", clip(s))))
}

/// `s` cut to 64 characters for an error message.
fn clip(s: &str) -> String {
    s.chars().take(64).collect()
}

/// `s` as a JSON string literal.
pub fn json_str(s: &str) -> String {
    serde_json::Value::String(s.to_string()).to_string()
}
