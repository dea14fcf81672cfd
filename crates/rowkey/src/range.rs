//! Scan ranges: the key ranges holding every key with given leading fields, or with a range of
//! values in the field after them.
//!
//! A range is `[start, stop)` with HBase's convention that an empty `stop` means "to the end of
//! the table". Every encoding is order-preserving (or, for reversed timestamps,
//! order-reversing) and prefix-free, so the keys whose first `m` value fields equal given
//! values are exactly the keys starting with those fields' encodings.

use crate::encode::{derive, encode_value, salt_bytes};
use crate::error::{Error, Result};
use crate::field::FieldType;
use crate::schema::{Schema, Slot};
use crate::value::Value;
use std::ops::Bound;

/// The most ranges one call may produce by enumerating the buckets of salt or hash-prefix
/// fields whose inputs are not given (a 2-byte hash prefix has 65 536).
pub const MAX_BUCKET_RANGES: usize = 65_536;

/// A range of keys, `start` inclusive and `stop` exclusive; an empty `stop` is unbounded (as
/// in HBase's `Scan`).
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ScanRange {
    /// The first key of the range (inclusive); empty for the table's start.
    pub start: Vec<u8>,
    /// The key after the range (exclusive); empty for the table's end.
    pub stop: Vec<u8>,
}

impl ScanRange {
    /// Whether `key` lies in the range.
    pub fn contains(&self, key: &[u8]) -> bool {
        key >= self.start.as_slice() && (self.stop.is_empty() || key < self.stop.as_slice())
    }
}

/// The smallest key greater than every key starting with `prefix`: the prefix with trailing
/// `0xFF` bytes dropped and its last byte incremented. `None` when there is none (the prefix
/// is empty or all `0xFF`).
pub fn prefix_successor(prefix: &[u8]) -> Option<Vec<u8>> {
    let end = prefix.iter().rposition(|&b| b != 0xFF)?;
    let mut next = prefix.get(..=end)?.to_vec();
    if let Some(last) = next.last_mut() {
        *last += 1;
    }
    Some(next)
}

impl Schema {
    /// The ranges holding exactly the keys whose first `prefix.len()` value fields equal
    /// `prefix` — the article's `setStartRow(uid)`/`setStopRow(uid+1)`.
    ///
    /// One range, unless a salt or hash-prefix field comes before the end of the prefix
    /// without all of its inputs given: then one range per bucket, in bucket order
    /// ([`Error::Range`] past [`MAX_BUCKET_RANGES`]). An empty prefix of an unsalted schema is
    /// the whole table.
    pub fn prefix_ranges(&self, prefix: &[Value]) -> Result<Vec<ScanRange>> {
        let (prefixes, _) = self.key_prefixes(prefix)?;
        Ok(prefixes
            .into_iter()
            .map(|p| ScanRange {
                stop: prefix_successor(&p).unwrap_or_default(),
                start: p,
            })
            .collect())
    }

    /// The ranges holding exactly the keys whose first `prefix.len()` value fields equal
    /// `prefix` and whose next value field lies between `lower` and `upper` (as typed values:
    /// for a reversed timestamp, `lower` is the older time and the range's keys run newest
    /// first). Buckets as in [`Schema::prefix_ranges`]; ranges that are empty are left out.
    ///
    /// Errors: [`Error::Range`] when the prefix holds every value field, [`Error::Value`] for a
    /// bound that does not fit the field.
    pub fn field_ranges(
        &self,
        prefix: &[Value],
        lower: Bound<Value>,
        upper: Bound<Value>,
    ) -> Result<Vec<ScanRange>> {
        let (prefixes, next) = self.key_prefixes(prefix)?;
        let field = next
            .and_then(|i| self.fields.get(i))
            .ok_or_else(|| Error::Range("every value field is in the prefix".into()))?;
        let enc = |b: Bound<Value>| -> Result<Bound<Vec<u8>>> {
            Ok(match b {
                Bound::Included(v) => Bound::Included(encoded(field, &v)?),
                Bound::Excluded(v) => Bound::Excluded(encoded(field, &v)?),
                Bound::Unbounded => Bound::Unbounded,
            })
        };
        // Java's integer layout sorts negative values after the others: a range reaching below
        // zero is not one key range.
        let negative = |b: &Bound<Value>| matches!(b, Bound::Included(Value::I64(n)) | Bound::Excluded(Value::I64(n)) if *n < 0);
        if matches!(field.ty, FieldType::Java { .. }) && (negative(&lower) || negative(&upper)) {
            return Err(Error::Range(format!(
                "field `{}` ({}) sorts negative values after the others, as Java's Bytes.toBytes \
                 does: a range with a negative bound is not one key range (i32/i64 sort them first)",
                field.name, field.ty
            )));
        }
        let (mut lo, mut hi) = (enc(lower)?, enc(upper)?);
        if field.ty.is_descending() {
            std::mem::swap(&mut lo, &mut hi);
        }
        let mut out = Vec::with_capacity(prefixes.len());
        for p in prefixes {
            let with = |e: &[u8]| [p.as_slice(), e].concat();
            let start = match &lo {
                Bound::Included(e) => with(e),
                Bound::Excluded(e) => match prefix_successor(&with(e)) {
                    Some(s) => s,
                    None => continue,
                },
                Bound::Unbounded => p.clone(),
            };
            let stop = match &hi {
                Bound::Included(e) => prefix_successor(&with(e)).unwrap_or_default(),
                Bound::Excluded(e) => with(e),
                Bound::Unbounded => prefix_successor(&p).unwrap_or_default(),
            };
            if stop.is_empty() || start < stop {
                out.push(ScanRange { start, stop });
            }
        }
        Ok(out)
    }

    /// The encodings of the key up to the first value field not in `prefix` (one per bucket
    /// of the derived fields that cannot be computed), and that field's index.
    fn key_prefixes(&self, prefix: &[Value]) -> Result<(Vec<Vec<u8>>, Option<usize>)> {
        if prefix.len() > self.value_count() {
            return Err(Error::Arity {
                expected: self.value_count(),
                got: prefix.len(),
            });
        }
        let parts = self.encode_values(prefix)?;
        let mut prefixes = vec![Vec::new()];
        for (i, (field, slot)) in self.fields.iter().zip(&self.slots).enumerate() {
            match slot {
                Slot::Value(j) => match parts.get(*j) {
                    Some(bytes) => prefixes.iter_mut().for_each(|p| p.extend_from_slice(bytes)),
                    None => return Ok((prefixes, Some(i))),
                },
                Slot::Derived(inputs) if inputs.iter().all(|&j| j < parts.len()) => {
                    let bytes = derive(&field.ty, inputs, &parts);
                    prefixes
                        .iter_mut()
                        .for_each(|p| p.extend_from_slice(&bytes));
                }
                Slot::Derived(_) => {
                    let total = (prefixes.len() as u128).saturating_mul(bucket_count(&field.ty));
                    if total > MAX_BUCKET_RANGES as u128 {
                        return Err(Error::Range(format!(
                            "field `{}` would need {total} bucket ranges (at most {MAX_BUCKET_RANGES}); give the fields it hashes",
                            field.name
                        )));
                    }
                    let buckets = bucket_values(&field.ty);
                    prefixes = prefixes
                        .iter()
                        .flat_map(|p| buckets.iter().map(move |b| [p.as_slice(), b].concat()))
                        .collect();
                }
            }
        }
        Ok((prefixes, None))
    }
}

fn encoded(field: &crate::field::Field, v: &Value) -> Result<Vec<u8>> {
    let mut out = Vec::new();
    encode_value(field, v, &mut out)?;
    Ok(out)
}

/// How many values a derived field can take.
fn bucket_count(ty: &FieldType) -> u128 {
    match ty {
        FieldType::Salt { buckets, .. } => u128::from(*buckets),
        FieldType::Hash { len, hex: true, .. } => {
            1u128.checked_shl(4 * u32::from(*len)).unwrap_or(u128::MAX)
        }
        FieldType::Hash { len, .. } => 1u128.checked_shl(8 * u32::from(*len)).unwrap_or(u128::MAX),
        _ => 1,
    }
}

/// Every value a derived field can take, in byte order. Only called once [`bucket_count`] is
/// known to be at most [`MAX_BUCKET_RANGES`].
fn bucket_values(ty: &FieldType) -> Vec<Vec<u8>> {
    match ty {
        FieldType::Salt {
            buckets, encoding, ..
        } => (0..*buckets)
            .map(|b| salt_bytes(b, *buckets, *encoding))
            .collect(),
        FieldType::Hash { len, hex: true, .. } => {
            let width = usize::from(*len);
            (0..bucket_count(ty).min(u128::from(u32::MAX)) as u32)
                .map(|b| format!("{b:0width$x}").into_bytes())
                .collect()
        }
        FieldType::Hash { len, .. } => {
            let width = usize::from(*len).min(4);
            (0..bucket_count(ty).min(u128::from(u32::MAX)) as u32)
                .map(|b| b.to_be_bytes()[4 - width..].to_vec())
                .collect()
        }
        _ => vec![Vec::new()],
    }
}
