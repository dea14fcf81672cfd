"""`Server`: one `ferrobase serve` process, started and stopped around a block of code.

The process is started with ``--port 0`` (the kernel picks a free port) and a data directory
(a new temporary one unless given); the address line it prints tells the port, and the server
counts as ready once a real Thrift call (``getTableNames``, binary protocol, buffered transport)
has been answered. Stopping sends SIGTERM, which lets in-flight calls finish and closes the engine
cleanly, and kills the process if it has not exited after ``stop_timeout`` seconds.
"""

import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sysconfig
import tempfile
import time

__all__ = ["Server", "ServerError", "find_binary"]

# What `ferrobase serve` prints once it listens (crates/ferrobase/src/serve.rs).
_ADDRESS_LINE = re.compile(r"serving the HBase Thrift API on (?P<host>\S+):(?P<port>\d+) ")


class ServerError(RuntimeError):
    """The server could not be found, did not start, or did not answer in time."""


def find_binary(binary=None):
    """Returns the path of the ``ferrobase`` binary to run.

    ``binary`` if given, else the ``FERROBASE_BIN`` environment variable (either must exist);
    otherwise the binary this package's wheel installed beside the running Python (found even
    when the virtual environment is not activated, so its ``bin`` is not on PATH), then the first
    ``ferrobase`` on PATH. Raises `ServerError` if there is none.
    """
    given = binary or os.environ.get("FERROBASE_BIN")
    if given:
        if os.path.isfile(given) and os.access(given, os.X_OK):
            return given
        raise ServerError("ferrobase binary %r not found or not executable" % given)
    scripts = sysconfig.get_path("scripts")
    for path in [scripts and os.path.join(scripts, "ferrobase"), shutil.which("ferrobase")]:
        if path and os.path.isfile(path) and os.access(path, os.X_OK):
            return path
    raise ServerError(
        "no ferrobase binary: install the ferrobase wheel (pip install ferrobase), "
        "or set FERROBASE_BIN, or pass binary="
    )


def _thrift_get_table_names(host, port, timeout):
    """Sends one ``getTableNames`` call and reads the reply's header; raises OSError on failure."""
    name = b"getTableNames"
    # Strict binary protocol: version | CALL, method name, sequence id, empty argument struct.
    call = struct.pack(">iI", -0x7FFEFFFF, len(name)) + name + struct.pack(">iB", 1, 0)
    with socket.create_connection((host, port), timeout=timeout) as sock:
        sock.sendall(call)
        header = b""
        want = 8 + len(name) + 4
        while len(header) < want:
            chunk = sock.recv(want - len(header))
            if not chunk:
                raise OSError("connection closed before a Thrift reply")
            header += chunk
    version, length = struct.unpack(">iI", header[:8])
    if version != -0x7FFEFFFE or header[8:8 + length] != name:  # version | REPLY
        raise OSError("not a Thrift reply to getTableNames: %r" % header)


class Server:
    """A ``ferrobase serve`` process for the length of a ``with`` block (or `start` to `stop`).

    ``data_dir``: the data directory; None (the default) makes a temporary one, removed when the
    server stops (a given directory is kept). ``port``: 0 (the default) lets the kernel pick a
    free port. ``extra_args``: more ``ferrobase serve`` options, such as ``("--bind", "::1")``
    or ``("--max-connections", "50")``. ``binary``: the ``ferrobase`` binary (see `find_binary`).
    ``start_timeout`` and ``stop_timeout`` are in seconds.

    After `start`: ``host`` and ``port`` say where it listens, ``pid`` is the process id.
    Not thread-safe: start and stop it from one thread; connections may come from any.

    >>> with Server() as server:                      # doctest: +SKIP
    ...     connection = server.connection()
    ...     connection.create_table("t", {"cf": {}})
    """

    def __init__(self, data_dir=None, port=0, extra_args=(), binary=None,
                 start_timeout=30.0, stop_timeout=10.0):
        self.binary = find_binary(binary)
        self.data_dir = data_dir
        self.requested_port = port
        self.extra_args = tuple(extra_args)
        self.start_timeout = start_timeout
        self.stop_timeout = stop_timeout
        self.host = None
        self.port = None
        self.returncode = None
        self._process = None
        self._temp_dir = None
        self._log_dir = None

    @property
    def pid(self):
        """The server's process id, or None when it is not running."""
        return self._process.pid if self._process else None

    @property
    def address(self):
        """``host:port`` (IPv6 hosts in brackets), the form HBase clients take (``ferrobase shell --connect`` takes ``thrift://`` before it)."""
        host = "[%s]" % self.host if ":" in self.host else self.host
        return "%s:%d" % (host, self.port)

    def start(self):
        """Starts the process and returns once it has answered a Thrift call (ServerError if not)."""
        if self._process is not None:
            raise ServerError("server already started")
        if self.data_dir is None:
            self._temp_dir = tempfile.mkdtemp(prefix="ferrobase-data-")
        data_dir = self.data_dir or self._temp_dir
        # Output goes to files, never pipes, so a long-running server can never block on them.
        self._log_dir = tempfile.mkdtemp(prefix="ferrobase-log-")
        stdout_path = os.path.join(self._log_dir, "stdout")
        stderr_path = os.path.join(self._log_dir, "stderr")
        args = [self.binary, "serve", "--port", str(self.requested_port), "--data", data_dir]
        args += list(self.extra_args)
        with open(stdout_path, "wb") as out, open(stderr_path, "wb") as err:
            self._process = subprocess.Popen(args, stdin=subprocess.DEVNULL, stdout=out, stderr=err)
        try:
            self._wait_ready(stdout_path, stderr_path)
        except BaseException:
            self.stop()
            raise
        return self

    def _wait_ready(self, stdout_path, stderr_path):
        deadline = time.monotonic() + self.start_timeout
        last_error = None
        while True:
            if self._process.poll() is not None:
                raise ServerError("ferrobase serve exited with %s: %s" % (
                    self._process.returncode, _read(stderr_path).strip() or "(no output)"))
            if self.port is None:
                match = _ADDRESS_LINE.search(_read(stdout_path))
                if match:
                    self.host = match.group("host").strip("[]")
                    self.port = int(match.group("port"))
            if self.port is not None:
                try:
                    _thrift_get_table_names(self.host, self.port, timeout=5)
                    return
                except OSError as e:
                    last_error = e
            if time.monotonic() > deadline:
                raise ServerError("ferrobase serve not ready after %ss (%s); stderr: %s" % (
                    self.start_timeout, last_error or "no address line", _read(stderr_path)))
            time.sleep(0.005)

    def stop(self):
        """Sends SIGTERM, kills after ``stop_timeout`` seconds, removes a temporary data directory.

        Sets ``returncode`` (0 when the server stopped cleanly). Calling it again does nothing.
        """
        process, self._process = self._process, None
        if process is not None:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
                try:
                    process.wait(timeout=self.stop_timeout)
                except subprocess.TimeoutExpired:
                    process.kill()
                    process.wait()
            self.returncode = process.returncode
        for attr in ("_temp_dir", "_log_dir"):
            path = getattr(self, attr)
            if path:
                shutil.rmtree(path, ignore_errors=True)
                setattr(self, attr, None)

    def connection(self, **kwargs):
        """A new ``happybase.Connection`` to this server; ``kwargs`` go to it (transport, protocol,
        table_prefix, timeout, ...). The caller closes it."""
        import happybase

        if self.port is None:
            raise ServerError("server not started")
        return happybase.Connection(self.host, self.port, **kwargs)

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()
        return False

    def __repr__(self):
        state = "on %s" % self.address if self._process else "stopped"
        return "<ferrobase.Server %s>" % state


def _read(path):
    try:
        with open(path, "rb") as f:
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
