//! Cell value converters, as HBase's shell applies them in `get` and `scan` (`table.rb`'s
//! `convert`): a column spec `f:q:toLong` or `f:q:c(org.apache.hadoop.hbase.util.Bytes).toInt`
//! prints that column's values through the named static method of HBase's `Bytes`, and
//! `FORMATTER => 'toString'` does so for every column without its own. The methods are those of
//! `org.apache.hadoop.hbase.util.Bytes` that take one `byte[]`, with Java's output and
//! exceptions: `toStringBinary` (the default), `toString`, `toLong`, `toInt`, `toShort`,
//! `toDouble`, `toFloat`, `toBoolean`, `toHex`. Another class is refused: ferrobase cannot load
//! Java classes.

use super::args::{CommandError, Res};
use super::format;
use ferrobase_engine::{Cell, CellType};
use std::collections::HashMap;

/// The class HBase's shell converts with by default (the only one ferrobase has).
pub const BYTES_CLASS: &str = "org.apache.hadoop.hbase.util.Bytes";

/// One of `Bytes`' value-to-text methods.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Converter {
    /// `toStringBinary`: printable bytes as is, others `\xNN` (the default).
    StringBinary,
    /// `toString`: the bytes as UTF-8, invalid sequences replaced.
    String,
    /// `toLong`: the first 8 bytes, big-endian signed.
    Long,
    /// `toInt`: the first 4 bytes, big-endian signed.
    Int,
    /// `toShort`: the first 2 bytes, big-endian signed.
    Short,
    /// `toDouble`: the first 8 bytes as an IEEE 754 double, printed as Java does.
    Double,
    /// `toFloat`: the first 4 bytes as an IEEE 754 float, printed as Java does.
    Float,
    /// `toBoolean`: one byte, `false` when zero.
    Boolean,
    /// `toHex`: lowercase hexadecimal.
    Hex,
}

impl Converter {
    /// A method name (`toLong`) or `c(CLASS).method`, as a column spec or `FORMATTER` names it.
    pub fn parse(spec: &str) -> Res<Converter> {
        let method = match spec.strip_prefix("c(").and_then(|r| r.split_once(").")) {
            Some((class, method)) => {
                check_class(class)?;
                method
            }
            None => spec,
        };
        Ok(match method {
            "toStringBinary" => Converter::StringBinary,
            "toString" => Converter::String,
            "toLong" => Converter::Long,
            "toInt" => Converter::Int,
            "toShort" => Converter::Short,
            "toDouble" => Converter::Double,
            "toFloat" => Converter::Float,
            "toBoolean" => Converter::Boolean,
            "toHex" => Converter::Hex,
            other => {
                return Err(CommandError::Failed(format!(
                    "undefined method `{other}' for class `{BYTES_CLASS}' (ferrobase converts \
                     with toStringBinary, toString, toLong, toInt, toShort, toDouble, toFloat, \
                     toBoolean and toHex)"
                )))
            }
        })
    }

    /// The value as the method prints it, or Java's `IllegalArgumentException` message.
    pub fn apply(self, v: &[u8]) -> Result<String, String> {
        let first = |n: usize| -> Result<&[u8], String> {
            v.get(..n).ok_or_else(|| {
                format!(
                    "offset (0) + length ({n}) exceed the capacity of the array: {}",
                    v.len()
                )
            })
        };
        Ok(match self {
            Converter::StringBinary => format::binary(v),
            Converter::String => String::from_utf8_lossy(v).into_owned(),
            Converter::Long => i64::from_be_bytes(array(first(8)?)).to_string(),
            Converter::Int => i32::from_be_bytes(array(first(4)?)).to_string(),
            Converter::Short => i16::from_be_bytes(array(first(2)?)).to_string(),
            Converter::Double => java_double(f64::from_be_bytes(array(first(8)?))),
            Converter::Float => java_float(f32::from_be_bytes(array(first(4)?))),
            Converter::Boolean => match v {
                [b] => (*b != 0).to_string(),
                _ => return Err(format!("Array has wrong size: {}", v.len())),
            },
            Converter::Hex => v.iter().map(|b| format!("{b:02x}")).collect(),
        })
    }
}

/// Checks a converter class (`FORMATTER_CLASS`, `c(CLASS).method`) is HBase's `Bytes`.
pub fn check_class(class: &str) -> Res<()> {
    if class == BYTES_CLASS {
        return Ok(());
    }
    Err(CommandError::Failed(format!(
        "converter class {class} is not supported by ferrobase (it converts with {BYTES_CLASS} only)"
    )))
}

/// The first `N` bytes of `b` (which has at least `N`).
fn array<const N: usize>(b: &[u8]) -> [u8; N] {
    let mut a = [0u8; N];
    a.copy_from_slice(&b[..N]);
    a
}

/// Java's `Double.toString`: plain decimal with at least one fractional digit for magnitudes
/// in [1e-3, 1e7), else `d.dddE±n`; shortest round-tripping digits in both.
pub fn java_double(d: f64) -> String {
    java_decimal(
        d.is_nan(),
        d.is_infinite(),
        d == 0.0,
        d.is_sign_negative(),
        || format!("{:e}", d.abs()),
    )
}

/// Java's `Float.toString` (as [`java_double`], with a float's shortest digits).
pub fn java_float(f: f32) -> String {
    java_decimal(
        f.is_nan(),
        f.is_infinite(),
        f == 0.0,
        f.is_sign_negative(),
        || format!("{:e}", f.abs()),
    )
}

fn java_decimal(
    nan: bool,
    infinite: bool,
    zero: bool,
    negative: bool,
    sci: impl Fn() -> String,
) -> String {
    let sign = if negative { "-" } else { "" };
    if nan {
        return "NaN".into();
    }
    if infinite {
        return format!("{sign}Infinity");
    }
    if zero {
        return format!("{sign}0.0");
    }
    // Rust's `{:e}`: shortest digits `d[.ddd]e[-]n`.
    let s = sci();
    let (mantissa, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let exp: i32 = exp.parse().unwrap_or(0);
    let digits: String = mantissa.chars().filter(|c| *c != '.').collect();
    if (-3..7).contains(&exp) {
        let (int, frac) = if exp >= 0 {
            let point = exp as usize + 1;
            let padded = format!("{digits:0<point$}");
            (padded[..point].to_string(), padded[point..].to_string())
        } else {
            (
                "0".to_string(),
                format!("{}{digits}", "0".repeat((-exp - 1) as usize)),
            )
        };
        let frac = if frac.is_empty() { "0".into() } else { frac };
        format!("{sign}{int}.{frac}")
    } else {
        let (first, rest) = digits.split_at(1);
        let rest = if rest.is_empty() { "0" } else { rest };
        format!("{sign}{first}.{rest}E{exp}")
    }
}

/// The converters of one `get` or `scan`: per column (`f:q:toLong`) and the default
/// (`FORMATTER`, else `toStringBinary`).
#[derive(Debug, Clone)]
pub struct Converters {
    default: Converter,
    columns: HashMap<(Vec<u8>, Vec<u8>), Converter>,
}

impl Default for Converters {
    fn default() -> Self {
        Converters {
            default: Converter::StringBinary,
            columns: HashMap::new(),
        }
    }
}

impl Converters {
    /// Sets the default converter (`FORMATTER`).
    pub fn set_default(&mut self, c: Converter) {
        self.default = c;
    }

    /// Reads a column spec `family[:qualifier[:converter]]` as HBase's
    /// `parse_column_format_spec` does (the qualifier ends at its first `:`), registering the
    /// converter; returns the family and qualifier.
    pub fn column(&mut self, spec: &[u8]) -> Res<(Vec<u8>, Option<Vec<u8>>)> {
        let Some(i) = spec.iter().position(|&b| b == b':') else {
            return Ok((spec.to_vec(), None));
        };
        let family = spec[..i].to_vec();
        let rest = &spec[i + 1..];
        let Some(j) = rest.iter().position(|&b| b == b':') else {
            return Ok((family, Some(rest.to_vec())));
        };
        let qualifier = rest[..j].to_vec();
        let c = Converter::parse(&String::from_utf8_lossy(&rest[j + 1..]))?;
        self.columns.insert((family.clone(), qualifier.clone()), c);
        Ok((family, Some(qualifier)))
    }

    /// The value of `cell` as the shell prints it (a delete marker's is not converted: it
    /// prints its type).
    pub fn value(&self, cell: &Cell) -> Res<String> {
        if cell.cell_type() != CellType::Put {
            return Ok(String::new());
        }
        let c = self
            .columns
            .get(&(cell.family().to_vec(), cell.qualifier().to_vec()))
            .copied()
            .unwrap_or(self.default);
        c.apply(cell.value()).map_err(CommandError::Failed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn converters_print_as_hbase_2_6_bytes() {
        // From HBase 2.6.1's Bytes and Java's number formatting.
        let c = |s: &str, v: &[u8]| Converter::parse(s).unwrap().apply(v);
        assert_eq!(c("toDouble", &1.0e10f64.to_be_bytes()).unwrap(), "1.0E10");
        assert_eq!(c("toDouble", &3.5f64.to_be_bytes()).unwrap(), "3.5");
        assert_eq!(c("toDouble", &0.0001f64.to_be_bytes()).unwrap(), "1.0E-4");
        assert_eq!(
            c("toDouble", &123456789.0f64.to_be_bytes()).unwrap(),
            "1.23456789E8"
        );
        assert_eq!(c("toDouble", &0.001f64.to_be_bytes()).unwrap(), "0.001");
        assert_eq!(c("toDouble", &(-0.0f64).to_be_bytes()).unwrap(), "-0.0");
        assert_eq!(c("toFloat", &2.5f32.to_be_bytes()).unwrap(), "2.5");
        assert_eq!(c("toFloat", &1.1f32.to_be_bytes()).unwrap(), "1.1");
        assert_eq!(c("toHex", &[1, 0xab]).unwrap(), "01ab");
        assert_eq!(c("toString", &[65, 0xff, 66]).unwrap(), "A\u{fffd}B");
        assert_eq!(c("toShort", &[0xff, 0xfe]).unwrap(), "-2");
        assert_eq!(c("toLong", &[0, 0, 0, 0, 0, 0, 0, 5, 9]).unwrap(), "5");
        assert_eq!(
            c("c(org.apache.hadoop.hbase.util.Bytes).toInt", &[0, 0, 1, 0]).unwrap(),
            "256"
        );
        assert_eq!(
            c("toLong", &[1, 2, 3]).unwrap_err(),
            "offset (0) + length (8) exceed the capacity of the array: 3"
        );
        assert_eq!(
            c("toInt", &[1]).unwrap_err(),
            "offset (0) + length (4) exceed the capacity of the array: 1"
        );
        assert_eq!(
            c("toBoolean", &[1, 2]).unwrap_err(),
            "Array has wrong size: 2"
        );
        assert!(Converter::parse("toBigDecimal").is_err());
        assert!(Converter::parse("c(java.lang.String).valueOf").is_err());
    }

    #[test]
    fn column_specs_split_family_qualifier_and_converter() {
        let mut cs = Converters::default();
        assert_eq!(cs.column(b"f").unwrap(), (b"f".to_vec(), None));
        assert_eq!(
            cs.column(b"f:q:toLong").unwrap(),
            (b"f".to_vec(), Some(b"q".to_vec()))
        );
        let cell = |q: &str, v: &[u8]| {
            Cell::new(
                b"r".to_vec(),
                b"f".to_vec(),
                q.as_bytes().to_vec(),
                1,
                CellType::Put,
                v.to_vec(),
            )
        };
        assert_eq!(cs.value(&cell("q", &7i64.to_be_bytes())).unwrap(), "7");
        assert_eq!(cs.value(&cell("other", b"\x01")).unwrap(), "\\x01");
        cs.set_default(Converter::String);
        assert_eq!(cs.value(&cell("other", b"abc")).unwrap(), "abc");
    }
}
