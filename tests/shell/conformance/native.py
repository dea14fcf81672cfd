"""The conformance suite through HBase's own shell (hbase-shell 2.4.17, scripts/hbase-shell.sh)
against a server that speaks HBase's native RPC (`ferrobase serve --rpc-port`), found through
RpcConnectionRegistry: every example must print what HBase's shell printed against Apache HBase
(the files' `|` lines), or be one of the cases listed in NATIVE below with the reason.

    python3 tests/shell/conformance/native.py FERROBASE_BIN [FILE...]

Each session runs against its own `ferrobase serve --rpc-port 0` on a fresh data directory.

The files run in two shell sessions at once (a JVM start each), each file after its own
teardown: ddl.txt alone, since its `disable_all`-style examples read their (y/n) answer from
standard input, which HBase's shell has read ahead to its end only when the session is that
small (as when the files were recorded, one session per file); the rest together. Output is
compared as shell_conformance.rs compares it (no `Took` lines, timestamps as `timestamp=T`, runs
of spaces as one). How a case passes:

- same:      HBase's output, line for line;
- refused:   the file's `refused:` case (a feature ferrobase does not have) fails with an error
             naming its text, or a NATIVE refusal fails with an error naming the NATIVE text;
- unchecked: the file's `unchecked:` case succeeds (hosts, times, versions in its output);
- differs:   the file's `differs:` case, or a NATIVE difference, succeeds with other output;
- not run:   the file's `not-recorded:` cases (HBase's client retries for minutes there too).
"""

import os
import re
import subprocess
import sys
import tempfile
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.dirname(__file__))
import conformance  # noqa: E402
from record import recorded  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(HERE)))

# Files run in a session of their own (see above).
ALONE = {"ddl.txt"}

# Seconds for one session.
TIMEOUT = 300

# Cases whose output through the native door differs from Apache HBase's, by (file, the
# statement's first line): ("refused", TEXT) fails with an error naming TEXT; ("differs",
# REASON) succeeds with other output.
NATIVE = {
    # HBase 2.x keeps namespaces in a table of their own; ferrobase keeps them in its catalog
    # (as HBase 3 does in hbase:meta), and the native door serves no hbase:namespace table.
    ("dml.txt", "scan 'hbase:namespace'"): ("refused", "Unknown table hbase:namespace"),
    # ferrobase's own shell refuses every namespace property with its words; HBase's shell
    # sends the property, and the door names it.
    ("namespace.txt", "alter_namespace 'ns1', {METHOD => 'set', 'PROPERTY_NAME' => 'PROPERTY_VALUE'}"): (
        "refused",
        "namespace property PROPERTY_NAME is not supported by ferrobase",
    ),
    # No replication: the cluster status carries no replication loads, so HBase's shell prints
    # the version (ferrobase's) and the server count, and no SOURCE/SINK lines.
    ("general.txt", "status 'replication'"): ("differs", "no replication loads"),
    ("general.txt", "status 'replication', 'source'"): ("differs", "no replication loads"),
    ("general.txt", "status 'replication', 'sink'"): ("differs", "no replication loads"),
}

TIMESTAMP = re.compile(r"timestamp=(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?|\d+)")
SPACES = re.compile(r" {2,}")
# irb's line number in a syntax error counts the session's lines before it.
IRB_LINE = re.compile(r"\(hbase\):\d+:")


def normalized(lines):
    out = [
        SPACES.sub(" ", IRB_LINE.sub("(hbase):N:", TIMESTAMP.sub("timestamp=T", l.rstrip())))
        for l in lines
        if not l.startswith("Took ")
    ]
    while out and not out[-1]:
        out.pop()
    return out


def session(suites):
    """One session's statements: per file its teardown then its cases, behind markers
    numbered across the files."""
    out, n = [], 0
    for _, cases, teardown in suites:
        out.extend(teardown)
        for c in cases:
            out.append(f"exists 'conformance_setup_{n}'")
            out.extend(c.setup)
            out.append(f"exists 'conformance_case_{n}'")
            if not c.not_recorded:
                out.extend(c.statement)
            n += 1
        out.append(f"exists 'conformance_teardown_{n}'")
        out.extend(teardown)
    return "\n".join(out) + "\n"


def check(name, case, got):
    """(outcome, None) or (None, why it fails)."""
    if case.not_recorded:
        return "skipped", None
    failed = any(l.startswith("ERROR: ") for l in got)
    joined = "\n".join(got).lower()
    # HBase's output first: a feature ferrobase's own shell refuses may work through HBase's.
    if normalized(got) == normalized(case.expected):
        return "same", None
    native = NATIVE.get((name, case.statement[0]))
    if native and native[0] == "refused":
        if failed and native[1].lower() in joined:
            return "refused", None
        return None, f"expected a refusal naming {native[1]!r}"
    if native:
        return ("differs", None) if not failed else (None, "expected success")
    if case.refused:
        if failed and case.refused.lower() in joined:
            return "refused", None
        return None, f"expected a refusal naming {case.refused!r}"
    if case.unchecked or case.differs or native:
        if failed:
            return None, "expected success"
        return ("unchecked" if case.unchecked else "differs"), None
    return None, "output differs from HBase's"


class Server:
    """`ferrobase serve --port 0 --rpc-port 0` on a fresh data directory, stopped on exit."""

    def __init__(self, binary):
        self.dir = tempfile.TemporaryDirectory()
        self.log = open(os.path.join(self.dir.name, "stderr"), "w")
        self.proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--rpc-port", "0", "--data", self.dir.name + "/data"],
            stdout=subprocess.PIPE,
            stderr=self.log,
            text=True,
        )
        self.port = None
        for line in self.proc.stdout:
            m = re.search(r"native RPC on [0-9.]+:(\d+)", line)
            if m:
                self.port = int(m.group(1))
                break
        if self.port is None:
            raise RuntimeError(f"{binary} serve printed no native RPC port")

    def __enter__(self):
        return self

    def __exit__(self, *_):
        self.proc.terminate()
        self.proc.wait()
        self.log.close()
        self.dir.cleanup()


def run_session(binary, suites):
    """HBase's shell's output for one session over `suites`, against a server of its own."""
    with Server(binary) as server:
        return shell(f"127.0.0.1:{server.port}", suites)


def shell(bootstrap, suites):
    try:
        return subprocess.run(
            ["bash", "scripts/hbase-shell.sh", "--bootstrap", bootstrap],
            input=session(suites),
            capture_output=True,
            text=True,
            cwd=ROOT,
            timeout=TIMEOUT,
        ).stdout
    except subprocess.TimeoutExpired as e:
        print(f"native: HBase's shell did not finish in {TIMEOUT} s", file=sys.stderr)
        return e.stdout.decode() if isinstance(e.stdout, bytes) else (e.stdout or "")


def main():
    binary, files = sys.argv[1], sys.argv[2:]
    files = files or sorted(
        os.path.join(HERE, f) for f in os.listdir(HERE) if f.endswith(".txt")
    )
    parsed = [(os.path.basename(f),) + conformance.parse(f) for f in files]
    groups = [[s for s in parsed if s[0] in ALONE], [s for s in parsed if s[0] not in ALONE]]
    groups = [g for g in groups if g]
    with ThreadPoolExecutor(len(groups)) as pool:
        outputs = list(pool.map(lambda g: run_session(binary, g), groups))
    if os.environ.get("NATIVE_CONFORMANCE_OUT"):
        with open(os.environ["NATIVE_CONFORMANCE_OUT"], "w") as f:
            f.write("\n".join(outputs))
    counts, failures, others, total = {}, [], [], 0
    for suites, stdout in zip(groups, outputs):
        chunks = conformance.split(stdout)
        n = 0
        for name, cases, _ in suites:
            for case in cases:
                got = recorded(chunks.get(n, ["(no output)"]))
                n += 1
                outcome, why = check(name, case, got)
                if outcome:
                    counts[outcome] = counts.get(outcome, 0) + 1
                    if outcome != "same":
                        others.append(f"  {outcome}: {name}:{case.line}: {case.statement[0]}")
                    continue
                failures.append(
                    f"{name}:{case.line}: {' '.join(case.statement)}\n  {why}\n  expected:\n"
                    + "".join(f"    {l}\n" for l in normalized(case.expected))
                    + "  got:\n"
                    + "".join(f"    {l}\n" for l in normalized(got))
                )
        total += n
    print(
        f"native conformance (HBase's shell over RpcConnectionRegistry): {total} examples: "
        f"{counts.get('same', 0)} print HBase's output, {counts.get('refused', 0)} are refused "
        f"clearly, {counts.get('unchecked', 0)} succeed unchecked, {counts.get('differs', 0)} "
        f"succeed with a documented difference, {counts.get('skipped', 0)} not run "
        f"(not-recorded: they hang on HBase too), {len(failures)} fail"
    )
    if os.environ.get("NATIVE_CONFORMANCE_VERBOSE"):
        print("\n".join(others))
    for f in failures:
        print(f, file=sys.stderr)
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
