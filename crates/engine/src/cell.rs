//! Cells, their type codes and their sort order (HBase's `KeyValue` and `CellComparator`).
//!
//! Within a store (one family of one region) a cell's key is (row, qualifier, timestamp, type,
//! sequence id). Order: row ascending by unsigned bytes, qualifier ascending, timestamp
//! descending, type code descending (so delete markers sort before puts at the same
//! timestamp), then sequence id descending (the newest write first).

use bytes::Bytes;
use std::cmp::Ordering;

/// HBase's key-type codes. The values are stored on disk and frozen.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[repr(u8)]
pub enum CellType {
    /// Sorts after every real type; used only in seek keys.
    Minimum = 0,
    /// A value.
    Put = 4,
    /// Deletes the one version of a column at exactly the marker's timestamp.
    Delete = 8,
    /// Deletes every column of the family at exactly the marker's timestamp.
    DeleteFamilyVersion = 10,
    /// Deletes every version of a column with timestamp ≤ the marker's.
    DeleteColumn = 12,
    /// Deletes every column of the family with timestamp ≤ the marker's.
    DeleteFamily = 14,
    /// Sorts before every real type; used only in seek keys.
    Maximum = 255,
}

impl CellType {
    /// Decodes a stored type code; `None` for a code that is not a real cell type.
    pub fn from_code(code: u8) -> Option<CellType> {
        Some(match code {
            4 => CellType::Put,
            8 => CellType::Delete,
            10 => CellType::DeleteFamilyVersion,
            12 => CellType::DeleteColumn,
            14 => CellType::DeleteFamily,
            _ => return None,
        })
    }

    /// The stored code.
    pub fn code(self) -> u8 {
        self as u8
    }

    /// True for the four delete-marker types.
    pub fn is_delete(self) -> bool {
        matches!(
            self,
            CellType::Delete
                | CellType::DeleteFamilyVersion
                | CellType::DeleteColumn
                | CellType::DeleteFamily
        )
    }

    /// The name HBase prints (`Put`, `Delete`, `DeleteColumn`, ...).
    pub fn name(self) -> &'static str {
        match self {
            CellType::Minimum => "Minimum",
            CellType::Put => "Put",
            CellType::Delete => "Delete",
            CellType::DeleteFamilyVersion => "DeleteFamilyVersion",
            CellType::DeleteColumn => "DeleteColumn",
            CellType::DeleteFamily => "DeleteFamily",
            CellType::Maximum => "Maximum",
        }
    }
}

/// HBase's `HConstants.LATEST_TIMESTAMP`: "let the server assign the time".
pub const LATEST_TIMESTAMP: i64 = i64::MAX;

/// Largest row key HBase accepts (`Short.MAX_VALUE`).
pub const MAX_ROW_LENGTH: usize = 32767;

/// The key of a cell within one store (the family is the store's). Row and qualifier are
/// shared buffers: cloning a key or a cell never copies bytes, and cells read from a block
/// point into the block.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct CellKey {
    /// Row key.
    pub row: Bytes,
    /// Column qualifier (empty for family delete markers).
    pub qualifier: Bytes,
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    /// Put or delete-marker type.
    pub cell_type: CellType,
    /// Write sequence id (MVCC write number); larger is newer.
    pub seq: u64,
}

impl Ord for CellKey {
    fn cmp(&self, other: &Self) -> Ordering {
        KeyValueRef::of_key(self).cmp_key(&KeyValueRef::of_key(other))
    }
}

impl PartialOrd for CellKey {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}

impl CellKey {
    /// The smallest key of `row`: sorts before every cell of the row.
    pub fn first_on_row(row: &[u8]) -> CellKey {
        CellKey::first_on_column(row, b"")
    }

    /// The smallest key of column `qualifier` in `row`.
    pub fn first_on_column(row: &[u8], qualifier: &[u8]) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(row),
            qualifier: Bytes::copy_from_slice(qualifier),
            timestamp: i64::MAX,
            cell_type: CellType::Maximum,
            seq: u64::MAX,
        }
    }

    /// The smallest key after every cell of column `qualifier` in `row`.
    pub fn after_column(row: &[u8], qualifier: &[u8]) -> CellKey {
        let mut q = qualifier.to_vec();
        q.push(0);
        CellKey::first_on_column(row, &q)
    }

    /// The smallest key after every cell of `row`.
    pub fn after_row(row: &[u8]) -> CellKey {
        let mut r = row.to_vec();
        r.push(0);
        CellKey::first_on_row(&r)
    }

    /// True when `self` and `other` name the same row and qualifier.
    pub fn same_column(&self, other: &CellKey) -> bool {
        self.row == other.row && self.qualifier == other.qualifier
    }
}

/// A stored cell inside a store: key, value and the cell's own time to live.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct KeyValue {
    /// The cell's key.
    pub key: CellKey,
    /// The value (empty for delete markers).
    pub value: Bytes,
    /// The cell's time to live in milliseconds, from the mutation that wrote it (HBase's TTL
    /// cell tag, `Mutation.setTTL`); `None`: only the family's TTL applies.
    pub ttl_ms: Option<i64>,
}

impl KeyValue {
    /// The cell as a borrowed view.
    pub fn as_view(&self) -> KeyValueRef<'_> {
        KeyValueRef {
            ttl_ms: self.ttl_ms,
            ..KeyValueRef::of_key_value(&self.key, &self.value)
        }
    }
}

/// True when a cell written at `timestamp` with its own TTL of `ttl_ms` milliseconds has
/// expired at `now_ms`: HBase's `ScanQueryMatcher.isCellTTLExpired`, `ts + ttl < now` (the sum
/// saturating instead of wrapping). A cell TTL only shortens a cell's life: the family's TTL
/// still applies beside it.
#[inline]
pub fn cell_ttl_expired(timestamp: i64, ttl_ms: Option<i64>, now_ms: i64) -> bool {
    ttl_ms.is_some_and(|ttl| timestamp.saturating_add(ttl) < now_ms)
}

/// A stored cell seen in place (in a block or a memstore): the read path compares and matches
/// cells through this view and takes no reference count until it returns a cell.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct KeyValueRef<'a> {
    /// Row key.
    pub row: &'a [u8],
    /// Column qualifier.
    pub qualifier: &'a [u8],
    /// Milliseconds since the epoch.
    pub timestamp: i64,
    /// Put or delete-marker type.
    pub cell_type: CellType,
    /// Write sequence id.
    pub seq: u64,
    /// The value.
    pub value: &'a [u8],
    /// The cell's own time to live in milliseconds (`None`: none).
    pub ttl_ms: Option<i64>,
}

impl<'a> KeyValueRef<'a> {
    /// The key `k` as a view with an empty value.
    pub fn of_key(k: &'a CellKey) -> KeyValueRef<'a> {
        KeyValueRef {
            row: &k.row,
            qualifier: &k.qualifier,
            timestamp: k.timestamp,
            cell_type: k.cell_type,
            seq: k.seq,
            value: &[],
            ttl_ms: None,
        }
    }

    /// The cell of key `k` and `value` as a view.
    pub fn of_key_value(k: &'a CellKey, value: &'a [u8]) -> KeyValueRef<'a> {
        KeyValueRef {
            value,
            ..Self::of_key(k)
        }
    }

    /// Orders two cells by key: row and qualifier ascending, then timestamp, type and sequence
    /// id descending (the one definition of the cell order; [`CellKey`] orders through it).
    pub fn cmp_key(&self, o: &KeyValueRef<'_>) -> Ordering {
        cmp_bytes(self.row, o.row)
            .then_with(|| cmp_bytes(self.qualifier, o.qualifier))
            .then_with(|| o.timestamp.cmp(&self.timestamp))
            .then_with(|| o.cell_type.cmp(&self.cell_type))
            .then_with(|| o.seq.cmp(&self.seq))
    }

    /// The cell's key in buffers of its own (a copy of its row and qualifier).
    pub fn to_key(self) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(self.row),
            qualifier: Bytes::copy_from_slice(self.qualifier),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
            seq: self.seq,
        }
    }

    /// The row, qualifier and value copied together into one buffer.
    fn joined(&self) -> Vec<u8> {
        let mut all = Vec::with_capacity(self.row.len() + self.qualifier.len() + self.value.len());
        all.extend_from_slice(self.row);
        all.extend_from_slice(self.qualifier);
        all.extend_from_slice(self.value);
        all
    }

    /// The cell in one buffer of its own (its row, qualifier and value copied together), the
    /// key's and value's `Bytes` slices of it.
    pub fn to_key_value(self) -> KeyValue {
        let (r, q) = (self.row.len(), self.qualifier.len());
        let all = Bytes::from(self.joined());
        KeyValue {
            key: CellKey {
                row: all.slice(..r),
                qualifier: all.slice(r..r + q),
                timestamp: self.timestamp,
                cell_type: self.cell_type,
                seq: self.seq,
            },
            value: all.slice(r + q..),
            ttl_ms: self.ttl_ms,
        }
    }

    /// The cell as a client cell of `family` in one buffer of its own (its row, qualifier and
    /// value copied together): one allocation and one handle, where [`Self::to_key_value`]'s
    /// three slices share the buffer through a reference count.
    pub fn to_cell(self, family: &Bytes) -> Cell {
        let (r, q, v) = (self.row.len(), self.qualifier.len(), self.value.len());
        if r + q + v > u32::MAX as usize {
            return Cell::from_key_value(family, self.to_key_value());
        }
        let (r, q, v) = (r as u32, q as u32, v as u32);
        Cell {
            data: CellData::Packed {
                buf: Bytes::from(self.joined()),
                row: (0, r),
                qualifier: (r, r + q),
                value: (r + q, r + q + v),
            },
            family: family.clone(),
            timestamp: self.timestamp,
            cell_type: self.cell_type,
        }
    }

    /// Orders the cell against `k` as [`CellKey`]s order.
    pub fn cmp_cell_key(&self, k: &CellKey) -> Ordering {
        self.cmp_key(&KeyValueRef::of_key(k))
    }
}

/// A cell as returned to clients: row, family, qualifier, timestamp, type and value. The byte
/// fields are shared buffers: the accessors borrow them, the `*_bytes` methods hand out
/// `bytes::Bytes` handles without copying. `Vec<u8>` converts into them without a copy.
#[derive(Clone)]
pub struct Cell {
    data: CellData,
    family: Bytes,
    timestamp: i64,
    cell_type: CellType,
}

/// Where a cell's row, qualifier and value are held.
#[derive(Clone)]
enum CellData {
    /// Three buffers of their own (cells built by clients, copied out of a store cell).
    Parts {
        row: Bytes,
        qualifier: Bytes,
        value: Bytes,
    },
    /// Ranges of one buffer (cells read from a block: one handle on the block, where three
    /// would cost three reference-count increments and decrements per cell; cells read from a
    /// memstore: one copy of their bytes, one allocation).
    Packed {
        buf: Bytes,
        row: (u32, u32),
        qualifier: (u32, u32),
        value: (u32, u32),
    },
}

impl Cell {
    /// A cell of the given parts.
    pub fn new(
        row: impl Into<Bytes>,
        family: impl Into<Bytes>,
        qualifier: impl Into<Bytes>,
        timestamp: i64,
        cell_type: CellType,
        value: impl Into<Bytes>,
    ) -> Cell {
        Cell {
            data: CellData::Parts {
                row: row.into(),
                qualifier: qualifier.into(),
                value: value.into(),
            },
            family: family.into(),
            timestamp,
            cell_type,
        }
    }

    /// A cell whose row, qualifier and value are the given ranges of `buf`, a block the
    /// decoder has checked them against (a block is under 4 GiB: its frame stores its length
    /// in 32 bits).
    pub(crate) fn in_block(
        buf: &Bytes,
        row: std::ops::Range<usize>,
        family: &Bytes,
        qualifier: std::ops::Range<usize>,
        timestamp: i64,
        cell_type: CellType,
        value: std::ops::Range<usize>,
    ) -> Cell {
        debug_assert!(row.end <= buf.len() && qualifier.end <= buf.len());
        debug_assert!(value.end <= buf.len() && buf.len() <= u32::MAX as usize);
        let span = |r: std::ops::Range<usize>| (r.start as u32, r.end as u32);
        Cell {
            data: CellData::Packed {
                row: span(row),
                qualifier: span(qualifier),
                value: span(value),
                buf: buf.clone(),
            },
            family: family.clone(),
            timestamp,
            cell_type,
        }
    }

    /// A cell whose row, qualifier and value are ranges of `buf` (a client's reply buffer):
    /// one handle on the buffer for all three. `None` when a range does not lie within `buf`
    /// or `buf` is 4 GiB or longer.
    pub fn in_buffer(
        buf: &Bytes,
        row: std::ops::Range<usize>,
        family: Bytes,
        qualifier: std::ops::Range<usize>,
        timestamp: i64,
        cell_type: CellType,
        value: std::ops::Range<usize>,
    ) -> Option<Cell> {
        let fits = |r: &std::ops::Range<usize>| r.start <= r.end && r.end <= buf.len();
        if buf.len() > u32::MAX as usize || !fits(&row) || !fits(&qualifier) || !fits(&value) {
            return None;
        }
        Some(Cell::in_block(
            buf, row, &family, qualifier, timestamp, cell_type, value,
        ))
    }

    /// Builds a client cell from a store cell of `family`; moves, never copies, the bytes.
    pub fn from_key_value(family: &Bytes, kv: KeyValue) -> Cell {
        Cell {
            data: CellData::Parts {
                row: kv.key.row,
                qualifier: kv.key.qualifier,
                value: kv.value,
            },
            family: family.clone(),
            timestamp: kv.key.timestamp,
            cell_type: kv.key.cell_type,
        }
    }

    /// The bytes of `field` (0 row, 1 qualifier, 2 value).
    #[inline]
    fn field(&self, field: usize) -> &[u8] {
        match &self.data {
            CellData::Parts {
                row,
                qualifier,
                value,
            } => [row, qualifier, value][field],
            CellData::Packed {
                buf,
                row,
                qualifier,
                value,
            } => {
                let (a, b) = [row, qualifier, value][field];
                &buf[*a as usize..*b as usize]
            }
        }
    }

    /// `field` as a shared buffer (0 row, 1 qualifier, 2 value).
    fn field_bytes(&self, field: usize) -> Bytes {
        match &self.data {
            CellData::Parts {
                row,
                qualifier,
                value,
            } => [row, qualifier, value][field].clone(),
            CellData::Packed { buf, .. } => buf.slice_ref(self.field(field)),
        }
    }

    /// Row key.
    pub fn row(&self) -> &[u8] {
        self.field(0)
    }

    /// Column family.
    pub fn family(&self) -> &[u8] {
        &self.family
    }

    /// Column qualifier.
    pub fn qualifier(&self) -> &[u8] {
        self.field(1)
    }

    /// Milliseconds since the epoch.
    pub fn timestamp(&self) -> i64 {
        self.timestamp
    }

    /// Put, or a delete marker in raw reads.
    pub fn cell_type(&self) -> CellType {
        self.cell_type
    }

    /// The cell's size as a result counts it: row, family, qualifier and value bytes plus the
    /// 8-byte timestamp and the type byte (the content of HBase's `KeyValue`, without its
    /// length fields). Used by scans' maximum result size.
    pub fn heap_size(&self) -> usize {
        self.row().len() + self.family().len() + self.qualifier().len() + self.value().len() + 9
    }

    /// The value.
    pub fn value(&self) -> &[u8] {
        self.field(2)
    }

    /// The row as a shared buffer (no copy).
    pub fn row_bytes(&self) -> Bytes {
        self.field_bytes(0)
    }

    /// The family as a shared buffer (no copy).
    pub fn family_bytes(&self) -> Bytes {
        self.family.clone()
    }

    /// The qualifier as a shared buffer (no copy).
    pub fn qualifier_bytes(&self) -> Bytes {
        self.field_bytes(1)
    }

    /// The value as a shared buffer (no copy).
    pub fn value_bytes(&self) -> Bytes {
        self.field_bytes(2)
    }

    /// The same cell with `value` in place of its value.
    pub fn with_value(self, value: impl Into<Bytes>) -> Cell {
        Cell {
            data: CellData::Parts {
                row: self.row_bytes(),
                qualifier: self.qualifier_bytes(),
                value: value.into(),
            },
            family: self.family,
            timestamp: self.timestamp,
            cell_type: self.cell_type,
        }
    }
}

impl PartialEq for Cell {
    fn eq(&self, o: &Cell) -> bool {
        self.timestamp == o.timestamp
            && self.cell_type == o.cell_type
            && self.row() == o.row()
            && self.qualifier() == o.qualifier()
            && self.family() == o.family()
            && self.value() == o.value()
    }
}

impl Eq for Cell {}

impl std::fmt::Debug for Cell {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cell")
            .field("row", &Bytes::copy_from_slice(self.row()))
            .field("family", &Bytes::copy_from_slice(self.family()))
            .field("qualifier", &Bytes::copy_from_slice(self.qualifier()))
            .field("timestamp", &self.timestamp)
            .field("cell_type", &self.cell_type)
            .field("value", &Bytes::copy_from_slice(self.value()))
            .finish()
    }
}

/// The family name as a static shared buffer, interned once per distinct name for the life of
/// the process. Every cell a read returns carries its family; a static buffer's handle is
/// cloned and dropped without touching a reference count (two atomic operations per cell
/// saved). The names are kept for the life of the process: one copy of each distinct family
/// name ever read (a family name is short, and a store has few of them), at most
/// [`MAX_INTERNED_FAMILIES`]; past that a name gets a buffer of its own.
///
/// Each thread remembers the last name it interned, so the common case (one family read over
/// and over) takes no lock: the process-wide set's mutex was the second most contended lock of
/// point gets at 8 threads on 2 cores.
pub fn interned_family(name: &[u8]) -> Bytes {
    try_interned_family(name).unwrap_or_else(|| Bytes::copy_from_slice(name))
}

/// Distinct family names [`interned_family`] keeps: a client reading family names off the
/// network (`try_interned_family`) cannot make the process keep more than this many.
pub const MAX_INTERNED_FAMILIES: usize = 4096;

/// [`interned_family`], or `None` when [`MAX_INTERNED_FAMILIES`] other names are interned
/// already (the caller then shares a buffer it holds).
pub fn try_interned_family(name: &[u8]) -> Option<Bytes> {
    use std::cell::Cell;
    use std::collections::HashSet;
    use std::sync::{Mutex, OnceLock};
    static NAMES: OnceLock<Mutex<HashSet<&'static [u8]>>> = OnceLock::new();
    thread_local! {
        static LAST: Cell<Option<&'static [u8]>> = const { Cell::new(None) };
    }
    if let Some(last) = LAST.with(Cell::get).filter(|last| *last == name) {
        return Some(Bytes::from_static(last));
    }
    let mut names = crate::lock::lock(NAMES.get_or_init(Default::default));
    let name: &'static [u8] = match names.get(name) {
        Some(n) => n,
        None if names.len() >= MAX_INTERNED_FAMILIES => return None,
        None => {
            let leaked: &'static [u8] = Box::leak(name.to_vec().into_boxed_slice());
            names.insert(leaked);
            leaked
        }
    };
    LAST.with(|last| last.set(Some(name)));
    Some(Bytes::from_static(name))
}

/// `a == b`, with keys of up to 32 bytes (most rows and qualifiers) compared in 8-byte loads
/// inline rather than through a `memcmp` call: the read path compares the row and qualifier
/// of every cell it steps over, and those calls were a twentieth of a scan (and, for rows of
/// 17 to 32 bytes, three calls a row of a scan over two versions, eighteenth stop).
#[inline]
pub fn same_bytes(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n > 32 {
        return a == b;
    }
    if n >= 8 {
        let word = |x: &[u8], at: usize| {
            let mut w = [0u8; 8];
            w.copy_from_slice(&x[at..at + 8]);
            u64::from_ne_bytes(w)
        };
        // The loads overlap when n is not a multiple of 8; together they cover every byte
        // (0..8 and n-8..n; past 16 also 8..16 and n-16..n-8).
        let ends = word(a, 0) == word(b, 0) && word(a, n - 8) == word(b, n - 8);
        if n <= 16 {
            return ends;
        }
        return ends && word(a, 8) == word(b, 8) && word(a, n - 16) == word(b, n - 16);
    }
    padded_word(a) == padded_word(b)
}

/// `a.cmp(b)`, without calling `memcmp`. (Least of all when either side is empty: the pointer
/// of an empty slice is often dangling (`Vec::new()`, `Bytes::new()`, `&[]`), and glibc's
/// AVX-512 `memcmp` reads both pointers under an all-zero mask even for length 0: a masked load
/// whose masked-out bytes would fault takes a microcode assist, about 145 ns on the benchmark
/// machine against 1.6 ns for comparing two 16-byte rows. Empty qualifiers, empty region
/// boundaries and the first-on-row keys of every seek meet that case all the time.)
/// `same_bytes` is the equality.
///
/// The strings are compared 8 bytes at a time as big-endian words, inline, and the last
/// word of the shorter one zero-padded: `memcmp` is never called. Rows of different ids differ
/// in their first word (a scan's stop row against each row it reads, the seed tables'
/// `uid + reversed timestamp`); the rows and qualifiers a merge of a store's sources compares
/// (11-byte benchmark rows, 1-byte qualifiers) are one or two words, where the call into
/// `memcmp` cost more than the comparison (a fifth of a 1,000-row scan's CPU in the server's
/// profile, `docs/performance.md`, "Server scan path (third round)").
#[inline]
pub fn cmp_bytes(mut a: &[u8], mut b: &[u8]) -> Ordering {
    loop {
        match (a.split_first_chunk::<8>(), b.split_first_chunk::<8>()) {
            (Some((x, a_rest)), Some((y, b_rest))) => {
                let (x, y) = (u64::from_be_bytes(*x), u64::from_be_bytes(*y));
                if x != y {
                    return x.cmp(&y);
                }
                a = a_rest;
                b = b_rest;
            }
            // One side has fewer than 8 bytes left: equal padded words mean it is a prefix of
            // the other (whose next bytes are zero), so the lengths decide.
            _ => {
                return padded_word(a)
                    .cmp(&padded_word(b))
                    .then(a.len().cmp(&b.len()))
            }
        }
    }
}

/// The first 8 bytes of `s` as a big-endian word, zero-padded when `s` is shorter. A shorter
/// `s` is read as two overlapping loads (its first and last 4 or 2 bytes), not byte by byte:
/// a qualifier's tail of a few bytes took half of each key comparison's instructions in the
/// merge of a scan (`docs/performance.md`, eighteenth stop).
#[inline]
fn padded_word(s: &[u8]) -> u64 {
    if let Some(x) = s.first_chunk::<8>() {
        return u64::from_be_bytes(*x);
    }
    // The bytes that end at `s.len()` land that far from the word's top (shifting by at most
    // 48: `s` is shorter than 8 bytes).
    let tail = 8 * (8 - s.len() as u32);
    if let (Some(head), Some(last)) = (s.first_chunk::<4>(), s.last_chunk::<4>()) {
        return (u64::from(u32::from_be_bytes(*head)) << 32)
            | (u64::from(u32::from_be_bytes(*last)) << tail);
    }
    if let (Some(head), Some(last)) = (s.first_chunk::<2>(), s.last_chunk::<2>()) {
        return (u64::from(u16::from_be_bytes(*head)) << 48)
            | (u64::from(u16::from_be_bytes(*last)) << tail);
    }
    s.first().map_or(0, |&b| u64::from(b) << 56)
}

/// The smallest byte string greater than every string starting with `prefix`, or `None` when
/// no such string exists (the prefix is empty or all 0xFF).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let mut p = prefix.to_vec();
    while let Some(last) = p.pop() {
        if last != 0xff {
            p.push(last + 1);
            return Some(p);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interned_family_names_share_one_static_copy() {
        let a = interned_family(b"cf-interned");
        let owned = b"cf-interned".to_vec();
        let b = interned_family(&owned);
        assert_eq!(a, b"cf-interned"[..]);
        assert_eq!(a.as_ptr(), b.as_ptr());
        assert_ne!(interned_family(b"other").as_ptr(), a.as_ptr());
    }

    fn k(row: &str, q: &str, ts: i64, t: CellType, seq: u64) -> CellKey {
        CellKey {
            row: Bytes::copy_from_slice(row.as_bytes()),
            qualifier: Bytes::copy_from_slice(q.as_bytes()),
            timestamp: ts,
            cell_type: t,
            seq,
        }
    }

    #[test]
    fn order_is_row_qualifier_ts_desc_type_desc_seq_desc() {
        let mut v = [
            k("b", "", 1, CellType::Put, 1),
            k("a", "q", 1, CellType::Put, 1),
            k("a", "q", 5, CellType::Put, 1),
            k("a", "q", 5, CellType::DeleteColumn, 1),
            k("a", "q", 5, CellType::Put, 9),
            k("a", "", 3, CellType::DeleteFamily, 2),
            k("\u{1}", "", 0, CellType::Put, 0),
        ];
        v.sort();
        assert_eq!(v[0], k("\u{1}", "", 0, CellType::Put, 0));
        assert_eq!(v[1], k("a", "", 3, CellType::DeleteFamily, 2));
        assert_eq!(v[2], k("a", "q", 5, CellType::DeleteColumn, 1));
        assert_eq!(v[3], k("a", "q", 5, CellType::Put, 9));
        assert_eq!(v[4], k("a", "q", 5, CellType::Put, 1));
        assert_eq!(v[5], k("a", "q", 1, CellType::Put, 1));
        assert_eq!(v[6], k("b", "", 1, CellType::Put, 1));
    }

    #[test]
    fn rows_compare_as_unsigned_bytes() {
        let a = CellKey::first_on_row(&[0x7f]);
        let b = CellKey::first_on_row(&[0x80]);
        assert!(a < b);
    }

    #[test]
    fn seek_keys_bracket_their_column() {
        let c = k("r", "q", 0, CellType::Put, 0);
        assert!(CellKey::first_on_column(b"r", b"q") < c);
        assert!(CellKey::after_column(b"r", b"q") > c);
        assert!(CellKey::after_column(b"r", b"q") < k("r", "q\0", 9, CellType::Put, 0));
        assert!(CellKey::after_row(b"r") > c);
        assert!(CellKey::first_on_row(b"r") < k("r", "", i64::MAX, CellType::DeleteFamily, 5));
    }

    #[test]
    fn same_bytes_and_cmp_bytes_agree_with_slice_equality_and_order() {
        let mut rng = ferrobase_testkit::Rng::from_state(0x2545_f491_4f6c_dd1d);
        let mut next = move || rng.next_u64();
        for _ in 0..20_000 {
            let n = (next() % 40) as usize;
            let a: Vec<u8> = (0..n).map(|_| (next() % 3) as u8).collect();
            let mut b = a.clone();
            match next() % 3 {
                0 if n > 0 => {
                    let i = (next() as usize) % n;
                    b[i] ^= 1 << (next() % 8);
                }
                1 => b.push(0),
                2 if n > 0 => b.truncate((next() as usize) % n),
                _ => {}
            }
            if next() % 4 == 0 {
                b.push(0xff);
            }
            assert_eq!(same_bytes(&a, &b), a == b, "{a:?} vs {b:?}");
            assert_eq!(cmp_bytes(&a, &b), a.cmp(&b), "{a:?} vs {b:?}");
            assert_eq!(cmp_bytes(&b, &a), b.cmp(&a), "{b:?} vs {a:?}");
            assert_eq!(cmp_bytes(&a, &[]), a.cmp(&vec![]), "{a:?} vs []");
        }
    }

    #[test]
    fn a_short_padded_word_is_its_bytes_then_zeros() {
        let mut rng = ferrobase_testkit::Rng::from_state(0x9e37_79b9_7f4a_7c15);
        for _ in 0..2_000 {
            let n = (rng.next_u64() % 9) as usize;
            let s: Vec<u8> = (0..n).map(|_| rng.next_u64() as u8).collect();
            let mut want = [0u8; 8];
            want[..n].copy_from_slice(&s);
            assert_eq!(padded_word(&s), u64::from_be_bytes(want), "{s:?}");
        }
    }

    #[test]
    fn prefix_successor_handles_ff() {
        assert_eq!(prefix_successor(b"ab"), Some(b"ac".to_vec()));
        assert_eq!(prefix_successor(&[1, 0xff]), Some(vec![2]));
        assert_eq!(prefix_successor(&[0xff]), None);
        assert_eq!(prefix_successor(b""), None);
    }
}
