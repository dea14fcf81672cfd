"""ferrobase for Python: a real HBase-compatible server (HBase's Thrift1 API) for test suites.

The wheel puts the ``ferrobase`` binary on PATH; this package starts and stops it:

- `Server`: a context manager around one ``ferrobase serve`` process on a free port with a
  temporary data directory; ``server.connection()`` is a ``happybase.Connection`` to it.
- The pytest plugin (``ferrobase.pytest_plugin``, loaded by pytest through its ``pytest11``
  entry point): the fixtures ``ferrobase_server`` (one server per test session, and per
  pytest-xdist worker) and ``ferrobase_connection`` (a connection per test; tables the test
  created are dropped after it).
"""

from .server import Server, ServerError, find_binary

try:
    from importlib.metadata import PackageNotFoundError, version as _version

    __version__ = _version("ferrobase")
except PackageNotFoundError:  # imported from a checkout, not installed
    __version__ = "0+unknown"

__all__ = ["Server", "ServerError", "find_binary", "__version__"]
