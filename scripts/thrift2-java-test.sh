#!/usr/bin/env bash
# HBase's own Java Connection over Thrift2 (hbase-thrift 2.6.1's ThriftConnection, chosen by
# hbase.client.connection.impl, as an unmodified application would be) against `ferrobase serve
# --thrift2-port`: the seed articles' program must print the transcript it prints against Apache
# HBase 2.6.1's own Thrift2 gateway (tests/java-client/expected/thrift2-hbase-2.6.1.txt, recorded
# from the oracle: 50 of 54 answers; the 4 others fail on HBase too, ThriftTable has no
# BufferedMutator batching, and those steps' readers find nothing).
#
#   scripts/thrift2-java-test.sh            FERROBASE_BIN (default target/debug/ferrobase)
# Re-record against the oracle: JAVA_CLIENT_THRIFT2=1 scripts/java-client.sh --thrift2 127.0.0.1:$HBASE_ORACLE_THRIFT2
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
EXPECTED=tests/java-client/expected/thrift2-hbase-2.6.1.txt
dir=$(mktemp -d)
"$BIN" serve --port 0 --thrift2-port 0 --data "$dir/data" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  grep -q "Thrift2 API on" "$dir/stdout" && break
  sleep 0.1
done
port=$(grep -o "Thrift2 API on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $port ]] || { cat "$dir/stderr" >&2; echo "thrift2-java: the server did not start" >&2; exit 1; }
t0=$SECONDS
status=0
JAVA_CLIENT_THRIFT2=1 bash scripts/java-client.sh --thrift2 "127.0.0.1:$port" >"$dir/seeds.txt" 2>"$dir/seeds.err" || status=$?
if ! diff -u "$EXPECTED" "$dir/seeds.txt"; then
  tail -20 "$dir/seeds.err" >&2
  echo "thrift2-java: ThriftConnection's answers differ from those against Apache HBase 2.6.1's Thrift2 gateway (above; - HBase, + ferrobase)" >&2
  exit 1
fi
echo "thrift2-java: HBase's ThriftConnection printed the transcript it prints against HBase's own Thrift2 gateway ($(tail -1 "$dir/seeds.txt"), exit $status as there) in $((SECONDS - t0)) s"
