"""A pytest plugin for run_wheel_test.sh (``-p report_servers``): appends, for every test, the
xdist worker, process and server it ran on to the JSON-lines file $FERROBASE_SERVER_REPORT, so the
script can show that each pytest-xdist worker had its own ferrobase server."""

import json
import os

import pytest


@pytest.fixture(autouse=True)
def _report_server(request):
    path = os.environ.get("FERROBASE_SERVER_REPORT")
    if path:
        server = request.getfixturevalue("ferrobase_server")
        record = {"worker": os.environ.get("PYTEST_XDIST_WORKER", "main"), "pid": os.getpid(),
                  "server_pid": server.pid, "port": server.port, "test": request.node.name}
        with open(path, "a") as f:
            f.write(json.dumps(record) + "\n")
    yield
