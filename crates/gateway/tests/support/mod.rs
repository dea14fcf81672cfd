//! Helpers shared by the gateway's integration tests.

pub mod replies;
pub mod test_certs;
