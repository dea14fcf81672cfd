#!/usr/bin/env python3
"""Runs happybase against `ferrobase serve`, in every transport/protocol combination.

For each combination a fresh server is started on a free port with an empty data directory:
happybase 1.3.0's own tests/test_api.py (from its PyPI sdist, unmodified; see conftest.py for the
shims) and our own test_gateway.py run against it, then the server is stopped with SIGTERM and
must exit cleanly.

usage: run.py PATH_TO_FERROBASE_BINARY
"""

import os
import shutil
import signal
import subprocess
import sys
import tarfile
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
COMBINATIONS = [
    ("buffered", "binary"),
    ("framed", "binary"),
    ("buffered", "compact"),
    ("framed", "compact"),
]


def fetch_happybase_suite(dest):
    """Extracts tests/test_api.py from the happybase 1.3.0 sdist into dest."""
    dl = tempfile.mkdtemp()
    subprocess.run(
        [sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:",
         "happybase==1.3.0", "-d", dl, "-q"],
        check=True,
    )
    sdist = [f for f in os.listdir(dl) if f.endswith(".tar.gz")][0]
    with tarfile.open(os.path.join(dl, sdist)) as tar:
        member = tar.getmember("happybase-1.3.0/tests/test_api.py")
        with tar.extractfile(member) as src, open(os.path.join(dest, "test_api.py"), "wb") as out:
            out.write(src.read())
    shutil.rmtree(dl)


def start_server(binary, data_dir):
    proc = subprocess.Popen(
        [binary, "serve", "--data", data_dir, "--port", "0"],
        stdout=subprocess.PIPE,
        text=True,
    )
    line = proc.stdout.readline()
    if "serving" not in line:
        proc.kill()
        raise RuntimeError("server did not start: %r" % line)
    port = int(line.split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])
    return proc, port


def main():
    binary = os.path.abspath(sys.argv[1])
    work = tempfile.mkdtemp(prefix="ferrobase-happybase-")
    shutil.copy(os.path.join(HERE, "conftest.py"), work)
    shutil.copy(os.path.join(HERE, "test_gateway.py"), work)
    fetch_happybase_suite(work)
    failures = 0
    for transport, protocol in COMBINATIONS:
        data = tempfile.mkdtemp(prefix="data-", dir=work)
        proc, port = start_server(binary, data)
        env = dict(os.environ, HAPPYBASE_HOST="127.0.0.1", HAPPYBASE_PORT=str(port),
                   HAPPYBASE_TRANSPORT=transport, HAPPYBASE_PROTOCOL=protocol)
        print("== happybase suite: transport=%s protocol=%s port=%d" % (transport, protocol, port), flush=True)
        result = subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_api.py", "test_gateway.py"],
            cwd=work, env=env,
        )
        proc.send_signal(signal.SIGTERM)
        try:
            code = proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            proc.kill()
            code = "timeout"
        if result.returncode != 0:
            failures += 1
        if code != 0:
            print("server did not stop cleanly: exit %s" % code)
            failures += 1
    shutil.rmtree(work, ignore_errors=True)
    if failures:
        print("happybase suites: %d failure(s)" % failures)
        sys.exit(1)
    print("happybase suites: all combinations passed")


if __name__ == "__main__":
    main()
