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
#      same cells.
# Cells compare as lines (row, family, qualifier, timestamp, type, value). Prints each step's time.
#
#   scripts/export-test.sh     FERROBASE_BIN (default target/debug/ferrobase, built if absent);
#                              EXPORT_TEST_ROWS (default 2000: 34,000 cells); starts the oracle if
#                              it is not running and stops it again.
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
export HBASE_EXPORT_TMP=$W/hadoop-tmp
java_check() {
  java -Xss4m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
    -Dlog4j.configuration=file:"$PROJECT/log4j.properties" \
    -cp "$PROJECT/target/classes:$(cat "$stamp")" ferrobase.hbaseexport.ExportCheck "$@" \
    2>>"$W/java.log" || { tail -40 "$W/java.log" >&2; die "ExportCheck $1 failed (log above)"; }
  grep '^hbase-export:' "$W/java.log" | sed 's/^hbase-export:/  hbase:/' >&2
  : >"$W/java.log"
}
same() { # same A B WHAT
  if ! diff -q "$1" "$2" >/dev/null; then
    diff "$1" "$2" | head -20 >&2
    die "$3: cells differ (above; < $(basename "$1"), > $(basename "$2"))"
  fi
  echo "export-test: $3: $(wc -l <"$1") cells equal"
}

# 1. HBase: fill, export (raw, every version), dump the table and HBase's own files.
java_check load exp_src "$ROWS" + export exp_src "$W/hbase-out" \
  + export exp_src "$W/hbase-block" block + export exp_src "$W/hbase-record" record \
  + dump-table exp_src "$W/hbase-table.txt" + dump-files "$W/hbase-out" "$W/hbase-files.txt"
same "$W/hbase-table.txt" "$W/hbase-files.txt" "HBase's Export of its table"
step "HBase loaded and exported $ROWS rows"

# 2. ferrobase imports HBase's files and exports them again.
families="{NAME => 'cf1', VERSIONS => 10}, {NAME => 'cf2', VERSIONS => 3}, {NAME => 'cf3'}"
echo "create 'exp_src', $families" >"$W/create.rb"
"$BIN" shell --data "$W/fb" "$W/create.rb" >/dev/null
"$BIN" import --data "$W/fb" exp_src "$W/hbase-out"
echo "flush 'exp_src'" >"$W/flush.rb"
"$BIN" shell --data "$W/fb" "$W/flush.rb" >/dev/null
"$BIN" export --data "$W/fb" exp_src "$W/fb-out" 2147483647 --raw
"$BIN" export --data "$W/fb" exp_src "$W/fb-record" --versions 2147483647 --raw \
  -D mapreduce.output.fileoutputformat.compress=true
"$BIN" export --data "$W/fb" exp_src "$W/fb-block" --versions 2147483647 \
  -D hbase.mapreduce.include.deleted.rows=true --compress block --codec default
# HBase's compressed exports (DefaultCodec; BLOCK and RECORD) into tables of their own.
for kind in block record; do
  echo "create 'exp_$kind', $families" >"$W/create-$kind.rb"
  echo "flush 'exp_$kind'" >"$W/flush-$kind.rb"
  "$BIN" shell --data "$W/fb" "$W/create-$kind.rb" >/dev/null
  "$BIN" import --data "$W/fb" "exp_$kind" "$W/hbase-$kind"
  "$BIN" shell --data "$W/fb" "$W/flush-$kind.rb" >/dev/null
  "$BIN" export --data "$W/fb" "exp_$kind" "$W/fb-from-$kind" 2147483647 --raw
done
step "ferrobase imported and exported (embedded)"

"$BIN" serve --port 0 --data "$W/fb-served" >"$W/serve.out" 2>"$W/serve.err" &
server_pid=$!
for _ in $(seq 100); do
  grep -q "Thrift API on" "$W/serve.out" && break
  sleep 0.1
done
port=$(grep -o "Thrift API on [0-9.:]*" "$W/serve.out" | sed 's/.*://')
[[ -n $port ]] || { cat "$W/serve.err" >&2; die "ferrobase serve did not start"; }
url=thrift://127.0.0.1:$port
"$BIN" shell --connect "$url" "$W/create.rb" >/dev/null
"$BIN" import --connect "$url" exp_src "$W/hbase-out"
"$BIN" shell --connect "$url" "$W/flush.rb" >/dev/null
"$BIN" export --connect "$url" exp_src "$W/fb-remote" 2147483647 --raw
step "ferrobase imported and exported (through a server, --connect)"

# 3. HBase reads ferrobase's files and imports them.
java_check dump-files "$W/fb-out" "$W/fb-files.txt" + dump-files "$W/fb-record" "$W/fb-record.txt" \
  + dump-files "$W/fb-block" "$W/fb-block.txt" + dump-files "$W/fb-remote" "$W/fb-remote.txt" \
  + dump-files "$W/fb-from-block" "$W/fb-from-block.txt" \
  + dump-files "$W/fb-from-record" "$W/fb-from-record.txt" \
  + create exp_dst + import exp_dst "$W/fb-out" + flush exp_dst + dump-table exp_dst "$W/hbase-dst.txt"
same "$W/hbase-table.txt" "$W/fb-files.txt" "HBase's Export imported into ferrobase (embedded)"
same "$W/hbase-table.txt" "$W/fb-record.txt" "ferrobase's record-compressed export (DefaultCodec)"
same "$W/hbase-table.txt" "$W/fb-block.txt" "ferrobase's block-compressed export (DefaultCodec)"
same "$W/hbase-table.txt" "$W/fb-remote.txt" "HBase's Export imported into ferrobase (--connect)"
same "$W/hbase-table.txt" "$W/fb-from-block.txt" "HBase's block-compressed Export (DefaultCodec) imported"
same "$W/hbase-table.txt" "$W/fb-from-record.txt" "HBase's record-compressed Export (DefaultCodec) imported"
same "$W/fb-files.txt" "$W/hbase-dst.txt" "ferrobase's export imported by HBase's Import"
step "HBase read and imported ferrobase's files"
echo "export-test: passed in $((SECONDS - start)) s"
