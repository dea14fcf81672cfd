#!/usr/bin/env bash
# `ferrobase copy` between ferrobase and Apache HBase 2.6.1's Thrift1 gateway on the oracle, both
# directions, every cell compared by reading both sides (issue 47):
#   1. HBase's Java client fills a table (3 families of 10, 3 and 1 versions, binary rows and
#      values, delete markers of every type; flushed) and dumps what a reader sees: every version
#      of every live cell;
#   2. `ferrobase copy thrift://ORACLE cp_src file:DIR --create` (every version, read row by row
#      with getVer, the gateway's scans giving the newest only); ferrobase exports the copy and
#      Hadoop's own SequenceFile.Reader dumps the files: the same lines as HBase's table;
#   3. `ferrobase copy file:DIR cp_src thrift://ORACLE --to-table cp_back --create`: HBase's
#      client dumps cp_back: the same lines again;
#   4. a row range, a time range, one family and 2 versions from HBase, into a ferrobase server
#      (`ferrobase serve`), then back to HBase: HBase's dump equals the filter applied to step 1's;
#   5. what the gateway cannot carry is refused with the reason and nothing written: a raw copy
#      (--all.cells) from it; a copy of a table onto itself;
#   6. a raw copy into it carries a DeleteColumn marker (HBase's raw dump equals ferrobase's raw
#      export), and stops at a version's Delete marker, which Thrift1 cannot write, saying so and
#      what it had written.
# Cells compare as lines (row, family, qualifier, timestamp, type, value; ExportCheck's form).
#
#   scripts/copy-test.sh     FERROBASE_BIN (default target/debug/ferrobase, built if absent);
#                            COPY_TEST_ROWS (default 1000: 17,000 cells before the deletes).
#                            Starts the oracle if it is not running, and then stops it again.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
ROWS=${COPY_TEST_ROWS:-1000}
PROJECT=$ROOT/tests/hbase-export
die() {
  echo "copy-test: $*" >&2
  exit 1
}
step() {
  echo "copy-test: $1 in $((SECONDS - t0)) s"
  t0=$SECONDS
}
t0=$SECONDS
start=$SECONDS

[[ -x $BIN ]] || cargo build -q -p ferrobase
mkdir -p target/copy-test
stamp=$PROJECT/target/classpath.txt
if [[ ! -f $stamp ]] || [[ -n $(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$stamp" -print -quit) ]]; then
  if ! mvn -q -o -B -f "$PROJECT/pom.xml" compile >target/copy-test/build.log 2>&1; then
    mvn -q -B -f "$PROJECT/pom.xml" compile >target/copy-test/build.log 2>&1 \
      || { tail -30 target/copy-test/build.log >&2; die "Maven build of tests/hbase-export failed"; }
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
[[ -n ${HBASE_ORACLE_THRIFT1:-} ]] || die "the oracle gives no HBASE_ORACLE_THRIFT1"
HB=thrift://127.0.0.1:${HBASE_ORACLE_THRIFT1##*:}
# The oracle keeps its tables between runs: this run's destination tables get their own names.
R=$RANDOM
step "oracle up ($HB)"

W=$(mktemp -d "$ROOT/target/copy-test/run.XXXXXX")
server_pid=
cleanup() {
  [[ -n $server_pid ]] && { kill "$server_pid" 2>/dev/null; wait "$server_pid" 2>/dev/null || true; }
  [[ -n $stop_oracle ]] && bash scripts/hbase-oracle.sh stop >/dev/null 2>&1
  [[ -n ${COPY_TEST_KEEP:-} ]] || rm -rf "$W"
}
trap cleanup EXIT
java_check() { # java_check LOG COMMAND...: ExportCheck's commands in one JVM
  local log=$W/java-$1.log
  shift
  HBASE_EXPORT_TMP=$log.tmp java -Xss4m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC \
    -Djava.net.preferIPv4Stack=true -Dlog4j.configuration=file:"$PROJECT/log4j.properties" \
    -cp "$PROJECT/target/classes:$(cat "$stamp")" ferrobase.hbaseexport.ExportCheck "$@" \
    2>"$log" || { tail -40 "$log" >&2; die "ExportCheck $1 failed (log above)"; }
}
same() { # same A B WHAT
  if ! diff -q "$1" "$2" >/dev/null; then
    diff "$1" "$2" | head -20 >&2
    die "$3: cells differ (above; < $(basename "$1"), > $(basename "$2"))"
  fi
  echo "copy-test:   $3: $(wc -l <"$2") cells equal"
}
# copy ARGS...: ferrobase copy, its progress (stderr) kept; prints its final line.
copy() {
  "$BIN" copy "$@" >"$W/copy.out" 2>"$W/copy.err" || { cat "$W/copy.err" >&2; die "ferrobase copy $* failed"; }
  sed 's/^/copy-test:   /' "$W/copy.out"
}

# 1. HBase fills cp_src and dumps what a reader sees.
java_check a load cp_src "$ROWS" + dump-live cp_src "$W/hbase-src.txt"
grep -q . "$W/hbase-src.txt" || die "HBase's table is empty"
step "HBase loaded $ROWS rows ($(wc -l <"$W/hbase-src.txt") live cells)"

# 2. HBase → ferrobase (embedded).
copy "$HB" cp_src "file:$W/fb" --create
grep -q "note: the source is an HBase Thrift1 gateway" "$W/copy.err" \
  || die "the note on reading versions row by row is missing"
"$BIN" export --data "$W/fb" cp_src "$W/fb-out" 2147483647 >/dev/null 2>&1
step "copied from HBase's gateway into ferrobase"

# 3. ferrobase → HBase.
copy "file:$W/fb" cp_src "$HB" --to-table cp_back_$R --create
step "copied from ferrobase into HBase's gateway"

# 4. A part of it: HBase → ferrobase serve → HBase.
"$BIN" serve --port 0 --data "$W/served" >"$W/serve.out" 2>"$W/serve.err" &
server_pid=$!
for _ in $(seq 100); do
  grep -qs "Thrift API on" "$W/serve.out" && break
  sleep 0.1
done
port=$(grep -o "Thrift API on [0-9.:]*" "$W/serve.out" | sed 's/.*://')
[[ -n $port ]] || { cat "$W/serve.err" >&2; die "ferrobase serve did not start"; }
FB=thrift://127.0.0.1:$port
copy "$HB" cp_src "$FB" --create --startrow=row-000100 --stoprow=row-000600 \
  --starttime=1000 --endtime=1030 --families=cf1 --versions=2
copy "$FB" cp_src "$HB" --new.name=cp_part_$R --create
step "a row range, a time range, a family and 2 versions through ferrobase serve"

# 5. What the gateway cannot carry, and a table onto itself: refused, nothing written.
if "$BIN" copy "$HB" cp_src "file:$W/raw" --all.cells --create >"$W/raw.out" 2>"$W/raw.err"; then
  die "a raw copy from HBase's gateway was not refused"
fi
grep -q "needs a raw scan, which HBase's Thrift1 API does not have" "$W/raw.err" \
  || { cat "$W/raw.err" >&2; die "the raw refusal's message"; }
grep -q "nothing was written" "$W/raw.err" || die "the raw refusal does not say nothing was written"
if "$BIN" copy "$HB" cp_src "$HB" >"$W/self.out" 2>"$W/self.err"; then
  die "a copy of a table onto itself was not refused"
fi
grep -q "same table" "$W/self.err" || { cat "$W/self.err" >&2; die "the self-copy message"; }
echo "copy-test:   refused: $(sed 's/^ferrobase: //' "$W/raw.err" | cut -c1-110)..."

# 6. Delete markers to HBase (--all.cells), from the server of step 4 (a data directory closed
#    between two commands may compact all its files, which drops the markers, as HBase does): a
#    DeleteColumn marker goes (deleteAllTs); a version's Delete marker cannot, and the copy stops
#    at its row saying what it had written.
printf "deleteall 'cp_src', 'row-000101', 'cf1:q0', 1015\n" >"$W/markers.rb"
"$BIN" shell --connect "$FB" "$W/markers.rb" >/dev/null
"$BIN" export --connect "$FB" cp_src "$W/fb-raw" 2147483647 --raw >/dev/null
copy "$FB" cp_src "$HB" --to-table cp_raw_$R --create --all.cells
grep -q "(1 delete marker)" "$W/copy.out" || die "the DeleteColumn marker was not copied"
printf "delete 'cp_src', 'row-000102', 'cf1:q1', 1010\n" >"$W/markers.rb"
"$BIN" shell --connect "$FB" "$W/markers.rb" >/dev/null
if "$BIN" copy "$FB" cp_src "$HB" --to-table cp_raw2_$R --create --all.cells \
  >"$W/raw2.out" 2>"$W/raw2.err"; then
  die "a version's Delete marker was copied to HBase's gateway"
fi
grep -q "has a Delete marker (cf1:q1 at 1010), which HBase's Thrift1 API cannot write" "$W/raw2.err" \
  && grep -q "written before it: 2 rows" "$W/raw2.err" \
  || { cat "$W/raw2.err" >&2; die "the message of a marker the gateway cannot write"; }
echo "copy-test:   stopped: $(grep -o 'row "row-000102".*at 1010)' "$W/raw2.err")... ($(grep -o 'written before it: .* bytes' "$W/raw2.err"))"
step "delete markers to HBase's gateway"

# Every side read back: ferrobase's files by Hadoop's reader, HBase's tables by its client.
java_check b dump-files "$W/fb-out" "$W/fb.txt" + dump-live cp_back_$R "$W/hbase-back.txt" \
  + dump-live cp_part_$R "$W/hbase-part.txt" + dump-table cp_raw_$R "$W/hbase-raw.txt" \
  + dump-files "$W/fb-raw" "$W/fb-raw.txt"
same "$W/hbase-src.txt" "$W/fb.txt" "HBase → ferrobase (every version)"
same "$W/hbase-src.txt" "$W/hbase-back.txt" "ferrobase → HBase"
python3 - "$W/hbase-src.txt" "$W/part-want.txt" <<'PY'
import sys
out = []
by_col = {}
for line in open(sys.argv[1], encoding="utf-8", errors="surrogateescape"):
    row, fam, qual, ts, kind, value = line.rstrip("\n").split("\t")
    if fam == "cf1" and "row-000100" <= row < "row-000600" and 1000 <= int(ts) < 1030:
        by_col.setdefault((row, fam, qual), []).append((int(ts), line))
for cells in by_col.values():
    out += [l for _, l in sorted(cells, reverse=True)[:2]]
open(sys.argv[2], "w", encoding="utf-8", errors="surrogateescape").writelines(sorted(out))
PY
same "$W/part-want.txt" "$W/hbase-part.txt" "HBase → ferrobase serve → HBase, ranges and 2 versions"
same "$W/fb-raw.txt" "$W/hbase-raw.txt" "ferrobase → HBase raw (a DeleteColumn marker and the cells it masks)"
step "read back and compared"
echo "copy-test: passed in $((SECONDS - start)) s"
