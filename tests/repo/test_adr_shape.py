"""Every ADR in docs/adr/ has the shape STYLE.md section 7 asks for.

A file `NNNN-kebab-title.md`, numbered without gaps from 0001; a `# ` title; a Status and an
ISO Date in the header; and the sections Context, Forcing failure, Decision, Alternatives and
Consequences, in that order. Other sections may sit anywhere.
"""

from __future__ import annotations

import re
from datetime import date
from pathlib import Path

import pytest

ADR_DIR = Path(__file__).resolve().parents[2] / "docs" / "adr"
ADRS = sorted(ADR_DIR.glob("[0-9][0-9][0-9][0-9]-*.md"))

REQUIRED_SECTIONS = ("Context", "Forcing failure", "Decision", "Alternatives", "Consequences")
STATUSES = ("proposed", "accepted", "superseded")
HEADER_LINES = 8

_FILE_NAME = re.compile(r"^\d{4}-[a-z0-9]+(?:-[a-z0-9]+)*\.md$")
_TITLE = re.compile(r"^# \S")
_STATUS = re.compile(r"^- (?:\*\*)?Status(?:\*\*)?:\s*(.*)$")
_DATE = re.compile(r"^- (?:\*\*)?Date(?:\*\*)?:\s*(\d{4}-\d{2}-\d{2})\b")


def _lines(adr: Path) -> list[str]:
    return adr.read_text(encoding="utf-8").splitlines()


def _sections(adr: Path) -> list[str]:
    return [line[3:].strip() for line in _lines(adr) if line.startswith("## ")]


def _each_adr() -> list[object]:
    return [pytest.param(adr, id=adr.name) for adr in ADRS]


def test_the_adrs_are_numbered_once_each_from_0001_without_gaps() -> None:
    numbers = [int(adr.name[:4]) for adr in ADRS]
    assert numbers, f"no ADRs found under {ADR_DIR}"
    repeated = sorted({n for n in numbers if numbers.count(n) > 1})
    assert not repeated, f"ADR numbers used more than once: {repeated}"
    missing = sorted(set(range(1, max(numbers) + 1)) - set(numbers))
    assert not missing, f"ADR numbers missing: {missing}"


@pytest.mark.parametrize("adr", _each_adr())
def test_an_adr_file_is_named_by_its_number_and_a_kebab_case_title(adr: Path) -> None:
    assert _FILE_NAME.match(adr.name), f"{adr.name}: not NNNN-kebab-case.md"


@pytest.mark.parametrize("adr", _each_adr())
def test_an_adr_opens_with_a_title(adr: Path) -> None:
    lines = _lines(adr)
    assert lines, f"{adr.name}: empty"
    assert _TITLE.match(lines[0]), f"{adr.name}: the first line is not a '# ' title"


@pytest.mark.parametrize("adr", _each_adr())
def test_an_adr_header_gives_its_status_and_an_iso_date(adr: Path) -> None:
    header = _lines(adr)[:HEADER_LINES]
    statuses = [m.group(1) for line in header if (m := _STATUS.match(line))]
    assert statuses, f"{adr.name}: no Status line in the first {HEADER_LINES} lines"
    assert statuses[0].startswith(STATUSES), (
        f"{adr.name}: Status {statuses[0]!r} is not one of {', '.join(STATUSES)}"
    )
    dates = [m.group(1) for line in header if (m := _DATE.match(line))]
    assert dates, f"{adr.name}: no Date line (YYYY-MM-DD) in the first {HEADER_LINES} lines"
    try:
        date.fromisoformat(dates[0])
    except ValueError:
        pytest.fail(f"{adr.name}: Date {dates[0]} is not a calendar date")


@pytest.mark.parametrize("adr", _each_adr())
def test_an_adr_has_the_required_sections_in_order(adr: Path) -> None:
    sections = _sections(adr)
    missing = [name for name in REQUIRED_SECTIONS if name not in sections]
    assert not missing, f"{adr.name}: missing section(s) {', '.join('## ' + m for m in missing)}"
    present = [name for name in sections if name in REQUIRED_SECTIONS]
    expected = list(REQUIRED_SECTIONS)
    assert present == expected, f"{adr.name}: sections {present} are not in the order {expected}"
