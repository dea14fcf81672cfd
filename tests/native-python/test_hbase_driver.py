"""PyPI's hbase-driver (kazoo for ZooKeeper, then HBase's native RPC) against
`ferrobase serve --rpc-port 0 --zk-port 0`: its answers must be Apache HBase 2.6.1's
(expected/hbase-2.6.1.txt, recorded from the oracle; with HBASE_ORACLE_ZOOKEEPER set the
oracle is asked again), and the ZooKeeper façade must read as HBase's znodes to a plain kazoo
client, refuse writes and keep the session.

Run by tests/native-python/run.sh (a venv with the pinned packages); FERROBASE_BIN names the
binary (default target/debug/ferrobase).
"""
import os
import pathlib
import re
import socket
import subprocess
import tempfile
import time

import pytest
from kazoo.client import KazooClient
from kazoo.exceptions import NoNodeError, NotReadOnlyCallError
from kazoo.protocol.states import KazooState

import scenario
from hbasedriver.protobuf_py.ZooKeeper_pb2 import Master, MetaRegionServer
from hbasedriver.protobuf_py.ClusterId_pb2 import ClusterId

HERE = pathlib.Path(__file__).parent
ROOT = HERE.parent.parent
EXPECTED = (HERE / "expected" / "hbase-2.6.1.txt").read_text().splitlines()


@pytest.fixture(scope="module")
def server():
    binary = os.environ.get("FERROBASE_BIN", str(ROOT / "target" / "debug" / "ferrobase"))
    with tempfile.TemporaryDirectory() as tmp:
        data = pathlib.Path(tmp) / "data"
        out = open(pathlib.Path(tmp) / "stdout", "w+")
        proc = subprocess.Popen(
            [binary, "serve", "--port", "0", "--rpc-port", "0", "--zk-port", "0", "--data", str(data)],
            stdout=out,
            stderr=subprocess.PIPE,
        )
        try:
            text = ""
            for _ in range(100):
                out.seek(0)
                text = out.read()
                if "ZooKeeper's protocol" in text and "native RPC on" in text:
                    break
                time.sleep(0.1)
            zk = re.search(r"ZooKeeper's protocol .* on [0-9.]+:(\d+)", text)
            rpc = re.search(r"native RPC on [0-9.]+:(\d+)", text)
            assert zk and rpc, f"the server did not start: {text}"
            yield {
                "zk": f"127.0.0.1:{zk.group(1)}",
                "rpc_port": int(rpc.group(1)),
                "data": data,
            }
        finally:
            proc.terminate()
            proc.wait(timeout=30)


def strip_metadata(data):
    """HBase's ZKMetadata prefix (0xFF, length, id and salt), then PBUF."""
    assert data[0] == 0xFF
    n = int.from_bytes(data[1:5], "big")
    rest = data[5 + n:]
    assert rest[:4] == b"PBUF"
    return data[5:5 + n - 8].decode(), rest[4:]


def test_hbase_driver_answers_as_apache_hbase(server):
    lines = []
    scenario.run(server["zk"], out=lines.append)
    assert lines == EXPECTED


@pytest.mark.skipif(not os.environ.get("HBASE_ORACLE_ZOOKEEPER"), reason="no oracle (scripts/hbase-oracle.sh start)")
def test_the_recorded_answers_are_apache_hbases():
    lines = []
    scenario.run(f"127.0.0.1:{os.environ['HBASE_ORACLE_ZOOKEEPER']}", out=lines.append)
    assert lines == EXPECTED


@pytest.fixture
def kazoo(server):
    zk = KazooClient(hosts=server["zk"], timeout=5)
    zk.start(timeout=5)
    yield zk
    zk.stop()
    zk.close()


def test_the_znodes_name_the_native_door(server, kazoo):
    cluster_id = (server["data"] / "hbase.id").read_text().strip()
    writer, body = strip_metadata(kazoo.get("/hbase/hbaseid")[0])
    assert writer == f"master:{server['rpc_port']}"
    assert ClusterId.FromString(body).cluster_id == cluster_id
    data, stat = kazoo.get("/hbase/master")
    master = Master.FromString(strip_metadata(data)[1])
    assert (master.master.host_name, master.master.port) == ("localhost", server["rpc_port"])
    assert stat.ephemeralOwner != 0 and stat.dataLength == len(data)
    meta = MetaRegionServer.FromString(strip_metadata(kazoo.get("/hbase/meta-region-server")[0])[1])
    assert meta.server == master.master and meta.state == 3  # OPEN
    sn = meta.server
    assert kazoo.get_children("/hbase/rs") == [f"{sn.host_name},{sn.port},{sn.start_code}"]
    assert {"hbaseid", "master", "meta-region-server", "rs"} <= set(kazoo.get_children("/hbase"))
    assert kazoo.exists("/hbase/table") is None
    kazoo.sync("/hbase")


def test_writes_are_refused_and_the_session_goes_on(kazoo):
    fired = []
    assert kazoo.exists("/hbase/backup", watch=fired.append) is None
    with pytest.raises(NotReadOnlyCallError):
        kazoo.create("/hbase/backup-masters/me", b"x", ephemeral=True)
    with pytest.raises(NotReadOnlyCallError):
        kazoo.set("/hbase/master", b"x")
    with pytest.raises(NotReadOnlyCallError):
        kazoo.delete("/hbase/master")
    with pytest.raises(NoNodeError):
        kazoo.get("/nope")
    assert kazoo.state == KazooState.CONNECTED
    assert kazoo.get("/hbase/master")[1].dataLength > 0
    assert fired == []


def test_a_read_only_client_is_served_and_asks_isro(server):
    zk = KazooClient(hosts=server["zk"], timeout=5, read_only=True)
    zk.start(timeout=5)
    try:
        assert zk.client_state == "CONNECTED_RO"
        assert zk.exists("/hbase/hbaseid") is not None
    finally:
        zk.stop()
        zk.close()
    host, port = server["zk"].split(":")
    for word, answer in [(b"isro", b"ro"), (b"ruok", b"imok")]:
        with socket.create_connection((host, int(port))) as s:
            s.sendall(word)
            assert s.recv(100) == answer
