"""The ingest buffer's queue (both backends).

Where many workers drain one queue at once (PostgreSQL), ``claim_queued`` takes the oldest
pending item ``FOR UPDATE SKIP LOCKED``: two workers never claim one item and neither waits
on the other's claim. SQLite has one writer at a time and needs no lock clause.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping
from typing import Any

from mneme.core.watchdog import QueuedItem
from mneme.store.protocol import QueueItem, QueueStats
from mneme.store.sql.part import Part
from mneme.store.sql.records import EPOCH, Columns

_ITEM = Columns("ingest_queue")


def _item(row: Mapping[str, Any]) -> QueueItem:
    return QueueItem(
        **{
            **row,
            "payload": row["payload"] or {},
            "created_at": row["created_at"] or EPOCH,
            "updated_at": row["updated_at"] or EPOCH,
        }
    )


class Queue(Part):
    def enqueue(self, item: QueueItem) -> None:
        d = self.sql.dialect
        at = d.encode("ts", item.created_at)
        self.sql.write(
            "INSERT INTO ingest_queue (bank_id, id, payload, status, attempts, created_at, "
            "updated_at) VALUES (?, ?, ?, 'pending', 0, ?, ?)",
            (item.bank_id, item.id, d.encode("json", dict(item.payload)), at, at),
        )

    def has_pending(self) -> bool:
        """Whether any item waits: a read, so an idle worker takes no write lock to find the
        queue empty."""
        return bool(self.sql.rows("SELECT 1 FROM ingest_queue WHERE status = 'pending' LIMIT 1"))

    def claim_queued(self, now: dt.datetime) -> QueueItem | None:
        d = self.sql.dialect
        rows = self.sql.write_rows(
            "UPDATE ingest_queue SET status = 'processing', attempts = attempts + 1, "
            "updated_at = ? WHERE id = (SELECT id FROM ingest_queue WHERE status = 'pending' "
            f"ORDER BY created_at, id LIMIT 1{d.skip_locked}) RETURNING {_ITEM.select}",
            (d.encode("ts", now),),
        )
        return _item(_ITEM.decode(d, rows[0])) if rows else None

    def finish_queued(
        self,
        item_id: str,
        status: str,
        result: Mapping[str, Any] | None,
        error: str | None,
        now: dt.datetime,
    ) -> None:
        d = self.sql.dialect
        self.sql.write(
            "UPDATE ingest_queue SET status = ?, result = ?, error = ?, updated_at = ? "
            "WHERE id = ?",
            (
                status,
                None if result is None else d.encode("json", dict(result)),
                error,
                d.encode("ts", now),
                item_id,
            ),
        )

    def get_queued(self, item_id: str) -> QueueItem | None:
        rows = self.sql.rows(f"SELECT {_ITEM.select} FROM ingest_queue WHERE id = ?", (item_id,))
        return _item(_ITEM.decode(self.sql.dialect, rows[0])) if rows else None

    def requeue_processing(self, now: dt.datetime) -> int:
        return self.sql.write(
            "UPDATE ingest_queue SET status = 'pending', updated_at = ? "
            "WHERE status = 'processing'",
            (self.sql.dialect.encode("ts", now),),
        )

    def queue_stats(self) -> QueueStats:
        d = self.sql.dialect
        count, oldest = self.sql.rows(
            "SELECT count(*), min(created_at) FROM ingest_queue WHERE status = 'pending'"
        )[0]
        claimed = self.sql.rows(
            "SELECT id, bank_id, updated_at FROM ingest_queue WHERE status = 'processing' "
            "ORDER BY updated_at, id"
        )
        return QueueStats(
            pending=int(count or 0),
            oldest_pending=d.decode("ts", oldest) if oldest is not None else None,
            processing=tuple(
                QueuedItem(str(i), str(b), d.decode("ts", at) or EPOCH) for i, b, at in claimed
            ),
        )

    def requeue(self, item_id: str, now: dt.datetime) -> bool:
        return bool(
            self.sql.write(
                "UPDATE ingest_queue SET status = 'pending', updated_at = ? "
                "WHERE id = ? AND status = 'processing'",
                (self.sql.dialect.encode("ts", now), item_id),
            )
        )
