"""Loading LoCoMo and normalizing its evidence ids, following the data's README exactly.

Every turn becomes one retrievable source keyed ``<sample_id>:<dia_id>`` (dia ids repeat
across conversations). Evidence strings are split on ``;`` and whitespace, ``D:11:26`` becomes
``D11:26``, ``D30:05`` becomes ``D30:5``; ids that still name no turn of their conversation
are dropped and reported, never silently ignored.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

DATE_FORMAT = "%I:%M %p on %d %B, %Y"
DEFAULT_DATA = Path("/work/shared/data/locomo/locomo_dev.json")

CATEGORY_NAMES: Mapping[int, str] = {
    1: "multi-hop",
    2: "temporal",
    3: "open-domain",
    4: "single-hop",
    5: "adversarial",
}
#: The categories of the headline mean (category 5's right answer is to abstain).
HEADLINE_CATEGORIES = (1, 2, 3, 4)

_SESSION = re.compile(r"^session_(\d+)$")
_SPLIT = re.compile(r"[;\s]+")
_ID = re.compile(r"^D:?(\d+):0*(\d+)$")


@dataclass(frozen=True, slots=True)
class Turn:
    sample_id: str
    dia_id: str
    speaker: str
    text: str  # the turn's own words
    session: int
    date_time: dt.datetime  # the session's time, UTC
    date_text: str  # the session's time as written in the data
    blip_caption: str | None = None

    @property
    def source_id(self) -> str:
        return source_id(self.sample_id, self.dia_id)

    @property
    def indexed_text(self) -> str:
        """What every system indexes: "Speaker: text", plus the caption of a shared photo.

        The session date is kept as metadata (mneme: ``occurred_at``), not in the text.
        """
        body = f"{self.speaker}: {self.text}"
        if self.blip_caption:
            body += f" [shares a photo: {self.blip_caption}]"
        return body


@dataclass(frozen=True, slots=True)
class Question:
    sample_id: str
    index: int  # position in the conversation's qa list
    question: str
    answer: str
    category: int
    evidence: tuple[str, ...]  # normalized source ids (``<sample_id>:<dia_id>``)
    raw_evidence: tuple[str, ...]
    dropped: tuple[str, ...] = ()  # evidence tokens that name no turn of this conversation


@dataclass(frozen=True, slots=True)
class Conversation:
    sample_id: str
    speakers: tuple[str, str]
    turns: tuple[Turn, ...]  # in session order
    questions: tuple[Question, ...]

    @property
    def last_session_at(self) -> dt.datetime:
        return max(t.date_time for t in self.turns)


@dataclass(frozen=True, slots=True)
class DataReport:
    """What loading did to the evidence: the numbers a result must state."""

    conversations: int
    turns: int
    questions: int
    #: (sample_id, question index, evidence token) for every token that did not resolve
    dropped: tuple[tuple[str, int, str], ...]
    #: tokens that resolved only after a fix (split lists, ``D:`` typo, leading zero)
    repaired: int
    #: questions left with no evidence (skipped by scoring, never counted as perfect)
    empty_evidence: tuple[tuple[str, int, int], ...] = field(default=())  # (sample, idx, cat)


@dataclass(frozen=True, slots=True)
class Dataset:
    conversations: tuple[Conversation, ...]
    report: DataReport

    @property
    def questions(self) -> list[Question]:
        return [q for c in self.conversations for q in c.questions]


def source_id(sample_id: str, dia_id: str) -> str:
    return f"{sample_id}:{dia_id}"


def parse_session_time(text: str) -> dt.datetime:
    """``"1:56 pm on 8 May, 2023"`` -> an aware UTC datetime."""
    return dt.datetime.strptime(text.strip(), DATE_FORMAT).replace(tzinfo=dt.UTC)


def normalize_evidence(
    raw: Iterable[Any], known: Iterable[str]
) -> tuple[tuple[str, ...], tuple[str, ...], int]:
    """Split, repair and check evidence against a conversation's dia ids.

    Returns (resolved dia ids in first-seen order without repeats, dropped tokens, number of
    tokens that resolved only thanks to a repair).
    """
    valid = set(known)
    out: list[str] = []
    dropped: list[str] = []
    repaired = 0
    for item in raw:
        text = str(item)
        pieces = [p for p in _SPLIT.split(text.strip()) if p]
        if not pieces:
            continue
        for piece in pieces:
            m = _ID.match(piece)
            fixed = f"D{int(m.group(1))}:{int(m.group(2))}" if m else piece
            if fixed not in valid:
                dropped.append(piece)
                continue
            if fixed != piece or len(pieces) > 1:
                repaired += 1
            if fixed not in out:
                out.append(fixed)
    return tuple(out), tuple(dropped), repaired


def _sessions(conv: Mapping[str, Any]) -> list[tuple[int, list[Mapping[str, Any]], str]]:
    """(number, turns, date text) of every session that has turns; lone date keys ignored."""
    found = []
    for key, value in conv.items():
        m = _SESSION.match(key)
        if m and isinstance(value, list):
            n = int(m.group(1))
            found.append((n, value, str(conv[f"session_{n}_date_time"])))
    return sorted(found, key=lambda s: s[0])


def parse_sample(sample: Mapping[str, Any]) -> tuple[Conversation, list[tuple[str, int, str]], int]:
    """One conversation, with its dropped evidence tokens and count of repaired tokens."""
    sid = str(sample["sample_id"])
    conv = sample["conversation"]
    turns: list[Turn] = []
    for n, items, date_text in _sessions(conv):
        when = parse_session_time(date_text)
        for item in items:
            caption = item.get("blip_caption")
            turns.append(
                Turn(
                    sample_id=sid,
                    dia_id=str(item["dia_id"]),
                    speaker=str(item["speaker"]),
                    text=str(item["text"]),
                    session=n,
                    date_time=when,
                    date_text=date_text,
                    blip_caption=str(caption) if caption else None,
                )
            )
    dia_ids = [t.dia_id for t in turns]
    if len(set(dia_ids)) != len(dia_ids):
        raise ValueError(f"{sid}: repeated dia_id within the conversation")
    questions: list[Question] = []
    dropped: list[tuple[str, int, str]] = []
    repaired = 0
    for i, qa in enumerate(sample.get("qa", [])):
        ids, lost, fixes = normalize_evidence(qa.get("evidence") or [], dia_ids)
        repaired += fixes
        dropped.extend((sid, i, tok) for tok in lost)
        answer = qa.get("answer", qa.get("adversarial_answer", ""))
        questions.append(
            Question(
                sample_id=sid,
                index=i,
                question=str(qa["question"]),
                answer=str(answer),
                category=int(qa["category"]),
                evidence=tuple(source_id(sid, d) for d in ids),
                raw_evidence=tuple(str(e) for e in qa.get("evidence") or []),
                dropped=lost,
            )
        )
    speakers = (str(conv.get("speaker_a", "")), str(conv.get("speaker_b", "")))
    return Conversation(sid, speakers, tuple(turns), tuple(questions)), dropped, repaired


def load(path: str | Path = DEFAULT_DATA, *, limit: int | None = None) -> Dataset:
    """Read a LoCoMo JSON list (optionally only its first ``limit`` conversations)."""
    data = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(data, list):
        raise ValueError(f"{path}: expected a JSON list of samples")
    return from_samples(data[:limit] if limit else data)


def from_samples(samples: Sequence[Mapping[str, Any]]) -> Dataset:
    convs: list[Conversation] = []
    dropped: list[tuple[str, int, str]] = []
    repaired = 0
    for sample in samples:
        conv, lost, fixes = parse_sample(sample)
        convs.append(conv)
        dropped.extend(lost)
        repaired += fixes
    empty = tuple(
        (q.sample_id, q.index, q.category) for c in convs for q in c.questions if not q.evidence
    )
    report = DataReport(
        conversations=len(convs),
        turns=sum(len(c.turns) for c in convs),
        questions=sum(len(c.questions) for c in convs),
        dropped=tuple(dropped),
        repaired=repaired,
        empty_evidence=empty,
    )
    return Dataset(tuple(convs), report)
