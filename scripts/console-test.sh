#!/usr/bin/env bash
# The web console (`ferrobase serve --http-port`) in a real browser: headless Chromium from
# Debian (installed here when /usr/bin/chromium is missing) driven by Playwright from PyPI in a
# venv under target/ (created once, then reused), pointed at /usr/bin/chromium: no browser is
# ever downloaded (PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1). tests/console/test_console.py opens the
# console, a table and its regions, the heat map after a skewed workload (the hot range and its
# hover), the slow-operation log and the log-level form; screenshots in target/console-test/.
#
#   scripts/console-test.sh            FERROBASE_BIN (default target/debug/ferrobase)
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS
export FERROBASE_BIN=${FERROBASE_BIN:-target/debug/ferrobase}
VENV=target/console-venv
if [[ ! -x /usr/bin/chromium ]]; then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
if ! "$VENV/bin/python" -c "import playwright, happybase, pytest" 2>/dev/null; then
  python3 -m venv "$VENV"
  PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 "$VENV/bin/pip" install --quiet --disable-pip-version-check \
    playwright==1.65.2 happybase==1.3.0 pytest
fi
[[ -x $FERROBASE_BIN ]] || cargo build -p ferrobase
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1 ARTIFACTS=target/console-test
"$VENV/bin/python" -m pytest -q -p no:cacheprovider tests/console
echo "console-test: passed in $((SECONDS - started)) s (screenshots in $ARTIFACTS)"
