"""The two backends of the differential tests, each reached through happybase 1.3.0:

- ``Ferrobase``: a ``ferrobase serve --no-auto-compaction`` this module starts on a free port
  with a fresh data directory; flush through the gateway's ``ferrobaseAdmin`` extension, major compaction through
  Thrift1's ``majorCompact`` (synchronous on ferrobase).
- ``HBase``: the running oracle (``scripts/hbase-oracle.sh start``); flush and major compaction
  through its admin endpoint (``tests/hbase-oracle``, synchronous, store files only).

Both offer ``connect()``, ``flush(table)``, ``major_compact(table)``, ``create_table(conn, table,
families, splits)`` (family attributes Thrift1 cannot set, split keys) and ``name``.
"""

import os
import shutil
import signal
import subprocess
import tempfile
import urllib.error
import urllib.parse
import urllib.request

import happybase
import thriftpy2
from thriftpy2.protocol import TBinaryProtocol
from thriftpy2.thrift import TClient

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
ORACLE_STATE = os.path.join(ROOT, "target", "hbase-oracle", "state")

_admin_idl = thriftpy2.load(os.path.join(HERE, "ferrobase_admin.thrift"),
                            module_name="ferrobase_admin_thrift")


class OracleNotRunning(RuntimeError):
    pass


class Ferrobase:
    name = "ferrobase"

    def __init__(self, binary=None):
        binary = binary or os.environ.get("FERROBASE_BIN") or os.path.join(ROOT, "target", "debug", "ferrobase")
        if not os.path.exists(binary):
            raise RuntimeError("ferrobase binary not found at %s (cargo build -p ferrobase, or set FERROBASE_BIN)" % binary)
        self.data = tempfile.mkdtemp(prefix="ferrobase-differential-")
        # The oracle runs with hbase.table.max.rowsize at 16 KiB (tests/hbase-oracle); so does this.
        # It compacts only when asked (hbase.hstore.compactionThreshold 1000,
        # hbase.hregion.majorcompaction 0), so ferrobase does too: both keep one file per flush
        # until a major compaction, and reads see the same physical state.
        self.proc = subprocess.Popen([binary, "serve", "--data", self.data, "--port", "0",
                                      "--max-row-size", str(16 << 10), "--no-auto-compaction"],
                                     stdout=subprocess.PIPE, text=True)
        line = self.proc.stdout.readline()
        if "serving" not in line:
            self.proc.kill()
            raise RuntimeError("ferrobase serve did not start: %r" % line)
        self.port = int(line.split(" on ")[1].split(" ")[0].rsplit(":", 1)[1])

    def connect(self):
        return happybase.Connection("127.0.0.1", self.port, autoconnect=True)

    def flush(self, conn, table):
        client = TClient(_admin_idl.FerrobaseAdmin, TBinaryProtocol(conn.transport))
        client.ferrobaseAdmin(b"flush", table.encode(), b"", {})

    def major_compact(self, conn, table):
        conn.compact_table(table, major=True)

    def compact(self, conn, table):
        conn.compact_table(table)

    def create_table(self, conn, table, families, splits=()):
        """Creates ``table`` with HBase's family defaults plus ``families`` ({name: {KEY: value}}
        in HBase's attribute spelling) and split keys: through Thrift1 and the gateway's
        ``ferrobaseAdmin`` (put_family, delete_family, split), as Thrift1 alone cannot."""
        client = TClient(_admin_idl.FerrobaseAdmin, TBinaryProtocol(conn.transport))
        placeholder = "zz_placeholder_family"
        conn.create_table(table, {placeholder: {}})
        for name, attrs in families.items():
            spec = {b"NAME": name.encode()}
            # Keys of HBase's configuration (`hbase.hstore.compaction.min`) set the oracle's
            # store to what ferrobase's options already are: not family attributes here.
            spec.update({k.encode(): str(v).encode() for k, v in attrs.items()
                         if not k.startswith("hbase.")})
            client.ferrobaseAdmin(b"put_family", table.encode(), b"", spec)
        client.ferrobaseAdmin(b"delete_family", table.encode(), placeholder.encode(), {})
        for key in splits:
            client.ferrobaseAdmin(b"split", table.encode(), key, {})

    def stop(self):
        self.proc.send_signal(signal.SIGTERM)
        try:
            code = self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            code = "timeout"
        shutil.rmtree(self.data, ignore_errors=True)
        return code


class HBase:
    name = "hbase"

    def __init__(self):
        ports = oracle_ports()
        self.port = ports["thrift1"]
        self.admin_port = ports["admin"]

    def connect(self):
        return happybase.Connection("127.0.0.1", self.port, autoconnect=True)

    def _admin(self, op, table):
        url = "http://127.0.0.1:%d/%s?table=%s" % (self.admin_port, op, table)
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=300).read()
        except urllib.error.HTTPError as e:
            raise RuntimeError("oracle admin %s %s: %s" % (op, table, e.read().decode().strip()))

    def flush(self, conn, table):
        self._admin("flush", table)

    def major_compact(self, conn, table):
        self._admin("major_compact", table)

    def compact(self, conn, table):
        self._admin("compact", table)

    def create_table(self, conn, table, families, splits=()):
        """Creates ``table`` through the master (the admin endpoint's ``/create``): families
        {name: {KEY: value}} in HBase's attribute spelling on HBase's defaults, split keys."""
        attrs = ";".join("%s.%s=%s" % (f, k, v) for f, a in families.items() for k, v in a.items())
        url = "http://127.0.0.1:%d/create?%s" % (self.admin_port, urllib.parse.urlencode({
            "table": table, "families": ",".join(families), "splits": ",".join(k.hex() for k in splits),
            "attrs": attrs}))
        try:
            urllib.request.urlopen(urllib.request.Request(url, method="POST"), timeout=300).read()
        except urllib.error.HTTPError as e:
            raise RuntimeError("oracle admin create %s: %s" % (table, e.read().decode().strip()))

    def stop(self):
        return 0


def oracle_ports():
    """The running oracle's ports, from HBASE_ORACLE_THRIFT1/HBASE_ORACLE_ADMIN or its state file."""
    if os.environ.get("HBASE_ORACLE_THRIFT1") and os.environ.get("HBASE_ORACLE_ADMIN"):
        return {"thrift1": int(os.environ["HBASE_ORACLE_THRIFT1"]),
                "admin": int(os.environ["HBASE_ORACLE_ADMIN"])}
    try:
        with open(ORACLE_STATE) as f:
            fields = dict(kv.split("=", 1) for kv in f.read().split() if "=" in kv)
    except FileNotFoundError:
        raise OracleNotRunning(
            "Apache HBase (the oracle) is not running: start it with `bash scripts/hbase-oracle.sh start` "
            "(no %s, and HBASE_ORACLE_THRIFT1/HBASE_ORACLE_ADMIN are not set)" % ORACLE_STATE)
    return {"thrift1": int(fields["thrift1"]), "admin": int(fields["admin"])}
