"""Every bad input gets a clear error naming the problem, nothing is half-written, and what was
stored stays intact."""

from __future__ import annotations

import datetime as dt
import shutil
import sqlite3
from pathlib import Path

import pytest

import mneme
from mneme.embed.hashing import HashingEmbedder
from mneme.errors import BackendUnavailable, Conflict, InvalidInput, NotFound, SchemaMismatch

SCHEMA_1 = Path(__file__).parents[1] / "fixtures" / "schema_v1.db"

T0 = dt.datetime(2024, 3, 5, 10, 0, tzinfo=dt.UTC)


def _counts(path: str) -> tuple[int, int, int]:
    db = sqlite3.connect(path)
    try:
        return tuple(
            db.execute(f"SELECT count(*) FROM {t}").fetchone()[0]
            for t in ("sources", "units", "audit_log")
        )
    finally:
        db.close()


@pytest.fixture
def stored(mem: mneme.Memory, db_path: str) -> tuple[int, int, int]:
    mem.retain("Bob drinks green tea every morning.", bank="b1", agent="a1", occurred_at=T0)
    return _counts(db_path)


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("", "empty"),
        ("   \n\t ", "empty"),
        ("a\x00b", "NUL"),
        ("x" * 1_000_001, "over the limit"),
        (b"caf\xe9 au lait", "not valid UTF-8"),
        ("lone \ud800 surrogate", "UTF-8"),
        (42, "must be a string"),
    ],
)
def test_bad_text_is_refused_with_a_clear_error_and_nothing_is_written(
    mem, db_path, stored, text, message
):
    with pytest.raises(InvalidInput, match=message):
        mem.retain(text, bank="b1", agent="a1")
    assert _counts(db_path) == stored
    assert mem.recall("What does Bob drink?", bank="b1", agent="a1")[0].text.startswith("Bob")


def test_a_limit_error_names_only_a_setting_that_moves_it(mem, stored):
    with pytest.raises(InvalidInput, match="raise max_text_chars"):
        mem.retain("x" * 1_000_001, bank="b1", agent="a1")
    with pytest.raises(InvalidInput, match=r"query is 9,000 characters, .*; shorten it$"):
        mem.recall("x" * 9_000, bank="b1", agent="a1")


@pytest.mark.parametrize("when", ["2024-13-45", "yesterday-ish", "", "12/03/2024 maybe"])
def test_a_malformed_time_names_the_value(mem, db_path, stored, when):
    with pytest.raises(InvalidInput, match="occurred_at"):
        mem.retain("Carol plays chess.", bank="b1", agent="a1", occurred_at=when)
    with pytest.raises(InvalidInput, match="time_from"):
        mem.recall("chess", bank="b1", agent="a1", time_from=when)
    assert _counts(db_path) == stored


@pytest.mark.parametrize(
    "when",
    [
        "0001-01-01T00:00:00Z",
        "0099-12-31",
        "9999-12-31T23:59:59Z",
        dt.datetime.max,
        dt.datetime(1, 1, 1, tzinfo=dt.UTC),
    ],
)
def test_a_time_outside_the_kept_range_is_refused_on_every_argument(mem, db_path, stored, when):
    for kw in ("occurred_at", "mentioned_at"):
        with pytest.raises(InvalidInput, match=f"{kw}.*0100-01-01 to 8999-12-31"):
            mem.retain("Carol plays chess.", bank="b1", agent="a1", **{kw: when})
    with pytest.raises(InvalidInput, match="as_of"):
        mem.recall("chess", bank="b1", agent="a1", as_of=when)
    assert _counts(db_path) == stored
    assert len(mem.list_memories(bank="b1")) == 1


def test_far_dates_in_text_are_no_times_and_break_nothing(mem, db_path, stored):
    for text in (
        "The vault opens on 9999-12-31.",
        "Sealed on 0001-01-01.",
        "Due 31 December 9999.",
    ):
        r = mem.retain(text, bank="b1", agent="a1")
        assert mem.get(r.memory_ids[0]).occurred_start.year == 2024  # when it was said
    assert len(mem.list_memories(bank="b1")) == 4
    assert mem.recall("what happens in 9999?", bank="b1", agent="a1")


def test_a_store_holding_a_short_year_opens_lists_and_is_repaired(tmp_path):
    """A real schema-1 file holding rows written before times were padded ("999-06-01T..."):
    it opens, its migrations (schema 12) pad the rows in place, and it lists and verifies."""
    db_path = tmp_path / "old.db"
    shutil.copy(SCHEMA_1, db_path)
    db = sqlite3.connect(db_path)
    db.execute("UPDATE units SET occurred_start = '999-06-01T00:00:00.000000Z' WHERE id = 'u_v1'")
    db.execute("DROP TRIGGER sources_immutable")  # as an old mneme wrote them
    db.execute("UPDATE sources SET occurred_at = '999-06-01T00:00:00.000000Z'")
    db.commit()
    db.close()
    again = mneme.Memory.open(db_path, embedder=HashingEmbedder())
    try:
        assert again.get("u_v1").occurred_start == dt.datetime(999, 6, 1, tzinfo=dt.UTC)
        assert "u_v1" in [u.id for u in again.list_memories(bank="b1")]
        db = sqlite3.connect(db_path)
        stored_at = db.execute("SELECT occurred_start FROM units WHERE id = 'u_v1'").fetchone()
        guard = db.execute("SELECT count(*) FROM sqlite_master WHERE name = 'sources_immutable'")
        guarded = guard.fetchone()[0]
        db.close()
        assert stored_at == ("0999-06-01T00:00:00.000000Z",)
        assert guarded == 1  # the append-only guard is back after the repair
        assert again.admin.audit_verify()["b1"].ok
    finally:
        again.close()


def test_text_with_nothing_visible_is_refused_and_a_wait_must_be_finite(mem, db_path, stored):
    for invisible in ("\u200b\u200b", "\u200e\u2060", "\ufeff"):
        with pytest.raises(InvalidInput, match="no visible characters"):
            mem.retain(invisible, bank="b1", agent="a1")
    for wait in (float("inf"), float("nan"), -1, 10**9):
        with pytest.raises(InvalidInput, match="wait must be"):
            mem.retain("Carol plays chess.", bank="b1", agent="a1", wait=wait)
    assert _counts(db_path) == stored


def test_audit_verify_of_a_bad_or_unknown_bank_is_an_error(mem, stored):
    with pytest.raises(InvalidInput, match="bank"):
        mem.admin.audit_verify("../x")
    with pytest.raises(NotFound, match="no bank 'nope'"):
        mem.admin.audit_verify("nope")
    assert mem.admin.audit_verify("b1")["b1"].ok


@pytest.mark.parametrize("bank", ["", " b1", "b 1", "x" * 200, None, "../etc"])
def test_a_malformed_bank_id_is_refused(mem, bank):
    with pytest.raises(InvalidInput, match="bank"):
        mem.retain("Carol plays chess.", bank=bank, agent="a1")


def test_an_unknown_bank_is_refused_when_banks_are_not_created_on_write(db_path):
    mem = mneme.Memory.open(db_path, embedder=HashingEmbedder(), create_banks=False)
    with pytest.raises(NotFound, match="no bank 'nope'"):
        mem.retain("Carol plays chess.", bank="nope", agent="a1")
    assert mem.admin.banks() == []
    assert mem.recall("chess", bank="nope", agent="a1") == []
    mem.close()


def test_a_batch_with_one_bad_item_writes_nothing(mem, db_path, stored):
    items = [
        {"text": "Dora sails on Sundays.", "bank": "b1", "agent": "a1"},
        {"text": "", "bank": "b1", "agent": "a1"},
    ]
    with pytest.raises(InvalidInput, match="item 1"):
        mem.retain_many(items)
    assert _counts(db_path) == stored


def test_a_failure_inside_the_write_transaction_rolls_everything_back(
    mem, db_path, stored, monkeypatch
):
    def boom(*args, **kwargs):
        raise RuntimeError("disk on fire")

    monkeypatch.setattr(mem._store.graph, "add_mentions", boom)
    with pytest.raises(RuntimeError, match="disk on fire"):
        mem.retain("Eve met Frank in Oslo.", bank="b1", agent="a1")
    monkeypatch.undo()
    assert _counts(db_path) == stored
    assert all("Oslo" not in h.text for h in mem.recall("Oslo", bank="b1", agent="a1"))
    assert mem.admin.audit_verify()["b1"].ok


def test_a_source_id_reused_with_other_text_is_a_conflict(mem, db_path):
    mem.retain("Gus likes jazz.", bank="b1", agent="a1", source_id="ev-9")
    before = _counts(db_path)
    with pytest.raises(Conflict, match="ev-9"):
        mem.retain("Gus likes opera.", bank="b1", agent="a1", source_id="ev-9")
    assert _counts(db_path) == before
    again = mem.retain("Gus likes jazz.", bank="b1", agent="a1", source_id="ev-9")
    assert again.metadata.get("replayed")
    assert _counts(db_path) == before


def test_source_ids_are_per_bank_and_a_private_one_is_its_writers(mem, db_path):
    mem.retain("Gus likes jazz.", bank="b1", agent="a1", source_id="ev-7")
    # Another bank's ids are no business of this one: the same id is free there.
    mem.retain("Ida likes chess.", bank="b2", agent="a1", source_id="ev-7")
    assert mem.source("ev-7", bank="b1").text == "Gus likes jazz."
    assert mem.source("ev-7", bank="b2").text == "Ida likes chess."
    with pytest.raises(InvalidInput, match="more than one bank; name the bank"):
        mem.source("ev-7")
    with pytest.raises(InvalidInput, match="name the bank"):
        mem.admin.purge("ev-7", actor="dpo", reason="art. 17", dry_run=True)
    assert (
        mem.admin.purge("ev-7", actor="dpo", reason="art. 17", dry_run=True, bank="b2").bank_id
        == "b2"
    )
    # Inside a bank, another agent's private id takes nothing from anyone (ADR 0107): a1's
    # write under it succeeds exactly as under an unused id, so no answer tells it exists.
    mem.retain("Hal's pin is 4412.", bank="b1", agent="a2", source_id="ev-8", visibility="private")
    hidden = mem.retain("Gus likes opera.", bank="b1", agent="a1", source_id="ev-8")
    unused = mem.retain("Gus likes opera.", bank="b1", agent="a1", source_id="ev-9")
    assert not hidden.metadata.get("replayed")
    assert hidden.memory_ids
    assert unused.memory_ids == hidden.memory_ids
    assert mem.source("ev-8", bank="b1", agent="a1").text == "Gus likes opera."
    # A visible id holding other text is still refused, and the refusal names nobody.
    with pytest.raises(Conflict) as visible:
        mem.retain("Gus likes blues.", bank="b1", agent="a1", source_id="ev-7")
    assert "a1" not in str(visible.value)


@pytest.mark.parametrize(
    "kwargs",
    [
        {"k": 0},
        {"k": 10_001},
        {"k": "3"},
        {"scope": "everyone"},
        {"scope": "owner"},
        {"types": ["gossip"]},
        {"time_from": "2024-06-01", "time_to": "2024-01-01"},
    ],
)
def test_bad_recall_arguments_are_refused(mem, stored, kwargs):
    with pytest.raises(InvalidInput):
        mem.recall("tea", bank="b1", agent="a1", **kwargs)


def test_an_overlong_query_is_refused(mem):
    with pytest.raises(InvalidInput, match="query"):
        mem.recall("tea " * 5000, bank="b1", agent="a1")


def test_a_foreign_file_is_refused_as_not_a_database(tmp_path):
    path = tmp_path / "notes.db"
    path.write_bytes(b"these are my notes, not a database\n" * 20)
    with pytest.raises(SchemaMismatch, match="not a SQLite database"):
        mneme.Memory.open(str(path), embedder=HashingEmbedder())
    assert path.read_bytes().startswith(b"these are my notes")


def test_a_foreign_sqlite_database_is_refused_and_left_untouched(tmp_path):
    path = tmp_path / "other.db"
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE recipes (name TEXT)")
    db.commit()
    db.close()
    with pytest.raises(SchemaMismatch, match="not a mneme store"):
        mneme.Memory.open(str(path), embedder=HashingEmbedder())
    db = sqlite3.connect(path)
    assert [r[0] for r in db.execute("SELECT name FROM sqlite_master")] == ["recipes"]
    db.close()


def test_a_corrupt_database_file_is_refused(mem, db_path, tmp_path):
    mem.retain("Hana runs marathons.", bank="b1", agent="a1")
    mem.close()
    broken = tmp_path / "broken.db"
    data = bytearray(Path(db_path).read_bytes())
    data[100:4096] = b"\xff" * (4096 - 100)  # wipe the schema page after the header
    broken.write_bytes(bytes(data))
    with pytest.raises((SchemaMismatch, BackendUnavailable)):
        mneme.Memory.open(str(broken), embedder=HashingEmbedder())


def test_a_newer_schema_is_refused_with_the_versions_named(mem, db_path):
    mem.close()
    db = sqlite3.connect(db_path)
    db.execute("INSERT INTO schema_version VALUES (999, 'future', '2030-01-01')")
    db.commit()
    db.close()
    with pytest.raises(SchemaMismatch, match="999"):
        mneme.Memory.open(db_path, embedder=HashingEmbedder())


def test_a_read_only_store_reads_but_refuses_writes_clearly(mem, db_path, tmp_path):
    mem.retain("Ivan repairs clocks.", bank="b1", agent="a1")
    mem.close()
    copy = tmp_path / "ro.db"
    shutil.copy(db_path, copy)
    ro = mneme.Memory.open(str(copy), embedder=HashingEmbedder(), read_only=True)
    assert ro.recall("clocks", bank="b1", agent="a1")[0].text == "Ivan repairs clocks."
    with pytest.raises(BackendUnavailable, match="read-only"):
        ro.retain("Ivan sells clocks.", bank="b1", agent="a1")
    ro.close()
    assert _counts(str(copy))[1] == 1


def test_a_directory_in_place_of_the_file_is_a_clear_backend_error(tmp_path):
    (tmp_path / "store.db").mkdir()
    with pytest.raises(BackendUnavailable, match="is a directory"):
        mneme.Memory.open(str(tmp_path / "store.db"), embedder=HashingEmbedder())
