"""Shims that let happybase 1.3.0's own tests/test_api.py run unmodified under pytest.

- The shipped file uses ``assert_raises`` (from nose) without importing it: provide it as a
  builtin backed by ``pytest.raises``.
- It passes ``HAPPYBASE_PORT`` from the environment as a string: convert the port to int.
- It has no switch for the protocol: ``HAPPYBASE_PROTOCOL`` (binary or compact) selects it.
"""

import builtins
import os

import pytest

import happybase
import happybase.connection

builtins.assert_raises = pytest.raises

_original_init = happybase.connection.Connection.__init__


def _init(self, host='localhost', port=9090, *args, **kwargs):
    if isinstance(port, str):
        port = int(port)
    if port is None:
        port = int(os.environ.get('HAPPYBASE_PORT', '9090'))
    if host is None:
        host = os.environ.get('HAPPYBASE_HOST', 'localhost')
    protocol = os.environ.get('HAPPYBASE_PROTOCOL')
    if protocol and 'protocol' not in kwargs:
        kwargs['protocol'] = protocol
    transport = os.environ.get('HAPPYBASE_TRANSPORT')
    if transport and 'transport' not in kwargs:
        kwargs['transport'] = transport
    _original_init(self, host, port, *args, **kwargs)


happybase.connection.Connection.__init__ = _init
happybase.Connection.__init__ = _init


# happybase's counter_get is an increment by 0, and HBase 2.x writes an increment at
# max(old timestamp + 1, now) (HRegion.reckonDelta): three counter calls within one millisecond
# put the counter's newest version ahead of the clock, and test_atomic_counters' following
# counter_set (a put at now) lands below it, hidden. Apache HBase fails the test that way when its
# calls are that fast (seen with a warm JVM), so against it the test is a race. ferrobase replaces a
# same-millisecond counter (a documented difference), so against ferrobase it must pass.
TIMING_RACES = {"test_api.py::test_atomic_counters"}


def pytest_collection_modifyitems(config, items):
    if os.environ.get("HAPPYBASE_SERVER") != "apache-hbase":
        return
    for item in items:
        if item.nodeid in TIMING_RACES:
            item.add_marker(pytest.mark.xfail(
                strict=False, reason="HBase's increment timestamps race the clock (conftest.py)"))
