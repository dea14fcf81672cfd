#!/usr/bin/env bash
# Apache HBase's own shell against the oracle (scripts/hbase-oracle.sh), to see what HBase prints
# where a ferrobase shell statement's output shape is the question.
#
#   scripts/hbase-shell.sh [-n] < statements.txt     run statements (as `hbase shell`)
#   scripts/hbase-shell.sh                            interactive, on a terminal
#
# The shell is hbase-shell 2.4.17's Ruby (the newest on Maven Central) with JRuby 9.2.13.0, on the
# oracle's HBase 2.6.1 classpath: the client and the server are 2.6.1. Its `trace` command needs a
# class 2.5 removed, so the Ruby sources are unpacked to target/hbase-shell/ruby with that command
# left out of its command group. Fetches the two jars with Maven when missing; the oracle must be
# running (`scripts/hbase-oracle.sh start`).
set -euo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD
STATE=$ROOT/target/hbase-oracle/state
CLASSPATH_FILE=$ROOT/tests/hbase-oracle/target/classpath.txt
M2=${MAVEN_REPO:-$HOME/.m2/repository}
SHELL_JAR=$M2/org/apache/hbase/hbase-shell/2.4.17/hbase-shell-2.4.17.jar
JRUBY_JAR=$M2/org/jruby/jruby-complete/9.2.13.0/jruby-complete-9.2.13.0.jar
RUBY_DIR=$ROOT/target/hbase-shell/ruby

die() {
  echo "hbase-shell: $*" >&2
  exit 1
}

bash scripts/hbase-oracle.sh status >/dev/null 2>&1 || die "the oracle is not running (scripts/hbase-oracle.sh start)"
[[ -f $CLASSPATH_FILE ]] || die "missing $CLASSPATH_FILE (scripts/hbase-oracle.sh start builds it)"
for artifact in org.apache.hbase:hbase-shell:2.4.17 org.jruby:jruby-complete:9.2.13.0; do
  jar=$SHELL_JAR
  [[ $artifact == org.jruby:* ]] && jar=$JRUBY_JAR
  if [[ ! -f $jar ]]; then
    mvn -q -B dependency:get -Dartifact="$artifact" -Dtransitive=false >&2 \
      || die "could not fetch $artifact"
  fi
done
if [[ ! -f $RUBY_DIR/shell.rb ]]; then
  mkdir -p "$RUBY_DIR"
  (cd "$RUBY_DIR" && unzip -q -o "$SHELL_JAR")
  # `trace` (a word of the command list) loads SpanReceiverHost, gone since HBase 2.5.
  sed -i '/^    trace$/d' "$RUBY_DIR/shell.rb"
fi
ZK=$(grep -o 'zookeeper=[0-9]*' "$STATE" | cut -d= -f2)
# JRuby first: the HBase classpath carries an older joni that JRuby 9.2 cannot run with.
CP=$RUBY_DIR:$JRUBY_JAR:$(cat "$CLASSPATH_FILE")
exec java -Xss4m -cp "$CP" -Dlog4j.configuration=file:/dev/null org.jruby.JarBootstrapMain \
  -Dhbase.zookeeper.quorum=localhost -Dhbase.zookeeper.property.clientPort="$ZK" "$@"
