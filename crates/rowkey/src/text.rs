//! The textual form of values and keys: `user=000042 date=20120912 file=000007`.
//!
//! Each value prints in the form its type reads back (see [`Schema::format_value`]); a key
//! prints as `name=value` pairs separated by one space, in key order, derived fields included.
//! Strings that are empty or hold spaces, quotes, `=`, `\` or non-printable characters are
//! quoted: `"a b"`, with `\"`, `\\` and `\xNN` escapes (HBase's `Bytes.toStringBinary` style).

use crate::error::{Error, Result};
use crate::field::{Field, FieldType, SaltEncoding};
use crate::schema::{Schema, Slot};
use crate::value::Value;

impl Schema {
    /// The key as `name=value` pairs in key order: `user=000042 date=20120912 file=000007`.
    /// Errors as [`Schema::decode`].
    pub fn format_key(&self, key: &[u8]) -> Result<String> {
        let fields = self.decode_fields(key)?;
        let parts: Vec<String> = self
            .fields
            .iter()
            .zip(&fields)
            .map(|(f, d)| format!("{}={}", f.name, format_value(&f.ty, &d.value)))
            .collect();
        Ok(parts.join(" "))
    }

    /// The text of `value` as a value of the field named `field`, as [`Schema::format_key`]
    /// writes it. Errors: [`Error::Parse`] for an unknown field.
    pub fn format_value(&self, field: &str, value: &Value) -> Result<String> {
        let f = self.named(field, "")?;
        Ok(format_value(&f.ty, value))
    }

    /// Parses the text of one value of the field named `field`: decimal digits for integers
    /// (zero padding optional), Rust float syntax (`1.5`, `-inf`, `NaN`), the timestamp itself
    /// for reversed timestamps, plain or quoted text for strings, hex digits for hash prefixes,
    /// a bucket number for salts.
    pub fn parse_value(&self, field: &str, text: &str) -> Result<Value> {
        parse_value(self.named(field, text)?, text)
    }

    /// Parses `name=value` pairs (separated by whitespace, values quoted as
    /// [`Schema::format_key`] writes them) into one value per value field, in schema order:
    /// every value field must be named once, in any order. Derived fields may be given, and
    /// must then equal what the values give.
    pub fn parse_record(&self, text: &str) -> Result<Vec<Value>> {
        let values = self.parse_prefix(text)?;
        if values.len() != self.value_count() {
            let missing = self
                .value_fields()
                .nth(values.len())
                .map(|f| f.name.clone());
            return Err(Error::parse(
                &missing.unwrap_or_default(),
                text,
                "missing (every value field must be given)",
            ));
        }
        Ok(values)
    }

    /// Parses `name=value` pairs naming the first `m` value fields (in any order) into those
    /// `m` values, for [`Schema::prefix_ranges`]. Derived fields may be given, and must then
    /// equal what the given values give (when they give it).
    pub fn parse_prefix(&self, text: &str) -> Result<Vec<Value>> {
        let mut given: Vec<Option<Value>> = vec![None; self.fields.len()];
        for (name, raw) in split_pairs(text)? {
            let i = self
                .fields
                .iter()
                .position(|f| f.name == name)
                .ok_or_else(|| Error::parse(&name, text, "no such field"))?;
            let Some(slot) = given.get_mut(i) else {
                continue;
            };
            if slot.is_some() {
                return Err(Error::parse(&name, text, "given twice"));
            }
            *slot = Some(parse_value(&self.fields[i], &raw)?);
        }
        let by_value: Vec<Option<Value>> = self
            .value_fields
            .iter()
            .map(|&i| given.get(i).cloned().flatten())
            .collect();
        let m = by_value.iter().take_while(|v| v.is_some()).count();
        if let Some(k) = by_value.iter().skip(m).position(Option::is_some) {
            let name = |j: usize| self.value_fields().nth(j).map(|f| f.name.clone());
            return Err(Error::parse(
                &name(m + k).unwrap_or_default(),
                text,
                format!(
                    "given without `{}` before it (fields must form a prefix)",
                    name(m).unwrap_or_default()
                ),
            ));
        }
        let values: Vec<Value> = by_value.into_iter().flatten().collect();
        let parts = self.encode_values(&values)?;
        for ((field, slot), g) in self.fields.iter().zip(&self.slots).zip(&given) {
            if let (Slot::Derived(inputs), Some(v)) = (slot, g) {
                if inputs.iter().all(|&j| j < parts.len()) {
                    let want = crate::encode::derive(&field.ty, inputs, &parts);
                    let mut got = Vec::new();
                    encode_derived_value(&field.ty, v, &mut got);
                    if got != want {
                        return Err(Error::parse(
                            &field.name,
                            text,
                            "does not match the fields it is computed from",
                        ));
                    }
                }
            }
        }
        Ok(values)
    }

    fn named(&self, field: &str, text: &str) -> Result<&Field> {
        self.field(field)
            .ok_or_else(|| Error::parse(field, text, "no such field"))
    }
}

fn encode_derived_value(ty: &FieldType, v: &Value, out: &mut Vec<u8>) {
    match (ty, v) {
        (FieldType::Hash { .. }, Value::Bytes(b)) => out.extend_from_slice(b),
        (
            FieldType::Salt {
                buckets, encoding, ..
            },
            Value::U64(n),
        ) => out.extend(crate::encode::salt_bytes(
            u32::try_from(*n).unwrap_or(u32::MAX),
            *buckets,
            *encoding,
        )),
        _ => {}
    }
}

/// The text of `v` as a value of type `ty`.
pub(crate) fn format_value(ty: &FieldType, v: &Value) -> String {
    match (ty, v) {
        (FieldType::Desc(inner), v) => format_value(inner, v),
        (FieldType::Hash { hex: true, .. }, Value::Bytes(b)) => {
            String::from_utf8_lossy(b).into_owned()
        }
        (FieldType::Dec { width, .. }, Value::U64(n)) => {
            format!("{n:0w$}", w = usize::from(*width))
        }
        (
            FieldType::Salt {
                buckets,
                encoding: SaltEncoding::Decimal,
                ..
            },
            Value::U64(n),
        ) => format!(
            "{n:0w$}",
            w = crate::field::salt_width(*buckets, SaltEncoding::Decimal)
        ),
        (FieldType::Hash { .. }, Value::Bytes(b)) => b.iter().map(|x| format!("{x:02x}")).collect(),
        (_, Value::U64(n)) => n.to_string(),
        (_, Value::I64(n)) => n.to_string(),
        (_, Value::F32(x)) => x.to_string(),
        (_, Value::F64(x)) => x.to_string(),
        (_, Value::Str(s)) => quote(s.as_bytes(), true),
        (_, Value::Bytes(b)) => quote(b, false),
    }
}

/// Quotes `b` when it needs it; `utf8` keeps printable non-ASCII characters as they are.
fn quote(b: &[u8], utf8: bool) -> String {
    let plain = |c: char| c.is_ascii_graphic() && !matches!(c, '"' | '\\' | '=' | '\'');
    let text = if utf8 {
        std::str::from_utf8(b).ok()
    } else {
        None
    };
    if let Some(s) = text {
        if !s.is_empty()
            && s.chars()
                .all(|c| plain(c) || (!c.is_ascii() && !c.is_control() && !c.is_whitespace()))
        {
            return s.to_string();
        }
        let mut out = String::from("\"");
        for c in s.chars() {
            match c {
                '"' => out.push_str("\\\""),
                '\\' => out.push_str("\\\\"),
                c if c == ' ' || c.is_ascii_graphic() || (!c.is_ascii() && !c.is_control()) => {
                    out.push(c)
                }
                c => {
                    let mut buf = [0; 4];
                    for x in c.encode_utf8(&mut buf).bytes() {
                        out.push_str(&format!("\\x{x:02x}"));
                    }
                }
            }
        }
        out.push('"');
        return out;
    }
    if !b.is_empty() && b.iter().all(|&x| plain(char::from(x))) {
        return String::from_utf8_lossy(b).into_owned();
    }
    let mut out = String::from("\"");
    for &x in b {
        match x {
            b'"' => out.push_str("\\\""),
            b'\\' => out.push_str("\\\\"),
            x if x == b' ' || x.is_ascii_graphic() => out.push(char::from(x)),
            x => out.push_str(&format!("\\x{x:02x}")),
        }
    }
    out.push('"');
    out
}

/// Undoes [`quote`]: the bytes of a plain or quoted text.
fn unquote(field: &str, text: &str) -> Result<Vec<u8>> {
    let Some(inner) = text.strip_prefix('"') else {
        return Ok(text.as_bytes().to_vec());
    };
    let inner = inner
        .strip_suffix('"')
        .ok_or_else(|| Error::parse(field, text, "unterminated quote"))?;
    let mut out = Vec::new();
    let mut rest = inner.as_bytes();
    while let Some((&c, tail)) = rest.split_first() {
        rest = tail;
        if c != b'\\' {
            out.push(c);
            continue;
        }
        match rest.split_first() {
            Some((b'"', t)) | Some((b'\\', t)) => {
                out.push(rest.first().copied().unwrap_or_default());
                rest = t;
            }
            Some((b'x', t)) => {
                let hex = t
                    .get(..2)
                    .and_then(|h| std::str::from_utf8(h).ok())
                    .and_then(|h| u8::from_str_radix(h, 16).ok())
                    .ok_or_else(|| Error::parse(field, text, "\\x needs two hex digits"))?;
                out.push(hex);
                rest = t.get(2..).unwrap_or_default();
            }
            _ => {
                return Err(Error::parse(
                    field,
                    text,
                    "unknown escape (use \\\", \\\\ or \\xNN)",
                ))
            }
        }
    }
    Ok(out)
}

/// Parses the text of a value of `field`.
pub(crate) fn parse_value(field: &Field, text: &str) -> Result<Value> {
    let name = &field.name;
    let bad = |msg: &str| Error::parse(name, text, msg);
    let t = text.trim();
    match &field.ty {
        FieldType::Dec { .. } | FieldType::Uint { .. } | FieldType::Salt { .. } => {
            if t.is_empty() || !t.bytes().all(|c| c.is_ascii_digit()) {
                return Err(bad("expected decimal digits"));
            }
            t.parse::<u64>()
                .map(Value::U64)
                .map_err(|_| bad("does not fit u64"))
        }
        FieldType::Desc(inner) => parse_value(&Field::new(name.clone(), (**inner).clone()), text),
        FieldType::Hash { hex: true, len, .. } => {
            if t.len() != usize::from(*len) || !t.bytes().all(|c| c.is_ascii_hexdigit()) {
                return Err(bad("expected the prefix's hex digits"));
            }
            Ok(Value::Bytes(t.to_ascii_lowercase().into_bytes()))
        }
        FieldType::Int { .. }
        | FieldType::Java { .. }
        | FieldType::RevInt
        | FieldType::RevTs
        | FieldType::RevTsDec => t
            .parse::<i64>()
            .map(Value::I64)
            .map_err(|_| bad("expected a signed decimal integer (i64)")),
        FieldType::F32 => t
            .parse::<f32>()
            .map(Value::F32)
            .map_err(|_| bad("expected a float")),
        FieldType::F64 => t
            .parse::<f64>()
            .map(Value::F64)
            .map_err(|_| bad("expected a float")),
        FieldType::FixedStr { .. }
        | FieldType::Str
        | FieldType::Rev
        | FieldType::RevStr
        | FieldType::Word { .. } => String::from_utf8(unquote(name, text)?)
            .map(Value::Str)
            .map_err(|_| bad("not valid UTF-8")),
        FieldType::FixedBytes { .. } | FieldType::Bytes => Ok(Value::Bytes(unquote(name, text)?)),
        FieldType::Hash { .. } => {
            if !t.len().is_multiple_of(2) {
                return Err(bad("expected an even number of hex digits"));
            }
            (0..t.len())
                .step_by(2)
                .map(|i| {
                    t.get(i..i + 2)
                        .and_then(|h| u8::from_str_radix(h, 16).ok())
                        .ok_or_else(|| bad("expected hex digits"))
                })
                .collect::<Result<Vec<u8>>>()
                .map(Value::Bytes)
        }
    }
}

/// Splits `a=1 b="x y"` into `(name, raw value)` pairs.
fn split_pairs(text: &str) -> Result<Vec<(String, String)>> {
    let mut pairs = Vec::new();
    let mut rest = text.trim_start();
    while !rest.is_empty() {
        let eq = rest
            .find('=')
            .ok_or_else(|| Error::parse("", text, "expected name=value"))?;
        let name = rest.get(..eq).unwrap_or_default().trim();
        if name.is_empty() || name.contains(char::is_whitespace) {
            return Err(Error::parse(name, text, "expected name=value"));
        }
        let after = rest.get(eq + 1..).unwrap_or_default();
        let end = if after.starts_with('"') {
            closing_quote(after).ok_or_else(|| Error::parse(name, text, "unterminated quote"))?
        } else {
            after.find(char::is_whitespace).unwrap_or(after.len())
        };
        pairs.push((
            name.to_string(),
            after.get(..end).unwrap_or_default().to_string(),
        ));
        rest = after.get(end..).unwrap_or_default().trim_start();
    }
    Ok(pairs)
}

/// The end (exclusive) of the quoted text at the start of `s`.
fn closing_quote(s: &str) -> Option<usize> {
    let mut escaped = false;
    for (i, c) in s.char_indices().skip(1) {
        match c {
            _ if escaped => escaped = false,
            '\\' => escaped = true,
            '"' => return Some(i + 1),
            _ => {}
        }
    }
    None
}
