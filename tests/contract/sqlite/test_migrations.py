"""Versioned migrations: a database written by schema version 1 opens and upgrades in place."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.store.sqlite.database import latest_version, migrations

FIXTURE = Path(__file__).parents[2] / "fixtures" / "schema_v1.db"


def test_migrations_are_numbered_without_gaps():
    versions = [v for v, _, _ in migrations()]
    assert versions == list(range(1, len(versions) + 1))
    assert latest_version() == versions[-1] >= 2


def test_a_schema_1_database_upgrades_in_place_and_keeps_its_memories(tmp_path):
    path = tmp_path / "old.db"
    shutil.copy(FIXTURE, path)
    mem = mneme.Memory.open(str(path), embedder=HashingEmbedder())
    assert mem.admin.schema_version() == latest_version()
    unit = mem.get("u_v1")
    assert unit.text == "Alice moved to Lisbon in March 2024."
    assert unit.evidence == ("ev-1",)
    assert unit.knowers == ("a1",)
    hits = mem.recall("Lisbon", bank="b1", agent="a1")
    assert hits
    assert hits[0].unit.id == "u_v1"
    assert hits[0].evidence_source_ids == ("ev-1",)
    # the tables schema 2 added work on the upgraded file
    mem.retain("Alice now works at Harbor Labs.", bank="b1", agent="a2")
    assert [a.id for a in mem.swarm.roster("b1").live] == ["a2"]
    assert mem.admin.audit_verify()["b1"].ok
    mem.close()
    db = sqlite3.connect(path)
    rows = db.execute("SELECT version, name FROM schema_version ORDER BY version").fetchall()
    db.close()
    assert [v for v, _ in rows] == list(range(1, latest_version() + 1))


def test_opening_an_up_to_date_store_applies_nothing(tmp_path):
    path = str(tmp_path / "m.db")
    mneme.Memory.open(path, embedder=HashingEmbedder()).close()
    mem = mneme.Memory.open(path, embedder=HashingEmbedder())
    assert mem.admin.migrate() == []
    mem.close()


def test_the_fixture_is_really_schema_1():
    db = sqlite3.connect(FIXTURE)
    try:
        assert db.execute("SELECT max(version) FROM schema_version").fetchone()[0] == 1
        tables = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type='table'")}
    finally:
        db.close()
    assert "audit_log" not in tables
    assert "units" in tables
