"""The ingest buffer's queue in SQLite."""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from mneme.store.codec import dumps, ts
from mneme.store.protocol import QueueItem
from mneme.store.sqlite.base import SQLiteBase
from mneme.store.sqlite.rows import QUEUE_COLS, queue_item


class QueueMixin(SQLiteBase):
    def enqueue(self, item: QueueItem) -> None:
        self._w(
            "INSERT INTO ingest_queue (bank_id, id, payload, status, attempts, created_at, "
            "updated_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)",
            (
                item.bank_id,
                item.id,
                dumps(dict(item.payload)),
                ts(item.created_at),
                ts(item.created_at),
            ),
        )

    def claim_queued(self, now: dt.datetime) -> QueueItem | None:
        rows = self._w(
            "UPDATE ingest_queue SET status = 'processing', attempts = attempts + 1, "
            "updated_at = ? WHERE id = (SELECT id FROM ingest_queue WHERE status = 'pending' "
            f"ORDER BY created_at, id LIMIT 1) RETURNING {QUEUE_COLS}",
            (ts(now),),
        ).fetchall()
        return queue_item(rows[0]) if rows else None

    def finish_queued(
        self,
        item_id: str,
        status: str,
        result: Mapping[str, Any] | None,
        error: str | None,
        now: dt.datetime,
    ) -> None:
        self._w(
            "UPDATE ingest_queue SET status = ?, result = ?, error = ?, updated_at = ? "
            "WHERE id = ?",
            (status, None if result is None else dumps(dict(result)), error, ts(now), item_id),
        )

    def get_queued(self, item_id: str) -> QueueItem | None:
        rows = self.db.query(f"SELECT {QUEUE_COLS} FROM ingest_queue WHERE id = ?", (item_id,))
        return queue_item(rows[0]) if rows else None

    def requeue_processing(self, now: dt.datetime) -> int:
        cur = self._w(
            "UPDATE ingest_queue SET status = 'pending', updated_at = ? "
            "WHERE status = 'processing'",
            (ts(now),),
        )
        return int(cur.rowcount)
