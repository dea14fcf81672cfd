//! Shared test support: the reference model, and the files of a data directory.
pub mod files;
pub mod model;
