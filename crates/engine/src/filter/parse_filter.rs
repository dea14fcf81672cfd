//! The filter language (HBase's `ParseFilter`): `Name (args)`, single-quoted strings with `''`
//! as the escape, integers, `true`/`false`, compare operators, `AND`/`OR` (binary), `SKIP` and
//! `WHILE` (unary), and parentheses. Precedence: parentheses, then SKIP/WHILE, then AND, then
//! OR; a chain of one operator becomes one FilterList. The operators are parsed by HBase's
//! own algorithm (two stacks, [`Parser::expression`]), so the strings it refuses are refused
//! here and those it accepts, oddly, are accepted alike.
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

/// An entry of the operator stack: HBase's `ParseFilter` keeps `(` on it beside the operators.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Op {
    LParen,
    Or,
    And,
    Skip,
    While,
}

impl Op {
    /// HBase's `operatorPrecedenceHashMap`: a lower number binds tighter.
    fn precedence(self) -> u8 {
        match self {
            Op::Skip | Op::While => 1,
            Op::And => 2,
            Op::Or => 3,
            Op::LParen => u8::MAX,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Op::LParen => "(",
            Op::Or => "OR",
            Op::And => "AND",
            Op::Skip => "SKIP",
            Op::While => "WHILE",
        }
    }
}

/// The operator a word at byte `at` of `s` is, by HBase's `checkForOr`/`checkForAnd`/
/// `checkForSkip`/`checkForWhile`: `OR` and `AND` only after a space or `)` (never first),
/// `SKIP` and `WHILE` first or after a space, `(` or `)`; all four only before a space or `(`
/// (never last). Elsewhere the word is read as a filter name, as HBase reads it.
fn keyword(word: &str, at: usize, s: &[u8]) -> Option<Op> {
    let op = match word {
        "OR" => Op::Or,
        "AND" => Op::And,
        "SKIP" => Op::Skip,
        "WHILE" => Op::While,
        _ => return None,
    };
    let before = at.checked_sub(1).and_then(|i| s.get(i)).copied();
    let before_ok = matches!(
        (op, before),
        (Op::Or | Op::And, Some(b' ' | b')'))
            | (Op::Skip | Op::While, None | Some(b' ' | b')' | b'('))
    );
    let after_ok = matches!(s.get(at + word.len()), Some(b' ' | b'('));
    (before_ok && after_ok).then_some(op)
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

/// HBase's `popArguments`: builds the filter of the operator on top of the stack from the
/// filters on top of theirs. A run of one binary operator becomes one FilterList of its
/// operands; `SKIP` and `WHILE` wrap one filter; a `(` gives back the filter above it.
fn pop_arguments(
    ops: &mut Vec<(usize, Op)>,
    filters: &mut Vec<Built>,
    end: usize,
) -> Result<Built, ParseError> {
    let Some(&(at, top)) = ops.last() else {
        return Err(err(end, "Incorrect arguments on operatorStack"));
    };
    let missing = |what: &str| err(at, format!("Incorrect input string - {what}"));
    match top {
        Op::Or | Op::And => {
            let mut items = Vec::new();
            while ops.last().is_some_and(|(_, o)| *o == top) {
                let needs = format!("an {} needs two filters", top.name());
                items.push(filters.pop().ok_or_else(|| missing(&needs))?);
                ops.pop();
            }
            let needs = format!("an {} needs two filters", top.name());
            items.push(filters.pop().ok_or_else(|| missing(&needs))?);
            items.reverse();
            let depth = 1 + items.iter().map(|b| b.depth).max().unwrap_or(0);
            if depth > MAX_FILTER_DEPTH {
                return Err(too_deep(at));
            }
            let op = if top == Op::Or {
                ListOperator::MustPassOne
            } else {
                ListOperator::MustPassAll
            };
            let filters = items.into_iter().map(|b| b.filter).collect();
            Ok(Built {
                filter: Box::new(FilterList::new(op, filters)),
                depth,
            })
        }
        Op::Skip | Op::While => {
            let needs = format!("a {} wraps a filter", top.name());
            let mut b = filters.pop().ok_or_else(|| missing(&needs))?;
            ops.pop();
            b.depth += 1;
            if b.depth > MAX_FILTER_DEPTH {
                return Err(too_deep(at));
            }
            b.filter = if top == Op::Skip {
                Box::new(SkipFilter::new(b.filter))
            } else {
                Box::new(WhileMatchFilter::new(b.filter))
            };
            Ok(b)
        }
        Op::LParen => {
            let b = filters
                .pop()
                .ok_or_else(|| err(at, "Incorrect Filter String"))?;
            ops.pop();
            Ok(b)
        }
    }
}

/// HBase's `reduce`: before `op` is pushed, the operators above the innermost `(` that bind
/// tighter than it are applied.
fn reduce(
    ops: &mut Vec<(usize, Op)>,
    filters: &mut Vec<Built>,
    op: Op,
    end: usize,
) -> Result<(), ParseError> {
    while ops
        .last()
        .is_some_and(|(_, top)| *top != Op::LParen && top.precedence() < op.precedence())
    {
        let b = pop_arguments(ops, filters, end)?;
        filters.push(b);
    }
    Ok(())
}

fn mismatched(at: usize) -> ParseError {
    err(at, "Mismatched parenthesis")
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }

    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(p, _)| *p)
    }

    /// The whole expression, by HBase's `ParseFilter.parseFilterString` step for step: an
    /// operator stack (with the `(`s) and a filter stack, so that ferrobase accepts and refuses
    /// the strings HBase does, its quirks included. At a `)`, HBase applies the operators on
    /// top, then pops the next entry of the stack whatever it is, until it pops a `(`: a group
    /// holding operators of rising priority, such as `(A OR B AND C)` or `(A AND SKIP B)`,
    /// drops an operator and ends in "Mismatched parenthesis", while an unclosed `(` is
    /// accepted. Nesting is bounded by memory for the tokens, never by the thread's stack.
    fn expression(&mut self, s: &[u8]) -> Result<Box<dyn Filter>, ParseError> {
        let mut ops: Vec<(usize, Op)> = Vec::new();
        let mut filters: Vec<Built> = Vec::new();
        while let Some(tok) = self.peek() {
            let at = self.here();
            let op = match tok {
                Tok::LParen => Some(Op::LParen),
                Tok::Word(w) => keyword(w, at, s),
                _ => None,
            };
            let rparen = *tok == Tok::RParen;
            match (rparen, op) {
                (_, Some(Op::LParen)) => {
                    self.pos += 1;
                    ops.push((at, Op::LParen));
                }
                (_, Some(op)) => {
                    self.pos += 1;
                    reduce(&mut ops, &mut filters, op, self.end)?;
                    ops.push((at, op));
                }
                (true, None) => {
                    self.pos += 1;
                    match ops.last() {
                        None => return Err(mismatched(at)),
                        Some((_, Op::LParen)) => {
                            ops.pop();
                            continue;
                        }
                        Some(_) => {}
                    }
                    loop {
                        let b = pop_arguments(&mut ops, &mut filters, self.end)?;
                        filters.push(b);
                        match ops.pop() {
                            None => return Err(mismatched(at)),
                            Some((_, Op::LParen)) => break,
                            Some(_) => {}
                        }
                    }
                }
                (_, None) => {
                    let f = self.call()?;
                    filters.push(Built {
                        filter: f,
                        depth: 1,
                    });
                }
            }
        }
        while !ops.is_empty() {
            let b = pop_arguments(&mut ops, &mut filters, self.end)?;
            filters.push(b);
        }
        match (filters.pop(), filters.is_empty()) {
            (Some(b), true) => Ok(b.filter),
            _ => Err(err(self.end, "Incorrect Filter String")),
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
    p.expression(s)
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
            // A last `AND` is no operator for HBase (nothing follows it): a filter name.
            ("PrefixFilter('a') AND", 18, "filter name"),
            (
                "PrefixFilter('a') XOR PrefixFilter('b')",
                22,
                "'(' after XOR",
            ),
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
        // As HBase's parser, an unclosed '(' is accepted; a ')' too many is not.
        let unclosed = format!("{}PrefixFilter('r')", "(".repeat(100_000));
        parse_filter(unclosed.as_bytes()).unwrap();
        let e = parse_filter(b"(PrefixFilter('r')))")
            .map(|_| ())
            .unwrap_err();
        assert!(e.message.contains("Mismatched parenthesis"), "{e}");
    }

    /// HBase's `ParseFilter` applies, at a ')', the operators on top of the stack and then pops
    /// the next entry whatever it is: a group whose operators rise in priority loses one and
    /// ends in "Mismatched parenthesis" (Apache HBase 2.6.1's answers, issue 41).
    #[test]
    fn groups_of_operators_rising_in_priority_are_refused_as_hbase_refuses_them() {
        let k = "KeyOnlyFilter()";
        let v = "ValueFilter(=, 'binary:v1')";
        for bad in [
            format!("({k} OR {k} AND {k})"),
            format!("({v} AND SKIP {k})"),
            format!("(SKIP SKIP {k})"),
            format!("({k} OR WHILE {k})"),
        ] {
            let e = parse_filter(bad.as_bytes()).map(|_| ()).unwrap_err();
            assert!(e.message.contains("Mismatched parenthesis"), "{bad}: {e}");
        }
        for good in [
            format!("{k} OR {k} AND {k}"),
            format!("{v} AND SKIP {k}"),
            format!("({k} AND {k} OR {k})"),
            format!("(SKIP {k} AND {k})"),
            format!("({k} OR ({k} AND {k}))"),
            format!("(({k}))"),
            format!("{k} OR({k})"),
        ] {
            parse_filter(good.as_bytes()).unwrap_or_else(|e| panic!("{good}: {e}"));
        }
        // Keywords by HBase's byte checks: `OR` needs a space or ')' before it.
        assert!(parse_filter(format!("({k})OR {k}").as_bytes()).is_ok());
        assert!(parse_filter(format!("{k}\tOR {k}").as_bytes()).is_err());
        // Two filters without an operator, a dangling operator: "Incorrect ...".
        for bad in [format!("{k} {k}"), format!("{k} AND ")] {
            let e = parse_filter(bad.as_bytes()).map(|_| ()).unwrap_err();
            assert!(e.message.contains("Incorrect"), "{bad}: {e}");
        }
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
