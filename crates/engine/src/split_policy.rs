//! When a region splits and where (HBase's `RegionSplitPolicy`), as HBase's
//! `ConstantSizeRegionSplitPolicy` decides: a region splits once its files exceed the table's
//! `MAX_FILESIZE` (else `EngineOptions::region_split_size`), unless automatic splits are off or
//! the table says `SPLIT_ENABLED => false` — at the middle key of its largest file. The split
//! itself is `engine/split.rs`.

use crate::engine::Inner;
use crate::region::Region;

impl Inner {
    /// True when `region` should split: automatic splits are on, its table's `SPLIT_ENABLED`
    /// is not false, and its files exceed the table's `MAX_FILESIZE` (else the engine's
    /// `region_split_size`).
    pub(crate) fn split_due(&self, region: &Region) -> bool {
        if !self.opts.auto_split {
            return false;
        }
        let Ok(t) = self.table_entry(&region.table) else {
            return false;
        };
        t.descriptor
            .attributes
            .split_size(self.opts.region_split_size)
            .is_some_and(|size| region.file_bytes() > size)
    }

    /// The row HBase would split `region` at: the middle key of its largest file.
    pub(crate) fn split_point(&self, region: &Region) -> Option<Vec<u8>> {
        let stores = region.stores();
        let largest = stores
            .values()
            .flat_map(|s| s.state().files.clone())
            .max_by_key(|f| f.reader.size())?;
        let mid = largest.reader.mid_key()?.row.to_vec();
        (mid > region.start && (region.end.is_empty() || mid < region.end)).then_some(mid)
    }
}
