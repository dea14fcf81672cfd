#!/usr/bin/env bash
# Every test of the project, from a clean checkout: Rust tests, smoke runs of the benchmarks, the
# happybase suites against a real `ferrobase serve` (buffered/framed x binary/compact), the
# interactive shell through a pseudo-terminal, the Python wheel with its pytest fixtures in a fresh
# venv, and the differential tests beside Apache HBase.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
# The crates' examples run as doc tests (--all-targets leaves them out); their docs build without warnings.
cargo test --workspace --doc
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
cargo run --release -p ferrobase -- bench engine --cells 20000
# The schema studies in their small configuration (docs/studies/; seconds), so they never rot.
cargo run --release -p ferrobase -- study all --quick --out target/studies
# The peer benchmark on ferrobase's engine alone (RocksDB and fjall are not built here), so it never rots.
cargo run --release --manifest-path bench/peers/Cargo.toml --no-default-features -- --quick
python3 -m pip install --quiet --disable-pip-version-check happybase==1.3.0 pytest
cargo build -p ferrobase
python3 tests/happybase/run.py target/debug/ferrobase
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/shell
# A 64 MiB row scanned through happybase with scan_batching: the server's peak stays bounded.
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/wide_rows
# The Python wheel (python/): built with maturin from the release binary above (no compilation),
# installed into a fresh venv, `ferrobase --version` from PATH, the example suite on the pytest
# fixtures, serially and under pytest-xdist.
bash python/tests/run_wheel_test.sh
# Apache HBase 2.6.1 as the oracle (tests/hbase-oracle, README "Apache HBase as the oracle"): the
# differential suite (known divergences are strict xfails) and a short seeded random run, which
# reports divergences but fails only on a crash. Fails here, with the log's tail, if HBase cannot start.
bash scripts/hbase-oracle.sh start
trap 'bash scripts/hbase-oracle.sh stop' EXIT
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/differential
mkdir -p target/differential
for seed in 1 2 3; do
  python3 tests/differential/run.py --seed "$seed" --ops 400 --skip-known --brief \
    --ferrobase target/debug/ferrobase --report "target/differential/seed-$seed.json"
done
