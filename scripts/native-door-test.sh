#!/usr/bin/env bash
# The stock HBase Java client (org.apache.hbase:hbase-client 2.6.1, tests/java-client) against
# `ferrobase serve --rpc-port`, RpcConnectionRegistry with ferrobase as the bootstrap node (no
# ZooKeeper). Each program must print the transcript Apache HBase 2.6.1 printed (recorded from
# the oracle):
#   SeedArticles   the seed articles' program, 54 answers (expected/hbase-2.6.1.txt), exactly;
#   SeedArticles on hbase-client 3.0.0-beta-1 too (JAVA_CLIENT_HBASE, tests/java-client/pom.xml);
#   ClientBreadth  errors, pre-split and splitting tables, batch, checkAndMutate, every scan
#                  option and filter (expected/clientbreadth-hbase-2.6.1.txt), but for the steps
#                  expected/clientbreadth-differences.txt lists with the reason.
# The server runs with the oracle's 16 KiB row-size limit (RowTooBigException), and splits go
# through ferrobase's shell over Thrift (Admin.split is not served by the native door yet).
#
#   scripts/native-door-test.sh            FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
EXPECTED=tests/java-client/expected
dir=$(mktemp -d)
"$BIN" serve --port 0 --rpc-port 0 --max-row-size 16384 --data "$dir/data" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  grep -q "native RPC on" "$dir/stdout" && grep -q "Thrift API on" "$dir/stdout" && break
  sleep 0.1
done
port=$(grep -o "native RPC on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
thrift=$(grep -o "Thrift API on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $port && -n $thrift ]] || { cat "$dir/stderr" >&2; echo "native-door: the server did not start" >&2; exit 1; }

t0=$SECONDS
status=0
bash scripts/java-client.sh --bootstrap "127.0.0.1:$port" >"$dir/seeds.txt" || status=$?
if ! diff -u "$EXPECTED/hbase-2.6.1.txt" "$dir/seeds.txt"; then
  echo "native-door: SeedArticles' answers differ from Apache HBase 2.6.1's (above; - HBase, + ferrobase)" >&2
  tail -20 "$dir/stderr" >&2
  exit 1
fi
[[ $status == 0 ]] || { echo "native-door: SeedArticles exited $status" >&2; exit 1; }
echo "native-door: hbase-client 2.6.1 SeedArticles printed Apache HBase 2.6.1's transcript ($(tail -1 "$dir/seeds.txt")) in $((SECONDS - t0)) s"

# HBase 3's client (RpcConnectionRegistry by default) runs the seed articles the same way.
t0=$SECONDS
status=0
JAVA_CLIENT_HBASE=3.0.0-beta-1 bash scripts/java-client.sh --bootstrap "127.0.0.1:$port" --prefix seed3_ \
  >"$dir/seeds3.txt" || status=$?
if ! diff -u "$EXPECTED/hbase-2.6.1.txt" "$dir/seeds3.txt"; then
  echo "native-door: SeedArticles on hbase-client 3.0.0-beta-1 differs from Apache HBase 2.6.1's transcript (above)" >&2
  tail -20 "$dir/stderr" >&2
  exit 1
fi
[[ $status == 0 ]] || { echo "native-door: SeedArticles (3.0.0-beta-1) exited $status" >&2; exit 1; }
echo "native-door: hbase-client 3.0.0-beta-1 SeedArticles printed the same transcript in $((SECONDS - t0)) s"

t0=$SECONDS
bash scripts/java-client.sh --program ClientBreadth --bootstrap "127.0.0.1:$port" \
  --split-shell "$BIN shell -n --connect thrift://127.0.0.1:$thrift" >"$dir/breadth.txt" 2>"$dir/breadth.err" || true
# The documented differences (step names) and the answers count are left out of the comparison.
known=$(grep -v '^#' "$EXPECTED/clientbreadth-differences.txt" | awk 'NF { print $1 }')
# Steps that differ only in the partial flag: compared with every `+` removed.
flags=$(grep -v '^#' "$EXPECTED/clientbreadth-flag-differences.txt" | awk 'NF { print $1 }')
keep() {
  grep -v -E "^(answers|$(paste -sd'|' <<<"$known")):" "$1" |
    sed -E "/^($(paste -sd'|' <<<"$flags")):/ s/\+//g"
}
if ! diff -u <(keep "$EXPECTED/clientbreadth-hbase-2.6.1.txt") <(keep "$dir/breadth.txt"); then
  echo "native-door: ClientBreadth's answers differ from Apache HBase 2.6.1's (above; - HBase, + ferrobase)" >&2
  tail -20 "$dir/breadth.err" >&2
  tail -20 "$dir/stderr" >&2
  exit 1
fi
n_known=$(wc -w <<<"$known")
echo "native-door: hbase-client 2.6.1 ClientBreadth printed Apache HBase 2.6.1's transcript but for $n_known documented steps ($(tail -1 "$dir/breadth.txt")) in $((SECONDS - t0)) s"

# --max-scanners-per-connection: a second server holding 3 scanners a connection.
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
"$BIN" serve --port 0 --rpc-port 0 --max-scanners-per-connection 3 --data "$dir/data2" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
for _ in $(seq 100); do
  grep -q "native RPC on" "$dir/stdout" && break
  sleep 0.1
done
port=$(grep -o "native RPC on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
limit=$(bash scripts/java-client.sh --program ScannerLimit --bootstrap "127.0.0.1:$port" --max 3 2>"$dir/limit.err") || true
want="scanners held: 3; refused: org.apache.hadoop.hbase.DoNotRetryIOException: org.apache.hadoop.hbase.DoNotRetryIOException: Too many open scanners on this connection: it holds 3 (--max-scanners-per-connection); close some ResultScanners before opening more
after closing them: a new scanner reads"
if [[ $limit != "$want" ]]; then
  echo "native-door: the scanner limit answered, instead of the expected refusal:" >&2
  echo "$limit" >&2
  tail -5 "$dir/limit.err" >&2
  exit 1
fi
echo "native-door: the 4th scanner of a connection is refused naming --max-scanners-per-connection"

# --- The classic discovery (issue 48): the same program through ZooKeeper (ZKConnectionRegistry,
# hbase.zookeeper.quorum) at `ferrobase serve --zk-port`, the read-only ZooKeeper façade.
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
"$BIN" serve --port 0 --rpc-port 0 --zk-port 0 --data "$dir/data-zk" >"$dir/stdout-zk" 2>"$dir/stderr-zk" &
pid=$!
for _ in $(seq 100); do grep -q "native RPC on" "$dir/stdout-zk" && break; sleep 0.1; done
zk_port=$(grep -o "ZooKeeper's protocol.* on [0-9.:]*" "$dir/stdout-zk" | sed 's/.*://')
[[ -n $zk_port ]] || { cat "$dir/stderr-zk" >&2; echo "native-door: the server with --zk-port did not start" >&2; exit 1; }
t0=$SECONDS
status=0
bash scripts/java-client.sh --zk "127.0.0.1:$zk_port" >"$dir/transcript-zk.txt" || status=$?
if ! diff -u tests/java-client/expected/hbase-2.6.1.txt "$dir/transcript-zk.txt"; then
  echo "native-door: through ZooKeeper (--zk-port), the Java client's answers differ from Apache HBase 2.6.1's (above)" >&2
  tail -20 "$dir/stderr-zk" >&2
  exit 1
fi
[[ $status == 0 ]] || { echo "native-door: the Java client through --zk-port exited $status" >&2; exit 1; }
echo "native-door: through ZooKeeper (--zk-port) too ($(tail -1 "$dir/transcript-zk.txt")) in $((SECONDS - t0)) s"

# --- One port for every client: `--rpc-port` equal to `--port` serves HBase's RPC and Thrift on
# the same port, told apart by a connection's first bytes.
kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true
one=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
"$BIN" serve --port "$one" --rpc-port "$one" --data "$dir/data-one" >"$dir/stdout-one" 2>"$dir/stderr-one" &
pid=$!
for _ in $(seq 100); do grep -q "Thrift API on" "$dir/stdout-one" && break; sleep 0.1; done
t0=$SECONDS
status=0
bash scripts/java-client.sh --bootstrap "127.0.0.1:$one" --prefix one_ >"$dir/transcript-one.txt" || status=$?
if ! diff -u <(sed 's/one_/seed_/g' "$dir/transcript-one.txt") "$EXPECTED/hbase-2.6.1.txt" >/dev/null \
  && ! diff -u "$EXPECTED/hbase-2.6.1.txt" "$dir/transcript-one.txt"; then
  echo "native-door: on one port, the Java client's answers differ from Apache HBase 2.6.1's (above)" >&2
  tail -20 "$dir/stderr-one" >&2
  exit 1
fi
[[ $status == 0 ]] || { echo "native-door: the Java client on one port exited $status" >&2; exit 1; }
printf "create 'thrift_too', 'f'\nlist\n" | "$BIN" shell -n --connect "thrift://127.0.0.1:$one" >"$dir/shell-one.txt" 2>&1 \
  || { cat "$dir/shell-one.txt" >&2; echo "native-door: Thrift on the shared port failed" >&2; exit 1; }
grep -q "^thrift_too$" "$dir/shell-one.txt" || { cat "$dir/shell-one.txt" >&2; exit 1; }
echo "native-door: one port ($one) served the Java client ($(tail -1 "$dir/transcript-one.txt")) and Thrift in $((SECONDS - t0)) s"
