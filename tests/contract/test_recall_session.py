"""recall(session=) on every backend (ADR 0109): the session's memories only, in every channel
(the SQLite vector index resolves the session to ids itself; PostgreSQL filters in SQL), and
a superseded one's successor, from whichever session said it."""

from __future__ import annotations

import mneme


def test_recall_keeps_to_one_session_on_every_backend(target: str) -> None:
    mem = mneme.Memory.open(target, embedder="hashing:15")
    try:
        ids: dict[str, set[str]] = {}
        for session, text in (
            ("s1", "Alice lives in Lisbon."),
            ("s1", "Alice works at the harbour office."),
            ("s2", "Alice moved to Porto."),
            ("s2", "Bob lives in Lisbon too."),
        ):
            r = mem.retain(text, bank="b", agent="a1", session=session)
            ids.setdefault(session, set()).update(r.memory_ids)
        everywhere = {h.unit.id for h in mem.recall("Where does Alice live?", bank="b", agent="a1")}
        assert everywhere & ids["s2"]
        for session in ("s1", "s2"):
            hits = mem.recall("Where does Alice live?", bank="b", agent="a1", session=session)
            assert hits
            own = {h.unit.id for h in hits if h.unit.id in ids[session]}
            # The only other: the successor of a memory of the session, whatever session
            # said it (the old value is never shown without what replaced it).
            others = [h for h in hits if h.unit.id not in own]
            assert all(h.via_edge == "SUPERSEDES" for h in others), [h.unit.text for h in others]
            assert all(h.unit.supersedes and set(h.unit.supersedes) <= own for h in others)
        s1 = mem.recall("Where does Alice live?", bank="b", agent="a1", session="s1")
        assert [h.unit.text for h in s1 if h.via_edge] == ["Alice moved to Porto."]
        assert mem.recall("Where does Alice live?", bank="b", agent="a1", session="s9") == []
    finally:
        mem.close()
