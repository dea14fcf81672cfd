//! `ferrobase app file-search`: article 2's file table.

use super::args::Args;
use anyhow::{bail, Result};
use ferrobase_apps::file_search::query::{Conditions, DateQuery, FileQuery, Page};
use ferrobase_apps::file_search::{index::IndexReport, FileRecord, FileSearch};
use ferrobase_apps::scan_plan::ScanPlan;

pub(super) const USAGE: &str = "\
ferrobase app file-search [--data DIR | --connect URL] COMMAND
  load-example                                   article 2's ten files
  add --user U --date YYYYMMDD --file F --name N --category C
  delete --user U --date YYYYMMDD --file F
  find --user U --from YYYYMMDD --to YYYYMMDD [--name P] [--category P] [--page N] [--after KEY] [--explain]
  on-date --date YYYYMMDD|pattern-with-? [--name P] [--category P] [--page N] [--after KEY] [--explain]
  by-index --from YYYYMMDD --to YYYYMMDD [--name P] [--category P] [--explain]
  verify-index | rebuild-index
";

/// Runs one file-search command.
pub fn main(args: &[String]) -> Result<()> {
    let a = Args::parse(args, &["explain"])?;
    if a.command.is_empty() || a.command == "help" {
        print!("{USAGE}");
        return Ok(());
    }
    let fs = FileSearch::open(&a.connect()?)?;
    match a.command.as_str() {
        "load-example" => {
            a.only(&[])?;
            println!("loaded {} files", fs.load_example()?);
        }
        "add" => {
            a.only(&["user", "date", "file", "name", "category"])?;
            let f = FileRecord {
                user: a.get("user")?,
                date: a.get("date")?,
                file: a.get("file")?,
                name: a.get("name")?,
                category: a.get("category")?,
            };
            fs.put(&f)?;
            println!("added {}", f.to_line());
        }
        "delete" => {
            a.only(&["user", "date", "file"])?;
            let (user, date, file): (u32, u32, u32) =
                (a.get("user")?, a.get("date")?, a.get("file")?);
            fs.delete(user, date, file)?;
            println!("deleted user={user:06} date={date:08} file={file:06} (and its index row)");
        }
        "find" => {
            a.only(&["user", "from", "to", "name", "category", "page", "after"])?;
            let q = FileQuery {
                user: a.get("user")?,
                from: a.get("from")?,
                to: a.get("to")?,
                conditions: conditions(&a)?,
            };
            explain(&a, || fs.plan_find(&q))?;
            print_page(&fs.find(&q)?);
        }
        "on-date" => {
            a.only(&["date", "name", "category", "page", "after"])?;
            let q = DateQuery {
                date: a.get("date")?,
                conditions: conditions(&a)?,
            };
            explain(&a, || fs.plan_find_on_date(&q))?;
            print_page(&fs.find_on_date(&q)?);
        }
        "by-index" => {
            a.only(&["from", "to", "name", "category"])?;
            let (from, to, c) = (a.get("from")?, a.get("to")?, conditions(&a)?);
            if a.on("explain") {
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
        "verify-index" => {
            a.only(&[])?;
            let r = fs.verify_index()?;
            print_report(&r);
            if !r.is_consistent() {
                bail!("the index differs from the data: {}", r.summary());
            }
            println!("index consistent: {}", r.summary());
        }
        "rebuild-index" => {
            a.only(&[])?;
            let r = fs.rebuild_index()?;
            print_report(&r);
            println!("index rebuilt: repaired {}", r.summary());
        }
        other => bail!("unknown command {other:?}\n{USAGE}"),
    }
    Ok(())
}

fn conditions(a: &Args) -> Result<Conditions> {
    Ok(Conditions {
        name_prefix: a.opt("name")?,
        category_prefix: a.opt("category")?,
        page_size: a.opt("page")?,
        after: a.opt::<String>("after")?.map(String::into_bytes),
    })
}

fn explain(a: &Args, plan: impl FnOnce() -> ferrobase_apps::Result<ScanPlan>) -> Result<()> {
    if a.on("explain") {
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
