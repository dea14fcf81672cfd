#!/usr/bin/env bash
# Records HBase's answers to the ACL matrix (tests/hbase-oracle AclMatrix.java) in
# crates/gateway/tests/data/acl_matrix_hbase.tsv, the file crates/gateway/tests/access_matrix/
# compares ferrobase against in CI. Starts the oracle with HBase's AccessController
# (HBASE_ORACLE_PROFILE=acl) unless one is running, and stops it again if it started it.
#
#   bash scripts/hbase-acl-matrix.sh [OUT]     (default: the data file above)
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${1:-crates/gateway/tests/data/acl_matrix_hbase.tsv}
PROJECT=tests/hbase-oracle
started=0
bash scripts/hbase-oracle.sh build
if ! bash scripts/hbase-oracle.sh status >/dev/null 2>&1; then
  HBASE_ORACLE_PROFILE=acl bash scripts/hbase-oracle.sh start >/dev/null
  started=1
fi
eval "$(bash scripts/hbase-oracle.sh env)"
tmp=$(mktemp)
(cd "$PROJECT" && java "@jvm.options" -cp "target/classes:$(cat target/classpath.txt)" \
  ferrobase.oracle.AclMatrix "$HBASE_ORACLE_ZOOKEEPER" 2>"$tmp.log") >"$tmp" || {
  tail -20 "$tmp.log" >&2
  rm -f "$tmp" "$tmp.log"
  [[ $started == 1 ]] && bash scripts/hbase-oracle.sh stop
  exit 1
}
{
  echo "# HBase 2.6.1 with its AccessController, recorded by scripts/hbase-acl-matrix.sh:"
  echo "# scope, granted action, operation as that user, outcome (allowed [cells read] | denied TEXT)"
  cat "$tmp"
} >"$OUT"
rm -f "$tmp" "$tmp.log"
[[ $started == 1 ]] && bash scripts/hbase-oracle.sh stop
echo "hbase-acl-matrix: $(grep -vc '^#' "$OUT") outcomes in $OUT" >&2
