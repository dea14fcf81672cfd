//! Helpers shared by the gateway's integration tests.

pub mod test_certs;
