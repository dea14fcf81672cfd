//! Shared test support: the reference model, the files of a data directory, pause points,
//! the engine-with-a-table setup, a catalog for DDL tests.
pub mod ddl;
pub mod files;
pub mod gate;
pub mod model;
pub mod power_cut;
pub mod table;
