//! The HBase shell's language: Ruby-like literals as the shell accepts them. Single-quoted
//! strings (only `\'` and `\\` escape), double-quoted strings (`\xNN`, `\n`, `\t`, `\r`, `\0`,
//! `\\`, `\"`), integers, floats, `true`/`false`/`nil`, arrays, hashes with `=>`, bare or quoted
//! constants (`NAME`, `VERSIONS`, ...), optional parentheses and commas, trailing hash arguments
//! without braces, `#` comments, and `;` or newlines between statements. The Ruby idioms of
//! [`super::ruby`] — loops, `#{i}` interpolation of their variable, `[n].pack('N')` — are
//! evaluated here, so a statement reaches the commands with plain literals only.

use super::ruby::{self, Part};
use std::fmt;

/// A literal value.
#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A string (bytes; double quotes allow binary escapes).
    Str(Vec<u8>),
    /// An integer.
    Int(i64),
    /// A float.
    Float(f64),
    /// `true` / `false`.
    Bool(bool),
    /// `nil`.
    Nil,
    /// A bare constant such as `VERSIONS` (or a Ruby symbol `:name`).
    Const(String),
    /// `[a, b]`.
    Array(Vec<Value>),
    /// `{K => V}`.
    Hash(Vec<(Value, Value)>),
}

impl Value {
    /// The text of a string or constant.
    pub fn as_text(&self) -> Option<String> {
        match self {
            Value::Str(b) => Some(String::from_utf8_lossy(b).into_owned()),
            Value::Const(c) => Some(c.clone()),
            _ => None,
        }
    }

    /// A short name of the value's type for error messages.
    pub fn kind(&self) -> &'static str {
        match self {
            Value::Str(_) => "a string",
            Value::Int(_) => "an integer",
            Value::Float(_) => "a float",
            Value::Bool(_) => "a boolean",
            Value::Nil => "nil",
            Value::Const(_) => "a constant",
            Value::Array(_) => "an array",
            Value::Hash(_) => "a hash",
        }
    }
}

/// One command with its arguments.
#[derive(Debug, Clone, PartialEq)]
pub struct Statement {
    /// The command name.
    pub command: String,
    /// Its arguments; `key => value` pairs outside braces become one trailing hash.
    pub args: Vec<Value>,
    /// Byte offset of the statement in the input.
    pub offset: usize,
    /// `t = command ...`: the variable the statement's value is assigned to.
    pub target: Option<String>,
    /// `t.command ...`: the variable (a table reference) the command is called on.
    pub receiver: Option<String>,
}

/// A syntax error with its position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SyntaxError {
    /// Byte offset.
    pub offset: usize,
    /// What was wrong.
    pub message: String,
    /// True when more input could complete the statement (an unclosed string, bracket or
    /// brace), so an interactive shell asks for another line.
    pub incomplete: bool,
}

impl fmt::Display for SyntaxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "syntax error at position {}: {}",
            self.offset, self.message
        )
    }
}

#[derive(Debug, Clone, PartialEq)]
pub(super) enum Tok {
    Ident(String),
    Str(Vec<u8>),
    Int(i64),
    Float(f64),
    LBracket,
    RBracket,
    LBrace,
    RBrace,
    LParen,
    RParen,
    Comma,
    Arrow,
    End, // newline or ';'
    /// A double-quoted string with `#{variable}` pieces.
    Interp(Vec<Part>),
    /// `.`
    Dot,
    /// `..` (false) or `...` (true, end excluded).
    Range(bool),
    /// `|`
    Pipe,
    /// `=` (assignment to a variable).
    Assign,
}

fn syntax(offset: usize, message: impl Into<String>) -> SyntaxError {
    SyntaxError {
        offset,
        message: message.into(),
        incomplete: false,
    }
}

fn incomplete(offset: usize, message: impl Into<String>) -> SyntaxError {
    SyntaxError {
        offset,
        message: message.into(),
        incomplete: true,
    }
}

fn hex(b: u8) -> Option<u8> {
    (b as char).to_digit(16).map(|d| d as u8)
}

/// The tokens of `src` with their byte offsets.
pub(super) fn lex(src: &str) -> Result<Vec<(usize, Tok)>, SyntaxError> {
    let s = src.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < s.len() {
        let c = s[i];
        let start = i;
        match c {
            b' ' | b'\t' | b'\r' => i += 1,
            b'\n' | b';' => {
                out.push((i, Tok::End));
                i += 1;
            }
            b'#' => {
                while i < s.len() && s[i] != b'\n' {
                    i += 1;
                }
            }
            b'[' => {
                out.push((i, Tok::LBracket));
                i += 1;
            }
            b']' => {
                out.push((i, Tok::RBracket));
                i += 1;
            }
            b'{' => {
                out.push((i, Tok::LBrace));
                i += 1;
            }
            b'}' => {
                out.push((i, Tok::RBrace));
                i += 1;
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
            b'=' if s.get(i + 1) == Some(&b'>') => {
                out.push((i, Tok::Arrow));
                i += 2;
            }
            b'=' if s.get(i + 1) != Some(&b'=') => {
                out.push((i, Tok::Assign));
                i += 1;
            }
            b'\'' => {
                let mut v = Vec::new();
                i += 1;
                loop {
                    match s.get(i) {
                        None => return Err(incomplete(start, "unterminated single-quoted string")),
                        Some(b'\\') if matches!(s.get(i + 1), Some(b'\'') | Some(b'\\')) => {
                            v.push(s[i + 1]);
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
            b'"' => {
                let mut v = Vec::new();
                let mut parts = Vec::new();
                i += 1;
                loop {
                    match s.get(i) {
                        None => return Err(incomplete(start, "unterminated double-quoted string")),
                        Some(b'"') => {
                            i += 1;
                            break;
                        }
                        Some(b'#') if s.get(i + 1) == Some(&b'{') => {
                            let Some(len) = s[i + 2..].iter().position(|&b| b == b'}') else {
                                return Err(incomplete(start, "unterminated #{ in a string"));
                            };
                            let inner = src[i + 2..i + 2 + len].trim();
                            let ident = inner
                                .bytes()
                                .next()
                                .is_some_and(|b| b.is_ascii_lowercase() || b == b'_')
                                && inner
                                    .bytes()
                                    .all(|b| b.is_ascii_alphanumeric() || b == b'_');
                            if !ident {
                                return Err(syntax(
                                    i,
                                    format!(
                                        "#{{{inner}}}: only #{{variable}} of a loop variable is \
                                         supported in strings"
                                    ),
                                ));
                            }
                            parts.push(Part::Lit(std::mem::take(&mut v)));
                            parts.push(Part::Var(inner.to_string()));
                            i += 3 + len;
                        }
                        Some(b'\\') => {
                            let Some(&e) = s.get(i + 1) else {
                                return Err(incomplete(start, "unterminated double-quoted string"));
                            };
                            i += 2;
                            match e {
                                b'n' => v.push(b'\n'),
                                b't' => v.push(b'\t'),
                                b'r' => v.push(b'\r'),
                                b'0' => v.push(0),
                                b'e' => v.push(0x1b),
                                b'x' => {
                                    let h1 = s.get(i).and_then(|&b| hex(b));
                                    let Some(h1) = h1 else {
                                        return Err(syntax(i, "\\x needs one or two hex digits"));
                                    };
                                    i += 1;
                                    match s.get(i).and_then(|&b| hex(b)) {
                                        Some(h2) => {
                                            v.push(h1 * 16 + h2);
                                            i += 1;
                                        }
                                        None => v.push(h1),
                                    }
                                }
                                other => v.push(other),
                            }
                        }
                        Some(&b) => {
                            v.push(b);
                            i += 1;
                        }
                    }
                }
                if parts.is_empty() {
                    out.push((start, Tok::Str(v)));
                } else {
                    parts.push(Part::Lit(v));
                    out.push((start, Tok::Interp(parts)));
                }
            }
            b'.' => {
                let n = s[i..].iter().take(3).take_while(|&&b| b == b'.').count();
                out.push((
                    i,
                    match n {
                        1 => Tok::Dot,
                        2 => Tok::Range(false),
                        _ => Tok::Range(true),
                    },
                ));
                i += n;
            }
            b'|' => {
                out.push((i, Tok::Pipe));
                i += 1;
            }
            b'-' | b'0'..=b'9' => {
                i += 1;
                // Digits, then a fraction only when a digit follows the dot (`1..3` is a range).
                let mut seen_dot = false;
                while i < s.len()
                    && (s[i].is_ascii_digit()
                        || s[i] == b'_'
                        || (s[i] == b'.'
                            && !seen_dot
                            && s.get(i + 1).is_some_and(|b| b.is_ascii_digit())))
                {
                    seen_dot |= s[i] == b'.';
                    i += 1;
                }
                let text: String = src[start..i].chars().filter(|&c| c != '_').collect();
                let tok = if text.contains('.') {
                    Tok::Float(
                        text.parse()
                            .map_err(|_| syntax(start, format!("bad number {text}")))?,
                    )
                } else {
                    Tok::Int(
                        text.parse()
                            .map_err(|_| syntax(start, format!("bad number {text}")))?,
                    )
                };
                out.push((start, tok));
            }
            b':' if s.get(i + 1).is_some_and(|b| b.is_ascii_alphabetic()) => {
                i += 1;
                let from = i;
                while i < s.len() && (s[i].is_ascii_alphanumeric() || s[i] == b'_') {
                    i += 1;
                }
                out.push((start, Tok::Str(s[from..i].to_vec())));
            }
            c if c.is_ascii_alphabetic() || c == b'_' => {
                while i < s.len()
                    && (s[i].is_ascii_alphanumeric()
                        || s[i] == b'_'
                        || s[i] == b'?'
                        || s[i] == b'!')
                {
                    i += 1;
                }
                out.push((start, Tok::Ident(src[start..i].to_string())));
            }
            _ => {
                let ch = src[i..].chars().next().unwrap_or('?');
                return Err(syntax(i, format!("unexpected character {ch:?}")));
            }
        }
    }
    Ok(out)
}

/// The deepest nesting of arrays and hashes a statement may have. HBase's shell statements nest
/// two or three levels (`{COLUMNS => ['f:a'], CONFIGURATION => {...}}`); the limit keeps a crafted
/// statement from exhausting the stack of the recursive parser.
pub const MAX_NESTING: usize = 64;

struct Parser {
    toks: Vec<(usize, Tok)>,
    pos: usize,
    end: usize,
    /// Arrays and hashes open around the value being parsed.
    depth: usize,
    /// Loop variables in scope, innermost last.
    bindings: Vec<(String, i64)>,
    /// The tokens closing the loop bodies being parsed (`}` or `end`), innermost last.
    closers: Vec<Tok>,
    /// Statements produced so far, loops expanded.
    produced: usize,
    /// Loop bodies parsed so far (once per iteration).
    passes: usize,
}

impl Parser {
    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|(_, t)| t)
    }

    fn here(&self) -> usize {
        self.toks.get(self.pos).map_or(self.end, |(p, _)| *p)
    }

    fn value(&mut self) -> Result<Value, SyntaxError> {
        let at = self.here();
        let Some(t) = self.peek().cloned() else {
            return Err(incomplete(self.end, "expected a value"));
        };
        self.pos += 1;
        let v = self.primary(at, t)?;
        if self.peek() != Some(&Tok::Dot) {
            return Ok(v);
        }
        // `[1024].pack('N')`, the one method call on a value the shell evaluates.
        let dot = self.here();
        self.pos += 1;
        let (Value::Array(items), Some(Tok::Ident(m))) = (&v, self.peek()) else {
            return Err(syntax(
                dot,
                "Ruby method calls are not supported here (only [...].pack('N'), (a..b).each \
                 and n.times)",
            ));
        };
        if m != "pack" {
            return Err(syntax(dot, format!("Ruby method .{m} is not supported")));
        }
        self.pos += 1;
        let paren = self.peek() == Some(&Tok::LParen);
        if paren {
            self.pos += 1;
        }
        let template = match self.peek().cloned() {
            Some(Tok::Str(t)) => String::from_utf8_lossy(&t).into_owned(),
            _ => return Err(syntax(self.here(), "pack needs a template string")),
        };
        self.pos += 1;
        if paren {
            if self.peek() != Some(&Tok::RParen) {
                return Err(syntax(self.here(), "expected ')' after the pack template"));
            }
            self.pos += 1;
        }
        ruby::pack(items, &template)
            .map(Value::Str)
            .map_err(|e| syntax(dot, e))
    }

    fn primary(&mut self, at: usize, t: Tok) -> Result<Value, SyntaxError> {
        Ok(match t {
            Tok::Str(s) => Value::Str(s),
            Tok::Interp(parts) => {
                Value::Str(ruby::interpolate(&parts, &self.bindings).map_err(|e| syntax(at, e))?)
            }
            Tok::Int(i) => Value::Int(i),
            Tok::Float(f) => Value::Float(f),
            Tok::Ident(w) => match w.as_str() {
                "true" => Value::Bool(true),
                "false" => Value::Bool(false),
                "nil" => Value::Nil,
                // `org.apache.hadoop.hbase.filter.ColumnPaginationFilter.new(1, 0)`: a Java
                // object, which only a JVM shell can make.
                "org" | "com" | "java" if self.peek() == Some(&Tok::Dot) => {
                    return Err(syntax(
                        at,
                        "Java classes (org.apache...) are not available in ferrobase's shell; \
                         write a filter in HBase's filter language, e.g. FILTER => \
                         \"ColumnPaginationFilter(1, 0)\"",
                    ))
                }
                _ => match ruby::lookup(&w, &self.bindings) {
                    Some(v) => Value::Int(v),
                    // Ruby reads a lowercase bare word as a variable or method; HBase's
                    // constants are uppercase.
                    None if w.starts_with(|c: char| c.is_ascii_lowercase() || c == '_') => {
                        return Err(syntax(at, ruby::undefined(&w)))
                    }
                    None => Value::Const(w),
                },
            },
            Tok::LBracket | Tok::LBrace if self.depth >= MAX_NESTING => {
                return Err(syntax(
                    at,
                    format!("arrays and hashes nested more than {MAX_NESTING} levels deep"),
                ))
            }
            Tok::LBracket => {
                self.depth += 1;
                let mut items = Vec::new();
                loop {
                    self.skip_ends();
                    match self.peek() {
                        Some(Tok::RBracket) => {
                            self.pos += 1;
                            break;
                        }
                        None => return Err(incomplete(at, "unclosed '['")),
                        _ => {}
                    }
                    items.push(self.value()?);
                    self.skip_ends();
                    match self.peek() {
                        Some(Tok::Comma) => self.pos += 1,
                        Some(Tok::RBracket) => {}
                        None => return Err(incomplete(at, "unclosed '['")),
                        Some(_) => {
                            return Err(syntax(self.here(), "expected ',' or ']' in the array"))
                        }
                    }
                }
                self.depth -= 1;
                Value::Array(items)
            }
            Tok::LBrace => {
                self.depth += 1;
                let mut pairs = Vec::new();
                loop {
                    self.skip_ends();
                    match self.peek() {
                        Some(Tok::RBrace) => {
                            self.pos += 1;
                            break;
                        }
                        None => return Err(incomplete(at, "unclosed '{'")),
                        _ => {}
                    }
                    let k = self.value()?;
                    self.skip_ends();
                    match self.peek() {
                        Some(Tok::Arrow) => self.pos += 1,
                        None => return Err(incomplete(at, "unclosed '{'")),
                        _ => return Err(syntax(self.here(), "expected '=>' after a hash key")),
                    }
                    self.skip_ends();
                    let v = self.value()?;
                    pairs.push((k, v));
                    self.skip_ends();
                    match self.peek() {
                        Some(Tok::Comma) => self.pos += 1,
                        Some(Tok::RBrace) => {}
                        None => return Err(incomplete(at, "unclosed '{'")),
                        Some(_) => {
                            return Err(syntax(self.here(), "expected ',' or '}' in the hash"))
                        }
                    }
                }
                self.depth -= 1;
                Value::Hash(pairs)
            }
            other => {
                return Err(syntax(
                    at,
                    format!("expected a value, found {}", describe(&other)),
                ))
            }
        })
    }

    /// True when `t` closes the innermost loop body.
    fn closes(&self, t: &Tok) -> bool {
        self.closers.last() == Some(t)
    }

    fn expect(&mut self, want: &Tok, what: &str) -> Result<(), SyntaxError> {
        match self.peek() {
            Some(t) if t == want => {
                self.pos += 1;
                Ok(())
            }
            None => Err(incomplete(self.end, format!("expected {what}"))),
            Some(t) => Err(syntax(
                self.here(),
                format!("expected {what}, found {}", describe(t)),
            )),
        }
    }

    /// Statements up to the end of input or the innermost loop body's closer (not consumed).
    fn statements(&mut self, out: &mut Vec<Statement>) -> Result<(), SyntaxError> {
        loop {
            self.skip_ends();
            match self.peek() {
                None if !self.closers.is_empty() => {
                    return Err(incomplete(self.end, "unclosed loop body"))
                }
                None => return Ok(()),
                Some(t) if self.closes(t) => return Ok(()),
                Some(Tok::LParen) => self.each_loop(out)?,
                Some(Tok::Int(_))
                    if self.toks.get(self.pos + 1).map(|t| &t.1) == Some(&Tok::Dot) =>
                {
                    self.each_loop(out)?
                }
                Some(_) => {
                    out.push(self.statement()?);
                    self.produced += 1;
                }
            }
            if self.produced > ruby::MAX_LOOP_STATEMENTS {
                return Err(syntax(
                    self.here(),
                    format!(
                        "loops expand to more than {} statements",
                        ruby::MAX_LOOP_STATEMENTS
                    ),
                ));
            }
        }
    }

    /// `(a..b).each { |v| ... }`, `(a...b).each do |v| ... end` or `n.times { |v| ... }`: the
    /// body once per value, with `v` bound.
    fn each_loop(&mut self, out: &mut Vec<Statement>) -> Result<(), SyntaxError> {
        let at = self.here();
        let int = |p: &mut Parser| -> Result<i64, SyntaxError> {
            match p.peek().cloned() {
                Some(Tok::Int(n)) => {
                    p.pos += 1;
                    Ok(n)
                }
                Some(Tok::Ident(w)) => match ruby::lookup(&w, &p.bindings) {
                    Some(n) => {
                        p.pos += 1;
                        Ok(n)
                    }
                    None => Err(syntax(p.here(), ruby::undefined(&w))),
                },
                None => Err(incomplete(p.end, "expected an integer")),
                Some(t) => Err(syntax(
                    p.here(),
                    format!("expected an integer, found {}", describe(&t)),
                )),
            }
        };
        let (from, to, method) = if self.peek() == Some(&Tok::LParen) {
            self.pos += 1;
            let a = int(self)?;
            let exclusive = match self.peek() {
                Some(Tok::Range(x)) => *x,
                _ => return Err(syntax(self.here(), "expected a range (a..b) before .each")),
            };
            self.pos += 1;
            let b = int(self)?;
            self.expect(&Tok::RParen, "')'")?;
            (a, if exclusive { b } else { b.saturating_add(1) }, "each")
        } else {
            (0, int(self)?, "times")
        };
        self.expect(&Tok::Dot, &format!("'.{method}'"))?;
        self.expect(&Tok::Ident(method.into()), &format!("'{method}'"))?;
        let closer = match self.peek() {
            Some(Tok::LBrace) => Tok::RBrace,
            Some(Tok::Ident(w)) if w == "do" => Tok::Ident("end".into()),
            None => return Err(incomplete(self.end, "expected { or do")),
            Some(_) => {
                return Err(syntax(
                    self.here(),
                    "expected { |v| ... } or do |v| ... end",
                ))
            }
        };
        self.pos += 1;
        self.expect(&Tok::Pipe, "'|'")?;
        let var = match self.peek().cloned() {
            Some(Tok::Ident(w)) => w,
            None => return Err(incomplete(self.end, "expected the loop variable")),
            Some(_) => return Err(syntax(self.here(), "expected the loop variable")),
        };
        self.pos += 1;
        self.expect(&Tok::Pipe, "'|'")?;
        if self.closers.len() >= ruby::MAX_LOOP_NESTING {
            return Err(syntax(
                at,
                format!(
                    "loops nested more than {} levels deep",
                    ruby::MAX_LOOP_NESTING
                ),
            ));
        }
        let body = self.pos;
        self.closers.push(closer.clone());
        // An empty range still parses its body once, so its end is found and it is checked.
        let values: Box<dyn Iterator<Item = (i64, bool)>> = if from < to {
            Box::new((from..to).map(|v| (v, true)))
        } else {
            Box::new(std::iter::once((from, false)))
        };
        for (v, keep) in values {
            self.passes += 1;
            if self.passes > ruby::MAX_LOOP_PASSES {
                return Err(syntax(
                    at,
                    format!(
                        "loops run their bodies more than {} times",
                        ruby::MAX_LOOP_PASSES
                    ),
                ));
            }
            self.pos = body;
            self.bindings.push((var.clone(), v));
            let mut stmts = Vec::new();
            let r = self.statements(&mut stmts);
            self.bindings.pop();
            r?;
            if keep {
                out.extend(stmts);
            }
            if self.produced > ruby::MAX_LOOP_STATEMENTS {
                return Err(syntax(
                    at,
                    format!(
                        "loops expand to more than {} statements",
                        ruby::MAX_LOOP_STATEMENTS
                    ),
                ));
            }
        }
        self.closers.pop();
        self.pos += 1; // the closer
        Ok(())
    }

    /// Newlines inside brackets and braces continue the statement.
    fn skip_ends(&mut self) {
        while self.peek() == Some(&Tok::End) {
            self.pos += 1;
        }
    }

    /// A variable name: lowercase or `_` first, as Ruby's local variables.
    fn is_variable(w: &str) -> bool {
        w.starts_with(|c: char| c.is_ascii_lowercase() || c == '_')
    }

    fn statement(&mut self) -> Result<Statement, SyntaxError> {
        let offset = self.here();
        // `t = create 't', 'f'` / `t = get_table 't'`: the rest is an ordinary statement.
        let target = match (self.peek(), self.toks.get(self.pos + 1).map(|t| &t.1)) {
            (Some(Tok::Ident(w)), Some(Tok::Assign)) if Self::is_variable(w) => {
                let w = w.clone();
                self.pos += 2;
                Some(w)
            }
            _ => None,
        };
        // `ts1 = 1303668804000`: an integer variable, bound for the statements after it
        // (the help texts' `ts1` and `ts2`). Statement `=` carries the value.
        if let (Some(var), Some(Tok::Int(n))) = (&target, self.peek()) {
            let n = *n;
            if matches!(
                self.toks.get(self.pos + 1).map(|t| &t.1),
                None | Some(Tok::End)
            ) {
                if !self.closers.is_empty() {
                    return Err(syntax(
                        offset,
                        "an assignment inside a loop is not supported",
                    ));
                }
                self.pos += 1;
                self.bindings.push((var.clone(), n));
                return Ok(Statement {
                    command: "=".into(),
                    args: vec![Value::Int(n)],
                    offset,
                    target,
                    receiver: None,
                });
            }
        }
        // `t.put 'r', 'f:q', 'v'`: a method of the table reference `t`.
        let receiver = match (self.peek(), self.toks.get(self.pos + 1).map(|t| &t.1)) {
            (Some(Tok::Ident(w)), Some(Tok::Dot)) if Self::is_variable(w) => {
                let w = w.clone();
                self.pos += 2;
                if !matches!(self.peek(), Some(Tok::Ident(_))) {
                    return Err(match self.peek() {
                        None => incomplete(self.end, "expected a method name after '.'"),
                        Some(_) => syntax(self.here(), "expected a method name after '.'"),
                    });
                }
                Some(w)
            }
            _ => None,
        };
        let command = match self.peek().cloned() {
            Some(Tok::Ident(w)) => {
                self.pos += 1;
                w
            }
            Some(t) => {
                return Err(syntax(
                    offset,
                    format!("expected a command name, found {}", describe(&t)),
                ))
            }
            None => return Err(incomplete(offset, "expected a command")),
        };
        let paren = self.peek() == Some(&Tok::LParen);
        if paren {
            self.pos += 1;
        }
        let mut args = Vec::new();
        let mut trailing: Vec<(Value, Value)> = Vec::new();
        loop {
            if paren {
                self.skip_ends();
            }
            match self.peek() {
                None | Some(Tok::End) if !paren => break,
                Some(t) if !paren && self.closes(t) => break,
                None => return Err(incomplete(offset, "unclosed '('")),
                Some(Tok::RParen) if paren => {
                    self.pos += 1;
                    break;
                }
                _ => {}
            }
            let v = self.value()?;
            if self.peek() == Some(&Tok::Arrow) {
                self.pos += 1;
                self.skip_ends();
                let val = self.value()?;
                trailing.push((v, val));
            } else {
                if !trailing.is_empty() {
                    return Err(syntax(
                        self.here(),
                        "positional argument after key => value pairs",
                    ));
                }
                args.push(v);
            }
            match self.peek() {
                Some(Tok::Comma) => {
                    self.pos += 1;
                    // A trailing comma continues onto the next line.
                    self.skip_ends();
                    if self.peek().is_none() {
                        return Err(incomplete(self.end, "expected an argument after ','"));
                    }
                }
                None | Some(Tok::End) if !paren => break,
                Some(t) if !paren && self.closes(t) => break,
                Some(Tok::RParen) if paren => {}
                None => return Err(incomplete(offset, "unclosed '('")),
                Some(t) => {
                    return Err(syntax(
                        self.here(),
                        format!("expected ',' between arguments, found {}", describe(t)),
                    ))
                }
            }
        }
        if !trailing.is_empty() {
            args.push(Value::Hash(trailing));
        }
        match self.peek() {
            None | Some(Tok::End) => {}
            Some(t) if self.closes(t) => {}
            Some(t) => {
                return Err(syntax(
                    self.here(),
                    format!("unexpected {} after the statement", describe(t)),
                ))
            }
        }
        Ok(Statement {
            command,
            args,
            offset,
            target,
            receiver,
        })
    }
}

fn describe(t: &Tok) -> String {
    match t {
        Tok::Ident(w) => format!("{w:?}"),
        Tok::Str(_) => "a string".into(),
        Tok::Int(i) => format!("{i}"),
        Tok::Float(f) => format!("{f}"),
        Tok::LBracket => "'['".into(),
        Tok::RBracket => "']'".into(),
        Tok::LBrace => "'{'".into(),
        Tok::RBrace => "'}'".into(),
        Tok::LParen => "'('".into(),
        Tok::RParen => "')'".into(),
        Tok::Comma => "','".into(),
        Tok::Arrow => "'=>'".into(),
        Tok::End => "the end of the line".into(),
        Tok::Interp(_) => "a string".into(),
        Tok::Dot => "'.'".into(),
        Tok::Range(false) => "'..'".into(),
        Tok::Range(true) => "'...'".into(),
        Tok::Pipe => "'|'".into(),
        Tok::Assign => "'='".into(),
    }
}

/// Parses every statement of `src`, loops expanded.
pub fn parse(src: &str) -> Result<Vec<Statement>, SyntaxError> {
    parse_with(src, &[])
}

/// Parses `src` with the integer variables `globals` (from earlier `name = integer`
/// statements, later ones last) in scope.
pub fn parse_with(src: &str, globals: &[(String, i64)]) -> Result<Vec<Statement>, SyntaxError> {
    let toks = lex(src)?;
    let mut p = Parser {
        toks,
        pos: 0,
        end: src.len(),
        depth: 0,
        bindings: globals.to_vec(),
        closers: Vec::new(),
        produced: 0,
        passes: 0,
    };
    let mut out = Vec::new();
    p.statements(&mut out)?;
    if let Some(t) = p.peek() {
        return Err(syntax(p.here(), format!("unexpected {}", describe(t))));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trailing_comma_continues_the_statement_on_the_next_line() {
        assert!(
            parse("alter 't1', { NAME => 'f1' },")
                .unwrap_err()
                .incomplete
        );
        let s = parse("alter 't1', { NAME => 'f1' },\n  { MAX_FILESIZE => '1' }").unwrap();
        assert_eq!((s.len(), s[0].args.len()), (1, 3));
    }

    #[test]
    fn integer_assignments_bind_their_variable_for_later_statements() {
        let s = parse("ts1 = 1000\nput 't1', 'r1', 'c1', 'v', ts1").unwrap();
        assert_eq!(
            (s[0].command.as_str(), s[0].target.as_deref()),
            ("=", Some("ts1"))
        );
        assert_eq!(s[1].args[4], Value::Int(1000));
        let globals = [("ts2".to_string(), 7)];
        assert_eq!(
            parse_with("get 't', 'r', ts2", &globals).unwrap()[0].args[2],
            Value::Int(7)
        );
        assert!(parse("(1..2).each { |i| x = 3 }").is_err());
    }

    #[test]
    fn parses_the_seed_statements() {
        let s =
            parse("create 'mytable', {NAME => 'colfam1', VERSIONS => 1, TTL => '18000'}").unwrap();
        assert_eq!(s[0].command, "create");
        assert_eq!(s[0].args[0], Value::Str(b"mytable".to_vec()));
        let Value::Hash(h) = &s[0].args[1] else {
            panic!()
        };
        assert_eq!(h[1], (Value::Const("VERSIONS".into()), Value::Int(1)));
        let s = parse("scan 'hbase_gameCenter_log', {COLUMNS => ['oneline:guid','oneline:report'], LIMIT => 10, STARTROW => 'a', STOPROW => 'b'}").unwrap();
        assert_eq!(s[0].args.len(), 2);
        let s = parse("get 't', \"r\\x00\\xff\", COLUMN => 'f:q', VERSIONS => 3 # comment\nput('t','r','f:q','v', 12)").unwrap();
        assert_eq!(s.len(), 2);
        assert_eq!(s[0].args[1], Value::Str(vec![b'r', 0, 0xff]));
        assert_eq!(
            s[0].args[2],
            Value::Hash(vec![
                (Value::Const("COLUMN".into()), Value::Str(b"f:q".to_vec())),
                (Value::Const("VERSIONS".into()), Value::Int(3))
            ])
        );
        assert_eq!(s[1].args[4], Value::Int(12));
        let multi = parse("create 't', {NAME => 'f',\n  VERSIONS => 3}\nlist").unwrap();
        assert_eq!(multi.len(), 2);
    }

    #[test]
    fn unclosed_input_is_incomplete_and_garbage_is_an_error() {
        for s in [
            "create 't', {NAME => 'f'",
            "put 't', 'r",
            "scan 't', {COLUMNS => ['a',",
            "get(\"x",
        ] {
            let e = parse(s).unwrap_err();
            assert!(e.incomplete, "{s}: {e}");
        }
        for s in [
            "create 't' 'f'",
            "put 't', => 'x'",
            "} list",
            "get 't', {A B}",
            "x = $",
        ] {
            let e = parse(s).unwrap_err();
            assert!(!e.incomplete, "{s}: {e}");
        }
    }

    #[test]
    fn assignments_and_method_calls_name_their_variable() {
        let s = parse("t = create 't', 'f'\nt.put 'r', 'f:q', 'v'\nt.scan\nt").unwrap();
        assert_eq!(s[0].target.as_deref(), Some("t"));
        assert_eq!(s[0].command, "create");
        assert_eq!(s[1].receiver.as_deref(), Some("t"));
        assert_eq!(s[1].command, "put");
        assert_eq!(s[1].args.len(), 3);
        assert_eq!((s[2].receiver.as_deref(), s[2].args.len()), (Some("t"), 0));
        assert_eq!(
            (s[3].command.as_str(), s[3].receiver.as_deref()),
            ("t", None)
        );
        let l = parse("(1..2).each { |i| t.put \"r#{i}\", 'f:q', i }").unwrap();
        assert_eq!(l.len(), 2);
        assert_eq!(l[1].args[0], Value::Str(b"r2".to_vec()));
        assert!(parse("t.").unwrap_err().incomplete);
        assert!(!parse("t.'x'").unwrap_err().incomplete);
        assert!(!parse("T = 1").unwrap_err().incomplete);
    }

    #[test]
    fn deep_nesting_is_a_syntax_error_not_a_stack_overflow() {
        let ok = format!(
            "scan 't', {}1{}",
            "[".repeat(MAX_NESTING),
            "]".repeat(MAX_NESTING)
        );
        parse(&ok).unwrap();
        for open in ["[", "{"] {
            let s = format!("scan 't', {}", open.repeat(200_000));
            let e = parse(&s).unwrap_err();
            assert!(!e.incomplete, "{e}");
            assert!(e.to_string().contains("nested more than 64 levels"), "{e}");
        }
    }

    #[test]
    fn deep_loops_and_loops_that_multiply_are_syntax_errors() {
        let nest =
            |n: usize, header: &str| format!("{}list\n{}", header.repeat(n), "}\n".repeat(n));
        parse(&nest(ruby::MAX_LOOP_NESTING, "(1..1).each { |i|\n")).unwrap();
        let e = parse(&nest(100_000, "(1..1).each { |i|\n")).unwrap_err();
        assert!(!e.incomplete, "{e}");
        assert!(
            e.to_string().contains("loops nested more than 64 levels"),
            "{e}"
        );
        // 2^25 runs of an empty body: refused at the budget, not run for minutes.
        let t0 = std::time::Instant::now();
        let e = parse(&format!(
            "{}{}",
            "2.times { |i| ".repeat(25),
            "} ".repeat(25)
        ))
        .unwrap_err();
        assert!(
            e.to_string()
                .contains("run their bodies more than 1000000 times"),
            "{e}"
        );
        assert!(
            t0.elapsed() < std::time::Duration::from_secs(30),
            "{:?}",
            t0.elapsed()
        );
    }

    #[test]
    fn random_input_never_panics() {
        let pieces = [
            "'", "\"", "\\x", "{", "}", "[", "]", "(", ")", ",", "=>", "a", "1", "#", "\n", ";",
            ":", "-", "é",
        ];
        let mut rng = ferrobase_testkit::Rng::from_state(3);
        for _ in 0..20_000 {
            let seed = rng.next_u64();
            let mut x = seed;
            let mut s = String::new();
            for _ in 0..(seed % 14) {
                s.push_str(pieces[(x % pieces.len() as u64) as usize]);
                x /= 5;
            }
            let _ = parse(&s);
        }
    }
}
