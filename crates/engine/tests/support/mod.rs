//! Shared test support: the reference model.
pub mod model;
