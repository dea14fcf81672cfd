"""A short program on PyPI's hbase-driver (a pure-Python native HBase client that finds the
cluster through ZooKeeper with kazoo): create a table, put, get, scan, delete, drop it.

    python scenario.py ZK_HOST:PORT [TABLE]

prints one `step: answer` line per answer, the same on Apache HBase 2.6.1 and on
`ferrobase serve --rpc-port 0 --zk-port 0` (expected/hbase-2.6.1.txt). The table name is not
printed, so runs with different names compare.
"""
import sys
import uuid

from hbasedriver.client.client import Client
from hbasedriver.common.table_name import TableName
from hbasedriver.operations.delete import Delete
from hbasedriver.operations.get import Get
from hbasedriver.operations.put import Put
from hbasedriver.operations.scan import Scan
from hbasedriver.protobuf_py.HBase_pb2 import ColumnFamilySchema


def cells(row):
    if row is None:
        return None
    return sorted((f.decode(), q.decode(), v.decode()) for f, qs in row.kv.items() for q, v in qs.items())


def run(zk, table=None, out=print):
    table = (table or f"hbase_driver_{uuid.uuid4().hex[:8]}").encode()
    client = Client({"hbase.zookeeper.quorum": zk})
    try:
        admin = client.get_admin()
        name = TableName.value_of(b"default", table)
        out(f"table exists before: {admin.table_exists(name)}")
        client.create_table(b"default", table, [ColumnFamilySchema(name=b"cf")])
        out(f"table exists after create: {admin.table_exists(name)}")
        t = client.get_table(b"default", table)
        for i in range(5):
            t.put(Put(b"row%d" % i).add_column(b"cf", b"a", b"v%d" % i).add_column(b"cf", b"b", b"w%d" % i))
        out(f"get row1: {cells(t.get(Get(b'row1')))}")
        out(f"get row1 cf:b: {cells(t.get(Get(b'row1').add_column(b'cf', b'b')))}")
        out(f"get missing row: {cells(t.get(Get(b'nope')))}")
        out(f"scan row1..row4: {[(r.rowkey.decode(), r.get(b'cf', b'a').decode()) for r in t.scan(Scan(b'row1', b'row4'))]}")
        t.delete(Delete(b"row2"))
        out(f"get row2 after delete: {cells(t.get(Get(b'row2')))}")
        t.delete(Delete(b"row3").add_column(b"cf", b"a"))
        out(f"get row3 after deleting cf:a: {cells(t.get(Get(b'row3')))}")
        out(f"scan all: {[r.rowkey.decode() for r in t.scan(Scan())]}")
        t.close()
        client.disable_table(b"default", table)
        client.delete_table(b"default", table)
        out(f"table exists after drop: {admin.table_exists(name)}")
    finally:
        client.close()


if __name__ == "__main__":
    run(sys.argv[1], sys.argv[2] if len(sys.argv) > 2 else None)
