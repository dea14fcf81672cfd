#!/usr/bin/env bash
# Scan heartbeats and read points through the native door with the stock HBase Java client 2.6.1
# (tests/java-client, ScanHeartbeats; issue 48): filtered scans of a pre-split 300,000-row table
# through a connection whose scan calls time out after 200 ms, so the server must answer with
# heartbeats (and cursors) long before a region is read, and each scan's rows must equal the full
# answer; then a scan with writes ahead of it in its region and in the next one. The transcript
# must be the one Apache HBase 2.6.1 printed for the same program
# (tests/java-client/expected/scanheartbeats-hbase-2.6.1.txt, recorded from the oracle:
# `bash scripts/java-client.sh --program ScanHeartbeats --bootstrap 127.0.0.1:$HBASE_ORACLE_MASTER`).
#
# NATIVE_SCAN_TIMEOUT_MS (default 200, as the oracle's run) sets the client's scan call timeout: a
# fast (release) build may read a region's 100,000 rows within half of it, and see no cursor; the
# answers themselves do not depend on it. Keep NATIVE_SCAN_KEEP=1 to keep the server's directory.
#
#   scripts/native-scan-test.sh            FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
EXPECTED=tests/java-client/expected/scanheartbeats-hbase-2.6.1.txt
TIMEOUT=${NATIVE_SCAN_TIMEOUT_MS:-200}
t0=$SECONDS
dir=$(mktemp -d)
"$BIN" serve --port 0 --rpc-port 0 --data "$dir/data" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; [[ -n ${NATIVE_SCAN_KEEP:-} ]] || rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  grep -q "native RPC on" "$dir/stdout" && break
  sleep 0.1
done
port=$(grep -o "native RPC on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $port ]] || { cat "$dir/stderr" >&2; echo "native-scan: the server did not start" >&2; exit 1; }
status=0
bash scripts/java-client.sh --program ScanHeartbeats --bootstrap "127.0.0.1:$port" --timeout "$TIMEOUT" \
  >"$dir/out.txt" 2>"$dir/err.txt" || status=$?
if ! diff -u "$EXPECTED" "$dir/out.txt"; then
  echo "native-scan: ScanHeartbeats' answers differ from Apache HBase 2.6.1's (above; - HBase, + ferrobase)" >&2
  grep -v '^\s*at ' "$dir/err.txt" | tail -20 >&2
  tail -20 "$dir/stderr" >&2
  exit 1
fi
[[ $status == 0 ]] || { echo "native-scan: ScanHeartbeats exited $status" >&2; exit 1; }
# The client's own account of each scan: results, cursor results (heartbeats without rows), time.
grep -E '^(loaded|forward|reversed|batch|whole)' "$dir/err.txt" | sed 's/^/native-scan:   /'
echo "native-scan: ScanHeartbeats printed Apache HBase 2.6.1's transcript (heartbeats with cursors in every scan, every answer whole; read points as HBase's) in $((SECONDS - t0)) s"
