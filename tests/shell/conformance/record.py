"""Runs every conformance file through Apache HBase's own shell (scripts/hbase-shell.sh, against
the oracle of scripts/hbase-oracle.sh) and writes its output into the files' `|` lines.

    python3 tests/shell/conformance/record.py [FILE...]
"""

import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(__file__))
import conformance  # noqa: E402

# irb echoes each statement behind its prompt when its input is not a terminal.
ECHO = re.compile(r"^hbase:\d+:\d+[>*'\"] ")

# A Java stack trace's frames (`\tat ...`, `\t... 13 more`): HBase's error line says enough.
JAVA_FRAME = re.compile(r"^\t(at |\.\.\. \d+ more)")

# Seconds for one file's session.
TIMEOUT = 600

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))


def recorded(lines):
    """HBase's lines as stored: no `Took` lines, no trailing blank lines."""
    lines = [
        l.rstrip()
        for l in lines
        if not l.startswith("Took ") and not ECHO.match(l) and not JAVA_FRAME.match(l)
    ]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def record(path):
    cases, teardown = conformance.parse(path)
    try:
        stdout = subprocess.run(
            ["bash", "scripts/hbase-shell.sh"],
            input=conformance.script(cases, teardown, recording=True),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=TIMEOUT,
        ).stdout
    except subprocess.TimeoutExpired as e:
        # What HBase printed before: the case that hung records nothing.
        print(f"{path}: HBase's shell did not finish in {TIMEOUT} s", file=sys.stderr)
        stdout = e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")
    chunks = conformance.split(stdout)
    with open(path) as f:
        lines = [l for l in f.read().splitlines() if not l.startswith("|")]
    starts = [n for n, l in enumerate(lines) if l.startswith("== ")] + [len(lines)]
    final = lines[: starts[0]]
    for case in range(len(starts) - 1):
        block = lines[starts[case] : starts[case + 1]]
        last = max(n for n, l in enumerate(block) if l.strip() and not l.startswith("#"))
        got = [] if cases[case].not_recorded else recorded(chunks.get(case, ["(no output recorded)"]))
        final += block[: last + 1] + [("| " + l) if l else "|" for l in got] + block[last + 1 :]
    with open(path, "w") as f:
        f.write("\n".join(final) + "\n")
    print(f"{os.path.relpath(path, ROOT)}: {len(cases)} cases, {len(chunks)} recorded")


if __name__ == "__main__":
    files = sys.argv[1:] or sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".txt")
    )
    for f in files:
        record(f)
