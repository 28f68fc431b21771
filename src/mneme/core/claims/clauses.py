"""Clauses: a subject and its predicate read from one clause's words."""

from __future__ import annotations

from mneme.core.claims.predicates import Draft, copula_draft, strip_modifiers, verb_draft
from mneme.core.claims.subjects import find_subject
from mneme.core.wordlists import ARTICLES, AUX, COPULAS


def split_fronted(words: list[str]) -> tuple[list[str], list[str]]:
    """Move a fronted situational phrase ("In the morning I ...") behind the clause."""
    if not words or words[0] not in {"in", "on", "at", "during", "every", "for", "these"}:
        return words, []
    for p in range(1, min(len(words), 6)):
        opener = p >= 2 and words[p] in ARTICLES | {"my", "our", "his", "her", "their"}
        if words[p] in {"i", "we", "he", "she", "they", "you"} or opener:
            phrase = words[:p]
            if phrase[:2] == ["these", "days"]:
                return words[p:], []
            return words[p:], phrase
    return words, []


def read_clause(
    words: list[str], speaker: str | None, capitalized: bool
) -> tuple[str, Draft] | None:
    """The subject and the draft claim of one clause's words; None without a subject or verb."""
    subject = find_subject(words, speaker, capitalized)
    if subject is None:
        return None
    vp = strip_modifiers(words[subject.end :])
    if not vp.words:
        return None
    head, rest = vp.words[0], vp.words[1:]
    if head in COPULAS:
        draft = copula_draft(rest, subject)
    elif head in AUX:
        inner = strip_modifiers(rest)
        if not inner.words:
            return None
        draft = verb_draft(inner.words[0], inner.words[1:], subject, inner.negated)
    else:
        draft = verb_draft(head, rest, subject, False)
    if draft is None:
        return None
    draft.negated = draft.negated != vp.negated
    return draft.subject or subject.name, draft
