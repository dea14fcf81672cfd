#!/usr/bin/env bash
# Call priorities with the stock HBase Java client (issue 48): tests/java-client's PriorityFlood
# floods `ferrobase serve --rpc-port --handlers 2 --max-queued-calls 4` with slow gets from 12
# connections (the normal queue full, its callers answered CallQueueTooBigException) while another
# connection times meta lookups and Admin.listTableNames; each must answer within a second (the
# priority pool runs them, docs/design/native-protocol.md "Call priorities").
#
#   scripts/native-priority-test.sh        FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
dir=$(mktemp -d)
"$BIN" serve --port 0 --rpc-port 0 --handlers 2 --max-queued-calls 4 --data "$dir/data" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null || true; rm -rf "$dir"' EXIT
for _ in $(seq 100); do grep -q "native RPC on" "$dir/stdout" 2>/dev/null && break; sleep 0.1; done
port=$(grep -o "native RPC on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $port ]] || { cat "$dir/stderr" >&2; echo "native-priority: the server did not start" >&2; exit 1; }
t0=$SECONDS
bash scripts/java-client.sh --program PriorityFlood --bootstrap "127.0.0.1:$port" >"$dir/flood.txt" 2>"$dir/flood.err" \
  || { cat "$dir/flood.txt"; tail -20 "$dir/flood.err" >&2; echo "native-priority: PriorityFlood failed" >&2; exit 1; }
meta=$(sed -n 's/^meta lookup (slowest of [0-9]*): \([0-9]*\) ms$/\1/p' "$dir/flood.txt")
list=$(sed -n 's/^Admin.listTableNames (slowest of [0-9]*): \([0-9]*\) ms$/\1/p' "$dir/flood.txt")
if [[ -z $meta || -z $list ]] || ((meta >= 1000 || list >= 1000)); then
  cat "$dir/flood.txt" >&2
  echo "native-priority: a meta lookup or Admin call took a second or more under the flood" >&2
  exit 1
fi
echo "native-priority: under a flood of slow gets, meta lookups took at most $meta ms and Admin.listTableNames $list ms ($(tail -1 "$dir/flood.txt")) in $((SECONDS - t0)) s"
