//! Reading the subject CN of a client certificate (`ferrobase_gateway::tls::common_name`,
//! x509-parser on DER bytes from the network) never panics.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/certificate_identity/`,
//! `fuzz/regressions/certificate_identity/`).

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = ferrobase_gateway::tls::common_name(data);
}
