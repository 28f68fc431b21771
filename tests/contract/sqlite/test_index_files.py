"""The index files beside a SQLite database (ADR 0052): a restart reads them instead of the
rows, answers exactly as before, catches up with writes made since, and never trusts a file
that is damaged, foreign, or ahead of the database: it is rebuilt from the rows."""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from mneme.core.model import Network, Scope, Unit, UnitStatus, UnitType, Viewer, Visibility
from mneme.embed.hashing import HashingEmbedder
from mneme.store.protocol import Filters, UnitChanges
from mneme.store.sqlite import SQLiteStore
from mneme.store.sqlite import lexicon as lexicon_mod
from mneme.store.sqlite import vectors as vectors_mod

pytestmark = pytest.mark.parametrize("store", ["sqlite"], indirect=True)

WORDS = [
    "Lisbon",
    "Porto",
    "budget",
    "heron",
    "osprey",
    "sync",
    "meeting",
    "Tuesday",
    "deadline",
    "ticket",
    "fix",
    "incident",
    "deploy",
    "studio",
    "tablet",
    "rollout",
    "owns",
    "mentoring",
    "hiring",
    "allergic",
    "peanuts",
    "boats",
    "canoes",
    "sails",
]
QUERIES = ("budget heron", "incident deploy Tuesday", "studio tablet", "boats canoes")
EMBEDDER = HashingEmbedder(dim=15)
MODEL = EMBEDDER.model_id
VIEWERS = (
    Viewer("b1", "a1", Scope.COLLECTIVE),
    Viewer("b1", "a2", Scope.PERSONAL),
    Viewer("b1", "a1", Scope.OWNER),
)


@pytest.fixture(autouse=True)
def small_thresholds(monkeypatch: pytest.MonkeyPatch) -> None:
    """Large-bank paths at test sizes: the coarse quantizer and the in-memory BM25."""
    monkeypatch.setattr(vectors_mod, "IVF_MIN_ROWS", 150)
    monkeypatch.setattr(lexicon_mod, "LEXICAL_MIN_ROWS", 1)


def _text(i: int) -> str:
    words = [WORDS[(i * 7 + k * 3) % len(WORDS)] for k in range(3 + i % 5)]
    return f"{' '.join(words)} note {i}."


def _fill(make: Any, start: int, n: int) -> list[Any]:
    return [
        make.unit(
            _text(i),
            agent="a2" if i % 5 == 0 else "a1",
            visibility=Visibility.PRIVATE if i % 11 == 0 else Visibility.SHARED,
        )
        for i in range(start, start + n)
    ]


def _answers(store: Any) -> list[list[tuple[str, float]]]:
    """Every channel that reads an index, for several viewers and queries."""
    out = []
    for viewer in VIEWERS:
        for q in QUERIES:
            vec = EMBEDDER.embed([q])[0]
            for limit in (3, 25):
                hits = store.channels.search_semantic(viewer, vec, MODEL, Filters(), limit)
                out.append([(h.unit_id, round(h.score, 5)) for h in hits])
            lexical = store.channels.search_lexical(viewer, q.split(), Filters(), 25)
            out.append([(h.unit_id, round(h.score, 9)) for h in lexical])
    return out


def _open(path: str, **kw: Any) -> SQLiteStore:
    s = SQLiteStore(path, **kw)
    s.engine.index_files.min_rows = 1
    return s


@pytest.fixture
def saved(store: Any, make: Any) -> tuple[str, list[list[tuple[str, float]]]]:
    """A bank of 260 units whose indexes were built, then saved when the store closed."""
    store.engine.index_files.min_rows = 1
    make.bank()
    _fill(make, 0, 260)
    expected = _answers(store)
    assert store.engine.index_files.stats.built == 2  # the vectors and the postings
    store.close()
    return store.path, expected


def _files(path: str) -> list[Path]:
    return sorted(Path(path + ".index").glob("*.mnx"))


def test_a_restart_reads_the_files_and_answers_exactly_as_before(saved: Any) -> None:
    path, expected = saved
    assert len(_files(path)) == 2
    again = _open(path)
    try:
        assert _answers(again) == expected
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.built, stats.rejected) == (2, 0, 0)
        assert again.engine._indexes[("b1", MODEL)]._ivf is not None  # the quantizer came too
    finally:
        again.close()


def test_writes_after_a_restart_are_saved_and_read_by_the_next(saved: Any, make: Any) -> None:
    path, _ = saved
    again = _open(path)
    try:
        _answers(again)  # reads the files
        later = type(make)(again)
        new = later.unit("budget heron osprey canoes, the newest note.", id="u-new")
        vec = EMBEDDER.embed(["budget heron"])[0]
        first = again.channels.search_semantic(VIEWERS[0], vec, MODEL, Filters(), 1)[0].unit_id
        with again.transaction():
            again.memories.update_unit(
                "b1", first, UnitChanges(status=UnitStatus.REJECTED), actor="t", reason="test"
            )
        expected = _answers(again)
        assert any(new.id in [u for u, _ in answer] for answer in expected)
    finally:
        again.close()
    third = _open(path)
    try:
        assert _answers(third) == expected
        stats = third.engine.index_files.stats
        assert (stats.loaded, stats.caught_up, stats.built) == (2, 0, 0)
    finally:
        third.close()


WRITER = """
import os, sys
sys.path[:0] = {paths!r}
from mneme.core.model import Unit, Network, UnitType, UnitStatus, Visibility
from mneme.embed.hashing import HashingEmbedder
from mneme.store.sqlite import SQLiteStore
import datetime as dt
s = SQLiteStore({path!r})
text = "Lisbon studio tablet heron, written by another process."
unit = Unit(id="u-other", bank_id="b1", text=text, content_key="k-other",
            network=Network.WORLD, type=UnitType.FACT, status=UnitStatus.ACTIVE,
            confidence=0.8, agent_id="a1", recorded_at=dt.datetime(2024, 3, 6, tzinfo=dt.UTC),
            visibility=Visibility.SHARED, embedding_model="hashing-15", embedding_dim=15)
with s.transaction():
    s.memories.put_unit(unit, HashingEmbedder(dim=15).embed([text])[0])
os._exit(0)  # killed before it closes: whatever it held in memory is never saved
"""


def _other_process_writes(path: str) -> None:
    code = WRITER.format(paths=sys.path, path=path)
    subprocess.run([sys.executable, "-c", code], check=True, timeout=120)


def test_another_process_write_is_caught_up_not_trusted_away(saved: Any) -> None:
    """A file behind the database answers as an index held in memory through the same
    write does (the coarse quantizer is the one trained before it, in both)."""
    path, _ = saved
    running = _open(path)  # a process that read the file before the other one wrote
    try:
        _answers(running)
        _other_process_writes(path)
        expected = _answers(running)  # caught up in memory
        running.engine.index_files.min_rows = 1 << 62  # and never saved
    finally:
        running.close()
    assert any("u-other" in [u for u, _ in a] for a in expected)
    again = _open(path)
    try:
        assert _answers(again) == expected
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.caught_up, stats.built) == (2, 2, 0)
    finally:
        again.close()
    # the rows alone give the same exact (lexical) answers
    for f in _files(path):
        f.unlink()
    fresh = _open(path)
    try:
        answers = _answers(fresh)
        assert answers[2::3] == expected[2::3]
        assert fresh.engine.index_files.stats.built == 2
    finally:
        fresh.close()


def test_a_deleted_file_is_rebuilt_and_written_again(saved: Any) -> None:
    path, expected = saved
    shutil.rmtree(path + ".index")
    again = _open(path)
    try:
        assert _answers(again) == expected
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.built, stats.saved) == (0, 2, 2)
    finally:
        again.close()
    assert len(_files(path)) == 2


def _flip_payload(f: Path) -> None:
    data = bytearray(f.read_bytes())
    data[-100] ^= 0x40
    f.write_bytes(bytes(data))


def _truncate(f: Path) -> None:
    with open(f, "r+b") as fh:
        fh.truncate(f.stat().st_size - 64)


def _flip_header(f: Path) -> None:
    data = bytearray(f.read_bytes())
    data[30] ^= 0x01
    f.write_bytes(bytes(data))


def _garbage(f: Path) -> None:
    f.write_bytes(b"not an index file at all" * 10)


@pytest.mark.parametrize(
    ("damage", "reason"),
    [
        (_flip_payload, "payload checksum"),
        (_truncate, "bytes, the header says"),
        (_flip_header, "header"),
        (_garbage, "bad magic"),
    ],
)
def test_a_damaged_file_is_never_trusted(saved: Any, damage: Any, reason: str) -> None:
    path, expected = saved
    for f in _files(path):
        damage(f)
    again = _open(path)
    try:
        assert _answers(again) == expected
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.rejected, stats.built) == (0, 2, 2)
        assert all(reason in r for r in stats.reasons), stats.reasons
    finally:
        again.close()
    check = _open(path)  # rewritten whole: the next restart reads them
    try:
        assert _answers(check) == expected
        assert check.engine.index_files.stats.loaded == 2
    finally:
        check.close()


def test_another_databases_file_is_not_trusted(saved: Any, make: Any, tmp_path: Path) -> None:
    path, _ = saved
    other_path = str(tmp_path / "other.db")
    other = _open(other_path)
    try:
        theirs = type(make)(other)
        theirs.bank()  # the same bank id, in another database
        _fill(theirs, 1000, 200)
        expected = _answers(other)
    finally:
        other.close()
    shutil.rmtree(other_path + ".index")
    shutil.copytree(path + ".index", other_path + ".index")  # the first database's files
    again = _open(other_path)
    try:
        assert _answers(again) == expected
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.rejected) == (0, 2)
        assert all("another database" in r for r in stats.reasons), stats.reasons
    finally:
        again.close()


def test_a_file_ahead_of_a_restored_database_is_not_trusted(saved: Any, make: Any) -> None:
    path, _ = saved
    backup = path + ".bak"
    shutil.copyfile(path, backup)  # closed cleanly: the file is whole
    later = _open(path)
    try:
        type(make)(later).unit("hiring mentoring Porto, after the backup.", id="u-late")
        _answers(later)
    finally:
        later.close()  # saves files at a later generation
    os.replace(backup, path)  # the backup restored, the newer files kept
    for suffix in ("-wal", "-shm"):
        Path(path + suffix).unlink(missing_ok=True)
    again = _open(path)
    try:
        answers = _answers(again)
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.rejected) == (0, 2)
        assert not any("u-late" in [u for u, _ in a] for a in answers)
    finally:
        again.close()


def test_a_read_only_store_reads_valid_files_and_writes_none(saved: Any) -> None:
    path, expected = saved
    files = {f: f.stat().st_mtime_ns for f in _files(path)}
    ro = _open(path, read_only=True)
    try:
        assert _answers(ro) == expected
        assert ro.engine.index_files.stats.loaded == 2
    finally:
        ro.close()
    shutil.rmtree(path + ".index")
    ro = _open(path, read_only=True)
    try:
        assert _answers(ro) == expected
        assert ro.engine.index_files.stats.built == 2
    finally:
        ro.close()
    assert not _files(path)
    assert files  # (the first read-only open read the files it found)


def test_an_older_unit_embedded_after_the_save_is_caught_by_the_count(
    store: Any, make: Any
) -> None:
    """Catching up reads the units newer than the file's newest; an older unit that got a
    vector of the model since (a re-embedding still running when the file was saved) is
    found missing by the count of embeddings, and the index is rebuilt."""
    store.engine.index_files.min_rows = 1
    make.bank()
    _fill(make, 0, 200)
    bare = make.unit("canoes sails heron, embedded later.", embed=False)
    _fill(make, 200, 20)
    _answers(store)
    store.close()
    other = SQLiteStore(store.path)
    try:
        with other.transaction():
            other.memories.put_embedding("b1", bare.id, MODEL, EMBEDDER.embed([bare.text])[0])
    finally:
        other.close()
    again = _open(store.path)
    try:
        answers = _answers(again)
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.rejected, stats.built) == (1, 1, 1)  # the postings load
        assert "embeddings" in stats.reasons[0]
        assert any(bare.id in [u for u, _ in a] for a in answers)
    finally:
        again.close()


def _unit(unit_id: str) -> Unit:
    return Unit(
        id=unit_id,
        bank_id="b1",
        text="hiring mentoring canoes",
        content_key=f"k-{unit_id}",
        network=Network.WORLD,
        type=UnitType.FACT,
        status=UnitStatus.ACTIVE,
        confidence=0.8,
        agent_id="a1",
        recorded_at=dt.datetime(2024, 3, 6, tzinfo=dt.UTC),
        visibility=Visibility.SHARED,
        embedding_model=MODEL,
        embedding_dim=EMBEDDER.dim,
    )


def _write_search_and_fail(store: Any, vec: Any) -> None:
    with store.transaction():
        store.memories.put_unit(_unit("u-undone"), vec)
        hits = store.channels.search_semantic(VIEWERS[0], vec, MODEL, Filters(), 3)
        assert hits[0].unit_id == "u-undone"
        raise RuntimeError("rolled back")


def test_the_first_write_after_a_restart_reads_the_file_inside_its_transaction(
    saved: Any,
) -> None:
    """The write path searches inside its transaction: the file is read and caught up there
    (with the transaction's own rows), kept on commit, dropped on a rollback."""
    path, _ = saved
    vec = EMBEDDER.embed(["hiring mentoring canoes"])[0]
    again = _open(path)
    try:
        with pytest.raises(RuntimeError, match="rolled back"):
            _write_search_and_fail(again, vec)
        stats = again.engine.index_files.stats
        assert (stats.loaded, stats.built) == (1, 0)
        hits = again.channels.search_semantic(VIEWERS[0], vec, MODEL, Filters(), 3)
        assert "u-undone" not in [h.unit_id for h in hits]
        assert stats.built == 1  # the rolled-back index is not the file's any more: rebuilt
    finally:
        again.close()
    kept = _open(path)
    try:
        with kept.transaction():
            kept.memories.put_unit(_unit("u-kept"), vec)
            hits = kept.channels.search_semantic(VIEWERS[0], vec, MODEL, Filters(), 3)
            assert hits[0].unit_id == "u-kept"
        hits = kept.channels.search_semantic(VIEWERS[0], vec, MODEL, Filters(), 3)
        assert hits[0].unit_id == "u-kept"
        stats = kept.engine.index_files.stats
        assert (stats.loaded, stats.caught_up, stats.built) == (1, 1, 0)
    finally:
        kept.close()


def test_a_save_sweeps_what_a_killed_writer_left(saved: Any) -> None:
    path, _ = saved
    target = _files(path)[0]
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    left = target.with_name(f".{target.name}.{dead}.abcd1234.tmp")
    left.write_bytes(b"half a file")
    mine = target.with_name(f".{target.name}.{os.getpid()}.abcd1234.tmp")
    mine.write_bytes(b"a write still running")
    again = _open(path)
    try:
        again.engine.index_files.min_rows = 1
        _answers(again)
        with again.transaction():
            again.engine._touch("b1")  # a new generation: due again
        _answers(again)
    finally:
        again.close()
    assert not left.exists()
    assert mine.exists()
    mine.unlink()
