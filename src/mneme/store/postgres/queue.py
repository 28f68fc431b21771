"""The ingest buffer's queue in PostgreSQL.

Many workers may drain one queue at once here (``concurrent_writers``): ``claim_queued`` takes
the oldest pending item with ``FOR UPDATE SKIP LOCKED``, so two workers never claim one item
and neither waits on the other's claim.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from typing import Any

from psycopg.types.json import Jsonb

from mneme.errors import MnemeError
from mneme.store.postgres.database import Database
from mneme.store.protocol import QueueItem

_COLS = "id, bank_id, payload, status, attempts, created_at, updated_at, result, error"


class QueueMixin:
    db: Database

    def _q(self, sql: str, params: Any) -> list[tuple[Any, ...]]:
        if not self.db.in_transaction:
            raise MnemeError("writes run inside Store.transaction()")
        return self.db.query(sql, params)

    def enqueue(self, item: QueueItem) -> None:
        self._q(
            "INSERT INTO ingest_queue (bank_id, id, payload, status, attempts, created_at, "
            "updated_at) VALUES (%s, %s, %s, 'pending', 0, %s, %s) RETURNING id",
            (item.bank_id, item.id, Jsonb(dict(item.payload)), item.created_at, item.created_at),
        )

    def claim_queued(self, now: dt.datetime) -> QueueItem | None:
        rows = self._q(
            "UPDATE ingest_queue SET status = 'processing', attempts = attempts + 1, "
            "updated_at = %s WHERE id = (SELECT id FROM ingest_queue WHERE status = 'pending' "
            "ORDER BY created_at, id LIMIT 1 FOR UPDATE SKIP LOCKED) "
            f"RETURNING {_COLS}",
            (now,),
        )
        return _item(rows[0]) if rows else None

    def finish_queued(
        self,
        item_id: str,
        status: str,
        result: Mapping[str, Any] | None,
        error: str | None,
        now: dt.datetime,
    ) -> None:
        self._q(
            "UPDATE ingest_queue SET status = %s, result = %s, error = %s, updated_at = %s "
            "WHERE id = %s RETURNING id",
            (status, None if result is None else Jsonb(dict(result)), error, now, item_id),
        )

    def get_queued(self, item_id: str) -> QueueItem | None:
        rows = self.db.query(f"SELECT {_COLS} FROM ingest_queue WHERE id = %s", (item_id,))
        return _item(rows[0]) if rows else None

    def requeue_processing(self, now: dt.datetime) -> int:
        rows = self._q(
            "UPDATE ingest_queue SET status = 'pending', updated_at = %s "
            "WHERE status = 'processing' RETURNING id",
            (now,),
        )
        return len(rows)


def _utc(value: dt.datetime) -> dt.datetime:
    return value.replace(tzinfo=dt.UTC) if value.tzinfo is None else value.astimezone(dt.UTC)


def _item(r: Sequence[Any]) -> QueueItem:
    return QueueItem(
        id=r[0],
        bank_id=r[1],
        payload=r[2] or {},
        status=r[3],
        attempts=int(r[4]),
        created_at=_utc(r[5]),
        updated_at=_utc(r[6]),
        result=r[7],
        error=r[8],
    )
