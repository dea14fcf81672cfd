#!/usr/bin/env bash
# The performance program in one command: ferrobase's engine beside RocksDB and fjall (bench/peers,
# a child process per engine and repetition), then `ferrobase serve` through happybase beside the
# Bigtable emulator through google-cloud-bigtable, then `ferrobase serve` beside Apache HBase 2.6.1
# standalone, through happybase (tests/bench/server_vs_hbase.py; Java 17 and Maven for
# tests/hbase-oracle) and through the Rust client (`ferrobase bench server-vs-hbase`); the tables
# are written into docs/performance.md between their markers. Takes about 45 minutes here
# (RocksDB's first build alone ~15).
#
#   bash scripts/bench-peers.sh [--cells N] [--reps R]     (defaults: 1000000 cells, 3 reps)
#
# Needs Debian's libclang-dev for the RocksDB build (installed if missing, as root) and the
# emulator (`cbtemulator`, Google Cloud SDK). Bench data goes to $BENCH_DIR (default: /tmp).
set -euo pipefail
cd "$(dirname "$0")/.."
if ! dpkg -s libclang-dev >/dev/null 2>&1; then
    apt-get update -qq && apt-get install -y -qq libclang-dev
fi
python3 -m pip install --quiet --disable-pip-version-check happybase==1.3.0 google-cloud-bigtable
cargo build --release -p ferrobase
# With ROCKSDB_LIB_DIR set (Debian's librocksdb-dev: /usr/lib/x86_64-linux-gnu), RocksDB is linked from
# the system instead of building the crate's bundled copy (~15 minutes here).
rocks_feature=rocksdb
[ -n "${ROCKSDB_LIB_DIR:-}" ] && rocks_feature=system-rocksdb
cargo build --release --manifest-path bench/peers/Cargo.toml --features "$rocks_feature"
out=$(mktemp -d)
{
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores, $(awk '/MemTotal/ {printf "%.0f GiB", $2/1048576}' /proc/meminfo), $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), by \`bash scripts/bench-peers.sh $*\`."
    echo
    bench/peers/target/release/ferrobase-peer-bench --dir "${BENCH_DIR:-/tmp}" "$@"
} > "$out/peers.md"
{
    echo "Measured $(date -u +%Y-%m-%d) by \`python3 tests/bench/server_compare.py target/release/ferrobase --procs 4 --rows 20000 --reps 3\`."
    echo
    python3 tests/bench/server_compare.py target/release/ferrobase --procs 4 --rows 20000 --reps 3
} > "$out/server.md"
{
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores by \`python3 tests/bench/server_vs_hbase.py target/release/ferrobase\`."
    echo
    python3 tests/bench/server_vs_hbase.py target/release/ferrobase
} > "$out/hbase.md"
python3 scripts/replace_section.py docs/performance.md peers "$out/peers.md"
python3 scripts/replace_section.py docs/performance.md server "$out/server.md"
{
    echo "Measured $(date -u +%Y-%m-%d) on $(nproc) cores by \`target/release/ferrobase bench server-vs-hbase\` (load average before the run: $(cut -d' ' -f1-3 /proc/loadavg))."
    echo
    target/release/ferrobase bench server-vs-hbase
} > "$out/hbase-rust.md"
python3 scripts/replace_section.py docs/performance.md hbase "$out/hbase.md"
python3 scripts/replace_section.py docs/performance.md hbase-rust "$out/hbase-rust.md"
cat "$out/peers.md" "$out/server.md" "$out/hbase.md" "$out/hbase-rust.md"
