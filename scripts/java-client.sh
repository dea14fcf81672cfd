#!/usr/bin/env bash
# The seed articles' programs on the stock HBase Java client 2.6.1 (tests/java-client, issue 48).
#
#   scripts/java-client.sh --bootstrap HOST:PORT [--prefix P] [--rows N] [--trace FILE]
#   scripts/java-client.sh --zk HOST:PORT ...
#   JAVA_CLIENT_THRIFT2=1 scripts/java-client.sh --thrift2 HOST:PORT ...   HBase's ThriftConnection
#   scripts/java-client.sh --program ClientBreadth --bootstrap HOST:PORT [--split-shell CMD] ...
#
# Builds tests/java-client if its sources changed (mvn -o, else online), then runs
# ferrobase.javaclient.SeedArticles with the arguments: one `step: answer` line per answer on stdout,
# then `answers: K of N`; exit 1 if a step failed. --bootstrap uses HBase 2.6's RpcConnectionRegistry
# (a master or region server RPC port, no ZooKeeper); --zk the classic ZooKeeper registry.
# Against the oracle (scripts/hbase-oracle.sh start):
#   eval "$(bash scripts/hbase-oracle.sh env)"
#   bash scripts/java-client.sh --bootstrap 127.0.0.1:$HBASE_ORACLE_MASTER
#   diff <(bash scripts/java-client.sh --zk 127.0.0.1:$HBASE_ORACLE_ZOOKEEPER) tests/java-client/expected/hbase-2.6.1.txt
# --trace FILE writes every RPC (preambles, headers, requests and responses with their protobuf fields
# and cell blocks) to FILE; the client then uses HBase's BlockingRpcClient, which writes the same bytes.
# --program NAME (first argument) runs ferrobase.javaclient.NAME instead: ClientBreadth is the client's
# breadth beyond the seeds (errors, pre-split and splitting tables, batch, checkAndMutate, every scan
# option and filter; tests/java-client/README.md). JAVA_CLIENT_BUILD_ONLY=1: build and exit.
# JAVA_CLIENT_CONF_DIR=DIR puts DIR first on the classpath, so the client reads DIR/hbase-site.xml
# (e.g. TLS: hbase.client.netty.tls.enabled and a truststore; scripts/native-tls-test.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
PROJECT=$PWD/tests/java-client
LOG_DIR=$PWD/target/java-client
PROGRAM=SeedArticles
if [[ ${1:-} == --program ]]; then
  PROGRAM=$2
  shift 2
fi
mkdir -p "$LOG_DIR"

die() {
  echo "java-client: $*" >&2
  exit 1
}

command -v java >/dev/null || die "java not found (Java 17 is needed)"
command -v mvn >/dev/null || die "mvn not found (Maven is needed)"
# JAVA_CLIENT_HBASE=VERSION: build and run with that hbase-client (e.g. 3.0.0-beta-1, 2.5.10) in
# tests/java-client/target/hbase-VERSION.
BUILD_DIR=$PROJECT/target
MVN_ARGS=()
if [[ -n ${JAVA_CLIENT_HBASE:-} ]]; then
  BUILD_DIR=$PROJECT/target/hbase-$JAVA_CLIENT_HBASE
  MVN_ARGS=(-Dhbase.version="$JAVA_CLIENT_HBASE" -Dbuild.dir="$BUILD_DIR")
fi
# JAVA_CLIENT_THRIFT2=1: with hbase-thrift on the classpath (its ThriftConnection: --thrift2 HOST:PORT),
# in tests/java-client/target/thrift2.
if [[ -n ${JAVA_CLIENT_THRIFT2:-} ]]; then
  BUILD_DIR=$PROJECT/target/thrift2
  MVN_ARGS+=(-Pthrift2 -Dbuild.dir="$BUILD_DIR")
fi
# JAVA_CLIENT_HADOOP=VERSION (e.g. 3.3.6): with that hadoop-common on the classpath instead of the 2.10.2
# hbase-client brings (its pure-Java SnappyCodec and Lz4Codec), in tests/java-client/target/hadoop-VERSION.
if [[ -n ${JAVA_CLIENT_HADOOP:-} ]]; then
  BUILD_DIR=$PROJECT/target/hadoop-$JAVA_CLIENT_HADOOP
  MVN_ARGS+=(-Phadoop3 -Dhadoop.version="$JAVA_CLIENT_HADOOP" -Dbuild.dir="$BUILD_DIR")
fi
stamp=$BUILD_DIR/classpath.txt
if [[ ! -f $stamp ]] || [[ -n $(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$stamp" -print -quit) ]]; then
  echo "java-client: building tests/java-client" >&2
  t0=$SECONDS
  if ! mvn -q -o -B "${MVN_ARGS[@]}" -f "$PROJECT/pom.xml" compile >"$LOG_DIR/build.log" 2>&1; then
    echo "java-client: offline build failed (Maven cache cold?); building online" >&2
    mvn -q -B "${MVN_ARGS[@]}" -f "$PROJECT/pom.xml" compile >"$LOG_DIR/build.log" 2>&1 \
      || { tail -30 "$LOG_DIR/build.log" >&2; die "Maven build of tests/java-client failed (log: $LOG_DIR/build.log)"; }
  fi
  touch "$stamp"
  echo "java-client: built in $((SECONDS - t0)) s" >&2
fi
[[ -n ${JAVA_CLIENT_BUILD_ONLY:-} ]] && exit 0
exec java -Xss4m -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -Djava.net.preferIPv4Stack=true \
  --add-opens=java.base/java.lang=ALL-UNNAMED --add-opens=java.base/java.nio=ALL-UNNAMED \
  --add-opens=java.base/sun.nio.ch=ALL-UNNAMED \
  -Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true \
  -cp "${JAVA_CLIENT_CONF_DIR:+$JAVA_CLIENT_CONF_DIR:}$BUILD_DIR/classes:$(cat "$stamp")" "ferrobase.javaclient.$PROGRAM" "$@"
