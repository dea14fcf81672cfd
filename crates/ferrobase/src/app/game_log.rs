//! `ferrobase app game-log`: article 3's `account_actiontype_time` log.

use anyhow::Result;
use ferrobase_apps::game_log::{Action, GameLog, LogQuery, ARTICLE_LIMIT, TABLE};

/// `ferrobase app game-log [--data DIR | --connect URL] COMMAND`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Two accounts, 4 years of monthly logins and logouts.
    LoadSample,
    /// Log one action.
    Log {
        /// The pass account (u52fa532aae9dc).
        #[arg(long, allow_hyphen_values = true, value_name = "A")]
        account: String,
        /// The action type (login).
        #[arg(long, allow_hyphen_values = true, value_name = "T")]
        action: String,
        /// When, 'yyyy-MM-dd HH:mm:ss'.
        #[arg(long, allow_hyphen_values = true, value_name = "TIME")]
        time: String,
        /// oneline:guid.
        #[arg(long, allow_hyphen_values = true, value_name = "G")]
        guid: String,
        /// oneline:report.
        #[arg(long, allow_hyphen_values = true, value_name = "R")]
        report: String,
    },
    /// The article's scan: COLUMNS oneline:guid, oneline:report, LIMIT 10, STARTROW/STOPROW.
    Query {
        /// The account.
        #[arg(long, allow_hyphen_values = true, value_name = "A")]
        account: String,
        /// The action type.
        #[arg(long, allow_hyphen_values = true, value_name = "T")]
        action: String,
        /// The first time, 'yyyy-MM-dd HH:mm:ss', inclusive.
        #[arg(long, allow_hyphen_values = true, value_name = "TIME")]
        from: String,
        /// The stop time, exclusive.
        #[arg(long, allow_hyphen_values = true, value_name = "TIME")]
        to: String,
        /// At most this many rows.
        #[arg(long, value_name = "N", default_value_t = ARTICLE_LIMIT)]
        limit: usize,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
}

/// Runs one game-log command.
pub fn main(args: Args) -> Result<()> {
    let log = GameLog::open(&args.target.connect()?)?;
    match args.command {
        Command::LoadSample => {
            println!("logged {} actions", log.load_sample()?);
        }
        Command::Log {
            account,
            action,
            time,
            guid,
            report,
        } => {
            let x = Action {
                account,
                action,
                time,
                guid,
                report,
            };
            log.log(&x)?;
            println!("logged {}_{}_{}", x.account, x.action, x.time);
        }
        Command::Query {
            account,
            action,
            from,
            to,
            limit,
            explain,
        } => {
            let q = LogQuery {
                account,
                action,
                from,
                to,
                limit,
            };
            if explain {
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
    }
    Ok(())
}
