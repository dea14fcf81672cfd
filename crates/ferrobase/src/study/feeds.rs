//! `ferrobase study feeds`: the open questions of articles 002 and 003.
//!
//! - **Game log (002)**: the article's key `account_action_time` against its second design, row
//!   `account_time` with the action as a column. Its query (one account's logins in a period)
//!   and the one the first design's stated drawback ("the query scenarios it serves are
//!   limited") is about: one account's whole path, every action in time order.
//! - **Inbox ordering (003)**: the article's inbox, one cell with `VERSIONS => 1000` whose
//!   versions are the timeline, against rows keyed `uid + (Long.MAX_VALUE - time)`: the newest
//!   20 and what survives 1 500 deliveries.
//! - **Fan-out on write (003)**: the microblog app's worker delivering one post to 10 … 10 000
//!   followers (`ferrobase-apps`, embedded).

use super::measure::{latencies, micros, quantile};
use super::report::{sig, thousands, Report, Table as MdTable};
use super::{scratch_dir, Load, StudyOptions};
use crate::bench::Rng;
use anyhow::{ensure, Result};
use ferrobase_apps::microblog::Microblog;
use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Get, Metrics, Put, Scan, Table, TableDescriptor,
    TableName,
};
use std::time::Instant;

/// Sizes of one run.
#[derive(Debug, Clone)]
struct Config {
    /// Game-log accounts and days of actions per account (eight actions a day).
    accounts: u64,
    days: u64,
    /// Queries per measured read.
    queries: usize,
    /// Inbox users and deliveries per user.
    inbox_users: u64,
    deliveries: u64,
    /// Follower counts of the fan-out measurement.
    followers: Vec<u64>,
}

impl Config {
    fn new(quick: bool) -> Config {
        if quick {
            Config {
                accounts: 20,
                days: 60,
                queries: 50,
                inbox_users: 10,
                deliveries: 1_500,
                followers: vec![10, 100, 1_000],
            }
        } else {
            Config {
                accounts: 200,
                days: 365,
                queries: 500,
                inbox_users: 200,
                deliveries: 1_500,
                followers: vec![10, 100, 1_000, 10_000],
            }
        }
    }
}

/// The action types of the sample log.
const ACTIONS: [&str; 8] = [
    "chat", "fight", "levelup", "login", "logout", "pay", "quest", "trade",
];

/// `yyyy-MM-dd HH:mm:ss` of day `d` of 2013 (months of 28 days, enough for ordering) at
/// `hour`.
fn time_of(d: u64, hour: u64) -> String {
    format!(
        "2013-{:02}-{:02} {hour:02}:{:02}:00",
        d / 28 % 12 + 1,
        d % 28 + 1,
        d % 60
    )
}

fn create(engine: &Engine, name: &str, versions: u32) -> Result<Table> {
    let mut f = ColumnFamilyDescriptor::new("oneline");
    f.max_versions = versions;
    engine
        .admin()
        .create_table(TableDescriptor::new(TableName::parse(name)?).with_family(f))?;
    Ok(engine.table(name)?)
}

/// The game log's two designs, one query each way: (p50 µs, rows examined, scans) per design
/// and query.
fn game_log(engine: &Engine, cfg: &Config, report: &mut Report) -> Result<()> {
    let by_action = create(engine, "log_by_action", 1)?;
    let by_time = create(engine, "log_by_time", 1)?;
    let mut puts = (Vec::new(), Vec::new());
    for a in 0..cfg.accounts {
        let account = format!("u{a:013x}");
        for d in 0..cfg.days {
            for (h, action) in ACTIONS.iter().enumerate() {
                let time = time_of(d, 8 + h as u64);
                let report = format!("{action} on day {d}");
                puts.0.push(
                    Put::new(format!("{account}_{action}_{time}"))
                        .add_column("oneline", "guid", format!("g{a}-{d}-{h}"))
                        .add_column("oneline", "report", report.as_bytes()),
                );
                // The second design: the action is the column, its report the value.
                puts.1.push(
                    Put::new(format!("{account}_{time}")).add_column("oneline", *action, report),
                );
            }
        }
        by_action.put_all(std::mem::take(&mut puts.0))?;
        by_time.put_all(std::mem::take(&mut puts.1))?;
    }
    for t in ["log_by_action", "log_by_time"] {
        engine.admin().flush(t)?;
        engine.admin().major_compact(t)?;
    }
    let m = engine.metrics();
    let examined = || Metrics::get(&m.rows_examined);
    // A quarter of the year: 1/4 of an account's actions of one type, or of all types.
    let (from, to) = (time_of(cfg.days / 4, 0), time_of(cfg.days / 2, 0));
    let mut t = MdTable::new(&[
        "query",
        "design",
        ">scans",
        ">rows examined",
        ">rows returned",
        ">p50 µs",
    ]);
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut run =
        |query: &str, design: &str, f: &dyn Fn(&str) -> Result<(usize, usize)>| -> Result<()> {
            let accounts: Vec<String> = (0..cfg.queries)
                .map(|_| format!("u{:013x}", rng.next() % cfg.accounts))
                .collect();
            let (mut scans, mut rows) = (0, 0);
            for a in &accounts {
                f(a)?; // warm-up
            }
            let before = examined();
            let lat = latencies(accounts.len(), |i| {
                (scans, rows) = f(&accounts[i])?;
                Ok::<(), anyhow::Error>(())
            })?;
            t.row(vec![
                query.into(),
                design.into(),
                scans.to_string(),
                sig((examined() - before) as f64 / accounts.len() as f64, 3),
                rows.to_string(),
                sig(micros(quantile(&lat, 0.5)), 3),
            ]);
            Ok(())
        };
    let scan = |table: &Table, start: String, stop: String, column: Option<&str>| {
        let mut s = Scan::new().with_start_row(start).with_stop_row(stop);
        if let Some(c) = column {
            s = s.add_column("oneline", c);
        }
        Ok::<Vec<_>, anyhow::Error>(table.scanner(&s)?.collect::<Result<Vec<_>, _>>()?)
    };
    let logins = "one account's logins in a quarter (the article's query)";
    run(logins, "1: `account_action_time`", &|a| {
        let rows = scan(
            &by_action,
            format!("{a}_login_{from}"),
            format!("{a}_login_{to}"),
            None,
        )?;
        Ok((1, rows.len()))
    })?;
    run(logins, "2: `account_time`, action as column", &|a| {
        let rows = scan(
            &by_time,
            format!("{a}_{from}"),
            format!("{a}_{to}"),
            Some("login"),
        )?;
        Ok((1, rows.len()))
    })?;
    let path = "one account's every action in a quarter, in time order";
    run(path, "1: one scan per action type, merged", &|a| {
        let mut all = Vec::new();
        for action in ACTIONS {
            for r in scan(
                &by_action,
                format!("{a}_{action}_{from}"),
                format!("{a}_{action}_{to}"),
                None,
            )? {
                let key = r.row().to_vec();
                let time = key[key.len() - 19..].to_vec();
                all.push((time, key));
            }
        }
        all.sort();
        Ok((ACTIONS.len(), all.len()))
    })?;
    run(path, "2: `account_time`, action as column", &|a| {
        let rows = scan(&by_time, format!("{a}_{from}"), format!("{a}_{to}"), None)?;
        Ok((1, rows.iter().map(|r| r.cells.len()).sum()))
    })?;
    // The second design's other cost: two actions of one type in the same second are one
    // cell; the second overwrites the first (VERSIONS 1).
    let probe = format!("u{:013x}_{}", cfg.accounts + 1, time_of(0, 8));
    by_time.put(Put::new(probe.as_str()).add_column("oneline", "pay", "pay 30"))?;
    by_time.put(Put::new(probe.as_str()).add_column("oneline", "pay", "pay 12"))?;
    let kept = by_time
        .get(&Get::new(probe.as_str()).max_versions(10))?
        .cells
        .len();
    ensure!(kept == 1, "two pays in one second kept {kept} cells");
    report.text(&format!(
        "### Game log (article 002): `account_action_time` against `account_time` with the \
         action as a column\n\n{} accounts × {} days × {} actions a day, each in its own \
         second ({} rows in either design), flushed and major-compacted; {} queries of random \
         accounts each, p50.",
        cfg.accounts,
        cfg.days,
        ACTIONS.len(),
        thousands(cfg.accounts * cfg.days * ACTIONS.len() as u64),
        cfg.queries
    ));
    report.table(&t);
    report.text(
        "Design 2 also loses data design 1 keeps: two actions of one type by one account in the \
         same second are one cell of one row, and the second write replaces the first (measured: \
         two `pay` puts in one second left 1 cell). Design 1 has the same collision only for the \
         same action at the same second, where its key is the same row too.",
    );
    Ok(())
}

/// The inbox as versions of one cell against reversed-time rows.
fn inbox(engine: &Engine, cfg: &Config, report: &mut Report) -> Result<()> {
    let versions = create(engine, "inbox_versions", 1000)?;
    let rows = create(engine, "inbox_rows", 1)?;
    let base: i64 = 1_700_000_000_000;
    for u in 0..cfg.inbox_users {
        let user = format!("{u:010}");
        let (mut pv, mut pr) = (Vec::new(), Vec::new());
        for d in 0..cfg.deliveries {
            let time = base + (d as i64) * 1000;
            let post = format!("{:010}{}", d % 97, i64::MAX - time);
            pv.push(Put::new(user.as_str()).add_column_ts("oneline", "id", time, post.as_bytes()));
            let mut key = user.clone().into_bytes();
            key.extend_from_slice(&(i64::MAX - time).to_be_bytes());
            pr.push(Put::new(key).add_column_ts("oneline", "id", time, post.as_bytes()));
        }
        versions.put_all(pv)?;
        rows.put_all(pr)?;
    }
    let mut disk = Vec::new();
    for t in ["inbox_versions", "inbox_rows"] {
        engine.admin().flush(t)?;
        engine.admin().major_compact(t)?;
        disk.push(
            engine
                .admin()
                .regions(t)?
                .iter()
                .map(|r| r.file_bytes)
                .sum::<u64>(),
        );
    }
    let mut rng = Rng(0x5851_f42d_4c95_7f2d);
    let users: Vec<String> = (0..cfg.queries)
        .map(|_| format!("{:010}", rng.next() % cfg.inbox_users))
        .collect();
    let newest_v = |u: &str, n: u32| -> Result<usize> {
        let r = versions.get(&Get::new(u).max_versions(n))?;
        Ok(r.cells.len())
    };
    let newest_r = |u: &str, n: usize| -> Result<usize> {
        let mut stop = u.as_bytes().to_vec();
        if let Some(last) = stop.last_mut() {
            *last += 1;
        }
        let s = Scan::new()
            .with_start_row(u.as_bytes().to_vec())
            .with_stop_row(stop)
            .limit(n);
        count_rows(&rows, &s)
    };
    let mut t = MdTable::new(&[
        "inbox design",
        ">newest 20, p50 µs",
        ">all kept, p50 µs",
        &format!(">entries kept of {}", thousands(cfg.deliveries)),
        ">MiB on disk",
    ]);
    for (design, newest, all, kept, bytes) in [
        (
            "one cell, `VERSIONS => 1000` (the article's)",
            &(|u: &str| newest_v(u, 20)) as &dyn Fn(&str) -> Result<usize>,
            &(|u: &str| newest_v(u, 1000)) as &dyn Fn(&str) -> Result<usize>,
            newest_v(&users[0], u32::MAX)?,
            disk[0],
        ),
        (
            "rows `uid + (Long.MAX_VALUE - time)`",
            &(|u: &str| newest_r(u, 20)) as &dyn Fn(&str) -> Result<usize>,
            &(|u: &str| newest_r(u, usize::MAX)) as &dyn Fn(&str) -> Result<usize>,
            newest_r(&users[0], usize::MAX)?,
            disk[1],
        ),
    ] {
        let mut p50 = Vec::new();
        for f in [newest, all] {
            for u in &users {
                f(u)?; // warm-up
            }
            let lat = latencies(users.len(), |i| f(&users[i]).map(|_| ()))?;
            p50.push(micros(quantile(&lat, 0.5)));
        }
        t.row(vec![
            design.into(),
            sig(p50[0], 3),
            sig(p50[1], 3),
            thousands(kept as u64),
            sig(bytes as f64 / (1 << 20) as f64, 3),
        ]);
    }
    report.text(&format!(
        "### Inbox ordering (article 003): versions of one cell against reversed-time rows\n\n\
         {} users, {} deliveries each (post ids of 29 bytes, one a second), flushed and \
         major-compacted; {} reads of random users, p50. The versioned cell keeps the newest \
         1 000 and drops the rest at once (`docs/apps/cell-lifetime.md`); rows keep everything \
         until deleted, and page with a start row.",
        cfg.inbox_users,
        thousands(cfg.deliveries),
        cfg.queries
    ));
    report.table(&t);
    Ok(())
}

/// Rows of a scan (the reversed-time inbox's entries).
fn count_rows(t: &Table, s: &Scan) -> Result<usize> {
    Ok(t.scanner(s)?.count())
}

/// The microblog app's fan-out of one post per follower count.
fn fan_out(dir: &std::path::Path, cfg: &Config, report: &mut Report) -> Result<()> {
    let mut t = MdTable::new(&[
        ">followers",
        ">deliver one post, ms",
        ">µs per follower",
        ">puts",
    ]);
    for &n in &cfg.followers {
        let engine = Engine::open(dir.join(format!("fanout-{n}")), EngineOptions::default())?;
        let conn = ferrobase_client::Connection::embedded(engine.clone());
        let mb = Microblog::open(&conn)?;
        for fan in 2..n + 2 {
            mb.follow(fan, 1)?;
        }
        // A warm-up post, then the measured ones.
        let mut times = Vec::new();
        for round in 0..4 {
            mb.post(1, &format!("post {round}"))?;
            let t0 = Instant::now();
            let delivered = mb.drain_fanout(10, &mut |_| {})?;
            let took = t0.elapsed();
            ensure!(delivered == 1, "{delivered} posts delivered");
            if round > 0 {
                times.push(took.as_secs_f64() * 1e3);
            }
        }
        let inbox = mb.inbox(n + 1, 10)?;
        ensure!(
            inbox.len() == 4,
            "the last fan's inbox holds {}",
            inbox.len()
        );
        engine.close();
        let ms = super::measure::median_f64(&times);
        t.row(vec![
            thousands(n),
            sig(ms, 3),
            sig(ms * 1e3 / n as f64, 3),
            thousands(2 * n + 2),
        ]);
    }
    report.text(
        "### Fan-out on write (article 003): one post delivered by the microblog app's worker\n\n\
         `ferrobase-apps`' `Microblog::drain_fanout`, embedded: per follower one inbox put and one \
         cursor put (so a killed worker resumes where it stopped), plus the post row and the \
         queue row's delete; the median of 3 posts after a warm-up one.",
    );
    report.table(&t);
    Ok(())
}

/// Runs the study and writes `feeds.md`.
pub fn run(opts: &StudyOptions) -> Result<()> {
    run_with(opts, &Config::new(opts.quick))
}

fn run_with(opts: &StudyOptions, cfg: &Config) -> Result<()> {
    let load = Load::start();
    let mut report = Report::default();
    report.text(&format!(
        "## Game log designs, inbox ordering and fan-out (articles 002, 003): measured results\n\n\
         `ferrobase study feeds{}`, embedded engine, reads warm.",
        if opts.quick { " --quick" } else { "" }
    ));
    let dir = scratch_dir()?;
    let engine = Engine::open(dir.path().join("tables"), EngineOptions::default())?;
    game_log(&engine, cfg, &mut report)?;
    inbox(&engine, cfg, &mut report)?;
    engine.close();
    fan_out(dir.path(), cfg, &mut report)?;
    report.text(&format!("Measured under {}.", load.line()));
    report.write(&opts.out.join("feeds.md"))?;
    eprintln!("wrote {}", opts.out.join("feeds.md").display());
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quick_study_answers_each_question() {
        let dir = tempfile::tempdir().unwrap();
        let cfg = Config {
            accounts: 4,
            days: 20,
            queries: 5,
            inbox_users: 2,
            deliveries: 1_100,
            followers: vec![10, 50],
        };
        let opts = StudyOptions {
            quick: true,
            out: dir.path().to_path_buf(),
            sizes: None,
        };
        run_with(&opts, &cfg).unwrap();
        let md = std::fs::read_to_string(dir.path().join("feeds.md")).unwrap();
        assert!(
            md.contains("| 1: one scan per action type, merged "),
            "{md}"
        );
        // The versioned cell kept 1 000 of 1 100 deliveries, the rows all of them.
        assert!(
            md.lines()
                .any(|l| l.contains("VERSIONS => 1000") && l.contains(" 1 000 |")),
            "{md}"
        );
        assert!(
            md.lines()
                .any(|l| l.contains("Long.MAX_VALUE - time") && l.contains(" 1 100 |")),
            "{md}"
        );
        assert!(md.contains("Measured under load average"), "{md}");
    }
}
