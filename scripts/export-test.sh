#!/usr/bin/env bash
# `ferrobase export` / `ferrobase import` against Apache HBase 2.6.1's own Export and Import
# (hbase-mapreduce in Hadoop's local job runner, tests/hbase-export) on the oracle (issue 47):
#   1. HBase fills a table (3 families, up to 10 versions, binary rows and values, delete markers of
#      every type), flushes it and exports it raw with every version (HBase's Export);
#   2. ferrobase imports HBase's files (embedded, and through `ferrobase serve` with --connect;
#      HBase's block- and record-compressed exports too),
#      flushes, exports raw with every version (uncompressed, record- and block-compressed): the
#      files, read by Hadoop's own SequenceFile.Reader, hold exactly the cells of HBase's table;
#   3. HBase's Import loads ferrobase's files into a new table: after a flush it holds exactly the
#      same cells;
#   4. the same delimited text (bad lines of every kind, \n, \r\n and \r endings) loaded by HBase's
#      ImportTsv and by `ferrobase import tsv` gives the same cells and the same bad-line count.
# Cells compare as lines (row, family, qualifier, timestamp, type, value). Prints each step's time.
#
#   scripts/export-test.sh     FERROBASE_BIN (default target/debug/ferrobase, built if absent);
#                              EXPORT_TEST_ROWS (default 2000: 33,324 cells; 10x as many TSV lines).
#                              Starts the oracle if it is not running, and then stops it again.
#                              About 60 s, the oracle's start included.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
ROWS=${EXPORT_TEST_ROWS:-2000}
PROJECT=$ROOT/tests/hbase-export
die() {
  echo "export-test: $*" >&2
  exit 1
}
step() {
  echo "export-test: $1 in $((SECONDS - t0)) s"
  t0=$SECONDS
}
t0=$SECONDS
start=$SECONDS

[[ -x $BIN ]] || cargo build -q -p ferrobase
mkdir -p target/hbase-export
stamp=$PROJECT/target/classpath.txt
if [[ ! -f $stamp ]] || [[ -n $(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$stamp" -print -quit) ]]; then
  if ! mvn -q -o -B -f "$PROJECT/pom.xml" compile >target/hbase-export/build.log 2>&1; then
    mvn -q -B -f "$PROJECT/pom.xml" compile >target/hbase-export/build.log 2>&1 \
      || { tail -30 target/hbase-export/build.log >&2; die "Maven build of tests/hbase-export failed"; }
  fi
  touch "$stamp"
fi
step "built"

stop_oracle=
if ! bash scripts/hbase-oracle.sh status >/dev/null 2>&1; then
  bash scripts/hbase-oracle.sh start >/dev/null
  stop_oracle=1
fi
eval "$(bash scripts/hbase-oracle.sh env)"
step "oracle up"

W=$(mktemp -d "$ROOT/target/hbase-export/run.XXXXXX")
server_pid=
cleanup() {
  [[ -n $server_pid ]] && { kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; }
  [[ -n $stop_oracle ]] && bash scripts/hbase-oracle.sh stop >/dev/null 2>&1
  rm -rf "$W"
}
trap cleanup EXIT
# java_check LOG COMMAND...: ExportCheck's commands in one JVM (its own Hadoop temporary
# directory and log, so two can run at once); prints its step lines.
java_check() {
  local log=$W/java-$1.log
  shift
  HBASE_EXPORT_TMP=$log.tmp java -Xss4m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Djava.net.preferIPv4Stack=true -Dlog4j.configuration=file:"$PROJECT/log4j.properties" \
    -cp "$PROJECT/target/classes:$(cat "$stamp")" ferrobase.hbaseexport.ExportCheck "$@" \
    2>"$log" || { tail -40 "$log" >&2; die "ExportCheck $1 failed (log above)"; }
  grep '^hbase-export:' "$log" | sed 's/^hbase-export:/  hbase:/' >&2
}
same() { # same A B WHAT
  if ! diff -q "$1" "$2" >/dev/null; then
    diff "$1" "$2" | head -20 >&2
    die "$3: cells differ (above; < $(basename "$1"), > $(basename "$2"))"
  fi
  echo "export-test: $3: $(wc -l <"$1") cells equal"
}
fb_table() { # fb_table DATA_OR_URL TABLE: create it with the test's families
  local where=(--data "$1")
  [[ $1 == thrift://* ]] && where=(--connect "$1")
  echo "create '$2', $families" >"$W/create-$2.rb"
  "$BIN" shell "${where[@]}" "$W/create-$2.rb" >/dev/null
}
fb_flush() { # fb_flush DATA_OR_URL TABLE
  local where=(--data "$1")
  [[ $1 == thrift://* ]] && where=(--connect "$1")
  echo "flush '$2'" >"$W/flush-$2.rb"
  "$BIN" shell "${where[@]}" "$W/flush-$2.rb" >/dev/null
}
families="{NAME => 'cf1', VERSIONS => 10}, {NAME => 'cf2', VERSIONS => 3}, {NAME => 'cf3'}"
columns=HBASE_ROW_KEY,cf1:a,cf1:b,HBASE_TS_KEY,cf2:c,cf3

# Delimited text for step 4: bad lines of every kind; \n, \r\n and \r line endings.
python3 - "$W/input.tsv" "$ROWS" <<'PY'
import sys
path, rows = sys.argv[1], int(sys.argv[2]) * 10
with open(path, "wb") as f:
    for i in range(rows):
        row, ts = f"tsv-{i % (rows // 4):05d}", 1000 + i
        fields = [row, f"a{i}\u00e9", f"b{i}", str(ts), f"c{i}", f"d{i}"]
        if i % 97 == 0: fields = [f"no-delimiter-{i}"]
        elif i % 89 == 0: fields += ["one too many"]
        elif i % 83 == 0: fields[0] = ""
        elif i % 79 == 0: fields[3] = f"{ts}x"
        elif i % 73 == 0: fields = fields[:2]
        elif i % 71 == 0: fields = fields[:4]
        elif i % 61 == 0: fields = [row, "", "", str(ts), "", ""]
        end = "\r\n" if i % 13 == 0 else "\r" if i % 17 == 0 else "\n"
        f.write(("\t".join(fields) + end).encode())
    f.write(b"\n" + b"last\tline\t\t99")
PY

# 1. HBase: fill, export (raw, every version), dump the table and HBase's own files.
java_check a load exp_src "$ROWS" + export exp_src "$W/hbase-out" \
  + dump-table exp_src "$W/hbase-table.txt" + dump-files "$W/hbase-out" "$W/hbase-files.txt"
same "$W/hbase-table.txt" "$W/hbase-files.txt" "HBase's Export of its table"
step "HBase loaded and exported $ROWS rows"

# Meanwhile, in HBase: the compressed exports (DefaultCodec; BLOCK and RECORD) and ImportTsv.
java_check b export exp_src "$W/hbase-block" block + export exp_src "$W/hbase-record" record \
  + create exp_tsv + importtsv exp_tsv "$W/input.tsv" "$columns" 7 + flush exp_tsv \
  + dump-table exp_tsv "$W/hbase-tsv.txt" &
hbase_jobs=$!

# 2. ferrobase imports HBase's files and exports them again: embedded ...
fb_table "$W/fb" exp_src
"$BIN" import --data "$W/fb" exp_src "$W/hbase-out"
fb_flush "$W/fb" exp_src
"$BIN" export --data "$W/fb" exp_src "$W/fb-out" 2147483647 --raw
"$BIN" export --data "$W/fb" exp_src "$W/fb-record" --versions 2147483647 --raw \
  -D mapreduce.output.fileoutputformat.compress=true
"$BIN" export --data "$W/fb" exp_src "$W/fb-block" --versions 2147483647 \
  -Dhbase.mapreduce.include.deleted.rows=true --compress block --codec default
step "ferrobase imported and exported (embedded)"

# ... and through a server (--connect).
"$BIN" serve --port 0 --data "$W/fb-served" >"$W/serve.out" 2>"$W/serve.err" &
server_pid=$!
for _ in $(seq 100); do
  grep -q "Thrift API on" "$W/serve.out" && break
  sleep 0.1
done
port=$(grep -o "Thrift API on [0-9.:]*" "$W/serve.out" | sed 's/.*://')
[[ -n $port ]] || { cat "$W/serve.err" >&2; die "ferrobase serve did not start"; }
url=thrift://127.0.0.1:$port
fb_table "$url" exp_src
"$BIN" import --connect "$url" exp_src "$W/hbase-out"
fb_flush "$url" exp_src
"$BIN" export --connect "$url" exp_src "$W/fb-remote" 2147483647 --raw
step "ferrobase imported and exported (through a server, --connect)"

# The delimited text through `ferrobase import tsv` (step 4's other side).
fb_table "$W/fb" exp_tsv
"$BIN" import tsv --data "$W/fb" -Dimporttsv.columns=$columns -Dimporttsv.timestamp=7 exp_tsv \
  "$W/input.tsv" >"$W/tsv.out" 2>"$W/tsv.err"
fb_flush "$W/fb" exp_tsv
"$BIN" export --data "$W/fb" exp_tsv "$W/fb-tsv" 2147483647 --raw
step "ferrobase import tsv"

wait "$hbase_jobs" || die "HBase's compressed exports or ImportTsv failed"
step "HBase's compressed exports and ImportTsv (beside the above)"
for kind in block record; do
  fb_table "$W/fb" "exp_$kind"
  "$BIN" import --data "$W/fb" "exp_$kind" "$W/hbase-$kind"
  fb_flush "$W/fb" "exp_$kind"
  "$BIN" export --data "$W/fb" "exp_$kind" "$W/fb-from-$kind" 2147483647 --raw
done
step "ferrobase imported HBase's compressed exports"

# 3. HBase reads ferrobase's files and imports them.
java_check c dump-files "$W/fb-out" "$W/fb-files.txt" + dump-files "$W/fb-record" "$W/fb-record.txt" \
  + dump-files "$W/fb-block" "$W/fb-block.txt" + dump-files "$W/fb-remote" "$W/fb-remote.txt" \
  + dump-files "$W/fb-from-block" "$W/fb-from-block.txt" \
  + dump-files "$W/fb-from-record" "$W/fb-from-record.txt" + dump-files "$W/fb-tsv" "$W/fb-tsv.txt" \
  + create exp_dst + import exp_dst "$W/fb-out" + flush exp_dst + dump-table exp_dst "$W/hbase-dst.txt"
same "$W/hbase-table.txt" "$W/fb-files.txt" "HBase's Export imported into ferrobase (embedded)"
same "$W/hbase-table.txt" "$W/fb-record.txt" "ferrobase's record-compressed export (DefaultCodec)"
same "$W/hbase-table.txt" "$W/fb-block.txt" "ferrobase's block-compressed export (DefaultCodec)"
same "$W/hbase-table.txt" "$W/fb-remote.txt" "HBase's Export imported into ferrobase (--connect)"
same "$W/hbase-table.txt" "$W/fb-from-block.txt" "HBase's block-compressed Export (DefaultCodec) imported"
same "$W/hbase-table.txt" "$W/fb-from-record.txt" "HBase's record-compressed Export (DefaultCodec) imported"
same "$W/fb-files.txt" "$W/hbase-dst.txt" "ferrobase's export imported by HBase's Import"

# 4. ImportTsv and `ferrobase import tsv`: the same cells, the same bad lines.
same "$W/hbase-tsv.txt" "$W/fb-tsv.txt" "ImportTsv and ferrobase import tsv ($(grep -o '[0-9][0-9]* lines,' "$W/tsv.out" | head -1 | tr -d ,))"
hbase_bad=$(grep -o 'importtsv bad lines [0-9]*' "$W/java-b.log" | grep -o '[0-9]*$')
fb_bad=$(grep -c '^bad line:' "$W/tsv.err" || true)
[[ $fb_bad == "$hbase_bad" ]] || die "bad lines: HBase's ImportTsv counted $hbase_bad, ferrobase $fb_bad"
echo "export-test: bad lines: $fb_bad on both, e.g. $(head -1 "$W/tsv.err" | sed "s#$W/##")"
step "HBase read ferrobase's files and imported them"
echo "export-test: passed in $((SECONDS - start)) s"
