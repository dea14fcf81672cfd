//! The conversions, checked against the engine's filters and HBase's encodings.

use super::comparators::pattern_flags;
use super::*;
use crate::proto::filter::RowRange as PbRowRange;
use crate::proto::hbase::BytesBytesPair;
use ferrobase_engine::filter::CellRef;
use ferrobase_engine::CellType;

fn class(short: &str) -> String {
    format!("{PACKAGE}{short}")
}

fn filter(short: &str, m: &impl Message) -> pf::Filter {
    pf::Filter {
        name: Some(class(short)),
        serialized_filter: Some(m.encode_to_vec()),
    }
}

fn comparator(short: &str, m: &impl Message) -> pc::Comparator {
    pc::Comparator {
        name: Some(class(short)),
        serialized_comparator: Some(m.encode_to_vec()),
    }
}

fn bytes_of(v: &[u8]) -> Option<pc::ByteArrayComparable> {
    Some(pc::ByteArrayComparable {
        value: Some(v.to_vec()),
    })
}

fn binary(v: &[u8]) -> pc::Comparator {
    comparator(
        "BinaryComparator",
        &pc::BinaryComparator {
            comparable: bytes_of(v),
        },
    )
}

fn substring(s: &str) -> pc::Comparator {
    comparator(
        "SubstringComparator",
        &pc::SubstringComparator {
            substr: Some(s.into()),
        },
    )
}

fn regex(pattern: &str, flags: i32) -> pc::Comparator {
    comparator(
        "RegexStringComparator",
        &pc::RegexStringComparator {
            pattern: Some(pattern.into()),
            pattern_flags: Some(flags),
            charset: Some("UTF-8".into()),
            engine: Some("JAVA".into()),
        },
    )
}

fn scvf(family: &str, qualifier: &str, op: CompareType, cmp: pc::Comparator) -> pf::Filter {
    filter(
        "SingleColumnValueFilter",
        &pf::SingleColumnValueFilter {
            column_family: Some(family.into()),
            column_qualifier: Some(qualifier.into()),
            compare_op: Some(op as i32),
            comparator: Some(cmp),
            filter_if_missing: Some(true),
            latest_version_only: Some(true),
        },
    )
}

fn list(op: Operator, filters: Vec<pf::Filter>) -> pf::Filter {
    filter(
        "FilterList",
        &pf::FilterList {
            operator: Some(op as i32),
            filters,
        },
    )
}

fn prefix(p: &str) -> pf::Filter {
    filter(
        "PrefixFilter",
        &pf::PrefixFilter {
            prefix: Some(p.into()),
        },
    )
}

fn err(f: &pf::Filter) -> String {
    match to_engine_filter(f) {
        Ok(got) => panic!("expected an error, got {got:?}"),
        Err(e) => e.0,
    }
}

fn cmp_err(c: &pc::Comparator) -> String {
    match to_engine_comparator(c) {
        Ok(got) => panic!("expected an error, got {got:?}"),
        Err(e) => e.0,
    }
}

/// A row (family, qualifier, value cells) through the filter as the read path asks it;
/// the cells it returns, or None when the row is dropped.
fn run_row(f: &mut dyn Filter, row: &str, cells: &[(&str, &str, &str)]) -> Option<Vec<String>> {
    if f.filter_all_remaining() {
        return None;
    }
    f.reset();
    if f.filter_row_key(row.as_bytes()) {
        return None;
    }
    let mut kept = Vec::new();
    for (family, qualifier, value) in cells {
        let c = CellRef {
            row: row.as_bytes(),
            family: family.as_bytes(),
            qualifier: qualifier.as_bytes(),
            timestamp: 1,
            cell_type: CellType::Put,
            value: value.as_bytes(),
        };
        if f.filter_cell(&c).includes() {
            kept.push(format!("{family}:{qualifier}"));
        }
    }
    if f.has_filter_row() && f.filter_row() {
        return None;
    }
    Some(kept)
}

#[test]
fn seed_single_column_value_filters_in_a_must_pass_all_list() {
    let f = list(
        Operator::MustPassAll,
        vec![
            scvf("info", "city", CompareType::Equal, binary(b"Paris")),
            scvf("info", "name", CompareType::Equal, substring("ALI")),
        ],
    );
    let mut f = to_engine_filter(&f).unwrap();
    let paris_alice = [("info", "city", "Paris"), ("info", "name", "Alice")];
    let paris_bob = [("info", "city", "Paris"), ("info", "name", "Bob")];
    let rome_alice = [("info", "city", "Rome"), ("info", "name", "Alice")];
    let no_city = [("info", "name", "Alice")];
    assert_eq!(
        run_row(f.as_mut(), "r1", &paris_alice),
        Some(vec!["info:city".into(), "info:name".into()])
    );
    assert_eq!(run_row(f.as_mut(), "r2", &paris_bob), None);
    assert_eq!(run_row(f.as_mut(), "r3", &rome_alice), None);
    // filter_if_missing: a row without the column is dropped.
    assert_eq!(run_row(f.as_mut(), "r4", &no_city), None);
}

#[test]
fn must_pass_one_list_and_nesting() {
    let f = list(
        Operator::MustPassOne,
        vec![
            prefix("a"),
            list(Operator::MustPassAll, vec![prefix("b"), prefix("bb")]),
        ],
    );
    let mut f = to_engine_filter(&f).unwrap();
    let cells = [("f", "q", "v")];
    assert!(run_row(f.as_mut(), "a1", &cells).is_some());
    assert!(run_row(f.as_mut(), "bb1", &cells).is_some());
    assert!(run_row(f.as_mut(), "b1", &cells).is_none());
}

#[test]
fn seed_page_filter() {
    let f = filter("PageFilter", &pf::PageFilter { page_size: Some(2) });
    let mut f = to_engine_filter(&f).unwrap();
    let cells = [("f", "q", "v")];
    assert!(run_row(f.as_mut(), "r1", &cells).is_some());
    assert!(run_row(f.as_mut(), "r2", &cells).is_some());
    assert!(run_row(f.as_mut(), "r3", &cells).is_none());
    let negative = filter(
        "PageFilter",
        &pf::PageFilter {
            page_size: Some(-1),
        },
    );
    assert!(err(&negative).contains("page_size -1 must not be negative"));
    let absent = filter("PageFilter", &pf::PageFilter { page_size: None });
    assert!(err(&absent).contains("required field page_size is missing"));
}

#[test]
fn seed_column_count_get_filter() {
    let f = filter(
        "ColumnCountGetFilter",
        &pf::ColumnCountGetFilter { limit: Some(2) },
    );
    let mut f = to_engine_filter(&f).unwrap();
    let got = run_row(
        f.as_mut(),
        "r1",
        &[("f", "a", "1"), ("f", "b", "2"), ("f", "c", "3")],
    );
    assert_eq!(got, Some(vec!["f:a".into(), "f:b".into()]));
}

#[test]
fn seed_prefix_filter() {
    let mut f = to_engine_filter(&prefix("user1")).unwrap();
    let cells = [("f", "q", "v")];
    assert!(run_row(f.as_mut(), "user10", &cells).is_some());
    assert!(run_row(f.as_mut(), "user2", &cells).is_none());
}

fn fuzzy(pairs: &[(&[u8], &[u8])], v2: Option<bool>) -> pf::Filter {
    filter(
        "FuzzyRowFilter",
        &pf::FuzzyRowFilter {
            fuzzy_keys_data: pairs
                .iter()
                .map(|(k, m)| BytesBytesPair {
                    first: Some(k.to_vec()),
                    second: Some(m.to_vec()),
                })
                .collect(),
            is_mask_v2: v2,
        },
    )
}

fn fuzzy_keeps(f: &pf::Filter, rows: &[&str]) -> Vec<bool> {
    let mut f = to_engine_filter(f).unwrap();
    rows.iter()
        .map(|r| {
            let mut g = f.clone_box();
            let keep = run_row(g.as_mut(), r, &[("f", "q", "v")]).is_some();
            f = g;
            f = f.clone_box();
            keep
        })
        .collect()
}

#[test]
fn seed_fuzzy_row_filter_masks_v1_v2_and_raw() {
    let rows = ["ab12_01", "zz99_01", "ab12_02"];
    let want = vec![true, true, false];
    // A 2.6 client with Unsafe: processed V2 mask (-1 fixed, 2 free), free key bytes zeroed.
    let v2 = fuzzy(
        &[(b"\0\0\0\0_01", &[2, 2, 2, 2, 0xff, 0xff, 0xff])],
        Some(true),
    );
    // An old client: processed V1 mask (-1 fixed, 0 free), no flag.
    let v1 = fuzzy(&[(b"????_01", &[0, 0, 0, 0, 0xff, 0xff, 0xff])], None);
    // A client without Unsafe (or gohbase): the raw mask (0 fixed, 1 free).
    let raw_v2 = fuzzy(&[(b"????_01", &[1, 1, 1, 1, 0, 0, 0])], Some(true));
    let raw_v1 = fuzzy(&[(b"????_01", &[1, 1, 1, 1, 0, 0, 0])], Some(false));
    for f in [&v2, &v1, &raw_v2, &raw_v1] {
        assert_eq!(fuzzy_keeps(f, &rows), want, "{f:?}");
    }
    // HBASE-15676 kept for fidelity: a V1 all-zero mask is read as all free.
    let all_zero_v1 = fuzzy(&[(b"abc", &[0, 0, 0])], None);
    assert_eq!(fuzzy_keeps(&all_zero_v1, &["xyz"]), vec![true]);
    // ... while with the V2 flag it means all fixed.
    let all_zero_v2 = fuzzy(&[(b"abc", &[0, 0, 0])], Some(true));
    assert_eq!(
        fuzzy_keeps(&all_zero_v2, &["abc", "xyz"]),
        vec![true, false]
    );
}

#[test]
fn fuzzy_row_filter_refuses_bad_masks() {
    let short = fuzzy(&[(b"abcd", &[0, 1])], Some(true));
    assert!(err(&short).contains("has 4 bytes but its mask 2"));
    let partial = fuzzy(&[(b"ab", &[0xff, 0x40])], Some(true));
    assert!(err(&partial).contains("mask byte 0x40 at position 2"));
    let missing_pair_parts = fuzzy(&[(b"", &[])], Some(true));
    assert!(to_engine_filter(&missing_pair_parts).is_ok());
}

#[test]
fn unknown_classes_and_garbage_are_filter_errors() {
    let unknown = pf::Filter {
        name: Some("com.example.MyFilter".into()),
        serialized_filter: Some(vec![]),
    };
    let e = err(&unknown);
    assert!(e.contains("com.example.MyFilter"), "{e}");
    assert!(e.contains("not supported by ferrobase"), "{e}");
    let unknown_hbase = pf::Filter {
        name: Some(class("FooFilter")),
        serialized_filter: None,
    };
    assert_eq!(
        err(&unknown_hbase),
        "filter org.apache.hadoop.hbase.filter.FooFilter is not supported by ferrobase \
         (unknown filter class)"
    );
    let garbage = pf::Filter {
        name: Some(class("PrefixFilter")),
        serialized_filter: Some(vec![0xff, 0xff, 0xff, 0xff]),
    };
    let e = err(&garbage);
    assert!(
        e.contains("PrefixFilter") && e.contains("does not decode"),
        "{e}"
    );
    let nameless = pf::Filter {
        name: None,
        serialized_filter: Some(vec![]),
    };
    assert!(err(&nameless).contains("Filter.name is required"));
    let long_name = pf::Filter {
        name: Some("x".repeat(100_000)),
        serialized_filter: None,
    };
    assert!(err(&long_name).len() < 400);
    for refused in ["FirstKeyValueMatchingQualifiersFilter", "FilterAllFilter"] {
        let f = pf::Filter {
            name: Some(class(refused)),
            serialized_filter: None,
        };
        let e = err(&f);
        assert!(e.contains(refused) && e.contains("not supported"), "{e}");
    }
    // A comparator that fails inside a filter names both.
    let f = scvf(
        "f",
        "q",
        CompareType::Equal,
        comparator(
            "BigDecimalComparator",
            &pc::BigDecimalComparator {
                comparable: bytes_of(b"1"),
            },
        ),
    );
    let e = err(&f);
    assert!(
        e.contains("SingleColumnValueFilter") && e.contains("BigDecimalComparator"),
        "{e}"
    );
}

const STACK_FOR_100_LEVELS: usize = 524288;

fn nested_lists(depth: usize) -> pf::Filter {
    let mut f = prefix("a");
    for _ in 1..depth {
        f = list(Operator::MustPassAll, vec![f]);
    }
    f
}

#[test]
fn nesting_is_limited_to_100_levels() {
    // 100 levels convert within a small stack, even unoptimized.
    let deepest = nested_lists(MAX_FILTER_DEPTH);
    std::thread::Builder::new()
        .stack_size(STACK_FOR_100_LEVELS)
        .spawn(move || assert!(to_engine_filter(&deepest).is_ok()))
        .unwrap()
        .join()
        .unwrap();
    for depth in [MAX_FILTER_DEPTH + 1, 1000] {
        let e = err(&nested_lists(depth));
        assert!(e.contains("nested more than 100 levels"), "{e}");
    }
    // Skip, While and the wrapper count too.
    let mut f = prefix("a");
    for i in 1..=MAX_FILTER_DEPTH {
        let inner = Some(f);
        f = match i % 3 {
            0 => filter("SkipFilter", &pf::SkipFilter { filter: inner }),
            1 => filter("WhileMatchFilter", &pf::WhileMatchFilter { filter: inner }),
            _ => filter("FilterWrapper", &pf::FilterWrapper { filter: inner }),
        };
    }
    assert!(err(&f).contains("nested more than 100 levels"));
}

#[test]
fn every_supported_filter_converts() {
    let cf = |cmp| {
        Some(pf::CompareFilter {
            compare_op: Some(CompareType::Equal as i32),
            comparator: Some(cmp),
        })
    };
    let filters = vec![
        filter(
            "ColumnCountGetFilter",
            &pf::ColumnCountGetFilter { limit: Some(1) },
        ),
        filter(
            "ColumnPaginationFilter",
            &pf::ColumnPaginationFilter {
                limit: Some(2),
                offset: Some(1),
                column_offset: None,
            },
        ),
        filter(
            "ColumnPaginationFilter",
            &pf::ColumnPaginationFilter {
                limit: Some(2),
                offset: None,
                column_offset: Some(b"q".to_vec()),
            },
        ),
        filter(
            "ColumnPrefixFilter",
            &pf::ColumnPrefixFilter {
                prefix: Some(b"q".to_vec()),
            },
        ),
        filter(
            "ColumnRangeFilter",
            &pf::ColumnRangeFilter {
                min_column: Some(b"a".to_vec()),
                min_column_inclusive: Some(true),
                max_column: None,
                max_column_inclusive: Some(false),
            },
        ),
        filter(
            "DependentColumnFilter",
            &pf::DependentColumnFilter {
                compare_filter: Some(pf::CompareFilter {
                    compare_op: Some(CompareType::NoOp as i32),
                    comparator: None,
                }),
                column_family: Some(b"f".to_vec()),
                column_qualifier: Some(b"q".to_vec()),
                drop_dependent_column: Some(true),
            },
        ),
        filter(
            "FamilyFilter",
            &pf::FamilyFilter {
                compare_filter: cf(binary(b"f")),
            },
        ),
        filter(
            "QualifierFilter",
            &pf::QualifierFilter {
                compare_filter: cf(regex("^q", pattern_flags::DOTALL)),
            },
        ),
        filter(
            "RowFilter",
            &pf::RowFilter {
                compare_filter: cf(substring("x")),
            },
        ),
        filter(
            "ValueFilter",
            &pf::ValueFilter {
                compare_filter: cf(comparator("NullComparator", &pc::NullComparator {})),
            },
        ),
        filter(
            "FilterWrapper",
            &pf::FilterWrapper {
                filter: Some(prefix("a")),
            },
        ),
        filter("FirstKeyOnlyFilter", &pf::FirstKeyOnlyFilter {}),
        filter(
            "InclusiveStopFilter",
            &pf::InclusiveStopFilter {
                stop_row_key: Some(b"z".to_vec()),
            },
        ),
        filter(
            "KeyOnlyFilter",
            &pf::KeyOnlyFilter {
                len_as_val: Some(true),
            },
        ),
        filter(
            "MultipleColumnPrefixFilter",
            &pf::MultipleColumnPrefixFilter {
                sorted_prefixes: vec![b"a".to_vec(), b"b".to_vec()],
            },
        ),
        filter(
            "MultiRowRangeFilter",
            &pf::MultiRowRangeFilter {
                row_range_list: vec![PbRowRange {
                    start_row: Some(b"a".to_vec()),
                    start_row_inclusive: Some(true),
                    stop_row: Some(b"c".to_vec()),
                    stop_row_inclusive: Some(false),
                }],
            },
        ),
        filter(
            "RandomRowFilter",
            &pf::RandomRowFilter { chance: Some(0.5) },
        ),
        filter(
            "SingleColumnValueExcludeFilter",
            &pf::SingleColumnValueExcludeFilter {
                single_column_value_filter: Some(pf::SingleColumnValueFilter {
                    column_family: Some(b"f".to_vec()),
                    column_qualifier: Some(b"q".to_vec()),
                    compare_op: Some(CompareType::Greater as i32),
                    comparator: Some(binary(b"1")),
                    filter_if_missing: None,
                    latest_version_only: None,
                }),
            },
        ),
        filter(
            "SkipFilter",
            &pf::SkipFilter {
                filter: Some(prefix("a")),
            },
        ),
        filter(
            "TimestampsFilter",
            &pf::TimestampsFilter {
                timestamps: vec![3, 1, 2],
                can_hint: Some(true),
            },
        ),
        filter(
            "WhileMatchFilter",
            &pf::WhileMatchFilter {
                filter: Some(prefix("a")),
            },
        ),
        filter(
            "ColumnValueFilter",
            &pf::ColumnValueFilter {
                family: Some(b"f".to_vec()),
                qualifier: Some(b"q".to_vec()),
                compare_op: Some(CompareType::LessOrEqual as i32),
                comparator: Some(comparator(
                    "LongComparator",
                    &pc::LongComparator {
                        comparable: bytes_of(&7i64.to_be_bytes()),
                    },
                )),
            },
        ),
    ];
    for f in &filters {
        if let Err(e) = to_engine_filter(f) {
            panic!("{}: {e}", f.name.as_deref().unwrap_or_default());
        }
    }
}

#[test]
fn single_column_value_exclude_filter_drops_the_tested_column() {
    let f = filter(
        "SingleColumnValueExcludeFilter",
        &pf::SingleColumnValueExcludeFilter {
            single_column_value_filter: Some(pf::SingleColumnValueFilter {
                column_family: Some(b"f".to_vec()),
                column_qualifier: Some(b"q".to_vec()),
                compare_op: Some(CompareType::Equal as i32),
                comparator: Some(binary(b"yes")),
                filter_if_missing: Some(false),
                latest_version_only: Some(true),
            }),
        },
    );
    let mut f = to_engine_filter(&f).unwrap();
    let mut cells = vec![
        ferrobase_engine::Cell::new(
            b"r".to_vec(),
            b"f".to_vec(),
            b"a".to_vec(),
            1,
            CellType::Put,
            b"1".to_vec(),
        ),
        ferrobase_engine::Cell::new(
            b"r".to_vec(),
            b"f".to_vec(),
            b"q".to_vec(),
            1,
            CellType::Put,
            b"yes".to_vec(),
        ),
    ];
    f.reset();
    for c in &cells {
        assert!(f.filter_cell(&CellRef::from(c)).includes());
    }
    f.filter_row_cells(&mut cells);
    assert!(!f.filter_row());
    assert_eq!(cells.len(), 1);
    assert_eq!(cells.first().map(|c| c.qualifier()), Some(&b"a"[..]));
}

#[test]
fn column_pagination_and_ranges_are_checked() {
    let negative_offset = filter(
        "ColumnPaginationFilter",
        &pf::ColumnPaginationFilter {
            limit: Some(1),
            offset: Some(-3),
            column_offset: None,
        },
    );
    assert!(err(&negative_offset).contains("offset -3 must not be negative"));
    let backwards = filter(
        "MultiRowRangeFilter",
        &pf::MultiRowRangeFilter {
            row_range_list: vec![PbRowRange {
                start_row: Some(b"d".to_vec()),
                start_row_inclusive: Some(true),
                stop_row: Some(b"b".to_vec()),
                stop_row_inclusive: Some(true),
            }],
        },
    );
    assert!(err(&backwards).contains("invalid range"));
    let none = filter("MultiRowRangeFilter", &pf::MultiRowRangeFilter::default());
    assert!(err(&none).contains("no ranges"));
    let stamps = filter(
        "TimestampsFilter",
        &pf::TimestampsFilter {
            timestamps: vec![1, -5],
            can_hint: None,
        },
    );
    assert!(err(&stamps).contains("timestamp -5 is negative"));
    let list_op = filter(
        "FilterList",
        &pf::FilterList {
            operator: Some(9),
            filters: vec![],
        },
    );
    assert!(err(&list_op).contains("unknown operator 9"));
    let no_comparator = filter(
        "RowFilter",
        &pf::RowFilter {
            compare_filter: Some(pf::CompareFilter {
                compare_op: Some(CompareType::Equal as i32),
                comparator: None,
            }),
        },
    );
    assert!(err(&no_comparator).contains("compare_filter.comparator is missing"));
}

fn verdict(c: &pc::Comparator, op: CompareOp, value: &[u8]) -> bool {
    to_engine_comparator(c).unwrap().matches(op, value)
}

#[test]
fn comparators() {
    use CompareOp::*;
    assert!(verdict(&binary(b"b"), Greater, b"c"));
    assert!(!verdict(&binary(b"b"), Greater, b"a"));
    let prefix = comparator(
        "BinaryPrefixComparator",
        &pc::BinaryPrefixComparator {
            comparable: bytes_of(b"ab"),
        },
    );
    assert!(verdict(&prefix, Equal, b"abc"));
    let bit = |op: BitwiseOp| {
        comparator(
            "BitComparator",
            &pc::BitComparator {
                comparable: bytes_of(&[0b0101]),
                bitwise_op: Some(op as i32),
            },
        )
    };
    assert!(verdict(&bit(BitwiseOp::And), Equal, &[0b0100]));
    assert!(!verdict(&bit(BitwiseOp::And), Equal, &[0b1010]));
    assert!(verdict(&bit(BitwiseOp::Or), Equal, &[0]));
    assert!(!verdict(&bit(BitwiseOp::Xor), Equal, &[0b0101]));
    let long = comparator(
        "LongComparator",
        &pc::LongComparator {
            comparable: bytes_of(&100i64.to_be_bytes()),
        },
    );
    assert!(verdict(&long, Less, &99i64.to_be_bytes()));
    assert!(!verdict(&long, Less, &101i64.to_be_bytes()));
    let short_long = comparator(
        "LongComparator",
        &pc::LongComparator {
            comparable: bytes_of(&[1, 2]),
        },
    );
    assert!(cmp_err(&short_long).contains("a long needs 8"));
    // The Java client lower-cases the text; an upper-case one is matched the same.
    assert!(verdict(&substring("LoNd"), Equal, b"London"));
    // Regex: found anywhere; Java's flags as inline flags.
    assert!(verdict(
        &regex("nd.n", pattern_flags::DOTALL),
        Equal,
        b"London"
    ));
    assert!(!verdict(&regex("LONDON", 0), Equal, b"London"));
    assert!(verdict(
        &regex("LONDON", pattern_flags::CASE_INSENSITIVE),
        Equal,
        b"London"
    ));
    assert!(verdict(
        &regex("a.b", pattern_flags::DOTALL),
        Equal,
        b"a\nb"
    ));
    assert!(!verdict(&regex("a.b", 0), Equal, b"a\nb"));
    assert!(verdict(
        &regex("^b$", pattern_flags::MULTILINE),
        Equal,
        b"a\nb"
    ));
    assert!(verdict(
        &regex("a.b(", pattern_flags::LITERAL),
        Equal,
        b"xa.b(y"
    ));
    assert!(!verdict(
        &regex("a.b(", pattern_flags::LITERAL),
        Equal,
        b"axb("
    ));
    let e = cmp_err(&regex("(a)\\1", 0));
    assert!(
        e.contains("RegexStringComparator") && e.contains("not supported"),
        "{e}"
    );
    assert!(cmp_err(&regex("a", pattern_flags::CANON_EQ)).contains("CANON_EQ"));
    assert!(cmp_err(&regex("a", 0x10000)).contains("unknown pattern flags"));
    let latin1 = comparator(
        "RegexStringComparator",
        &pc::RegexStringComparator {
            pattern: Some("a".into()),
            pattern_flags: Some(0),
            charset: Some("ISO-8859-1".into()),
            engine: None,
        },
    );
    assert!(cmp_err(&latin1).contains("charset \"ISO-8859-1\""));
    let component = comparator(
        "BinaryComponentComparator",
        &pc::BinaryComponentComparator {
            value: Some(b"x".to_vec()),
            offset: Some(1),
        },
    );
    assert!(cmp_err(&component).contains("BinaryComponentComparator is not supported"));
    let garbage = pc::Comparator {
        name: Some(class("BinaryComparator")),
        serialized_comparator: Some(vec![0x0a, 0x05, 0x01]),
    };
    assert!(cmp_err(&garbage).contains("does not decode"));
    let missing = pc::Comparator {
        name: Some(class("BinaryComparator")),
        serialized_comparator: None,
    };
    assert!(cmp_err(&missing).contains("required field comparable is missing"));
}

#[test]
fn compare_ops() {
    let all = [
        (CompareType::Less, CompareOp::Less),
        (CompareType::LessOrEqual, CompareOp::LessOrEqual),
        (CompareType::Equal, CompareOp::Equal),
        (CompareType::NotEqual, CompareOp::NotEqual),
        (CompareType::GreaterOrEqual, CompareOp::GreaterOrEqual),
        (CompareType::Greater, CompareOp::Greater),
        (CompareType::NoOp, CompareOp::NoOp),
    ];
    for (t, op) in all {
        assert_eq!(compare_op(t as i32).unwrap(), op);
    }
    for bad in [-1, 7, i32::MAX] {
        assert!(compare_op(bad).is_err());
    }
}

/// Arbitrary bytes under every class name: an error or a filter, never a panic.
#[test]
fn arbitrary_bytes_never_panic() {
    let classes = FILTER_CLASSES;
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for round in 0..2000 {
        let len = (next() % 48) as usize;
        let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
        let name = classes[round % classes.len()];
        let _ = to_engine_filter(&pf::Filter {
            name: Some(class(name)),
            serialized_filter: Some(bytes.clone()),
        });
        let _ = to_engine_comparator(&pc::Comparator {
            name: Some(class("RegexStringComparator")),
            serialized_comparator: Some(bytes),
        });
    }
}
