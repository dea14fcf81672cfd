#!/usr/bin/env bash
# The stock HBase Java client (org.apache.hbase:hbase-client 2.6.1, tests/java-client) against
# `ferrobase serve --rpc-port`: the seed articles' program (54 answers) must print exactly the
# transcript Apache HBase 2.6.1 printed (tests/java-client/expected/hbase-2.6.1.txt, recorded from
# the oracle). RpcConnectionRegistry with ferrobase as the bootstrap node: no ZooKeeper.
#
#   scripts/native-door-test.sh            FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
dir=$(mktemp -d)
"$BIN" serve --port 0 --rpc-port 0 --data "$dir/data" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  grep -q "native RPC on" "$dir/stdout" && break
  sleep 0.1
done
port=$(grep -o "native RPC on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $port ]] || { cat "$dir/stderr" >&2; echo "native-door: the server did not start" >&2; exit 1; }
t0=$SECONDS
status=0
bash scripts/java-client.sh --bootstrap "127.0.0.1:$port" >"$dir/transcript.txt" || status=$?
if ! diff -u tests/java-client/expected/hbase-2.6.1.txt "$dir/transcript.txt"; then
  echo "native-door: the Java client's answers differ from Apache HBase 2.6.1's (above; - HBase, + ferrobase)" >&2
  tail -20 "$dir/stderr" >&2
  exit 1
fi
[[ $status == 0 ]] || { echo "native-door: the Java client exited $status" >&2; exit 1; }
echo "native-door: hbase-client 2.6.1 printed Apache HBase 2.6.1's transcript ($(tail -1 "$dir/transcript.txt")) in $((SECONDS - t0)) s"

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
