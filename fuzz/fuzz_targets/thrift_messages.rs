//! The Thrift decoders never panic and never allocate past the message budget.
#![no_main]

use ferrobase_gateway::thrift::{Binary, Budget, Codec, Compact};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    for compact in [false, true] {
        let mut r = data;
        let mut b = Budget {
            inner: &mut r,
            remaining: 1 << 16,
            depth_left: 16,
        };
        let _ = if compact {
            Compact
                .read_header(&mut b)
                .and_then(|_| Compact.read_struct(&mut b))
        } else {
            Binary
                .read_header(&mut b)
                .and_then(|_| Binary.read_struct(&mut b))
        };
    }
});
