//! Cell blocks (`KeyValueCodec`, `KeyValueCodecWithTags`) from a client never panic the
//! decoder, and a block that decodes re-encodes to the same bytes (without tags).
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs.

use ferrobase_native::cellblock::{decode_block, encode_parts, Codec};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let _ = decode_block(data, Codec::KeyValueWithTags);
    if let Ok(cells) = decode_block(data, Codec::KeyValue) {
        let mut again = Vec::new();
        for c in &cells {
            encode_parts(
                &mut again,
                &c.row,
                &c.family,
                &c.qualifier,
                c.timestamp,
                c.type_code,
                &c.value,
                Codec::KeyValue,
            );
        }
        assert_eq!(again, data, "a decoded block re-encodes to its own bytes");
    }
}
