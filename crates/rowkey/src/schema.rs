//! A key schema: named fields in order, validated once.

use crate::error::{Error, Result};
use crate::field::{
    Field, FieldType, SaltEncoding, MAX_DEC_WIDTH, MAX_SALT_BYTE_BUCKETS, MAX_SALT_DEC_BUCKETS,
};
use std::fmt;
use std::str::FromStr;

/// Largest width of a fixed-width string field, in bytes.
pub const MAX_FIXED_WIDTH: usize = 65_535;

/// Where a field's bytes come from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Slot {
    /// The `j`-th value field: given by the application.
    Value(usize),
    /// A derived field, computed from these value fields (indices among the value fields), in
    /// this order.
    Derived(Vec<usize>),
}

/// A rowkey schema: the fields of a key, in the order their encodings are concatenated.
///
/// Built once from [`Field`]s ([`Schema::new`]) or from the schema syntax (`str::parse`, see
/// the crate docs), then shared: it is immutable, `Send` and `Sync`.
///
/// *Value fields* are those the application gives, in schema order; [`Schema::encode`] takes
/// and [`Schema::decode`] returns one [`Value`](crate::Value) per value field. *Derived fields*
/// (hash prefixes, salts) are computed from value fields wherever they stand in the key.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Schema {
    pub(crate) fields: Vec<Field>,
    pub(crate) slots: Vec<Slot>,
    /// Indices into `fields` of the value fields, in order.
    pub(crate) value_fields: Vec<usize>,
}

impl Schema {
    /// Validates `fields` as a schema: at least one value field; unique names made of ASCII
    /// letters, digits and `_` (not starting with a digit); widths in range; derived fields
    /// computed from named value fields.
    pub fn new(fields: Vec<Field>) -> Result<Schema> {
        let mut value_fields = Vec::new();
        for (i, f) in fields.iter().enumerate() {
            check_name(&f.name)?;
            if fields[..i].iter().any(|g| g.name == f.name) {
                return Err(Error::Schema(format!("duplicate field name `{}`", f.name)));
            }
            check_type(f)?;
            if !f.ty.is_derived() {
                value_fields.push(i);
            }
        }
        if value_fields.is_empty() {
            return Err(Error::Schema(
                "a schema needs at least one value field".into(),
            ));
        }
        let mut slots = Vec::with_capacity(fields.len());
        let mut next_value = 0;
        for f in &fields {
            if !f.ty.is_derived() {
                slots.push(Slot::Value(next_value));
                next_value += 1;
                continue;
            }
            let inputs = f.ty.inputs();
            if inputs.is_empty() {
                slots.push(Slot::Derived((0..value_fields.len()).collect()));
                continue;
            }
            let mut idx = Vec::with_capacity(inputs.len());
            for name in inputs {
                let j = value_fields
                    .iter()
                    .position(|&i| fields[i].name == *name)
                    .ok_or_else(|| {
                        Error::Schema(format!(
                            "field `{}` hashes `{name}`, which is not a value field",
                            f.name
                        ))
                    })?;
                if idx.contains(&j) {
                    return Err(Error::Schema(format!(
                        "field `{}` names `{name}` twice",
                        f.name
                    )));
                }
                idx.push(j);
            }
            slots.push(Slot::Derived(idx));
        }
        Ok(Schema {
            fields,
            slots,
            value_fields,
        })
    }

    /// All fields, in key order.
    pub fn fields(&self) -> &[Field] {
        &self.fields
    }

    /// The field named `name`, if any.
    pub fn field(&self, name: &str) -> Option<&Field> {
        self.fields.iter().find(|f| f.name == name)
    }

    /// The value fields (those [`Schema::encode`] takes), in key order.
    pub fn value_fields(&self) -> impl ExactSizeIterator<Item = &Field> + '_ {
        self.value_fields.iter().map(|&i| &self.fields[i])
    }

    /// The number of value fields.
    pub fn value_count(&self) -> usize {
        self.value_fields.len()
    }

    /// The encoded width of every key, when all fields are fixed-width.
    pub fn fixed_width(&self) -> Option<usize> {
        self.fields.iter().map(|f| f.ty.fixed_width()).sum()
    }

    /// Whether the schema has a salt or hash-prefix field.
    pub fn is_derived(&self) -> bool {
        self.fields.iter().any(|f| f.ty.is_derived())
    }
}

fn check_name(name: &str) -> Result<()> {
    let mut chars = name.chars();
    let ok = match chars.next() {
        Some(c) => {
            (c.is_ascii_alphabetic() || c == '_')
                && chars.all(|c| c.is_ascii_alphanumeric() || c == '_')
        }
        None => false,
    };
    if ok {
        Ok(())
    } else {
        Err(Error::Schema(format!(
            "field name {name:?} must be ASCII letters, digits and `_`, not starting with a digit"
        )))
    }
}

fn check_type(f: &Field) -> Result<()> {
    let bad = |what: String| Err(Error::Schema(format!("field `{}`: {what}", f.name)));
    match &f.ty {
        FieldType::Dec { width, bits } => {
            if !(1..=MAX_DEC_WIDTH).contains(width) {
                return bad(format!("decimal width {width} is not 1 to {MAX_DEC_WIDTH}"));
            }
            if ![8, 16, 32, 64].contains(bits) {
                return bad(format!("decimal type u{bits} is not u8, u16, u32 or u64"));
            }
        }
        FieldType::Uint { bytes } | FieldType::Int { bytes } => {
            if !(1..=8).contains(bytes) {
                return bad(format!("integer width {bytes} bytes is not 1 to 8"));
            }
        }
        FieldType::FixedStr { width, .. } | FieldType::FixedBytes { width, .. } => {
            if !(1..=MAX_FIXED_WIDTH).contains(width) {
                return bad(format!("width {width} is not 1 to {MAX_FIXED_WIDTH}"));
            }
        }
        FieldType::Hash {
            algo,
            len,
            inputs,
            hex,
        } => {
            let (max, unit) = if *hex {
                (2 * algo.digest_len(), "hex digits")
            } else {
                (algo.digest_len(), "bytes")
            };
            if *len == 0 || *len > max {
                return bad(format!(
                    "{} prefix of {len} {unit} is not 1 to {max}",
                    algo.name()
                ));
            }
            if inputs.is_empty() {
                return bad("a hash prefix must name the fields it hashes".into());
            }
        }
        FieldType::Salt {
            buckets, encoding, ..
        } => {
            let max = match encoding {
                SaltEncoding::Byte => MAX_SALT_BYTE_BUCKETS,
                SaltEncoding::Decimal => MAX_SALT_DEC_BUCKETS,
            };
            if !(1..=max).contains(buckets) {
                return bad(format!("{buckets} salt buckets is not 1 to {max}"));
            }
        }
        FieldType::Desc(inner) => {
            if inner.is_derived() || matches!(**inner, FieldType::Desc(_)) {
                return bad(format!(
                    "desc({inner}): desc takes a value type (not a hash, salt or desc)"
                ));
            }
            check_type(&Field::new(f.name.clone(), (**inner).clone()))?;
        }
        FieldType::Java { bytes } => {
            if ![4, 8].contains(bytes) {
                return bad(format!("Java integer width {bytes} bytes is not 4 or 8"));
            }
        }
        FieldType::Word { sep } => {
            if !sep.is_ascii_graphic() {
                return bad(format!("word separator 0x{sep:02x} is not printable ASCII"));
            }
        }
        FieldType::F32
        | FieldType::F64
        | FieldType::RevTs
        | FieldType::RevTsDec
        | FieldType::RevInt
        | FieldType::Str
        | FieldType::Bytes
        | FieldType::Rev
        | FieldType::RevStr => {}
    }
    Ok(())
}

/// The schema in the schema syntax: `user:u32dec6, date:dec8, file:u32dec6`. Parsing the text
/// gives back an equal schema.
impl fmt::Display for Schema {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, field) in self.fields.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{field}")?;
        }
        Ok(())
    }
}

/// Parses the schema syntax (see the crate docs).
impl FromStr for Schema {
    type Err = Error;

    fn from_str(s: &str) -> Result<Schema> {
        Schema::new(crate::syntax::parse_fields(s)?)
    }
}
