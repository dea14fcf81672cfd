//! The schema syntax: `user:u32dec6, date:dec8, file:u32dec6`.
//!
//! ```text
//! schema := field ("," field)* [","]
//! field  := name ":" type                  name: [A-Za-z_][A-Za-z0-9_]*
//! type   := "dec" W | "u" B "dec" W         decimal, W digits (1-20), value within uB
//!         | "u" B | "i" B                   B = 8, 16, 24, ... 64 bits
//!         | "f32" | "f64" | "revts" | "revtsdec" | "revint" | "jint" | "jlong"
//!         | "str" | "bytes" | "rev" | "revstr" | "word" "/" CHAR
//!         | "str" N [pad] | "bytes" N [pad] N bytes (1-65535)
//!         | "desc" "(" type ")"              a value type, in descending order
//!         | ("md5" | "murmur3") ":" K "(" names ")"   K bytes (1-16)
//!         | ("md5hex" | "murmur3hex") ":" K "(" names ")"   K hex digits (1-32)
//!         | "salt" ":" N ["/dec"] ["(" names ")"]     N buckets
//! pad    := "/" (CHAR | "0x" HEX HEX)        default 0x00
//! names  := name ("," name)*
//! ```
//! Whitespace may stand between any two tokens. Meanings: [`FieldType`]'s variants.

use crate::error::{Error, Result};
use crate::field::{Field, FieldType, HashAlgo, SaltEncoding};

/// Parses the schema syntax into fields (not yet validated as a schema).
pub(crate) fn parse_fields(text: &str) -> Result<Vec<Field>> {
    let mut p = Parser { text, pos: 0 };
    let mut fields = Vec::new();
    loop {
        p.skip_ws();
        if p.at_end() && !fields.is_empty() {
            break;
        }
        let name = p.ident()?;
        p.expect(':')?;
        p.skip_ws();
        let ty = p.field_type()?;
        fields.push(Field::new(name, ty));
        p.skip_ws();
        if p.at_end() {
            break;
        }
        p.expect(',')?;
    }
    Ok(fields)
}

struct Parser<'t> {
    text: &'t str,
    pos: usize,
}

impl Parser<'_> {
    fn rest(&self) -> &str {
        self.text.get(self.pos..).unwrap_or_default()
    }

    fn at_end(&self) -> bool {
        self.rest().is_empty()
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    fn err<T>(&self, message: impl Into<String>) -> Result<T> {
        Err(Error::Syntax {
            pos: self.pos,
            message: message.into(),
        })
    }

    fn skip_ws(&mut self) {
        let rest = self.rest();
        self.pos += rest.len() - rest.trim_start().len();
    }

    fn eat(&mut self, s: &str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    fn expect(&mut self, c: char) -> Result<()> {
        self.skip_ws();
        if self.eat(c.encode_utf8(&mut [0; 4])) {
            Ok(())
        } else {
            match self.peek() {
                Some(got) => self.err(format!("expected `{c}`, found `{got}`")),
                None => self.err(format!("expected `{c}`, found the end")),
            }
        }
    }

    /// A run of characters matching `f`.
    fn run(&mut self, f: impl Fn(char) -> bool) -> &str {
        let start = self.pos;
        let len = self.rest().find(|c| !f(c)).unwrap_or(self.rest().len());
        self.pos += len;
        self.text.get(start..self.pos).unwrap_or_default()
    }

    fn ident(&mut self) -> Result<String> {
        self.skip_ws();
        let at = self.pos;
        let name = self
            .run(|c| c.is_ascii_alphanumeric() || c == '_')
            .to_string();
        if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
            self.pos = at;
            return self.err("expected a field name");
        }
        Ok(name)
    }

    fn number<T: std::str::FromStr>(&mut self, what: &str) -> Result<T> {
        self.skip_ws();
        let at = self.pos;
        let digits = self.run(|c| c.is_ascii_digit()).to_string();
        match digits.parse() {
            Ok(n) => Ok(n),
            Err(_) => {
                self.pos = at;
                self.err(format!("expected {what}"))
            }
        }
    }

    fn names(&mut self) -> Result<Vec<String>> {
        self.expect('(')?;
        let mut names = vec![self.ident()?];
        loop {
            self.skip_ws();
            if self.eat(")") {
                return Ok(names);
            }
            self.expect(',')?;
            names.push(self.ident()?);
        }
    }

    fn pad(&mut self) -> Result<u8> {
        if !self.eat("/") {
            return Ok(0);
        }
        let rest = self.rest();
        if let Some(hex) = rest.strip_prefix("0x").and_then(|h| h.get(..2)) {
            if let Ok(b) = u8::from_str_radix(hex, 16) {
                self.pos += 4;
                return Ok(b);
            }
        }
        match self.peek() {
            Some(c) if c.is_ascii_graphic() && c != ',' => {
                self.pos += 1;
                Ok(c as u8)
            }
            _ => self.err("expected a pad byte: one printable ASCII character or 0xHH"),
        }
    }

    fn field_type(&mut self) -> Result<FieldType> {
        let at = self.pos;
        let word = self.run(|c| c.is_ascii_alphanumeric()).to_string();
        let bad = |p: &Self| -> Result<FieldType> {
            Err(Error::Syntax {
                pos: at,
                message: format!(
                    "unknown type `{}` (decN, uBdecN, u8..u64, i8..i64, f32, f64, revts, revtsdec, revint, jint, jlong, strN, bytesN, str, bytes, rev, revstr, word/C, desc(T), md5:K(..), murmur3:K(..), md5hex:K(..), murmur3hex:K(..), salt:N)",
                    p.text.get(at..p.pos).unwrap_or_default()
                ),
            })
        };
        let int_bytes = |bits: &str| -> Option<u8> {
            let b: u8 = bits.parse().ok()?;
            (b.is_multiple_of(8) && (8..=64).contains(&b)).then_some(b / 8)
        };
        let ty = match word.as_str() {
            "f32" => FieldType::F32,
            "f64" => FieldType::F64,
            "revts" => FieldType::RevTs,
            "revtsdec" => FieldType::RevTsDec,
            "str" if !self.rest().starts_with('/') => FieldType::Str,
            "bytes" if !self.rest().starts_with('/') => FieldType::Bytes,
            "rev" => FieldType::Rev,
            "revint" => FieldType::RevInt,
            "jint" => FieldType::Java { bytes: 4 },
            "jlong" => FieldType::Java { bytes: 8 },
            "revstr" => FieldType::RevStr,
            "word" => {
                if !self.eat("/") {
                    return self
                        .err("word needs its separator: word/_ (one printable ASCII character)");
                }
                match self.peek() {
                    Some(c) if c.is_ascii_graphic() && c != ',' => {
                        self.pos += 1;
                        FieldType::Word { sep: c as u8 }
                    }
                    _ => return self.err("expected a separator: one printable ASCII character"),
                }
            }
            "desc" => {
                self.expect('(')?;
                self.skip_ws();
                let inner = self.field_type()?;
                self.expect(')')?;
                FieldType::Desc(Box::new(inner))
            }
            "md5" | "murmur3" | "md5hex" | "murmur3hex" => {
                let algo = if word.starts_with("md5") {
                    HashAlgo::Md5
                } else {
                    HashAlgo::Murmur3
                };
                let hex = word.ends_with("hex");
                self.expect(':')?;
                let len = self.number(if hex {
                    "a prefix length in hex digits"
                } else {
                    "a prefix length in bytes"
                })?;
                let inputs = self.names()?;
                FieldType::Hash {
                    algo,
                    len,
                    inputs,
                    hex,
                }
            }
            "salt" => {
                self.expect(':')?;
                let buckets = self.number("a number of buckets")?;
                let encoding = if self.eat("/dec") {
                    SaltEncoding::Decimal
                } else {
                    SaltEncoding::Byte
                };
                self.skip_ws();
                let inputs = if self.peek() == Some('(') {
                    self.names()?
                } else {
                    Vec::new()
                };
                FieldType::Salt {
                    buckets,
                    encoding,
                    inputs,
                }
            }
            w => {
                if let Some(width) = w.strip_prefix("dec") {
                    let width = width.parse().or_else(|_| bad(self).map(|_| 0))?;
                    FieldType::Dec { width, bits: 64 }
                } else if let Some((bits, width)) =
                    w.strip_prefix('u').and_then(|r| r.split_once("dec"))
                {
                    let bits = int_bytes(bits).map(|b| b * 8);
                    match (bits, width.parse()) {
                        (Some(bits), Ok(width)) => FieldType::Dec { width, bits },
                        _ => return bad(self),
                    }
                } else if let Some(bytes) = w.strip_prefix('u').and_then(int_bytes) {
                    FieldType::Uint { bytes }
                } else if let Some(bytes) = w.strip_prefix('i').and_then(int_bytes) {
                    FieldType::Int { bytes }
                } else if let Some(width) = w.strip_prefix("str") {
                    let width = width.parse().or_else(|_| bad(self).map(|_| 0))?;
                    FieldType::FixedStr {
                        width,
                        pad: self.pad()?,
                    }
                } else if let Some(width) = w.strip_prefix("bytes") {
                    let width = width.parse().or_else(|_| bad(self).map(|_| 0))?;
                    FieldType::FixedBytes {
                        width,
                        pad: self.pad()?,
                    }
                } else {
                    return bad(self);
                }
            }
        };
        Ok(ty)
    }
}
