"""Fixture factories, in the style of pytest-redis and pytest-postgresql: for a server with other
options, or a connection with other settings, beside the plugin's own fixtures.

In a ``conftest.py``::

    from ferrobase import factories

    ferrobase_small = factories.ferrobase_server(extra_args=["--max-connections", "10"])
    framed_connection = factories.ferrobase_connection("ferrobase_small", transport="framed")
"""

import pytest

from .server import Server

__all__ = ["ferrobase_server", "ferrobase_connection"]


def _option(config, name):
    """A plugin setting: the command-line option if given, else the ini value."""
    value = config.getoption(name, default=None)
    if value in (None, [], ""):
        value = config.getini(name)
    return value


def ferrobase_server(scope="session", data_dir=None, extra_args=(), binary=None):
    """A fixture that starts a `Server` for its scope (default: the test session) and stops it.

    ``extra_args`` come after those of ``--ferrobase-arg`` / the ``ferrobase_args`` ini option;
    ``binary`` overrides ``--ferrobase-bin`` / ``ferrobase_bin``. Under pytest-xdist each worker
    is its own process, so a session-scoped server is one per worker.
    """

    @pytest.fixture(scope=scope)
    def server_fixture(request):
        config = request.config
        args = list(_option(config, "ferrobase_args") or []) + list(extra_args)
        server = Server(data_dir=data_dir, extra_args=args,
                        binary=binary or _option(config, "ferrobase_bin") or None)
        with server:
            yield server
        if server.returncode != 0:
            pytest.fail("ferrobase serve did not stop cleanly: exit %s" % server.returncode,
                        pytrace=False)

    return server_fixture


def ferrobase_connection(server_fixture_name="ferrobase_server", **connection_kwargs):
    """A function-scoped fixture: a ``happybase.Connection`` to the server fixture named, closed
    after the test, and the tables the test created dropped (disabled, then deleted).

    Tables that existed before the test are left as the test left them. ``connection_kwargs`` go
    to ``happybase.Connection`` (transport, protocol, table_prefix, ...).
    """

    @pytest.fixture
    def connection_fixture(request):
        server = request.getfixturevalue(server_fixture_name)
        admin = server.connection()
        try:
            before = set(admin.tables())
            connection = server.connection(**connection_kwargs)
            try:
                yield connection
            finally:
                connection.close()
            for name in sorted(set(admin.tables()) - before):
                admin.delete_table(name, disable=True)
        finally:
            admin.close()

    return connection_fixture
