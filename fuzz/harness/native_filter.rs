//! Filters in their protobuf form (`Filter{name, serialized_filter}`) never panic the
//! conversion into the engine's filters, however deep or malformed: the input as a whole
//! `Filter` message, and as one of HBase's filter class names (picked by the first byte) with
//! the rest as its serialized message.
//!
//! Shared by the fuzz target and the `cargo test` that replays its checked-in inputs.

use ferrobase_native::filters::to_engine_filter;
use ferrobase_native::proto::filter::Filter;
use prost::Message;

/// The class names the conversion knows (and one it does not).
const CLASSES: &[&str] = &[
    "ColumnCountGetFilter",
    "ColumnPaginationFilter",
    "ColumnPrefixFilter",
    "ColumnRangeFilter",
    "DependentColumnFilter",
    "FamilyFilter",
    "FilterList",
    "FilterWrapper",
    "FirstKeyOnlyFilter",
    "FuzzyRowFilter",
    "InclusiveStopFilter",
    "KeyOnlyFilter",
    "MultipleColumnPrefixFilter",
    "MultiRowRangeFilter",
    "PageFilter",
    "PrefixFilter",
    "QualifierFilter",
    "RandomRowFilter",
    "RowFilter",
    "SingleColumnValueExcludeFilter",
    "SingleColumnValueFilter",
    "SkipFilter",
    "TimestampsFilter",
    "ValueFilter",
    "WhileMatchFilter",
    "ColumnValueFilter",
    "NoSuchFilter",
];

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Ok(f) = Filter::decode(data) {
        let _ = to_engine_filter(&f);
    }
    if let Some((&pick, rest)) = data.split_first() {
        let class = CLASSES[usize::from(pick) % CLASSES.len()];
        let f = Filter {
            name: Some(format!("org.apache.hadoop.hbase.filter.{class}")),
            serialized_filter: Some(rest.to_vec()),
        };
        let _ = to_engine_filter(&f);
    }
}
