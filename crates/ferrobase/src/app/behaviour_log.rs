//! `ferrobase app behaviour-log`: article 1's two schemes.

use anyhow::Result;
use ferrobase_apps::behaviour_log::{BehaviourLog, Event, Read, Scheme, TALL_TABLE, WIDE_TABLE};

/// `ferrobase app behaviour-log [--data DIR | --connect URL] [--scheme tall|wide] COMMAND`.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// The scheme: one row per event (tall) or one row per user (wide).
    #[arg(long, global = true, value_enum, default_value_t = SchemeArg::Tall)]
    scheme: SchemeArg,
    #[command(flatten)]
    target: super::Target,
    #[command(subcommand)]
    command: Command,
}

#[derive(clap::ValueEnum, Clone, Copy, Debug)]
enum SchemeArg {
    Tall,
    Wide,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Record one event.
    Record {
        /// The user.
        #[arg(long, value_name = "U")]
        uid: u64,
        /// The item.
        #[arg(long, allow_hyphen_values = true, value_name = "ITEM")]
        item: String,
        /// When, ms since the epoch.
        #[arg(long, allow_negative_numbers = true, value_name = "MS", default_value = "now", value_parser = super::millis_or_now)]
        ts: i64,
    },
    /// The event at exactly --ts.
    Get {
        /// The user.
        #[arg(long, value_name = "U")]
        uid: u64,
        /// The time, ms since the epoch.
        #[arg(long, allow_negative_numbers = true, value_name = "MS")]
        ts: i64,
        /// Print the Get first.
        #[arg(long)]
        explain: bool,
    },
    /// The events in [--from, --to], newest first.
    Range {
        /// The user.
        #[arg(long, value_name = "U")]
        uid: u64,
        /// The first time, ms since the epoch.
        #[arg(long, allow_negative_numbers = true, value_name = "MS")]
        from: i64,
        /// The last time, ms since the epoch.
        #[arg(long, allow_negative_numbers = true, value_name = "MS")]
        to: i64,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
    /// The newest --limit events.
    Newest {
        /// The user.
        #[arg(long, value_name = "U")]
        uid: u64,
        /// At most this many.
        #[arg(long, value_name = "N", default_value_t = 10)]
        limit: usize,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
}

/// Runs one behaviour-log command.
pub fn main(args: Args) -> Result<()> {
    let (scheme, table) = match args.scheme {
        SchemeArg::Tall => (Scheme::Tall, TALL_TABLE),
        SchemeArg::Wide => (Scheme::Wide, WIDE_TABLE),
    };
    let log = BehaviourLog::open(&args.target.connect()?, scheme)?;
    let explain = |on: bool, r: ferrobase_apps::Result<Read>| -> Result<()> {
        if on {
            println!("{}", r?.shell(table));
        }
        Ok(())
    };
    let (events, none): (Vec<Event>, String) = match args.command {
        Command::Record { uid, item, ts } => {
            log.record(uid, ts, &item)?;
            println!("recorded uid={uid} ts={ts}");
            return Ok(());
        }
        Command::Get {
            uid,
            ts,
            explain: e,
        } => {
            explain(e, log.plan_get(uid, ts))?;
            let none = format!("no event for uid={uid} at ts={ts}");
            (log.get(uid, ts)?.into_iter().collect(), none)
        }
        Command::Range {
            uid,
            from,
            to,
            explain: e,
        } => {
            explain(e, log.plan_range(uid, from, to))?;
            let none = format!("no events for uid={uid} from ts={from} to ts={to}");
            (log.range(uid, from, to)?, none)
        }
        Command::Newest {
            uid,
            limit,
            explain: e,
        } => {
            explain(e, log.plan_newest(uid, limit))?;
            (log.newest(uid, limit)?, format!("no events for uid={uid}"))
        }
    };
    super::print_lines(
        events,
        |e| format!("uid={} ts={} item={}", e.uid, e.ts, e.item),
        &none,
    );
    Ok(())
}
