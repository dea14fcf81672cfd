#!/usr/bin/env bash
# Every test of the project, from a clean checkout: Rust tests, smoke runs of the benchmarks, the
# happybase suites against a real `ferrobase serve` (buffered/framed x binary/compact) and the
# interactive shell through a pseudo-terminal.
set -euo pipefail
cd "$(dirname "$0")/.."
cargo test --workspace --all-targets
# The fuzz workspace builds on stable too (libfuzzer-sys compiles there), so no target rots.
cargo +stable check --manifest-path fuzz/Cargo.toml
# A short AddressSanitizer pass over every fuzz target from the seed corpora, with the
# allocation cap (docs/design/fuzzing.md); cargo fuzz's sanitizers need a nightly toolchain.
if rustup toolchain list | grep -q '^nightly'; then
    bash scripts/fuzz.sh 20
else
    echo "test.sh: ASan fuzz pass SKIPPED: no nightly toolchain installed" \
        "(rustup toolchain install nightly); the checked-in fuzz inputs still ran in cargo test"
fi
cargo run --release -p ferrobase -- bench engine --cells 20000
# The peer benchmark on ferrobase's engine alone (RocksDB and fjall are not built here), so it never rots.
cargo run --release --manifest-path bench/peers/Cargo.toml --no-default-features -- --quick
python3 -m pip install --quiet --disable-pip-version-check happybase==1.3.0 pytest
cargo build -p ferrobase
python3 tests/happybase/run.py target/debug/ferrobase
FERROBASE_BIN=target/debug/ferrobase python3 -m pytest -q -p no:cacheprovider tests/shell
