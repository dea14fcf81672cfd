//! The client's `BufferedMutator` (HBase's) on every backend: an embedded engine, a `ferrobase
//! serve` gateway, and Apache HBase's Thrift1 gateway when `FERROBASE_HBASE_THRIFT=host:port`
//! names it (`scripts/test.sh` sets it from the oracle). Buffered writes stay in the buffer until
//! it is full, a count is reached, a period passes, or `flush`/`close`/drop; a batch that fails in
//! the background is reported by the next call, counted, and loses no other batch.

mod client_harness;

use ferrobase_client::{BufferedMutatorParams, ClientError, Connection, Table};
use ferrobase_engine::*;
use std::time::{Duration, Instant};

/// Rows of `t` whose key starts with `prefix`.
fn rows_with_prefix(t: &Table, prefix: &str) -> Vec<String> {
    t.scanner(
        Scan::new().with_row_prefix(prefix.as_bytes().to_vec()),
        None,
    )
    .unwrap()
    .map(|r| String::from_utf8(r.unwrap().row().to_vec()).unwrap())
    .collect()
}

/// Waits up to 10 s for `rows_with_prefix` to count `n` rows.
fn wait_for_rows(t: &Table, prefix: &str, n: usize) {
    let start = Instant::now();
    loop {
        let got = rows_with_prefix(t, prefix).len();
        if got == n {
            return;
        }
        assert!(
            got < n && start.elapsed() < Duration::from_secs(10),
            "{prefix}: {got} rows, waiting for {n}"
        );
        std::thread::sleep(Duration::from_millis(20));
    }
}

/// A put of one 100-byte cell on `row`.
fn put(row: &str) -> Put {
    Put::new(row).add_column("cf", "q", vec![b'v'; 100])
}

fn scenario(conn: &Connection, table: &str) {
    let desc = TableDescriptor::new(TableName::parse(table).unwrap())
        .with_family(ColumnFamilyDescriptor::new("cf"));
    conn.create_table(desc, &[]).unwrap();
    let t = conn.table(table);

    // Many small buffers with deletes among the puts: every batch lands, in order (a row put
    // then deleted in the same stream is gone).
    let mut m = t
        .buffered_mutator(BufferedMutatorParams::default().write_buffer_size(4096))
        .unwrap();
    for i in 0..3000 {
        m.put(put(&format!("a{i:05}"))).unwrap();
        if i % 10 == 0 {
            m.delete(Delete::new(format!("a{i:05}"))).unwrap();
        }
    }
    m.flush().unwrap();
    let rows = rows_with_prefix(&t, "a");
    let expected: Vec<String> = (0..3000)
        .filter(|i| i % 10 != 0)
        .map(|i| format!("a{i:05}"))
        .collect();
    assert_eq!(rows, expected);
    m.close().unwrap();

    // A buffer that is not full sends nothing until flush.
    let mut m = t
        .buffered_mutator(BufferedMutatorParams::default().write_buffer_size(1 << 30))
        .unwrap();
    for i in 0..50 {
        m.put(put(&format!("b{i:02}"))).unwrap();
    }
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(rows_with_prefix(&t, "b").len(), 0, "sent before a flush");
    m.flush().unwrap();
    assert_eq!(rows_with_prefix(&t, "b").len(), 50);

    // A count of mutations fills a buffer (HBase's maxMutations): 25 puts at 10 a batch send
    // 20; the last 5 wait for close.
    let mut m = t
        .buffered_mutator(
            BufferedMutatorParams::default()
                .write_buffer_size(1 << 30)
                .max_mutations(10),
        )
        .unwrap();
    for i in 0..25 {
        m.put(put(&format!("c{i:02}"))).unwrap();
    }
    wait_for_rows(&t, "c", 20);
    std::thread::sleep(Duration::from_millis(200));
    assert_eq!(
        rows_with_prefix(&t, "c").len(),
        20,
        "a partial buffer was sent"
    );
    m.close().unwrap();
    assert_eq!(rows_with_prefix(&t, "c").len(), 25);

    // The periodic flush sends a buffer that has waited long enough, with no call.
    let mut m = t
        .buffered_mutator(
            BufferedMutatorParams::default()
                .write_buffer_size(1 << 30)
                .periodic_flush(Duration::from_millis(50)),
        )
        .unwrap();
    m.put(put("d1")).unwrap();
    wait_for_rows(&t, "d", 1);
    m.put(put("d2")).unwrap();
    wait_for_rows(&t, "d", 2);
    drop(m);

    // Dropping a mutator sends what it holds.
    let mut m = t
        .buffered_mutator(BufferedMutatorParams::default().write_buffer_size(1 << 30))
        .unwrap();
    for i in 0..3 {
        m.put(put(&format!("e{i}"))).unwrap();
    }
    drop(m);
    assert_eq!(rows_with_prefix(&t, "e").len(), 3);

    // A put without cells, or with a cell past HBase's 10 MiB KeyValue limit (or the one the
    // parameters set), is refused at once and not buffered.
    let mut m = t
        .buffered_mutator(BufferedMutatorParams::default())
        .unwrap();
    let err = m.put(Put::new("f0")).unwrap_err();
    assert!(err.to_string().contains("No columns to insert"), "{err}");
    let err = m
        .put(Put::new("f1").add_column("cf", "q", vec![b'x'; 10 << 20]))
        .unwrap_err();
    assert!(err.to_string().contains("KeyValue size too large"), "{err}");
    m.close().unwrap();
    assert_eq!(rows_with_prefix(&t, "f").len(), 0);
    let mut m = t
        .buffered_mutator(BufferedMutatorParams::default().max_key_value_size(1000))
        .unwrap();
    let err = m
        .put(Put::new("f2").add_column("cf", "q", vec![b'x'; 1000]))
        .unwrap_err();
    assert!(err.to_string().contains("KeyValue size too large"), "{err}");
    // 2 + 2 + 1 + 2 + 1 + 8 + 1 + 900 + 8 = 925 bytes: within it.
    m.put(Put::new("f3").add_column("cf", "q", vec![b'x'; 900]))
        .unwrap();
    m.close().unwrap();
    assert_eq!(rows_with_prefix(&t, "f"), ["f3"]);

    // A batch that fails (a family the table lacks) is reported once, by the next flush, with
    // its count and first row; the batches around it land.
    let mut m = t
        .buffered_mutator(BufferedMutatorParams::default().max_mutations(5))
        .unwrap();
    for i in 0..5 {
        m.put(put(&format!("g{i}"))).unwrap();
    }
    m.flush().unwrap();
    for i in 0..5 {
        m.put(Put::new(format!("h{i}")).add_column("nosuch", "q", "v"))
            .unwrap_or_else(|e| panic!("buffered: {e}"));
    }
    let err = m.flush().unwrap_err();
    match &err {
        ClientError::MutationsFailed {
            failed, first_row, ..
        } => {
            assert_eq!((*failed, first_row.as_str()), (5, "h0"), "{err}");
        }
        other => panic!("not MutationsFailed: {other}"),
    }
    assert!(err.to_string().contains("nosuch"), "{err}");
    for i in 5..10 {
        m.put(put(&format!("g{i}"))).unwrap();
    }
    m.close().unwrap();
    assert_eq!(rows_with_prefix(&t, "g").len(), 10);

    // A mutator of a table that does not exist fails at its close, naming the table (HBase's
    // gateway says only that the action on it failed; ferrobase's says the table is absent).
    let absent = format!("{table}_absent");
    let mut m = conn
        .table(&absent)
        .buffered_mutator(BufferedMutatorParams::default())
        .unwrap();
    m.put(put("x")).unwrap();
    let err = m.close().unwrap_err();
    match &err {
        ClientError::MutationsFailed { failed, source, .. } => {
            assert_eq!(*failed, 1, "{err}");
            assert!(source.to_string().contains(&absent), "{err}");
        }
        other => panic!("not MutationsFailed: {other}"),
    }

    conn.set_enabled(table, false).unwrap();
    conn.drop_table(table).unwrap();
}

#[test]
fn embedded_backend_buffers_and_sends() {
    let dir = tempfile::tempdir().unwrap();
    let conn = Connection::open(&format!("file:{}", dir.path().display())).unwrap();
    scenario(&conn, "buffered");
}

#[test]
fn ferrobase_gateway_buffers_and_sends() {
    let gateway = client_harness::Gateway::start();
    scenario(&Connection::open(&gateway.url).unwrap(), "buffered");
}

#[test]
fn apache_hbase_gateway_buffers_and_sends() {
    if let Some((url, table)) = client_harness::apache_hbase("client_buffered") {
        scenario(&Connection::open(&url).unwrap(), &table);
    }
}
