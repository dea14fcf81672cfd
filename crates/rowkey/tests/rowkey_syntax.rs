//! The schema syntax: every type name, canonical printing, and errors that point at the text.

use ferrobase_rowkey::{Error, FieldType, HashAlgo, SaltEncoding, Schema};

#[test]
fn every_type_name_parses() {
    let text = "a:dec6, b:u32dec6, c:u8, d:u24, e:u64, f:i8, g:i40, h:i64, i:f32, j:f64, \
                k:revts, l:revtsdec, m:str8, n:str8/_, o:str4/0x20, p:bytes3, q:bytes3/0xff, \
                r:str, s:bytes, t:rev, u:md5:2(a,b), v:murmur3:16(r), w:salt:16, \
                x:salt:100/dec(a), y:salt:256(c, d)";
    let schema: Schema = text.parse().unwrap();
    let ty = |name: &str| schema.field(name).unwrap().ty.clone();
    assert_eq!(ty("a"), FieldType::Dec { width: 6, bits: 64 });
    assert_eq!(ty("b"), FieldType::Dec { width: 6, bits: 32 });
    assert_eq!(ty("d"), FieldType::Uint { bytes: 3 });
    assert_eq!(ty("g"), FieldType::Int { bytes: 5 });
    assert_eq!(
        ty("n"),
        FieldType::FixedStr {
            width: 8,
            pad: b'_'
        }
    );
    assert_eq!(
        ty("o"),
        FieldType::FixedStr {
            width: 4,
            pad: b' '
        }
    );
    assert_eq!(
        ty("q"),
        FieldType::FixedBytes {
            width: 3,
            pad: 0xFF
        }
    );
    assert_eq!(
        ty("u"),
        FieldType::Hash {
            algo: HashAlgo::Md5,
            len: 2,
            inputs: vec!["a".into(), "b".into()],
            hex: false,
        }
    );
    assert_eq!(
        ty("x"),
        FieldType::Salt {
            buckets: 100,
            encoding: SaltEncoding::Decimal,
            inputs: vec!["a".into()]
        }
    );
    assert_eq!(schema.value_count(), 20);
    assert_eq!(ty("x").fixed_width(), Some(2));
    // Printing gives the canonical text, which parses back to the same schema.
    let printed = schema.to_string();
    assert!(
        printed.starts_with("a:dec6, b:u32dec6, c:u8, d:u24"),
        "{printed}"
    );
    assert!(
        printed.contains("o:str4/0x20") && printed.contains("y:salt:256(c,d)"),
        "{printed}"
    );
    assert_eq!(printed.parse::<Schema>().unwrap(), schema);
    assert_eq!(
        " user : u32dec6 ,date:dec8, "
            .parse::<Schema>()
            .unwrap()
            .to_string(),
        "user:u32dec6, date:dec8"
    );
}

fn syntax_error(text: &str) -> (usize, String) {
    match text.parse::<Schema>() {
        Err(Error::Syntax { pos, message }) => (pos, message),
        other => panic!("{text}: {other:?}"),
    }
}

fn schema_error(text: &str) -> String {
    match text.parse::<Schema>() {
        Err(Error::Schema(message)) => message,
        other => panic!("{text}: {other:?}"),
    }
}

#[test]
fn syntax_errors_point_at_the_text() {
    assert_eq!(syntax_error("user:u33").0, 5);
    assert!(syntax_error("user:u33").1.contains("unknown type `u33`"));
    assert_eq!(syntax_error("user u32").0, 5);
    assert_eq!(syntax_error("a:dec4, :dec2").0, 8);
    assert_eq!(syntax_error("a:md5:2 (").0, 9);
    assert_eq!(syntax_error("a:str8/").0, 7);
    assert_eq!(syntax_error("").1, "expected a field name");
    assert_eq!(syntax_error("a:dec4 b:dec4").1, "expected `,`, found `b`");
}

#[test]
fn invalid_schemas_are_explained() {
    assert!(schema_error("a:dec4, a:dec2").contains("duplicate field name `a`"));
    assert!(schema_error("a:dec21").contains("width 21"));
    assert!(schema_error("a:dec0").contains("width 0"));
    assert!(schema_error("h:md5:17(a), a:u8").contains("17 bytes"));
    assert!(schema_error("h:md5:2(b), a:u8").contains("`b`, which is not a value field"));
    assert!(schema_error("h:md5:2(h), a:u8").contains("`h`"));
    assert!(schema_error("b:salt:257, a:u8").contains("257 salt buckets"));
    assert!(schema_error("b:salt:0, a:u8").contains("0 salt buckets"));
    assert!(schema_error("b:salt:4").contains("at least one value field"));
    assert!(schema_error("h:md5:1(a,a), a:u8").contains("twice"));
}

#[test]
fn text_values_parse_per_type() {
    let schema: Schema = "id:dec6, n:i16, x:f64, ts:revts, name:str, raw:bytes, h:md5:2(id)"
        .parse()
        .unwrap();
    assert_eq!(schema.parse_value("id", "42").unwrap(), 42u64.into());
    assert_eq!(schema.parse_value("id", "000042").unwrap(), 42u64.into());
    assert!(schema.parse_value("id", "-1").is_err());
    assert_eq!(schema.parse_value("n", "-7").unwrap(), (-7i64).into());
    assert_eq!(
        schema.parse_value("x", "-inf").unwrap(),
        f64::NEG_INFINITY.into()
    );
    assert_eq!(
        schema.parse_value("name", "\"a b\\\"c\"").unwrap(),
        "a b\"c".into()
    );
    assert_eq!(
        schema.parse_value("name", "中国好声音").unwrap(),
        "中国好声音".into()
    );
    assert_eq!(
        schema.parse_value("raw", "\"\\x00\\xff\"").unwrap(),
        vec![0u8, 0xFF].into()
    );
    assert_eq!(
        schema.parse_value("h", "0aff").unwrap(),
        vec![0x0Au8, 0xFF].into()
    );
    assert!(schema.parse_value("nope", "1").is_err());

    let values = vec![
        42u64.into(),
        (-7i64).into(),
        1.5f64.into(),
        1_347_408_000_000i64.into(),
        "a b=\"c\"\n".into(),
        vec![0u8, b'z', 0x80].into(),
    ];
    let key = schema.encode(&values).unwrap();
    let text = schema.format_key(&key).unwrap();
    assert!(text.starts_with("id=000042 n=-7 x=1.5 ts=1347408000000 name=\"a b=\\\"c\\\"\\x0a\" raw=\"\\x00z\\x80\" h="), "{text}");
    assert_eq!(schema.parse_record(&text).unwrap(), values);
    // A derived field that does not match is refused.
    let wrong = text.rsplit_once("h=").unwrap().0.to_string() + "h=0000";
    assert!(schema
        .parse_record(&wrong)
        .unwrap_err()
        .to_string()
        .contains("`h`"));
    // Prefixes: the first fields, in any order; a gap is an error.
    assert_eq!(
        schema.parse_prefix("n=1 id=2").unwrap(),
        vec![2u64.into(), 1i64.into()]
    );
    assert!(schema
        .parse_prefix("id=2 x=1")
        .unwrap_err()
        .to_string()
        .contains("without `n`"));
    assert!(schema
        .parse_record("id=2")
        .unwrap_err()
        .to_string()
        .contains("`n`"));
}

#[test]
fn java_layouts_reversed_strings_words_desc_and_hex_hashes_parse_and_print_back() {
    let text = "a:revint, b:jint, c:jlong, d:revstr, e:word/_, f:desc(str), g:desc(u32dec6), \
                h:md5hex:6(d), i:murmur3hex:32(a, e)";
    let schema: Schema = text.parse().unwrap();
    let ty = |name: &str| schema.field(name).unwrap().ty.clone();
    assert_eq!(ty("a"), FieldType::RevInt);
    assert_eq!(ty("c"), FieldType::Java { bytes: 8 });
    assert_eq!(ty("e"), FieldType::Word { sep: b'_' });
    assert_eq!(ty("f"), FieldType::Desc(Box::new(FieldType::Str)));
    assert_eq!(
        ty("h"),
        FieldType::Hash {
            algo: HashAlgo::Md5,
            len: 6,
            inputs: vec!["d".into()],
            hex: true,
        }
    );
    assert_eq!(ty("a").fixed_width(), Some(4));
    assert_eq!(ty("g").fixed_width(), Some(6));
    assert!(ty("a").is_descending() && ty("f").is_descending() && !ty("b").is_descending());
    // Printing gives back the same schema.
    let again: Schema = schema.to_string().parse().unwrap();
    assert_eq!(again, schema);
    for (bad, says) in [
        ("a:desc(md5:2(b)), b:str", "desc takes a value type"),
        ("a:desc(desc(str))", "desc takes a value type"),
        ("a:md5hex:33(b), b:str", "33 hex digits is not 1 to 32"),
        ("a:word", "word needs its separator"),
    ] {
        let e = bad.parse::<Schema>().unwrap_err().to_string();
        assert!(e.contains(says), "{bad}: {e}");
    }
}
