"""Realistic synthetic memories for the scale curve: people, places, projects, times, updates.

Deterministic for a seed. Each memory is one short statement from a varied set of templates
(homes, jobs, projects, meetings, trips, preferences, purchases, incidents, ownership) about a
population that grows with the size (about one person per 20 memories), so entity fan-out stays
realistic at every size; about one in ten statements updates something said earlier ("now",
"moved to"), the way real memory streams do. Times advance through the stream over a few years.

    python -m bench.scale.generate --size 1000 | head
"""

from __future__ import annotations

import argparse
import datetime as dt
import json
import random
import sys
from collections.abc import Iterator
from dataclasses import dataclass
from typing import Any


def _words(text: str) -> tuple[str, ...]:
    return tuple(text.split())


FIRST = _words(
    "Aisha Aleksander Amara Anika Arjun Astrid Bea Bruno Chen Dana Dario Elin Emil Farida "
    "Gustavo Hana Hiroshi Ines Ingrid Jonas Jun Keiko Kwame Lena Lucia Marek Maria Milo Mirela "
    "Noor Oskar Pavel Petra Priya Quentin Rafael Ravi Rosa Ruth Selin Sigrid Sofia Tomasz Wen "
    "Yusuf Zara Oona Teodor Saoirse Nnamdi Beatriz Hannah Keanu Amelie Ade Ilse Lars Vera"
)
LAST = _words(
    "Okafor Rahman Holm Duarte Berg Nair Kowalczyk Ferreira Virtanen Patel Lee Obi Sato Demir "
    "Okoro Horak Adeyemi Marsh Lima Vega Anghel Paulsen Solberg Whitfield Li Kim Novak Costa "
    "Moreau Rossi Jensen Silva Tanaka Brandt Ivanova Mensah Quinn Alvarez Fischer Haddad"
)
CITIES = _words(
    "Lisbon Porto Ghent Leuven Uppsala Malmo Tallinn Vienna Oslo Hamburg Braga Turin Lyon "
    "Zilina Reykjavik Krakow Dublin Bergen Seville Tartu Graz Utrecht Aarhus Bilbao Riga"
)
PLACES = (
    "the Atrium",
    "room Birch",
    "room Cedar",
    "the Loft",
    "the library",
    "the boathouse",
    "the rooftop",
    "the north lab",
    "the east annex",
    "the canteen",
)
PROJECT_WORDS = _words(
    "Heron Osprey Wren Lark Tern Finch Kestrel Falcon Sparrow Gannet Pelican Marlow Quill "
    "Atlas Orca Lumen Tessel Piper Harrier Bluejay Zephyr Vantor Quarry Sable Corvid"
)
THINGS = (
    "a standing desk",
    "a drawing tablet",
    "noise-cancelling headphones",
    "a cargo bike",
    "a mechanical keyboard",
    "a coffee grinder",
    "a tent",
    "a sewing machine",
    "a telescope",
    "a rowing machine",
)
FOODS = ("sushi", "ramen", "tapas", "pierogi", "falafel", "curry", "pho", "tacos", "risotto")
TOOLS = ("Jenkins", "Buildkite", "Helm", "Kustomize", "Grafana", "Sentry", "Airflow", "dbt")
ORG_KINDS = ("Labs", "Foods", "Logistics", "Press", "Health")
MONTHS = ("January", "March", "April", "June", "July", "September", "October", "December")
SKILLS = ("incident command", "SQL tuning", "public speaking", "hiring")
ALLERGENS = ("peanuts", "sesame", "pollen", "shellfish", "kiwi")
TIMES = ("09:00", "09:30", "10:00", "11:15", "13:00", "14:30", "15:00", "16:45")
DAYS = ("Mondays", "Tuesdays", "Wednesdays", "Thursdays", "Fridays")


@dataclass(frozen=True, slots=True)
class Memory:
    text: str
    occurred_at: dt.datetime
    source_id: str
    session: str
    agent: str

    def retain_item(self, bank: str) -> dict[str, Any]:
        """This memory as one item of ``Memory.retain_many`` into ``bank``."""
        return {
            "text": self.text,
            "bank": bank,
            "agent": self.agent,
            "session": self.session,
            "occurred_at": self.occurred_at,
            "source_id": self.source_id,
        }


class World:
    """The population a stream talks about; sized to the stream."""

    def __init__(self, rng: random.Random, size: int) -> None:
        self.rng = rng
        n_people = max(20, size // 20)
        self.people = [
            f"{rng.choice(FIRST)} {rng.choice(LAST)}-{i}"
            if i >= 200
            else f"{rng.choice(FIRST)} {rng.choice(LAST)}"
            for i in range(n_people)
        ]
        n_projects = max(10, size // 100)
        self.projects = [f"{rng.choice(PROJECT_WORDS)}-{i}" for i in range(n_projects)]
        self.home: dict[str, str] = {}
        self.job: dict[str, str] = {}

    def person(self) -> str:
        return self.rng.choice(self.people)

    def project(self) -> str:
        return self.rng.choice(self.projects)


def _statement(w: World) -> str:  # noqa: C901  (one branch per template family, on purpose)
    r = w.rng
    p = w.person()
    kind = r.randrange(16)
    if kind == 0:
        city = r.choice(CITIES)
        if p in w.home and r.random() < 0.5:
            w.home[p] = city
            return f"{p} moved to {city} last month."
        w.home[p] = city
        return f"{p} lives in {city}."
    if kind == 1:
        org = f"{r.choice(PROJECT_WORDS)} {r.choice(ORG_KINDS)}"
        if p in w.job:
            w.job[p] = org
            return f"{p} started a new job at {org}."
        w.job[p] = org
        return f"{p} works at {org}."
    if kind == 2:
        return f"{p} owns the {w.project()} rollout."
    if kind == 3:
        when = f"{r.choice(DAYS)} at {r.choice(TIMES)}"
        return f"The {w.project()} sync is on {when} in {r.choice(PLACES)}."
    if kind == 4:
        return f"{p} prefers {r.choice(FOODS)} for team lunches."
    if kind == 5:
        return f"{p} bought {r.choice(THINGS)} for the studio."
    if kind == 6:
        return f"{p} flew to {r.choice(CITIES)} for the {w.project()} customer visit."
    if kind == 7:
        return (
            f"Incident {r.randrange(1000, 9999)}: the {w.project()} service was down for "
            f"{r.randrange(3, 90)} minutes after a bad deploy."
        )
    if kind == 8:
        ticket = f"{r.choice(['OPS', 'BIL', 'HW', 'SEC'])}-{r.randrange(10, 999)}"
        return f"{p} promised to fix ticket {ticket} before Friday."
    if kind == 9:
        day = f"{r.randrange(1, 28)} {r.choice(MONTHS)}"
        return f"The {w.project()} deadline moved to {day}."
    if kind == 10:
        q = w.person()
        return f"{p} is mentoring {q} on {r.choice(SKILLS)}."
    if kind == 11:
        old, new = r.sample(TOOLS, 2)
        return f"{p} said the {w.project()} team switched CI from {old} to {new}."
    if kind == 12:
        return f"{p}'s birthday is on {r.randrange(1, 28)} {r.choice(MONTHS)}."
    if kind == 13:
        return f"{p} is allergic to {r.choice(ALLERGENS)}."
    if kind == 14:
        k = r.randrange(20, 400)
        return f"The budget for {w.project()} is {k}k this quarter, approved by {p}."
    return f"{p} will present the {w.project()} results in {r.choice(PLACES)} next week."


def generate(size: int, seed: int = 7) -> Iterator[Memory]:
    """``size`` memories, oldest first, over about three years."""
    rng = random.Random(seed)
    world = World(rng, size)
    start = dt.datetime(2022, 1, 3, 9, 0, tzinfo=dt.UTC)
    step = dt.timedelta(days=3 * 365) / max(1, size)
    agents = ("assistant", "scout", "builder")
    for i in range(size):
        yield Memory(
            text=_statement(world),
            occurred_at=start + step * i,
            source_id=f"syn-{i:07d}",
            session=f"sess-{i // 40:06d}",
            agent=agents[rng.randrange(3)],
        )


def queries(size: int, n: int = 200, seed: int = 11) -> list[str]:
    """Questions about the same population (a different seed from the stream)."""
    rng = random.Random(seed)
    world = World(random.Random(7), size)  # the stream's people and projects
    forms = (
        "Where does {p} live?",
        "Who owns the {j} rollout?",
        "What is {p} allergic to?",
        "When is the {j} sync?",
        "What did {p} buy for the studio?",
        "Which ticket did {p} promise to fix?",
        "What is the budget for {j}?",
        "Where does {p} work now?",
        "Who is mentoring {p}?",
        "What happened in the {j} incident?",
    )
    return [
        rng.choice(forms).format(p=rng.choice(world.people), j=rng.choice(world.projects))
        for _ in range(n)
    ]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--size", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=7)
    args = ap.parse_args()
    for m in generate(args.size, args.seed):
        row = {
            "text": m.text,
            "occurred_at": m.occurred_at.isoformat(),
            "source_id": m.source_id,
            "session": m.session,
            "agent": m.agent,
        }
        sys.stdout.write(json.dumps(row) + "\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
