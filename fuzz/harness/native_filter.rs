//! Filters in their protobuf form (`Filter{name, serialized_filter}`) never panic the
//! conversion into the engine's filters, however deep or malformed: the input as a whole
//! `Filter` message, and as one of HBase's filter class names (picked by the first byte) with
//! the rest as its serialized message.
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs.

use ferrobase_native::filters::{to_engine_filter, FILTER_CLASSES};
use ferrobase_native::proto::filter::Filter;
use prost::Message;

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Ok(f) = Filter::decode(data) {
        let _ = to_engine_filter(&f);
    }
    if let Some((&pick, rest)) = data.split_first() {
        // One more than the served classes: a class the conversion does not know.
        let class = FILTER_CLASSES
            .get(usize::from(pick) % (FILTER_CLASSES.len() + 1))
            .copied()
            .unwrap_or("NoSuchFilter");
        let f = Filter {
            name: Some(format!("org.apache.hadoop.hbase.filter.{class}")),
            serialized_filter: Some(rest.to_vec()),
        };
        let _ = to_engine_filter(&f);
    }
}
