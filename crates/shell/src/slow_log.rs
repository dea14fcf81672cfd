//! `get_slowlog_responses` (HBase 2.x's `tools` group, `get_slowlog_responses.rb` and
//! `admin.rb`'s `get_slowlog_responses`): the server's slow-operation log, newest first, as
//! HBase's shell prints its region servers' — `Retrieved SlowLog Responses from RegionServers`,
//! then each call as `OnlineLogRecord.toJsonPrettyPrint` writes it (Gson, two-space indents,
//! HTML characters escaped) with ferrobase's figures under HBase's keys, and its `explain` line
//! (what the call's reads cost) as an extra key. Over `--connect` to a ferrobase server
//! (`ferrobaseAdmin` `slow_log`, global ADMIN with ACLs on); an embedded shell has no doors to
//! time, so it retrieves none, as HBase does with its slow-log buffer off.
//!
//! Filters as HBase's: `LIMIT` (default 10), `TABLE_NAME`, `USER`, `CLIENT_IP`, `REGION_NAME`,
//! matched with OR unless `FILTER_BY_OP => 'AND'`; ferrobase records no client address or
//! region, so `CLIENT_IP` and `REGION_NAME` match no call.

use super::args::{client, hash, int, text, CommandError, Res};
use super::interpreter::Shell;
use super::registry::{Command, Group, Run};
use super::syntax::{Statement, Value};
use ferrobase_client::SlowLogEntry;

/// The command.
pub(super) const COMMANDS: &[Command] = &[Command {
    name: "get_slowlog_responses",
    group: Group::Tools,
    help: "Retrieve the server's latest slow operations ('*' for every server; ferrobase is one), newest first, as JSON with what each call's reads cost: LIMIT (default 10), TABLE_NAME, USER, CLIENT_IP, REGION_NAME, FILTER_BY_OP ('OR' or 'AND').",
    examples: &[
        "get_slowlog_responses '*'",
        "get_slowlog_responses '*', {'LIMIT' => 50}",
        "get_slowlog_responses '*', {'TABLE_NAME' => 't1'}",
    ],
    writes: false,
    run: Run::Handler(|sh, st| sh.get_slowlog_responses(st)),
}];

/// HBase's filter of log entries.
#[derive(Debug, Default)]
struct LogFilter {
    limit: usize,
    table: Option<String>,
    user: Option<String>,
    /// `CLIENT_IP` or `REGION_NAME` given: conditions no recorded call meets.
    unrecorded: bool,
    all: bool,
}

impl LogFilter {
    fn read(v: Option<&Value>) -> Res<LogFilter> {
        let mut f = LogFilter {
            limit: 10,
            ..LogFilter::default()
        };
        let Some(v) = v else { return Ok(f) };
        if !matches!(v, Value::Hash(_)) {
            return Err(CommandError::Failed(
                "Filter parameters are not Hash".into(),
            ));
        }
        for (k, v) in hash(v, "filter parameters")? {
            match k.as_str() {
                "LIMIT" => f.limit = usize::try_from(int(&v, "LIMIT")?).unwrap_or(0),
                "TABLE_NAME" => f.table = Some(text(&v, "TABLE_NAME")?),
                "USER" => f.user = Some(text(&v, "USER")?),
                "CLIENT_IP" | "REGION_NAME" => {
                    text(&v, &k)?;
                    f.unrecorded = true;
                }
                "FILTER_BY_OP" => f.all = text(&v, "FILTER_BY_OP")?.eq_ignore_ascii_case("AND"),
                // HBase ignores keys it does not know.
                _ => {}
            }
        }
        Ok(f)
    }

    fn keeps(&self, e: &SlowLogEntry) -> bool {
        let mut tests = Vec::new();
        if let Some(t) = &self.table {
            tests.push(&e.table == t);
        }
        if let Some(u) = &self.user {
            tests.push(&e.user == u);
        }
        if self.unrecorded {
            tests.push(false);
        }
        if tests.is_empty() {
            return true;
        }
        if self.all {
            tests.iter().all(|&t| t)
        } else {
            tests.iter().any(|&t| t)
        }
    }
}

/// A string as Gson writes it with HTML escaping on (its default, which HBase's `GsonUtil`
/// keeps): quotes, backslashes and control characters escaped, and `<`, `>`, `&`, `=`, `'` as
/// `\u003c`-style escapes.
fn gson_string(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '=' | '\'' => out.push_str(&format!("\\u{:04x}", c as u32)),
            c if (c as u32) < 0x20 || c == '\u{2028}' || c == '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// One call as `OnlineLogRecord.toJsonPrettyPrint`: HBase's keys in its order (the multi-call
/// counts left out, as HBase leaves them out at 0), then ferrobase's `explain`.
fn record_json(e: &SlowLogEntry) -> String {
    let millis = e.duration_micros / 1000;
    let start = e.at_ms.saturating_sub(millis);
    let fields: [(&str, String); 13] = [
        ("startTime", start.to_string()),
        ("processingTime", millis.to_string()),
        ("queueTime", "0".into()),
        ("responseSize", "0".into()),
        ("blockBytesScanned", "0".into()),
        ("fsReadTime", "0".into()),
        ("clientAddress", gson_string("")),
        (
            "serverClass",
            gson_string(&format!("ferrobase {} door", e.door)),
        ),
        ("methodName", gson_string(&e.method)),
        ("callDetails", gson_string(&e.description)),
        ("param", gson_string(&e.table)),
        ("userName", gson_string(&e.user)),
        ("explain", gson_string(&e.explain)),
    ];
    let body: Vec<String> = fields
        .iter()
        .map(|(k, v)| format!("  \"{k}\": {v}"))
        .collect();
    format!("{{\n{}\n}}", body.join(",\n"))
}

impl Shell {
    /// `get_slowlog_responses '*' | ['server', ...][, {filters}]`.
    fn get_slowlog_responses(&mut self, st: &Statement) -> Res<()> {
        let Some(servers) = st.args.first() else {
            return Err(CommandError::Usage(
                "get_slowlog_responses needs '*' or an array of server names".into(),
            ));
        };
        match servers {
            Value::Str(_) | Value::Array(_) => {}
            other => {
                // As Ruby's `"#{v.class} of #{v.inspect}"`.
                let described = match other {
                    Value::Int(n) => format!("Integer of {n}"),
                    Value::Float(x) => format!("Float of {x:?}"),
                    Value::Bool(b) => format!("{}Class of {b}", if *b { "True" } else { "False" }),
                    Value::Nil => "NilClass of nil".to_string(),
                    other => other.kind().to_string(),
                };
                return Err(CommandError::Failed(format!(
                    "{described} is not of Array/String type"
                )));
            }
        }
        if st.args.len() > 2 {
            return Err(CommandError::Usage(
                "get_slowlog_responses takes the servers and a hash of filters".into(),
            ));
        }
        let filter = LogFilter::read(st.args.get(1))?;
        let entries = self.conn.slow_log().map_err(client)?;
        self.line("Retrieved SlowLog Responses from RegionServers");
        for e in entries
            .iter()
            .filter(|e| filter.keeps(e))
            .take(filter.limit)
        {
            for l in record_json(e).lines() {
                self.line(l);
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn entry(table: &str, user: &str) -> SlowLogEntry {
        SlowLogEntry {
            at_ms: 10_000,
            door: "thrift".into(),
            method: "Hbase.getRow".into(),
            table: table.into(),
            user: user.into(),
            duration_micros: 2_500,
            description: "row r (ok)".into(),
            explain: "rows_examined=1 seeks=1".into(),
        }
    }

    #[test]
    fn a_record_prints_as_gson_pretty_prints_it() {
        let json = record_json(&entry("t1", "alice"));
        assert!(json.starts_with("{\n  \"startTime\": 9998,\n  \"processingTime\": 2,\n"));
        assert!(json.contains("\n  \"methodName\": \"Hbase.getRow\",\n"));
        assert!(json.ends_with("\n  \"explain\": \"rows_examined\\u003d1 seeks\\u003d1\"\n}"));
        assert_eq!(
            gson_string("a<b>'&\"\\"),
            "\"a\\u003cb\\u003e\\u0027\\u0026\\\"\\\\\""
        );
    }

    #[test]
    fn filters_match_with_or_unless_and() {
        let mut f = LogFilter {
            limit: 10,
            table: Some("t1".into()),
            user: Some("bob".into()),
            ..LogFilter::default()
        };
        assert!(f.keeps(&entry("t1", "alice")));
        f.all = true;
        assert!(!f.keeps(&entry("t1", "alice")));
        assert!(f.keeps(&entry("t1", "bob")));
        let region = LogFilter {
            unrecorded: true,
            ..LogFilter::default()
        };
        assert!(!region.keeps(&entry("t1", "bob")));
    }
}
