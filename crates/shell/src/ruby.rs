//! The Ruby idioms users paste from HBase books, evaluated by the parser: `"row#{i}"`
//! interpolation of a loop variable, `(1..3).each { |i| ... }` / `(1...4).each do |i| ... end` /
//! `3.times { |i| ... }` loops (expanded into one statement per iteration), and
//! `[1024].pack('N')` for binary values. Anything else Ruby would evaluate is a syntax error
//! naming what is not supported — never text stored literally.

use super::syntax::Value;

/// Most statements a loop may expand to; a larger loop is refused rather than held in memory.
pub const MAX_LOOP_STATEMENTS: usize = 1_000_000;

/// Most times the loops of one input may run their bodies (nested loops multiply: 30 nested
/// `2.times` with an empty body would run a billion), so that no input parses for long.
pub const MAX_LOOP_PASSES: usize = 1_000_000;

/// The deepest nesting of loops (`(a..b).each`, `n.times`) a statement may have; the loop
/// parser is recursive, and the limit keeps a crafted input from exhausting its stack. Books
/// nest two or three.
pub const MAX_LOOP_NESTING: usize = 64;

/// One piece of a double-quoted string with `#{...}`.
#[derive(Debug, Clone, PartialEq)]
pub enum Part {
    /// Literal bytes.
    Lit(Vec<u8>),
    /// `#{name}`: a loop variable's value.
    Var(String),
}

/// Ruby's `NameError` text for a name that is not a bound loop variable.
pub fn undefined(name: &str) -> String {
    format!("undefined local variable or method `{name}' for main:Object (only loop variables of (a..b).each and n.times, and table references, are supported)")
}

/// Evaluates an interpolated string with the loop variables in `bindings` (innermost last).
pub fn interpolate(parts: &[Part], bindings: &[(String, i64)]) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    for p in parts {
        match p {
            Part::Lit(b) => out.extend_from_slice(b),
            Part::Var(name) => {
                let v = lookup(name, bindings).ok_or_else(|| undefined(name))?;
                out.extend_from_slice(v.to_string().as_bytes());
            }
        }
    }
    Ok(out)
}

/// The value of loop variable `name`.
pub fn lookup(name: &str, bindings: &[(String, i64)]) -> Option<i64> {
    bindings
        .iter()
        .rev()
        .find(|(n, _)| n == name)
        .map(|(_, v)| *v)
}

/// Ruby's `Array#pack` for the integer directives the HBase books use: `C`/`c` (8-bit), `n`
/// (16-bit big-endian), `N` (32-bit big-endian), `s>`/`S>`/`l>`/`L>`/`q>`/`Q>` (16/32/64-bit
/// big-endian), each optionally followed by a count or `*`.
pub fn pack(items: &[Value], template: &str) -> Result<Vec<u8>, String> {
    let mut out = Vec::new();
    let mut next = items.iter();
    let t = template.as_bytes();
    let mut i = 0;
    while i < t.len() {
        let d = t[i];
        i += 1;
        if d == b' ' {
            continue;
        }
        let big = t.get(i) == Some(&b'>');
        if big {
            i += 1;
        }
        let width = match (d, big) {
            (b'C' | b'c', _) => 1,
            (b'n', false) | (b's' | b'S', true) => 2,
            (b'N', false) | (b'l' | b'L', true) => 4,
            (b'q' | b'Q', true) => 8,
            _ => {
                return Err(format!(
                    "pack directive {:?} is not supported (C c n N s> l> q> and their counts are)",
                    String::from_utf8_lossy(&t[i - 1 - usize::from(big)..i])
                ))
            }
        };
        let count = if t.get(i) == Some(&b'*') {
            i += 1;
            usize::MAX
        } else {
            let from = i;
            while i < t.len() && t[i].is_ascii_digit() {
                i += 1;
            }
            std::str::from_utf8(&t[from..i])
                .ok()
                .and_then(|s| s.parse().ok())
                .unwrap_or(1)
        };
        for _ in 0..count {
            let Some(v) = next.next() else {
                if count == usize::MAX {
                    break;
                }
                return Err("too few arguments for pack".into());
            };
            let Value::Int(n) = v else {
                return Err(format!("pack needs integers, got {}", v.kind()));
            };
            out.extend_from_slice(&n.to_be_bytes()[8 - width..]);
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pack_writes_big_endian_integers_like_ruby() {
        assert_eq!(pack(&[Value::Int(1024)], "N").unwrap(), [0, 0, 4, 0]);
        assert_eq!(
            pack(&[Value::Int(1)], "Q>").unwrap(),
            [0, 0, 0, 0, 0, 0, 0, 1]
        );
        assert_eq!(
            pack(&[Value::Int(1), Value::Int(2)], "n*").unwrap(),
            [0, 1, 0, 2]
        );
        assert_eq!(pack(&[Value::Int(-1)], "c").unwrap(), [255]);
        assert!(pack(&[Value::Int(1)], "w").is_err());
        assert!(pack(&[Value::Str(b"x".to_vec())], "N").is_err());
        assert!(pack(&[], "N").is_err());
    }

    #[test]
    fn interpolation_uses_the_innermost_binding() {
        let parts = [Part::Lit(b"row".to_vec()), Part::Var("i".into())];
        let b = [("i".to_string(), 1), ("i".to_string(), 7)];
        assert_eq!(interpolate(&parts, &b).unwrap(), b"row7");
        assert!(interpolate(&parts, &[])
            .unwrap_err()
            .contains("undefined local variable"));
    }
}
