"""Many agents at once: 8 processes write 500 memories each into one bank, on every backend.

Each agent states 400 facts of its own and 100 facts every agent states, repeats some with new
sources and replays some source ids. Afterwards: nothing lost (one unit per fact, every
statement's source kept as evidence), no duplicate unit for one content key, a shared fact has
exactly as many knowers as agents that stated it, no error reached any caller (no "database is
locked", no serialization failure or unique violation), the audit chain did not fork, and every
agent is on the roster with its host.
"""

from __future__ import annotations

import collections
import json
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from mneme import Memory
from mneme.core.model import Scope, Viewer
from mneme.store.protocol import Filters

AGENTS = 8
OWN = 400
SHARED = 100
REPEATS = 10
BATCH = 50
BANK = "hive"
WORKER = Path(__file__).with_name("agent_writer.py")
DEADLINE_SECONDS = 900  # a bound on the wait, not a timing assertion (see the report)


def _run_agents(target: str) -> tuple[list[dict[str, Any]], float]:
    procs = [
        subprocess.Popen(
            [sys.executable, str(WORKER), target, BANK, str(i)]
            + [str(n) for n in (OWN, SHARED, REPEATS, BATCH)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for i in range(AGENTS)
    ]
    try:
        for p in procs:  # every agent has opened the store (and migrated it) before any writes
            assert p.stdout is not None
            line = p.stdout.readline()
            assert line.strip() == "ready", (line, p.stderr.read() if p.stderr else "")
        started = time.monotonic()
        for p in procs:
            assert p.stdin is not None
            p.stdin.write("go\n")
            p.stdin.flush()
        reports = []
        for p in procs:
            out, err = p.communicate(timeout=DEADLINE_SECONDS)
            assert p.returncode == 0, err
            reports.append(json.loads(out.strip().splitlines()[-1]))
        return reports, time.monotonic() - started
    finally:
        for p in procs:
            if p.poll() is None:
                p.kill()


def test_eight_agents_writing_at_once_lose_nothing_and_duplicate_nothing(target: str) -> None:
    Memory.open(target, embedder="hashing:15").close()  # the schema exists before the race
    reports, seconds = _run_agents(target)
    print(f"{AGENTS} agents x {OWN + SHARED} memories: {seconds:.1f}s", file=sys.stderr)

    for r in reports:
        assert r["errors"] == [], r["errors"][0]
        assert r["bad"] == [], r["bad"][:3]
        assert len(r["stated"]) == OWN + SHARED + 2 * REPEATS
    evidence: collections.Counter[str] = collections.Counter()
    knowers: dict[str, set[str]] = collections.defaultdict(set)
    for r in reports:
        for text, _source, replay in r["stated"]:
            knowers[text].add(r["agent"])
            if not replay:
                evidence[text] += 1

    mem = Memory.open(target, embedder="hashing:15")
    try:
        units = mem._store.memories.list_units(
            Viewer(BANK, "owner", Scope.OWNER), Filters(), 100_000
        )
        assert len(units) == AGENTS * OWN + SHARED
        keys = collections.Counter(u.content_key for u in units)
        assert keys.most_common(1)[0][1] == 1
        by_text = {u.text: u for u in units}
        assert set(by_text) == set(knowers)
        for text, unit in by_text.items():
            assert set(unit.knowers) == knowers[text], text
            assert len(unit.knowers) == len(knowers[text])
            assert len(unit.evidence) == evidence[text], text
        shared = [u for u in units if u.text.startswith("Beacon")]
        assert len(shared) == SHARED
        assert {len(u.knowers) for u in shared} == {AGENTS}
        assert mem.admin.stats().sources == sum(evidence.values())
        assert mem.admin.audit_verify(BANK)[BANK].ok
        roster = mem.swarm.roster(BANK)
        assert sorted(a.id for a in roster.live) == sorted(r["agent"] for r in reports)
        assert {a.host for a in roster.live} == {socket.gethostname()}
    finally:
        mem.close()
