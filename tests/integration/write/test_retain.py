"""retain(): the immutable source, atomization, classification, entities, time, dedup, links."""

from __future__ import annotations

import datetime as dt
import re
import sqlite3
import unicodedata

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

import mneme
from mneme.core.model import EdgeType, Network, RetainStatus, UnitType, Verdict, Viewer
from mneme.errors import InvalidInput
from mneme.store.protocol import Filters

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)


def test_retain_stores_the_source_verbatim_and_returns_its_id(mem):
    text = "Carol is a nurse at the city hospital.  She lives in Porto with her sister."
    r = mem.retain(
        text,
        bank="b1",
        agent="a1",
        source_id="ev-5",
        occurred_at=T0,
        session="s1",
        metadata={"channel": "chat"},
    )
    assert r.status == RetainStatus.OK
    assert r.source_id == "ev-5"
    src = mem.source("ev-5")
    assert src.text == text
    assert src.session_id == "s1"
    assert src.metadata == {"channel": "chat"}
    assert src.occurred_at == T0


def test_sources_cannot_be_modified_even_through_sql(mem, db_path):
    mem.retain("Dana paints murals.", bank="b1", agent="a1", source_id="ev-1")
    db = sqlite3.connect(db_path)
    with pytest.raises(sqlite3.IntegrityError, match="immutable"):
        db.execute("UPDATE sources SET text = 'Dana paints nothing.' WHERE id = 'ev-1'")
    db.close()


def test_a_text_is_atomized_into_one_claim_units_that_stand_alone(mem):
    r = mem.retain(
        "Carol is a nurse at the city hospital. She lives in Porto with her sister.",
        bank="b1",
        agent="a1",
        source_id="ev-5",
        occurred_at=T0,
    )
    assert len(r.memory_ids) == 2
    texts = [mem.get(i).text for i in r.memory_ids]
    assert texts == [
        "Carol is a nurse at the city hospital.",
        "Carol lives in Porto with her sister.",
    ]
    for uid in r.memory_ids:
        assert mem.get(uid).evidence == ("ev-5",)


@pytest.mark.parametrize(
    ("text", "network", "utype"),
    [
        ("I went hiking in the Alps last weekend.", Network.EXPERIENCE, UnitType.EXPERIENCE),
        ("I love spicy Thai food.", Network.WORLD, UnitType.PREFERENCE),
        ("I think Rust is the best language for this.", Network.OPINION, None),
        ("The staging server has 64 GB of RAM.", Network.WORLD, UnitType.FACT),
        ("I plan to learn Japanese next year.", None, UnitType.GOAL),
    ],
)
def test_units_are_classified_into_a_network_and_a_type(mem, text, network, utype):
    r = mem.retain(text, bank="b1", agent="a1", occurred_at=T0)
    unit = mem.get(r.memory_ids[0])
    if network is not None:
        assert unit.network == network
    if utype is not None:
        assert unit.type == utype


def test_relative_time_is_resolved_against_the_source_time(mem):
    r = mem.retain("I ran a charity race yesterday.", bank="b1", agent="a1", occurred_at=T0)
    unit = mem.get(r.memory_ids[0])
    assert unit.occurred_start == dt.datetime(2024, 3, 4, tzinfo=dt.UTC)
    assert unit.occurred_end == dt.datetime(2024, 3, 5, tzinfo=dt.UTC)
    r = mem.retain("The review is on 12 June 2024.", bank="b1", agent="a1", occurred_at=T0)
    unit = mem.get(r.memory_ids[0])
    assert unit.occurred_start == dt.datetime(2024, 6, 12, tzinfo=dt.UTC)
    assert unit.valid_from == T0  # a claim about the future holds from when it was said


def test_a_unit_without_a_time_expression_happened_when_its_source_did(mem):
    r = mem.retain("Ezra bakes sourdough.", bank="b1", agent="a1", occurred_at=T0)
    unit = mem.get(r.memory_ids[0])
    assert unit.occurred_start == unit.occurred_end == unit.valid_from == T0


def test_entities_are_extracted_and_linked_to_their_units(mem):
    r = mem.retain("Alice moved to Lisbon to join Harbor Labs.", bank="b1", agent="a1")
    unit = mem.get(r.memory_ids[0])
    assert {"Alice", "Lisbon", "Harbor Labs"} <= set(unit.entities)
    r2 = mem.retain("Harbor Labs builds tide gauges.", bank="b1", agent="a1")
    links = mem._store.channels.graph_links(
        Viewer("b1", "a1", mneme.Scope.COLLECTIVE),
        [r2.memory_ids[0]],
        Filters(),
        10,
    )
    assert any(
        li.dst == unit.id and li.type == "ENTITY" and li.via == "Harbor Labs" for li in links
    )


def test_every_unit_is_part_of_its_source(mem):
    r = mem.retain(
        "Farah keeps bees. She sells the honey.", bank="b1", agent="a1", source_id="ev-7"
    )
    for uid in r.memory_ids:
        view = mem.graph(uid)
        assert any(
            e.type == EdgeType.PART_OF and e.src == uid and e.dst == "ev-7" for e in view.edges
        )


def test_an_exact_repeat_becomes_evidence_not_a_copy(mem):
    first = mem.retain(
        "Bob drinks green tea every morning.", bank="b1", agent="a1", source_id="ev-2"
    )
    again = mem.retain(
        "bob drinks green tea every morning", bank="b1", agent="a1", source_id="ev-3"
    )
    assert again.memory_ids == first.memory_ids
    assert again.decisions[0].verdict == Verdict.NOOP
    assert again.deduped == first.memory_ids
    unit = mem.get(first.memory_ids[0])
    assert unit.evidence == ("ev-2", "ev-3")
    assert unit.knowers == ("a1",)


def test_the_same_fact_from_another_agent_adds_a_knower(mem):
    first = mem.retain("The release train leaves every second Tuesday.", bank="b1", agent="a1")
    second = mem.retain("The release train leaves every second Tuesday.", bank="b1", agent="a2")
    assert second.memory_ids == first.memory_ids
    assert second.decisions[0].verdict == Verdict.LINK_EXISTING
    assert mem.get(first.memory_ids[0]).knowers == ("a1", "a2")
    third = mem.retain("The release train leaves every second Tuesday.", bank="b1", agent="a2")
    assert third.decisions[0].verdict == Verdict.NOOP
    assert mem.get(first.memory_ids[0]).knowers == ("a1", "a2")
    hits = mem.recall("When does the release train leave?", bank="b1", agent="a2")
    assert hits[0].unit.id == first.memory_ids[0]


def test_a_write_heartbeats_its_agent(mem, clock):
    mem.retain("Gale tunes pianos.", bank="b1", agent="a1")
    clock.advance(hours=2)
    mem.retain("Gale tunes harps too.", bank="b1", agent="a2")
    roster = mem.swarm.roster("b1")
    assert [a.id for a in roster.live] == ["a2"]
    assert roster.hidden_stale == 1


def test_explicit_supersedes_retires_the_corrected_units(mem):
    old = mem.retain("I live in Paris.", bank="b1", agent="a1", source_id="ev-1", occurred_at=T0)
    new = mem.retain(
        "I live in Berlin.",
        bank="b1",
        agent="a1",
        source_id="ev-2",
        occurred_at=T0 + dt.timedelta(days=30),
        supersedes=["ev-1"],
    )
    assert any(d.verdict == Verdict.SUPERSEDE for d in new.decisions)
    was = mem.get(old.memory_ids[0])
    assert was.status == mneme.UnitStatus.SUPERSEDED
    assert was.superseded_by == new.memory_ids[0]
    assert was.valid_until == T0 + dt.timedelta(days=30)
    assert mem.get(new.memory_ids[0]).supersedes == (was.id,)


def test_retain_many_is_one_batch_with_one_result_per_item(mem):
    items = [
        {
            "text": f"Item {i} is stored in bin {i}.",
            "bank": "b1",
            "agent": "a1",
            "source_id": f"ev-{i}",
        }
        for i in range(20)
    ]
    results = mem.retain_many(items)
    assert [r.source_id for r in results] == [f"ev-{i}" for i in range(20)]
    assert len({r.memory_ids[0] for r in results}) == 20


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(
    st.text(
        alphabet=st.characters(codec="utf-8", exclude_characters="\x00"),
        min_size=1,
        max_size=300,
    ).filter(lambda s: s.strip())
)
@example("0:")
@example("\u200b\u2060")
@example("Dana: ")
def test_whatever_is_retained_can_be_read_back_exactly(mem, text):
    if not any(unicodedata.category(c)[0] not in "ZC" for c in text):
        # Nothing anyone could read (zero-width and format characters): a clear refusal.
        with pytest.raises(InvalidInput, match="no visible characters"):
            mem.retain(text, bank="fuzz", agent="a1")
        return
    if re.fullmatch(r"\s*[^:\n]{1,60}:\s*", text):
        # Only a label or a speaker ("0:", "Dana: "): a clear refusal, nothing written.
        with pytest.raises(InvalidInput, match="only a speaker or a label"):
            mem.retain(text, bank="fuzz", agent="a1")
        return
    r = mem.retain(text, bank="fuzz", agent="a1")
    assert mem.source(r.source_id).text == text
    for uid in r.memory_ids:
        assert mem.get(uid).bank_id == "fuzz"


def test_a_correction_is_never_merged_into_what_it_corrects(mem):
    # Worded close enough to be "more evidence" for the original (it says less): with
    # supersedes= it is a new unit that retires the original.
    old = mem.retain(
        "The launch party is at the Grand Hotel ballroom.", bank="b1", agent="a1", source_id="ev-1"
    )
    new = mem.retain(
        "The launch party is at the Grand Hotel.",
        bank="b1",
        agent="a1",
        source_id="ev-2",
        supersedes=["ev-1"],
    )
    (was_id,) = old.memory_ids
    (now_id,) = new.memory_ids
    assert now_id != was_id
    assert was_id not in new.deduped
    assert not any(d.verdict == Verdict.NOOP for d in new.decisions)
    was = mem.get(was_id)
    assert was.status == mneme.UnitStatus.SUPERSEDED
    assert was.superseded_by == now_id
    assert mem.get(now_id).evidence == ("ev-2",)


def test_a_correction_is_no_dispute_with_what_it_corrects(mem):
    # Without supersedes= another value of the slot would be a question; the caller's
    # correction retires the old one and reports neither a conflict nor a question.
    old = mem.retain("The CDN provider is Fastly.", bank="b1", agent="a1")
    (was_id,) = old.memory_ids
    new = mem.update(was_id, "The CDN provider is Cloudflare.", agent="a1")
    assert new.status == mneme.RetainStatus.OK
    assert new.questions == ()
    assert not any(d.verdict == Verdict.CONTRADICT for d in new.decisions)
    assert mem.get(was_id).superseded_by == new.memory_ids[0]
    assert mem.conflicts.list(bank="b1") == []  # none open: the correction settled it
    assert {c.status for c in mem.conflicts.list(bank="b1", status="all")} <= {"resolved"}


def test_the_same_wording_without_supersedes_is_still_more_evidence(mem):
    old = mem.retain(
        "The launch party is at the Grand Hotel ballroom.", bank="b1", agent="a1", source_id="ev-1"
    )
    new = mem.retain("The launch party is at the Grand Hotel.", bank="b1", agent="a1")
    assert new.memory_ids == old.memory_ids
    assert mem.get(old.memory_ids[0]).status == mneme.UnitStatus.ACTIVE


def test_a_correction_that_repeats_another_known_unit_supersedes_through_it(mem):
    old = mem.retain("I live in Paris.", bank="b1", agent="a1", source_id="ev-1")
    berlin = mem.retain("I live in Berlin.", bank="b1", agent="a2", source_id="ev-2")
    fix = mem.retain(
        "I live in Berlin.", bank="b1", agent="a1", source_id="ev-3", supersedes=["ev-1"]
    )
    assert fix.memory_ids == berlin.memory_ids
    was = mem.get(old.memory_ids[0])
    assert was.status == mneme.UnitStatus.SUPERSEDED
    assert was.superseded_by == berlin.memory_ids[0]


def test_metadata_holds_json_and_values_with_one_obvious_text(mem):
    import uuid

    when = dt.date(2024, 3, 1)
    key = uuid.UUID("12345678-1234-5678-1234-567812345678")
    r = mem.retain("Dora filed the lease.", bank="b1", agent="a1", metadata={"on": when, "k": key})
    assert mem.source(r.source_id).metadata == {"on": "2024-03-01", "k": str(key)}
    with pytest.raises(InvalidInput, match="'object' is not JSON"):
        mem.retain("Dora signed it.", bank="b1", agent="a1", metadata={"x": object()})
    assert [u.text for u in mem.list_memories(bank="b1")] == ["Dora filed the lease."]


def test_a_listing_offset_is_a_whole_number_from_zero(mem):
    mem.retain("Dora filed the lease.", bank="b1", agent="a1")
    assert len(mem.list_memories(bank="b1", offset=0)) == 1
    for bad in (-1, "2", 1.5, True):
        with pytest.raises(InvalidInput, match="offset must be a whole number from 0"):
            mem.list_memories(bank="b1", offset=bad)
