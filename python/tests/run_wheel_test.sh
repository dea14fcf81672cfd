#!/usr/bin/env bash
# The Python wheel, end to end (issue 28): builds it from this checkout with maturin, installs it
# into a fresh virtual environment, checks `ferrobase --version` from PATH, then runs
# python/tests/test_server.py and the example suite python/examples/test_example.py (only the
# fixtures and happybase) as a user's project would: once serially (one server for the session)
# and once under pytest-xdist -n 2 (each worker its own server, checked from a report).
#
# FERROBASE_WHEEL_PROFILE picks the cargo profile: `release` (the default here) reuses the binary
# scripts/test.sh has already built, so the wheel costs no compilation; `dist` is the shipped,
# LTO-optimized one (pyproject.toml's default), which compiles everything again.
# FERROBASE_WHEEL=PATH tests that wheel instead of building one (python/build_manylinux.sh --test
# passes its manylinux2014 wheel this way).
set -euo pipefail
cd "$(dirname "$0")/../.."
root=$PWD
profile=${FERROBASE_WHEEL_PROFILE:-release}
work=$root/target/wheel-test
tools=$root/target/py-tools
pip_quiet=(--quiet --disable-pip-version-check)

if [ -n "${FERROBASE_WHEEL:-}" ]; then
  wheel=$(realpath "$FERROBASE_WHEEL")
  rm -rf "$work"
  mkdir -p "$work/suite"
else
  if ! "$tools/bin/maturin" --version 2>/dev/null | grep -qx "maturin 1.16.0"; then
    rm -rf "$tools"
    python3 -m venv "$tools"
    "$tools/bin/pip" install "${pip_quiet[@]}" maturin==1.16.0
  fi
  rm -rf "$work"
  mkdir -p "$work/suite"
  (cd python && "$tools/bin/maturin" build --quiet --profile "$profile" --out "$work/wheels")
  wheel=$(ls "$work"/wheels/ferrobase-*.whl)
fi
echo "== wheel: $(basename "$wheel") ($(du -h "$wheel" | cut -f1))"

python3 -m venv "$work/venv"
# shellcheck disable=SC1091
source "$work/venv/bin/activate"
pip install "${pip_quiet[@]}" "$wheel" pytest pytest-xdist==3.8.0
version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
[ "$(command -v ferrobase)" = "$work/venv/bin/ferrobase" ] || { echo "ferrobase not on PATH from the venv"; exit 1; }
# `ferrobase VERSION (GIT-REVISION)`.
case "$(ferrobase --version)" in "ferrobase $version ("*")") ;; *) echo "ferrobase --version: $(ferrobase --version)"; exit 1 ;; esac
echo "== $(command -v ferrobase): $(ferrobase --version)"

# A user's project: the tests copied out of the checkout, so only the installed package is seen.
cp python/examples/test_example.py python/tests/test_server.py "$work/suite/"
cd "$work/suite"
export PYTHONPATH=$root/python/tests   # report_servers.py only
pytest -q -p no:cacheprovider test_server.py
FERROBASE_SERVER_REPORT=$work/serial.jsonl pytest -q -p no:cacheprovider -p report_servers test_example.py
FERROBASE_SERVER_REPORT=$work/xdist.jsonl pytest -q -p no:cacheprovider -p report_servers -n 2 test_example.py
python3 - "$work/serial.jsonl" "$work/xdist.jsonl" <<'PY'
import json, sys
def servers(path):
    records = [json.loads(line) for line in open(path)]
    by_worker = {}
    for r in records:
        by_worker.setdefault(r["worker"], set()).add((r["pid"], r["server_pid"], r["port"]))
    return by_worker
serial, xdist = servers(sys.argv[1]), servers(sys.argv[2])
assert len(serial) == 1 and all(len(s) == 1 for s in serial.values()), serial
assert len(xdist) == 2 and all(len(s) == 1 for s in xdist.values()), xdist
(a,), (b,) = xdist.values()
assert a[0] != b[0] and a[1] != b[1] and a[2] != b[2], xdist
print("== pytest-xdist: each worker had its own server:",
      ", ".join("%s -> server pid %d on port %d" % (w, s[1], s[2]) for w, (s,) in sorted(xdist.items())))
PY
