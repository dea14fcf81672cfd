//! Bytes as printable text, HBase's `Bytes.toStringBinary` style.

/// `bytes` with printable ASCII and UTF-8 text kept and every other byte as `\xNN`.
pub fn escape(bytes: &[u8]) -> String {
    let mut out = String::new();
    for chunk in bytes.utf8_chunks() {
        for c in chunk.valid().chars() {
            if c == '\\' {
                out.push_str("\\\\");
            } else if c.is_control() {
                for b in c.to_string().bytes() {
                    out.push_str(&format!("\\x{b:02X}"));
                }
            } else {
                out.push(c);
            }
        }
        for b in chunk.invalid() {
            out.push_str(&format!("\\x{b:02X}"));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn text_stays_and_binary_is_escaped() {
        assert_eq!(escape("中国 a".as_bytes()), "中国 a");
        assert_eq!(escape(b"a\x00\xff\\"), "a\\x00\\xFF\\\\");
    }
}
