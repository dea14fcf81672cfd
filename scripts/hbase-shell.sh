#!/usr/bin/env bash
# Apache HBase's own shell against the oracle (scripts/hbase-oracle.sh), to see what HBase prints
# where a ferrobase shell statement's output shape is the question; or against any server that
# speaks HBase's native RPC with a connection registry (`ferrobase serve --rpc-port`, an HBase
# master or region server), with `--bootstrap`.
#
#   scripts/hbase-shell.sh [-n] < statements.txt     run statements (as `hbase shell`)
#   scripts/hbase-shell.sh                            interactive, on a terminal
#   scripts/hbase-shell.sh --bootstrap HOST:PORT ...  RpcConnectionRegistry with HOST:PORT as the
#                                                     bootstrap node: no ZooKeeper, no oracle
#                                                     running (its classpath is built if missing)
#
# The shell is hbase-shell 2.4.17's Ruby (the newest on Maven Central) with JRuby 9.2.13.0, on the
# oracle's HBase 2.6.1 classpath: the client and the server are 2.6.1. Its `trace` command needs a
# class 2.5 removed, so the Ruby sources are unpacked to target/hbase-shell/ruby with that command
# left out of its command group. Fetches the two jars with Maven when missing; the oracle must be
# running (`scripts/hbase-oracle.sh start`) unless --bootstrap is given. HBASE_ORACLE_STATE_DIR
# names the oracle's state directory, as for scripts/hbase-oracle.sh.
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STATE=${HBASE_ORACLE_STATE_DIR:-$ROOT/target/hbase-oracle}/state
BOOTSTRAP=
if [[ ${1:-} == --bootstrap ]]; then
  [[ -n ${2:-} ]] || { echo "hbase-shell: --bootstrap needs HOST:PORT" >&2; exit 2; }
  BOOTSTRAP=$2
  shift 2
fi
CLASSPATH_FILE=$ROOT/tests/hbase-oracle/target/classpath.txt
M2=${MAVEN_REPO:-$HOME/.m2/repository}
SHELL_JAR=$M2/org/apache/hbase/hbase-shell/2.4.17/hbase-shell-2.4.17.jar
JRUBY_JAR=$M2/org/jruby/jruby-complete/9.2.13.0/jruby-complete-9.2.13.0.jar
RUBY_DIR=$ROOT/target/hbase-shell/ruby

die() {
  echo "hbase-shell: $*" >&2
  exit 1
}

if [[ -z $BOOTSTRAP ]]; then
  bash scripts/hbase-oracle.sh status >/dev/null 2>&1 || die "the oracle is not running (scripts/hbase-oracle.sh start)"
elif [[ ! -f $CLASSPATH_FILE ]]; then
  bash scripts/hbase-oracle.sh build >&2 || die "could not build the oracle's classpath"
fi
[[ -f $CLASSPATH_FILE ]] || die "missing $CLASSPATH_FILE (scripts/hbase-oracle.sh start builds it)"
for artifact in org.apache.hbase:hbase-shell:2.4.17 org.jruby:jruby-complete:9.2.13.0; do
  jar=$SHELL_JAR
  [[ $artifact == org.jruby:* ]] && jar=$JRUBY_JAR
  if [[ ! -f $jar ]]; then
    mvn -q -B dependency:get -Dartifact="$artifact" -Dtransitive=false >&2 \
      || die "could not fetch $artifact"
  fi
done
# The Ruby sources, unpacked once with `trace` (a word of the command list, which loads
# SpanReceiverHost, gone since HBase 2.5) left out: unpacked and edited in a directory of its own,
# then renamed into place under a lock, so shells started at once (tests/shell/conformance/native.py
# runs two) never see a half-written or unedited copy; an unedited copy left by an older run is
# replaced.
unpacked() { [[ -f $RUBY_DIR/shell.rb ]] && ! grep -qx '    trace' "$RUBY_DIR/shell.rb"; }
if ! unpacked; then
  mkdir -p "$ROOT/target/hbase-shell"
  (
    flock 9
    if ! unpacked; then
      tmp=$(mktemp -d "$ROOT/target/hbase-shell/ruby.XXXXXX")
      (cd "$tmp" && unzip -q -o "$SHELL_JAR")
      sed -i '/^    trace$/d' "$tmp/shell.rb"
      rm -rf "$RUBY_DIR"
      mv "$tmp" "$RUBY_DIR"
    fi
  ) 9>"$ROOT/target/hbase-shell/unpack.lock"
fi
if [[ -n $BOOTSTRAP ]]; then
  # HBase 2.6's RpcConnectionRegistry: the cluster id, the master and hbase:meta's location
  # come from the bootstrap node over RPC (ClientMetaService).
  REGISTRY=(-Dhbase.client.registry.impl=org.apache.hadoop.hbase.client.RpcConnectionRegistry
    -Dhbase.client.bootstrap.servers="$BOOTSTRAP")
else
  ZK=$(grep -o 'zookeeper=[0-9]*' "$STATE" | cut -d= -f2)
  REGISTRY=(-Dhbase.zookeeper.quorum=localhost -Dhbase.zookeeper.property.clientPort="$ZK")
fi
# JRuby first: the HBase classpath carries an older joni that JRuby 9.2 cannot run with.
CP=$RUBY_DIR:$JRUBY_JAR:$(cat "$CLASSPATH_FILE")
exec java -Xss4m -cp "$CP" -Dlog4j.configuration=file:/dev/null org.jruby.JarBootstrapMain \
  "${REGISTRY[@]}" "$@"
