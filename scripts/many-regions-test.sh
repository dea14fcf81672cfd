#!/usr/bin/env bash
# Thousands of regions under a small descriptor limit (issue 44,
# crates/ferrobase/tests/serve_many_regions.rs): a data directory of 5,000 regions (tables of one
# region and tables pre-split into 50; two families, two files each: 20,000 block files) served by
# `ferrobase serve` under `ulimit -n 256`: every table read and written, every region flushed and
# major-compacted from four connections at once (one manifest log record each), descriptors
# exhausted by client connections, a kill and a restart; no EMFILE anywhere. The directory lives in /dev/shm
# when there is one (what is tested is the descriptors, not the disk's fsyncs).
# FERROBASE_MANY_REGIONS=N for another size. The server is the release binary (test.sh has built it
# by now); the test itself is the debug build `cargo test --workspace --all-targets` made (the same
# workspace features, so nothing is compiled again): a release test harness cost CI 2.5 minutes.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
if [[ -d /dev/shm && -w /dev/shm ]]; then
  export TMPDIR=/dev/shm
fi
cargo build -q --release -p ferrobase
FERROBASE_BIN="${CARGO_TARGET_DIR:-$PWD/target}/release/ferrobase" \
  cargo test -q --workspace --test serve_many_regions -- --ignored --nocapture
echo "many-regions-test: passed ($((SECONDS - t0)) s)"
