"""The audit catches tampering (issue 16 item 7, ADR 0035): every class of edit made straight
in a real SQLite file, beside mneme, is reported by ``audit verify`` (the Python API and the
CLI's exit code 1), and an untampered store after a realistic workload verifies clean."""

from __future__ import annotations

import shutil
import sqlite3
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

import mneme
from mneme.core.audit_chain import (
    GENESIS,
    ChainReport,
    MacKey,
    digest,
    head_mac,
    keyed_hash,
    record_hash,
)
from mneme.memory import copy_between
from mneme.store.sealing import KEYED_SCHEMA
from mneme.surfaces.cli.main import cli


@dataclass(frozen=True)
class Workload:
    path: Path
    lisbon: str  # a live unit (a1)
    porto: str  # the unit that lost the conflict (a3)
    old_date: str  # superseded
    new_date: str
    rejected: str  # its value is tombstoned
    conflict: str
    tombstone: str
    purged: str
    source: str  # a live source


def _build(path: Path) -> Workload:
    mem = mneme.Memory.open(str(path), embedder="hashing")
    try:
        lisbon = mem.retain("Alice lives in Lisbon.", bank="b1", agent="a1", source_id="ev-1")
        old = mem.retain("The launch date is 3 May.", bank="b1", agent="a1", source_id="ev-2")
        new = mem.retain(
            "The launch date is 10 May, as agreed.",
            bank="b1",
            agent="a1",
            source_id="ev-3",
            supersedes=list(old.memory_ids),
        )
        porto = mem.retain("Alice lives in Porto.", bank="b1", agent="a3", source_id="ev-4")
        (conflict,) = mem.conflicts.list(bank="b1")
        mem.conflicts.resolve(conflict.id, "supersede", actor="pat", winner=lisbon.memory_ids[0])
        tea = mem.retain("Bob prefers green tea.", bank="b1", agent="a1", source_id="ev-5")
        tomb = mem.review.reject(tea.memory_ids[0], "wrong", "pat")
        secret = mem.retain("Carol's passport is X9-4471.", bank="b1", agent="a1", source_id="ev-6")
        mem.admin.purge(secret.memory_ids[0], actor="dpo", reason="GDPR art. 17 request from Carol")
        mem.retain("Dana works at Harbor Labs.", bank="b2", agent="a1", source_id="ev-7")
        reports = mem.admin.audit_verify()
        assert all(r.ok for r in reports.values()), reports
    finally:
        mem.close()
    return Workload(
        path,
        lisbon.memory_ids[0],
        porto.memory_ids[0],
        old.memory_ids[0],
        new.memory_ids[0],
        tea.memory_ids[0],
        conflict.id,
        tomb.id,
        secret.memory_ids[0],
        "ev-1",
    )


@pytest.fixture(scope="module")
def workload(tmp_path_factory: pytest.TempPathFactory) -> Workload:
    return _build(tmp_path_factory.mktemp("audit") / "w.db")


def _copy(w: Workload, into: Path) -> Workload:
    dst = into / "t.db"
    shutil.copy(w.path, dst)
    shutil.copy(f"{w.path}.audit-key", f"{dst}.audit-key")
    return Workload(dst, *(getattr(w, f) for f in list(Workload.__dataclass_fields__)[1:]))


@pytest.fixture
def fresh(workload: Workload, tmp_path: Path) -> Workload:
    return _copy(workload, tmp_path)


@pytest.fixture
def sql(fresh: Workload) -> Iterator[sqlite3.Connection]:
    conn = sqlite3.connect(fresh.path)
    yield conn
    conn.close()


def _verify(path: Path) -> dict[str, ChainReport]:
    mem = mneme.Memory.open(str(path), embedder="hashing", read_only=True)
    try:
        return dict(mem.admin.audit_verify())
    finally:
        mem.close()


def _cli_exit(path: Path) -> int:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    result = runner.invoke(
        cli, ["--db", str(path), "--embedder", "hashing", "audit", "verify", "--json"]
    )
    return int(result.exit_code)


def _one(conn: sqlite3.Connection, sql: str, *params: object) -> Any:
    return conn.execute(sql, params).fetchone()[0]


def _seq(conn: sqlite3.Connection, where: str, *params: object) -> int:
    return int(_one(conn, f"SELECT min(seq) FROM audit_log WHERE {where}", *params))


def _recompute(conn: sqlite3.Connection, key: MacKey | None = None) -> None:
    """Recompute every chain and head as an attacker without the audit key would: plain
    SHA-256 in the legacy format (``key`` None), or keyed with a key of the attacker's own."""
    banks = [r[0] for r in conn.execute("SELECT DISTINCT bank_id FROM audit_log")]
    for bank in banks:
        prev, n, seq = GENESIS, 0, 0
        rows = conn.execute(
            "SELECT seq, at, actor, op, target, before, after, reason, before_sha, after_sha, "
            "reason_sha, row_seals FROM audit_log WHERE bank_id = ? ORDER BY seq",
            (bank,),
        ).fetchall()
        for seq, at, actor, op, target, before, after, reason, bsha, asha, rsha, rows_ in rows:
            if key is None:
                fields = {
                    "bank_id": bank,
                    "at": at,
                    "actor": actor,
                    "op": op,
                    "target": target,
                    "before": before,
                    "after": after,
                    "reason": reason,
                    "before_sha": bsha,
                    "after_sha": asha,
                }
                new, version, kid = record_hash(prev, fields), None, None
            else:
                new = keyed_hash(
                    key,
                    prev,
                    bank_id=bank,
                    at=at,
                    actor=actor,
                    op=op,
                    target=target,
                    before_sha=bsha or digest(before),
                    after_sha=asha or digest(after),
                    reason_sha=rsha or digest(reason),
                    rows_sha=digest(rows_),
                )
                version, kid = 2, key.id
            conn.execute(
                "UPDATE audit_log SET prev_hash = ?, hash = ?, version = ?, key_id = ? "
                "WHERE seq = ?",
                (prev, new, version, kid, seq),
            )
            prev, n = new, n + 1
        conn.execute(
            "UPDATE audit_head SET seq = ?, hash = ?, count = ? WHERE bank_id = ?",
            (seq, prev, n, bank),
        )
    conn.commit()


Tamper = Callable[[sqlite3.Connection, Workload], None]


def _edit(column: str, value: str, where: str = "op = 'unit.put'") -> Tamper:
    def tamper(conn: sqlite3.Connection, w: Workload) -> None:
        seq = _seq(conn, where)
        conn.execute(f"UPDATE audit_log SET {column} = ? WHERE seq = ?", (value, seq))
        conn.commit()

    return tamper


def _sql(*statements: str) -> Tamper:
    def tamper(conn: sqlite3.Connection, w: Workload) -> None:
        for stmt in statements:
            conn.execute(stmt.format(w=w))
        conn.commit()

    return tamper


def _delete_middle(conn: sqlite3.Connection, w: Workload) -> None:
    conn.execute("DELETE FROM audit_log WHERE seq = (SELECT min(seq) + 5 FROM audit_log)")
    conn.commit()


def _reorder(conn: sqlite3.Connection, w: Workload) -> None:
    a = _seq(conn, "op = 'unit.put' AND bank_id = 'b1'")
    b = int(_one(conn, "SELECT min(seq) FROM audit_log WHERE seq > ? AND bank_id = 'b1'", a))
    conn.execute("UPDATE audit_log SET seq = -1 WHERE seq = ?", (a,))
    conn.execute("UPDATE audit_log SET seq = ? WHERE seq = ?", (a, b))
    conn.execute("UPDATE audit_log SET seq = ? WHERE seq = -1", (b,))
    conn.commit()


def _insert(conn: sqlite3.Connection, w: Workload) -> None:
    """A forged record appended with a plain-SHA-256 link, and the head moved onto it."""
    prev, count = conn.execute("SELECT hash, count FROM audit_head WHERE bank_id = 'b1'").fetchone()
    fields = {
        "bank_id": "b1",
        "at": "2026-12-01T00:00:00.000000Z",
        "actor": "mallory",
        "op": "unit.update",
        "target": w.lisbon,
        "before": None,
        "after": '{"text":"forged"}',
        "reason": "cover-up",
        "before_sha": None,
        "after_sha": digest('{"text":"forged"}'),
    }
    new = record_hash(prev, fields)
    conn.execute(
        "INSERT INTO audit_log (bank_id, at, actor, op, target, before, after, reason, "
        "prev_hash, hash, before_sha, after_sha) VALUES (:bank_id, :at, :actor, :op, :target, "
        ":before, :after, :reason, :prev, :hash, :before_sha, :after_sha)",
        {**fields, "prev": prev, "hash": new},
    )
    last = _one(conn, "SELECT max(seq) FROM audit_log")
    conn.execute(
        "UPDATE audit_head SET seq = ?, hash = ?, count = ? WHERE bank_id = 'b1'",
        (last, new, count + 1),
    )
    conn.commit()


def _truncate(conn: sqlite3.Connection, w: Workload) -> None:
    conn.execute(
        "DELETE FROM audit_log WHERE seq IN "
        "(SELECT seq FROM audit_log WHERE bank_id = 'b1' ORDER BY seq DESC LIMIT 3)"
    )
    conn.commit()


def _truncate_head_fixed(conn: sqlite3.Connection, w: Workload) -> None:
    _truncate(conn, w)
    seq, digest_, count = conn.execute(
        "SELECT max(seq), (SELECT hash FROM audit_log WHERE seq = (SELECT max(seq) FROM "
        "audit_log WHERE bank_id = 'b1')), count(*) FROM audit_log WHERE bank_id = 'b1'"
    ).fetchone()
    conn.execute(
        "UPDATE audit_head SET seq = ?, hash = ?, count = ? WHERE bank_id = 'b1'",
        (seq, digest_, count),
    )
    conn.commit()


def _rewrite_unit_then_recompute(conn: sqlite3.Connection, w: Workload) -> None:
    """Edit a unit and its records, then recompute the whole chain and head with SHA-256."""
    conn.execute("UPDATE units SET text = 'Alice lives in Paris.' WHERE id = ?", (w.lisbon,))
    conn.execute(
        "UPDATE audit_log SET after = replace(after, 'Lisbon', 'Paris'), after_sha = NULL "
        "WHERE target = ?",
        (w.lisbon,),
    )
    conn.commit()
    _recompute(conn)


def _downgrade_everything(conn: sqlite3.Connection, w: Workload) -> None:
    """The full downgrade: plain SHA-256 records, no row seals, no keyed heads, no key names."""
    conn.execute("UPDATE audit_log SET row_seals = NULL")
    conn.execute("UPDATE audit_head SET mac = NULL")
    conn.execute("DELETE FROM audit_keys")
    conn.commit()
    _recompute(conn)


def _recompute_with_own_key(conn: sqlite3.Connection, w: Workload) -> None:
    """Recompute everything keyed with the attacker's own key, registered beside the real one."""
    from mneme.core.audit_chain import key_check

    key = MacKey(b"mallory's own key, 32 bytes long")
    conn.execute("UPDATE units SET status = 'archived' WHERE id = ?", (w.lisbon,))
    conn.execute(
        "INSERT INTO audit_keys VALUES (?, ?, '2026-12-01T00:00:00.000000Z')",
        (key.id, key_check(key)),
    )
    conn.commit()
    _recompute(conn, key)
    _reseal_heads(conn, key)
    conn.commit()


def _delete_source_records_and_recompute(conn: sqlite3.Connection, w: Workload) -> None:
    """Delete the audit records about a still-existing unit, then recompute the chain."""
    conn.execute("DELETE FROM audit_log WHERE target = ?", (w.lisbon,))
    conn.commit()
    _recompute(conn)


def _source_text(conn: sqlite3.Connection, w: Workload) -> None:
    conn.execute("DROP TRIGGER sources_immutable")  # an attacker with the file can drop it
    conn.execute("UPDATE sources SET text = 'Alice lives in Paris.' WHERE id = ?", (w.source,))
    conn.commit()


def _erase_outside_purge(conn: sqlite3.Connection, w: Workload) -> None:
    conn.execute(
        "UPDATE audit_log SET after = NULL, purged_at = '2026-12-01T00:00:00.000000Z' "
        "WHERE target = ? AND op = 'unit.put'",
        (w.lisbon,),
    )
    conn.commit()


TAMPERS: dict[str, Tamper] = {
    # the records themselves
    "edit a record's before": _edit("before", '{"text":"x"}', "op = 'unit.update'"),
    "edit a record's after": _edit("after", '{"text":"Alice lives in Paris."}'),
    "edit a record's reason": _edit("reason", "forged"),
    "edit a record's actor": _edit("actor", "mallory"),
    "edit a record's op": _edit("op", "unit.evidence"),
    "edit a record's target": _edit("target", "u_other"),
    "edit a record's time": _edit("at", "2020-01-01T00:00:00.000000Z"),
    "edit content and its digest together": _sql(
        "UPDATE audit_log SET after = '{{}}', after_sha = "
        "'44136fa355b3678a1146ad16f7e8649e94fb4fc21fe77e8310c060f61caaff8a' "
        "WHERE seq = (SELECT min(seq) FROM audit_log WHERE op = 'unit.put')"
    ),
    "edit a purge record's reason digest": _edit("reason_sha", "0" * 64, "op = 'purge'"),
    "edit a record's row seals": _sql(
        "UPDATE audit_log SET row_seals = replace(row_seals, 'units', 'unitz') "
        "WHERE seq = (SELECT min(seq) FROM audit_log WHERE row_seals IS NOT NULL)"
    ),
    "delete a record in the middle": _delete_middle,
    "reorder two records": _reorder,
    "insert a forged record and move the head": _insert,
    "truncate the newest records": _truncate,
    "truncate with the head moved back": _truncate_head_fixed,
    "delete the chain head": _sql("DELETE FROM audit_head WHERE bank_id = 'b1'"),
    "recompute the chain and head with plain SHA-256": _rewrite_unit_then_recompute,
    "downgrade everything to the unkeyed format": _downgrade_everything,
    "recompute keyed with the attacker's own key": _recompute_with_own_key,
    "delete a bank's whole log and head": _sql(
        "DELETE FROM audit_log WHERE bank_id = 'b2'", "DELETE FROM audit_head WHERE bank_id = 'b2'"
    ),
    "delete every audit record, head and key name": _sql(
        "DELETE FROM audit_log", "DELETE FROM audit_head", "DELETE FROM audit_keys"
    ),
    "edit the key check": _sql("UPDATE audit_keys SET check_mac = '00'"),
    "delete the records about a live unit and recompute": _delete_source_records_and_recompute,
    "erase content outside a purge": _erase_outside_purge,
    "erase content without a purge mark": _sql(
        "UPDATE audit_log SET after = NULL WHERE seq = "
        "(SELECT min(seq) FROM audit_log WHERE op = 'unit.put')"
    ),
    # the data rows
    "edit a unit's text": _sql(
        "UPDATE units SET text = 'Alice lives in Paris.' WHERE id = '{w.lisbon}'"
    ),
    "edit a unit's status": _sql("UPDATE units SET status = 'archived' WHERE id = '{w.lisbon}'"),
    "revive a superseded unit": _sql(
        "UPDATE units SET status = 'active', superseded_by = NULL, valid_until = NULL, "
        "retired_at = NULL WHERE id = '{w.old_date}'"
    ),
    "edit a unit's scope": _sql(
        "UPDATE units SET metadata = json_set(metadata, '$.scope', 'weekends') "
        "WHERE id = '{w.lisbon}'"
    ),
    "edit a unit's owner and visibility": _sql(
        "UPDATE units SET owner = 'a9', visibility = 'private' WHERE id = '{w.lisbon}'"
    ),
    "edit a unit's valid time": _sql(
        "UPDATE units SET valid_from = '1999-01-01T00:00:00.000000Z' WHERE id = '{w.new_date}'"
    ),
    "edit a unit's confidence": _sql("UPDATE units SET confidence = 0.01 WHERE id = '{w.lisbon}'"),
    "insert a unit beside mneme": _sql(
        "INSERT INTO units SELECT * FROM units WHERE id = '{w.lisbon}' LIMIT 0",
        "CREATE TEMP TABLE u AS SELECT * FROM units WHERE id = '{w.lisbon}'",
        "UPDATE u SET id = 'u_forged', content_key = 'forged'",
        "INSERT INTO units SELECT * FROM u",
    ),
    "delete a unit beside mneme": _sql("DELETE FROM units WHERE id = '{w.porto}'"),
    "edit a tombstone's text": _sql("UPDATE tombstones SET text = 'x' WHERE id = '{w.tombstone}'"),
    "lift a tombstone beside mneme": _sql(
        "UPDATE tombstones SET lifted_at = '2026-12-01T00:00:00.000000Z', lifted_by = 'mallory' "
        "WHERE id = '{w.tombstone}'"
    ),
    "edit a conflict's status": _sql(
        "UPDATE conflicts SET status = 'open' WHERE id = '{w.conflict}'"
    ),
    "edit a conflict's winner": _sql(
        "UPDATE conflicts SET winner = '{w.porto}' WHERE id = '{w.conflict}'"
    ),
    "edit a source's text": _source_text,
    "edit a claim's value": _sql("UPDATE claims SET value = 'Paris' WHERE value LIKE '%Lisbon%'"),
}


@pytest.mark.parametrize("name", sorted(TAMPERS))
def test_audit_verify_detects_the_tamper(
    name: str, fresh: Workload, sql: sqlite3.Connection
) -> None:
    TAMPERS[name](sql, fresh)
    sql.close()
    reports = _verify(fresh.path)
    assert not all(r.ok for r in reports.values()), reports
    assert _cli_exit(fresh.path) == 1


def test_there_are_at_least_28_tampers() -> None:
    assert len(TAMPERS) >= 28


def test_an_untampered_store_after_a_realistic_workload_verifies_clean(fresh: Workload) -> None:
    reports = _verify(fresh.path)
    assert set(reports) == {"b1", "b2"}
    assert all(r.ok and not r.notes for r in reports.values()), reports
    assert _cli_exit(fresh.path) == 0
    # and it goes on verifying after more writes by a writable open
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing")
    try:
        mem.retain("Erin joined in June.", bank="b2", agent="a2")
        assert all(r.ok for r in mem.admin.audit_verify().values())
    finally:
        mem.close()


def test_a_purge_erases_the_reasons_of_past_records_and_keeps_its_own_ground_as_a_digest(
    fresh: Workload,
) -> None:
    conn = sqlite3.connect(fresh.path)
    try:
        rows = conn.execute(
            "SELECT reason, reason_sha, purged_at FROM audit_log WHERE target = ? "
            "AND op != 'purge'",
            (fresh.purged,),
        ).fetchall()
        ground = conn.execute(
            "SELECT reason, reason_sha FROM audit_log WHERE op = 'purge'"
        ).fetchone()
    finally:
        conn.close()
    assert rows
    assert all(reason == "" and sha and at for reason, sha, at in rows)
    assert ground == ("", digest("GDPR art. 17 request from Carol"))
    assert b"Carol" not in _dump(fresh.path)


def _dump(path: Path) -> bytes:
    conn = sqlite3.connect(path)
    try:
        return "\n".join(conn.iterdump()).encode("utf-8")
    finally:
        conn.close()


def test_a_store_opened_without_its_key_cannot_write_and_does_not_verify(
    fresh: Workload,
) -> None:
    Path(f"{fresh.path}.audit-key").unlink()
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing")
    try:
        assert not Path(f"{fresh.path}.audit-key").exists()  # no new key is made over it
        with pytest.raises(mneme.errors.BackendUnavailable, match="audit key"):
            mem.retain("Frank likes chess.", bank="b1", agent="a1")
        reports = mem.admin.audit_verify()
        assert not any(r.ok for r in reports.values())
        assert "MNEME_AUDIT_KEY_FILE" in reports["b1"].problem
    finally:
        mem.close()


def test_the_key_file_can_live_elsewhere(workload: Workload, tmp_path: Path) -> None:
    fresh = _copy(workload, tmp_path)
    moved = tmp_path / "keys" / "mneme.key"
    moved.parent.mkdir()
    Path(f"{fresh.path}.audit-key").rename(moved)
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    argv = ["--db", str(fresh.path), "--embedder", "hashing", "audit", "verify"]
    assert runner.invoke(cli, argv).exit_code == 1
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_AUDIT_KEY_FILE": str(moved)})
    assert runner.invoke(cli, argv).exit_code == 0


def test_a_copy_into_another_store_keeps_verifying_and_catches_tampering(
    fresh: Workload, tmp_path: Path
) -> None:
    dst = tmp_path / "copy" / "c.db"
    dst.parent.mkdir()
    copy_between(str(fresh.path), str(dst))
    # the copy has its own key file, which now also holds the key that sealed the records
    assert Path(f"{dst}.audit-key").read_text() != Path(f"{fresh.path}.audit-key").read_text()
    assert all(r.ok for r in _verify(dst).values())
    mem = mneme.Memory.open(str(dst), embedder="hashing")
    try:
        mem.retain("Gina moved to Oslo.", bank="b1", agent="a1")
        assert all(r.ok for r in mem.admin.audit_verify().values())
    finally:
        mem.close()
    conn = sqlite3.connect(dst)
    conn.execute("UPDATE units SET text = 'forged' WHERE id = ?", (fresh.lisbon,))
    conn.commit()
    conn.close()
    assert not _verify(dst)["b1"].ok


def _reseal_heads(conn: sqlite3.Connection, key: MacKey) -> None:
    """What a forger holding the key does after rewriting the chain: seal every head again."""
    for bank, seq, hash_, count in conn.execute(
        "SELECT bank_id, seq, hash, count FROM audit_head"
    ).fetchall():
        conn.execute(
            "UPDATE audit_head SET mac = ? WHERE bank_id = ?",
            (head_mac(key, bank, seq, hash_, count), bank),
        )


def _as_legacy(path: Path) -> None:
    """Turn a store into one written before schema 14: format-1 records, no seals, no keys."""
    conn = sqlite3.connect(path)
    try:
        conn.execute("UPDATE audit_log SET row_seals = NULL, reason_sha = NULL")
        conn.commit()
        _recompute(conn)
        for column in ("version", "key_id", "reason_sha", "row_seals"):
            conn.execute(f"ALTER TABLE audit_log DROP COLUMN {column}")
        conn.execute("ALTER TABLE audit_head DROP COLUMN mac")
        conn.execute("DROP TABLE audit_keys")
        conn.execute("DELETE FROM schema_version WHERE version >= ?", (KEYED_SCHEMA,))
        conn.commit()
    finally:
        conn.close()
    Path(f"{path}.audit-key").unlink()


@pytest.fixture
def legacy(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "old.db"
    mem = mneme.Memory.open(str(path), embedder="hashing")
    try:
        mem.retain("Alice lives in Lisbon.", bank="b1", agent="a1", source_id="ev-1")
        secret = mem.retain("Carol's passport is X9-4471.", bank="b1", agent="a1")
    finally:
        mem.close()
    _as_legacy(path)
    return path, secret.memory_ids[0]


def test_a_legacy_log_is_keyed_at_its_upgrade_and_keeps_verifying(legacy: tuple[Path, str]) -> None:
    path, secret = legacy
    mem = mneme.Memory.open(str(path), embedder="hashing")
    try:
        assert Path(f"{path}.audit-key").exists()  # made by the open that keyed the chain
        report = mem.admin.audit_verify()["b1"]
        assert report.ok, report
        assert any("legacy format" in n for n in report.notes)
        ops = [r.op for r in mem.admin.audit_log("b1")]
        assert ops[-1] == "audit.reseal"  # the rows, sealed as found
        # a purge erases the plain-text reasons of legacy records too: their link is checked
        mem.admin.purge(secret, actor="dpo", reason="erasure request")
        report = mem.admin.audit_verify()["b1"]
        assert report.ok, report
        assert any("link checked" in n for n in report.notes)
        mem.retain("Dana works at Harbor Labs.", bank="b1", agent="a2")
        assert mem.admin.audit_verify()["b1"].ok
    finally:
        mem.close()
    assert b"X9-4471" not in _dump(path)


def test_a_legacy_record_edited_after_the_upgrade_is_found(legacy: tuple[Path, str]) -> None:
    path, _ = legacy
    mneme.Memory.open(str(path), embedder="hashing").close()
    conn = sqlite3.connect(path)
    conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 2")
    conn.commit()
    conn.close()
    assert not _verify(path)["b1"].ok
    conn = sqlite3.connect(path)
    _recompute(conn)  # and recomputing the chain does not hide it: the head is keyed
    conn.close()
    assert not _verify(path)["b1"].ok
    assert _cli_exit(path) == 1


def _cli(path: Path, *args: str) -> tuple[int, str]:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    result = runner.invoke(cli, ["--db", str(path), "--embedder", "hashing", *args])
    return int(result.exit_code), result.stdout


def test_an_anchor_kept_elsewhere_catches_a_rollback_of_the_whole_database(
    fresh: Workload, tmp_path: Path
) -> None:
    backup = tmp_path / "backup.db"
    shutil.copy(fresh.path, backup)  # an older copy, with its valid keyed head
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing")
    try:
        mem.retain("Erin joined in June.", bank="b1", agent="a2")
    finally:
        mem.close()
    anchors = tmp_path / "elsewhere" / "anchors.jsonl"
    anchors.parent.mkdir()
    assert _cli(fresh.path, "audit", "anchor", "--out", str(anchors))[0] == 0
    assert _cli(fresh.path, "audit", "verify", "--anchor", str(anchors))[0] == 0
    shutil.copy(backup, fresh.path)  # roll everything back: rows, log, head and its seal
    assert _cli(fresh.path, "audit", "verify")[0] == 0  # the key alone cannot tell
    code, out = _cli(fresh.path, "audit", "verify", "--anchor", str(anchors))
    assert code == 1
    assert "rolled back" in out


def test_an_anchor_catches_a_bank_deleted_with_everything_it_had(
    fresh: Workload, tmp_path: Path
) -> None:
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing")
    try:
        anchor = mem.admin.audit_anchor()
    finally:
        mem.close()
    conn = sqlite3.connect(fresh.path)
    for table in ("audit_log", "audit_head", "units", "sources", "claims", "claim_units"):
        conn.execute(f"DELETE FROM {table} WHERE bank_id = 'b2'")
    conn.execute("DELETE FROM banks WHERE id = 'b2'")
    conn.commit()
    conn.close()
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing", read_only=True)
    try:
        assert all(r.ok for r in mem.admin.audit_verify().values())  # nothing left to find
        reports = mem.admin.audit_verify(anchors=[anchor])
        assert not reports["b2"].ok
        assert reports["b1"].ok
    finally:
        mem.close()


def test_an_anchor_catches_a_chain_rewritten_by_someone_who_holds_the_key(
    fresh: Workload, tmp_path: Path
) -> None:
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing")
    try:
        anchor = mem.admin.audit_anchor()
        ring = mem._store.audit.anchors().keyring
        assert ring is not None
        key = ring.signing
    finally:
        mem.close()
    conn = sqlite3.connect(fresh.path)
    conn.execute("UPDATE audit_log SET actor = 'mallory' WHERE seq = 3")
    conn.commit()
    _recompute(conn, key)
    _reseal_heads(conn, key)
    conn.commit()
    conn.close()
    assert _verify(fresh.path)["b1"].ok  # with the key, the rewrite is consistent
    mem = mneme.Memory.open(str(fresh.path), embedder="hashing", read_only=True)
    try:
        assert not mem.admin.audit_verify(anchors=[anchor])["b1"].ok
    finally:
        mem.close()


def test_an_anchor_file_that_is_not_one_is_a_usage_error(fresh: Workload, tmp_path: Path) -> None:
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"heads": {}}\n')
    assert _cli(fresh.path, "audit", "verify", "--anchor", str(bad))[0] == 2


def test_the_key_file_is_made_once_readable_by_its_owner_only(tmp_path: Path) -> None:
    db = tmp_path / "k.db"
    mneme.Memory.open(str(db), embedder="hashing").close()
    key = Path(f"{db}.audit-key")
    assert key.stat().st_mode & 0o777 == 0o600
    first = key.read_text()
    with mneme.Memory.open(str(db), embedder="hashing") as mem:
        mem.retain("Hana plays the cello.", bank="b", agent="a")
        assert all(r.ok for r in mem.admin.audit_verify().values())
    assert key.read_text() == first  # never replaced
    elsewhere = tmp_path / "vault" / "audit.key"
    elsewhere.parent.mkdir()
    other = tmp_path / "o.db"
    with mneme.Memory.open(str(other), embedder="hashing", audit_key_file=str(elsewhere)) as mem:
        mem.retain("Ivo paints.", bank="b", agent="a")
    assert elsewhere.exists()
    assert not Path(f"{other}.audit-key").exists()
