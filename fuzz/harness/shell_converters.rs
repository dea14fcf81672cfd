//! The shell's value converters (`COLUMNS => ['f:q:toInt']`, `FORMATTER`,
//! `c(org.apache.hadoop.hbase.util.Bytes).toLong`) never panic on untrusted text or values, and
//! print what they read: integers, floats, hex and `toStringBinary` output parse back to the
//! value's bytes.
//!
//! Shared by the fuzz target and the `cargo test` that replays the seed corpus and the inputs that
//! once failed (`fuzz/corpus/shell_converters/`, `fuzz/regressions/shell_converters/`), through
//! the shell crate's hidden `fuzzing` module.
//!
//! Input: a column spec, a newline, a formatter, a newline, then the value's bytes.

use ferrobase_shell::fuzzing::{
    binary, java_double, java_float, print_value, Converter, Converters, METHODS,
};

/// Runs one input; panics only on a bug.
pub fn run(data: &[u8]) {
    let mut parts = data.splitn(3, |&b| b == b'\n');
    let spec = parts.next().unwrap_or_default();
    let formatter = parts.next().map(String::from_utf8_lossy);
    let value = parts.next().unwrap_or_default();
    column_spec(spec);
    let (family, qualifier) = match Converters::default().column(spec) {
        Ok((f, q)) => (f, q.unwrap_or_default()),
        Err(_) => (b"f".to_vec(), b"q".to_vec()),
    };
    let _ = print_value(spec, formatter.as_deref(), &family, &qualifier, value);
    if let Some(f) = &formatter {
        if let Ok(c) = Converter::parse(f) {
            let _ = c.apply(value);
        }
    }
    for m in METHODS {
        let c = Converter::parse(m).expect("every listed method parses");
        let out = c.apply(value);
        check(m, value, out);
    }
}

/// A spec splits as HBase's `parse_column_format_spec` does: the family up to the first `:`,
/// the qualifier up to the next.
fn column_spec(spec: &[u8]) {
    let Ok((family, qualifier)) = Converters::default().column(spec) else {
        return;
    };
    assert!(spec.starts_with(&family), "family {family:?} of {spec:?}");
    assert!(!family.contains(&b':'));
    match qualifier {
        None => assert_eq!(family, spec),
        Some(q) => {
            assert!(!q.contains(&b':'));
            let mut joined = family.clone();
            joined.push(b':');
            joined.extend_from_slice(&q);
            assert!(spec.starts_with(&joined), "{joined:?} of {spec:?}");
        }
    }
}

/// The first `N` bytes of `v`, if it has that many.
fn first<const N: usize>(v: &[u8]) -> Option<[u8; N]> {
    v.get(..N)?.try_into().ok()
}

/// Checks one converter's output against the bytes it read.
fn check(method: &str, v: &[u8], out: Result<String, String>) {
    match method {
        "toLong" => match first::<8>(v) {
            Some(b) => assert_eq!(out.unwrap().parse::<i64>(), Ok(i64::from_be_bytes(b))),
            None => assert!(out.is_err()),
        },
        "toInt" => match first::<4>(v) {
            Some(b) => assert_eq!(out.unwrap().parse::<i32>(), Ok(i32::from_be_bytes(b))),
            None => assert!(out.is_err()),
        },
        "toShort" => match first::<2>(v) {
            Some(b) => assert_eq!(out.unwrap().parse::<i16>(), Ok(i16::from_be_bytes(b))),
            None => assert!(out.is_err()),
        },
        "toDouble" => match first::<8>(v) {
            Some(b) => {
                let d = f64::from_be_bytes(b);
                let s = out.unwrap();
                assert_eq!(s, java_double(d));
                java_number(&s, d.is_nan(), d.abs() >= 1e-3 && d.abs() < 1e7);
                if !d.is_nan() {
                    let back: f64 = rust_number(&s).parse().expect("a number");
                    assert_eq!(back.to_bits(), d.to_bits(), "{s}");
                }
            }
            None => assert!(out.is_err()),
        },
        "toFloat" => match first::<4>(v) {
            Some(b) => {
                let f = f32::from_be_bytes(b);
                let s = out.unwrap();
                assert_eq!(s, java_float(f));
                java_number(&s, f.is_nan(), f.abs() >= 1e-3 && f.abs() < 1e7);
                if !f.is_nan() {
                    let back: f32 = rust_number(&s).parse().expect("a number");
                    assert_eq!(back.to_bits(), f.to_bits(), "{s}");
                }
            }
            None => assert!(out.is_err()),
        },
        "toBoolean" => match v {
            [b] => assert_eq!(out.unwrap(), (*b != 0).to_string()),
            _ => assert!(out.is_err()),
        },
        "toHex" => {
            let s = out.unwrap();
            assert_eq!(s.len(), 2 * v.len());
            let back: Vec<u8> = s
                .as_bytes()
                .chunks(2)
                .map(|h| u8::from_str_radix(std::str::from_utf8(h).unwrap(), 16).unwrap())
                .collect();
            assert_eq!(back, v);
            assert!(!s.bytes().any(|c| c.is_ascii_uppercase()));
        }
        "toStringBinary" => {
            let s = out.unwrap();
            assert_eq!(s, binary(v));
            assert_eq!(unescape_binary(&s), v, "{s}");
        }
        _ => {
            out.unwrap();
        }
    }
}

/// Java's `Double.toString` shapes: `NaN`, `[-]Infinity`, a plain decimal with a fractional
/// part for magnitudes in [1e-3, 1e7) (and zero), else `d.ddd...E[-]n`.
fn java_number(s: &str, nan: bool, plain: bool) {
    if nan {
        assert_eq!(s, "NaN");
        return;
    }
    let unsigned = s.strip_prefix('-').unwrap_or(s);
    if unsigned == "Infinity" {
        return;
    }
    let (mantissa, exp) = match unsigned.split_once('E') {
        Some((m, e)) => {
            assert!(!plain, "{s} should be a plain decimal");
            assert!(e.parse::<i32>().is_ok(), "{s}");
            let (int, _) = m.split_once('.').expect("a point");
            assert!(int.len() == 1 && int != "0", "{s}");
            (m, Some(e))
        }
        None => (unsigned, None),
    };
    let (int, frac) = mantissa.split_once('.').expect("a point");
    assert!(!int.is_empty() && !frac.is_empty(), "{s}");
    assert!(
        int.bytes().chain(frac.bytes()).all(|c| c.is_ascii_digit()),
        "{s}"
    );
    if exp.is_none() && unsigned != "0.0" {
        assert!(plain, "{s} should be in E notation");
    }
}

/// Java's spelling of a number as Rust's `parse` takes it.
fn rust_number(s: &str) -> String {
    s.replace("Infinity", "inf").replace('E', "e")
}

/// The bytes `toStringBinary` printed: `\xNN` escapes, every other character as is.
fn unescape_binary(s: &str) -> Vec<u8> {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'\\' && b.get(i + 1) == Some(&b'x') {
            let hex = std::str::from_utf8(&b[i + 2..i + 4]).unwrap();
            out.push(u8::from_str_radix(hex, 16).unwrap());
            i += 4;
        } else {
            out.push(b[i]);
            i += 1;
        }
    }
    out
}
