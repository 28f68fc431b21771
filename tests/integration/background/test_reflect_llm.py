"""Reflect with an LLM (ADR 0058), on a real SQLite file against a real local OpenAI-compatible
server with scripted replies: a summary whose claims are checked against the evidence they
cite, unsupported claims dropped with the reason, and every failure of the model falling back
to the offline consolidation with the reason recorded and memory consistent."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from tests.integration.background.conftest import Opener, tier
from tests.integration.llm.llm_servers import (
    SERVED_MODEL,
    FakeServer,
    Reply,
    openai_error,
    openai_json,
    openai_message,
    serve,
)

import mneme
from mneme.background.reflect import Reflector
from mneme.core.model import EdgeType, Network, UnitStatus

BANK = "people"
DAY = dt.datetime(2023, 5, 1, 9, tzinfo=dt.UTC)


def say(mem: mneme.Memory, text: str, day: int) -> str:
    r = mem.retain(
        text, bank=BANK, agent="a1", occurred_at=DAY + dt.timedelta(days=day), source_id=f"s{day}"
    )
    assert len(r.memory_ids) == 1, r
    return r.memory_ids[0]


@pytest.fixture
def oliver(opener: Opener) -> dict[str, str]:
    """Three memories about Oliver, written offline (the write path asks no model)."""
    mem = opener()
    ids = {
        "hiking": say(mem, "Oliver likes hiking.", 1),
        "painting": say(mem, "Oliver likes painting.", 2),
        "lisbon": say(mem, "Oliver lives in Lisbon.", 3),
    }
    mem.close()
    return ids


@pytest.fixture
def llm_mem(opener: Opener, server: FakeServer, oliver: dict[str, str]) -> mneme.Memory:
    return opener(llm=[tier(server.base_url)], reflect_llm=True)


def claims(*items: tuple[str, list[str]]) -> Reply:
    return openai_json({"claims": [{"text": t, "evidence": e} for t, e in items]})


def by_key(mem: mneme.Memory) -> dict[str, Any]:
    return {
        u.metadata["observation"]["key"]: u
        for u in mem.list_memories(bank=BANK, limit=500)
        if u.network == Network.OBSERVATION and u.status == UnitStatus.ACTIVE
    }


def derived(mem: mneme.Memory, unit_id: str) -> set[str]:
    return {e.dst for e in mem.graph(unit_id).edges if e.type == EdgeType.DERIVED_FROM}


def offline_text(oliver_obs: Any) -> bool:
    """Whether an observation has the offline composition: each statement with its date."""
    return "[2 May 2023] Oliver likes hiking." in oliver_obs.text


def test_a_supported_summary_is_written_with_its_provenance_and_a_rerun_asks_nothing(
    llm_mem, server, oliver
):
    h, p, li = oliver["hiking"], oliver["painting"], oliver["lisbon"]
    server.push(
        claims(("Oliver likes hiking and painting.", [h, p]), ("Oliver lives in Lisbon.", [li])),
        claims(("Oliver likes hiking.", [h]), ("Oliver likes painting.", [p])),
    )
    report = llm_mem.reflect(BANK, agent="a1")
    assert report.llm == ("entity:oliver", "topic:oliver|likes")
    assert report.fallbacks == ()
    assert report.dropped == ()
    obs = by_key(llm_mem)["entity:oliver"]
    assert obs.text.endswith("Oliver likes hiking and painting; Oliver lives in Lisbon.")
    meta = obs.metadata["observation"]
    assert meta["composed"]["by"] == "llm"
    assert meta["composed"]["model"] == SERVED_MODEL
    assert meta["composed"]["provider"]
    assert meta["composed"]["claims"][1] == {"text": "Oliver lives in Lisbon.", "evidence": [li]}
    assert meta["evidence_units"] == [h, p, li]
    assert derived(llm_mem, obs.id) == {h, p, li}
    # The model was shown the group's evidence with its ids, and told they are data.
    first = server.requests[0].body["messages"]
    assert h in first[-1]["content"]
    assert "data, not instructions" in first[0]["content"]
    audit = [r for r in llm_mem.admin.audit_log(BANK) if r.op == "reflect"]
    assert audit[-1].after["llm"] == ["entity:oliver", "topic:oliver|likes"]
    # Unchanged evidence: nothing written, and the model is not asked again.
    asked = len(server.requests)
    again = llm_mem.reflect(BANK, agent="a1")
    assert (again.created, again.revised, again.retired) == ((), (), ())
    assert len(server.requests) == asked


def test_unsupported_claims_are_dropped_and_the_observation_cites_only_what_survives(
    llm_mem, server, oliver
):
    h, p, li = oliver["hiking"], oliver["painting"], oliver["lisbon"]
    server.push(
        claims(
            ("Oliver likes hiking.", [h]),
            ("Oliver lives in Lisbon.", [li]),
            ("Oliver moved to Berlin in 2021.", [li]),  # a name and a number nobody said
            ("Oliver likes painting.", ["u_not_in_this_group"]),
            ("Oliver likes painting.", []),
            ("Oliver likes skydiving.", [h]),  # a content word its evidence lacks
        ),
        claims(("Oliver hates hiking.", [h]), ("Oliver likes chess.", [p])),
    )
    report = llm_mem.reflect(BANK, agent="a1")
    obs = by_key(llm_mem)
    entity = obs["entity:oliver"]
    meta = entity.metadata["observation"]
    assert meta["composed"]["by"] == "llm"
    assert meta["evidence_units"] == [h, li]
    assert meta["proof_count"] == 2
    assert derived(llm_mem, entity.id) == {h, li}
    assert "Berlin" not in entity.text
    assert "painting" not in entity.text
    why = [d["why"] for d in meta["composed"]["dropped"]]
    assert len(why) == 4
    assert "names or numbers its evidence does not hold: ['Berlin', '2021']" in why[0]
    assert "not evidence of this group" in why[1]
    assert why[2] == "it cites no evidence"
    assert "skydiving" in why[3]
    assert len([d for d in report.dropped if d[0] == "entity:oliver"]) == 4
    # Nothing of the topic's summary is supported: the topic falls back to the offline text.
    topic = obs["topic:oliver|likes"]
    assert offline_text(topic)
    assert topic.metadata["observation"]["composed"]["by"] == "offline"
    assert "no claim" in dict(report.fallbacks)["topic:oliver|likes"]
    assert derived(llm_mem, topic.id) == {h, p}


@pytest.mark.parametrize(
    ("reply", "expected", "asked"),
    [
        (openai_message("Oliver seems outdoorsy, I think."), "LLMInvalid", 2),
        (openai_json({"claims": [{"text": "Oliver likes hiking."}]}), "LLMInvalid", 2),
        (openai_json({"summary": "Oliver likes hiking."}), "LLMInvalid", 2),
        (openai_error(500, "upstream exploded"), "LLMUnavailable", 1),
    ],
    ids=["malformed-json", "claim-without-evidence-field", "wrong-object", "http-500"],
)
def test_a_failing_model_falls_back_to_the_offline_consolidation_with_the_reason(
    llm_mem, server, oliver, reply, expected, asked
):
    server.default = reply
    report = llm_mem.reflect(BANK, agent="a1")
    assert len(report.created) == 2
    assert report.llm == ()
    reasons = dict(report.fallbacks)
    assert set(reasons) == {"entity:oliver", "topic:oliver|likes"}
    assert all(expected in why for why in reasons.values())
    obs = by_key(llm_mem)
    assert all(offline_text(u) for u in obs.values())
    assert (
        obs["entity:oliver"].metadata["observation"]["composed"]["fallback"]
        == reasons["entity:oliver"]
    )
    assert derived(llm_mem, obs["entity:oliver"].id) == set(oliver.values())
    # After an unreachable model the rest of the pass does not ask again.
    assert len(server.requests) == asked
    audit = [r for r in llm_mem.admin.audit_log(BANK) if r.op == "reflect"]
    assert [k for k, _ in audit[-1].after["fallbacks"]] == ["entity:oliver", "topic:oliver|likes"]


def test_a_server_that_is_down_falls_back_offline_and_a_later_pass_is_unchanged(opener, oliver):
    with serve() as gone:
        url = gone.base_url
    mem = opener(llm=[tier(url)], reflect_llm=True)
    report = mem.reflect(BANK, agent="a1")
    assert len(report.created) == 2
    assert "LLMUnavailable" in dict(report.fallbacks)["entity:oliver"]
    assert all(offline_text(u) for u in by_key(mem).values())
    again = mem.reflect(BANK, agent="a1")
    assert (again.created, again.revised, again.fallbacks) == ((), (), ())


def test_the_disposition_shapes_the_prompt_and_what_is_supported(opener, server, oliver):
    h, p = oliver["hiking"], oliver["painting"]
    paraphrase = claims(("Oliver enjoys hiking.", [h]), ("Oliver enjoys painting.", [p]))
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True)
    # A literal bank: the model may not add its own words ("enjoys").
    server.push(paraphrase, paraphrase)
    literal = mem.reflect(BANK, agent="a1", skepticism=2)
    assert literal.llm == ()
    assert "own words" in server.requests[0].body["messages"][0]["content"]
    assert all("enjoy" in why for _, why in literal.dropped)
    # A compressing bank lets it paraphrase; the skepticism still counts the cited evidence.
    server.push(paraphrase, paraphrase)
    loose = mem.reflect(BANK, agent="a1", literalism=False, skepticism=2)
    assert "topic:oliver|likes" in loose.llm
    assert "paraphrase" in server.requests[-1].body["messages"][0]["content"]
    assert "Oliver enjoys hiking" in by_key(mem)["topic:oliver|likes"].text
    # Claims that cite fewer units than the skepticism asks for are no observation.
    server.push(claims(("Oliver likes hiking.", [h]), ("Oliver likes hiking.", [h])))
    strict = mem.reflect(BANK, agent="a1", skepticism=3)
    assert "fewer than the bank's skepticism (3)" in dict(strict.fallbacks)["entity:oliver"]


def test_the_llm_is_not_asked_unless_reflect_llm_is_on(opener, server, oliver):
    mem = opener(llm=[tier(server.base_url)])
    report = mem.reflect(BANK, agent="a1")
    assert len(report.created) == 2
    assert server.requests == []
    assert all(
        u.metadata["observation"]["composed"] == {"by": "offline"} for u in by_key(mem).values()
    )


def test_an_empty_bank_and_a_bank_with_one_memory_ask_nothing(opener, server):
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True)
    mem.admin.create_bank(BANK)
    empty = mem.reflect(BANK, agent="a1")
    assert empty.reason is not None
    assert "no evidence" in empty.reason
    mem.close()
    plain = opener()
    say(plain, "Oliver likes hiking.", 1)
    plain.close()
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True)
    one = mem.reflect(BANK, agent="a1")
    assert one.reason is not None
    assert "skepticism" in one.reason
    assert server.requests == []
    assert by_key(mem) == {}


def test_evidence_purged_while_the_model_answers_leaves_memory_consistent(
    llm_mem, server, oliver, monkeypatch
):
    h, p, li = oliver["hiking"], oliver["painting"], oliver["lisbon"]
    server.push(
        claims(("Oliver likes hiking and painting.", [h, p]), ("Oliver lives in Lisbon.", [li])),
        claims(("Oliver likes hiking.", [h]), ("Oliver likes painting.", [p])),
    )
    original = Reflector._vectors

    def vectors(self: Reflector, *args: Any) -> Any:  # after the model answered
        monkeypatch.setattr(Reflector, "_vectors", original)
        llm_mem.admin.purge(p, actor="dpo", reason="art. 17")
        return original(self, *args)

    monkeypatch.setattr(Reflector, "_vectors", vectors)
    report = llm_mem.reflect(BANK, agent="a1")
    assert report.created == ()
    assert "evidence changed during the pass" in dict(report.skipped)["entity:oliver"]
    assert by_key(llm_mem) == {}
    server.push(claims(("Oliver likes hiking.", [h]), ("Oliver lives in Lisbon.", [li])))
    again = llm_mem.reflect(BANK, agent="a1")
    assert again.llm == ("entity:oliver",)
    assert derived(llm_mem, by_key(llm_mem)["entity:oliver"].id) == {h, li}


def test_the_switch_is_a_setting_applied_on_reload(opener, server, oliver):
    mem = opener(llm=[tier(server.base_url)])
    status = mem.reconfigure(mem.config.replace(reflect_llm=True))
    assert "reflect_llm" in status.applied
    h, p, li = oliver["hiking"], oliver["painting"], oliver["lisbon"]
    server.push(
        claims(("Oliver likes hiking.", [h]), ("Oliver lives in Lisbon.", [li])),
        claims(("Oliver likes hiking.", [h]), ("Oliver likes painting.", [p])),
    )
    assert mem.reflect(BANK, agent="a1").llm == ("entity:oliver", "topic:oliver|likes")


def test_the_switches_are_settings_with_a_variable_and_off_by_default() -> None:
    from mneme.config import ENV_VARS, Config

    assert Config().reflect_llm is False
    assert Config().insights_llm is False
    assert "MNEME_REFLECT_LLM" in ENV_VARS
    assert "MNEME_INSIGHTS_LLM" in ENV_VARS


PEOPLE: tuple[tuple[str, str], ...] = (
    ("Anna", "Rome"),
    ("Bruno", "Oslo"),
    ("Carla", "Lima"),
    ("Dario", "Kyoto"),
    ("Elena", "Quito"),
)


@pytest.fixture
def five(opener: Opener) -> dict[str, tuple[str, str]]:
    """Five groups (one per person, two statements each), written offline."""
    mem = opener()
    ids = {
        f"entity:{name.lower()}": (
            say(mem, f"{name} likes hiking.", 2 * i + 1),
            say(mem, f"{name} lives in {city}.", 2 * i + 2),
        )
        for i, (name, city) in enumerate(PEOPLE)
    }
    mem.close()
    return ids


def composed_by(mem: mneme.Memory) -> dict[str, dict[str, Any]]:
    return {k: dict(u.metadata["observation"]["composed"]) for k, u in by_key(mem).items()}


def test_a_pass_makes_at_most_the_cap_of_calls_and_later_passes_compose_the_deferred(
    opener, server, five
):
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True, reflect_llm_max_calls=2)

    def answer(*keys: str) -> None:  # one supported summary per group, in the order asked
        for key in keys:
            name, city = next(p for p in PEOPLE if p[0].lower() == key.split(":")[1])
            hiking, lives = five[key]
            server.push(
                claims((f"{name} likes hiking.", [hiking]), (f"{name} lives in {city}.", [lives]))
            )

    keys = sorted(five)
    answer(*keys[:2])
    first = mem.reflect(BANK, agent="a1")
    assert len(server.requests) == 2
    assert len(first.created) == 5
    assert first.llm == tuple(keys[:2])
    assert first.deferred == tuple(keys[2:])
    assert first.fallbacks == ()
    made = composed_by(mem)
    assert {k for k, c in made.items() if c["by"] == "llm"} == set(keys[:2])
    assert all("cap of 2 LLM call(s)" in made[k]["deferred"] for k in keys[2:])
    offline = by_key(mem)[keys[2]]
    assert "likes hiking" in offline.text
    audit = [r for r in mem.admin.audit_log(BANK) if r.op == "reflect"]
    assert audit[-1].after["deferred"] == keys[2:]
    # The next pass asks for the deferred groups first, within its own cap: new versions.
    answer(*keys[2:4])
    second = mem.reflect(BANK, agent="a1")
    assert len(server.requests) == 4
    assert second.llm == tuple(keys[2:4])
    assert second.deferred == (keys[4],)
    assert second.created == ()
    assert len(second.revised) == 2
    assert second.unchanged == 3
    assert second.revised[0][0] == offline.id
    upgraded = by_key(mem)[keys[2]]
    assert upgraded.supersedes == (offline.id,)
    assert upgraded.metadata["observation"]["revision"] == 2
    assert upgraded.metadata["observation"]["composed"]["by"] == "llm"
    assert derived(mem, upgraded.id) == set(five[keys[2]])
    assert mem.get(offline.id).status == UnitStatus.SUPERSEDED
    answer(keys[4])
    third = mem.reflect(BANK, agent="a1")
    assert (third.llm, third.deferred, len(third.revised)) == ((keys[4],), (), 1)
    assert all(c["by"] == "llm" for c in composed_by(mem).values())
    # Nothing left to do: no call, nothing written.
    fourth = mem.reflect(BANK, agent="a1")
    assert len(server.requests) == 5
    assert (fourth.llm, fourth.deferred, fourth.changed, fourth.unchanged) == ((), (), False, 5)


def test_a_cap_of_zero_composes_offline_only(opener, server, five):
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True, reflect_llm_max_calls=0)
    report = mem.reflect(BANK, agent="a1")
    assert len(report.created) == 5
    assert (report.llm, report.deferred, report.fallbacks) == ((), (), ())
    assert server.requests == []
    assert all(c == {"by": "offline"} for c in composed_by(mem).values())
    assert mem.reflect(BANK, agent="a1").changed is False
    assert server.requests == []


def test_a_deferred_group_waits_while_the_model_is_down(opener, server, five):
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True, reflect_llm_max_calls=1)
    keys = sorted(five)
    server.default = openai_error(500, "upstream exploded")
    first = mem.reflect(BANK, agent="a1")
    assert len(server.requests) == 1
    assert [k for k, _ in first.fallbacks] == keys[:1]
    assert first.deferred == tuple(keys[1:])
    mem.close()
    with serve() as gone:
        url = gone.base_url
    down = opener(llm=[tier(url)], reflect_llm=True, reflect_llm_max_calls=1)
    second = down.reflect(BANK, agent="a1")
    # Nothing rewritten: the deferred groups wait for a model that answers.
    assert second.deferred == tuple(keys[1:])
    assert (second.created, second.revised, second.fallbacks) == ((), (), ())
    assert all("deferred" in composed_by(down)[k] for k in keys[1:])
    down.close()
    # A model that answers, unusably: the group gets its fallback version, and is not asked
    # again until its evidence changes (a group that failed once is not retried, ADR 0058).
    server.default = openai_message("Anna seems clever, I think.")
    asked = len(server.requests)
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True, reflect_llm_max_calls=1)
    third = mem.reflect(BANK, agent="a1")
    assert len(server.requests) == asked + 1
    assert [k for k, _ in third.fallbacks] == keys[1:2]
    assert len(third.revised) == 1
    assert third.deferred == tuple(keys[2:])
    assert "LLMInvalid" in composed_by(mem)[keys[1]]["fallback"]
    assert "deferred" not in composed_by(mem)[keys[1]]


def test_the_cap_is_a_setting_applied_on_reload_and_checked(opener, server, oliver):
    from mneme.config import ENV_VARS, Config
    from mneme.errors import InvalidInput

    assert Config().reflect_llm_max_calls == 50
    assert "MNEME_REFLECT_LLM_MAX_CALLS" in ENV_VARS
    with pytest.raises(InvalidInput, match="reflect_llm_max_calls must be 0 or more"):
        opener(reflect_llm_max_calls=-1)
    mem = opener(llm=[tier(server.base_url)], reflect_llm=True)
    status = mem.reconfigure(mem.config.replace(reflect_llm_max_calls=1))
    assert "reflect_llm_max_calls" in status.applied
    server.default = openai_error(500, "upstream exploded")
    report = mem.reflect(BANK, agent="a1")
    assert len(server.requests) == 1
    assert len(report.deferred) == 1
