"""The focus channel (read.focus, ADR 0103): a question naming an entity the bank knows is asked
again without the name, among the units that mention it."""

from __future__ import annotations

from typing import Any

import pytest
from tests.workloads import stores_per_setting

from mneme.core.model import Channel
from mneme.read.focus import name_keys, outermost, without_names


def test_names_are_capitalized_runs_less_the_words_that_open_a_question() -> None:
    assert name_keys("What activities does Melanie partake in?") == {"melanie": "Melanie"}
    assert name_keys("What do Melanie's kids like?") == {"melanie": "Melanie"}
    assert name_keys("Did Amy Ellis Nutt write it?") == {
        "amy ellis nutt": "Amy Ellis Nutt",
        "amy": "Amy",
        "ellis": "Ellis",
        "nutt": "Nutt",
    }
    assert name_keys("What did they paint?") == {}
    assert name_keys("what art does melanie make?") == {}  # not written as a name


def test_the_outermost_known_names_are_taken_out_and_a_bare_name_asks_nothing() -> None:
    assert outermost(["amy", "amy ellis nutt", "porto"]) == ["amy ellis nutt", "porto"]
    surfaces = name_keys("What do Melanie's kids like?")
    assert without_names("What do Melanie's kids like?", surfaces, ["melanie"]) == (
        "What do kids like?"
    )
    both = "When did Caroline and Melanie go hiking?"
    assert without_names(both, name_keys(both), ["caroline", "melanie"]) == (
        "When did and go hiking?"
    )
    assert without_names("Who is Melanie?", name_keys("Who is Melanie?"), ["melanie"]) is None


CHAT = [
    "Melanie: Anything interesting going on with you lately?",
    "Melanie: The kids had fun exploring and playing outside.",
    "Melanie: That's great to hear, I'm so happy for you!",
    "Melanie: Any plans for the weekend?",
    "Melanie: Thanks for being such a good friend to me.",
    "Melanie: I've been thinking a lot about family lately.",
    "Melanie: I just signed up for a pottery class yesterday.",
    "Melanie: My husband and I had our anniversary dinner.",
    "Caroline: I went to a support group meeting yesterday.",
    "Caroline: I'm thinking about becoming a counselor.",
    "Caroline: Melanie, you are such a good listener.",
]


@pytest.mark.slow
def test_recall_finds_what_a_named_person_did_through_the_focus_channel(
    db_path: Any, minilm: Any
) -> None:
    """Through Memory.recall with the default embedder: the pottery class ranks higher in the
    focus channel than in the semantic one; with ``focus_weight=0`` no hit carries the
    channel, nor when the name is said no more often than ``k`` deep. Another agent's private
    statement mentioning Melanie is never a candidate of it."""
    question = "What activities does Melanie partake in?"
    seen: dict[float, Any] = {}
    for weight, mem in stores_per_setting(str(db_path), minilm, "focus_weight", (0.7, 0.0)):
        for text in CHAT:
            mem.retain(text, bank="chat", agent="a1")
        mem.retain(
            "Melanie: I secretly take fencing lessons.",
            bank="chat",
            agent="a2",
            visibility="private",
        )
        # k=5: the list chooses 5 of Melanie's 9 statements.
        seen[weight] = mem.recall(question, bank="chat", agent="a1", k=5)
        assert not any("fencing" in h.text for h in seen[weight])
        # As deep as her statements are many, the list would hold all of them and choose
        # nothing: no focus channel.
        every = mem.recall(question, bank="chat", agent="a1", k=9)
        assert not any(Channel.FOCUS in h.channels for h in every)
        none = mem.recall("What plans are there for the weekend?", bank="chat", agent="a1", k=20)
        assert not any(Channel.FOCUS in h.channels for h in none)  # no name, no focus
    channels = {h.text: h.channels for h in seen[0.7]}
    pottery = next(t for t in channels if "pottery" in t)
    # Without the name the question is about activities: the class ranks higher there than in
    # the semantic channel, which reads the whole question.
    assert channels[pottery][Channel.FOCUS] < channels[pottery][Channel.SEMANTIC], channels
    assert not any(Channel.FOCUS in h.channels for h in seen[0.0])
    texts = {w: [h.text for h in hits] for w, hits in seen.items()}
    rank = {w: t.index(pottery) if pottery in t else len(t) for w, t in texts.items()}
    assert rank[0.7] <= rank[0.0], rank
