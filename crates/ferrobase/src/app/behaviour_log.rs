//! `ferrobase app behaviour-log`: article 1's two schemes.

use super::args::Args;
use anyhow::{bail, Result};
use ferrobase_apps::behaviour_log::{BehaviourLog, Event, Scheme, TALL_TABLE, WIDE_TABLE};
use ferrobase_apps::clock::now_millis;

pub(super) const USAGE: &str = "\
ferrobase app behaviour-log [--data DIR | --connect URL] [--scheme tall|wide] COMMAND
  record --uid U --item ITEM [--ts MS]     one event (default: now)
  get --uid U --ts MS                      the event at exactly MS
  range --uid U --from MS --to MS          events in [from, to], newest first
  newest --uid U [--limit N]               the newest N (default 10)
  (--explain prints the Get or scan first)
";

/// Runs one behaviour-log command.
pub fn main(args: &[String]) -> Result<()> {
    let a = Args::parse(args, &["explain"])?;
    if a.command.is_empty() || a.command == "help" {
        print!("{USAGE}");
        return Ok(());
    }
    let scheme: Scheme = a.opt("scheme")?.unwrap_or(Scheme::Tall);
    let table = match scheme {
        Scheme::Tall => TALL_TABLE,
        Scheme::Wide => WIDE_TABLE,
    };
    let log = BehaviourLog::open(&a.connect()?, scheme)?;
    let explain = |r: ferrobase_apps::Result<ferrobase_apps::behaviour_log::Read>| -> Result<()> {
        if a.on("explain") {
            println!("{}", r?.shell(table));
        }
        Ok(())
    };
    let (events, none): (Vec<Event>, String) = match a.command.as_str() {
        "record" => {
            a.only(&["scheme", "uid", "item", "ts"])?;
            let (uid, ts) = (
                a.get::<u64>("uid")?,
                a.opt("ts")?.unwrap_or_else(now_millis),
            );
            log.record(uid, ts, &a.get::<String>("item")?)?;
            println!("recorded uid={uid} ts={ts}");
            return Ok(());
        }
        "get" => {
            a.only(&["scheme", "uid", "ts"])?;
            let (uid, ts) = (a.get("uid")?, a.get("ts")?);
            explain(log.plan_get(uid, ts))?;
            let none = format!("no event for uid={uid} at ts={ts}");
            (log.get(uid, ts)?.into_iter().collect(), none)
        }
        "range" => {
            a.only(&["scheme", "uid", "from", "to"])?;
            let (uid, from, to) = (a.get("uid")?, a.get("from")?, a.get("to")?);
            explain(log.plan_range(uid, from, to))?;
            let none = format!("no events for uid={uid} from ts={from} to ts={to}");
            (log.range(uid, from, to)?, none)
        }
        "newest" => {
            a.only(&["scheme", "uid", "limit"])?;
            let (uid, n) = (a.get("uid")?, a.opt("limit")?.unwrap_or(10));
            explain(log.plan_newest(uid, n))?;
            (log.newest(uid, n)?, format!("no events for uid={uid}"))
        }
        other => bail!("unknown command {other:?}\n{USAGE}"),
    };
    super::print_lines(
        events,
        |e| format!("uid={} ts={} item={}", e.uid, e.ts, e.item),
        &none,
    );
    Ok(())
}
