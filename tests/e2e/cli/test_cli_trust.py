"""The trust commands of the CLI, with --json: review, conflicts, reject, restore, rules,
resolve-contradiction, invalidate, purge."""

from __future__ import annotations

import json
from typing import Any

import pytest
from click.testing import CliRunner

import mneme
from mneme.surfaces.cli.main import cli


@pytest.fixture
def seeded(tmp_path):
    db = str(tmp_path / "t.db")
    mem = mneme.Memory.open(db, embedder="hashing")
    mem.retain(
        "I work at Acme Robotics.", bank="job", agent="a1", source_id="j1", occurred_at="2025-02-01"
    )
    mem.retain(
        "I work at Globex Labs.", bank="job", agent="a1", source_id="j2", occurred_at="2025-03-01"
    )
    mem.close()
    return db


def run(db: str, *args: str, code: int = 0) -> Any:
    result = CliRunner().invoke(cli, ["--db", db, "--embedder", "hashing", *args, "--json"])
    assert result.exit_code == code, result.output
    return json.loads(result.stdout)


def test_review_queue_and_decide(seeded):
    queue = run(seeded, "review", "queue", "--bank", "job")["items"]
    assert len(queue) == 2
    out = run(
        seeded, "review", "decide", queue[0]["id"], "approve", "--actor", "rev1", "--note", "ok"
    )
    assert out["event"]["new_review_status"] == "approved"
    again = run(seeded, "review", "decide", queue[0]["id"], "approve", "--actor", "rev1", code=4)
    assert again["error"]["code"] == "conflict"


def test_review_worklist_shows_only_what_waits_with_both_sides(seeded):
    work = run(seeded, "review", "worklist", "--bank", "job")
    assert work["counts"]["question"] == 1
    (item,) = [i for i in work["items"] if i["kind"] == "question"]
    assert {item["said"]["text"], item["other"]["text"]} == {
        "I work at Acme Robotics.",
        "I work at Globex Labs.",
    }
    assert item["actions"]
    none = run(seeded, "review", "worklist", "--bank", "job", "--kind", "proposal")
    assert none["items"] == []
    assert run(seeded, "review", "worklist", "--bank", "jobs", code=3)["error"]["code"] == (
        "not_found"
    )


def test_conflicts_list_and_resolve(seeded):
    (c,) = run(seeded, "conflicts", "list", "--bank", "job")["conflicts"]
    out = run(seeded, "conflicts", "resolve", c["id"], "supersede", "--actor", "rev1")
    assert out["conflict"]["resolution"] == "supersede"
    assert run(seeded, "conflicts", "list", "--bank", "job")["conflicts"] == []
    assert len(run(seeded, "conflicts", "list", "--bank", "job", "--all")["conflicts"]) == 1
    bad = run(seeded, "conflicts", "resolve", "cfl_nope", "reject", "--actor", "rev1", code=3)
    assert bad["error"]["code"] == "not_found"


def test_scoped_exception_without_scopes_is_a_usage_error(seeded):
    (c,) = run(seeded, "conflicts", "list", "--bank", "job")["conflicts"]
    out = run(
        seeded, "conflicts", "resolve", c["id"], "scoped_exception", "--actor", "rev1", code=2
    )
    assert "scope" in out["error"]["message"]


def test_reject_restore_and_resolve_contradiction(seeded):
    (c,) = run(seeded, "conflicts", "list", "--bank", "job")["conflicts"]
    settled = run(
        seeded, "resolve-contradiction", c["b_unit"], c["a_unit"], "confirm", "--actor", "a1"
    )
    assert settled["settlement"]["decision"] == "confirm"
    tomb = run(seeded, "reject", c["b_unit"], "--reason", "typo", "--actor", "rev1")
    assert tomb["tombstone"]["reason"] == "typo"
    back = run(seeded, "restore", c["b_unit"], "--actor", "rev1")
    assert back["event"]["new_status"] == "active"


def test_rules_invalidate_and_purge(seeded):
    rules = run(seeded, "rules")
    assert "ask_before_rewrite types=preference,goal,opinion" in rules["charter_rules"]
    (c,) = run(seeded, "conflicts", "list", "--bank", "job")["conflicts"]
    unit = run(seeded, "invalidate", c["a_unit"], "--until", "2025-03-01", "--actor", "rev1")
    assert unit["memory"]["valid_until"].startswith("2025-03-01")
    dry = run(seeded, "purge", c["a_unit"], "--actor", "dpo", "--reason", "erasure", "--dry-run")
    assert dry["plan"]["units"] == [c["a_unit"]]
    refused = CliRunner().invoke(
        cli,
        [
            "--db",
            seeded,
            "--embedder",
            "hashing",
            "purge",
            c["a_unit"],
            "--actor",
            "dpo",
            "--reason",
            "erasure",
        ],
    )
    assert refused.exit_code == 2
    assert "--yes" in refused.output
    done = run(seeded, "purge", c["a_unit"], "--actor", "dpo", "--reason", "erasure", "--yes")
    assert done["purged"]["units"] == [c["a_unit"]]
    assert run(seeded, "audit", "verify")  # still verifies after the purge


def test_review_queue_shows_each_claim_as_said_with_its_author_date_and_source(seeded):
    items = {i["source_id"]: i for i in run(seeded, "review", "queue", "--bank", "job")["items"]}
    acme = items["j1"]
    assert acme["statement"] == acme["text"] == "I work at Acme Robotics."
    assert acme["author"] == "a1"
    assert acme["said_at"].startswith("2025-02-01")
    assert acme["claim"]["value"] == "acme robotics"
    assert acme["unit_id"] in acme["claim"]["evidence_refs"]
    shown = CliRunner().invoke(
        cli, ["--db", seeded, "--embedder", "hashing", "review", "queue", "--bank", "job"]
    )
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    head = next(i for i, line in enumerate(lines) if acme["id"] in line)
    assert "I work at Acme Robotics." in lines[head]
    assert "said by a1 · 2025-02-01 · source j1" in lines[head + 1]
    assert "acme robotics" in lines[head + 1]  # the normal form, on the secondary line


def _belief_and_plan(db: str) -> tuple[str, str]:
    with mneme.Memory.open(db, embedder="hashing") as mem:
        belief = mem.retain("I believe Kestrel Payments is unreliable.", bank="ops", agent="a1")
        plan = mem.retain("Use Kestrel Payments for billing.", bank="ops", agent="a1")
    return belief.memory_ids[0], plan.memory_ids[0]


def _contested(db: str, unit_id: str) -> tuple[str, list[Any], list[tuple[str, str]]]:
    with mneme.Memory.open(db, embedder="hashing") as mem:
        edges = [
            (e.dst, e.made_by)
            for e in mem.graph(unit_id).edges
            if e.src == unit_id and e.type == "CONTESTED_BECAUSE"
        ]
        return (
            mem.get(unit_id).status.value,
            [e.metadata for e in mem._store.trust.review_events("ops", unit_id)],
            edges,
        )


@pytest.mark.parametrize("command", ["reject", "decide"])
def test_reject_because_a_belief_and_a_missing_belief_is_exit_code_3(tmp_path, command):
    db = str(tmp_path / "b.db")
    belief, plan = _belief_and_plan(db)

    def args() -> list[str]:
        if command == "reject":
            return ["reject", plan, "--reason", "Kestrel is unreliable", "--actor", "rev1"]
        return ["review", "decide", plan, "reject", "--actor", "rev1", "--note", "unreliable"]

    bad = run(db, *args(), "--because", "u_nothing_here", code=3)
    assert bad["error"]["code"] == "not_found"
    assert _contested(db, plan) == ("active", [], [])
    run(db, *args(), "--because", belief)
    assert _contested(db, plan) == ("rejected", [{"because": belief}], [(belief, "person:rev1")])
