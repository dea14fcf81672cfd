//! The filter language (HBase's `ParseFilter`): `Name (args)`, single-quoted strings with `''`
//! as the escape, integers, `true`/`false`, compare operators, `AND`/`OR` (binary), `SKIP` and
//! `WHILE` (unary), and parentheses. Precedence: parentheses, then SKIP/WHILE, then AND, then
//! OR; a chain of one operator becomes one FilterList.
//!
//! Extensions (not in HBase's language): `FuzzyRowFilter('key', 'mask', ...)` with masks of
//! `0` (fixed) and `1` (any) characters or raw 0/1 bytes; `MultiRowRangeFilter('start',
//! startInclusive, 'stop', stopInclusive, ...)`; `RandomRowFilter(chance)`.

#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::*;

mod arguments;
mod lexer;

use arguments::build;
use lexer::{describe, lex, Tok};

/// A malformed filter string: where, and what was expected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError {
    /// Byte offset in the filter string.
    pub position: usize,
    /// What went wrong.
    pub message: String,
}

impl std::fmt::Display for ParseError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "filter string error at position {}: {}",
            self.position, self.message
        )
    }
}

impl std::error::Error for ParseError {}

impl From<ParseError> for crate::Error {
    fn from(e: ParseError) -> Self {
        crate::Error::IllegalArgument(e.to_string())
    }
}

fn err(position: usize, message: impl Into<String>) -> ParseError {
    ParseError {
        position,
        message: message.into(),
    }
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    end: usize,
}

#[derive(Debug, Clone)]
enum Arg {
    Str(Vec<u8>),
    Num(String),
    Bool(bool),
    Op(CompareOp),
}

/// The deepest filter tree the language builds: FilterLists (`AND`/`OR` chains), `SKIP` and
/// `WHILE` each add a level, parentheses alone do not. Evaluating a filter recurses once per
/// level, so the limit keeps any filter string from exhausting a connection thread's stack.
/// Apache HBase has no such limit and fails a request nested a few thousand lists deep with a
/// stack overflow; redundant parentheses (`((((PrefixFilter('r')))))`) nest without limit here,
/// as there.
pub const MAX_FILTER_DEPTH: usize = 100;

/// A filter being built and the depth of its tree (a single filter is depth 1).
struct Built {
    filter: Box<dyn Filter>,
    depth: usize,
}

/// A unary prefix waiting for its operand.
#[derive(Clone, Copy)]
enum Unary {
    Skip,
    While,
}

/// One level of parentheses (the outermost frame is the whole string): the operands of its
/// `OR` chain so far, of the `AND` chain being built, and the `SKIP`/`WHILE` prefixes waiting
/// for the next operand.
struct Frame {
    open_at: usize,
    ors: Vec<Built>,
    ands: Vec<Built>,
    prefixes: Vec<(usize, Unary)>,
}

impl Frame {
    fn new(open_at: usize) -> Frame {
        Frame {
            open_at,
            ors: Vec::new(),
            ands: Vec::new(),
            prefixes: Vec::new(),
        }
    }
}

fn too_deep(position: usize) -> ParseError {
    err(
        position,
        format!(
            "filter nested more than {MAX_FILTER_DEPTH} levels deep (each AND/OR list, SKIP and \
             WHILE is a level)"
        ),
    )
}

/// Joins a chain of one operator into one FilterList (a chain of one is the filter itself).
fn join(mut items: Vec<Built>, op: ListOperator, at: usize) -> Result<Built, ParseError> {
    if items.len() == 1 {
        return Ok(items.pop().expect("one item"));
    }
    let depth = 1 + items.iter().map(|b| b.depth).max().unwrap_or(0);
    if depth > MAX_FILTER_DEPTH {
        return Err(too_deep(at));
    }
    let filters = items.into_iter().map(|b| b.filter).collect();
    Ok(Built {
        filter: Box::new(FilterList::new(op, filters)),
        depth,
    })
}

impl Frame {
    /// An operand is complete: wrap it in the waiting prefixes and add it to the AND chain.
    fn operand(&mut self, mut b: Built) -> Result<(), ParseError> {
        while let Some((at, u)) = self.prefixes.pop() {
            b.depth += 1;
            if b.depth > MAX_FILTER_DEPTH {
                return Err(too_deep(at));
            }
            b.filter = match u {
                Unary::Skip => Box::new(SkipFilter::new(b.filter)),
                Unary::While => Box::new(WhileMatchFilter::new(b.filter)),
            };
        }
        self.ands.push(b);
        Ok(())
    }

    /// `OR` (or the end of the frame): the AND chain becomes one operand of the OR chain.
    fn end_and_chain(&mut self, at: usize) -> Result<(), ParseError> {
        let ands = std::mem::take(&mut self.ands);
        self.ors.push(join(ands, ListOperator::MustPassAll, at)?);
        Ok(())
    }

    fn finish(mut self, at: usize) -> Result<Built, ParseError> {
        self.end_and_chain(at)?;
        join(self.ors, ListOperator::MustPassOne, at)
    }
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }

    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(p, _)| *p)
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    /// The whole expression, without recursion: an explicit stack of parenthesis frames
    /// (HBase's `ParseFilter` also parses with stacks), so nesting is bounded by memory for
    /// the tokens, never by the thread's stack.
    fn expression(&mut self) -> Result<Box<dyn Filter>, ParseError> {
        let mut frames = vec![Frame::new(0)];
        loop {
            // An operand: prefixes, then '(' or a filter call.
            loop {
                let frame = frames.last_mut().expect("a frame");
                let at = self.here();
                if self.is_word("SKIP") {
                    frame.prefixes.push((at, Unary::Skip));
                    self.pos += 1;
                } else if self.is_word("WHILE") {
                    frame.prefixes.push((at, Unary::While));
                    self.pos += 1;
                } else if self.peek() == Some(&Tok::LParen) {
                    self.pos += 1;
                    frames.push(Frame::new(at));
                } else {
                    let f = self.call()?;
                    frame.operand(Built {
                        filter: f,
                        depth: 1,
                    })?;
                    break;
                }
            }
            // After an operand: AND, OR, ')' closing frames, or the end.
            loop {
                let at = self.here();
                if self.is_word("AND") {
                    self.pos += 1;
                    break;
                }
                if self.is_word("OR") {
                    self.pos += 1;
                    frames.last_mut().expect("a frame").end_and_chain(at)?;
                    break;
                }
                let inner = frames.len() > 1;
                match self.peek() {
                    Some(Tok::RParen) if inner => {
                        self.pos += 1;
                        let done = frames.pop().expect("an inner frame").finish(at)?;
                        frames.last_mut().expect("a frame").operand(done)?;
                    }
                    None if !inner => {
                        let root = frames.pop().expect("the root frame");
                        return Ok(root.finish(at)?.filter);
                    }
                    Some(t) if inner => {
                        return Err(err(at, format!("expected ')', found {}", describe(t))))
                    }
                    None => {
                        let open = frames.last().map_or(0, |f| f.open_at);
                        return Err(err(
                            self.end,
                            format!(
                                "expected ')' to close the '(' at position {open}, found the end \
                                 of the string"
                            ),
                        ));
                    }
                    Some(t) => {
                        return Err(err(
                            at,
                            format!(
                                "expected AND, OR or the end of the string, found {}",
                                describe(t)
                            ),
                        ))
                    }
                }
            }
        }
    }

    fn expect(&mut self, want: Tok, what: &str) -> Result<(), ParseError> {
        match self.peek() {
            Some(t) if *t == want => {
                self.pos += 1;
                Ok(())
            }
            Some(t) => Err(err(
                self.here(),
                format!("expected {what}, found {}", describe(t)),
            )),
            None => Err(err(
                self.end,
                format!("expected {what}, found the end of the string"),
            )),
        }
    }

    /// A filter call: `Name(arg, ...)`.
    fn call(&mut self) -> Result<Box<dyn Filter>, ParseError> {
        match self.peek().cloned() {
            Some(Tok::Word(name)) if !matches!(name.as_str(), "AND" | "OR" | "SKIP" | "WHILE") => {
                let at = self.here();
                self.pos += 1;
                self.expect(Tok::LParen, &format!("'(' after {name}"))?;
                let mut args = Vec::new();
                if self.peek() != Some(&Tok::RParen) {
                    loop {
                        let arg_at = self.here();
                        let arg = match self.peek().cloned() {
                            Some(Tok::Str(s)) => Arg::Str(s),
                            Some(Tok::Num(n)) => Arg::Num(n),
                            Some(Tok::Op(o)) => Arg::Op(o),
                            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("true") => Arg::Bool(true),
                            Some(Tok::Word(w)) if w.eq_ignore_ascii_case("false") => {
                                Arg::Bool(false)
                            }
                            Some(t) => {
                                return Err(err(
                                    arg_at,
                                    format!(
                                        "expected an argument of {name}, found {}",
                                        describe(&t)
                                    ),
                                ))
                            }
                            None => {
                                return Err(err(
                                    self.end,
                                    format!(
                                    "expected an argument of {name}, found the end of the string"
                                ),
                                ))
                            }
                        };
                        self.pos += 1;
                        args.push((arg_at, arg));
                        match self.peek() {
                            Some(Tok::Comma) => self.pos += 1,
                            _ => break,
                        }
                    }
                }
                self.expect(
                    Tok::RParen,
                    &format!("',' or ')' in the arguments of {name}"),
                )?;
                build(&name, at, args)
            }
            Some(t) => Err(err(
                self.here(),
                format!("expected a filter name or '(', found {}", describe(&t)),
            )),
            None => Err(err(
                self.end,
                "expected a filter name or '(', found the end of the string",
            )),
        }
    }
}

/// Parses a filter string into a filter.
pub fn parse_filter(s: &[u8]) -> Result<Box<dyn Filter>, ParseError> {
    let toks = lex(s)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: s.len(),
    };
    p.expression()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_the_happybase_and_seed_filters() {
        for s in [
            "SingleColumnValueFilter ('cf1', 'qual1', =, 'binary:val1')",
            "PrefixFilter('row') AND (QualifierFilter(>=, 'binary:a') OR ValueFilter(=, 'substring:x'))",
            "SKIP ValueFilter(!=, 'binary:0') AND WHILE RowFilter(<, 'binaryprefix:zz')",
            "ColumnPaginationFilter(10, 'col5') AND ColumnPaginationFilter(3, 2) AND PageFilter(5)",
            "SingleColumnValueFilter('f', 'name', =, 'regexstring:^中国好声音', true, true)",
            "FuzzyRowFilter('????_201209', '11110000000') OR MultiRowRangeFilter('a', true, 'b', false)",
            "TimestampsFilter(1, 2, 3) AND KeyOnlyFilter() AND FirstKeyOnlyFilter() AND RandomRowFilter(0.5)",
            "DependentColumnFilter('f', 'q', true, =, 'binary:x') AND ColumnRangeFilter('a', true, 'c', false)",
            "ColumnValueFilter('f','q',>,'binary:5') AND InclusiveStopFilter('r9') AND ColumnCountGetFilter(2)",
            "MultipleColumnPrefixFilter('a', 'b') AND ColumnPrefixFilter('x') AND FamilyFilter(=, 'binary:f')",
            "SingleColumnValueExcludeFilter('f', 'it''s', =, 'binary:v')",
        ] {
            parse_filter(s.as_bytes()).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
    }

    #[test]
    fn errors_name_the_position_and_what_was_expected() {
        let cases: [(&str, usize, &str); 7] = [
            ("PrefixFilter('abc'", 18, "',' or ')'"),
            ("PrefixFilter('abc) AND", 13, "unterminated"),
            ("NoSuchFilter('x')", 0, "unknown filter"),
            ("PrefixFilter('a') AND", 21, "filter name"),
            ("PrefixFilter('a') XOR PrefixFilter('b')", 18, "AND, OR"),
            ("ValueFilter('binary:a', =)", 12, "compare operator"),
            ("PrefixFilter('a', 'b')", 18, "takes 1"),
        ];
        for (s, pos, needle) in cases {
            let e = parse_filter(s.as_bytes()).map(|_| ()).unwrap_err();
            assert_eq!(e.position, pos, "{s}: {e}");
            assert!(e.message.contains(needle), "{s}: {e}");
        }
    }

    /// `depth` nested levels of `A AND (A AND (... A))`.
    fn nested_ands(depth: usize) -> String {
        let mut s = String::new();
        for _ in 1..depth {
            s.push_str("(PrefixFilter('r') AND ");
        }
        s.push_str("PrefixFilter('r')");
        s.push_str(&")".repeat(depth - 1));
        s
    }

    #[test]
    fn redundant_parentheses_nest_without_limit() {
        let s = format!(
            "{}PrefixFilter('r'){}",
            "(".repeat(100_000),
            ")".repeat(100_000)
        );
        parse_filter(s.as_bytes()).unwrap();
        let unclosed = format!("{}PrefixFilter('r')", "(".repeat(100_000));
        let e = parse_filter(unclosed.as_bytes()).map(|_| ()).unwrap_err();
        assert!(e.message.contains("expected ')'"), "{e}");
    }

    #[test]
    fn filter_lists_nest_up_to_the_limit_and_no_further() {
        // Each `(A AND ...)` level is one FilterList; the innermost filter is the last level.
        parse_filter(nested_ands(MAX_FILTER_DEPTH).as_bytes()).unwrap();
        for depth in [MAX_FILTER_DEPTH + 1, 3_000, 100_000] {
            let e = parse_filter(nested_ands(depth).as_bytes())
                .map(|_| ())
                .unwrap_err();
            assert!(e.message.contains("nested more than 100 levels"), "{e}");
        }
        let skips = format!("{}PrefixFilter('r')", "SKIP WHILE ".repeat(50_000));
        let e = parse_filter(skips.as_bytes()).map(|_| ()).unwrap_err();
        assert!(e.message.contains("nested more than 100 levels"), "{e}");
        // Long flat chains are one list, however long.
        let flat = vec!["PrefixFilter('r')"; 10_000].join(" OR ");
        parse_filter(flat.as_bytes()).unwrap();
    }

    #[test]
    fn substring_and_regex_comparators_take_only_equal_and_not_equal() {
        for s in [
            "ValueFilter(<=, 'substring:4')",
            "SingleColumnValueFilter('cf', 'a', >, 'regexstring:^v')",
            "RowFilter(<, 'regexstring:.')",
            "ColumnValueFilter('f', 'q', >=, 'substring:x')",
            "DependentColumnFilter('f', 'q', true, <, 'substring:x')",
        ] {
            let e = parse_filter(s.as_bytes()).map(|_| ()).unwrap_err();
            assert!(
                e.message
                    .contains("can only be used with EQUAL and NOT_EQUAL"),
                "{s}: {e}"
            );
        }
        for s in [
            "ValueFilter(=, 'substring:4')",
            "ValueFilter(!=, 'regexstring:4')",
            "ValueFilter(<=, 'binary:4')",
        ] {
            parse_filter(s.as_bytes()).unwrap_or_else(|e| panic!("{s}: {e}"));
        }
    }

    #[test]
    fn random_bytes_never_panic() {
        let pieces: [&[u8]; 14] = [
            b"(",
            b")",
            b",",
            b"'a'",
            b"''",
            b"AND ",
            b"OR ",
            b"SKIP ",
            b"WHILE ",
            b"PrefixFilter",
            b"=",
            b"12",
            b"true",
            b"\xff",
        ];
        let mut rng = ferrobase_testkit::Rng::from_state(1);
        for _ in 0..20_000 {
            let mut s = Vec::new();
            let seed = rng.next_u64();
            let n = (seed % 12) as usize;
            let mut x = seed;
            for _ in 0..n {
                s.extend_from_slice(pieces[(x % pieces.len() as u64) as usize]);
                x /= 7;
            }
            let _ = parse_filter(&s);
        }
    }
}
