"""Reflect through Memory on a real SQLite file: observations consolidated from evidence,
kept consistent with it (revised, retired, erased), idempotent, and never built on another
agent's private memories (issue 19, ADR 0051)."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import pytest

import mneme
from mneme.background.reflect import Reflector
from mneme.core.model import EdgeType, Network, Scope, UnitStatus, Viewer
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import InvalidInput, NotFound

BANK = "people"
OWNER = Viewer(BANK, "test", Scope.OWNER)
DAY = dt.datetime(2023, 5, 1, 9, tzinfo=dt.UTC)


def say(mem: mneme.Memory, text: str, day: int, *, agent: str = "a1", **kw: Any) -> str:
    r = mem.retain(
        text,
        bank=BANK,
        agent=agent,
        occurred_at=DAY + dt.timedelta(days=day),
        source_id=f"s{day}",
        **kw,
    )
    assert len(r.memory_ids) == 1, r
    return r.memory_ids[0]


@pytest.fixture
def oliver(mem: mneme.Memory) -> dict[str, str]:
    return {
        "hiking": say(mem, "Oliver likes hiking.", 1),
        "painting": say(mem, "Oliver likes painting.", 2),
        "lisbon": say(mem, "Oliver lives in Lisbon.", 3),
    }


def observations(mem: mneme.Memory, *, status: UnitStatus | None = UnitStatus.ACTIVE) -> list[Any]:
    return [
        u
        for u in mem.list_memories(bank=BANK, limit=500)
        if u.network == Network.OBSERVATION and (status is None or u.status == status)
    ]


def by_key(mem: mneme.Memory) -> dict[str, Any]:
    return {u.metadata["observation"]["key"]: u for u in observations(mem)}


def test_reflect_writes_observations_that_cite_their_evidence(mem, oliver):
    report = mem.reflect(BANK, agent="a1")
    assert len(report.created) == 2
    assert report.evidence == 3
    assert report.seconds >= 0
    obs = by_key(mem)
    about = obs["entity:oliver"]
    meta = about.metadata["observation"]
    assert meta["evidence_units"] == [oliver["hiking"], oliver["painting"], oliver["lisbon"]]
    assert meta["proof_count"] == 3
    assert meta["first_evidence_at"].startswith("2023-05-02")
    assert meta["last_evidence_at"].startswith("2023-05-04")
    assert about.evidence == ("s1", "s2", "s3")
    assert about.embedding_model is not None
    derived = {e.dst for e in mem.graph(about.id).edges if e.type == EdgeType.DERIVED_FROM}
    assert derived == set(oliver.values())
    assert set(obs) == {"entity:oliver", "topic:oliver|likes"}
    assert "reflect" in {r.op for r in mem.admin.audit_log(bank=BANK)}


def test_a_second_reflect_adds_nothing(mem, oliver):
    mem.reflect(BANK, agent="a1")
    units = len(mem.list_memories(bank=BANK, limit=500))
    records = len(list(mem.admin.audit_log(bank=BANK)))
    again = mem.reflect(BANK, agent="a1")
    assert (again.created, again.revised, again.retired) == ((), (), ())
    assert again.unchanged == 2
    assert len(mem.list_memories(bank=BANK, limit=500)) == units
    assert len(list(mem.admin.audit_log(bank=BANK))) == records


def test_new_evidence_revises_the_observation_and_keeps_the_old_version(mem, oliver, clock):
    mem.reflect(BANK, agent="a1")
    old = by_key(mem)["topic:oliver|likes"]
    clock.advance(days=1)
    say(mem, "Oliver likes sailing.", 9)
    report = mem.reflect(BANK, agent="a1")
    new = by_key(mem)["topic:oliver|likes"]
    assert (old.id, new.id) in report.revised
    assert new.metadata["observation"]["proof_count"] == 3
    assert new.metadata["observation"]["revision"] == 2
    assert new.metadata["observation"]["history"][0]["id"] == old.id
    assert new.supersedes == (old.id,)
    before = mem.get(old.id)
    assert before.status == UnitStatus.SUPERSEDED
    assert before.superseded_by == new.id
    assert before.text == old.text  # superseded, never edited


def test_rejected_evidence_retires_its_observations_at_once(mem, oliver):
    mem.reflect(BANK, agent="a1")
    likes = by_key(mem)["topic:oliver|likes"]
    mem.review.reject(oliver["painting"], "he never painted", "rev1")
    retired = mem.get(likes.id)
    assert retired.status == UnitStatus.ARCHIVED
    assert retired.retired_at is not None
    assert "rejected" in retired.metadata["retired_because"]
    # The next pass re-derives what is left: the entity is revised, the topic is too thin.
    report = mem.reflect(BANK, agent="a1")
    assert "topic:oliver|likes" in dict(report.skipped)
    entity = by_key(mem)["entity:oliver"]
    assert oliver["painting"] not in entity.metadata["observation"]["evidence_units"]
    assert "painting" not in entity.text
    assert "topic:oliver|likes" not in by_key(mem)


def test_evidence_back_to_an_earlier_state_is_a_new_version_not_an_error(mem, oliver):
    # A statement added and then rejected brings the group back to evidence it had before:
    # the same composition again, written as a new version (it once failed on a content key
    # the bank already held).
    mem.reflect(BANK, agent="a1")
    first = by_key(mem)["topic:oliver|likes"]
    chess = say(mem, "Oliver likes chess.", 7)
    mem.reflect(BANK, agent="a1")
    mem.review.reject(chess, "he never played", "rev1")
    report = mem.reflect(BANK, agent="a1")
    now = by_key(mem)["topic:oliver|likes"]
    assert now.text == first.text
    assert now.id != first.id
    assert any(new == now.id for _, new in report.revised)
    assert mem.reflect(BANK, agent="a1").changed is False


def test_superseded_evidence_retires_its_observations(mem, oliver):
    mem.reflect(BANK, agent="a1")
    entity = by_key(mem)["entity:oliver"]
    mem.update(oliver["lisbon"], "Oliver lives in Porto.", agent="a1")
    assert mem.get(entity.id).status == UnitStatus.ARCHIVED
    mem.reflect(BANK, agent="a1")
    assert "Porto" in by_key(mem)["entity:oliver"].text


def test_evidence_that_falls_below_skepticism_retires_the_observation(mem):
    a = say(mem, "Oliver likes hiking.", 1)
    say(mem, "Oliver likes painting.", 2)
    mem.reflect(BANK, agent="a1")
    assert by_key(mem)
    mem.admin.purge(a, actor="dpo", reason="art. 17 request")
    report = mem.reflect(BANK, agent="a1")
    assert report.created == ()
    assert by_key(mem) == {}


def test_a_purge_erases_every_observation_that_restates_its_evidence(mem, oliver):
    mem.reflect(BANK, agent="a1")
    before = {u.id for u in observations(mem, status=None)}
    assert before
    mem.admin.purge(oliver["painting"], actor="dpo", reason="art. 17 request")
    # Both observations cited it: both are gone, text and all, not only retired.
    for uid in before:
        with pytest.raises(NotFound):
            mem.get(uid)
    assert not [u for u in mem.list_memories(bank=BANK, limit=500) if "painting" in u.text]
    report = mem.reflect(BANK, agent="a1")
    assert len(report.created) == 1  # the entity re-derived from what is left; the topic is thin
    assert all("painting" not in u.text for u in observations(mem))


def test_purging_an_observation_erases_no_evidence(mem, oliver):
    mem.reflect(BANK, agent="a1")
    obs = by_key(mem)["entity:oliver"]
    report = mem.admin.purge(obs.id, actor="dpo", reason="art. 17 request")
    assert report.sources == ()
    assert all(mem.get(uid).status == UnitStatus.ACTIVE for uid in oliver.values())


def test_another_agents_private_memories_are_never_evidence(mem, oliver):
    secret = say(mem, "Oliver likes gambling.", 5, agent="a2", visibility="private")
    mem.reflect(BANK, agent="a1")
    for u in observations(mem):
        assert secret not in u.metadata["observation"]["evidence_units"]
        assert "gambling" not in u.text
        assert "s5" not in u.evidence
    hits = mem.recall("Oliver gambling", bank=BANK, agent="a1", scope="collective", k=20)
    assert all("gambling" not in h.text for h in hits)


def test_an_empty_bank_is_left_unchanged_with_the_reason(mem):
    mem.admin.create_bank(BANK)
    report = mem.reflect(BANK, agent="a1")
    assert not report.changed
    assert report.reason is not None
    assert "no evidence" in report.reason
    assert mem.list_memories(bank=BANK) == []


def test_a_bank_of_private_memories_only_has_no_evidence(mem):
    say(mem, "Oliver likes hiking.", 1, visibility="private")
    say(mem, "Oliver likes painting.", 2, visibility="private")
    report = mem.reflect(BANK, agent="a1")
    assert not report.changed
    assert report.reason is not None
    assert "no evidence" in report.reason


def test_a_bank_with_one_memory_is_left_unchanged_with_the_reason(mem):
    say(mem, "Oliver likes hiking.", 1)
    report = mem.reflect(BANK, agent="a1")
    assert not report.changed
    assert report.reason is not None
    assert "skepticism" in report.reason
    assert ("entity:oliver", "1 evidence, fewer than 2") in report.skipped
    assert observations(mem, status=None) == []


def test_an_unknown_bank_or_a_bad_disposition_is_a_clear_error(mem, oliver):
    with pytest.raises(NotFound):
        mem.reflect("nobody", agent="a1")
    with pytest.raises(InvalidInput):
        mem.reflect(BANK, agent="a1", skepticism=0)
    with pytest.raises(InvalidInput):
        mem.reflect(BANK, agent="bad agent")
    assert observations(mem, status=None) == []


def test_the_disposition_shapes_what_is_kept(mem, oliver):
    report = mem.reflect(BANK, agent="a1", skepticism=3, literalism=False)
    assert set(by_key(mem)) == {"entity:oliver"}
    assert report.disposition["skepticism"] == 3
    assert "oliver likes hiking" in by_key(mem)["entity:oliver"].text
    # The bank's own disposition, set through the admin namespace (audited).
    held = mem.admin.set_reflect_disposition(BANK, skepticism=4, actor="owner", reason="strict")
    assert held == {"skepticism": 4, "literalism": True, "max_cited": 8}
    assert mem.admin.reflect_disposition(BANK) == held
    again = mem.reflect(BANK, agent="a1")
    assert again.retired
    assert by_key(mem) == {}


@pytest.fixture
def racing(mem: mneme.Memory, monkeypatch: pytest.MonkeyPatch) -> Any:
    """``mem``, whose next reflect pass first runs ``racing.before`` once, after it has read
    its evidence and before it writes: what another caller does meanwhile."""
    hooks: dict[str, Callable[[], None] | None] = {"before": None}
    original = Reflector._vectors

    def vectors(self: Reflector, *args: Any) -> Any:
        hook, hooks["before"] = hooks["before"], None
        if hook is not None:
            hook()
        return original(self, *args)

    monkeypatch.setattr(Reflector, "_vectors", vectors)
    return mem, hooks


def test_evidence_purged_mid_pass_leaves_memory_consistent_with_the_reason(racing):
    mem, hooks = racing
    ids = {
        "hiking": say(mem, "Oliver likes hiking.", 1),
        "painting": say(mem, "Oliver likes painting.", 2),
        "lisbon": say(mem, "Oliver lives in Lisbon.", 3),
    }
    hooks["before"] = lambda: mem.admin.purge(ids["painting"], actor="dpo", reason="art. 17")
    report = mem.reflect(BANK, agent="a1")
    assert report.created == ()
    reasons = dict(report.skipped)
    assert "evidence changed during the pass" in reasons["entity:oliver"]
    assert observations(mem, status=None) == []
    # The next pass works from what is left.
    again = mem.reflect(BANK, agent="a1")
    assert len(again.created) == 1
    assert (
        ids["painting"]
        not in by_key(mem)["entity:oliver"].metadata["observation"]["evidence_units"]
    )


def test_an_observation_ranks_below_the_evidence_it_cites_and_cites_its_sources(mem, oliver):
    mem.reflect(BANK, agent="a1")
    hits = mem.recall("What does Oliver like?", bank=BANK, agent="a1", scope="collective", k=10)
    rank = {h.id: i for i, h in enumerate(hits)}
    found = [h for h in hits if h.unit.network == Network.OBSERVATION]
    assert found
    for h in found:
        cited = h.unit.metadata["observation"]["evidence_units"]
        assert all(rank[uid] < rank[h.id] for uid in cited if uid in rank)
        sources = {s for uid in cited for s in mem.get(uid).evidence}
        assert set(h.evidence_source_ids) == sources


def test_setting_a_disposition_is_validated_audited_and_keeps_other_config(mem, oliver):
    mem.admin.set_sensitive_policy(BANK, {"email": "redact"}, actor="owner")
    before = len(mem.admin.audit_log(BANK))
    with pytest.raises(InvalidInput):
        mem.admin.set_reflect_disposition(BANK, skepticism=9, max_cited=8, actor="owner")
    with pytest.raises(InvalidInput):
        mem.admin.set_reflect_disposition(BANK, literalism="yes", actor="owner")
    with pytest.raises(NotFound):
        mem.admin.set_reflect_disposition("nobody", skepticism=3, actor="owner")
    assert len(mem.admin.audit_log(BANK)) == before  # refused: nothing written
    mem.admin.set_reflect_disposition(BANK, literalism=False, actor="owner", reason="short")
    mem.admin.set_reflect_disposition(BANK, max_cited=4, actor="owner")
    assert mem.admin.reflect_disposition(BANK) == {
        "skepticism": 2,
        "literalism": False,
        "max_cited": 4,
    }
    (last,) = mem.admin.audit_log(BANK, last=1)
    assert last.actor == "owner"
    assert mem.admin.sensitive_policy(BANK).rules == {"email": "redact"}  # config kept
    report = mem.reflect(BANK, agent="a1")
    assert report.disposition == {"skepticism": 2, "literalism": False, "max_cited": 4}


def test_an_observation_is_embedded_as_the_mean_of_its_evidence_without_a_model_call(
    db_path: str, clock: Any
) -> None:
    texts: list[str] = []

    class Counting(HashingEmbedder):
        def embed(self, batch: Sequence[str]) -> np.ndarray:
            texts.extend(batch)
            return super().embed(batch)

    embedder = Counting()
    with mneme.Memory.open(db_path, embedder=embedder, clock=clock) as m:
        ids = [say(m, t, d) for d, t in enumerate(
            ["Oliver likes hiking.", "Oliver likes painting.", "Oliver lives in Lisbon."], 1
        )]  # fmt: skip
        texts.clear()
        m.reflect(BANK, agent="a1")
        assert texts == []  # every evidence unit had a vector of this model
        obs = by_key(m)["entity:oliver"]
        store = m._store  # white-box (ADR 0043)
        stored = store.memories.unit_vectors(OWNER, [obs.id, *ids], embedder.model_id)
        mean = np.asarray([stored[i] for i in ids], dtype=np.float32).mean(axis=0)
        assert np.allclose(stored[obs.id], mean / np.linalg.norm(mean), atol=1e-6)


def test_an_observation_whose_evidence_lacks_a_vector_is_embedded_from_its_text(
    db_path: str, clock: Any
) -> None:
    with mneme.Memory.open(db_path, embedder=HashingEmbedder(), clock=clock) as m:
        for d, t in enumerate(["Oliver likes hiking.", "Oliver likes painting."], 1):
            say(m, t, d)
    # The same store opened with another model: the evidence has no vector of it.
    other = HashingEmbedder(dim=32)
    with mneme.Memory.open(db_path, embedder=other, clock=clock) as m:
        m.reflect(BANK, agent="a1")
        obs = by_key(m)["entity:oliver"]
        assert obs.embedding_model == other.model_id
        store = m._store  # white-box (ADR 0043)
        stored = store.memories.unit_vectors(OWNER, [obs.id], other.model_id)
        assert np.allclose(stored[obs.id], other.embed([obs.text])[0], atol=1e-6)


def test_a_matching_observation_lifts_the_evidence_it_cites_and_nothing_else(db_path, clock):
    """Cluster smoothing (ADR 0051): each evidence unit cited by an observation among the
    candidates gains ``observation_smoothing`` times the observation's score; a unit no
    observation cites keeps its score, and the observation stays below its evidence."""
    from mneme.config import RecallConfig

    def recall(smoothing: float) -> dict[str, Any]:
        m = mneme.Memory.open(
            db_path,
            embedder=HashingEmbedder(),
            clock=clock,
            recall=RecallConfig(observation_smoothing=smoothing),
        )
        try:
            hits = m.recall("Who likes what?", bank=BANK, agent="a1",
                            scope="collective", k=20)  # fmt: skip
        finally:
            m.close()
        return {h.id: h for h in hits}

    m = mneme.Memory.open(db_path, embedder=HashingEmbedder(), clock=clock)
    try:
        ids = {
            "hiking": say(m, "Oliver likes hiking.", 1),
            "painting": say(m, "Oliver likes painting.", 2),
            "lisbon": say(m, "Oliver lives in Lisbon.", 3),
            "maria": say(m, "Maria likes swimming.", 4),
        }
        before = recall(0.5)  # no observation yet: smoothing has nothing to lend
        assert {k: h.score for k, h in before.items()} == {
            k: h.score for k, h in recall(0.0).items()
        }
        m.reflect(BANK, agent="a1")
        obs = by_key(m)["entity:oliver"]
    finally:
        m.close()
    off, on = recall(0.0), recall(0.5)
    assert obs.id in off
    assert obs.id in on
    cited = obs.metadata["observation"]["evidence_units"]
    assert set(cited) == {ids["hiking"], ids["painting"], ids["lisbon"]}
    for uid in cited:
        assert on[uid].score > off[uid].score
    assert on[ids["maria"]].score == off[ids["maria"]].score  # cited by none
    order = list(on)
    assert all(order.index(uid) < order.index(obs.id) for uid in cited)


def test_a_negative_smoothing_weight_is_refused_with_its_name(db_path, clock):
    from mneme.config import RecallConfig

    with pytest.raises(InvalidInput, match="observation_smoothing"):
        mneme.Memory.open(
            db_path,
            embedder=HashingEmbedder(),
            clock=clock,
            recall=RecallConfig(observation_smoothing=-0.5),
        )


def test_a_facet_observation_cites_one_persons_statements_about_one_thing_across_sessions(
    db_path, clock, minilm
):
    """A person's camping trips, told in three sessions among other talk, become one facet
    observation citing each trip's turn, and recall finds it with those turns (ADR 0051,
    fifth sitting)."""
    sessions = [
        ["Melanie took her kids camping in the mountains.", "Melanie bought new running shoes."],
        ["Melanie read a novel about a lighthouse.", "Melanie went camping at the beach."],
        ["Melanie went on a camping trip in the forest.", "Melanie started a pottery class."],
    ]
    with mneme.Memory.open(db_path, embedder=minilm, clock=clock) as m:
        turn: dict[str, str] = {}
        for day, texts in enumerate(sessions):
            for i, text in enumerate(texts):
                r = m.retain(
                    text,
                    bank=BANK,
                    agent="a1",
                    occurred_at=DAY + dt.timedelta(days=7 * day),
                    source_id=f"D{day}:{i}",
                )
                (turn[text],) = r.memory_ids
        m.reflect(BANK, agent="a1")
        facets = {
            u.metadata["observation"]["key"]: u
            for u in observations(m)
            if u.metadata["observation"]["key"].startswith("facet:melanie~")
        }
        camping = [t for t in turn if "camping" in t]
        (facet,) = [u for u in facets.values() if set(u.evidence) == {"D0:0", "D1:1", "D2:0"}]
        assert facet.metadata["observation"]["evidence_units"] == [turn[t] for t in camping]
        assert facet.text.startswith("About Melanie: camping, went (1 May 2023 to 15 May 2023, 3 ")
        cited = {
            e.dst
            for e in m._store.graph.edges_of(OWNER, facet.id)  # white-box (ADR 0043)
            if e.type == EdgeType.DERIVED_FROM
        }
        assert cited == {turn[t] for t in camping}
        hits = m.recall("Where has Melanie gone camping?", bank=BANK, agent="a1", k=10)
        ids = [h.unit.id for h in hits]
        (found,) = [h for h in hits if h.unit.id == facet.id]
        assert set(found.evidence_source_ids) == {"D0:0", "D1:1", "D2:0"}
        # Below each piece of evidence it cites, all three of which are hits.
        assert all(turn[t] in ids[: ids.index(facet.id)] for t in camping)
