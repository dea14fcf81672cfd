"""An example test suite on the ferrobase pytest fixtures: only `ferrobase_connection`,
`ferrobase_server` and happybase. With the ferrobase wheel installed, `pytest` runs it as it is
(and `pytest -n 2` with pytest-xdist, each worker with its own server)."""

import happybase
import pytest
from Hbase_thrift import AlreadyExists  # happybase's Thrift types


def test_create_table_put_and_get(ferrobase_connection):
    ferrobase_connection.create_table("users", {"info": dict(max_versions=3)})
    users = ferrobase_connection.table("users")
    users.put(b"alice", {b"info:email": b"alice@example.com", b"info:age": b"31"})
    assert users.row(b"alice") == {b"info:email": b"alice@example.com", b"info:age": b"31"}
    assert users.row(b"alice", columns=[b"info:age"]) == {b"info:age": b"31"}


def test_scan_with_a_filter(ferrobase_connection):
    ferrobase_connection.create_table("events", {"e": dict()})
    events = ferrobase_connection.table("events")
    with events.batch() as batch:
        for i in range(20):
            batch.put(b"evt-%03d" % i, {b"e:kind": b"click" if i % 3 else b"purchase"})
    purchases = events.scan(row_prefix=b"evt-", filter=b"ValueFilter(=, 'binary:purchase')")
    assert [key for key, _ in purchases] == [b"evt-%03d" % i for i in range(0, 20, 3)]


def test_seed_inbox_keeps_every_version(ferrobase_connection):
    # The seed articles' inbox: one row per user, every message id a version of cf1:id.
    ferrobase_connection.create_table("inbox", {"cf1": dict(max_versions=1000)})
    inbox = ferrobase_connection.table("inbox")
    for ts, post in enumerate([b"post-40", b"post-41", b"post-42"], start=1):
        inbox.put(b"user1", {b"cf1:id": post}, timestamp=ts)
    assert inbox.row(b"user1") == {b"cf1:id": b"post-42"}
    assert inbox.cells(b"user1", b"cf1:id", versions=10) == [b"post-42", b"post-41", b"post-40"]
    found = list(inbox.scan(filter=b"ValueFilter(=, 'substring:post-4')"))
    assert found == [(b"user1", {b"cf1:id": b"post-42"})]


def test_tables_of_earlier_tests_are_gone(ferrobase_connection):
    # Each test's tables are dropped after it, so every test may create "inbox" again.
    assert b"inbox" not in ferrobase_connection.tables()
    ferrobase_connection.create_table("inbox", {"cf1": dict()})
    assert b"inbox" in ferrobase_connection.tables()


def test_creating_an_existing_table_fails(ferrobase_connection):
    ferrobase_connection.create_table("once", {"cf": dict()})
    with pytest.raises(AlreadyExists):
        ferrobase_connection.create_table("once", {"cf": dict()})


def test_a_second_connection_sees_the_same_server(ferrobase_server, ferrobase_connection):
    ferrobase_connection.create_table("shared", {"cf": dict()})
    other = happybase.Connection(ferrobase_server.host, ferrobase_server.port,
                                 transport="framed", protocol="compact")
    try:
        other.table("shared").put(b"k", {b"cf:q": b"v"})
    finally:
        other.close()
    assert ferrobase_connection.table("shared").row(b"k") == {b"cf:q": b"v"}
