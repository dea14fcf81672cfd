//! Typed values of key fields.

use std::cmp::Ordering;

/// The typed value of one key field.
///
/// Which variant a field takes is fixed by its [`FieldType`](crate::FieldType): unsigned
/// integers and decimals take [`Value::U64`], signed integers and timestamps [`Value::I64`],
/// floats [`Value::F32`]/[`Value::F64`], strings and reversed domains [`Value::Str`], byte
/// strings and hash prefixes [`Value::Bytes`]; a salt bucket decodes as [`Value::U64`].
///
/// Equality compares floats by their bits (so `NaN == NaN` and `0.0 != -0.0`), which is what
/// "decodes to the same value" means; [`Value::total_cmp`] orders them by `f64::total_cmp`.
#[derive(Debug, Clone)]
pub enum Value {
    /// An unsigned integer.
    U64(u64),
    /// A signed integer, or a timestamp in milliseconds.
    I64(i64),
    /// A 32-bit float.
    F32(f32),
    /// A 64-bit float.
    F64(f64),
    /// A UTF-8 string.
    Str(String),
    /// A byte string.
    Bytes(Vec<u8>),
}

impl Value {
    /// The variant's name, for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::U64(_) => "u64",
            Value::I64(_) => "i64",
            Value::F32(_) => "f32",
            Value::F64(_) => "f64",
            Value::Str(_) => "string",
            Value::Bytes(_) => "bytes",
        }
    }

    /// Orders two values of the same variant by their natural order (floats by
    /// `total_cmp`, strings and bytes lexicographically by bytes); values of different variants
    /// order by variant.
    pub fn total_cmp(&self, other: &Value) -> Ordering {
        match (self, other) {
            (Value::U64(a), Value::U64(b)) => a.cmp(b),
            (Value::I64(a), Value::I64(b)) => a.cmp(b),
            (Value::F32(a), Value::F32(b)) => a.total_cmp(b),
            (Value::F64(a), Value::F64(b)) => a.total_cmp(b),
            (Value::Str(a), Value::Str(b)) => a.as_bytes().cmp(b.as_bytes()),
            (Value::Bytes(a), Value::Bytes(b)) => a.cmp(b),
            _ => self.rank().cmp(&other.rank()),
        }
    }

    fn rank(&self) -> u8 {
        match self {
            Value::U64(_) => 0,
            Value::I64(_) => 1,
            Value::F32(_) => 2,
            Value::F64(_) => 3,
            Value::Str(_) => 4,
            Value::Bytes(_) => 5,
        }
    }
}

impl PartialEq for Value {
    fn eq(&self, other: &Value) -> bool {
        match (self, other) {
            (Value::F32(a), Value::F32(b)) => a.to_bits() == b.to_bits(),
            (Value::F64(a), Value::F64(b)) => a.to_bits() == b.to_bits(),
            _ => self.total_cmp(other) == Ordering::Equal && self.rank() == other.rank(),
        }
    }
}

impl Eq for Value {}

macro_rules! from_int {
    ($variant:ident, $target:ty: $($t:ty),*) => {
        $(impl From<$t> for Value {
            fn from(v: $t) -> Value {
                Value::$variant(<$target>::from(v))
            }
        })*
    };
}
from_int!(U64, u64: u8, u16, u32, u64);
from_int!(I64, i64: i8, i16, i32, i64);

impl From<f32> for Value {
    fn from(v: f32) -> Value {
        Value::F32(v)
    }
}

impl From<f64> for Value {
    fn from(v: f64) -> Value {
        Value::F64(v)
    }
}

impl From<&str> for Value {
    fn from(v: &str) -> Value {
        Value::Str(v.to_string())
    }
}

impl From<String> for Value {
    fn from(v: String) -> Value {
        Value::Str(v)
    }
}

impl From<&[u8]> for Value {
    fn from(v: &[u8]) -> Value {
        Value::Bytes(v.to_vec())
    }
}

impl From<Vec<u8>> for Value {
    fn from(v: Vec<u8>) -> Value {
        Value::Bytes(v)
    }
}
