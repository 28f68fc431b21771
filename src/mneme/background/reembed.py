"""Re-embedding: give every unit a vector from the configured embedder (after a model change,
or for units stored before embeddings were kept), batch by batch, one transaction a batch."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol

from mneme.embed.protocol import Embedder
from mneme.store.protocol import Memories, Transactions


class ReembedStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    memories: Memories


def reembed(
    store: ReembedStore,
    embedder: Embedder,
    *,
    bank: str | None = None,
    batch: int = 64,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Embed every unit (of ``bank``, or every bank) that has no vector from ``embedder``;
    returns how many got one. ``progress`` hears each batch's size once it is committed."""
    done = 0
    model = embedder.model_id
    for rows in store.memories.iter_for_embedding(bank, model, batch):
        vectors = embedder.embed([r.text for r in rows])
        with store.transaction():
            for row, vec in zip(rows, vectors, strict=True):
                owner = store.memories.locate(row.unit_id)
                if owner is not None:
                    store.memories.put_embedding(owner, row.unit_id, model, [float(x) for x in vec])
        done += len(rows)
        if progress:
            progress(len(rows))
    return done
