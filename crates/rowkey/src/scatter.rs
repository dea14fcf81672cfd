//! Scatter-gather: merging the N bucket scans of a salted table back into one stream ordered
//! by the unsalted key.
//!
//! Independent of any client: the streams are plain iterators, already each in order (as the
//! rows of one bucket's scan are), and the merge is lazy — it pulls one item ahead per stream.

use crate::schema::Schema;
use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// The merge of several ordered streams into one, ordered by a key computed from each item;
/// items with equal order keys come out in stream order. Built by [`merge_ordered`].
pub struct MergeOrdered<I: Iterator, O, F> {
    streams: Vec<I>,
    heads: Vec<Option<I::Item>>,
    heap: BinaryHeap<Reverse<(O, usize)>>,
    order: F,
    remaining: Option<usize>,
}

/// Merges `streams`, each ordered by `order(item)`, into one stream ordered by it, stopping
/// after `limit` items when one is given. Each stream is read lazily, one item ahead.
///
/// Items are anything: `(key, value)` pairs, or `Result`s of them for fallible scans (give
/// errors an order that puts them first to see them at once).
pub fn merge_ordered<I, O, F>(
    streams: impl IntoIterator<Item = I>,
    mut order: F,
    limit: Option<usize>,
) -> MergeOrdered<I, O, F>
where
    I: Iterator,
    O: Ord,
    F: FnMut(&I::Item) -> O,
{
    let mut streams: Vec<I> = streams.into_iter().collect();
    let mut heap = BinaryHeap::with_capacity(streams.len());
    let heads = streams
        .iter_mut()
        .enumerate()
        .map(|(i, s)| {
            let head = if limit == Some(0) { None } else { s.next() };
            if let Some(item) = &head {
                heap.push(Reverse((order(item), i)));
            }
            head
        })
        .collect();
    MergeOrdered {
        streams,
        heads,
        heap,
        order,
        remaining: limit,
    }
}

impl<I, O, F> Iterator for MergeOrdered<I, O, F>
where
    I: Iterator,
    O: Ord,
    F: FnMut(&I::Item) -> O,
{
    type Item = I::Item;

    fn next(&mut self) -> Option<I::Item> {
        if self.remaining == Some(0) {
            return None;
        }
        let Reverse((_, i)) = self.heap.pop()?;
        let item = self.heads.get_mut(i)?.take()?;
        if let Some(r) = &mut self.remaining {
            *r -= 1;
        }
        if self.remaining != Some(0) {
            if let Some(next) = self.streams.get_mut(i).and_then(Iterator::next) {
                self.heap.push(Reverse(((self.order)(&next), i)));
                if let Some(slot) = self.heads.get_mut(i) {
                    *slot = Some(next);
                }
            }
        }
        Some(item)
    }
}

/// The order of a key in a scatter-gather merge: its value fields' bytes (derived fields left
/// out), keys that do not decode after all others.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub enum OrderKey {
    /// A key of the schema: the concatenated encodings of its value fields.
    Unsalted(Vec<u8>),
    /// A key that does not decode: its raw bytes.
    Undecodable(Vec<u8>),
}

impl Schema {
    /// The key with its derived fields (salt, hash prefixes) left out: the concatenation of its
    /// value fields' encodings, which sorts as the typed values do. Errors as
    /// [`Schema::decode`].
    pub fn unsalted_key(&self, key: &[u8]) -> crate::Result<Vec<u8>> {
        let fields = self.decode_fields(key)?;
        Ok(self
            .value_fields_of(fields)
            .flat_map(|d| key.get(d.offset..d.offset + d.len).unwrap_or_default())
            .copied()
            .collect())
    }

    /// The merge order of `key`: [`OrderKey::Unsalted`] when it decodes.
    pub fn order_key(&self, key: &[u8]) -> OrderKey {
        match self.unsalted_key(key) {
            Ok(k) => OrderKey::Unsalted(k),
            Err(_) => OrderKey::Undecodable(key.to_vec()),
        }
    }

    /// Merges the scans of a salted or hashed table's bucket ranges (each stream the rows of
    /// one range of [`Schema::prefix_ranges`] or [`Schema::field_ranges`], in key order) into
    /// one stream ordered by the unsalted key — the order an unsalted table's scan would give —
    /// stopping after `limit` rows when one is given.
    pub fn scatter_merge<'s, K, V, I>(
        &'s self,
        streams: impl IntoIterator<Item = I>,
        limit: Option<usize>,
    ) -> MergeOrdered<I, OrderKey, impl FnMut(&(K, V)) -> OrderKey + 's>
    where
        K: AsRef<[u8]>,
        I: Iterator<Item = (K, V)>,
    {
        merge_ordered(
            streams,
            move |(k, _): &(K, V)| self.order_key(k.as_ref()),
            limit,
        )
    }
}
