#!/usr/bin/env bash
# Runs every fuzz target (or the ones named) under AddressSanitizer for SECONDS_PER_TARGET
# seconds each (default 60), from the checked-in seed corpus and dictionary, with a cap on any
# single allocation: a plain run cannot see a huge allocation that succeeds lazily (a Snappy
# header once sized a 4 GiB buffer unseen). Fails on any crash, leak, timeout or allocation
# over the cap, printing the input. See docs/design/fuzzing.md.
#
#   scripts/fuzz.sh [SECONDS_PER_TARGET] [TARGET...]
#
# Needs a nightly toolchain (`rustup toolchain install nightly`); installs cargo-fuzz when it
# is missing. Environment: FUZZ_MALLOC_LIMIT_MB (default 256), FUZZ_RSS_LIMIT_MB (2048),
# FUZZ_NO_SEEDS=1 (start from an empty corpus with no dictionary, to measure what the seeds
# give), FUZZ_TOTAL_SECONDS (a budget for the whole pass, shared evenly by the targets, at least
# 5 s each; overrides SECONDS_PER_TARGET, so adding a target does not lengthen CI's pass),
# FUZZ_TARGET_DIR (where the instrumented build goes; default ~/.cache/ferrobase/fuzz-target,
# outside the checkout, so a fresh clone's CI run rebuilds only what changed), FUZZ_TOOLS_DIR
# (where cargo-fuzz is installed when missing; default ~/.cache/ferrobase/tools).
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
shift $(($# > 0 ? 1 : 0))
malloc_limit_mb="${FUZZ_MALLOC_LIMIT_MB:-256}"
target_dir="${FUZZ_TARGET_DIR:-$HOME/.cache/ferrobase/fuzz-target}"
rss_limit_mb="${FUZZ_RSS_LIMIT_MB:-2048}"

if ! rustup toolchain list | grep -q '^nightly'; then
    echo "fuzz.sh: no nightly toolchain (cargo fuzz needs one): rustup toolchain install nightly" >&2
    exit 2
fi
# cargo-fuzz goes beside the instrumented build's cache (FUZZ_TOOLS_DIR, default
# ~/.cache/ferrobase/tools), not into the user's ~/.cargo nor the checkout: a fresh clone's CI run
# finds it there instead of compiling it again (about a minute).
tools_dir="${FUZZ_TOOLS_DIR:-$HOME/.cache/ferrobase/tools}"
export PATH="$tools_dir/bin:$PATH"
if ! command -v cargo-fuzz >/dev/null; then
    echo "fuzz.sh: installing cargo-fuzz into $tools_dir"
    cargo install cargo-fuzz --locked --root "$tools_dir"
fi

if [ $# -gt 0 ]; then
    targets=("$@")
else
    mapfile -t targets < <(cargo +nightly fuzz list)
fi

if [ -n "${FUZZ_TOTAL_SECONDS:-}" ]; then
    seconds=$((FUZZ_TOTAL_SECONDS / ${#targets[@]}))
    if [ "$seconds" -lt 5 ]; then
        seconds=5
    fi
fi

# The instrumented build (AddressSanitizer is cargo fuzz's default), before any run's clock.
for t in "${targets[@]}"; do
    cargo +nightly fuzz build --target-dir "$target_dir" "$t"
done

scratch="$(mktemp -d)"
trap 'rm -rf "$scratch"' EXIT
failed=()
summary=()
for t in "${targets[@]}"; do
    # Run into a scratch copy, so the checked-in seeds never churn.
    corpus="$scratch/corpus/$t"
    mkdir -p "$corpus" "$scratch/artifacts/$t"
    args=(-max_total_time="$seconds" -malloc_limit_mb="$malloc_limit_mb"
        -rss_limit_mb="$rss_limit_mb" -timeout=10 -print_final_stats=1
        -artifact_prefix="$scratch/artifacts/$t/")
    if [ "${FUZZ_NO_SEEDS:-0}" != 1 ]; then
        if [ -d "fuzz/corpus/$t" ]; then
            cp -r "fuzz/corpus/$t/." "$corpus/"
        fi
        if [ -f "fuzz/dict/$t.dict" ]; then
            args+=(-dict="fuzz/dict/$t.dict")
        fi
    fi
    log="$scratch/$t.log"
    echo "fuzz.sh: $t for ${seconds}s ($(ls "$corpus" | wc -l) seeds)"
    status=0
    cargo +nightly fuzz run --target-dir "$target_dir" "$t" "$corpus" -- "${args[@]}" >"$log" 2>&1 || status=$?
    stats="$(grep -E '^#[0-9]+' "$log" | tail -n 1 | grep -oE 'cov: [0-9]+ ft: [0-9]+ corp: [0-9]+' || true)"
    runs="$(grep -oE 'stat::number_of_executed_units: [0-9]+' "$log" | grep -oE '[0-9]+$' || echo '?')"
    if [ "$status" -ne 0 ]; then
        failed+=("$t")
        echo "fuzz.sh: $t FAILED (exit $status):" >&2
        grep -E 'ERROR:|panicked|SUMMARY|malloc\(|out-of-memory|leak' "$log" | head -n 20 >&2 || true
        tail -n 40 "$log" >&2
        for a in "$scratch/artifacts/$t"/*; do
            [ -f "$a" ] || continue
            mkdir -p fuzz/artifacts/"$t"
            cp "$a" fuzz/artifacts/"$t"/
            echo "fuzz.sh: input saved as fuzz/artifacts/$t/$(basename "$a") ($(wc -c <"$a") bytes), hex:" >&2
            od -An -tx1 -v "$a" | head -n 16 >&2
            echo "fuzz.sh: reproduce: cargo +nightly fuzz run $t fuzz/artifacts/$t/$(basename "$a");" \
                "once fixed, keep it in fuzz/regressions/$t/" >&2
        done
    fi
    summary+=("$(printf '%-22s %-8s %-40s %s runs' "$t" "$([ "$status" -eq 0 ] && echo ok || echo FAILED)" "$stats" "$runs")")
done

echo "fuzz.sh: ${seconds}s a target, malloc limit ${malloc_limit_mb} MB, rss limit ${rss_limit_mb} MB"
printf '  %s\n' "${summary[@]}"
if [ ${#failed[@]} -gt 0 ]; then
    echo "fuzz.sh: failed: ${failed[*]}" >&2
    exit 1
fi
