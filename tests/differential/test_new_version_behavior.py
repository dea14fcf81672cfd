"""NEW_VERSION_BEHAVIOR (HBASE-15968) in a short seeded random run: episodes of run.py's random
calls (puts, the deletes Thrift1 offers, increments, gets, scans with filters and time ranges,
flushes, major compactions) on tables whose families have NEW_VERSION_BEHAVIOR on Apache HBase
(created through the oracle's admin endpoint) and on ferrobase (through ferrobaseAdmin), compared
call by call; with `ttl`, half the puts carry their own TTL (the `_ttl` attribute, expired or
alive). The minimal cases are in cases.py (`nvb_*`); longer runs: `run.py --nvb [--ttl]`."""

import random

import pytest

import run

SEEDS = [(17, False), (18, False), (19, False), (20, False), (21, True), (22, True)]
CALLS = 150


@pytest.mark.parametrize("seed,ttl", SEEDS)
def test_random_calls_on_new_version_behavior_families_agree(seed, ttl, hbase, ferrobase, monkeypatch):
    # As run.py --nvb: no empty qualifier (HBase's tracker fails on some rows using it).
    monkeypatch.setattr(run, "QUALIFIERS", [q for q in run.QUALIFIERS if q])
    rng = random.Random("%d/%d" % (seed, 0))
    families = run.episode_families(rng, nvb=True)
    ops = [run.random_op(rng, skip_known=True, ttl=ttl) for _ in range(CALLS)]
    h, f, at = run.replay([hbase, ferrobase], "nvb_random_%d" % seed, families, ops)
    assert at is None, "ferrobase disagrees with Apache HBase 2.6.1 (seed %d):\n%s" % (
        seed, run.show(h, f, at))
