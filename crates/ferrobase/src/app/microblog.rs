//! `ferrobase app microblog`: article 4's follow, post and inbox tables and the fan-out worker.

use super::args::Args;
use anyhow::{bail, Result};
use ferrobase_apps::microblog::fanout::WorkerOptions;
use ferrobase_apps::microblog::Microblog;
use std::time::Duration;

pub(super) const USAGE: &str = "\
ferrobase app microblog [--data DIR | --connect URL] COMMAND
  follow --user U --target T        U follows T
  unfollow --user U --target T
  post --user U --text TEXT         publish and queue the fan-out
  worker [--once] [--poll-ms MS]    deliver queued posts (--once: until the queue is empty)
  home --user U [--limit N]         U's home timeline, newest first
  posts --user U [--limit N]        U's own posts, newest first
  inbox --user U [--limit N]        U's inbox cell versions: time and post id
  fans --user U | following --user U
";

/// Runs one microblog command.
pub fn main(args: &[String]) -> Result<()> {
    let a = Args::parse(args, &["once", "explain"])?;
    if a.command.is_empty() || a.command == "help" {
        print!("{USAGE}");
        return Ok(());
    }
    let mb = Microblog::open(&a.connect()?)?;
    let limit = || -> Result<usize> { Ok(a.opt("limit")?.unwrap_or(20)) };
    match a.command.as_str() {
        "follow" | "unfollow" => {
            a.only(&["user", "target"])?;
            let (user, target): (u64, u64) = (a.get("user")?, a.get("target")?);
            if a.command == "follow" {
                mb.follow(user, target)?;
                println!("user {user} follows {target}");
            } else {
                mb.unfollow(user, target)?;
                println!("user {user} no longer follows {target}");
            }
        }
        "post" => {
            a.only(&["user", "text"])?;
            let p = mb.post(a.get("user")?, &a.get::<String>("text")?)?;
            println!("{}", p.to_line());
        }
        "worker" => {
            a.only(&["poll-ms"])?;
            let opts = WorkerOptions {
                exit_when_idle: a.on("once"),
                poll_interval: Duration::from_millis(a.opt("poll-ms")?.unwrap_or(200)),
                ..WorkerOptions::default()
            };
            // One line per delivery, written before the cursor moves (tests kill the worker
            // after reading some of these).
            let n = mb.run_worker(&opts, &mut |d| {
                println!("delivered {} to {}", d.post, d.fan)
            })?;
            println!("fan-out done: {n} posts");
        }
        "home" => {
            a.only(&["user", "limit"])?;
            let user = a.get("user")?;
            super::print_lines(
                mb.home_timeline(user, limit()?)?,
                |p| p.to_line(),
                &format!("user {user}'s home timeline is empty"),
            );
        }
        "posts" => {
            a.only(&["user", "limit"])?;
            let (user, n) = (a.get("user")?, limit()?);
            if a.on("explain") {
                println!(
                    "{}",
                    mb.plan_own_posts(user, n)?
                        .shell(ferrobase_apps::microblog::POST_TABLE)
                );
            }
            super::print_lines(
                mb.own_posts(user, n)?,
                |p| p.to_line(),
                &format!("user {user} has no posts"),
            );
        }
        "inbox" => {
            a.only(&["user", "limit"])?;
            let user = a.get("user")?;
            super::print_lines(
                mb.inbox(user, limit()?)?,
                |e| format!("time={} post={}", e.time, e.post),
                &format!("user {user}'s inbox is empty"),
            );
        }
        "fans" | "following" => {
            a.only(&["user"])?;
            let user = a.get("user")?;
            let users = if a.command == "fans" {
                mb.fans(user)?
            } else {
                mb.following(user)?
            };
            let none = match a.command.as_str() {
                "fans" => format!("user {user} has no fans"),
                _ => format!("user {user} follows nobody"),
            };
            super::print_lines(users, |u| u.to_string(), &none);
        }
        other => bail!("unknown command {other:?}\n{USAGE}"),
    }
    Ok(())
}
