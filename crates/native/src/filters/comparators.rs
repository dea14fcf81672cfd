//! `RegexStringComparator` into the engine's regex comparator: Java's flags as inline flags.

use super::*;

/// `java.util.regex.Pattern` flags.
pub(super) mod pattern_flags {
    pub const UNIX_LINES: i32 = 0x01;
    pub const CASE_INSENSITIVE: i32 = 0x02;
    pub const COMMENTS: i32 = 0x04;
    pub const MULTILINE: i32 = 0x08;
    pub const LITERAL: i32 = 0x10;
    pub const DOTALL: i32 = 0x20;
    pub const UNICODE_CASE: i32 = 0x40;
    pub const CANON_EQ: i32 = 0x80;
    pub const UNICODE_CHARACTER_CLASS: i32 = 0x100;
}

/// A `RegexStringComparator`: the pattern with its Java flags as inline flags of the engine's
/// regex. Java syntax the engine's regex lacks (backreferences, look-around, possessive
/// quantifiers) fails to compile and is refused. Values are matched as UTF-8 text, so only the
/// UTF-8 and US-ASCII charsets (whose decoding of bytes agrees) are accepted.
pub(super) fn regex_comparator(
    what: &str,
    m: pc::RegexStringComparator,
) -> Result<Comparator, FilterError> {
    use pattern_flags::*;
    let pattern = required(what, "pattern", m.pattern)?;
    let flags = required(what, "pattern_flags", m.pattern_flags)?;
    let charset = required(what, "charset", m.charset)?;
    if let Some(engine) = m.engine.as_deref() {
        if engine != "JAVA" && engine != "JONI" {
            return Err(FilterError(format!(
                "{what}: unknown regex engine {engine:?} (expected JAVA or JONI)"
            )));
        }
    }
    // Empty: HBase keeps its default, UTF-8.
    if !matches!(
        charset.to_ascii_uppercase().as_str(),
        "" | "UTF-8" | "UTF8" | "US-ASCII" | "ASCII"
    ) {
        return Err(FilterError(format!(
            "{what}: charset {charset:?} is not supported by ferrobase (values are matched as \
             UTF-8)"
        )));
    }
    let known = UNIX_LINES
        | CASE_INSENSITIVE
        | COMMENTS
        | MULTILINE
        | LITERAL
        | DOTALL
        | UNICODE_CASE
        | CANON_EQ
        | UNICODE_CHARACTER_CLASS;
    if flags & !known != 0 {
        return Err(FilterError(format!(
            "{what}: unknown pattern flags {:#x}",
            flags & !known
        )));
    }
    if flags & CANON_EQ != 0 {
        return Err(FilterError(format!(
            "{what}: the CANON_EQ pattern flag is not supported by ferrobase"
        )));
    }
    let literal = flags & LITERAL != 0;
    let mut inline = String::new();
    if flags & CASE_INSENSITIVE != 0 {
        inline.push('i');
    }
    // With LITERAL, Java ignores every flag but the case ones.
    if !literal {
        for (flag, c) in [(MULTILINE, 'm'), (DOTALL, 's'), (COMMENTS, 'x')] {
            if flags & flag != 0 {
                inline.push(c);
            }
        }
    }
    let mut text = String::from("regexstring:");
    if !inline.is_empty() {
        text.push_str(&format!("(?{inline})"));
    }
    if literal {
        for c in pattern.chars() {
            text.push_str(&format!("\\x{{{:X}}}", u32::from(c)));
        }
    } else {
        text.push_str(&pattern);
    }
    Comparator::parse(text.as_bytes()).map_err(|e| {
        FilterError(format!(
            "{what}: pattern {pattern:?} is not supported by ferrobase's regex engine: {e}"
        ))
    })
}
