"""recall(): four channels, fusion, rerank, provenance, filters and the flags on every hit."""

from __future__ import annotations

import datetime as dt
import socket

import pytest

import mneme
import mneme.core.model
import mneme.store.protocol
from mneme.core.model import Channel
from mneme.embed.hashing import HashingEmbedder

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)


@pytest.fixture
def diary(mem: mneme.Memory) -> mneme.Memory:
    mem.retain(
        "Alice moved to Lisbon in March 2024 to join the Harbor Labs team.",
        bank="b1",
        agent="a1",
        source_id="ev-1",
        occurred_at=T0,
    )
    mem.retain(
        "Bob drinks green tea every morning.",
        bank="b1",
        agent="a1",
        source_id="ev-2",
        occurred_at=T0 + dt.timedelta(days=1),
    )
    mem.retain(
        "The quarterly review with Harbor Labs is on 12 June 2024.",
        bank="b1",
        agent="a1",
        source_id="ev-3",
        occurred_at=T0 + dt.timedelta(days=2),
    )
    mem.retain(
        "Carol is a nurse at the city hospital. She lives in Porto with her sister.",
        bank="b1",
        agent="a1",
        source_id="ev-5",
        occurred_at=T0,
    )
    return mem


def test_every_hit_carries_its_provenance(diary):
    hits = diary.recall("Where does Alice live?", bank="b1", agent="a1", k=3)
    top = hits[0]
    assert "Lisbon" in top.text
    assert top.evidence_source_ids == ("ev-1",)
    assert top.origin == "seed"
    assert top.channels
    assert all(rank >= 1 for rank in top.channels.values())
    assert set(top.channels) <= {c.value for c in Channel}


def test_the_temporal_channel_runs_only_when_the_query_names_a_time(diary):
    dated = diary.recall("What happens in June 2024?", bank="b1", agent="a1", k=3)
    assert "quarterly review" in dated[0].text
    assert Channel.TEMPORAL in dated[0].channels
    plain = diary.recall("What does Bob drink?", bank="b1", agent="a1", k=5)
    assert all(Channel.TEMPORAL not in h.channels for h in plain)


def test_a_time_window_keeps_what_happened_inside_it(diary):
    hits = diary.recall(
        "Harbor Labs",
        bank="b1",
        agent="a1",
        k=5,
        time_from="2024-06-01",
        time_to="2024-06-30T23:59:59Z",
    )
    inside = [h for h in hits if not h.flashback]
    assert [h.text for h in inside] == ["The quarterly review with Harbor Labs is on 12 June 2024."]


def test_graph_hits_from_outside_the_window_are_flagged_flashbacks_and_capped(diary):
    hits = diary.recall(
        "quarterly review",
        bank="b1",
        agent="a1",
        k=10,
        time_from="2024-06-01",
        time_to="2024-06-30",
    )
    flash = [h for h in hits if h.flashback]
    assert flash, "the Lisbon move shares Harbor Labs with the review and should come back"
    assert len(flash) <= diary.config.recall.flashback_cap
    for h in flash:
        assert h.origin == "graph"
        assert h.via_edge
        assert h.parent
        assert h.unit.occurred_start < dt.datetime(2024, 6, 1, tzinfo=dt.UTC)


def test_graph_hits_name_the_edge_and_the_parent_that_brought_them(mem):
    mem.retain("Quinn maintains the Osprey telescope.", bank="b1", agent="a1", occurred_at=T0)
    mem.retain("The Osprey telescope needs a new mirror.", bank="b1", agent="a1", occurred_at=T0)
    hits = mem.recall("Who maintains things for Quinn?", bank="b1", agent="a1", k=5)
    graph = [h for h in hits if h.origin == "graph"]
    assert graph
    assert all(h.via_edge and h.parent for h in graph)


def test_sibling_atoms_of_one_source_are_distinct_hits_that_name_each_other(mem):
    mem.retain(
        "Rosa grows tomatoes. Rosa grows basil. Rosa grows peppers.",
        bank="b1",
        agent="a1",
        source_id="ev-garden",
        occurred_at=T0,
    )
    mem.retain("Sam grows tomatoes too.", bank="b1", agent="a1", source_id="ev-sam", occurred_at=T0)
    hits = mem.recall("Who grows tomatoes, basil and peppers?", bank="b1", agent="a1", k=5)
    sources = [h.evidence_source_ids[0] for h in hits]
    # Three facts, three hits: no sibling hides behind another one's place.
    assert sources.count("ev-garden") == 3
    garden = [h for h in hits if h.evidence_source_ids[0] == "ev-garden"]
    assert {h.text for h in garden} == {
        "Rosa grows tomatoes.",
        "Rosa grows basil.",
        "Rosa grows peppers.",
    }
    for h in garden:
        assert set(h.family) == {g.id for g in garden} - {h.id}


def test_superseded_units_rank_below_their_successor_and_are_flagged(mem):
    old = mem.retain("I live in Paris.", bank="b1", agent="a1", source_id="ev-1", occurred_at=T0)
    new = mem.retain(
        "I live in Berlin now.",
        bank="b1",
        agent="a1",
        source_id="ev-2",
        occurred_at=T0 + dt.timedelta(days=40),
        supersedes=["ev-1"],
    )
    hits = mem.recall("I live in Paris", bank="b1", agent="a1", k=5)
    ids = [h.unit.id for h in hits]
    assert ids.index(new.memory_ids[0]) < ids.index(old.memory_ids[0])
    flagged = hits[ids.index(old.memory_ids[0])]
    assert flagged.superseded
    assert flagged.successor == new.memory_ids[0]
    current = mem.recall("I live in Paris", bank="b1", agent="a1", k=5, include_superseded=False)
    assert old.memory_ids[0] not in [h.unit.id for h in current]


def test_as_of_rebuilds_what_was_believed_then(mem):
    mem.retain("I work at Acme Robotics.", bank="b1", agent="a1", source_id="j1", occurred_at=T0)
    mem.retain(
        "I work at Globex Labs.",
        bank="b1",
        agent="a1",
        source_id="j2",
        occurred_at=T0 + dt.timedelta(days=40),
        supersedes=["j1"],
    )
    past = mem.recall(
        "Where do I work?", bank="b1", agent="a1", k=3, as_of=T0 + dt.timedelta(days=10)
    )
    assert [h.text for h in past] == ["I work at Acme Robotics."]
    assert not past[0].superseded  # the supersession was not yet in force then
    now = mem.recall("Where do I work?", bank="b1", agent="a1", k=3)
    assert "Globex" in now[0].text


def test_a_type_filter_keeps_only_those_types(mem):
    mem.retain("I love spicy Thai food.", bank="b1", agent="a1")
    mem.retain("Thai food uses a lot of lemongrass.", bank="b1", agent="a1")
    hits = mem.recall("Thai food", bank="b1", agent="a1", k=5, types=["preference"])
    assert [h.text for h in hits] == ["I love spicy Thai food."]


def test_ranking_is_deterministic_for_a_fixed_corpus(diary):
    runs = [
        [
            (h.unit.id, h.score)
            for h in diary.recall("Harbor Labs team", bank="b1", agent="a1", k=10)
        ]
        for _ in range(3)
    ]
    assert runs[0] == runs[1] == runs[2]


class _CountingEmbedder:
    def __init__(self, inner: HashingEmbedder) -> None:
        self.inner = inner
        self.model_id = inner.model_id
        self.dim = inner.dim
        self.calls: list[list[str]] = []

    def embed(self, texts):
        self.calls.append(list(texts))
        return self.inner.embed(texts)


def test_the_read_path_makes_no_model_call_but_the_query_embedding(diary, monkeypatch):
    counting = _CountingEmbedder(diary.embedder)
    diary._recaller.embedder = counting
    opened: list[object] = []

    def refuse(self, address):
        opened.append(address)
        raise OSError("the read path must not open a network connection")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    # k=1: the diary names Harbor Labs more often than that, so the focus channel has a
    # list to choose from (ADR 0103).
    hits = diary.recall("What happens in June 2024 with Harbor Labs?", bank="b1", agent="a1", k=1)
    assert hits
    # The question's embedding, and the focus channel's: the question without the name the
    # bank knows (ADR 0103), embedded beside it in the recall pool.
    assert sorted(counting.calls) == [
        ["What happens in June 2024 with Harbor Labs?"],
        ["What happens in June 2024 with?"],
    ]
    assert opened == []
    assert not hasattr(diary, "llm") or diary.llm is None or diary.llm.calls == 0


def test_entity_hops_can_be_turned_on_for_the_graph_channel(db_path):
    mem = mneme.Memory.open(
        db_path,
        embedder="hashing",
        recall={"graph_kinds": ["EDGE", "ENTITY"], "graph_query_entities": True},
    )
    try:
        mem.retain("Quinn maintains the Osprey telescope.", bank="b1", agent="a1")
        mem.retain("Tomas polished the mirror of the Osprey telescope.", bank="b1", agent="a1")
        hits = mem.recall("What about Osprey?", bank="b1", agent="a1", k=5)
        assert any(h.channels.get("graph") for h in hits)
        links = mem._store.channels.graph_links(
            mneme.core.model.Viewer("b1", "a1", mneme.Scope.COLLECTIVE),
            [hits[0].id],
            mneme.store.protocol.Filters(),
            10,
            kinds=frozenset({"ENTITY"}),
        )
        assert links
        assert all(li.type == "ENTITY" for li in links)
    finally:
        mem.close()


def test_an_alias_statement_bridges_a_query_to_the_other_name(mem):
    bank = "alias"
    a = mem.retain(
        "Nnamdi Okafor joined the billing team; everyone calls him Nam.", bank=bank, agent="a1"
    ).memory_ids[0]
    fact = mem.retain(
        "Nam promised to fix ticket BIL-207 before the freeze.", bank=bank, agent="a1"
    ).memory_ids[0]
    hits = mem.recall("Which ticket did Nnamdi Okafor promise to fix?", bank=bank, agent="a1")
    assert hits[0].id == fact
    assert (hits[0].via_edge, hits[0].parent) == ("ALIAS", a)


def test_my_means_the_asking_agent(mem):
    bank = "self"
    mem.retain("The team sandbox account is sbx-team-01.", bank=bank, agent="builder")
    mine = mem.retain(
        "My own sandbox account is sbx-scout-44.", bank=bank, agent="scout", visibility="private"
    ).memory_ids[0]
    hits = mem.recall(
        "What is my own sandbox account?", bank=bank, agent="scout", scope="collective"
    )
    assert hits[0].id == mine


def test_a_question_about_now_is_answered_by_a_value_besides_the_one_it_names(
    mem: mneme.Memory,
) -> None:
    """ "Where has Melanie camped?" names Melanie: the newest statement that only names her
    states no place, and does not jump ahead of the ones that do."""
    day = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
    for i, text in enumerate(
        [
            "Melanie camped at Lake Tahoe with her kids.",
            "Melanie camped in Yosemite last summer.",
            "Melanie signed up for a pottery class.",
        ]
    ):
        mem.retain(text, bank="b1", agent="a1", occurred_at=day + dt.timedelta(days=i))
    hits = mem.recall("Where has Melanie camped?", bank="b1", agent="a1", k=5)
    assert "pottery" not in hits[0].text
    assert hits[0].text.startswith("Melanie camped in Yosemite")  # the newest place first


def test_a_question_naming_its_subject_but_not_the_kind_of_answer_gets_the_newest_value(
    mem: mneme.Memory,
) -> None:
    """ "Which React version does the app use?" says what it is about (React), not which kind
    of value answers it: its best match tells (a name), and the newest statement of one about
    React comes first. A newer memory about something else moves nothing."""
    day = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
    for i, text in enumerate(
        [
            "The app uses React 17.",
            "We migrated the app to React 18.",
            "The team lunch moved to the Thai place on Friday.",
        ]
    ):
        mem.retain(text, bank="b2", agent="a1", occurred_at=day + dt.timedelta(days=i))
    hits = mem.recall("Which React version does the app use?", bank="b2", agent="a1", k=5)
    assert hits[0].text == "We migrated the app to React 18."
    assert "React 17" in hits[1].text
    # A question that names nothing is left to the ranking as it is.
    hits = mem.recall("Which version does the app use?", bank="b2", agent="a1", k=5)
    assert "lunch" not in hits[0].text


def test_a_question_that_names_nothing_is_answered_about_its_subject_not_the_newest_name(
    mem: mneme.Memory,
) -> None:
    """ "What is our cat called?" asks for a name and names none: the newer "Our dog is named
    Miso." states a name too, but of another subject, and does not jump ahead."""
    day = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)
    mem.retain("Our cat is named Pixel.", bank="b3", agent="a1", occurred_at=day)
    mem.retain("Our dog is named Miso.", bank="b3", agent="a1", occurred_at=day.replace(day=6))
    hits = mem.recall("What is our cat called?", bank="b3", agent="a1", k=5)
    assert hits[0].text == "Our cat is named Pixel."
    # A subject the question shares with both is no bar: the newest of them comes first.
    mem.retain("Our cat is named Luna now.", bank="b3", agent="a1", occurred_at=day.replace(day=7))
    hits = mem.recall("What is our cat called?", bank="b3", agent="a1", k=5)
    assert hits[0].text == "Our cat is named Luna now."


@pytest.mark.slow
@pytest.mark.parametrize(("factor", "question_first"), [(None, False), (1.0, True)])
def test_a_question_that_names_no_value_ranks_below_what_answers_it(
    db_path, minilm, factor, question_first
):
    # ADR 0067: "Bob: Congrats! What breed is your puppy?" asks and states nothing; with the
    # default factor it ranks below the answer; with the factor off (1) it outranked it.
    recall = {} if factor is None else {"question_factor": factor}
    mem = mneme.Memory.open(db_path, embedder=minilm, recall=recall)
    try:
        for text in (
            "Alice: I just adopted a puppy!",
            "Bob: Congrats! What breed is your puppy?",
            "Alice: He's a beagle mix.",
        ):
            mem.retain(text, bank="chat", agent="a1", session="c1")
        texts = [
            h.text for h in mem.recall("What breed is Alice's puppy?", bank="chat", agent="a1")
        ]
        asked = texts.index("Bob: Congrats! What breed is your puppy?")
        answer = texts.index("Alice: He's a beagle mix.")
        assert (asked < answer) is question_first
    finally:
        mem.close()


@pytest.mark.parametrize("budget", [0, 5, 15, 100_001, "800", True])
def test_a_context_budget_outside_its_range_says_the_range(mem, budget):
    mem.retain("Rosa keeps the van keys in box 9.", bank="b1", agent="a1")
    with pytest.raises(mneme.errors.InvalidInput, match="from 16 to 100000"):
        mem.context("Where are the van keys?", bank="b1", agent="a1", max_tokens=budget)
    assert mem.context("Where are the keys?", bank="b1", agent="a1", max_tokens=16).tokens <= 16
