"""A bank's category vocabulary and the stored vectors insights read (ADR 0056), both backends."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from mneme.core.model import Category, Scope, Viewer, Visibility
from mneme.errors import NotFound
from mneme.store.protocol import Store


def test_categories_are_minted_aliased_and_listed_per_bank(store: Store, make: Any) -> None:
    make.bank("b1")
    make.bank("b2")
    with store.transaction():
        store.vocabulary.put_categories(
            [
                Category("c1", "b1", "corn harvest", "rule", make.t0, minted_from="u1"),
                Category("c2", "b1", "input cost", "rule", make.t0),
                Category("c3", "b2", "corn harvest", "rule", make.t0),
            ],
            actor="insights",
        )
        folded = store.vocabulary.add_category_aliases(
            "b1", "c1", ["corn crop", "corn harvest", "corn crop"], actor="insights"
        )
    assert folded.aliases == ("corn crop",)
    listed = store.vocabulary.list_categories("b1")
    assert [(c.id, c.name, c.aliases, c.minted_from) for c in listed] == [
        ("c1", "corn harvest", ("corn crop",), "u1"),
        ("c2", "input cost", (), None),
    ]
    assert [c.id for c in store.vocabulary.list_categories("b2")] == ["c3"]
    ops = [r.op for r in store.audit.records("b1")]
    assert "category.mint" in ops
    assert "category.alias" in ops
    with pytest.raises(NotFound), store.transaction():
        store.vocabulary.add_category_aliases("b2", "c1", ["x"], actor="insights")


def test_a_category_name_is_unique_in_its_bank(store: Store, make: Any) -> None:
    make.bank("b1")
    with store.transaction():
        store.vocabulary.put_categories(
            [Category("c1", "b1", "drought", "rule", make.t0)], actor="insights"
        )
    with pytest.raises(Exception), store.transaction():  # noqa: B017, PT011  (each driver's own)
        store.vocabulary.put_categories(
            [Category("c2", "b1", "drought", "rule", make.t0)], actor="insights"
        )
    assert [c.id for c in store.vocabulary.list_categories("b1")] == ["c1"]


def test_unit_vectors_answers_stored_vectors_of_visible_units_only(store: Store, make: Any) -> None:
    make.bank("b1")
    shared = make.unit("The corn harvest shrank", agent="a1")
    private = make.unit("A private note", agent="a2", visibility=Visibility.PRIVATE)
    bare = make.unit("No vector here", agent="a1", embed=False)
    ids = [shared.id, private.id, bare.id, "u_missing"]
    seen = store.memories.unit_vectors(Viewer("b1", "a1", Scope.COLLECTIVE), ids, make.model)
    assert set(seen) == {shared.id}
    assert seen[shared.id].shape == (make.dim,)
    assert np.allclose(seen[shared.id], make.vec("The corn harvest shrank"), atol=1e-6)
    owner = store.memories.unit_vectors(Viewer("b1", "x", Scope.OWNER), ids, make.model)
    assert set(owner) == {shared.id, private.id}
    assert store.memories.unit_vectors(Viewer("b1", "x", Scope.OWNER), ids, "other") == {}


def test_a_purge_erases_the_categories_its_memories_minted(store: Store, make: Any) -> None:
    make.bank("b1")
    gone = make.unit("Drought in the Midwest", agent="a1")
    kept = make.unit("Drought again", agent="a1")
    with store.transaction():
        store.vocabulary.put_categories(
            [
                Category("c1", "b1", "midwest drought", "rule", make.t0, minted_from=gone.id),
                Category("c2", "b1", "drought", "rule", make.t0, minted_from=kept.id),
            ],
            actor="insights",
        )
    with store.transaction():
        store.erasure.purge("b1", [gone.id], [], actor="admin", reason="erasure", target=gone.id)
    assert [c.id for c in store.vocabulary.list_categories("b1")] == ["c2"]
