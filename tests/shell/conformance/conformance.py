"""The conformance files' format (README.md): parsing, the session script with its case
markers, and splitting a session's output back into the cases' outputs."""

import re

MARKER = re.compile(r"^Table conformance_(setup|case|teardown)_(\d+) does not exist$")


class Case:
    def __init__(self, statement, line):
        self.statement = [statement]
        self.line = line
        self.setup = []
        self.expected = []
        self.refused = None
        self.apache_refused = None
        self.connect_refused = None
        self.unchecked = None
        self.differs = None
        self.apache_differs = None
        self.not_recorded = None


def parse(path):
    """The file's cases and its teardown statements."""
    cases, teardown = [], []
    with open(path) as f:
        for n, raw in enumerate(f, 1):
            line = raw.rstrip("\n")
            if line.startswith("== "):
                cases.append(Case(line[3:], n))
            elif line.startswith(".. "):
                cases[-1].statement.append(line[3:])
            elif line.startswith("setup "):
                cases[-1].setup.append(line[6:])
            elif line.startswith("|"):
                cases[-1].expected.append(line[2:])
            elif line.startswith("refused: "):
                cases[-1].refused = line[9:]
            elif line.startswith("apache-refused: "):
                cases[-1].apache_refused = line[16:]
            elif line.startswith("connect-refused: "):
                cases[-1].connect_refused = line[17:]
            elif line.startswith("unchecked: "):
                cases[-1].unchecked = line[11:]
            elif line.startswith("differs: "):
                cases[-1].differs = line[9:]
            elif line.startswith("apache-differs: "):
                cases[-1].apache_differs = line[16:]
            elif line.startswith("not-recorded: "):
                cases[-1].not_recorded = line[14:]
            elif line.startswith("teardown "):
                teardown.append(line[9:])
            elif line.startswith("serve "):
                pass  # the options of a `ferrobase serve` (shell_conformance.rs)
            elif line.strip() and not line.startswith("#"):
                raise ValueError(f"{path}:{n}: not a conformance line: {line}")
    return cases, teardown


def script(cases, teardown, recording=False):
    """One session's statements: the teardown (a clean start on a shared server), then each
    case's setup and example behind a marker; examples marked not-recorded are left out when
    recording HBase's output."""
    out = list(teardown)
    for i, c in enumerate(cases):
        out.append(f"exists 'conformance_setup_{i}'")
        out.extend(c.setup)
        out.append(f"exists 'conformance_case_{i}'")
        if not (recording and c.not_recorded):
            out.extend(c.statement)
    out.append(f"exists 'conformance_teardown_{len(cases)}'")
    out.extend(teardown)
    return "\n".join(out) + "\n"


def split(output):
    """The output of each case's example, by case index."""
    chunks, current, skip = {}, None, False
    for line in output.splitlines():
        m = MARKER.match(line)
        if m:
            current = int(m.group(2)) if m.group(1) == "case" else None
            if current is not None:
                chunks[current] = []
            skip = True
            continue
        if skip and (line.startswith("Took ") or line == "=> false"):
            continue
        skip = False
        if current is not None:
            chunks[current].append(line)
    return chunks
