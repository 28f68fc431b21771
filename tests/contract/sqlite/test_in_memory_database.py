"""A private in-memory database is one shared cache: a read beside another thread's write
transaction waits for it, as a file database's read does, instead of failing "locked"."""

from __future__ import annotations

import threading
import time

from mneme.store.sqlite.database import Database


def test_a_read_waits_for_a_write_transaction_that_holds_the_schema() -> None:
    db = Database(":memory:")
    with db.transaction():
        db.run("CREATE TABLE t (x INTEGER)")
        db.run("INSERT INTO t VALUES (1)")
    inside = threading.Event()
    seen: list[object] = []

    def read() -> None:
        inside.wait(5)
        try:
            # A new connection's first statement reads the schema the writer holds.
            seen.append(db.query("SELECT count(*) FROM t")[0][0])
        except Exception as exc:  # the failure under test: "database schema is locked"
            seen.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    with db.transaction():
        db.run("CREATE TABLE u (y INTEGER)")  # a new bank's tables: the schema is written
        db.run("INSERT INTO t VALUES (2)")
        inside.set()
        time.sleep(0.2)
    reader.join(10)
    assert seen == [2]
    db.close()
