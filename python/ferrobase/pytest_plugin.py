"""The pytest plugin (entry point ``pytest11``): the ``ferrobase_server`` and
``ferrobase_connection`` fixtures, and the options that configure them.

- ``ferrobase_server`` (session scope): a `ferrobase.Server` on a free port with a temporary data
  directory; with pytest-xdist, one per worker process. ``.host``, ``.port``, ``.connection()``.
- ``ferrobase_connection`` (function scope): a ``happybase.Connection`` to it; tables the test
  created are disabled and deleted after it.

Options (command line, or the ini file without the dashes): ``--ferrobase-bin PATH`` (default:
the binary the wheel installed, see `ferrobase.find_binary`) and ``--ferrobase-arg ARG``, repeated,
for more ``ferrobase serve`` options (ini ``ferrobase_args``, a list of arguments).
"""

from . import factories


def pytest_addoption(parser):
    group = parser.getgroup("ferrobase", "ferrobase server fixtures")
    group.addoption("--ferrobase-bin", dest="ferrobase_bin", default=None,
                    help="the ferrobase binary (default: the one the ferrobase wheel installed)")
    group.addoption("--ferrobase-arg", dest="ferrobase_args", action="append", default=[],
                    help="one more `ferrobase serve` argument (repeat for more)")
    parser.addini("ferrobase_bin", "the ferrobase binary", default="")
    parser.addini("ferrobase_args", "more `ferrobase serve` arguments", type="args", default=[])


ferrobase_server = factories.ferrobase_server()
ferrobase_connection = factories.ferrobase_connection("ferrobase_server")
