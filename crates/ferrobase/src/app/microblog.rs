//! `ferrobase app microblog`: article 4's follow, post and inbox tables and the fan-out worker.

use anyhow::Result;
use ferrobase_apps::microblog::fanout::WorkerOptions;
use ferrobase_apps::microblog::Microblog;
use std::time::Duration;

/// `ferrobase app microblog [--data DIR | --connect URL] COMMAND`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    #[command(subcommand)]
    command: Command,
}

/// The user and the length of a timeline.
#[derive(clap::Args, Debug)]
struct Timeline {
    /// The user.
    #[arg(long, value_name = "U")]
    user: u64,
    /// At most this many.
    #[arg(long, value_name = "N", default_value_t = 20)]
    limit: usize,
}

/// Two users.
#[derive(clap::Args, Debug)]
struct Pair {
    /// The fan.
    #[arg(long, value_name = "U")]
    user: u64,
    /// The user followed.
    #[arg(long, value_name = "T")]
    target: u64,
}

/// One user.
#[derive(clap::Args, Debug)]
struct User {
    /// The user.
    #[arg(long, value_name = "U")]
    user: u64,
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// --user follows --target.
    Follow(Pair),
    /// --user no longer follows --target.
    Unfollow(Pair),
    /// Publish a post and queue its fan-out.
    Post {
        /// The author.
        #[arg(long, value_name = "U")]
        user: u64,
        /// The post.
        #[arg(long, allow_hyphen_values = true, value_name = "TEXT")]
        text: String,
    },
    /// Deliver queued posts to the fans' inboxes.
    Worker {
        /// Stop when the queue is empty.
        #[arg(long)]
        once: bool,
        /// How often to look at an empty queue, in ms.
        #[arg(long, value_name = "MS", default_value_t = 200)]
        poll_ms: u64,
    },
    /// A user's home timeline, newest first.
    Home(Timeline),
    /// A user's own posts, newest first.
    Posts {
        #[command(flatten)]
        timeline: Timeline,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
    /// A user's inbox cell versions: time and post id.
    Inbox(Timeline),
    /// A user's fans.
    Fans(User),
    /// The users a user follows.
    Following(User),
}

/// Runs one microblog command.
pub fn main(args: Args) -> Result<()> {
    let mb = Microblog::open(&args.target.connect()?)?;
    match args.command {
        Command::Follow(Pair { user, target }) => {
            mb.follow(user, target)?;
            println!("user {user} follows {target}");
        }
        Command::Unfollow(Pair { user, target }) => {
            mb.unfollow(user, target)?;
            println!("user {user} no longer follows {target}");
        }
        Command::Post { user, text } => {
            let p = mb.post(user, &text)?;
            println!("{}", p.to_line());
        }
        Command::Worker { once, poll_ms } => {
            let opts = WorkerOptions {
                exit_when_idle: once,
                poll_interval: Duration::from_millis(poll_ms),
                ..WorkerOptions::default()
            };
            // One line per delivery, written before the cursor moves (tests kill the worker
            // after reading some of these).
            let n = mb.run_worker(&opts, &mut |d| {
                println!("delivered {} to {}", d.post, d.fan)
            })?;
            println!("fan-out done: {n} posts");
        }
        Command::Home(Timeline { user, limit }) => {
            super::print_lines(
                mb.home_timeline(user, limit)?,
                |p| p.to_line(),
                &format!("user {user}'s home timeline is empty"),
            );
        }
        Command::Posts {
            timeline: Timeline { user, limit },
            explain,
        } => {
            if explain {
                println!(
                    "{}",
                    mb.plan_own_posts(user, limit)?
                        .shell(ferrobase_apps::microblog::POST_TABLE)
                );
            }
            super::print_lines(
                mb.own_posts(user, limit)?,
                |p| p.to_line(),
                &format!("user {user} has no posts"),
            );
        }
        Command::Inbox(Timeline { user, limit }) => {
            super::print_lines(
                mb.inbox(user, limit)?,
                |e| format!("time={} post={}", e.time, e.post),
                &format!("user {user}'s inbox is empty"),
            );
        }
        Command::Fans(User { user }) => {
            super::print_lines(
                mb.fans(user)?,
                |u| u.to_string(),
                &format!("user {user} has no fans"),
            );
        }
        Command::Following(User { user }) => {
            super::print_lines(
                mb.following(user)?,
                |u| u.to_string(),
                &format!("user {user} follows nobody"),
            );
        }
    }
    Ok(())
}
