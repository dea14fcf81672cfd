//! Comparators and compare operators (HBase's `ByteArrayComparable` family and
//! `CompareOperator`).

use crate::error::{Error, Result};

/// A compare operator: `actual OP reference`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CompareOp {
    /// `<`
    Less,
    /// `<=`
    LessOrEqual,
    /// `=`
    Equal,
    /// `!=`
    NotEqual,
    /// `>=`
    GreaterOrEqual,
    /// `>`
    Greater,
    /// Never matches (HBase's NO_OP).
    NoOp,
}

impl CompareOp {
    /// Parses `<`, `<=`, `=`, `!=`, `>=`, `>` or HBase's names (`LESS`, `EQUAL`, ...).
    pub fn parse(s: &str) -> Result<CompareOp> {
        Ok(match s {
            "<" | "LESS" => CompareOp::Less,
            "<=" | "LESS_OR_EQUAL" => CompareOp::LessOrEqual,
            "=" | "EQUAL" => CompareOp::Equal,
            "!=" | "NOT_EQUAL" => CompareOp::NotEqual,
            ">=" | "GREATER_OR_EQUAL" => CompareOp::GreaterOrEqual,
            ">" | "GREATER" => CompareOp::Greater,
            "NO_OP" => CompareOp::NoOp,
            _ => {
                return Err(Error::IllegalArgument(format!(
                    "unknown compare operator {s:?}"
                )))
            }
        })
    }

    /// True when `ord` (the actual value compared with the reference) satisfies the operator.
    pub fn holds(self, ord: std::cmp::Ordering) -> bool {
        use std::cmp::Ordering::*;
        match self {
            CompareOp::Less => ord == Less,
            CompareOp::LessOrEqual => ord != Greater,
            CompareOp::Equal => ord == Equal,
            CompareOp::NotEqual => ord != Equal,
            CompareOp::GreaterOrEqual => ord != Less,
            CompareOp::Greater => ord == Greater,
            CompareOp::NoOp => false,
        }
    }
}

/// Bitwise operations of [`Comparator::Bit`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BitOp {
    /// Some bit of `value & reference` is set.
    And,
    /// Some bit of `value | reference` is set.
    Or,
    /// Some bit of `value ^ reference` is set.
    Xor,
}

/// What a byte string is compared with.
#[derive(Debug, Clone)]
pub enum Comparator {
    /// Lexicographic comparison with the bytes (`binary:`).
    Binary(Vec<u8>),
    /// Compares only the first `len(reference)` bytes (`binaryprefix:`).
    BinaryPrefix(Vec<u8>),
    /// Equal when the regular expression matches anywhere (`regexstring:`); only `=` and `!=`
    /// are meaningful.
    Regex(regex::Regex),
    /// Equal when the value contains the text, case-insensitively (`substring:`).
    Substring(String),
    /// The value as an 8-byte big-endian long compared numerically.
    Long(i64),
    /// Equal when the bit operation with the reference leaves some bit set (same length only).
    Bit(Vec<u8>, BitOp),
    /// Equal when the value is empty.
    Null,
}

impl Comparator {
    /// Parses the filter language's `type:value` comparator strings.
    pub fn parse(s: &[u8]) -> Result<Comparator> {
        let colon = s.iter().position(|&b| b == b':').ok_or_else(|| {
            Error::IllegalArgument(format!(
                "comparator {:?} needs a type prefix such as binary:",
                String::from_utf8_lossy(s)
            ))
        })?;
        let (kind, value) = (&s[..colon], &s[colon + 1..]);
        Ok(match kind {
            b"binary" => Comparator::Binary(value.to_vec()),
            b"binaryprefix" => Comparator::BinaryPrefix(value.to_vec()),
            b"regexstring" => {
                let text = std::str::from_utf8(value).map_err(|_| Error::IllegalArgument("regex is not UTF-8".into()))?;
                Comparator::Regex(regex::Regex::new(text).map_err(|e| Error::IllegalArgument(format!("bad regex {text:?}: {e}")))?)
            }
            b"substring" => Comparator::Substring(String::from_utf8_lossy(value).to_lowercase()),
            _ => {
                return Err(Error::IllegalArgument(format!(
                    "unknown comparator type {:?}; expected binary, binaryprefix, regexstring or substring",
                    String::from_utf8_lossy(kind)
                )))
            }
        })
    }

    /// The ordering of `value` relative to the reference, as HBase's `compareTo` from the
    /// value's side.
    pub fn compare(&self, value: &[u8]) -> std::cmp::Ordering {
        use std::cmp::Ordering;
        match self {
            Comparator::Binary(r) => value.cmp(r),
            Comparator::BinaryPrefix(r) => {
                let n = r.len().min(value.len());
                value[..n].cmp(&r[..n]).then(if value.len() < r.len() {
                    Ordering::Less
                } else {
                    Ordering::Equal
                })
            }
            Comparator::Regex(re) => {
                if re.is_match(&String::from_utf8_lossy(value)) {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Comparator::Substring(s) => {
                if String::from_utf8_lossy(value)
                    .to_lowercase()
                    .contains(s.as_str())
                {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Comparator::Long(r) => match <[u8; 8]>::try_from(value) {
                Ok(b) => i64::from_be_bytes(b).cmp(r),
                Err(_) => Ordering::Greater,
            },
            Comparator::Bit(r, op) => {
                if value.len() != r.len() {
                    return Ordering::Greater;
                }
                let any = value.iter().zip(r).any(|(a, b)| match op {
                    BitOp::And => a & b != 0,
                    BitOp::Or => a | b != 0,
                    BitOp::Xor => a ^ b != 0,
                });
                if any {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
            Comparator::Null => {
                if value.is_empty() {
                    Ordering::Equal
                } else {
                    Ordering::Greater
                }
            }
        }
    }

    /// True when `value OP reference` holds.
    pub fn matches(&self, op: CompareOp, value: &[u8]) -> bool {
        op.holds(self.compare(value))
    }
}
