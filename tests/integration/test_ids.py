"""Identifiers: ULIDs in Crockford base32, sortable by creation time."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from mneme.ids import _ALPHABET, _encode, new_id


def _five_bits_at_a_time(value: int) -> str:
    digits = []
    for _ in range(26):
        digits.append(_ALPHABET[value & 31])
        value >>= 5
    return "".join(reversed(digits))


@given(value=st.integers(min_value=0, max_value=2**128 - 1))
def test_an_id_is_its_value_in_base32_most_significant_digit_first(value: int) -> None:
    assert _encode(value) == _five_bits_at_a_time(value)


def test_ids_made_one_after_another_sort_in_order_and_keep_their_prefix() -> None:
    made = [new_id("u_") for _ in range(2000)]
    assert made == sorted(made)
    assert len(set(made)) == len(made)
    assert all(m.startswith("u_") and len(m) == 28 for m in made)
