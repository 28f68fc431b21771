"""Atomization: split text into one-claim units that each stand alone, offline and fast.

Steps, in order: transcript speaker prefixes are taken off each line; lines are split into
sentences without breaking abbreviations, decimals, times, e-mails or URLs; a sentence is split
into clauses only where both sides are whole claims ("Carol is a nurse and she lives in Porto",
and at a bare comma when both sides open with their own subject: "Kim leads QA, Raj owns
billing, the deploy window is Tuesday");
a leading third-person pronoun is replaced by the most recent person named earlier in the text,
and a leading It/Its by the thing the clause before it (in the same line) is about;
fragments of fewer than three words are merged into a neighbour; the speaker prefix is put back
on every atom. "A because B" stays whole (a later step links the two with an edge).
"""

from __future__ import annotations

import re

from mneme.core.language import extract_entities, person_names
from mneme.core.speakers import split_speaker
from mneme.core.statements import addressees, subject_end
from mneme.core.wordlists import ARTICLES, OWNERS, STOPWORDS


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_SPACE = re.compile(r"[ \t\r\f\v]+")
_BULLET = re.compile(r"^\s*(?:[-*•·▪‣◦]|\d{1,3}[.)]|\(\d{1,3}\)|[a-z][.)])\s+")
# A sentence may end after . ! ? (plus closing quotes or brackets) followed by whitespace.
_END = re.compile(r"[.!?]+[\"'”’)\]]*(?=\s+\S)")
_NEXT_WORD = re.compile(r"\s*[\"'“‘(\[]?([\w']+)")
_PREV_WORD = re.compile(r"(\S+)$")
_DOTTED = re.compile(r"^(?:[A-Za-z]\.)+[A-Za-z]$")

#: A sentence end typed without its space ("No.I would like to go to San Fran.", "I
#: understand.Find me a round trip flight"): a word, the mark, a capitalized word that is no
#: part of an address ("john.Smith@example.com").
_GLUED = re.compile(r"(?<=[a-z])([.!?])(?=[A-Z][a-z]*\b(?![@.\-/]))")
# Abbreviations after which a period never ends a sentence.
_NEVER_END = _wordset(
    """
    dr mr mrs ms prof st mt jr sr gen col capt lt sgt rev hon vs fig approx ca no nos vol
    dept est apt ave blvd rd
    """
)
# Abbreviations that often end a sentence too: split only before a typical sentence opener.
_MAYBE_END = _wordset("etc inc ltd co corp llc e.g i.e u.s u.k a.m p.m cf al")
_OPENERS = _wordset(
    """
    i we you he she they it this that these those there the a an my our his her their then
    but and so also after later yesterday today tomorrow when if what how why who
    """
)

_SUBJECT_PRONOUNS = frozenset({"i", "you", "he", "she", "we", "they", "it", "i'm", "i've"})
_VERBS = _wordset(
    """
    is are was were am be been has have had do does did will would can could should may might
    must shall 's 're 'm 've 'd 'll go goes went get gets got make makes made take takes took
    like likes liked love loves loved live lives lived work works worked want wants wanted
    need needs think thinks thought know knows knew say says said see sees saw feel feels felt
    play plays run runs ran come comes came give gives gave find finds found tell tells told
    become became leave left keep kept start started try tried use used call called paint
    painted teach teaches taught study studies studied moved met bought ate wrote read
    """
)
_DETERMINERS = frozenset({"the", "a", "an", "my", "our", "your", "his", "her", "their", "its"})
_BE_HAVE = _wordset("is are was were has have had")
_CLAUSE_JOIN = re.compile(r";\s+|,\s+(?:and|but)\s+|\s+(?:and|but)\s+|,\s+")
_WORD = re.compile(r"\S*[^\W_]\S*")
_LEADING_PRONOUN = re.compile(r"^(?P<p>He|She|They|His|Her|Their)(?P<rest>\b(?:['’]\w+)?)")
_POSSESSIVE_PRONOUNS = frozenset({"His", "Her", "Their"})
_MIN_WORDS = 3


def _word_count(text: str) -> int:
    return len(_WORD.findall(text))


def _ends_sentence(line: str, m: re.Match[str]) -> bool:
    """Whether the punctuation matched at ``m`` ends a sentence."""
    nxt = _NEXT_WORD.match(line, m.end())
    next_word = nxt.group(1) if nxt else ""
    if next_word[:1].islower():
        return False
    if m.group(0)[0] != "." or len(m.group(0).rstrip("\"'”’)]")) > 1:
        return True
    prev = _PREV_WORD.search(line, 0, m.start())
    word = prev.group(1).lstrip("\"'“‘([") if prev else ""
    low = word.casefold()
    if low == "no":
        # "No. 5" abbreviates a number; "No. I would like ..." answers.
        return not next_word[:1].isdigit()
    if low in _NEVER_END or (len(word) == 1 and word.isupper()):
        return False
    if low in _MAYBE_END or _DOTTED.match(word):
        return next_word.casefold() in _OPENERS
    return True


def _sentences(line: str) -> list[str]:
    out: list[str] = []
    start = 0
    for m in _END.finditer(line):
        if _ends_sentence(line, m):
            out.append(line[start : m.end()].strip())
            start = m.end()
    out.append(line[start:].strip())
    return [s for s in out if s]


def _has_verb(words: list[str]) -> bool:
    for w in words:
        low = w.casefold().strip(",;:.!?\"'")
        if low in _VERBS or (len(low) > 4 and low.endswith("ed")):
            return True
        if "'" in low and low[low.index("'") :] in _VERBS:
            return True
    return False


def _starts_clause(words: list[str]) -> bool:
    """Whether words open a clause with its own subject and verb ("she lives", "Bob went",
    "the staging host is")."""
    if len(words) < 2:
        return False
    first = words[0].strip(",;:\"'").casefold()
    if first in _SUBJECT_PRONOUNS:
        return True
    if first in _DETERMINERS:
        # A short noun phrase, then a verb of being or having: "the deploy window is ...".
        for w in words[2:5]:
            if w.casefold().strip(",;:.!?") in _BE_HAVE:
                return True
    second = words[1].casefold().strip(",;:.!?")
    is_name = words[0][:1].isupper() and first not in _OPENERS
    if not is_name or not words[1][:1].islower():
        return False
    # A verb after the name: a known one, a past form, or a present one ("Kim leads").
    present = len(second) > 3 and second.endswith("s") and not second.endswith(("ss", "'s"))
    return second in _VERBS or (len(second) > 4 and second.endswith("ed")) or present


def _clauses(sentence: str) -> list[str]:
    """Split coordinated whole claims; keep noun-phrase coordination and questions whole."""
    if sentence.endswith("?") or not _CLAUSE_JOIN.search(sentence):
        return [sentence]
    parts: list[str] = []
    start = 0
    for m in _CLAUSE_JOIN.finditer(sentence):
        left = sentence[start : m.start()]
        right = sentence[m.end() :]
        left_words, right_words = left.split(), right.split()
        if len(left_words) < _MIN_WORDS or len(right_words) < _MIN_WORDS:
            continue
        semicolon = m.group(0).startswith(";")
        comma = m.group(0).strip() == ","
        if comma and not _starts_clause(left_words):
            # A comma joins two claims only when both open with a subject ("Kim leads QA,
            # Raj owns billing"); "When I got home, I cooked" and "Thanks, Caroline" stay whole.
            continue
        if not (comma or _has_verb(left_words)) or not (
            _starts_clause(right_words) or (semicolon and _has_verb(right_words))
        ):
            continue
        left = left.strip()
        parts.append(left[:1].upper() + left[1:].rstrip(" ,;") + ".")
        start = m.end()
    if not parts:
        return [sentence]
    tail = sentence[start:]
    parts.append(tail[:1].upper() + tail[1:])
    return parts


def _antecedent(pronoun: str, before: str) -> str | None:
    # "He" and "she" are never the one spoken to ("Hey Maria, ... He was part of our family").
    spoken_to = addressees(before)
    names = [n for n in person_names(before) if n not in spoken_to]
    if not names:
        return None
    last = names[-1]
    if pronoun in ("They", "Their"):
        # "They" is two people named together ("Alice and Bob"), never one name: "Oliver ...
        # They are so sweet" is about the pets, and "Oliver are so sweet" says nothing.
        pair = f"{names[-2]} and {last}" if len(names) > 1 else None
        return pair if pair is not None and pair in before else None
    return last


_LEADING_IT = re.compile(r"^(?P<p>It|Its)\b(?P<rest>.*)$", re.DOTALL)
_BARE_SUBJECTS = frozenset({"i", "we", "you", "he", "she", "they", "it", "this", "that", "there"})


def _topic(clause: str) -> str | None:
    """The subject of a clause ("The Osprey router" of "The Osprey router failed again."),
    when it names a thing: a name, or a noun phrase a determiner opens ("the energy", "my
    favorite dairy-free treat"); not a pronoun, not a person (He/She resolve those), and not
    whatever words came before the first verb ("No", "Thinking about the", "Woohoo": LoCoMo
    turned "It's great to support each other" into "No's great to support each other")."""
    end = subject_end(clause)
    # An opening phrase set off by a comma ("Last week, I had ...") is not the subject.
    subject = clause[:end].strip(" ,;:").rsplit(",", 1)[-1].strip()
    words = subject.split()
    while len(words) > 1 and words[-1].islower() and words[-1].endswith("ly"):
        words.pop()  # an adverb before the verb ("Your boldness really reminded me")
    subject = " ".join(words)
    if not words or len(words) > 6:
        return None
    # A subject with a person in it ("I", "my wife and I", "there's a chance I'll") names no
    # thing for "it" to be: "Last week, I had a chat ... It was magical!" is not about "I".
    if any(re.split(r"['’]", w.casefold())[0] in _BARE_SUBJECTS for w in words):
        return None
    if person_names(subject) and len(words) <= 3:
        return None
    if _determined(words) or _named(subject, clause):
        return subject
    return None


_NOUN_PHRASE_OPENERS = ARTICLES | OWNERS


def _determined(words: list[str]) -> bool:
    """A noun phrase an article, a demonstrative or a possessive opens, with a content word
    after it ("the energy"; not "The" alone, nor "Those both")."""
    return words[0].casefold() in _NOUN_PHRASE_OPENERS and any(
        w.isalpha() and w.casefold() not in STOPWORDS for w in words[1:]
    )


def _named(subject: str, clause: str) -> bool:
    """Whether the subject is a thing the clause names ("NYC", "The Hobbit", "Chicago")."""
    bare = _ARTICLE.sub("", subject.strip("\"'“”"))
    return any(_ARTICLE.sub("", m.name) == bare for m in extract_entities(clause))


_ARTICLE = re.compile(r"^(?:the|a|an)\s+", re.IGNORECASE)

#: "It's great to ...", "It was so cool seeing ...": "it" stands for the clause that follows
#: (extraposition), not for anything said before. A copula, at most two words with no
#: determiner among them (an adjective and its adverb), then the clause.
_DUMMY_IT = re.compile(
    r"^(?:'s|’s|\s+is|\s+was|\s+will\s+be|'ll\s+be|\s+would\s+be|\s+feels|\s+felt|\s+seems"
    r"|\s+seemed)\s+(?:(?!(?:a|an|the|my|our|your|his|her|their|this|that)\b)[\w-]+\s+){1,2}"
    r"(?:to|that|how|when|if|what|being|seeing|having|knowing|hearing|watching)\b",
    re.IGNORECASE,
)


def _resolve_it(atom: str, line: list[str]) -> str:
    """A clause opening with It/Its carries the topic of the clause before it in the same
    line: "its replacement part number is RX-5531" is about the Osprey router."""
    m = _LEADING_IT.match(atom)
    if not m or not line:
        return atom
    if m.group("p") == "It" and _DUMMY_IT.match(m.group("rest")):
        return atom
    topic = _topic(line[-1])
    if topic is None:
        return atom
    return (topic + ("'s" if m.group("p") == "Its" else "")) + m.group("rest")


def _resolve(atom: str, earlier: list[str]) -> str:
    """Replace a leading He/She/They/His/Her/Their with the most recent person named before."""
    m = _LEADING_PRONOUN.match(atom)
    if not m:
        return atom
    pronoun = m.group("p")
    name = _antecedent(pronoun, " ".join(earlier))
    if name is None:
        return atom
    if pronoun in _POSSESSIVE_PRONOUNS:
        name += "'s"
    return name + m.group("rest") + atom[m.end() :]


def _merge_short(atoms: list[str]) -> list[str]:
    """Merge fragments under three words into the next atom (or the previous one at the end)."""
    out: list[str] = []
    pending = ""
    for atom in atoms:
        text = f"{pending} {atom}" if pending else atom
        if _word_count(text) < _MIN_WORDS:
            pending = text
            continue
        out.append(text)
        pending = ""
    if pending:
        if out:
            out[-1] = f"{out[-1]} {pending}"
        else:
            out.append(pending)
    return out


def _finish(atom: str) -> str:
    atom = _SPACE.sub(" ", atom).strip()
    if atom and atom[-1].isalnum():
        atom += "."
    return atom


def _lines(text: str) -> list[tuple[str | None, str]]:
    """Lines with their speaker: a line without a ``Name:`` prefix keeps the last speaker."""
    out: list[tuple[str | None, str]] = []
    speaker: str | None = None
    for raw in text.splitlines():
        line = _SPACE.sub(" ", raw).strip()
        if not line:
            continue
        named, line = split_speaker(line)
        if named:
            speaker = named
        line = _GLUED.sub(r"\1 ", _BULLET.sub("", line)).strip()
        if line:
            out.append((speaker, line))
    return out


def split_atoms(text: str) -> list[str]:
    """Split text into atoms: one claim each, standing alone, ending with punctuation.

    Deterministic and offline. A transcript line ``Name: ...`` gives every atom of that line
    the prefix. The atoms' words all come from the input, except a resolved leading pronoun
    (replaced by a name written earlier in the text) and conjunctions dropped between clauses.
    """
    atoms: list[str] = []
    earlier: list[str] = []  # resolved clauses without speaker prefixes: the antecedent pool
    for speaker, line in _lines(text):
        pieces: list[str] = []
        for sentence in _sentences(line):
            for clause in _clauses(sentence):
                resolved = _resolve_it(_resolve(clause, earlier), pieces)
                pieces.append(resolved)
                earlier.append(resolved)
        prefix = f"{speaker}: " if speaker else ""
        atoms.extend(prefix + _finish(a) for a in _merge_short(pieces))
    return [a for a in atoms if a.strip()]
