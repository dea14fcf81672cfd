//! Filters in the read path: each against a naive evaluation over the unfiltered rows, in Gets
//! and forward and reversed scans, alone and combined; the seed articles' queries; seek hints
//! reading far fewer blocks than the rows they skip.

mod support;

use ferrobase_engine::filter::*;
use ferrobase_engine::*;

type Row = (Vec<u8>, Vec<Cell>);

fn setup_random(e: &Engine) -> Table {
    let mut f1 = ColumnFamilyDescriptor::new("a");
    f1.block_size = 1024;
    let f2 = ColumnFamilyDescriptor::new("b");
    e.admin()
        .create_table_with_splits(
            TableDescriptor::new(TableName::parse("rand").unwrap())
                .with_family(f1)
                .with_family(f2),
            &[b"r2".to_vec(), b"r6".to_vec()],
        )
        .unwrap();
    let t = e.table("rand").unwrap();
    let mut rng = ferrobase_testkit::Rng::from_state(42);
    let mut next = || rng.next_u64();
    let mut puts = Vec::new();
    for i in 0..300u64 {
        let row = format!("r{}{:03}", i % 9, i);
        let mut p = Put::new(row);
        let mut used = std::collections::HashSet::new();
        for _ in 0..(1 + next() % 5) {
            let fam = if next() % 3 == 0 { "b" } else { "a" };
            let q = format!("q{}", next() % 8);
            let v = format!("v{}", next() % 10);
            // One version per column: the naive evaluation below does not model versions.
            if used.insert((fam, q.clone())) {
                p = p.add_column_ts(fam, q, (next() % 5) as i64 + 1, v);
            }
        }
        puts.push(p);
    }
    t.put_all(puts).unwrap();
    e.admin().flush("rand").unwrap();
    // Some rows also in the memstore.
    for i in 0..30u64 {
        t.put(Put::new(format!("r{}{:03}", i % 9, i)).add_column_ts("b", "q9", 3, "mem"))
            .unwrap();
    }
    t
}

fn scan(t: &Table, filter: Option<&str>, reversed: bool) -> Vec<Row> {
    let mut s = Scan::new().reversed(reversed);
    if let Some(f) = filter {
        s = s.filter(parse_filter(f.as_bytes()).unwrap());
    }
    t.scan_all(&s)
        .unwrap()
        .into_iter()
        .map(|r| (r.row().to_vec(), r.cells))
        .collect()
}

/// Applies a per-cell predicate and a per-row predicate to unfiltered rows.
fn naive(
    rows: &[Row],
    keep_cell: &dyn Fn(&Cell) -> bool,
    keep_row: &dyn Fn(&Row) -> bool,
) -> Vec<Row> {
    rows.iter()
        .filter(|r| keep_row(r))
        .map(|(k, cells)| {
            (
                k.clone(),
                cells
                    .iter()
                    .filter(|c| keep_cell(c))
                    .cloned()
                    .collect::<Vec<_>>(),
            )
        })
        .filter(|(_, cells)| !cells.is_empty())
        .collect()
}

#[test]
fn each_filter_matches_a_naive_evaluation_forward_and_reversed() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = setup_random(&e);
    let all = scan(&t, None, false);
    assert!(all.len() > 250);
    let yes = |_: &Cell| true;
    let any_row = |_: &Row| true;
    type CellPred = Box<dyn Fn(&Cell) -> bool>;
    type RowPred = Box<dyn Fn(&Row) -> bool>;
    let cases: Vec<(&str, CellPred, RowPred)> = vec![
        ("RowFilter(>=, 'binary:r5')", Box::new(yes), Box::new(|r: &Row| r.0[..] >= b"r5"[..])),
        ("RowFilter(=, 'regexstring:^r[37]0')", Box::new(yes), Box::new(|r: &Row| r.0.starts_with(b"r30") || r.0.starts_with(b"r70"))),
        ("PrefixFilter('r4')", Box::new(yes), Box::new(|r: &Row| r.0.starts_with(b"r4"))),
        ("QualifierFilter(<=, 'binary:q3')", Box::new(|c: &Cell| c.qualifier() <= &b"q3"[..]), Box::new(any_row)),
        ("ValueFilter(=, 'binary:v7')", Box::new(|c: &Cell| c.value() == b"v7"), Box::new(any_row)),
        ("ValueFilter(!=, 'substring:V1')", Box::new(|c: &Cell| !String::from_utf8_lossy(c.value()).contains('1')), Box::new(any_row)),
        ("FamilyFilter(=, 'binary:b')", Box::new(|c: &Cell| c.family() == b"b"), Box::new(any_row)),
        ("ColumnPrefixFilter('q2')", Box::new(|c: &Cell| c.qualifier().starts_with(b"q2")), Box::new(any_row)),
        ("MultipleColumnPrefixFilter('q1', 'q6')", Box::new(|c: &Cell| c.qualifier().starts_with(b"q1") || c.qualifier().starts_with(b"q6")), Box::new(any_row)),
        ("ColumnRangeFilter('q2', true, 'q5', false)", Box::new(|c: &Cell| c.qualifier() >= &b"q2"[..] && c.qualifier() < &b"q5"[..]), Box::new(any_row)),
        ("ColumnRangeFilter('q2', false, 'q5', true)", Box::new(|c: &Cell| c.qualifier() > &b"q2"[..] && c.qualifier() <= &b"q5"[..]), Box::new(any_row)),
        ("TimestampsFilter(2, 4)", Box::new(|c: &Cell| c.timestamp() == 2 || c.timestamp() == 4), Box::new(any_row)),
        ("FuzzyRowFilter('r?0??', '01011')", Box::new(yes), Box::new(|r: &Row| r.0.len() >= 5 && r.0[0] == b'r' && r.0[2] == b'0')),
        (
            "MultiRowRangeFilter('r1', true, 'r2', false, 'r5010', false, 'r7', true)",
            Box::new(yes),
            Box::new(|r: &Row| (r.0[..] >= b"r1"[..] && r.0[..] < b"r2"[..]) || (r.0[..] > b"r5010"[..] && r.0[..] <= b"r7"[..])),
        ),
        (
            "SingleColumnValueFilter('a', 'q1', =, 'binary:v3')",
            Box::new(yes),
            Box::new(|r: &Row| r.1.iter().find(|c| c.family() == b"a" && c.qualifier() == b"q1").is_none_or(|c| c.value() == b"v3")),
        ),
        (
            "SingleColumnValueFilter('a', 'q1', =, 'binary:v3', true, true)",
            Box::new(yes),
            Box::new(|r: &Row| r.1.iter().find(|c| c.family() == b"a" && c.qualifier() == b"q1").is_some_and(|c| c.value() == b"v3")),
        ),
        (
            "SingleColumnValueExcludeFilter('a', 'q1', =, 'binary:v3', true, true)",
            Box::new(|c: &Cell| !(c.family() == b"a" && c.qualifier() == b"q1")),
            Box::new(|r: &Row| r.1.iter().find(|c| c.family() == b"a" && c.qualifier() == b"q1").is_some_and(|c| c.value() == b"v3")),
        ),
        (
            "QualifierFilter(>=, 'binary:q4') AND ValueFilter(<, 'binary:v5')",
            Box::new(|c: &Cell| c.qualifier() >= &b"q4"[..] && c.value() < &b"v5"[..]),
            Box::new(any_row),
        ),
        (
            "QualifierFilter(=, 'binary:q0') OR ValueFilter(=, 'binary:v0') OR FamilyFilter(=, 'binary:b')",
            Box::new(|c: &Cell| c.qualifier() == b"q0" || c.value() == b"v0" || c.family() == b"b"),
            Box::new(any_row),
        ),
        (
            "(PrefixFilter('r3') OR PrefixFilter('r8')) AND ValueFilter(>, 'binary:v4')",
            Box::new(|c: &Cell| c.value() > &b"v4"[..]),
            Box::new(|r: &Row| r.0.starts_with(b"r3") || r.0.starts_with(b"r8")),
        ),
        (
            "SKIP ValueFilter(!=, 'binary:v9')",
            Box::new(yes),
            Box::new(|r: &Row| r.1.iter().all(|c| c.value() != b"v9")),
        ),
    ];
    for (text, keep_cell, keep_row) in &cases {
        let want = naive(&all, keep_cell.as_ref(), keep_row.as_ref());
        let got = scan(&t, Some(text), false);
        assert_eq!(got, want, "forward: {text}");
        let mut want_rev = want.clone();
        want_rev.reverse();
        if text.contains("true, true)") {
            // filterIfMissing: the other family would be loaded on demand, which HBase's
            // reversed scans refuse.
            let s = Scan::new()
                .reversed(true)
                .filter(parse_filter(text.as_bytes()).unwrap());
            assert!(
                matches!(t.scan_all(&s), Err(Error::IncompatibleScan(_))),
                "{text}"
            );
        } else {
            assert_eq!(scan(&t, Some(text), true), want_rev, "reversed: {text}");
        }
        // And in Gets, row by row.
        for (row, _) in all.iter().step_by(37) {
            let g = t
                .get(&Get::new(row.clone()).filter(parse_filter(text.as_bytes()).unwrap()))
                .unwrap();
            let expect = want
                .iter()
                .find(|(k, _)| k == row)
                .map(|(_, c)| c.clone())
                .unwrap_or_default();
            assert_eq!(
                g.cells,
                expect,
                "get {:?}: {text}",
                String::from_utf8_lossy(row)
            );
        }
    }
}

#[test]
fn row_and_column_paging_filters() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = setup_random(&e);
    let all = scan(&t, None, false);
    // KeyOnlyFilter empties values; FirstKeyOnlyFilter keeps one cell a row.
    let ko = scan(&t, Some("KeyOnlyFilter()"), false);
    assert_eq!(ko.len(), all.len());
    assert!(ko
        .iter()
        .all(|(_, cells)| cells.iter().all(|c| c.value().is_empty())));
    let first = scan(&t, Some("FirstKeyOnlyFilter()"), false);
    assert_eq!(
        first,
        all.iter()
            .map(|(k, c)| (k.clone(), vec![c[0].clone()]))
            .collect::<Vec<_>>()
    );
    // ColumnPaginationFilter: columns [offset, offset+limit) of each row.
    let page = scan(&t, Some("ColumnPaginationFilter(2, 1)"), false);
    let want: Vec<Row> = all
        .iter()
        .map(|(k, c)| {
            (
                k.clone(),
                c.iter().skip(1).take(2).cloned().collect::<Vec<_>>(),
            )
        })
        .filter(|(_, c)| !c.is_empty())
        .collect();
    assert_eq!(page, want);
    // PageFilter: at most N rows per region (HBase semantics); 3 regions here.
    let paged = scan(&t, Some("PageFilter(5)"), false);
    assert_eq!(paged.len(), 15);
    // WHILE stops a region's scan at the first row the inner filter rejects.
    let w = scan(&t, Some("WHILE RowFilter(<, 'binary:r1')"), false);
    assert!(w.iter().all(|(k, _)| k[..] < b"r1"[..]));
    assert_eq!(
        w.len(),
        all.iter().filter(|(k, _)| k[..] < b"r1"[..]).count()
    );
    // InclusiveStopFilter includes its stop row.
    let stop = &all[40].0;
    let inc = scan(
        &t,
        Some(&format!(
            "InclusiveStopFilter('{}')",
            String::from_utf8_lossy(stop)
        )),
        false,
    );
    assert_eq!(inc.last().unwrap().0, *stop);
    assert_eq!(inc.len(), 41);
}

fn file_table(e: &Engine) -> Table {
    let desc = TableDescriptor::new(TableName::parse("files").unwrap())
        .with_family(ColumnFamilyDescriptor::new("f"));
    e.admin().create_table(desc).unwrap();
    let t = e.table("files").unwrap();
    let files = [
        (1, "20120902", "中国好声音第1期", "综艺", 1),
        (2, "20120904", "中国好声音第2期", "综艺", 1),
        (3, "20120906", "中国好声音外卡赛", "综艺", 1),
        (4, "20120908", "中国好声音第3期", "综艺", 1),
        (5, "20120910", "中国好声音第4期", "综艺", 1),
        (6, "20120912", "中国好声音选手采访", "综艺花絮", 2),
        (7, "20120914", "中国好声音第5期", "综艺", 1),
        (8, "20120916", "中国好声音录制花絮", "综艺花絮", 2),
        (9, "20120918", "张玮独家专访", "花絮", 3),
        (10, "20120920", "加多宝凉茶广告", "综艺广告", 4),
    ];
    for (id, date, name, category, user) in files {
        let row = format!("{user:06}{date}{id:06}");
        t.put(
            Put::new(row)
                .add_column("f", "id", id.to_string())
                .add_column("f", "name", name)
                .add_column("f", "category", category)
                .add_column("f", "user", user.to_string()),
        )
        .unwrap();
    }
    t
}

fn ids(rows: &[RowResult]) -> Vec<String> {
    rows.iter()
        .map(|r| String::from_utf8(r.value(b"f", b"id").unwrap_or_default().to_vec()).unwrap())
        .collect()
}

#[test]
fn seed_file_table_multi_condition_query_returns_files_1_to_5_and_7() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = file_table(&e);
    let query = "SingleColumnValueFilter('f', 'name', =, 'binaryprefix:中国好声音', true, true) \
                 AND SingleColumnValueFilter('f', 'category', =, 'binary:综艺', true, true)";
    let scan = Scan::new()
        .with_start_row("00000120120901")
        .with_stop_row("00000120121001")
        .filter(parse_filter(query.as_bytes()).unwrap());
    let rows = t.scan_all(&scan).unwrap();
    assert_eq!(ids(&rows), ["1", "2", "3", "4", "5", "7"]);
    // The same through the API, with the article's four range filters on name and category.
    let upper = |s: &str| {
        let mut b = s.as_bytes().to_vec();
        b.push(0xff);
        b
    };
    let api = FilterList::new(
        ListOperator::MustPassAll,
        vec![
            Box::new(SingleColumnValueFilter::new(
                "f",
                "name",
                CompareOp::GreaterOrEqual,
                Comparator::Binary("中国好声音".into()),
            )),
            Box::new(SingleColumnValueFilter::new(
                "f",
                "name",
                CompareOp::Less,
                Comparator::Binary(upper("中国好声音")),
            )),
            Box::new(SingleColumnValueFilter::new(
                "f",
                "category",
                CompareOp::GreaterOrEqual,
                Comparator::Binary("综艺".into()),
            )),
            Box::new(SingleColumnValueFilter::new(
                "f",
                "category",
                CompareOp::LessOrEqual,
                Comparator::Binary("综艺".into()),
            )),
        ],
    );
    let rows = t
        .scan_all(
            &Scan::new()
                .with_start_row("00000120120901")
                .with_stop_row("00000120121001")
                .filter(Box::new(api)),
        )
        .unwrap();
    assert_eq!(ids(&rows), ["1", "2", "3", "4", "5", "7"]);
    // Paging with PageFilter: two pages of three, the second starting after the first's last row.
    let page1 = t
        .scan_all(
            &Scan::new()
                .with_start_row("00000120120901")
                .with_stop_row("00000120121001")
                .filter(Box::new(PageFilter::new(3))),
        )
        .unwrap();
    assert_eq!(ids(&page1), ["1", "2", "3"]);
    let mut after = page1.last().unwrap().row().to_vec();
    after.push(0);
    let page2 = t
        .scan_all(
            &Scan::new()
                .with_start_row(after)
                .with_stop_row("00000120121001")
                .filter(Box::new(PageFilter::new(3))),
        )
        .unwrap();
    assert_eq!(ids(&page2), ["4", "5", "7"]);
    // A reader's question: by date without the user — FuzzyRowFilter on the fixed-width key.
    let by_date = t
        .scan_all(
            &Scan::new().filter(
                parse_filter(b"FuzzyRowFilter('??????201209????????', '11111100000011111111')")
                    .unwrap(),
            ),
        )
        .unwrap();
    assert_eq!(by_date.len(), 10);
    let one_day = t
        .scan_all(
            &Scan::new().filter(
                parse_filter(b"FuzzyRowFilter('??????20120912??????', '11111100000000111111')")
                    .unwrap(),
            ),
        )
        .unwrap();
    assert_eq!(ids(&one_day), ["6"]);
}

#[test]
fn newest_n_columns_of_a_wide_row_with_column_count_get_filter() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    support::table::create_table(&e, "wide");
    let t = e.table("wide").unwrap();
    let base = 1_600_000_000_000i64;
    let mut p = Put::new("uid1");
    for j in 0..500i64 {
        p = p.add_column(
            "cf",
            (i64::MAX - (base + j)).to_be_bytes().to_vec(),
            format!("item{j}"),
        );
    }
    t.put(p).unwrap();
    e.admin().flush("wide").unwrap();
    let g = t
        .get(&Get::new("uid1").filter(Box::new(ColumnCountGetFilter::new(10))))
        .unwrap();
    let items: Vec<String> = g
        .cells
        .iter()
        .map(|c| String::from_utf8(c.value().to_vec()).unwrap())
        .collect();
    let want: Vec<String> = (490..500).rev().map(|j| format!("item{j}")).collect();
    assert_eq!(items, want);
}

#[test]
fn seek_hints_read_far_fewer_blocks_than_the_rows_they_skip() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let mut cf = ColumnFamilyDescriptor::new("f");
    cf.block_cache = false;
    cf.block_size = 4096;
    e.admin()
        .create_table(TableDescriptor::new(TableName::parse("big").unwrap()).with_family(cf))
        .unwrap();
    let t = e.table("big").unwrap();
    // 300 users × 200 days, rowkey user(6) + day(8); each user spans several blocks.
    let mut puts = Vec::new();
    let value = vec![b'x'; 100];
    for u in 0..300 {
        for d in 0..200 {
            puts.push(Put::new(format!("{u:06}{:08}", 20120000 + d)).add_column(
                "f",
                "v",
                value.clone(),
            ));
        }
        if puts.len() >= 10_000 {
            t.put_all(std::mem::take(&mut puts)).unwrap();
        }
    }
    t.put_all(puts).unwrap();
    e.admin().flush("big").unwrap();
    e.admin().major_compact("big").unwrap();
    let blocks = || Metrics::get(&e.metrics().data_blocks_read);
    let b0 = blocks();
    let full = t.scan_all(&Scan::new()).unwrap().len();
    let full_blocks = blocks() - b0;
    assert_eq!(full, 60_000);
    let b1 = blocks();
    let fuzzy = t
        .scan_all(
            &Scan::new().filter(
                parse_filter(b"FuzzyRowFilter('??????20120130', '11111100000000')").unwrap(),
            ),
        )
        .unwrap();
    let fuzzy_blocks = blocks() - b1;
    assert_eq!(fuzzy.len(), 300);
    let skipped_rows = 60_000 - 300;
    assert!(
        fuzzy_blocks * 3 < full_blocks,
        "fuzzy read {fuzzy_blocks} blocks, full scan {full_blocks}"
    );
    assert!(
        fuzzy_blocks * 50 < skipped_rows,
        "fuzzy read {fuzzy_blocks} blocks to skip {skipped_rows} rows"
    );
    let b2 = blocks();
    let prefix = t
        .scan_all(&Scan::new().filter(parse_filter(b"PrefixFilter('000150')").unwrap()))
        .unwrap();
    let prefix_blocks = blocks() - b2;
    assert_eq!(prefix.len(), 200);
    assert!(
        prefix_blocks * 20 < full_blocks,
        "prefix scan read {prefix_blocks} blocks of {full_blocks}"
    );
}

#[test]
fn rows_examined_counts_every_row_a_filter_looked_at_once_the_scan_closes() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    e.admin()
        .create_table_with_splits(
            TableDescriptor::new(TableName::parse("m").unwrap())
                .with_family(ColumnFamilyDescriptor::new("f")),
            &[b"r050".to_vec()],
        )
        .unwrap();
    let t = e.table("m").unwrap();
    let puts = (0..100)
        .map(|i| Put::new(format!("r{i:03}")).add_column("f", "q", format!("{}", i % 10)))
        .collect();
    t.put_all(puts).unwrap();
    let examined = || Metrics::get(&e.metrics().rows_examined);
    // A value filter keeps a tenth of the rows of both regions but looks at all of them.
    let r0 = examined();
    let kept = t
        .scan_all(&Scan::new().filter(parse_filter(b"ValueFilter(=, 'binary:7')").unwrap()))
        .unwrap();
    assert_eq!(kept.len(), 10);
    assert_eq!(examined() - r0, 100);
    // A scanner dropped part way through its first region counts the rows it read.
    let r1 = examined();
    let mut sc = t.scanner(&Scan::new()).unwrap();
    for _ in 0..5 {
        sc.next().unwrap().unwrap();
    }
    drop(sc);
    assert_eq!(examined() - r1, 5);
    // A Get counts its one row.
    let r2 = examined();
    assert_eq!(t.get(&Get::new("r007")).unwrap().cells.len(), 1);
    assert_eq!(examined() - r2, 1);
}

#[test]
fn malformed_filter_strings_are_precise_errors() {
    let e = parse_filter(b"SingleColumnValueFilter('f', 'q', =='binary:x')")
        .map(|_| ())
        .unwrap_err();
    assert!(e.position > 0, "{e}");
    assert!(matches!(Error::from(e), Error::IllegalArgument(_)));
}

/// A predicate over cells.
type CellPredicate = Box<dyn Fn(&Cell) -> bool>;

/// A random filter tree: its filter-language text and the predicate it stands for.
struct Tree {
    text: String,
    pred: CellPredicate,
}

use ferrobase_testkit::Rng as Gen;

fn random_op(g: &mut Gen) -> (&'static str, fn(std::cmp::Ordering) -> bool) {
    use std::cmp::Ordering::*;
    match g.below(6) {
        0 => ("<", |o| o == Less),
        1 => ("<=", |o| o != Greater),
        2 => ("=", |o| o == Equal),
        3 => ("!=", |o| o != Equal),
        4 => (">=", |o| o != Less),
        _ => (">", |o| o == Greater),
    }
}

fn leaf(g: &mut Gen) -> Tree {
    match g.below(8) {
        0 => {
            let (op, f) = random_op(g);
            let q = format!("q{}", g.below(8)).into_bytes();
            Tree {
                text: format!(
                    "QualifierFilter({op}, 'binary:{}')",
                    String::from_utf8_lossy(&q)
                ),
                pred: Box::new(move |c| f(c.qualifier().cmp(&q[..]))),
            }
        }
        1 => {
            let (op, f) = random_op(g);
            let v = format!("v{}", g.below(10)).into_bytes();
            Tree {
                text: format!(
                    "ValueFilter({op}, 'binary:{}')",
                    String::from_utf8_lossy(&v)
                ),
                pred: Box::new(move |c| f(c.value().cmp(&v[..]))),
            }
        }
        2 => {
            let fam = if g.below(2) == 0 {
                b"a".to_vec()
            } else {
                b"b".to_vec()
            };
            let eq = g.below(2) == 0;
            Tree {
                text: format!(
                    "FamilyFilter({}, 'binary:{}')",
                    if eq { "=" } else { "!=" },
                    String::from_utf8_lossy(&fam)
                ),
                pred: Box::new(move |c| (c.family() == fam) == eq),
            }
        }
        3 => {
            let (op, f) = random_op(g);
            let r = format!("r{}", g.below(9)).into_bytes();
            Tree {
                text: format!("RowFilter({op}, 'binary:{}')", String::from_utf8_lossy(&r)),
                pred: Box::new(move |c| f(c.row().cmp(&r[..]))),
            }
        }
        4 => {
            let p = format!("r{}", g.below(9)).into_bytes();
            Tree {
                text: format!("PrefixFilter('{}')", String::from_utf8_lossy(&p)),
                pred: Box::new(move |c| c.row().starts_with(&p)),
            }
        }
        5 => {
            let p = format!("q{}", g.below(8)).into_bytes();
            Tree {
                text: format!("ColumnPrefixFilter('{}')", String::from_utf8_lossy(&p)),
                pred: Box::new(move |c| c.qualifier().starts_with(&p)),
            }
        }
        6 => {
            let lo = format!("q{}", g.below(8)).into_bytes();
            let hi = format!("q{}", g.below(8)).into_bytes();
            let (li, hi_inc) = (g.below(2) == 0, g.below(2) == 0);
            Tree {
                text: format!(
                    "ColumnRangeFilter('{}', {li}, '{}', {hi_inc})",
                    String::from_utf8_lossy(&lo),
                    String::from_utf8_lossy(&hi)
                ),
                pred: Box::new(move |c| {
                    let q = c.qualifier();
                    (q > &lo[..] || (li && q == &lo[..]))
                        && (q < &hi[..] || (hi_inc && q == &hi[..]))
                }),
            }
        }
        _ => {
            let a = 1 + g.below(5) as i64;
            let b = 1 + g.below(5) as i64;
            Tree {
                text: format!("TimestampsFilter({a}, {b})"),
                pred: Box::new(move |c| c.timestamp() == a || c.timestamp() == b),
            }
        }
    }
}

fn tree(g: &mut Gen, depth: u32) -> Tree {
    if depth == 0 || g.below(3) == 0 {
        return leaf(g);
    }
    let n = 2 + g.below(2) as usize;
    let and = g.below(2) == 0;
    let kids: Vec<Tree> = (0..n).map(|_| tree(g, depth - 1)).collect();
    let text = format!(
        "({})",
        kids.iter()
            .map(|k| k.text.as_str())
            .collect::<Vec<_>>()
            .join(if and { " AND " } else { " OR " })
    );
    let preds: Vec<CellPredicate> = kids.into_iter().map(|k| k.pred).collect();
    Tree {
        text,
        pred: Box::new(move |c| {
            if and {
                preds.iter().all(|p| p(c))
            } else {
                preds.iter().any(|p| p(c))
            }
        }),
    }
}

#[test]
fn random_filter_trees_match_a_naive_evaluation() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    let t = setup_random(&e);
    let all = scan(&t, None, false);
    let mut g = Gen::from_state(0xfeed_beef);
    for i in 0..150 {
        let tr = tree(&mut g, 3);
        let want = naive(&all, tr.pred.as_ref(), &|_| true);
        let got = scan(&t, Some(&tr.text), false);
        if got != want {
            let short = |rows: &[Row]| -> Vec<String> {
                rows.iter()
                    .map(|(k, c)| {
                        format!(
                            "{}:{}",
                            String::from_utf8_lossy(k),
                            c.iter()
                                .map(|c| format!(
                                    "{}{}",
                                    String::from_utf8_lossy(c.family()),
                                    String::from_utf8_lossy(c.qualifier())
                                ))
                                .collect::<Vec<_>>()
                                .join(",")
                        )
                    })
                    .collect()
            };
            let (g, w) = (short(&got), short(&want));
            let diff: Vec<_> = g
                .iter()
                .zip(w.iter())
                .filter(|(a, b)| a != b)
                .take(3)
                .collect();
            panic!(
                "tree {i}: {}\nfirst differences (got, want): {diff:?}\nlens {} {}",
                tr.text,
                g.len(),
                w.len()
            );
        }
        // In a reversed scan an OR list's memo of a member's seek hint decides the cells at or
        // after the hint (HBase negates its comparison there), so such a list may drop cells
        // its members would pass (recorded case reversed_scan_does_not_follow_column_hints):
        // reversed answers are compared only for trees without one.
        let seeks = ["ColumnPrefixFilter", "ColumnRangeFilter"];
        if tr.text.contains(" OR ") && seeks.iter().any(|f| tr.text.contains(f)) {
            continue;
        }
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(
            scan(&t, Some(&tr.text), true),
            rev,
            "reversed tree {i}: {}",
            tr.text
        );
    }
}

/// Issue 39, item 3: a costly filter (HBase's `regexstring:` with bounded repeats over 5 KB
/// values) stops at its call's time budget, within one cell's work, with an error naming the
/// budget; reads without a budget, or within it, are untouched.
#[test]
fn a_costly_filter_stops_at_its_calls_time_budget() {
    use ferrobase_engine::call_budget::CallBudget;
    use std::time::{Duration, Instant};
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    e.admin()
        .create_table(
            TableDescriptor::new(TableName::parse("slow").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let t = e.table("slow").unwrap();
    let value = "a".repeat(5 * 1024);
    for row in 0..4 {
        let mut p = Put::new(format!("r{row}"));
        for q in 0..50 {
            p = p.add_column("cf", format!("q{q}"), value.clone());
        }
        t.put(p).unwrap();
    }
    let filter =
        filter::parse_filter(b"ValueFilter(=, 'regexstring:.{0,1000}.{0,1000}.{0,1000}b')")
            .unwrap();
    let scan = Scan::new().filter(filter.clone());
    let budget = Duration::from_millis(300);
    let started = Instant::now();
    let err = {
        let _budget = CallBudget::start(Some(budget));
        t.scan_all(&scan).unwrap_err()
    };
    let took = started.elapsed();
    assert!(matches!(err, Error::TimeBudget { budget_ms: 300 }), "{err}");
    assert!(err.to_string().contains("time budget of 300 ms"), "{err}");
    // One cell's regular expression at most past the budget (generous for a debug build on a
    // loaded machine).
    assert!(took < Duration::from_secs(30), "stopped after {took:?}");
    let get_err = {
        let _budget = CallBudget::start(Some(budget));
        t.get(&Get::new("r1").filter(filter)).unwrap_err()
    };
    assert!(matches!(get_err, Error::TimeBudget { .. }), "{get_err}");
    // A cheap read within its budget, and one without a budget, are untouched.
    let _budget = CallBudget::start(Some(Duration::from_secs(60)));
    assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 4);
    drop(_budget);
    assert_eq!(t.scan_all(&Scan::new()).unwrap().len(), 4);
}

/// Regression: a Get whose last wanted column is included with "seek to the next row" (every
/// explicitly named column found) returned the cell before the filter rewrote it, so
/// `KeyOnlyFilter` kept the value of `get 't', 'r1', 'cf:a'` while the same scan dropped it.
/// Found by the Thrift2 ACL comparison (`crates/gateway/tests/thrift2_acl.rs`).
#[test]
fn a_get_of_named_columns_rewrites_its_last_cell_like_a_scan() {
    let dir = tempfile::tempdir().unwrap();
    let e = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    e.admin()
        .create_table(
            TableDescriptor::new(TableName::parse("t").unwrap())
                .with_family(ColumnFamilyDescriptor::new("cf")),
        )
        .unwrap();
    let t = e.table("t").unwrap();
    t.put(
        Put::new("r1")
            .add_column("cf", "a", "v")
            .add_column("cf", "b", "w"),
    )
    .unwrap();
    let key_only = || parse_filter(b"KeyOnlyFilter()").unwrap();
    for columns in [&["a"][..], &["b"][..], &["a", "b"][..]] {
        let mut g = Get::new("r1").filter(key_only());
        let mut s = Scan::new().filter(key_only());
        for q in columns {
            g = g.add_column("cf", *q);
            s = s.add_column("cf", *q);
        }
        let got = t.get(&g).unwrap();
        assert_eq!(got.cells.len(), columns.len(), "{columns:?}");
        assert!(
            got.cells.iter().all(|c| c.value().is_empty()),
            "{columns:?}: {got:?}"
        );
        let scanned = t.scan_all(&s).unwrap();
        assert!(scanned[0].cells.iter().all(|c| c.value().is_empty()));
    }
}
