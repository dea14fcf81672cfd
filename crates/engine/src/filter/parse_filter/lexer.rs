//! The filter language's lexer: quoted strings (`''` the escape), numbers, compare operators,
//! words and punctuation, each token with its byte offset.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::*;

/// A token of the filter language.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    LParen,
    RParen,
    Comma,
    Str(Vec<u8>),
    Num(String),
    Op(CompareOp),
    Word(String),
}

/// How a token is named in an error message.
pub(super) fn describe(t: &Tok) -> String {
    match t {
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Comma => "','".into(),
        Tok::Str(_) => "a quoted string".into(),
        Tok::Num(n) => format!("number {n}"),
        Tok::Op(_) => "a compare operator".into(),
        Tok::Word(w) => format!("{w:?}"),
    }
}

/// The tokens of `s`, each with its byte offset.
pub(super) fn lex(s: &[u8]) -> Result<Vec<(usize, Tok)>, ParseError> {
    let mut out = Vec::new();
    let mut i = 0;
    while let Some(&c) = s.get(i) {
        let start = i;
        match c {
            b' ' | b'\t' | b'\n' | b'\r' => {
                i += 1;
                continue;
            }
            b'(' => {
                out.push((i, Tok::LParen));
                i += 1;
            }
            b')' => {
                out.push((i, Tok::RParen));
                i += 1;
            }
            b',' => {
                out.push((i, Tok::Comma));
                i += 1;
            }
            b'\'' => {
                let mut v = Vec::new();
                i += 1;
                loop {
                    match s.get(i) {
                        None => return Err(err(start, "unterminated quoted string")),
                        Some(b'\'') if s.get(i + 1) == Some(&b'\'') => {
                            v.push(b'\'');
                            i += 2;
                        }
                        Some(b'\'') => {
                            i += 1;
                            break;
                        }
                        Some(&b) => {
                            v.push(b);
                            i += 1;
                        }
                    }
                }
                out.push((start, Tok::Str(v)));
            }
            b'<' | b'>' | b'=' | b'!' => {
                let two = s.get(i + 1) == Some(&b'=');
                let op = match (c, two) {
                    (b'<', true) => "<=",
                    (b'<', false) => "<",
                    (b'>', true) => ">=",
                    (b'>', false) => ">",
                    (b'=', _) => "=",
                    (b'!', true) => "!=",
                    _ => return Err(err(i, "'!' must be followed by '='")),
                };
                i += if two && c != b'=' { 2 } else { 1 };
                out.push((
                    start,
                    Tok::Op(CompareOp::parse(op).map_err(|_| err(start, "bad operator"))?),
                ));
            }
            b'-' | b'0'..=b'9' | b'.' => {
                i += 1;
                while s.get(i).is_some_and(|&c| c.is_ascii_digit() || c == b'.') {
                    i += 1;
                }
                out.push((
                    start,
                    Tok::Num(
                        String::from_utf8_lossy(s.get(start..i).unwrap_or_default()).into_owned(),
                    ),
                ));
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                i += 1;
                while s
                    .get(i)
                    .is_some_and(|&c| c.is_ascii_alphanumeric() || c == b'_')
                {
                    i += 1;
                }
                out.push((
                    start,
                    Tok::Word(
                        String::from_utf8_lossy(s.get(start..i).unwrap_or_default()).into_owned(),
                    ),
                ));
            }
            _ => return Err(err(i, format!("unexpected character {:?}", c as char))),
        }
    }
    Ok(out)
}
