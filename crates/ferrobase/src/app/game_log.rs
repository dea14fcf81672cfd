//! `ferrobase app game-log`: article 3's `account_actiontype_time` log.

use super::args::Args;
use anyhow::{bail, Result};
use ferrobase_apps::game_log::{Action, GameLog, LogQuery, ARTICLE_LIMIT, TABLE};

pub(super) const USAGE: &str = "\
ferrobase app game-log [--data DIR | --connect URL] COMMAND
  load-sample                                        two accounts, 4 years of monthly logins and logouts
  log --account A --action T --time 'yyyy-MM-dd HH:mm:ss' --guid G --report R
  query --account A --action T --from TIME --to TIME [--limit N] [--explain]
        the article's scan: COLUMNS oneline:guid, oneline:report, LIMIT 10, STARTROW/STOPROW
";

/// Runs one game-log command.
pub fn main(args: &[String]) -> Result<()> {
    let a = Args::parse(args, &["explain"])?;
    if a.command.is_empty() || a.command == "help" {
        print!("{USAGE}");
        return Ok(());
    }
    let log = GameLog::open(&a.connect()?)?;
    match a.command.as_str() {
        "load-sample" => {
            a.only(&[])?;
            println!("logged {} actions", log.load_sample()?);
        }
        "log" => {
            a.only(&["account", "action", "time", "guid", "report"])?;
            let x = Action {
                account: a.get("account")?,
                action: a.get("action")?,
                time: a.get("time")?,
                guid: a.get("guid")?,
                report: a.get("report")?,
            };
            log.log(&x)?;
            println!("logged {}_{}_{}", x.account, x.action, x.time);
        }
        "query" => {
            a.only(&["account", "action", "from", "to", "limit"])?;
            let q = LogQuery {
                account: a.get("account")?,
                action: a.get("action")?,
                from: a.get("from")?,
                to: a.get("to")?,
                limit: a.opt("limit")?.unwrap_or(ARTICLE_LIMIT),
            };
            if a.on("explain") {
                println!("{}", log.plan_query(&q)?.shell(TABLE));
            }
            super::print_lines(
                log.query(&q)?,
                |x| {
                    format!(
                        "{}_{}_{} guid={} report={}",
                        x.account, x.action, x.time, x.guid, x.report
                    )
                },
                &format!(
                    "no {} actions of {} from {} to {}",
                    q.action, q.account, q.from, q.to
                ),
            );
        }
        other => bail!("unknown command {other:?}\n{USAGE}"),
    }
    Ok(())
}
