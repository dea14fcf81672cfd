"""Fixtures of the differential suite: a fresh `ferrobase serve` for the session and the running
Apache HBase oracle (scripts/hbase-oracle.sh start). `--record` rewrites HBase's recorded
answers (recorded/hbase-2.6.1.json) from the live oracle."""

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from backends import Ferrobase, HBase, OracleNotRunning  # noqa: E402


def pytest_addoption(parser):
    parser.addoption("--record", action="store_true",
                     help="rewrite recorded/hbase-2.6.1.json from the live oracle")


@pytest.fixture(scope="session")
def hbase():
    try:
        return HBase()
    except OracleNotRunning as e:
        pytest.fail(str(e), pytrace=False)


@pytest.fixture(scope="session")
def ferrobase():
    fb = Ferrobase()
    yield fb
    code = fb.stop()
    assert code == 0, "ferrobase serve did not stop cleanly: exit %s" % code
