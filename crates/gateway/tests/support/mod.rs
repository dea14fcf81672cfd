//! Helpers shared by the gateway's integration tests.

pub mod calls;
pub mod replies;
pub mod server;
pub mod test_certs;
