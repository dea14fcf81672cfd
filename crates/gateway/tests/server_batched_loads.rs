//! Large `mutateRows(Ts)` batches through a running server's socket, in both transports and
//! both protocols: 10,000 rows round-trip with their exact contents (the decoding path a busy
//! loader takes, `docs/performance.md` "Server batched loads"), and a bad batch is refused
//! whole with a clear error, writing nothing, while the connection and the rows before it stay.

mod support;

use ferrobase_engine::{
    ColumnFamilyDescriptor, Engine, EngineOptions, Scan, TableDescriptor, TableName,
};
use ferrobase_gateway::thrift::{
    Binary, Codec, Compact, MessageHeader, MessageType, TStruct, TType, TValue,
};
use ferrobase_gateway::ServerOptions;
use std::net::TcpStream;
use std::time::Duration;
use support::replies::exception_message;
use support::server::Running;

fn start() -> Running {
    let dir = tempfile::tempdir().unwrap();
    let engine = Engine::open(dir.path(), EngineOptions::default()).unwrap();
    for t in ["t", "u"] {
        let desc = TableDescriptor::new(TableName::parse(t).unwrap())
            .with_family(ColumnFamilyDescriptor::new("cf"));
        engine.admin().create_table(desc).unwrap();
    }
    let opts = ServerOptions {
        addr: "127.0.0.1:0".parse().unwrap(),
        ..ServerOptions::default()
    };
    support::server::serve(dir, engine, opts)
}

/// One call on `s` in `codec`, framed or not, and its reply.
fn call_on<C: Codec>(
    s: &mut TcpStream,
    codec: &C,
    framed: bool,
    name: &str,
    args: &TStruct,
) -> (MessageHeader, TStruct) {
    support::calls::call_on(s, codec, framed, name, args, Duration::from_secs(30))
}

fn bin(s: &[u8]) -> TValue {
    TValue::Binary(s.to_vec())
}

fn mutation(column: &[u8], value: &[u8]) -> TValue {
    TValue::Struct(
        TStruct::new()
            .with(1, TValue::Bool(false))
            .with(2, bin(column))
            .with(3, bin(value))
            .with(4, TValue::Bool(true)),
    )
}

/// A row's key and its cells' (qualifier, value) in family `cf`.
type Row = (Vec<u8>, Vec<(Vec<u8>, Vec<u8>)>);

/// Row `i`'s key and its two cells: values of every length from 0 to 299 bytes, every byte.
fn row(i: usize, salt: u8) -> Row {
    let key = format!("row{i:07}").into_bytes();
    let value: Vec<u8> = (0..i % 300).map(|j| (i + j) as u8 ^ salt).collect();
    let cells = vec![
        (b"a".to_vec(), value),
        (b"b".to_vec(), vec![salt, (i % 251) as u8]),
    ];
    (key, cells)
}

/// `mutateRows(Ts)` arguments for `rows`.
fn batch(table: &str, rows: &[Row], ts: Option<i64>) -> TStruct {
    let batches = rows
        .iter()
        .map(|(key, cells)| {
            let muts = cells
                .iter()
                .map(|(q, v)| mutation(&[b"cf:", q.as_slice()].concat(), v))
                .collect();
            TValue::Struct(
                TStruct::new()
                    .with(1, bin(key))
                    .with(2, TValue::List(TType::Struct, muts)),
            )
        })
        .collect();
    let mut args = TStruct::new()
        .with(1, bin(table.as_bytes()))
        .with(2, TValue::List(TType::Struct, batches));
    if let Some(ts) = ts {
        args = args.with(3, TValue::I64(ts));
    }
    args.with(4, TValue::Map(TType::Binary, TType::Binary, vec![]))
}

/// Every cell of `table`: (row, qualifier, timestamp, value).
type Stored = Vec<(Vec<u8>, Vec<u8>, i64, Vec<u8>)>;

fn stored(engine: &Engine, table: &str) -> Stored {
    let t = engine.table(table).unwrap();
    let mut out = Vec::new();
    for r in t.scanner(&Scan::new()).unwrap() {
        for c in r.unwrap().cells {
            out.push((
                c.row().to_vec(),
                c.qualifier().to_vec(),
                c.timestamp(),
                c.value().to_vec(),
            ));
        }
    }
    out
}

fn ok(reply: (MessageHeader, TStruct)) {
    assert_eq!(reply.0.kind, MessageType::Reply, "{:?}", reply.1);
    assert_eq!(reply.1.fields, Vec::new(), "a void reply: {:?}", reply.1);
}

#[test]
fn ten_thousand_row_batches_round_trip_in_both_transports_and_protocols() {
    let s = start();
    let rows: Vec<_> = (0..10_000).map(|i| row(i, 0x5a)).collect();
    // Buffered binary, twice on one connection (the first call is read after the bytes that
    // told its protocol apart, the second straight from the stream): the second is newer.
    let mut c = TcpStream::connect(s.addr).unwrap();
    ok(call_on(
        &mut c,
        &Binary,
        false,
        "mutateRowsTs",
        &batch("t", &rows, Some(10)),
    ));
    ok(call_on(
        &mut c,
        &Binary,
        false,
        "mutateRowsTs",
        &batch("t", &rows, Some(11)),
    ));
    // Framed compact, twice on one connection, into the other table, at the current time.
    let other: Vec<_> = (0..10_000).map(|i| row(i, 0xa5)).collect();
    let mut c = TcpStream::connect(s.addr).unwrap();
    let (first, second) = other.split_at(4_000);
    ok(call_on(
        &mut c,
        &Compact,
        true,
        "mutateRows",
        &batch("u", first, None),
    ));
    ok(call_on(
        &mut c,
        &Compact,
        true,
        "mutateRows",
        &batch("u", second, None),
    ));
    let expect = |rows: &[Row], ts: &[i64]| -> Stored {
        let mut out = Vec::new();
        for (key, cells) in rows {
            for (q, v) in cells {
                for &t in ts {
                    out.push((key.clone(), q.clone(), t, v.clone()));
                }
            }
        }
        out
    };
    assert!(
        stored(&s.engine, "t") == expect(&rows, &[11]),
        "table t holds exactly the second batch's cells (one version kept)"
    );
    let got = stored(&s.engine, "u");
    let now = got.first().unwrap().2;
    assert_eq!(got.len(), 20_000);
    assert!(
        got.iter()
            .map(|c| (&c.0, &c.1, &c.3))
            .eq(expect(&other, &[now]).iter().map(|c| (&c.0, &c.1, &c.3))),
        "table u holds exactly the batch's rows and values"
    );
}

#[test]
fn a_bad_batch_is_refused_whole_and_loses_nothing() {
    let s = start();
    let good: Vec<_> = (0..1_000).map(|i| row(i, 1)).collect();
    let mut c = TcpStream::connect(s.addr).unwrap();
    ok(call_on(
        &mut c,
        &Binary,
        false,
        "mutateRowsTs",
        &batch("t", &good, Some(5)),
    ));
    let before = stored(&s.engine, "t");
    assert_eq!(before.len(), 2_000);
    let later: Vec<_> = (1_000..3_000).map(|i| row(i, 2)).collect();

    // A family the table lacks, in the batch's last row: HBase's IOError, nothing written.
    let mut bad = later.clone();
    bad.last_mut()
        .unwrap()
        .1
        .push((b"x".to_vec(), b"y".to_vec()));
    let mut args = batch("t", &bad, Some(6));
    if let Some(TValue::List(_, rows)) = args.fields.iter_mut().find(|f| f.0 == 2).map(|f| &mut f.1)
    {
        let Some(TValue::Struct(last)) = rows.last_mut() else {
            panic!("no rows")
        };
        if let Some((_, TValue::List(_, muts))) = last.fields.iter_mut().find(|f| f.0 == 2) {
            *muts.last_mut().unwrap() = mutation(b"nosuch:q", b"v");
        }
    }
    let (h, body) = call_on(&mut c, &Binary, false, "mutateRowsTs", &args);
    assert_eq!(h.kind, MessageType::Reply);
    let msg = exception_message(&body, 1);
    assert!(msg.contains("nosuch"), "IOError naming the family: {msg:?}");

    // A put to a family-only column in the middle: HBase's IllegalArgumentException (an
    // INTERNAL_ERROR application exception), before anything is written.
    let mut args = batch("t", &later, Some(6));
    if let Some(TValue::List(_, rows)) = args.fields.iter_mut().find(|f| f.0 == 2).map(|f| &mut f.1)
    {
        let Some(TValue::Struct(mid)) = rows.get_mut(1_000) else {
            panic!("no row 1000")
        };
        mid.fields[1].1 = TValue::List(TType::Struct, vec![mutation(b"cf", b"v")]);
    }
    let (h, body) = call_on(&mut c, &Binary, false, "mutateRowsTs", &args);
    assert_eq!(h.kind, MessageType::Exception, "{body:?}");
    let msg = match body.get(1) {
        Some(TValue::Binary(m)) => String::from_utf8_lossy(m).into_owned(),
        other => panic!("an application exception's message, not {other:?}"),
    };
    assert!(msg.contains("Invalid famAndQf"), "{msg:?}");

    // A row without its required key: the argument named, as an IllegalArgument.
    let mut args = batch("t", &later, Some(6));
    if let Some(TValue::List(_, rows)) = args.fields.iter_mut().find(|f| f.0 == 2).map(|f| &mut f.1)
    {
        let Some(TValue::Struct(r)) = rows.get_mut(10) else {
            panic!("no row 10")
        };
        r.fields.retain(|f| f.0 != 1);
    }
    let (h, body) = call_on(&mut c, &Binary, false, "mutateRowsTs", &args);
    assert_eq!(h.kind, MessageType::Reply);
    let msg = exception_message(&body, 2);
    assert!(
        msg.contains("row"),
        "IllegalArgument naming the field: {msg:?}"
    );

    // Nothing of the refused batches was written; the connection still serves the good one.
    assert!(
        stored(&s.engine, "t") == before,
        "the refused batches wrote nothing"
    );
    ok(call_on(
        &mut c,
        &Binary,
        false,
        "mutateRowsTs",
        &batch("t", &later, Some(6)),
    ));
    assert_eq!(stored(&s.engine, "t").len(), 6_000);
}
