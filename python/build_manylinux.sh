#!/usr/bin/env bash
# The wheel for PyPI (issue 28): ferrobase's `dist` binary linked against glibc 2.17, so the wheel
# installs on any manylinux2014 x86_64 system (CentOS 7 and newer; pip 19.3+). maturin's --zig links
# through zig's cc, which brings glibc 2.17's symbol versions and compiles the C parts (ring, zstd,
# mimalloc) against them; no Docker image, no sysroot. The tools (maturin, ziglang, auditwheel, twine) are
# pip-installed into a venv under target/ the first time. Writes
#   target/wheels/ferrobase-VERSION-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
# then checks it: `auditwheel show` must call it manylinux_2_17_x86_64, and the binary inside may
# ask for no glibc symbol newer than 2.17.
#
#   bash python/build_manylinux.sh          build and check (the dist profile from scratch: see
#                                           python/README.md "Publishing" for the time it takes)
#   bash python/build_manylinux.sh --test   also install it into a fresh venv and run the example
#                                           suite on it (python/tests/run_wheel_test.sh)
#
# scripts/test.sh runs it (with --test) only under FERROBASE_TEST_MANYLINUX=1: it compiles the whole
# workspace once more with fat LTO, far more than CI's budget for a check. The cargo output goes to
# target/x86_64-unknown-linux-gnu/dist, apart from the host builds.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
tools=${FERROBASE_MANYLINUX_TOOLS:-$root/target/py-tools-manylinux}
out=$root/target/wheels
pins=(maturin==1.16.0 ziglang==0.17.1 auditwheel==6.8.2 twine==7.0.0)
pip_quiet=(--quiet --disable-pip-version-check)

test=0
case "${1:-}" in
  --test) test=1 ;;
  "") ;;
  *) echo "usage: $0 [--test]" >&2; exit 2 ;;
esac

stamp=$tools/.pins
if [ "$(cat "$stamp" 2>/dev/null)" != "${pins[*]}" ]; then
  rm -rf "$tools"
  python3 -m venv "$tools"
  "$tools/bin/pip" install "${pip_quiet[@]}" "${pins[@]}"
  echo "${pins[*]}" > "$stamp"
fi
# maturin finds zig as `python -m ziglang` of the interpreter first on PATH.
export PATH=$tools/bin:$PATH

version=$(sed -n 's/^version = "\(.*\)"/\1/p' Cargo.toml | head -1)
wheel=$out/ferrobase-$version-py3-none-manylinux2014_x86_64.manylinux_2_17_x86_64.whl
rm -f "$wheel"
start=$(date +%s)
(cd python && maturin build --quiet --zig --target x86_64-unknown-linux-gnu \
  --compatibility manylinux2014 --profile dist --out "$out")
echo "== built $(basename "$wheel") ($(du -h "$wheel" | cut -f1)) in $(( $(date +%s) - start )) s"

# auditwheel: the wheel's own judgement of its platform tag.
report=$(auditwheel show "$wheel")
echo "$report"
echo "$report" | tr -s ' \n' '  ' | grep -q 'is consistent with the following platform tag: "manylinux_2_17_x86_64"' \
  || { echo "build_manylinux.sh: auditwheel does not call the wheel manylinux_2_17_x86_64" >&2; exit 1; }

# And the binary's own symbol versions: none past GLIBC_2.17.
scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
python3 -m zipfile -e "$wheel" "$scratch"
bin=$(ls "$scratch"/ferrobase-"$version".data/scripts/ferrobase)
newest=$(objdump -T "$bin" | grep -o 'GLIBC_[0-9.]*' | sort -Vu | tail -1)
echo "== newest glibc symbol version the binary needs: $newest"
[ "$(printf '%s\nGLIBC_2.17\n' "$newest" | sort -V | tail -1)" = GLIBC_2.17 ] \
  || { echo "build_manylinux.sh: the binary needs $newest (more than GLIBC_2.17)" >&2; exit 1; }

# PyPI's own checks of the metadata and README rendering.
twine check --strict "$wheel"

if [ "$test" = 1 ]; then
  FERROBASE_WHEEL=$wheel bash python/tests/run_wheel_test.sh
fi
