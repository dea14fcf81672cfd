//! The filter-language parser never panics: any input is a filter or a positioned error.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/filter_language/`, `fuzz/regressions/filter_language/`).

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    if let Err(e) = ferrobase_engine::filter::parse_filter(data) {
        assert!(e.position <= data.len());
    }
}
