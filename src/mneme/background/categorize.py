"""Categorize: tag a bank's memories from its controlled, growing vocabulary (ADR 0056).

A pass reads the bank's live shared memories that carry no category yet (observations and
insights are never tagged: they restate memories), oldest first, at most ``limit`` of them;
finds each one's phrases (``core.categories.phrases``, the offline noun-phrase rule); embeds
the phrases and the vocabulary's names and aliases in one batch; and lets the core match,
fold and mint (``core.categories.tag``). It writes, in one transaction: the minted categories,
the aliases folded, and each memory's categories (``units.categories``). A memory purged or
retired meanwhile is skipped. A second pass over the same memories writes nothing: they are
tagged. At the vocabulary's cap a phrase that matches nothing takes the nearest category, and
the miss is recorded in the pass's audit record and report.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import numpy as np
import numpy.typing as npt

from mneme.core.categories import Miss, Tagging, Term, VocabularyPolicy, phrases, tag
from mneme.core.model import Category, Network, Scope, Unit, UnitStatus, Viewer, Visibility
from mneme.core.naming import rename
from mneme.embed.protocol import Embedder
from mneme.ids import new_id
from mneme.llm.namer import LLMNamer
from mneme.llm.protocol import LLM, LLMError
from mneme.store.protocol import Audit, Filters, Memories, Transactions, UnitChanges, Vocabulary

#: Who tags (``made_by`` of minted categories; the audit actor is the caller).
CATEGORIZE = "rule"
#: Memories a category may tag: held by the system.
TAGGED_STATUSES = frozenset({UnitStatus.ACTIVE, UnitStatus.PROPOSED})
#: Networks of units that restate other memories: never tagged, never threaded.
DERIVED = frozenset({Network.OBSERVATION, Network.INSIGHT})
PAGE = 1000
#: Metadata key of a memory the noun-phrase rule found nothing in (so it is read once).
NO_PHRASE = "uncategorized"
#: Minted categories one pass asks the LLM to name (one call); the rest keep the rule's name.
NAME_BATCH = 50


class CategorizeStore(Transactions, Protocol):
    memories: Memories
    vocabulary: Vocabulary
    audit: Audit


@dataclass(frozen=True, slots=True)
class CategorizeReport:
    tagged: int = 0  # memories given categories by this pass
    untagged: int = 0  # memories in which the rule found no phrase
    minted: tuple[str, ...] = ()
    aliases: int = 0
    misses: tuple[Miss, ...] = ()
    vocabulary: int = 0  # categories the bank holds after the pass
    remaining: int = 0  # untagged memories left for the next pass (the bound)
    #: With an LLM (ADR 0058): minted phrase -> the name it took (renamed or folded), the
    #: names refused (phrase, why), and why no name was taken from it at all.
    named: tuple[tuple[str, str], ...] = ()
    refused: tuple[tuple[str, str], ...] = ()
    naming_fallback: str | None = None


class VectorSpace:
    """``core.categories.Space`` over unit-length vectors: names and aliases, each a row
    pointing at its category. Rows live in one matrix grown by doubling, so a lookup after
    a mint costs one product, not a rebuild."""

    def __init__(self, vectors: Callable[[str], npt.NDArray[np.float32]]) -> None:
        self._vector = vectors
        self._matrix: npt.NDArray[np.float32] | None = None
        self._owners: list[str] = []

    def add(self, category: str, phrase: str) -> None:
        row = self._vector(phrase)
        if self._matrix is None:
            self._matrix = np.zeros((64, len(row)), dtype=np.float32)
        elif len(self._owners) == len(self._matrix):
            self._matrix = np.vstack([self._matrix, np.zeros_like(self._matrix)])
        self._matrix[len(self._owners)] = row
        self._owners.append(category)

    def nearest(self, phrase: str) -> tuple[str, float] | None:
        if self._matrix is None or not self._owners:
            return None
        scores = self._matrix[: len(self._owners)] @ self._vector(phrase)
        best = int(np.argmax(scores))
        return self._owners[best], float(scores[best])


def unit_rows(embedder: Embedder, texts: Sequence[str]) -> dict[str, npt.NDArray[np.float32]]:
    """Unit-length vectors of distinct texts, embedded in one batch."""
    distinct = list(dict.fromkeys(texts))
    if not distinct:
        return {}
    matrix = np.asarray(list(embedder.embed(distinct)), dtype=np.float32)
    norms = np.linalg.norm(matrix, axis=1, keepdims=True)
    matrix = (matrix / np.where(norms == 0, 1.0, norms)).astype(np.float32)
    return dict(zip(distinct, matrix, strict=True))


def live_memories(memories: Memories, bank: str) -> list[Unit]:
    """The bank's live shared memories that are not derived, oldest first (scope and statuses
    are clauses of the store's query)."""
    owner = Viewer(bank, "insights", Scope.OWNER)
    filters = Filters(statuses=TAGGED_STATUSES, visibility=Visibility.SHARED)
    out: list[Unit] = []
    while True:
        page = memories.list_units(owner, filters, PAGE, len(out))
        out.extend(page)
        if len(page) < PAGE:
            break
    kept = [u for u in out if u.network not in DERIVED]
    return sorted(kept, key=lambda u: (when(u), u.id))


def when(u: Unit) -> dt.datetime:
    return u.occurred_start or u.mentioned_at or u.recorded_at


class Categorizer:
    def __init__(
        self, store: CategorizeStore, embedder: Embedder, clock: Callable[[], dt.datetime]
    ):
        self.store = store
        self.embedder = embedder
        self.clock = clock

    def categorize(
        self,
        bank: str,
        units: Sequence[Unit],
        policy: VocabularyPolicy,
        *,
        agent: str,
        limit: int,
        llm: LLM | None = None,
    ) -> CategorizeReport:
        """Tag up to ``limit`` of ``units`` (live memories of ``bank``) that have no category;
        with ``llm``, the categories minted are named by it where its name passes the checks
        of ``core.naming``."""
        todo_all = [u for u in units if not u.categories and NO_PHRASE not in u.metadata]
        todo = todo_all[:limit]
        vocabulary = self.store.vocabulary.list_categories(bank)
        if not todo:
            return CategorizeReport(vocabulary=len(vocabulary))
        found = [(u.id, phrases(u.text, u.entities)) for u in todo]
        entries = [(c.name, p) for c in vocabulary for p in (c.name, *c.aliases)]
        # The one model call, outside the transaction: every phrase and vocabulary entry.
        said = [p for _, ps in found for p in ps]
        heads = [p.rsplit(" ", 1)[-1] for p in said if " " in p]  # a compound's fallback
        rows = unit_rows(self.embedder, said + heads + [p for _, p in entries])
        space = VectorSpace(lambda p: rows[p])
        for name, p in entries:
            space.add(name, p)
        terms = [Term(c.name, c.aliases) for c in vocabulary]
        result = tag(found, terms, space, policy)
        naming: dict[str, Any] = {}
        if llm is not None and result.minted:
            # The pass's one naming call, outside the transaction (ADR 0058).
            result, naming = _name(result, terms, {u.id: u.text for u in todo}, llm)
        llm_named = set(naming.get("named", {}).values())
        by_name = {c.name: c for c in vocabulary}
        tagged = 0
        with self.store.transaction():
            now = self.clock()
            owner = Viewer(bank, "insights", Scope.OWNER)
            still = self.store.memories.get_units(owner, [u.id for u in todo], lean=True)
            new = [
                Category(
                    new_id("c_"),
                    bank,
                    name,
                    "llm" if name in llm_named else CATEGORIZE,
                    now,
                    # A renamed category keeps the phrase it was minted from as an alias.
                    aliases=result.aliases.get(name, ()) if name in llm_named else (),
                    minted_from=unit_id,
                )
                for name, unit_id in result.minted.items()
                if unit_id in still
            ]
            self.store.vocabulary.put_categories(new, actor=agent)
            known = {*by_name, *(c.name for c in new)}
            for name, aliases in sorted(result.aliases.items()):
                if name in by_name:
                    self.store.vocabulary.add_category_aliases(
                        bank, by_name[name].id, aliases, actor=agent
                    )
            folded = sum(len(a) for n, a in result.aliases.items() if n in by_name)
            for uid, cats in result.tags.items():
                unit = still.get(uid)
                mine = tuple(c for c in cats if c in known)
                if unit is None or unit.status not in TAGGED_STATUSES:
                    continue
                if not mine:
                    # Read once: a memory the rule finds no phrase in is not read again.
                    self.store.memories.update_unit(
                        bank,
                        uid,
                        UnitChanges(metadata={NO_PHRASE: True}),
                        actor=agent,
                        reason="categorize: no phrase to tag it by",
                    )
                    continue
                self.store.memories.update_unit(
                    bank,
                    uid,
                    UnitChanges(add_categories=mine),
                    actor=agent,
                    reason="categorize: tagged from the bank's vocabulary",
                )
                tagged += 1
            if naming:
                self.store.audit.append(
                    bank,
                    agent,
                    "categorize.name",
                    bank,
                    None,
                    naming,
                    "categorize: minted categories named by the LLM"
                    if "fallback" not in naming
                    else "categorize: the LLM named nothing; the rule's names kept",
                )
            if result.misses:
                self.store.audit.append(
                    bank,
                    agent,
                    "categorize.miss",
                    bank,
                    None,
                    {"misses": [_miss(m) for m in result.misses], "cap": policy.cap},
                    f"vocabulary at its cap ({policy.cap}): phrases given the nearest category",
                )
        return CategorizeReport(
            tagged=tagged,
            untagged=sum(1 for _, ps in found if not ps),
            minted=tuple(c.name for c in new),
            aliases=folded,
            misses=result.misses,
            vocabulary=len(vocabulary) + len(new),
            remaining=len(todo_all) - len(todo),
            named=tuple(sorted(naming.get("named", {}).items())),
            refused=tuple((str(p), str(why)) for p, why in naming.get("refused", ())),
            naming_fallback=naming.get("fallback"),
        )


def _name(
    result: Tagging, terms: Sequence[Term], texts: dict[str, str], llm: LLM
) -> tuple[Tagging, dict[str, Any]]:
    """``result`` with the LLM's accepted names taken, and the record of what it named."""
    asked = list(result.minted.items())[:NAME_BATCH]
    try:
        names = LLMNamer(llm).name([(phrase, texts[uid]) for phrase, uid in asked])
    except LLMError as exc:
        return result, {"fallback": f"the LLM named no category: {exc.describe()}"}
    renamed = rename(result, terms, names.proposals, texts)
    record: dict[str, Any] = {
        "provider": names.provider,
        "model": names.model,
        "named": dict(renamed.named),
        "refused": [list(r) for r in renamed.refused],
    }
    unnamed = [p for p, _ in asked if p not in names.proposals]
    if unnamed:
        record["unanswered"] = unnamed
    if len(result.minted) > NAME_BATCH:
        record["unasked"] = len(result.minted) - NAME_BATCH
    return renamed.tagging, record


def _miss(m: Miss) -> dict[str, Any]:
    return {"unit": m.unit_id, "phrase": m.phrase, "assigned": m.assigned, "score": m.score}
