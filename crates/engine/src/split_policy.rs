//! When a region splits and where (HBase's `RegionSplitPolicy`), as HBase's
//! `ConstantSizeRegionSplitPolicy` decides: a region splits once its files exceed the table's
//! `MAX_FILESIZE` (else `EngineOptions::region_split_size`), unless automatic splits are off or
//! the table says `SPLIT_ENABLED => false` — at the middle key of its largest file. The split
//! itself is `engine/split.rs`, which asks these with the engine's settings.

use crate::region::Region;
use crate::schema::TableDescriptor;

/// True when `region` of table `table` should split: `auto_split` is on, the table's
/// `SPLIT_ENABLED` is not false, and the region's files exceed the table's `MAX_FILESIZE` (else
/// `default_split_size`, in bytes).
pub(crate) fn split_due(
    auto_split: bool,
    default_split_size: u64,
    table: &TableDescriptor,
    region: &Region,
) -> bool {
    auto_split
        && table
            .attributes
            .split_size(default_split_size)
            .is_some_and(|size| region.file_bytes() > size)
}

/// The row HBase would split `region` at: the middle key of its largest file.
pub(crate) fn split_point(region: &Region) -> Option<Vec<u8>> {
    let stores = region.stores();
    let largest = stores
        .values()
        .flat_map(|s| s.state().files.clone())
        .max_by_key(|f| f.reader.size())?;
    let mid = largest.reader.mid_key()?.row.to_vec();
    (mid > region.start && (region.end.is_empty() || mid < region.end)).then_some(mid)
}
