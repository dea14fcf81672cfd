//! Shared test support: the reference model, the files of a data directory, pause points.
pub mod files;
pub mod gate;
pub mod model;
