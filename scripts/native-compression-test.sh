#!/usr/bin/env bash
# Compressed cell blocks with the stock HBase Java client (issue 48): the seed articles' program
# (tests/java-client SeedArticles, hbase-client 2.6.1) with hbase.client.rpc.compressor unset,
# GzipCodec and DefaultCodec (Hadoop 2.10.2's, which hbase-client brings), then SnappyCodec and
# Lz4Codec (Hadoop 3.3.6's pure-Java ones: JAVA_CLIENT_HADOOP, Hadoop 2.10's need libhadoop) against
# `ferrobase serve --rpc-port`; each run must print Apache HBase 2.6.1's transcript
# (expected/hbase-2.6.1.txt, 54 answers). Every connection goes through
# a counting proxy (the server advertises 127.0.0.2 on its port, the proxy listens there), so the
# bytes on the wire each way are printed per run.
#
#   scripts/native-compression-test.sh        FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
EXPECTED=tests/java-client/expected/hbase-2.6.1.txt
dir=$(mktemp -d)
pids=()
trap 'for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done; rm -rf "$dir"' EXIT
"$BIN" serve --port 0 --rpc-port 0 --advertise 127.0.0.2 --max-row-size 16384 --data "$dir/data" \
  >"$dir/stdout" 2>"$dir/stderr" &
pids+=($!)
for _ in $(seq 100); do grep -q "native RPC on" "$dir/stdout" 2>/dev/null && break; sleep 0.1; done
port=$(grep -o "native RPC on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $port ]] || { cat "$dir/stderr" >&2; echo "native-compression: the server did not start" >&2; exit 1; }
python3 tests/java-client/compression/count_proxy.py 127.0.0.2 "$port" 127.0.0.1 "$dir/counts" &
pids+=($!)
for _ in $(seq 50); do [[ -f $dir/counts ]] && break; sleep 0.1; done

for run in none GzipCodec DefaultCodec SnappyCodec:3.3.6 Lz4Codec:3.3.6; do
  compressor=${run%%:*}
  hadoop=
  [[ $run == *:* ]] && hadoop=${run#*:}
  conf=$dir/conf-$compressor
  mkdir -p "$conf"
  if [[ $compressor == none ]]; then
    echo '<configuration/>' >"$conf/hbase-site.xml"
  else
    cat >"$conf/hbase-site.xml" <<XML
<configuration>
  <property><name>hbase.client.rpc.compressor</name><value>org.apache.hadoop.io.compress.$compressor</value></property>
</configuration>
XML
  fi
  read -r before_out before_in <"$dir/counts"
  t0=$SECONDS
  status=0
  JAVA_CLIENT_HADOOP=$hadoop JAVA_CLIENT_CONF_DIR=$conf bash scripts/java-client.sh --bootstrap "127.0.0.2:$port" --prefix "z${compressor,,}_" \
    >"$dir/seeds-$compressor.txt" 2>"$dir/seeds-$compressor.err" || status=$?
  sleep 0.3
  read -r after_out after_in <"$dir/counts"
  if ! diff -u "$EXPECTED" "$dir/seeds-$compressor.txt"; then
    echo "native-compression: with compressor $compressor, SeedArticles' answers differ from Apache HBase 2.6.1's (above)" >&2
    tail -20 "$dir/seeds-$compressor.err" >&2
    tail -20 "$dir/stderr" >&2
    exit 1
  fi
  [[ $status == 0 ]] || { echo "native-compression: SeedArticles ($compressor) exited $status" >&2; exit 1; }
  echo "native-compression: compressor $compressor${hadoop:+ (Hadoop $hadoop)}: Apache HBase 2.6.1's transcript ($(tail -1 "$dir/seeds-$compressor.txt")), $((after_out - before_out)) bytes client to server, $((after_in - before_in)) server to client, in $((SECONDS - t0)) s"
done
