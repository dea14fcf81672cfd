//! Reading a statement's arguments: the conversions from shell literals to what a command
//! needs, the arity checks, and the error a command answers. An argument the shell does not
//! understand is an error ([`CommandError::Usage`]), never a guess.

use super::syntax::{Statement, Value};
use ferrobase_client::ClientError;
use ferrobase_engine::TimeRange;
use std::fmt;

/// Why a statement failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CommandError {
    /// The statement's arguments do not fit the command (wrong count, wrong type, an unknown
    /// option). The shell follows the message with HBase's `For usage try 'help "cmd"'`.
    Usage(String),
    /// The command ran and the database refused or failed it.
    Failed(String),
    /// The table the statement names does not exist. HBase words this per command: `Unknown
    /// table t!` for data commands, `Table t does not exist.` for `describe`, `enable`,
    /// `disable`, `drop`, `Can't find a table: t` for `alter`.
    TableNotFound,
    /// `create` named a table that exists: `Table already exists: t!`.
    TableExists,
    /// The namespace the statement names (or its table's) does not exist: `Unknown namespace
    /// ns!`.
    NamespaceNotFound,
    /// Ctrl-C stopped the command.
    Interrupted,
    /// Ruby's `NameError`/`NoMethodError`: an undefined variable, or a method a table
    /// reference does not have. Printed without a usage hint (no command was reached).
    Name(String),
}

impl fmt::Display for CommandError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            CommandError::Usage(m) | CommandError::Failed(m) | CommandError::Name(m) => {
                f.write_str(m)
            }
            CommandError::TableNotFound => f.write_str("table not found"),
            CommandError::TableExists => f.write_str("table already exists"),
            CommandError::NamespaceNotFound => f.write_str("namespace not found"),
            CommandError::Interrupted => f.write_str("interrupted"),
        }
    }
}

impl From<String> for CommandError {
    fn from(m: String) -> Self {
        CommandError::Usage(m)
    }
}

impl From<&str> for CommandError {
    fn from(m: &str) -> Self {
        CommandError::Usage(m.to_string())
    }
}

/// A command's result.
pub type Res<T> = Result<T, CommandError>;

/// A client error as the command's failure.
pub fn client(e: ClientError) -> CommandError {
    if e.is_table_not_found() {
        CommandError::TableNotFound
    } else if e.is_namespace_not_found() {
        CommandError::NamespaceNotFound
    } else if e.is_table_exists() {
        CommandError::TableExists
    } else {
        CommandError::Failed(e.to_string())
    }
}

/// The message HBase's shell prints for `e` after running `command` on `table` (the
/// statement's first argument, as typed).
pub fn hbase_message(e: &CommandError, command: &str, table: &str) -> String {
    match e {
        CommandError::TableNotFound => match command {
            "describe" | "desc" | "enable" | "disable" | "drop" => {
                format!("Table {table} does not exist.")
            }
            "alter" => format!("Can't find a table: {table}"),
            _ => format!("Unknown table {table}!"),
        },
        CommandError::TableExists => format!("Table already exists: {table}!"),
        CommandError::NamespaceNotFound => format!(
            "Unknown namespace {}!",
            table.split(':').next().unwrap_or_default()
        ),
        other => other.to_string(),
    }
}

/// An engine error about an argument (an attribute value, a split algorithm) as a usage error.
pub fn illegal(e: impl fmt::Display) -> CommandError {
    CommandError::Usage(e.to_string())
}

/// Checks the statement has between `min` and `max` arguments (`usize::MAX`: no upper bound),
/// answering Ruby's `wrong number of arguments (given N, expected M)` otherwise.
pub fn arity(st: &Statement, min: usize, max: usize) -> Res<()> {
    let n = st.args.len();
    if n >= min && n <= max {
        return Ok(());
    }
    let expected = if max == usize::MAX {
        format!("{min}+")
    } else if min == max {
        min.to_string()
    } else {
        format!("{min}..{max}")
    };
    Err(CommandError::Usage(format!(
        "wrong number of arguments (given {n}, expected {expected})"
    )))
}

/// The text of a string or constant.
pub fn text(v: &Value, what: &str) -> Res<String> {
    v.as_text()
        .ok_or_else(|| format!("{what} must be a string, got {}", v.kind()).into())
}

/// The bytes of a string, a constant or an integer (as its decimal text, as Ruby's `to_s`).
pub fn bytes(v: &Value, what: &str) -> Res<Vec<u8>> {
    match v {
        Value::Str(b) => Ok(b.clone()),
        Value::Const(c) => Ok(c.as_bytes().to_vec()),
        Value::Int(i) => Ok(i.to_string().into_bytes()),
        other => Err(format!("{what} must be a string, got {}", other.kind()).into()),
    }
}

/// An integer, or a string holding one.
pub fn int(v: &Value, what: &str) -> Res<i64> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Str(s) => String::from_utf8_lossy(s)
            .parse()
            .map_err(|_| format!("{what} must be an integer").into()),
        other => Err(format!("{what} must be an integer, got {}", other.kind()).into()),
    }
}

/// `true`/`false`, or a string spelling one.
pub fn boolean(v: &Value, what: &str) -> Res<bool> {
    match v {
        Value::Bool(b) => Ok(*b),
        Value::Str(_) | Value::Const(_) => match v
            .as_text()
            .unwrap_or_default()
            .to_ascii_lowercase()
            .as_str()
        {
            "true" => Ok(true),
            "false" => Ok(false),
            _ => Err(format!("{what} must be true or false").into()),
        },
        other => Err(format!("{what} must be true or false, got {}", other.kind()).into()),
    }
}

/// A hash argument as (key text, value) pairs.
pub fn hash(v: &Value, what: &str) -> Res<Vec<(String, Value)>> {
    match v {
        Value::Hash(pairs) => pairs
            .iter()
            .map(|(k, v)| Ok((text(k, "a hash key")?, v.clone())))
            .collect(),
        other => Err(format!("{what} must be a hash, got {}", other.kind()).into()),
    }
}

/// An attribute value as the text HBase stores.
pub fn attr_text(v: &Value) -> Res<String> {
    Ok(match v {
        Value::Int(i) => i.to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Str(_) | Value::Const(_) => v.as_text().unwrap_or_default(),
        other => {
            return Err(format!(
                "attribute value must be a string, number or boolean, got {}",
                other.kind()
            )
            .into())
        }
    })
}

/// `f:q` as (family, Some(qualifier)); `f` as (family, None).
pub fn parse_column(c: &[u8]) -> (Vec<u8>, Option<Vec<u8>>) {
    match c.iter().position(|&b| b == b':') {
        Some(i) => (c[..i].to_vec(), Some(c[i + 1..].to_vec())),
        None => (c.to_vec(), None),
    }
}

/// One column or an array of them.
pub fn columns_of(v: &Value) -> Res<Vec<Vec<u8>>> {
    match v {
        Value::Array(items) => items.iter().map(|i| bytes(i, "a column")).collect(),
        other => Ok(vec![bytes(other, "COLUMNS")?]),
    }
}

/// HBase's `Bytes.toBytesBinary`: `\\xHH` (two hex digits) is that byte; every other byte is
/// itself. `create`'s split keys are read this way.
pub fn to_bytes_binary(s: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(s.len());
    let mut i = 0;
    while i < s.len() {
        let hex = |b: u8| (b as char).to_digit(16);
        if let (b'\\', Some(b'x'), Some(Some(h)), Some(Some(l))) = (
            s[i],
            s.get(i + 1).copied(),
            s.get(i + 2).map(|&b| hex(b)),
            s.get(i + 3).map(|&b| hex(b)),
        ) {
            out.push((h * 16 + l) as u8);
            i += 4;
        } else {
            out.push(s[i]);
            i += 1;
        }
    }
    out
}

/// `[start, end)` in milliseconds.
pub fn time_range(v: &Value) -> Res<TimeRange> {
    match v {
        Value::Array(items) if items.len() == 2 => TimeRange::new(
            int(&items[0], "TIMERANGE start")?,
            int(&items[1], "TIMERANGE end")?,
        )
        .map_err(illegal),
        _ => Err("TIMERANGE must be [start, end)".into()),
    }
}

/// Options a shell statement may carry that ferrobase does not honour: naming one is an error
/// rather than a silently dropped option.
pub fn unsupported_option(command: &str, key: &str) -> CommandError {
    CommandError::Usage(format!(
        "{command}: option {key} is not supported by ferrobase"
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn to_bytes_binary_reads_hex_escapes_as_hbase_does() {
        assert_eq!(to_bytes_binary(b"a\\x00\\xFFb"), b"a\x00\xffb".to_vec());
        assert_eq!(to_bytes_binary(b"\\x0"), b"\\x0".to_vec());
        assert_eq!(to_bytes_binary(b"\\xZZ10"), b"\\xZZ10".to_vec());
    }
}
