#!/usr/bin/env bash
# PyPI's hbase-driver (with kazoo) against `ferrobase serve --rpc-port 0 --zk-port 0`
# (tests/native-python/test_hbase_driver.py), in a venv of pinned packages under target/.
#
#   tests/native-python/run.sh     FERROBASE_BIN (default target/debug/ferrobase);
#                                  HBASE_ORACLE_ZOOKEEPER set: the oracle is asked too
set -euo pipefail
cd "$(dirname "$0")/../.."
VENV=target/native-python/venv
PACKAGES=(hbase-driver==1.1.1 kazoo==2.11.0 pytest)
if [[ ! -x $VENV/bin/python ]] || ! "$VENV/bin/python" -c 'import hbasedriver, kazoo, pytest' 2>/dev/null; then
  rm -rf "$VENV"
  # Once more on a failure (a fresh clone's CI saw ensurepip fail once, under load).
  python3 -m venv "$VENV" || { rm -rf "$VENV"; sleep 2; python3 -m venv "$VENV"; }
  "$VENV/bin/python" -m pip install --quiet --disable-pip-version-check "${PACKAGES[@]}"
fi
export FERROBASE_BIN=${FERROBASE_BIN:-target/debug/ferrobase}
exec "$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/native-python "$@"
