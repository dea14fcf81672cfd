//! The shell's parser and value converters, for the fuzz targets `shell_language` and
//! `shell_converters` (`fuzz/`) and the test that replays their inputs
//! (`tests/fuzz_regressions.rs`). Hidden: not part of the shell's interface, as the engine's
//! hidden `fuzzing` module exposes its decoders.

pub use super::converter::{java_double, java_float, Converter, Converters};
pub use super::format::binary;
pub use super::syntax::parse;
use ferrobase_engine::{Cell, CellType};

/// What `get` and `scan` print for `value` in column `family:qualifier` when given `COLUMNS =>
/// [column_spec]` and `FORMATTER => formatter` (each as untrusted text), or the error the shell
/// reports for the spec, the formatter or the conversion.
pub fn print_value(
    column_spec: &[u8],
    formatter: Option<&str>,
    family: &[u8],
    qualifier: &[u8],
    value: &[u8],
) -> Result<String, String> {
    let mut converters = Converters::default();
    converters.column(column_spec).map_err(|e| e.to_string())?;
    if let Some(f) = formatter {
        converters.set_default(Converter::parse(f).map_err(|e| e.to_string())?);
    }
    let cell = Cell::new(
        b"r".to_vec(),
        family.to_vec(),
        qualifier.to_vec(),
        1,
        CellType::Put,
        value.to_vec(),
    );
    converters.value(&cell).map_err(|e| e.to_string())
}

/// Every converter `Converter::parse` knows, by the method name HBase's shell uses.
pub const METHODS: [&str; 9] = [
    "toStringBinary",
    "toString",
    "toLong",
    "toInt",
    "toShort",
    "toDouble",
    "toFloat",
    "toBoolean",
    "toHex",
];

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn print_value_applies_the_columns_converter_before_the_formatter() {
        let v = 7i64.to_be_bytes();
        assert_eq!(
            print_value(b"f:q:toLong", Some("toHex"), b"f", b"q", &v).unwrap(),
            "7"
        );
        assert_eq!(
            print_value(b"f:q:toLong", Some("toHex"), b"f", b"p", &v).unwrap(),
            "0000000000000007"
        );
        assert!(print_value(b"f:q:toNothing", None, b"f", b"q", &v).is_err());
        for m in METHODS {
            assert!(Converter::parse(m).is_ok(), "{m}");
        }
        assert_eq!(binary(b"a\x00"), "a\\x00");
        assert_eq!(java_double(1.0), "1.0");
        assert_eq!(java_float(0.5), "0.5");
    }
}
