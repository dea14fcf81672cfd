#!/usr/bin/env bash
# Apache HBase 2.6.1 as ferrobase's oracle (tests/hbase-oracle): one JVM with a standalone cluster,
# its Thrift1 and Thrift2 gateways, its REST server and an admin endpoint (flush, major compaction),
# on free ports.
#
#   scripts/hbase-oracle.sh start    build if needed, start in the background, wait until ready
#   scripts/hbase-oracle.sh status   print the state (exit 1 if not running)
#   scripts/hbase-oracle.sh stop     SIGTERM, wait for a clean stop
#   scripts/hbase-oracle.sh env      print HBASE_ORACLE_* variables for `eval` (THRIFT1, THRIFT2, REST,
#                                    ADMIN, ZOOKEEPER, MASTER, REGIONSERVER, DIR, PID)
#   scripts/hbase-oracle.sh build    compile tests/hbase-oracle if its sources changed
#
# State: target/hbase-oracle/state holds the ready line plus pid=, e.g.
#   hbase-oracle ready thrift1=41705 thrift2=33423 admin=35097 zookeeper=35315 master=40123
#     regionserver=38811 rest=36001 dir=/tmp/... pid=123   (one line; master and regionserver: native
#     RPC ports; rest: HBase's REST server, Stargate)
# The log is target/hbase-oracle/oracle.log. HBASE_ORACLE_START_TIMEOUT (seconds, default 300).
#
# For benchmarks (tests/bench/server_vs_hbase.py), a second instance beside the test oracle:
#   HBASE_ORACLE_STATE_DIR   state, log and options in this directory (default target/hbase-oracle)
#   HBASE_ORACLE_HEAP        the JVM heap, e.g. 2g (default: jvm.options' 768 MiB)
#   HBASE_ORACLE_PROFILE     bench: HBase's default flushes, compactions, splits and handler
#                            counts, and the JVM's default compilers and collector (the test
#                            profile, the default, keeps physical state still and starts fast);
#                            acl: the test profile with HBase's AccessController on (simple
#                            authentication, the oracle's user a superuser), for
#                            scripts/hbase-acl-matrix.sh
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
PROJECT=$ROOT/tests/hbase-oracle
STATE_DIR=${HBASE_ORACLE_STATE_DIR:-$ROOT/target/hbase-oracle}
PROFILE=${HBASE_ORACLE_PROFILE:-test}
HEAP=${HBASE_ORACLE_HEAP:-}
STATE=$STATE_DIR/state
LOG=$STATE_DIR/oracle.log
OUT=$STATE_DIR/stdout

die() {
  echo "hbase-oracle: $*" >&2
  exit 1
}

running_pid() {
  [[ -f $STATE ]] || return 1
  local pid
  pid=$(grep -o 'pid=[0-9]*' "$STATE" | cut -d= -f2)
  [[ -n $pid ]] && kill -0 "$pid" 2>/dev/null || return 1
  # A state file copied with target/ from another checkout names that checkout's oracle: not ours.
  [[ $(readlink "/proc/$pid/cwd" 2>/dev/null) == "$PROJECT" ]] || return 1
  echo "$pid"
}

build() {
  command -v java >/dev/null || die "java not found (Java 17 is needed)"
  command -v mvn >/dev/null || die "mvn not found (Maven is needed)"
  local stamp=$PROJECT/target/classpath.txt
  if [[ -f $stamp ]] && [[ -z $(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$stamp" -print -quit) ]]; then
    return 0
  fi
  echo "hbase-oracle: building tests/hbase-oracle" >&2
  local t0=$SECONDS
  if ! mvn -q -o -B -f "$PROJECT/pom.xml" compile >"$STATE_DIR/build.log" 2>&1; then
    echo "hbase-oracle: offline build failed (Maven cache cold?); building online" >&2
    mvn -q -B -f "$PROJECT/pom.xml" compile >"$STATE_DIR/build.log" 2>&1 \
      || { tail -30 "$STATE_DIR/build.log" >&2; die "Maven build of tests/hbase-oracle failed (log: $STATE_DIR/build.log)"; }
  fi
  touch "$stamp"
  echo "hbase-oracle: built in $((SECONDS - t0)) s" >&2
}

start() {
  mkdir -p "$STATE_DIR"
  if pid=$(running_pid); then
    echo "hbase-oracle: already running (pid $pid)" >&2
    cat "$STATE"
    return 0
  fi
  build
  rm -f "$STATE" "$OUT"
  local t0=$SECONDS
  # The JVM's options: jvm.options, with the heap and the bench profile's changes.
  local opts=$STATE_DIR/jvm.options args=()
  case $PROFILE in
    test) cp "$PROJECT/jvm.options" "$opts" ;;
    bench)
      grep -v -e '^-XX:TieredStopAtLevel' -e '^-XX:+UseSerialGC' "$PROJECT/jvm.options" >"$opts"
      args+=(--bench)
      ;;
    acl)
      cp "$PROJECT/jvm.options" "$opts"
      args+=(--acl)
      ;;
    *) die "HBASE_ORACLE_PROFILE must be test, bench or acl, not $PROFILE" ;;
  esac
  if [[ -n $HEAP ]]; then
    sed -i -e '/^-Xm[sx]/d' "$opts"
    printf -- '-Xms%s\n-Xmx%s\n' "$HEAP" "$HEAP" >>"$opts"
  fi
  (cd "$PROJECT" && exec java "@$opts" -cp "target/classes:$(cat target/classpath.txt)" \
    ferrobase.oracle.HBaseOracle "${args[@]}" >"$OUT" 2>"$LOG" </dev/null) &
  local pid=$!
  local timeout=${HBASE_ORACLE_START_TIMEOUT:-300}
  while ! grep -q '^hbase-oracle ready' "$OUT" 2>/dev/null; do
    if ! kill -0 "$pid" 2>/dev/null; then
      echo "---- last lines of $LOG ----" >&2
      tail -40 "$LOG" >&2
      die "Apache HBase could not start: the oracle exited before it was ready (log: $LOG)"
    fi
    if (( SECONDS - t0 > timeout )); then
      kill -TERM "$pid" 2>/dev/null || true
      echo "---- last lines of $LOG ----" >&2
      tail -40 "$LOG" >&2
      die "Apache HBase did not become ready within ${timeout} s (log: $LOG)"
    fi
    sleep 0.3
  done
  echo "$(grep '^hbase-oracle ready' "$OUT") pid=$pid" >"$STATE"
  echo "hbase-oracle: ready in $((SECONDS - t0)) s" >&2
  cat "$STATE"
}

stop() {
  local pid
  if ! pid=$(running_pid); then
    echo "hbase-oracle: not running" >&2
    rm -f "$STATE"
    return 0
  fi
  kill -TERM "$pid"
  for _ in $(seq 1 300); do
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.25
  done
  if kill -0 "$pid" 2>/dev/null; then
    kill -KILL "$pid" 2>/dev/null || true
    echo "hbase-oracle: did not stop within 75 s; killed" >&2
  fi
  rm -f "$STATE"
  echo "hbase-oracle: stopped" >&2
}

status() {
  if pid=$(running_pid); then
    cat "$STATE"
  else
    echo "hbase-oracle: not running" >&2
    return 1
  fi
}

env_vars() {
  status >/dev/null || die "not running"
  local kv
  for kv in $(sed 's/^hbase-oracle ready //' "$STATE"); do
    echo "export HBASE_ORACLE_$(echo "${kv%%=*}" | tr a-z A-Z)=${kv#*=}"
  done
}

case "${1:-}" in
  start) start ;;
  stop) stop ;;
  status) status ;;
  env) env_vars ;;
  build) mkdir -p "$STATE_DIR" && build ;;
  *) echo "usage: $0 start|stop|status|env|build" >&2; exit 2 ;;
esac
