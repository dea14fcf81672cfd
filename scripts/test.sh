#!/usr/bin/env bash
# Every test of the project, from a clean checkout: Rust tests, smoke runs of the benchmarks, the
# happybase suites against a real `ferrobase serve` (buffered/framed x binary/compact), the
# interactive shell through a pseudo-terminal, the Python wheel with its pytest fixtures in a fresh
# venv, the differential tests beside Apache HBase and the scale-out path (client, shell, happybase)
# against Apache HBase's Thrift1 gateway.
set -euo pipefail
cd "$(dirname "$0")/.."
# Step times: each top-level command of this script that took a second or more is reported on stderr
# as it ends, with the time since the start ("test.sh: [SECS s, at TOTAL s] COMMAND").
__step_cmd='' __step_start=$SECONDS __run_start=$SECONDS
__step_report() {
  if [[ -n $__step_cmd ]] && ((SECONDS - __step_start >= 1)); then
    echo "test.sh: [$((SECONDS - __step_start)) s, at $((SECONDS - __run_start)) s] ${__step_cmd:0:120}" >&2
  fi
  __step_cmd=$BASH_COMMAND
  __step_start=$SECONDS
}
trap '[[ -z ${FUNCNAME[0]:-} ]] && __step_report; true' DEBUG
# A cold run builds 13 GiB under target/ with .ci/run's line tables, 24 GiB with full debug info (every
# test binary, debug and release); a disk that fills up shows far into the run as a linker's "Bus
# error", so the free space is said first.
__free_gib=$(df -Pk . | awk 'NR == 2 { print int($4 / 1048576) }')
echo "test.sh: ${__free_gib} GiB free on the disk of $PWD" >&2
if ((__free_gib < 25)); then
  echo "test.sh: WARNING: less than the 13-24 GiB a cold run may need under target/; a full disk fails the" \
    "build late (a linker's Bus error or 'No space left on device')" >&2
fi
# Python packages go into the test command's own virtual environment (target/test-venv), never into the
# system Python (a Debian Python refuses pip installs there, PEP 668); it needs python3 with its venv
# module. cargo-fuzz goes under ~/.cache/ferrobase/tools (scripts/fuzz.sh).
if [[ ! -x target/test-venv/bin/python3 ]]; then
  python3 -m venv target/test-venv
fi
export VIRTUAL_ENV="$PWD/target/test-venv"
export PATH="$PWD/target/test-venv/bin:$PATH"
# The gates of the house style (cargo fmt and clippy clean): a change that leaves either unclean fails here.
cargo fmt --all -- --check
cargo clippy --workspace --all-targets -- -D warnings
cargo test --workspace --all-targets
# The crates' examples run as doc tests (--all-targets leaves them out); their docs build without warnings.
cargo test --workspace --doc
RUSTDOCFLAGS="-D warnings" cargo doc --workspace --no-deps --quiet
# A short AddressSanitizer pass over every fuzz target from the seed corpora, with the
# allocation cap (docs/design/fuzzing.md); cargo fuzz's sanitizers need a nightly toolchain.
# 160 s in all (8 targets x 20 s before the disk decoders got a target each), shared by the
# targets. Without nightly the fuzz workspace is still checked on stable (libfuzzer-sys compiles
# there), so no target rots; with it, the pass's own build does that (the check cost CI 46 s).
if rustup toolchain list | grep -q '^nightly'; then
    FUZZ_TOTAL_SECONDS=160 bash scripts/fuzz.sh
else
    cargo +stable check --manifest-path fuzz/Cargo.toml
    echo "test.sh: ASan fuzz pass SKIPPED: no nightly toolchain installed" \
        "(rustup toolchain install nightly); the checked-in fuzz inputs still ran in cargo test"
fi
# The memstore's unsafe skip list and chunks under Miri (undefined behaviour, data races; ~10 min
# with its sysroot build), only when asked: the ASan pass above covers them through the memstore_ops
# fuzz target, and its harness runs under cargo test.
if [ "${FERROBASE_TEST_MIRI:-}" = 1 ]; then
  rustup +nightly component add miri rust-src
  MIRIFLAGS=-Zmiri-disable-isolation CARGO_TARGET_DIR=target/miri \
    cargo +nightly miri test -p ferrobase-engine --lib memstore
fi
cargo run --release -p ferrobase -- bench engine --cells 20000
# 5,000 regions served under `ulimit -n 256` (issue 44; release build, ~30 s warm).
bash scripts/many-regions-test.sh
# The schema studies in their small configuration (docs/studies/; seconds), so they never rot.
cargo run --release -p ferrobase -- study all --quick --out target/studies
# The peer benchmark on ferrobase's engine alone (RocksDB and fjall are not built here), so it never rots.
# (`--target-dir target`: the engine's dependencies built for the release binary above are reused.)
cargo run --release --manifest-path bench/peers/Cargo.toml --target-dir target --no-default-features -- --quick
python3 -m pip install --quiet --disable-pip-version-check happybase==1.3.0 pytest
cargo build -p ferrobase
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/shell
# A 64 MiB row scanned through happybase with scan_batching: the server's peak stays bounded.
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/wide_rows
# happybase over TLS and mutual TLS (certificates from the openssl CLI), ACLs by certificate CN.
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/security
# /metrics of `serve --http-port` read by the Prometheus project's Python text parser after a known
# happybase workload, and the console page (docs/design/operations.md; ~2 s).
python3 -m pip install --quiet --disable-pip-version-check prometheus_client==0.26.0
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/metrics
# The console in headless Chromium (Debian's chromium, Playwright from PyPI in a venv under target/; no browser
# download): tables, regions, the heat map's hot range after a skewed workload, the slow log, log levels (~20 s).
bash scripts/console-test.sh
# HBase's native RPC door (issue 48): the stock Java client (tests/java-client, Maven Central;
# hbase-client 2.6.1 and 3.0.0-beta-1) runs the seed articles' program and a breadth program against
# `ferrobase serve --rpc-port`, through ZooKeeper (--zk-port) and on one port with Thrift, and must
# print Apache HBase 2.6.1's transcripts (a cold Maven build ~20 s, the runs ~20 s).
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-door-test.sh
# Scan heartbeats and read points through the stock Java client (2.6.1 and 3.0.0-beta-1): filtered
# scans of a 300,000-row pre-split table answer as HBase 2.6.1's recorded transcript (issue 48).
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-scan-test.sh
# Compressed cell blocks (hbase.client.rpc.compressor: Gzip, Default; Snappy and Lz4 with Hadoop 3.3.6's
# pure-Java codecs) print HBase's transcript, with the bytes on the wire counted; and call priorities:
# meta lookups and Admin calls answer while user calls flood the normal handlers (issue 48).
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-compression-test.sh
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-priority-test.sh
# ACLs on the native door: HBase's ACL matrix program (tests/hbase-oracle AclMatrix, the stock Java
# client as 30 users x 39 operations) against `serve --acl --rpc-auth simple`, answers compared with
# those Apache HBase 2.6.1's AccessController gave (crates/gateway/tests/data; ~12 s).
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-acl-test.sh
# The ACL attack on the native door (issues 45, 48): tests/acl-attack's AclAttack, random grants and 500
# random operations of every kind as four users through the stock Java client, compared with Apache HBase
# 2.6.1's AccessController (recorded answers, seed 2; a hole always fails; ~10 s).
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-acl-attack.sh
# TLS on the native door (docs/design/native-protocol.md "TLS"): the Java client (2.6.1, 3.0.0-beta-1) runs
# SeedArticles over TLS with HBase's transcript, plaintext clients are refused with a clear message, malformed
# TLS is closed with a log line, one TLS port serves Java and Thrift (~22 s).
FERROBASE_BIN=target/debug/ferrobase bash scripts/native-tls-test.sh
# HBase's own Java Connection over Thrift2 (hbase-thrift's ThriftConnection, switched on by configuration)
# against `serve --thrift2-port`: the transcript it prints against Apache HBase 2.6.1's Thrift2 gateway (~10 s).
FERROBASE_BIN=target/debug/ferrobase bash scripts/thrift2-java-test.sh
# PyPI's hbase-driver (kazoo for ZooKeeper, then the native RPC) through `serve --zk-port`: Apache
# HBase 2.6.1's answers (tests/native-python, recorded from the oracle), kazoo's view of the znodes,
# writes refused; a venv of pinned packages under target/ (~5 s).
FERROBASE_BIN=target/debug/ferrobase bash tests/native-python/run.sh
# HBase's own shell (hbase-shell 2.4.17 with JRuby 9.2.13.0, Maven Central) through the same door
# with RpcConnectionRegistry: every conformance file (tests/shell/conformance) prints what HBase's
# shell printed against Apache HBase, or is a documented case (tests/shell/conformance/native.py;
# two shells at once, ~35 s).
python3 tests/shell/conformance/native.py target/debug/ferrobase
# A short soak (tests/soak/soak.py, docs/reliability.md): 50 happybase connections for 20 s with a
# mixed workload against 4 handlers and 8 queued calls (so busy answers and retries happen) and one
# kill -9 and restart of the server; every acknowledged write is read back, the server's peak RSS
# printed. The per-call bounds are in force, tighter than their defaults (issue 39, item 3): a
# 10 s read budget, 64 MiB of requests and results in flight, 1,000 mutations a call.
python3 tests/soak/soak.py target/debug/ferrobase --connections 50 --duration 20 --kill-rounds 1 \
  --server-arg=--handlers --server-arg=4 --server-arg=--max-queued-calls --server-arg=8 \
  --server-arg=--max-read-time --server-arg=10 --server-arg=--max-inflight-memory \
  --server-arg=67108864 --server-arg=--max-mutations-per-call --server-arg=1000
# The Python wheel (python/): built with maturin from the release binary above (no compilation),
# installed into a fresh venv, `ferrobase --version` from PATH, the example suite on the pytest
# fixtures, serially and under pytest-xdist.
bash python/tests/run_wheel_test.sh
# The manylinux2014 wheel for PyPI (python/build_manylinux.sh --test: the dist profile again, linked
# against glibc 2.17 with zig, auditwheel, the example suite on it) only when asked: it recompiles the
# whole workspace with fat LTO (3 min on an idle machine, 11 under load), beyond CI's budget for one check.
if [ "${FERROBASE_TEST_MANYLINUX:-}" = 1 ]; then
  bash python/build_manylinux.sh --test
fi
# Apache HBase 2.6.1 as the oracle (tests/hbase-oracle, README "Apache HBase as the oracle"): the
# differential suite (known divergences are strict xfails) and a short seeded random run, which
# reports divergences but fails only on a crash. Fails here, with the log's tail, if HBase cannot start.
bash scripts/hbase-oracle.sh start
trap 'bash scripts/hbase-oracle.sh stop' EXIT
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/differential
# HBase's Thrift2 API (THBaseService) through a client thriftpy2 builds from HBase's own IDL, against
# `serve --thrift2-port 0` and the oracle's Thrift2 gateway, answers compared (docs/design/thrift2.md; ~5 s).
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/thrift2
# HBase's REST API (Stargate): the door's own tests, the same HTTP requests against `serve --rest-port 0` and
# the oracle's REST server in every representation, and the PyPI clients hbase-rest-py and starbase (~20 s).
bash scripts/rest-test.sh
mkdir -p target/differential
for seed in 1 2 3; do
  python3 tests/differential/run.py --seed "$seed" --ops 400 --skip-known --brief \
    --ferrobase target/debug/ferrobase --report "target/differential/seed-$seed.json"
  # The widened differential (issue 41: appends, checkAndPut, increments, _ttl, every get and raw
  # scanner form, MIN_VERSIONS + TTL families, mixed deletes, odd filter syntax, compactions).
  python3 tests/differential/run.py --wide --seed "$seed" --ops 300 --skip-known --brief \
    --ferrobase target/debug/ferrobase --report "target/differential/wide-seed-$seed.json"
done
# The scale-out path against Apache HBase's Thrift1 gateway (README "Moving to an HBase cluster"):
# the client's backend scenario, the seed shell statements through `shell --connect` and the five
# seed applications through `app --connect` (output compared with ferrobase's), and happybase's
# test_api.py beside the ferrobase runs.
eval "$(bash scripts/hbase-oracle.sh env)"
export FERROBASE_HBASE_THRIFT=127.0.0.1:$HBASE_ORACLE_THRIFT1
cargo test --workspace --test client_backends apache_hbase
cargo test --workspace --test shell_statements apache_hbase
# The shell's conformance suite over Apache's gateway (embedded and ferrobase serve ran above).
cargo test --workspace --test shell_conformance apache_hbase
cargo test --workspace --test apps_apache_hbase apache_hbase
# (`--workspace`: those four test binaries were built with the workspace's features by the first `cargo
# test`, so they are not compiled again for `-p ferrobase`'s (71 s in CI). That run links
# target/debug/ferrobase to its own build of the binary; this puts the product's back, at no cost.)
cargo build -p ferrobase
python3 tests/happybase/run.py target/debug/ferrobase --hbase "$FERROBASE_HBASE_THRIFT"
# Data both ways between ferrobase and HBase in HBase's own formats (issue 47, docs/format/
# sequencefile.md): HBase 2.6.1's own Export, Import and ImportTsv (tests/hbase-export, Hadoop's local
# job runner) against the oracle and `ferrobase export`/`import`/`import tsv`, every cell compared
# (~60 s).
FERROBASE_BIN=target/debug/ferrobase bash scripts/export-test.sh
# `ferrobase copy` between ferrobase and Apache HBase's Thrift1 gateway, both ways, every cell compared
# (issue 47; ~20 s on the oracle already running).
FERROBASE_BIN=target/debug/ferrobase bash scripts/copy-test.sh
# The server benchmark beside HBase in its quick mode, on the oracle already running (a smoke run
# so the benchmark never rots; its figures mean nothing; ~15 s).
python3 tests/bench/server_vs_hbase.py target/release/ferrobase --quick \
  --hbase "$FERROBASE_HBASE_THRIFT" --hbase-pid "$HBASE_ORACLE_PID"
# The Java client's variant on the native door (tests/bench/java_vs_hbase.py, LoadBench; ~15 s).
python3 tests/bench/java_vs_hbase.py target/release/ferrobase --quick \
  --hbase-bootstrap "127.0.0.1:$HBASE_ORACLE_MASTER" --hbase-pid "$HBASE_ORACLE_PID"
# Its Rust-client variant the same way (`ferrobase bench server-vs-hbase`, ~10 s).
# (`cargo run`: the wheel step above rebuilt target/release/ferrobase without the `lab` feature.)
cargo run --release -p ferrobase -- bench server-vs-hbase --quick \
  --hbase "$FERROBASE_HBASE_THRIFT" --hbase-pid "$HBASE_ORACLE_PID"
