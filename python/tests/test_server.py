"""ferrobase.Server against the installed binary: start, readiness, stop, data directories,
errors. Run by run_wheel_test.sh in the virtual environment the wheel was installed into."""

import os
import signal
import sysconfig

import happybase
import pytest

import ferrobase


def test_the_wheel_installed_the_binary_beside_python():
    path = ferrobase.find_binary()
    assert os.path.dirname(path) == sysconfig.get_path("scripts")


def test_context_manager_serves_and_stops_cleanly():
    with ferrobase.Server() as server:
        assert server.port > 0
        data_dir = server._temp_dir
        assert os.path.isdir(data_dir)
        pid = server.pid
        connection = server.connection()
        connection.create_table("t", {"cf": dict()})
        connection.table("t").put(b"r", {b"cf:q": b"v"})
        assert connection.table("t").row(b"r") == {b"cf:q": b"v"}
        connection.close()
    assert server.returncode == 0  # SIGTERM: a clean shutdown
    assert server.pid is None
    assert not os.path.exists(data_dir)  # the temporary data directory is removed
    with pytest.raises(ProcessLookupError):
        os.kill(pid, 0)


def test_a_given_data_dir_is_kept_and_reopened(tmp_path):
    data = str(tmp_path / "data")
    with ferrobase.Server(data_dir=data) as server:
        c = server.connection()
        c.create_table("kept", {"cf": dict()})
        c.table("kept").put(b"r", {b"cf:q": b"v"})
        c.close()
    assert os.path.isdir(data)
    with ferrobase.Server(data_dir=data) as server:
        c = server.connection()
        assert c.table("kept").row(b"r") == {b"cf:q": b"v"}
        c.close()


def test_two_servers_at_once_get_their_own_ports():
    with ferrobase.Server() as a, ferrobase.Server() as b:
        assert a.port != b.port
        ca, cb = a.connection(), b.connection()
        ca.create_table("only_in_a", {"cf": dict()})
        assert cb.tables() == []
        ca.close()
        cb.close()


def test_extra_args_reach_the_server():
    with ferrobase.Server(extra_args=["--bind", "127.0.0.1", "--max-connections", "5"]) as server:
        assert server.host == "127.0.0.1"
        c = happybase.Connection(server.host, server.port, transport="framed", protocol="compact")
        assert c.tables() == []
        c.close()


def test_a_bad_option_fails_start_with_the_servers_message():
    with pytest.raises(ferrobase.ServerError, match="unknown option --no-such-option"):
        ferrobase.Server(extra_args=["--no-such-option"]).start()


def test_a_missing_binary_is_reported(tmp_path):
    with pytest.raises(ferrobase.ServerError, match="not found"):
        ferrobase.Server(binary=str(tmp_path / "no-ferrobase"))


def test_a_server_that_ignores_sigterm_is_killed_after_the_timeout():
    server = ferrobase.Server(stop_timeout=0.5).start()
    os.kill(server.pid, signal.SIGSTOP)  # a stopped process cannot act on SIGTERM
    server.stop()
    assert server.returncode == -signal.SIGKILL
