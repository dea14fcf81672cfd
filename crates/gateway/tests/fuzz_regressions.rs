//! The gateway's fuzz targets' checked-in inputs run under `cargo test`: every seed and every
//! input that once failed or attacked the server (`fuzz/corpus/<target>/`,
//! `fuzz/regressions/<target>/` of `thrift_messages`, `thrift_transport`, `sasl_negotiation`,
//! `packed_rows`, `password_file`, `certificate_identity`, `acl_cell`, `region_info` and
//! `namespace_descriptor`) goes through the target's own harness and must not panic.
//! `write_seed_corpus` (ignored; run it by name) regenerates the Thrift and packed-rows seeds
//! with the gateway's codecs.

#[path = "../../../fuzz/harness/acl_cell.rs"]
mod acl_cell;
#[path = "../../../fuzz/harness/certificate_identity.rs"]
mod certificate_identity;
#[path = "../../../fuzz/harness/namespace_descriptor.rs"]
mod namespace_descriptor;
#[path = "../../../fuzz/harness/packed_rows.rs"]
mod packed_rows;
#[path = "../../../fuzz/harness/password_file.rs"]
mod password_file;
#[path = "../../../fuzz/harness/region_info.rs"]
mod region_info;
#[path = "../../../fuzz/harness/replay.rs"]
mod replay;
#[path = "../../../fuzz/harness/sasl_negotiation.rs"]
mod sasl_negotiation;
#[path = "../../../fuzz/harness/thrift_messages.rs"]
mod thrift_messages;
#[path = "../../../fuzz/harness/thrift_transport.rs"]
mod thrift_transport;

use ferrobase_gateway::thrift::{
    Binary, Codec, Compact, MessageHeader, MessageType, TStruct, TType, TValue,
};

#[test]
fn thrift_messages_inputs_replay() {
    let n = replay::replay("thrift_messages", thrift_messages::run);
    assert!(n.corpus >= 6, "{n:?}");
    // The element-amplification requests of issue 32 (scaled down) in both protocols.
    assert!(n.regressions >= 3, "{n:?}");
}

#[test]
fn packed_rows_inputs_replay() {
    let n = replay::replay("packed_rows", packed_rows::run);
    assert!(n.corpus >= 3, "{n:?}");
}

/// The `packed_rows` seeds: scan batches as a gateway packs them (rows of several cells and
/// families, a row with none, a value long enough for a two-byte length).
fn packed_rows_seeds() -> Vec<(&'static str, Vec<u8>)> {
    use ferrobase_gateway::thrift::packed_rows::{put_cell, put_row_header, PackedCell};
    let cell = |family: &'static [u8], qualifier: &'static [u8], value: &'static [u8]| PackedCell {
        family,
        qualifier,
        timestamp: 1_700_000_000_000,
        value,
    };
    let pack = |rows: &[(&[u8], Vec<PackedCell<'static>>)]| {
        let mut out = Vec::new();
        for (row, cells) in rows {
            put_row_header(&mut out, row, cells.len());
            for c in cells {
                put_cell(&mut out, c);
            }
        }
        out
    };
    let long: &'static [u8] = &[b'v'; 200];
    vec![
        (
            "two-rows",
            pack(&[
                (
                    b"u001",
                    vec![cell(b"cf", b"a", b"1"), cell(b"cf", b"b", b"2")],
                ),
                (b"u002", vec![cell(b"cf", b"a", b"3"), cell(b"m", b"", b"")]),
            ]),
        ),
        (
            "empty-row",
            pack(&[(b"r", vec![]), (b"s", vec![cell(b"f", b"q", b"x")])]),
        ),
        (
            "long-value",
            pack(&[(b"row", vec![cell(b"cf", b"q", long)])]),
        ),
    ]
}

#[test]
fn thrift_transport_inputs_replay() {
    let n = replay::replay("thrift_transport", thrift_transport::run);
    // Two calls in each transport and protocol, a frame with bytes after its message, a
    // frame over the message limit, and a call refused for memory.
    assert!(n.corpus >= 7, "{n:?}");
}

/// The `thrift_transport` seeds read as the server reads them: two calls back to back in each
/// transport and protocol, an oversized frame closes the connection, and a call over the
/// memory limit is refused with the connection still in step for the next.
#[test]
fn thrift_transport_seeds_read_as_the_server_reads_them() {
    use thrift_transport::{read_calls, Outcome};
    let seed = |name: &str| {
        let path = replay::fuzz_dir()
            .join("corpus/thrift_transport")
            .join(name);
        read_calls(&std::fs::read(path).unwrap())
    };
    let two = Outcome {
        calls: 2,
        refused: 0,
        malformed: false,
    };
    for name in [
        "buffered-binary",
        "buffered-compact",
        "framed-binary",
        "framed-compact",
        "framed-binary-padded",
    ] {
        assert_eq!(seed(name), two, "{name}");
    }
    assert!(seed("framed-over-limit").malformed);
    assert_eq!(
        seed("buffered-binary-refused-then-call"),
        Outcome {
            calls: 1,
            refused: 1,
            malformed: false,
        }
    );
    assert!(read_calls(b"GET / HTTP/1.1\r\n\r\n").malformed);
}

#[test]
fn sasl_negotiation_inputs_replay() {
    let n = replay::replay("sasl_negotiation", sasl_negotiation::run);
    // A login that succeeds, a wrong password, GSSAPI, plain Thrift on the SASL port.
    assert!(n.corpus >= 4, "{n:?}");
}

#[test]
fn password_file_inputs_replay() {
    let n = replay::replay("password_file", password_file::run);
    assert!(n.corpus >= 1, "{n:?}");
}

#[test]
fn certificate_identity_inputs_replay() {
    let n = replay::replay("certificate_identity", certificate_identity::run);
    assert!(n.corpus >= 1, "{n:?}");
}

#[test]
fn region_info_inputs_replay() {
    let n = replay::replay("region_info", region_info::run);
    assert!(n.corpus >= 3, "{n:?}");
}

#[test]
fn namespace_descriptor_inputs_replay() {
    let n = replay::replay("namespace_descriptor", namespace_descriptor::run);
    assert!(n.corpus >= 2, "{n:?}");
}

/// The catalog seeds are what HBase 2.6.1 and ferrobase store: each decodes.
#[test]
fn catalog_seeds_decode_as_catalog_values() {
    use ferrobase_gateway::thrift::hbase::catalog::{PbNamespaceDescriptor, PbRegionInfo};
    for path in replay::inputs("corpus", "region_info") {
        let data = std::fs::read(&path).unwrap();
        PbRegionInfo::from_cell_value(&data).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    }
    for path in replay::inputs("corpus", "namespace_descriptor") {
        let data = std::fs::read(&path).unwrap();
        PbNamespaceDescriptor::decode(&data).unwrap_or_else(|e| panic!("{path:?}: {e}"));
    }
}

#[test]
fn acl_cell_inputs_replay() {
    let n = replay::replay("acl_cell", acl_cell::run);
    assert!(n.corpus >= 5, "{n:?}");
}

/// The `acl_cell` seeds are cells in the store's layout: each scope kind decodes as one, and a
/// value with a letter that is no action is skipped.
#[test]
fn acl_cell_seeds_decode_as_the_store_reads_them() {
    use ferrobase_security::acl::acl_table::decode_cell;
    use ferrobase_security::acl::{Actions, Scope};
    let seed = |name: &str| {
        let data = std::fs::read(replay::fuzz_dir().join("corpus/acl_cell").join(name)).unwrap();
        let (row, qualifier, value) = acl_cell::split(&data).unwrap();
        decode_cell(row, qualifier, value)
    };
    let rw = Actions::parse("RW").unwrap();
    assert_eq!(seed("global"), Some(("alice".into(), Scope::Global, rw)));
    let (user, scope, _) = seed("namespace").unwrap();
    assert_eq!(
        (user.as_str(), scope),
        ("bob", Scope::Namespace("ns".into()))
    );
    assert_eq!(seed("table").unwrap().2, Actions::all());
    let (user, scope, _) = seed("column").unwrap();
    assert_eq!(user, "dave");
    assert_eq!(
        scope,
        Scope::Table {
            table: "ns:t".into(),
            family: Some(b"cf".to_vec()),
            qualifier: Some(b"q".to_vec()),
        }
    );
    assert_eq!(seed("unknown-action"), None);
}

fn bin(s: &str) -> TValue {
    TValue::Binary(s.as_bytes().to_vec())
}

fn no_attributes() -> TValue {
    TValue::Map(TType::Binary, TType::Binary, Vec::new())
}

/// `Mutation`: isDelete, column, value, writeToWAL.
fn mutation(is_delete: bool, column: &str, value: &str) -> TValue {
    TValue::Struct(
        TStruct::new()
            .with(1, TValue::Bool(is_delete))
            .with(2, bin(column))
            .with(3, bin(value))
            .with(4, TValue::Bool(true)),
    )
}

/// The seed calls (name, arguments) and one reply, as real clients send them.
fn messages() -> Vec<(&'static str, MessageType, TStruct)> {
    let batch = |row: &str, muts: Vec<TValue>| {
        TValue::Struct(
            TStruct::new()
                .with(1, bin(row))
                .with(2, TValue::List(TType::Struct, muts)),
        )
    };
    let scan = TStruct::new()
        .with(1, bin("r1"))
        .with(2, bin("r9"))
        .with(3, TValue::I64(1_700_000_000_000))
        .with(4, TValue::List(TType::Binary, vec![bin("cf:a"), bin("cf")]))
        .with(5, TValue::I32(100))
        .with(
            6,
            bin("PrefixFilter('r') AND (ValueFilter(=, 'binary:v') OR SKIP QualifierFilter(!=, 'substring:x'))"),
        )
        .with(7, TValue::I32(10))
        .with(9, TValue::Bool(true));
    vec![
        ("getTableNames", MessageType::Call, TStruct::new()),
        (
            "mutateRows",
            MessageType::Call,
            TStruct::new()
                .with(1, bin("t"))
                .with(
                    2,
                    TValue::List(
                        TType::Struct,
                        vec![
                            batch(
                                "r1",
                                vec![mutation(false, "cf:a", "v1"), mutation(true, "cf:b", "")],
                            ),
                            batch("r2", vec![mutation(false, "cf:a", "v2")]),
                        ],
                    ),
                )
                .with(3, no_attributes()),
        ),
        (
            "scannerOpenWithScan",
            MessageType::Call,
            TStruct::new()
                .with(1, bin("t"))
                .with(2, TValue::Struct(scan))
                .with(3, no_attributes()),
        ),
        (
            "getTableNames",
            MessageType::Reply,
            TStruct::new().with(0, TValue::List(TType::Binary, vec![bin("t"), bin("inbox")])),
        ),
    ]
}

/// A header and struct encoded by `codec`.
fn encode<C: Codec>(codec: &C, name: &str, kind: MessageType, args: &TStruct) -> Vec<u8> {
    let mut out = Vec::new();
    codec.write_header(
        &mut out,
        &MessageHeader {
            name: name.into(),
            kind,
            seq_id: 1,
        },
    );
    codec.write_struct(&mut out, args);
    out
}

/// A frame: the message behind its 4-byte big-endian length.
fn framed(message: &[u8]) -> Vec<u8> {
    let mut out = (message.len() as u32).to_be_bytes().to_vec();
    out.extend_from_slice(message);
    out
}

/// The `thrift_transport` seeds: whole connections' bytes, named by transport and protocol.
fn transport_seeds() -> Vec<(String, Vec<u8>)> {
    let calls = messages();
    let (first, second) = (&calls[0], &calls[1]);
    let call =
        |codec: &dyn Fn(&str, MessageType, &TStruct) -> Vec<u8>,
         (name, kind, args): &(&str, MessageType, TStruct)| { codec(name, *kind, args) };
    let binary = |n: &str, k, a: &TStruct| encode(&Binary, n, k, a);
    let compact = |n: &str, k, a: &TStruct| encode(&Compact, n, k, a);
    let mut seeds = Vec::new();
    for (protocol, codec) in [
        (
            "binary",
            &binary as &dyn Fn(&str, MessageType, &TStruct) -> Vec<u8>,
        ),
        ("compact", &compact),
    ] {
        let (a, b) = (call(codec, first), call(codec, second));
        seeds.push((
            format!("buffered-{protocol}"),
            [a.clone(), b.clone()].concat(),
        ));
        seeds.push((
            format!("framed-{protocol}"),
            [framed(&a), framed(&b)].concat(),
        ));
    }
    // Bytes left in a frame after its message are read past.
    let a = encode(&Binary, first.0, first.1, &first.2);
    let b = encode(&Binary, second.0, second.1, &second.2);
    let padded = [a.clone(), vec![0; 7]].concat();
    seeds.push((
        "framed-binary-padded".into(),
        [framed(&padded), framed(&b)].concat(),
    ));
    // A frame longer than the harness's message limit (64 KiB) closes the connection.
    let mut over = ((thrift_transport::LIMITS.max_message + 1) as u32)
        .to_be_bytes()
        .to_vec();
    over.extend_from_slice(&a);
    seeds.push(("framed-over-limit".into(), over));
    // A call whose decoded arguments pass the harness's pool (256 KiB; 10,000 empty rows, 40 KB
    // on the wire, at least 32 bytes each in memory) is read to its end and refused; the next
    // call is read.
    let rows = vec![bin(""); 10_000];
    let big = TStruct::new()
        .with(1, bin("t"))
        .with(2, TValue::List(TType::Binary, rows))
        .with(3, no_attributes());
    let refused = encode(&Binary, "getRows", MessageType::Call, &big);
    seeds.push((
        "buffered-binary-refused-then-call".into(),
        [refused, a].concat(),
    ));
    seeds
}

#[test]
#[ignore = "writes fuzz/corpus/: run by name after a protocol change"]
fn write_seed_corpus() {
    let dir = replay::fuzz_dir().join("corpus/packed_rows");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in packed_rows_seeds() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let dir = replay::fuzz_dir().join("corpus/thrift_transport");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in transport_seeds() {
        std::fs::write(dir.join(name), bytes).unwrap();
    }
    let dir = replay::fuzz_dir().join("corpus/thrift_messages");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, kind, args) in messages() {
        let suffix = if kind == MessageType::Reply {
            "-reply"
        } else {
            ""
        };
        for (protocol, bytes) in [
            ("binary", encode(&Binary, name, kind, &args)),
            ("compact", encode(&Compact, name, kind, &args)),
        ] {
            std::fs::write(dir.join(format!("{name}{suffix}-{protocol}")), bytes).unwrap();
        }
    }
}
