"""JSON columns: ``dumps`` writes exactly what ``json.dumps`` with the stores' options writes."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from mneme.store.codec import dumps

_JSON = st.recursive(
    st.none()
    | st.booleans()
    | st.integers()
    | st.floats()
    | st.text(alphabet=st.characters(codec="utf-8"), max_size=12),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.tuples(inner, inner)
        | st.dictionaries(st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=12,
)


def _reference(value: Any) -> str:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=str)


@settings(max_examples=300, deadline=None)
@given(value=_JSON)
def test_dumps_writes_what_json_dumps_writes(value: Any) -> None:
    assert dumps(value) == _reference(value)


def test_dumps_of_empty_and_unusual_values() -> None:
    values: list[Any] = [[], {}, (), "", 0, None, {"at": dt.datetime(2024, 1, 1)}, [[]], {"a": {}}]
    for value in values:
        assert dumps(value) == _reference(value)
