//! Whether multi-line input is still open, decided line by line in linear time: the shell
//! collects lines while a bracket, brace, parenthesis, string or loop body (`do ... end`,
//! `{ |v| ... }`) is open, as irb does, and parses the statement once it closes — instead of
//! parsing everything pending after every line, which made a statement of N lines cost N²
//! (issue 39).

use super::ruby;
use super::syntax::{self, Tok};

/// The deepest a statement's open constructs can legitimately nest: loop bodies, one
/// statement's parentheses, then arrays and hashes. Past it the parser is sure to refuse the
/// statement, so it is parsed at once (and the error shown) rather than collected further.
pub const MAX_OPEN: i64 = (ruby::MAX_LOOP_NESTING + 1 + syntax::MAX_NESTING) as i64;

/// The open constructs of the lines fed so far. Each line is lexed once (a string spanning
/// lines is lexed again with the lines it spans).
#[derive(Debug, Default, Clone)]
pub struct Continuation {
    /// Openers minus closers over the lines lexed so far.
    depth: i64,
    /// Lines inside a string that is not closed yet, lexed together once it may be closed.
    carry: String,
    /// The quote of the string open in `carry`, and whether the text so far ends in an escaping
    /// backslash: new text is only scanned for that quote, so a string of N lines is lexed
    /// once, not once per line.
    quote: Option<(u8, bool)>,
    /// A line did not lex (not for want of more input): the parser reports it.
    bad: bool,
}

impl Continuation {
    /// Adds `text` (one or more whole lines, newlines included or not).
    pub fn push(&mut self, text: &str) {
        self.carry.push_str(text);
        if let Some((quote, escaped)) = &mut self.quote {
            let mut closes = false;
            for &b in text.as_bytes() {
                if *escaped {
                    *escaped = false;
                } else if b == b'\\' {
                    *escaped = true;
                } else if b == *quote {
                    closes = true;
                }
            }
            if !closes {
                return;
            }
            self.quote = None;
        }
        match syntax::lex(&self.carry) {
            Ok(toks) => {
                for (_, t) in toks {
                    self.depth += match t {
                        Tok::LParen | Tok::LBracket | Tok::LBrace => 1,
                        Tok::RParen | Tok::RBracket | Tok::RBrace => -1,
                        Tok::Ident(w) if w == "do" => 1,
                        Tok::Ident(w) if w == "end" => -1,
                        _ => 0,
                    };
                }
                self.carry.clear();
            }
            // An unterminated string (the error's offset is its opening quote): the next
            // lines continue it.
            Err(e) if e.incomplete => {
                let quote = self
                    .carry
                    .as_bytes()
                    .get(e.offset)
                    .copied()
                    .unwrap_or(b'\'');
                self.quote = Some((quote, false));
            }
            Err(_) => {
                self.bad = true;
                self.carry.clear();
            }
        }
    }

    /// True while more lines are needed before parsing is worth it: something is open and
    /// not yet so deep that the parser would refuse it anyway. False means: parse now (the
    /// parser may still ask for more, as after a trailing comma).
    pub fn open(&self) -> bool {
        !self.bad && (!self.carry.is_empty() || (self.depth > 0 && self.depth <= MAX_OPEN))
    }

    /// Openers minus closers so far (negative after a stray closer).
    pub fn depth(&self) -> i64 {
        self.depth
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fed(lines: &[&str]) -> Continuation {
        let mut c = Continuation::default();
        for l in lines {
            c.push(l);
            c.push("\n");
        }
        c
    }

    #[test]
    fn brackets_blocks_and_strings_stay_open_until_closed() {
        assert!(!fed(&["list"]).open());
        assert!(fed(&["scan 't', {COLUMNS => ["]).open());
        assert!(!fed(&["scan 't', {COLUMNS => [", "'f:q'", "]}"]).open());
        assert!(fed(&["(1..3).each do |i|", "put 't', \"r#{i}\", 'f:q', 'v'"]).open());
        assert!(!fed(&["(1..3).each do |i|", "  put 't', 'r', 'f:q', 'v'", "end"]).open());
        assert!(fed(&["2.times { |i|"]).open());
        assert!(
            fed(&["put 't', 'r', 'f:q', 'a", "b"]).open(),
            "a string spans lines"
        );
        assert!(!fed(&["put 't', 'r', 'f:q', 'a", "b'"]).open());
        assert!(
            fed(&["put 't', 'r', 'f:q', 'a", "\\'", "{"]).open(),
            "an escaped quote"
        );
        assert!(!fed(&["put 't', 'r', 'f:q', \"a", "#{i}\" # \"", "x"]).open());
        assert!(
            fed(&["put 't', 'r', 'f:q', \"a", "'(", "["]).open(),
            "the other quote"
        );
        assert!(!fed(&["put 't', 'r', 'f:q', 'v' # a comment {"]).open());
        assert!(
            !fed(&["}"]).open(),
            "a stray closer is the parser's to report"
        );
        assert!(
            !fed(&["put 't', 'r', 'f:q', \"\\q\""]).open(),
            "a bad escape"
        );
    }

    #[test]
    fn nesting_past_what_the_parser_accepts_is_handed_to_it_at_once() {
        let deep = "[".repeat(MAX_OPEN as usize);
        assert!(fed(&[&deep]).open());
        let deeper = "[".repeat(MAX_OPEN as usize + 1);
        assert!(!fed(&[&deeper]).open());
        let e = syntax::parse(&format!("scan 't', {deeper}")).unwrap_err();
        assert!(!e.incomplete, "{e}");
    }
}
