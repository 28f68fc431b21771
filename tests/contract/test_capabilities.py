"""Every declared capability is checked against what the backend really does."""

from __future__ import annotations

from typing import Any

from mneme.store.postgres.vectors import index_name
from mneme.store.protocol import Store


def test_schema_is_current_and_migrate_is_idempotent(store: Store) -> None:
    assert store.schema_version() >= 2
    assert store.migrate() == []
    assert store.capabilities.name in {"sqlite", "postgres"}


def test_a_store_opened_for_writing_is_not_read_only_and_takes_a_write(
    store: Store, make: Any
) -> None:
    assert store.read_only is False
    make.bank()  # a write: it must not be refused
    assert store.read_only is False


def test_native_vector_index_capability_is_true_only_with_an_on_disk_index(
    store: Store, make: Any
) -> None:
    make.bank()
    make.unit("a unit with a vector")
    if store.capabilities.name != "postgres":
        assert store.capabilities.native_vector_index is False
        return
    rows = store.db.query(  # type: ignore[attr-defined]
        "SELECT indexdef FROM pg_indexes WHERE indexname = %s",
        (index_name(make.model, make.dim),),
    )
    if not store.engine.vectors.build:  # type: ignore[attr-defined]  # pg_vector_index = "exact"
        assert store.capabilities.native_vector_index is False
        assert rows == []
        return
    assert store.capabilities.native_vector_index is True
    assert "hnsw" in rows[0][0]
    assert "vector_cosine_ops" in rows[0][0]


def test_row_level_security_capability_matches_the_schema(store: Store, make: Any) -> None:
    make.bank()
    if store.capabilities.name != "postgres":
        assert store.capabilities.row_level_security is False
        return
    secured = store.db.scalar(  # type: ignore[attr-defined]
        "SELECT count(*) FROM pg_class WHERE relrowsecurity AND relnamespace = "
        "current_schema()::regnamespace"
    )
    assert bool(secured) == store.capabilities.row_level_security
