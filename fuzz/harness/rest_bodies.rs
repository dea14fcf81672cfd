//! The REST door's body decoders never panic: the input as a `CellSet`, a `TableSchema` and a
//! `Scanner` in JSON, XML and protobuf, and as a scanner's filter JSON (translated into the
//! filter language and parsed by the engine's `parse_filter`).
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs.

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    ferrobase_rest::fuzzing::decode_bodies(data);
}
