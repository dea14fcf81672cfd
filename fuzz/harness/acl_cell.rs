//! Reading an `hbase:acl` cell (`ferrobase_security::acl::acl_table::decode_cell`: the scope
//! from the row, the user, family and qualifier from the qualifier, the action letters from the
//! value) never panics on a cell from disk, and a cell it keeps in HBase's plain form names a user
//! without a comma (the length-prefixed form, `docs/format/acl.md`, may hold any user).
//! Input: the row's length (a byte), the qualifier's length (a byte), the row, the qualifier,
//! the value (the rest); lengths past the input are cut to it.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs
//! that once failed (`fuzz/corpus/acl_cell/`, `fuzz/regressions/acl_cell/`).

use ferrobase_security::acl::acl_table::decode_cell;

/// Splits an input into the cell's row, qualifier and value.
pub fn split(data: &[u8]) -> Option<(&[u8], &[u8], &[u8])> {
    let (&row_len, rest) = data.split_first()?;
    let (&qualifier_len, rest) = rest.split_first()?;
    let (row, rest) = rest.split_at(usize::from(row_len).min(rest.len()));
    let (qualifier, value) = rest.split_at(usize::from(qualifier_len).min(rest.len()));
    Some((row, qualifier, value))
}

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let Some((row, qualifier, value)) = split(data) else {
        return;
    };
    if let Some((user, _, _)) = decode_cell(row, qualifier, value) {
        // The plain form's user is the qualifier up to its first comma; the length-prefixed
        // form (first byte 0xff) carries any bytes.
        if qualifier.first() != Some(&0xff) {
            assert!(
                !user.contains(','),
                "the qualifier's first part is the user"
            );
        }
    }
}
