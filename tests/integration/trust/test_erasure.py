"""Erasure erases (issue 16 item 2, ADR 0036): after a purge, the raw database file holds none
of the erased strings, in any table, index, free page or the WAL; the audit chain verifies."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import mneme
from mneme.core.erasure import subject_names
from mneme.errors import InvalidInput, NotFound

MNEME = Path(sys.executable).with_name("mneme")
#: What must be gone: the subject's names and the diagnosis only her memories state.
ERASED = ("Nadia", "Okafor", "sarcoidosis")


def _raw_hits(db: Path, needles: tuple[str, ...]) -> dict[str, int]:
    """Occurrences of each needle (any case) in the database file and its WAL, after
    ``mem.admin.compact`` folds the WAL into the file and rewrites it (free pages go)."""
    mem = mneme.Memory.open(db, embedder="hashing")
    try:
        assert mem.admin.compact().done == ("wal_checkpoint", "vacuum")
    finally:
        mem.close()
    blobs = [p.read_bytes() for p in (db, Path(f"{db}-wal")) if p.exists()]
    hits = {}
    for needle in needles:
        pattern = re.compile(re.escape(needle.encode()), re.IGNORECASE)
        hits[needle] = sum(len(pattern.findall(b)) for b in blobs)
    return {k: v for k, v in hits.items() if v}


def _nadia_everywhere(mem: mneme.Memory) -> dict[str, str]:
    """A bank where the subject is in memories, sources, a conflict, a rejection, reviewer
    notes and a settlement note; and memories about other people that must survive."""
    keep = mem.retain("Tomas Berg runs the Thursday clinic.", bank="clinic", agent="a1")
    mem.retain(
        "Nadia Okafor was diagnosed with sarcoidosis in March.",
        bank="clinic",
        agent="a1",
        source_id="intake-1",
    )
    mem.retain("Nadia's appointments are on Mondays.", bank="clinic", agent="a1")
    one = mem.retain("Nadia Okafor's clinic is in Leeds.", bank="clinic", agent="a1")
    two = mem.retain("Nadia Okafor's clinic is in York.", bank="clinic", agent="a2")
    rejected = mem.retain("Nadia Okafor smokes.", bank="clinic", agent="a2")
    mem.review.reject(rejected.memory_ids[0], "Nadia says she never smoked", "rev1")
    for conflict in mem.conflicts.list(bank="clinic"):
        mem.conflicts.resolve(
            conflict.id,
            "not_conflict",
            actor="rev1",
            note="Nadia Okafor attends both clinics for sarcoidosis",
        )
    # a rejection and a restore of a memory that is not about her, with words naming her
    mem.review.reject(keep.memory_ids[0], "Nadia says it is Fridays", "rev1")
    mem.review.restore(keep.memory_ids[0], "rev1", note="checked with Nadia's GP: Thursdays")
    return {"keep": keep.memory_ids[0], "one": one.memory_ids[0], "two": two.memory_ids[0]}


def test_a_subject_purge_leaves_no_erased_string_in_the_raw_file(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    mem = mneme.Memory.open(db, embedder="hashing")
    ids = _nadia_everywhere(mem)
    mem.retain("Ines Duarte moved to Porto.", bank="other", agent="a9")
    assert set(_raw_hits(db, ERASED)) == set(ERASED)

    plan = mem.admin.purge_subject(
        "Nadia Okafor",
        aliases=("Nadia",),
        actor="dpo",
        reason="GDPR art. 17 request from Nadia Okafor (sarcoidosis file)",
        dry_run=True,
    )
    assert [p.bank_id for p in plan] == ["clinic"]  # the other bank never named her
    assert ids["one"] in plan[0].units
    assert ids["keep"] not in plan[0].units
    assert mem.get(ids["one"])  # a dry run changes nothing

    done = mem.admin.purge_subject(
        "Nadia Okafor",
        aliases=("Nadia",),
        actor="dpo",
        reason="GDPR art. 17 request from Nadia Okafor (sarcoidosis file)",
    )
    assert [(p.bank_id, p.units, p.sources) for p in done] == [
        (p.bank_id, p.units, p.sources) for p in plan
    ]
    with pytest.raises(NotFound):
        mem.get(ids["one"])
    assert mem.get(ids["keep"]).text == "Tomas Berg runs the Thursday clinic."
    assert not mem.recall("sarcoidosis", bank="clinic", agent="a1", scope="collective")
    assert mem.recall("Thursday clinic", bank="clinic", agent="a1")
    reports = mem.admin.audit_verify()
    assert all(r.ok for r in reports.values()), reports
    mem.close()

    assert _raw_hits(db, ERASED) == {}
    again = mneme.Memory.open(db, embedder="hashing")
    assert all(r.ok for r in again.admin.audit_verify().values())
    assert again.recall("Porto", bank="other", agent="a9")
    again.close()


def test_an_object_purge_blanks_the_notes_and_questions_about_what_it_erased(
    tmp_path: Path,
) -> None:
    db = tmp_path / "m.db"
    mem = mneme.Memory.open(db, embedder="hashing")
    a = mem.retain("The vault code is 4417-Quince.", bank="b", agent="a1", source_id="s1")
    mem.review.reject(a.memory_ids[0], "4417-Quince was retired", "rev1")
    mem.review.restore(a.memory_ids[0], "rev1", note="4417-Quince is still in use")
    kept = mem.retain("The lobby opens at 7.", bank="b", agent="a1")
    mem.admin.purge(a.memory_ids[0], actor="dpo", reason="request 7")
    assert all(r.ok for r in mem.admin.audit_verify().values())
    assert mem.get(kept.memory_ids[0])
    mem.close()
    assert _raw_hits(db, ("Quince",)) == {}


def test_subject_names_match_whole_words_in_any_case_and_accent() -> None:
    names = subject_names(["Zoë Adler"])
    assert names is not None
    assert names.named_in("ZOE ADLER's file")
    assert names.named_in("zoë  adler,")
    assert not names.named_in("Zoë Adlerson")
    assert subject_names(["x", " "]) is None


def test_a_subject_purge_refuses_what_names_nobody(tmp_path: Path) -> None:
    mem = mneme.Memory.open(tmp_path / "m.db", embedder="hashing")
    with pytest.raises(InvalidInput, match="two letters"):
        mem.admin.purge_subject("N", actor="dpo", reason="r")
    with pytest.raises(InvalidInput, match="legal ground"):
        mem.admin.purge_subject("Nadia", actor="dpo", reason=" ")
    with pytest.raises(NotFound):
        mem.admin.purge_subject("Nadia", actor="dpo", reason="r", bank="nope")
    assert mem.admin.purge_subject("Nadia", actor="dpo", reason="r") == ()
    mem.close()


def test_the_cli_purges_a_subject_with_a_dry_run_first(tmp_path: Path) -> None:
    db = tmp_path / "m.db"
    mem = mneme.Memory.open(db, embedder="hashing")
    _nadia_everywhere(mem)
    mem.close()
    base = [str(MNEME), "--db", str(db), "--embedder", "hashing"]
    args = ["purge", "--subject", "Nadia Okafor", "--alias", "Nadia", "--actor", "dpo"]
    dry = subprocess.run(
        [*base, *args, "--reason", "art. 17", "--dry-run"], capture_output=True, text=True
    )
    assert dry.returncode == 0, dry.stderr
    assert "would erase in bank clinic" in dry.stdout
    refused = subprocess.run([*base, *args, "--reason", "art. 17"], capture_output=True, text=True)
    assert refused.returncode == 2
    assert "--yes" in refused.stderr
    done = subprocess.run(
        [*base, *args, "--reason", "art. 17", "--yes"], capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert "erased in bank clinic" in done.stdout
    both = subprocess.run([*base, "purge", "x", *args[1:], "--reason", "r"], capture_output=True)
    assert both.returncode == 2
    compacted = subprocess.run([*base, "db", "compact"], capture_output=True, text=True)
    assert compacted.returncode == 0, compacted.stderr
    assert "compacted: wal_checkpoint, vacuum" in compacted.stdout
    assert _raw_hits(db, ("sarcoidosis",)) == {}
