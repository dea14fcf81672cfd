//! HBase's REST door (Stargate, `hbase-rest` 2.6.1) over a ferrobase engine: the resources of
//! HBase's `RootResource` and `TableResource` (`/version`, `/status/cluster`, `/`,
//! `/namespaces`, `/TABLE/schema`, `/TABLE/regions`, rows, multi-gets, globs, scanners and the
//! stateless scan) in JSON, XML, protobuf and raw bytes, answered with HBase's status codes.
//! Every request becomes the engine's typed operations (`Get`, `Scan`, `Put`, `Delete`,
//! `Admin` calls); schemas go through the native door's descriptor conversion and filters
//! through the engine's filter language, so nothing means something else here than through the
//! other doors. `docs/design/rest.md` describes the door, its limits and what it refuses.
#![forbid(unsafe_code)]

mod error;
pub mod http;
pub mod login;
pub mod media;
pub mod model;
pub mod proto;
mod resources;
mod scanners;
mod server;
pub mod xml;

pub use error::RestError;
pub use server::{RestOptions, RestServer, RestStopHandle};

/// Fuzzing entry points: the body decoders, on arbitrary bytes (they must never panic).
pub mod fuzzing {
    use crate::media::Repr;
    use crate::model::{CellSetModel, ScannerModel, TableSchemaModel};

    /// Decodes `data` as each model in each representation, and a scanner's filter JSON.
    pub fn decode_bodies(data: &[u8]) {
        for repr in [Repr::Json, Repr::Xml, Repr::Protobuf] {
            let _ = CellSetModel::decode(repr, data);
            let _ = TableSchemaModel::decode(repr, data);
            let _ = ScannerModel::decode(repr, data);
        }
        if let Ok(s) = std::str::from_utf8(data) {
            let _ = crate::model::filter_text(s);
        }
    }
}
