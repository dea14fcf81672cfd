#!/usr/bin/env bash
# The ACL attack through the native door (issues 45 and 48): tests/acl-attack's AclAttack (the
# stock HBase Java client 2.6.1; random grants to four users, random operations as them, the
# superuser's view of what each changed) against `ferrobase serve --acl --rpc-port --zk-port
# --rpc-auth simple`, compared operation by operation with Apache HBase 2.6.1 and its
# AccessController run with the same seed (tests/acl-attack/compare.py: equal, listed with a
# reason, or a failure; a hole, where ferrobase lets a user do, read or change more than HBase,
# always fails).
#
#   scripts/native-acl-attack.sh [SEED] [OPS]     default: seed 1, 300 operations
#
# HBase's answers for the fixed seed are recorded (tests/acl-attack/expected/seed-SEED-OPS.txt),
# so the test command needs no oracle. Other seeds, or NATIVE_ACL_ATTACK_ORACLE=1, run the
# program against the oracle too (started with HBASE_ORACLE_PROFILE=acl when none runs; a
# running oracle must have the AccessController on). NATIVE_ACL_ATTACK_SEED=random picks a
# seed; NATIVE_ACL_ATTACK_RECORD=1 writes HBase's answers as the recording.
# FERROBASE_BIN (default target/debug/ferrobase). Answers and logs: target/acl-attack/.
set -euo pipefail
cd "$(dirname "$0")/.."
BIN=${FERROBASE_BIN:-target/debug/ferrobase}
PROJECT=$PWD/tests/acl-attack
OUT=$PWD/target/acl-attack
SEED=${1:-${NATIVE_ACL_ATTACK_SEED:-1}}
OPS=${2:-300}
if [[ $SEED == random ]]; then
  SEED=$(( (RANDOM << 15) | RANDOM ))
fi
RECORDED=$PROJECT/expected/seed-$SEED-$OPS.txt
mkdir -p "$OUT"
t0=$SECONDS

die() {
  echo "native-acl-attack: $*" >&2
  exit 1
}

# Build the program if its sources changed.
stamp=$PROJECT/target/classpath.txt
if [[ ! -f $stamp ]] || [[ -n $(find "$PROJECT/pom.xml" "$PROJECT/src" -newer "$stamp" -print -quit) ]]; then
  if ! mvn -q -o -B -f "$PROJECT/pom.xml" compile >"$OUT/build.log" 2>&1; then
    mvn -q -B -f "$PROJECT/pom.xml" compile >"$OUT/build.log" 2>&1 \
      || { tail -30 "$OUT/build.log" >&2; die "Maven build of tests/acl-attack failed"; }
  fi
  touch "$stamp"
fi

attack() { # ZK_PORT ANSWERS
  (cd "$PROJECT" && java "@jvm.options" -cp "target/classes:$(cat target/classpath.txt)" \
    ferrobase.aclattack.AclAttack "$1" "$SEED" "$OPS" >"$2" 2>"$2.log") || {
    grep -v '^op ' "$2.log" | tail -20 >&2
    die "AclAttack failed (log: $2.log)"
  }
}

# Apache HBase's answers: recorded, or from the oracle.
hbase=$OUT/hbase-$SEED-$OPS.txt
if [[ -f $RECORDED && ${NATIVE_ACL_ATTACK_ORACLE:-0} != 1 ]]; then
  cp "$RECORDED" "$hbase"
else
  if ! bash scripts/hbase-oracle.sh status >/dev/null 2>&1; then
    HBASE_ORACLE_PROFILE=acl bash scripts/hbase-oracle.sh start >/dev/null
  fi
  eval "$(bash scripts/hbase-oracle.sh env)"
  t1=$SECONDS
  attack "$HBASE_ORACLE_ZOOKEEPER" "$hbase"
  echo "native-acl-attack: Apache HBase answered $OPS operations in $((SECONDS - t1)) s"
  if [[ ${NATIVE_ACL_ATTACK_RECORD:-0} == 1 ]]; then
    mkdir -p "$PROJECT/expected"
    cp "$hbase" "$RECORDED"
    echo "native-acl-attack: recorded $RECORDED"
  fi
fi

# ferrobase's: a fresh server whose superuser is this process's user, as the oracle's.
dir=$(mktemp -d)
"$BIN" serve --port 0 --rpc-port 0 --zk-port 0 --acl --superuser "$(id -un)" --rpc-auth simple \
  --data "$dir/data" >"$dir/stdout" 2>"$dir/stderr" &
pid=$!
trap 'kill "$pid" 2>/dev/null; wait "$pid" 2>/dev/null; rm -rf "$dir"' EXIT
for _ in $(seq 100); do
  grep -qs "ZooKeeper's protocol" "$dir/stdout" && grep -qs "Thrift API on" "$dir/stdout" && break
  sleep 0.1
done
zk=$(grep -o "ZooKeeper's protocol (read-only, /hbase) on [0-9.:]*" "$dir/stdout" | sed 's/.*://')
[[ -n $zk ]] || { cat "$dir/stderr" >&2; die "the server did not start"; }
ours=$OUT/ferrobase-$SEED-$OPS.txt
t1=$SECONDS
attack "$zk" "$ours"
echo "native-acl-attack: ferrobase answered $OPS operations in $((SECONDS - t1)) s (seed $SEED)"
python3 "$PROJECT/compare.py" "$hbase" "$ours"
echo "native-acl-attack: seed $SEED, $OPS operations in $((SECONDS - t0)) s"
