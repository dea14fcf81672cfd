//! Filtered scans over the seed article's file table (userID 6 + date 8 + fileID 6): rows
//! examined against rows returned, data blocks read, and time.

use super::Rng;
use anyhow::Result;
use ferrobase_engine::filter::parse_filter;
use ferrobase_engine::*;
use std::time::Instant;

const NAMES: &[&str] = &[
    "中国好声音第1期",
    "中国好声音外卡赛",
    "中国好声音选手采访",
    "张玮独家专访",
    "加多宝凉茶广告",
    "新闻联播",
    "天气预报",
];
const CATEGORIES: &[&str] = &["综艺", "综艺花絮", "花絮", "综艺广告", "新闻"];

/// `ferrobase bench filters`'s options.
#[derive(clap::Args, Debug)]
pub struct Args {
    /// Cells in the scanned table.
    #[arg(long, value_name = "N", default_value_t = 2_000_000)]
    cells: u64,
}

pub fn main(args: Args) -> Result<()> {
    let cells = args.cells;
    let tmp = tempfile::tempdir_in(".")?;
    let engine = Engine::open(tmp.path(), EngineOptions::default())?;
    let mut cf = ColumnFamilyDescriptor::new("f");
    cf.block_cache = false; // every block a query needs is read from its file: counts are comparable
    engine
        .admin()
        .create_table(TableDescriptor::new(TableName::parse("files")?).with_family(cf))?;
    let t = engine.table("files")?;
    let rows = (cells / 4).max(1);
    // Each user holds a long history (thousands of rows), so a date query can skip most of it.
    let users = (rows / 5000).max(1);
    let mut rng = Rng(0x5eed);
    let mut puts = Vec::with_capacity(1000);
    let load = Instant::now();
    for id in 0..rows {
        let user = rng.next() % users;
        let day = rng.next() % 365;
        let date = 20120101 + (day / 31) * 100 + day % 31;
        let row = format!("{user:06}{date:08}{id:06}");
        let name = NAMES[(rng.next() % NAMES.len() as u64) as usize];
        let category = CATEGORIES[(rng.next() % CATEGORIES.len() as u64) as usize];
        puts.push(
            Put::new(row)
                .add_column("f", "id", id.to_string())
                .add_column("f", "name", name)
                .add_column("f", "category", category)
                .add_column("f", "user", user.to_string()),
        );
        if puts.len() == 1000 {
            t.put_all(std::mem::take(&mut puts))?;
        }
    }
    t.put_all(puts)?;
    engine.admin().major_compact("files")?;
    println!(
        "ferrobase filter benchmark: {} cells in {rows} rows ({users} users), loaded and major-compacted in {:.1} s; block cache off",
        rows * 4,
        load.elapsed().as_secs_f64()
    );
    let scvf = "SingleColumnValueFilter('f', 'name', =, 'binaryprefix:中国好声音', true, true) AND SingleColumnValueFilter('f', 'category', =, 'binary:综艺', true, true)";
    let queries: Vec<(&str, Scan)> = vec![
        ("full scan, no filter", Scan::new()),
        (
            "user 1, Sep 2012, two SingleColumnValueFilters",
            Scan::new()
                .with_start_row("00000120120901")
                .with_stop_row("00000120121001")
                .filter(parse_filter(scvf.as_bytes())?),
        ),
        (
            "same two filters over the whole table",
            Scan::new().filter(parse_filter(scvf.as_bytes())?),
        ),
        (
            "all users on 2012-09-12, FuzzyRowFilter",
            Scan::new().filter(parse_filter(
                b"FuzzyRowFilter('??????20120912??????', '11111100000000111111')",
            )?),
        ),
        (
            "user 42, PrefixFilter",
            Scan::new().filter(parse_filter(b"PrefixFilter('000042')")?),
        ),
    ];
    println!(
        "| {:<48} | {:>14} | {:>13} | {:>12} | {:>10} |",
        "query", "rows examined", "rows returned", "blocks read", "ms"
    );
    println!(
        "|{:-<50}|{:->16}|{:->15}|{:->14}|{:->12}|",
        "", "", "", "", ""
    );
    let m = engine.metrics();
    for (name, scan) in queries {
        let (r0, b0) = (
            Metrics::get(&m.rows_examined),
            Metrics::get(&m.data_blocks_read),
        );
        let start = Instant::now();
        let n = t.scanner(&scan)?.count();
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        println!(
            "| {:<48} | {:>14} | {:>13} | {:>12} | {:>10.1} |",
            name,
            Metrics::get(&m.rows_examined) - r0,
            n,
            Metrics::get(&m.data_blocks_read) - b0,
            ms
        );
    }
    engine.close();
    Ok(())
}
