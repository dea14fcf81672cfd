//! `get` and `scan` print values through HBase's converters: a column spec's
//! `f:q:toLong` / `f:q:c(org.apache.hadoop.hbase.util.Bytes).toInt`, and `FORMATTER` for the
//! other columns, with Java's output and errors.

mod shell_harness;

use shell_harness::{embedded, no_timestamps, untimed};

const LOAD: &str = "create 't', 'f'\n\
    put 't', 'r', 'f:n', [42].pack('Q>')\n\
    put 't', 'r', 'f:i', [256].pack('N')\n\
    put 't', 'r', 'f:s', \"h\\xC3\\xA9llo\"\n\
    incr 't', 'r', 'f:c', 7\n";

#[test]
fn column_converters_print_values_as_hbase_bytes_methods() {
    let (out, ok) = embedded(&format!(
        "{LOAD}get 't', 'r', {{COLUMN => ['f:n:toLong', \
         'f:i:c(org.apache.hadoop.hbase.util.Bytes).toInt', 'f:s', 'f:c:toLong']}}\n\
         get 't', 'r', 'f:i:toHex', 'f:s:toString'\n"
    ));
    assert!(ok, "{out}");
    let out = no_timestamps(&untimed(&out));
    assert!(
        out.contains(
            "COLUMN                            CELL\n \
             f:c                              timestamp=T, value=7\n \
             f:i                              timestamp=T, value=256\n \
             f:n                              timestamp=T, value=42\n \
             f:s                              timestamp=T, value=h\\xC3\\xA9llo\n1 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            " f:i                              timestamp=T, value=00000100\n \
             f:s                              timestamp=T, value=h\u{e9}llo\n1 row(s)\n"
        ),
        "{out}"
    );
}

#[test]
fn formatter_converts_the_columns_without_their_own() {
    let (out, ok) = embedded(&format!(
        "{LOAD}scan 't', {{COLUMNS => ['f:n:toLong', 'f:s'], FORMATTER => 'toString'}}\n\
         get 't', 'r', {{COLUMN => ['f:c:toLong', 'f:s'], FORMATTER => 'toString', \
         FORMATTER_CLASS => 'org.apache.hadoop.hbase.util.Bytes'}}\n"
    ));
    assert!(ok, "{out}");
    let out = no_timestamps(&untimed(&out));
    assert!(
        out.contains(
            " r                                column=f:n, timestamp=T, value=42\n \
             r                                column=f:s, timestamp=T, value=h\u{e9}llo\n1 row(s)\n"
        ),
        "{out}"
    );
    assert!(
        out.contains(
            " f:c                              timestamp=T, value=7\n \
             f:s                              timestamp=T, value=h\u{e9}llo\n"
        ),
        "{out}"
    );
}

#[test]
fn converter_failures_are_java_errors_and_print_no_partial_result() {
    let (out, ok) = embedded(&format!(
        "{LOAD}get 't', 'r', {{COLUMN => ['f:c', 'f:s:toLong']}}\n\
         scan 't', {{COLUMNS => 'f:s:toBoolean'}}\n\
         get 't', 'r', {{COLUMN => 'f:s:toBigDecimal'}}\n\
         scan 't', {{FORMATTER_CLASS => 'java.lang.String'}}\n"
    ));
    assert!(!ok);
    let out = untimed(&out);
    assert!(
        out.contains("ERROR: offset (0) + length (8) exceed the capacity of the array: 6\n"),
        "{out}"
    );
    // HBase prints the header, then the error, and no cell.
    assert!(
        out.contains("COLUMN                            CELL\n\nERROR: offset"),
        "{out}"
    );
    assert!(!out.contains("value="), "{out}");
    assert!(out.contains("ERROR: Array has wrong size: 6\n"), "{out}");
    assert!(
        out.contains("ERROR: undefined method `toBigDecimal'"),
        "{out}"
    );
    assert!(
        out.contains("ERROR: converter class java.lang.String is not supported by ferrobase"),
        "{out}"
    );
}
