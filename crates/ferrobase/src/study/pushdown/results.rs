//! The study's report: the queries' table (embedded and through the gateway), the designs' write
//! costs, the salted index beside the unsalted one, `pushdown.csv`, and `pushdown.svg` (a bar
//! panel per query and figure, the salted index's bar beside d's, and two write-cost panels).

use super::data::{Config, File};
use super::designs::Load;
use super::gateway::{Via, THRIFT_BATCH};
use super::salted::{self, IndexCost};
use super::{Cost, BAR_KEYS, CATEGORY_PREFIX, DESIGNS, MONTH, NAME_PREFIX, ONE_DATE};
use crate::study::chart::{write_bar_svg, BarPanel, Unit};
use crate::study::report::{sig, thousands, Report, Table as MdTable};
use crate::study::StudyOptions;
use anyhow::Result;
use ferrobase_apps::file_search::index::INDEX_KEY as DATE_INDEX_KEY;

/// The salted date-first index's bar key.
const SALTED_BAR: &str = "d salt";

/// What the run measured.
pub(super) struct Measured {
    /// (path, query, design, cost) for every design measured, sorted.
    pub both: Vec<(Via, usize, usize, Cost)>,
    /// Loading each table: files, files_by_id, files_idx, files_by_date.
    pub loads: Vec<Load>,
    /// Loading the salted index.
    pub salted_load: Load,
    /// The unsalted and the salted date-first index on "one date, any user".
    pub unsalted: IndexCost,
    pub salted: IndexCost,
}

/// Writes `pushdown-results.md`, `pushdown.csv` and `pushdown.svg` into `opts.out`.
pub(super) fn write(
    opts: &StudyOptions,
    cfg: &Config,
    machine: &crate::study::Load,
    files: &[File],
    m: &Measured,
) -> Result<()> {
    let Measured {
        both,
        loads,
        salted_load,
        unsalted,
        salted: salted_cost,
    } = m;
    let mut report = Report::default();
    report.text(&format!(
        "## Filter pushdown vs key design (article 2's file search): measured results\n\n\
         `ferrobase study pushdown{}`: {} users × {} files = {} files, each on a random day of \
         2012, a name starting `{NAME_PREFIX}` with probability 1/4 and a category from six (two \
         of them starting `{CATEGORY_PREFIX}`). Query 1 (article 2): one user's files from {} to \
         {} whose name starts `{NAME_PREFIX}` and category `{CATEGORY_PREFIX}`; query 2: the same \
         conditions on {ONE_DATE}, any user. Tables flushed and major-compacted, family at HBase's \
         defaults (64 KiB blocks), reads warm (one warm-up run first). Figures are means per query \
         over {} runs of query 1 (random users; design b: {} full scans) and {} of query 2; \
         latency is the median run. All designs returned the same files on every run.",
        if opts.quick { " --quick" } else { "" },
        thousands(cfg.users.into()),
        thousands(cfg.files_per_user.into()),
        thousands(files.len() as u64),
        MONTH.0,
        MONTH.1,
        cfg.queries,
        cfg.full_scans,
        cfg.full_scans,
    ));
    let results: Vec<(usize, usize, Cost)> = both
        .iter()
        .filter(|r| r.0 == Via::Embedded)
        .map(|(_, q, d, c)| (*q, *d, c.clone()))
        .collect();
    let thrift: Vec<&Cost> = both
        .iter()
        .filter(|r| r.0 == Via::Thrift)
        .map(|r| &r.3)
        .collect();

    const QUERIES: [&str; 2] = ["one user, one month", "one date, any user"];
    const HOW: [[&str; 6]; 2] = [
        [
            "range scan `user+month` + 4 SCVFs",
            "full scan + 7 SCVFs",
            "index range scan + 1 get per hit (4 SCVFs in the get)",
            "a's range scan",
            "a's range scan",
            "a's range scan",
        ],
        [
            "FuzzyRowFilter `??????date??????` + 4 SCVFs",
            "full scan + 5 SCVFs",
            "FuzzyRowFilter on the index + 1 get per hit",
            "index range scan `date` + 4 SCVFs on the copies",
            "d's scan + 1 get per hit (the app's check)",
            "RowFilter `^[0-9]{6}date[0-9]{6}$` + 4 SCVFs",
        ],
    ];
    let mut t = MdTable::new(&[
        "query",
        "design",
        "reads issued",
        ">files found",
        ">rows examined",
        ">blocks touched",
        ">KiB of blocks",
        ">cells returned",
        ">p50 µs",
    ]);
    for (q, d, c) in &results {
        t.row(vec![
            QUERIES[*q].into(),
            DESIGNS[*d].0.into(),
            format!("{} ({} reads)", HOW[*q][*d], sig(c.reads, 3)),
            sig(c.results, 3),
            thousands(c.examined.round() as u64),
            sig(c.blocks, 3),
            sig(c.bytes / 1024.0, 3),
            sig(c.cells, 3),
            sig(c.p50_us, 3),
        ]);
    }
    report.text(
        "### Queries (per query; blocks touched = block-cache hits + data blocks read from files; \
         KiB of blocks = their decoded bytes, what a cold read would fetch before compression)",
    );
    report.table(&t);

    let mut t = MdTable::new(&[
        "query",
        "design",
        ">calls: reads issued",
        ">rows examined (Thrift)",
        ">cells returned",
        ">p50 µs embedded",
        ">p50 µs through Thrift",
        ">Thrift ÷ embedded",
    ]);
    for ((q, d, e), r) in results.iter().zip(&thrift) {
        t.row(vec![
            QUERIES[*q].into(),
            DESIGNS[*d].0.into(),
            sig(r.reads, 3),
            thousands(r.examined.round() as u64),
            sig(r.cells, 3),
            sig(e.p50_us, 3),
            sig(r.p50_us, 3),
            format!("{}×", sig(r.p50_us / e.p50_us.max(1e-9), 3)),
        ]);
    }
    report.text(&format!(
        "### The same queries through `ferrobase serve` (Thrift1, binary protocol, loopback TCP, \
         {THRIFT_BATCH} rows a scannerGetList; the same engine in the same run, the two paths \
         taking turns run by run, so rows examined and blocks are the embedded path's: the \
         difference is the gateway's)"
    ));
    report.table(&t);

    let mut t = MdTable::new(&[
        "design",
        "key",
        "tables",
        ">puts per file",
        ">load s",
        ">MiB written",
        ">MiB on disk",
    ]);
    let mib = |b: u64| sig(b as f64 / (1 << 20) as f64, 3);
    let sum = |x: &[usize]| Load {
        secs: x.iter().map(|&i| loads[i].secs).sum(),
        written: x.iter().map(|&i| loads[i].written).sum(),
        on_disk: x.iter().map(|&i| loads[i].on_disk).sum(),
    };
    for (d, tables, parts) in [
        (0, "files", &[0][..]),
        (1, "files_by_id", &[1][..]),
        (2, "files_by_id + files_idx", &[1, 2][..]),
        (3, "files + files_by_date", &[0, 3][..]),
    ] {
        let l = sum(parts);
        t.row(vec![
            DESIGNS[d].0.into(),
            DESIGNS[d].1.into(),
            tables.into(),
            parts.len().to_string(),
            sig(l.secs, 3),
            mib(l.written),
            mib(l.on_disk),
        ]);
    }
    report.text(&format!(
        "### Writing the {} files (batches of 1000 puts, then a flush; written = WAL + flush; \
         on disk after a major compaction; e writes as d)",
        thousands(files.len() as u64)
    ));
    report.table(&t);

    let mut csv = String::from("path,query,design,runs,rows_examined,blocks_touched,block_bytes,cells_returned,files_found,reads_issued,p50_us\n");
    for (via, q, d, c) in both {
        csv.push_str(&format!(
            "\"{}\",\"{}\",\"{}\",{},{:.1},{:.1},{:.0},{:.1},{:.1},{:.1},{:.1}\n",
            via.label(),
            QUERIES[*q],
            DESIGNS[*d].0,
            c.runs,
            c.examined,
            c.blocks,
            c.bytes,
            c.cells,
            c.results,
            c.reads,
            c.p50_us
        ));
    }
    std::fs::write(opts.out.join("pushdown.csv"), csv)?;

    let mut panels = Vec::new();
    for (q, name) in QUERIES.iter().enumerate() {
        let figure = |f: fn(&Cost) -> f64| -> Vec<(String, f64)> {
            results
                .iter()
                .filter(|r| r.0 == q)
                .map(|(_, d, c)| (BAR_KEYS[q][*d].to_string(), f(c)))
                .collect()
        };
        // The salted date-first index answers "one date, any user" only, embedded.
        let salted_bar = [
            salted_cost.examined,
            salted_cost.bytes / 1024.0,
            salted_cost.p50_us,
        ];
        for (i, (title, y, unit, f)) in [
            (
                "rows examined",
                "rows",
                Unit::Count,
                (|c: &Cost| c.examined) as fn(&Cost) -> f64,
            ),
            ("KiB of blocks touched", "KiB", Unit::Count, |c: &Cost| {
                c.bytes / 1024.0
            }),
            ("p50, embedded", "latency", Unit::Micros, |c: &Cost| {
                c.p50_us
            }),
        ]
        .into_iter()
        .enumerate()
        {
            let mut bars = figure(f);
            if q == 1 {
                bars.push((SALTED_BAR.to_string(), salted_bar[i]));
            }
            panels.push(BarPanel {
                title: format!("{name}: {title}"),
                y_label: y.into(),
                unit,
                bars,
            });
        }
        panels.push(BarPanel {
            title: format!("{name}: p50, through Thrift"),
            y_label: "latency".into(),
            unit: Unit::Micros,
            bars: both
                .iter()
                .filter(|r| r.0 == Via::Thrift && r.1 == q)
                .map(|(_, _, d, c)| (BAR_KEYS[q][*d].to_string(), c.p50_us))
                .collect(),
        });
    }
    // What each design costs to write: the price of the reads above.
    let write_designs: [(&str, &[usize]); 4] = [
        ("a", &[0]),
        ("b + index", &[1, 2]),
        ("d", &[0, 3]),
        (SALTED_BAR, &[0]),
    ];
    // The salted design writes a's table and its own index.
    let salted_extra = |k: &str, l: fn(&Load) -> u64| {
        if k == SALTED_BAR {
            l(salted_load)
        } else {
            0
        }
    };
    panels.push(BarPanel {
        title: format!(
            "writing {} files: MiB written",
            thousands(files.len() as u64)
        ),
        y_label: "MiB (WAL + flush)".into(),
        unit: Unit::Count,
        bars: write_designs
            .iter()
            .map(|(k, parts)| {
                let bytes: u64 = parts.iter().map(|&i| loads[i].written).sum::<u64>()
                    + salted_extra(k, |l| l.written);
                (k.to_string(), bytes as f64 / (1 << 20) as f64)
            })
            .collect(),
    });
    panels.push(BarPanel {
        title: "writing them: MiB on disk".into(),
        y_label: "MiB".into(),
        unit: Unit::Count,
        bars: write_designs
            .iter()
            .map(|(k, parts)| {
                let bytes: u64 = parts.iter().map(|&i| loads[i].on_disk).sum::<u64>()
                    + salted_extra(k, |l| l.on_disk);
                (k.to_string(), bytes as f64 / (1 << 20) as f64)
            })
            .collect(),
    });
    let footer = vec![
        "a: composite key user+date+file (one month: range scan; one date: FuzzyRowFilter) · \
         a/re: a with the RowFilter regex HBase's Thrift1 can take · b: file-id key, full scan"
            .to_string(),
        "c: b + index table user+date+file, a get per hit · d: a + date-first index with copies \
         (one month: reads as a) · e: d + a get per hit to check it"
            .to_string(),
        format!(
            "d salt: d's index with an 8-bucket salt in front (writes spread), one date read by 8 \
             range scans merged; measured embedded only (no bar through Thrift), in its own run \
             paired with d's index alone: salted ÷ unsalted p50 {:.2}×, blocks {} against {}",
            salted_cost.p50_us / unsalted.p50_us.max(f64::MIN_POSITIVE),
            sig(salted_cost.blocks, 3),
            sig(unsalted.blocks, 3)
        ),
        machine.line(),
    ];
    let mut t = MdTable::new(&[
        "index for \"one date, any user\"",
        "key",
        ">range scans",
        ">rows examined",
        ">blocks touched",
        ">p50 embedded (min–max)",
        ">busiest key range's share of one day's index writes",
        ">index MiB on disk",
    ]);
    for (name, key, c, bytes) in [
        ("d: date-first", DATE_INDEX_KEY, &unsalted, loads[3].on_disk),
        ("d, salted", salted::KEY, &salted_cost, salted_load.on_disk),
    ] {
        t.row(vec![
            name.into(),
            format!("`{key}`"),
            c.scans.to_string(),
            sig(c.examined, 3),
            sig(c.blocks, 3),
            format!(
                "{} ({}–{}) µs",
                sig(c.p50_us, 3),
                sig(c.min_us, 3),
                sig(c.max_us, 3)
            ),
            format!("{:.0} %", c.busiest_share * 100.0),
            mib(bytes),
        ]);
    }
    report.text(&format!(
        "### The date-first index salted: its scatter-gather read against its spread writes\n\n\
         Design d's index with a one-byte salt over user and file in front ({} buckets): one \
         day's index writes spread over the buckets instead of the end of one key range (on a \
         cluster, one region: the rowkeys study's hot spot), and \"one date, any user\" becomes \
         {} range scans merged back into `date, user, file` order by the rowkey crate's \
         scatter_merge. Same engine, the two indexes taking turns over {} runs (plus one warm-up \
         each); {} files were created on {ONE_DATE}, and both found the same {} of them whose \
         name and category match.",
        salted::BUCKETS,
        salted_cost.scans,
        cfg.queries,
        files.iter().filter(|f| f.date == ONE_DATE).count(),
        unsalted.found,
    ));
    report.table(&t);
    report.text(&format!(
        "Salted ÷ unsalted p50: {:.2}×.",
        salted_cost.p50_us / unsalted.p50_us.max(f64::MIN_POSITIVE)
    ));
    report.text(&format!("Measured under {}.", machine.line()));
    write_bar_svg(&opts.out.join("pushdown.svg"), &panels, 4, &footer)?;
    report.text("![rows, blocks and latency per design](pushdown.svg)");
    report.write(&opts.out.join("pushdown-results.md"))?;
    eprintln!("wrote {}", opts.out.join("pushdown-results.md").display());
    Ok(())
}
