"""Whether the write path's retirements are changes SGD's annotations record.

Every superseded unit of a store holding SGD turns (as ``bench.sgd.run`` writes them) is
checked against the dialogue state: a retirement is *supported* when some (service, slot)
that the retired unit's user turn set or changed (its state differs from the user turn before,
or the turn states the slot in a span) is changed again, to another value, by the user turn of
its successor. Otherwise nothing the annotations record changed between the two turns: the
retirement is *unsupported*, the measure of destructive verdicts over the whole set (the
decision set's "0 destructive" counts only its sampled pairs). Labels come from the
annotations alone; pairs whose turns are not both user turns of one dialogue are not judged
(in a bank shared by dialogues with no service in common, a retirement across two of them is
unsupported: ``support(..., across=True)``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.sgd.data import Dialogue

Slot = tuple[str, str]


def state_changes(dialogue: Dialogue) -> dict[int, dict[Slot, frozenset[str]]]:
    """For each user turn (by index): the slots whose value the state set or changed there,
    each with its value's equivalent forms ("dontcare" left out)."""
    out: dict[int, dict[Slot, frozenset[str]]] = {}
    before: dict[Slot, tuple[str, ...]] = {}
    for turn in dialogue.user_turns:
        state = dict(turn.state)
        out[turn.index] = {
            slot: frozenset(forms)
            for slot, forms in state.items()
            if forms and forms != ("dontcare",) and before.get(slot) != forms
        }
        before = state
    return out


def supported(
    dialogue: Dialogue,
    old: int,
    new: int,
    changes: Mapping[int, Mapping[Slot, frozenset[str]]] | None = None,
) -> bool | None:
    """Whether the user turn ``new`` changes again a slot the user turn ``old`` set or stated;
    None when either is not a user turn of the dialogue. ``changes``: the dialogue's
    ``state_changes``, if already read."""
    if changes is None:
        changes = state_changes(dialogue)
    if old not in changes or new not in changes:
        return None
    stated = {(s.service, s.slot) for t in dialogue.turns if t.index == old for s in t.spans}
    then, now = changes[old], changes[new]
    return any(slot in now and now[slot] != forms for slot, forms in then.items()) or any(
        slot in now for slot in stated
    )


@dataclass
class Support:
    """Retirements judged against the annotations, by split, with the unsupported ones."""

    counts: dict[str, dict[str, int]] = field(default_factory=dict)
    unsupported: list[dict[str, str]] = field(default_factory=list)

    def add(self, split: str, ok: bool, example: dict[str, str]) -> None:
        row = self.counts.setdefault(split, {"supported": 0, "unsupported": 0})
        row["supported" if ok else "unsupported"] += 1
        if not ok:
            self.unsupported.append(example)

    def as_dict(self) -> dict[str, Any]:
        return {"counts": self.counts, "unsupported": self.unsupported}


def support(
    units: Iterable[Any], dialogues: Mapping[str, Dialogue], across: bool = False
) -> Support:
    """Judge every superseded unit among ``units`` (``mneme.Unit``s of any banks) whose
    successor is among them too. With ``across`` (banks holding several dialogues that share
    no service, ``bench.sgd.shared``), a retirement by a turn of another dialogue is
    unsupported: nothing the annotations record ties two such dialogues."""
    by_id = {u.id: u for u in units}
    out = Support()
    read: dict[str, dict[int, dict[Slot, frozenset[str]]]] = {}
    for u in by_id.values():
        successor = by_id.get(u.superseded_by or "")
        if u.status.value != "superseded" or successor is None:
            continue
        old, new = _turn(u.evidence), _turn(successor.evidence)
        if old is None or new is None or old[0] not in dialogues:
            continue
        example = {
            "old": f"{old[0]}:{old[1]}",
            "new": f"{new[0]}:{new[1]}",
            "old_text": u.text,
            "new_text": successor.text,
        }
        if old[0] != new[0]:
            if across and new[0] in dialogues:
                out.add(dialogues[old[0]].split, False, example)
            continue
        dialogue = dialogues[old[0]]
        if dialogue.id not in read:
            read[dialogue.id] = state_changes(dialogue)
        ok = supported(dialogue, old[1], new[1], read[dialogue.id])
        if ok is None:
            continue
        out.add(dialogue.split, ok, example)
    return out


def _turn(evidence: Sequence[str]) -> tuple[str, int] | None:
    """The (dialogue id, turn index) of the first SGD source id a unit rests on."""
    for source_id in evidence:
        dialogue, _, index = source_id.rpartition(":")
        if dialogue and index.isdigit():
            return dialogue, int(index)
    return None


def line(counts: Mapping[str, Mapping[str, int]]) -> str:
    """One line of the report: the supported share of retirements, by split."""
    parts = []
    for split in sorted(counts):
        row = counts[split]
        n = row["supported"] + row["unsupported"]
        share = row["supported"] / n if n else 0.0
        parts.append(f"{split} {row['supported']}/{n} ({share:.3f})")
    return (
        "mneme retirements the annotations support (a slot the retired turn set is changed "
        "by its successor's turn; bench.sgd.supersedes): " + ", ".join(parts)
    )
