//! `ferrobase app file-search`: article 2's file table.

use anyhow::{bail, Result};
use ferrobase_apps::file_search::query::{Conditions, DateQuery, FileQuery, Page};
use ferrobase_apps::file_search::{index::IndexReport, FileRecord, FileSearch};
use ferrobase_apps::scan_plan::ScanPlan;

/// `ferrobase app file-search [--data DIR | --connect URL] COMMAND`.
#[derive(clap::Args, Debug)]
pub struct Args {
    #[command(flatten)]
    target: super::Target,
    #[command(subcommand)]
    command: Command,
}

/// The name and category conditions of a search.
#[derive(clap::Args, Debug)]
struct Prefixes {
    /// Only files whose name starts with P [default: any].
    #[arg(long, allow_hyphen_values = true, value_name = "P")]
    name: Option<String>,
    /// Only files whose category starts with P [default: any].
    #[arg(long, allow_hyphen_values = true, value_name = "P")]
    category: Option<String>,
}

/// The paging of a search.
#[derive(clap::Args, Debug)]
struct Paging {
    /// At most N files per page (PageFilter) [default: every file].
    #[arg(long, value_name = "N")]
    page: Option<usize>,
    /// Resume after this row key (the previous page's resume=) [default: the first page].
    #[arg(long, allow_hyphen_values = true, value_name = "KEY")]
    after: Option<String>,
}

impl Prefixes {
    fn conditions(self, paging: Option<Paging>) -> Conditions {
        let (page_size, after) = paging.map_or((None, None), |p| (p.page, p.after));
        Conditions {
            name_prefix: self.name,
            category_prefix: self.category,
            page_size,
            after: after.map(String::into_bytes),
        }
    }
}

#[derive(clap::Subcommand, Debug)]
enum Command {
    /// Article 2's ten files.
    LoadExample,
    /// Add a file (and its index row).
    Add {
        /// The owner's user id.
        #[arg(long, value_name = "U")]
        user: u32,
        /// The creation date.
        #[arg(long, value_name = "YYYYMMDD")]
        date: u32,
        /// The file id.
        #[arg(long, value_name = "F")]
        file: u32,
        /// The file name.
        #[arg(long, allow_hyphen_values = true, value_name = "N")]
        name: String,
        /// The category.
        #[arg(long, allow_hyphen_values = true, value_name = "C")]
        category: String,
    },
    /// Delete a file (and its index row).
    Delete {
        /// The owner's user id.
        #[arg(long, value_name = "U")]
        user: u32,
        /// The creation date.
        #[arg(long, value_name = "YYYYMMDD")]
        date: u32,
        /// The file id.
        #[arg(long, value_name = "F")]
        file: u32,
    },
    /// A user's files created from --from to --to.
    Find {
        /// The owner's user id.
        #[arg(long, value_name = "U")]
        user: u32,
        /// The first date.
        #[arg(long, value_name = "YYYYMMDD")]
        from: u32,
        /// The last date.
        #[arg(long, value_name = "YYYYMMDD")]
        to: u32,
        #[command(flatten)]
        prefixes: Prefixes,
        #[command(flatten)]
        paging: Paging,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
    /// Every user's files of one date (or a pattern of dates, ? for any digit).
    OnDate {
        /// The date.
        #[arg(
            long,
            allow_hyphen_values = true,
            value_name = "YYYYMMDD|pattern-with-?"
        )]
        date: String,
        #[command(flatten)]
        prefixes: Prefixes,
        #[command(flatten)]
        paging: Paging,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
    /// Files of any user from --from to --to, through the date index.
    ByIndex {
        /// The first date.
        #[arg(long, value_name = "YYYYMMDD")]
        from: u32,
        /// The last date.
        #[arg(long, value_name = "YYYYMMDD")]
        to: u32,
        #[command(flatten)]
        prefixes: Prefixes,
        /// Print the scan first.
        #[arg(long)]
        explain: bool,
    },
    /// Compare the date index with the data; exits 1 when they differ.
    VerifyIndex,
    /// Rewrite the date index from the data.
    RebuildIndex,
}

/// Runs one file-search command.
pub fn main(args: Args) -> Result<()> {
    let fs = FileSearch::open(&args.target.connect()?)?;
    match args.command {
        Command::LoadExample => {
            println!("loaded {} files", fs.load_example()?);
        }
        Command::Add {
            user,
            date,
            file,
            name,
            category,
        } => {
            let f = FileRecord {
                user,
                date,
                file,
                name,
                category,
            };
            fs.put(&f)?;
            println!("added {}", f.to_line());
        }
        Command::Delete { user, date, file } => {
            fs.delete(user, date, file)?;
            println!("deleted user={user:06} date={date:08} file={file:06} (and its index row)");
        }
        Command::Find {
            user,
            from,
            to,
            prefixes,
            paging,
            explain: e,
        } => {
            let q = FileQuery {
                user,
                from,
                to,
                conditions: prefixes.conditions(Some(paging)),
            };
            explain(e, || fs.plan_find(&q))?;
            print_page(&fs.find(&q)?);
        }
        Command::OnDate {
            date,
            prefixes,
            paging,
            explain: e,
        } => {
            let q = DateQuery {
                date,
                conditions: prefixes.conditions(Some(paging)),
            };
            explain(e, || fs.plan_find_on_date(&q))?;
            print_page(&fs.find_on_date(&q)?);
        }
        Command::ByIndex {
            from,
            to,
            prefixes,
            explain,
        } => {
            let c = prefixes.conditions(None);
            if explain {
                let plan = fs.plan_find_by_index(from, to, &c)?;
                println!(
                    "{}",
                    plan.shell(ferrobase_apps::file_search::index::INDEX_TABLE)
                );
            }
            super::print_lines(
                fs.find_by_index(from, to, &c)?,
                |f| f.to_line(),
                &format!("no files in the date index from {from} to {to} match"),
            );
        }
        Command::VerifyIndex => {
            let r = fs.verify_index()?;
            print_report(&r);
            if !r.is_consistent() {
                bail!("the index differs from the data: {}", r.summary());
            }
            println!("index consistent: {}", r.summary());
        }
        Command::RebuildIndex => {
            let r = fs.rebuild_index()?;
            print_report(&r);
            println!("index rebuilt: repaired {}", r.summary());
        }
    }
    Ok(())
}

fn explain(on: bool, plan: impl FnOnce() -> ferrobase_apps::Result<ScanPlan>) -> Result<()> {
    if on {
        println!(
            "{}",
            plan()?.shell(ferrobase_apps::file_search::FILES_TABLE)
        );
    }
    Ok(())
}

fn print_page(p: &Page) {
    super::print_lines(&p.files, |f| f.to_line(), "no files match");
    if let Some(r) = &p.resume {
        println!("resume={}", String::from_utf8_lossy(r));
    }
}

fn print_report(r: &IndexReport) {
    for f in &r.missing {
        println!("missing {}", f.to_line());
    }
    for f in &r.stale {
        println!("stale {}", f.to_line());
    }
    for (user, date, file) in &r.dangling {
        println!("dangling user={user:06} date={date:08} file={file:06}");
    }
}
