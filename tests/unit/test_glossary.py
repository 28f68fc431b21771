"""docs/glossary.md keeps up with the code: every decision word is defined, every path exists."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import Path

import pytest

from mneme.core.model import (
    ClaimStatus,
    Resolution,
    RetainStatus,
    ReviewDecision,
    ReviewStatus,
    UnitStatus,
    Verdict,
)
from mneme.core.slots import SlotRelation

ROOT = Path(__file__).resolve().parents[2]
GLOSSARY = (ROOT / "docs" / "glossary.md").read_text(encoding="utf-8")


DECISION_ENUMS = (
    Verdict,
    SlotRelation,
    ReviewDecision,
    Resolution,
    UnitStatus,
    ClaimStatus,
    ReviewStatus,
    RetainStatus,
)


@pytest.mark.parametrize("words", DECISION_ENUMS, ids=lambda e: e.__name__)
def test_every_value_of_a_decision_enum_is_in_the_glossary(words: type[StrEnum]) -> None:
    assert words.__name__ in GLOSSARY
    missing = [w.value for w in words if f"`{w.value}`" not in GLOSSARY]
    assert not missing, f"docs/glossary.md does not name {words.__name__}: {missing}"


def test_every_module_the_glossary_names_exists() -> None:
    paths = set(re.findall(r"\b((?:[a-z_]+/)+[a-z_]+\.py)\b", GLOSSARY))
    assert paths, "the glossary names no module"
    missing = sorted(p for p in paths if not (ROOT / "src" / "mneme" / p).is_file())
    assert not missing, f"docs/glossary.md names modules that do not exist: {missing}"


def test_the_readme_links_the_glossary() -> None:
    assert "docs/glossary.md" in (ROOT / "README.md").read_text(encoding="utf-8")
