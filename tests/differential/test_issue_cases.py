"""Issue 31's rules, issue 17's listed divergences and issue 41's (cases_wider.py), each a
minimal case run on Apache HBase and on ferrobase through happybase, compared call by call
(cells, values and timestamps).

- ``test_hbase_answers_as_recorded``: the live oracle still gives the answers kept in
  recorded/hbase-2.6.1.json (which Rust tests can hold without HBase); rerun with ``--record``
  after changing a case.
- ``test_ferrobase_agrees_with_hbase``: the two backends agree. Known divergences are strict
  xfails: when ferrobase is fixed the test XPASSes and fails, asking for the mark's removal.
"""

import json
import os

import pytest

import cases
import cases_wider
from harness import Session, first_divergence, show

CASES = cases.CASES + cases_wider.CASES
KNOWN = {**cases.KNOWN, **cases_wider.KNOWN}
RECORDED = os.path.join(os.path.dirname(os.path.abspath(__file__)), "recorded", "hbase-2.6.1.json")
_hbase_runs = {}


def run(case, backend):
    s = Session(backend, "diff_" + case.__name__[:60])
    try:
        case(s)
    finally:
        s.drop()
    return s.transcript


def hbase_transcript(case, hbase):
    if case.__name__ not in _hbase_runs:
        _hbase_runs[case.__name__] = run(case, hbase)
    return _hbase_runs[case.__name__]


def as_json(transcript):
    return [{"call": c, "answer": a} for c, a in transcript]


@pytest.fixture(scope="module")
def recorded(request):
    try:
        with open(RECORDED) as f:
            data = json.load(f)
    except FileNotFoundError:
        data = {"cases": {}}
    fresh = {}
    yield data["cases"], fresh
    if request.config.getoption("--record") and fresh:
        data = {
            "hbase": "2.6.1",
            "about": "Apache HBase's answers to tests/differential/cases.py through happybase 1.3.0 "
                     "(Thrift1, binary protocol, buffered transport). Strings are bytes, one character "
                     "per byte (latin-1); 'now' is a timestamp the server chose; error messages are "
                     "informative, only error types are compared. Rewrite with: python3 -m pytest "
                     "tests/differential --record",
            "cases": dict(sorted({**data["cases"], **fresh}.items())),
        }
        with open(RECORDED, "w") as f:
            f.write(_dump(data))


def _dump(data):
    """JSON with one line per call, so that diffs of the recording read call by call."""
    out = ['{\n "hbase": %s,\n "about": %s,\n "cases": {' % (json.dumps(data["hbase"]), json.dumps(data["about"]))]
    names = list(data["cases"])
    for i, name in enumerate(names):
        calls = ",\n".join("   " + json.dumps(x, ensure_ascii=True) for x in data["cases"][name])
        out.append('  %s: [\n%s\n  ]%s' % (json.dumps(name), calls, "," if i + 1 < len(names) else ""))
    out.append(" }\n}\n")
    return "\n".join(out)


def _param(case):
    reason = KNOWN.get(case.__name__)
    marks = [pytest.mark.xfail(strict=True, reason=reason + " (known divergence: if this now passes, "
                               "remove the case from KNOWN in cases.py or cases_wider.py)")] if reason else []
    return pytest.param(case, id=case.__name__, marks=marks)


@pytest.mark.parametrize("case", CASES, ids=[c.__name__ for c in CASES])
def test_hbase_answers_as_recorded(case, hbase, recorded, request):
    kept, fresh = recorded
    live = as_json(hbase_transcript(case, hbase))
    if request.config.getoption("--record"):
        fresh[case.__name__] = live
        return
    assert case.__name__ in kept, "no recorded answer for %s: run with --record" % case.__name__
    strip = [dict(x, answer=_strip(x["answer"])) for x in live]
    want = [dict(x, answer=_strip(x["answer"])) for x in kept[case.__name__]]
    assert strip == want, "HBase's live answers differ from %s; if the case changed, rerun with --record" % RECORDED


def _strip(answer):
    if isinstance(answer, dict) and "error" in answer:
        return {k: v for k, v in answer.items() if k != "message"}
    return answer


@pytest.mark.parametrize("case", [_param(c) for c in CASES])
def test_ferrobase_agrees_with_hbase(case, hbase, ferrobase):
    h = hbase_transcript(case, hbase)
    f = run(case, ferrobase)
    at = first_divergence(h, f)
    assert at is None, "ferrobase disagrees with Apache HBase 2.6.1:\n" + show(h, f, at)
