#!/usr/bin/env bash
# HBase's REST door (crates/rest, `ferrobase serve --rest-port`, docs/design/rest.md):
#   1. malformed and hostile requests against the door alone (crates/rest/tests);
#   2. the differential suite tests/rest/test_rest.py: the same HTTP requests against
#      `ferrobase serve --rest-port 0` and Apache HBase's REST server (hbase-rest 2.6.1 in the
#      oracle JVM, scripts/hbase-oracle.sh), every resource in JSON, XML, protobuf and raw bytes,
#      answers compared;
#   3. the PyPI clients hbase-rest-py and starbase, unchanged, against both (tests/rest/test_clients.py).
# Starts the oracle if it is not running (and stops it again then). Builds target/debug/ferrobase.
# Warm (oracle built, crates compiled): about 20 s.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
step() { echo "rest-test: $1 ($((SECONDS - t0)) s)"; }

cargo build -q -p ferrobase
cargo test -q -p ferrobase-rest
step "crates/rest tests passed"

started_oracle=
if ! bash scripts/hbase-oracle.sh status >/dev/null 2>&1; then
  bash scripts/hbase-oracle.sh start >/dev/null
  started_oracle=1
fi
if [[ -n $started_oracle ]]; then
  trap 'bash scripts/hbase-oracle.sh stop' EXIT
fi
if ! grep -q ' rest=' target/hbase-oracle/state; then
  echo "rest-test: the running oracle has no REST server (started by an older tests/hbase-oracle);" \
    "restart it: bash scripts/hbase-oracle.sh stop" >&2
  exit 1
fi
step "oracle ready"

python3 -m pip install --quiet --disable-pip-version-check hbase-rest-py==1.0.0 starbase==0.3.3 pytest
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/rest
step "differential suite and PyPI clients passed"
