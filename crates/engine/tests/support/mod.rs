//! Shared test support: the reference model, the files of a data directory, the random generator.
pub mod files;
pub mod model;
