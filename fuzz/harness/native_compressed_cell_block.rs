//! Compressed cell blocks (`hbase.client.rpc.compressor`) from a client never panic the
//! decompressing decoder nor make it hold more than its limit: the first byte picks the Hadoop
//! codec, the rest is the stream; what decompresses is at most the limit, decodes as a cell
//! block or is refused, and compresses back to a stream that decompresses to the same bytes.
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs.

use ferrobase_native::cellblock::{decode_block, Codec};
use ferrobase_native::hadoop_codec::{CodecError, HadoopCodec};

/// The decompressed bytes one input may produce (the door's bound is its frame limit).
const LIMIT: usize = 1 << 20;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let Some((&pick, stream)) = data.split_first() else {
        return;
    };
    let codec = HadoopCodec::ALL[usize::from(pick) % HadoopCodec::ALL.len()];
    match codec.decompress(stream, LIMIT) {
        Ok(plain) => {
            assert!(plain.len() <= LIMIT, "{codec:?} held {} bytes", plain.len());
            let _ = decode_block(&plain, Codec::KeyValue);
            let _ = decode_block(&plain, Codec::KeyValueWithTags);
            let again = codec.compress(&plain);
            assert_eq!(codec.decompress(&again, LIMIT).as_deref(), Ok(&plain[..]));
        }
        Err(CodecError::TooLarge { limit, .. }) => assert_eq!(limit, LIMIT),
        Err(_) => {}
    }
}
