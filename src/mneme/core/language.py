"""Offline language rules: classification, named entities and lexical query analysis.

Everything here is deterministic and rule-based, so the write path works with no model at all.
Splitting text into atoms lives in :mod:`mneme.core.atomize`, which builds on this module;
transcript speaker prefixes ("Dana: ...") in :mod:`mneme.core.speakers`, and the shared word
lists in :mod:`mneme.core.wordlists`.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from mneme.core.model import Network, UnitType
from mneme.core.speakers import split_speaker, strip_speaker
from mneme.core.wordlists import CONTRACTION, NON_NAMES, STOPWORDS

# ---------------------------------------------------------------------------------------------
# Lexicons
# ---------------------------------------------------------------------------------------------


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


_TITLES = frozenset({"dr", "mr", "mrs", "ms", "miss", "prof", "sir", "dame", "lord", "lady"})
_NAME_PARTICLES = frozenset({"of", "the", "de", "da", "del", "van", "von", "der", "la", "le", "&"})

_GIVEN_NAMES = _wordset(
    """
    alice bob carol caroline melanie jon john gina maria joanna nate tim audrey andrew evan sam
    calvin dave david deborah jolene james jane mary michael sarah emma olivia liam noah sophia
    ava mia lucas ethan anna peter paul mark luke matthew daniel thomas robert william richard
    joseph charles george jack harry oliver emily grace chloe lily ella zoe ben adam alex kate
    laura linda susan karen lisa nancy betty helen sandra ashley amy rachel jessica jennifer
    chris kevin brian jason eric steve scott ryan josh justin tom mike nick tony frank carlos
    juan jose luis ana sofia pedro diego ahmed ali fatima wei li chen yuki hiro priya raj
    """
)

_PLACES = _wordset(
    """
    paris london berlin madrid rome lisbon porto barcelona amsterdam brussels vienna prague
    dublin athens stockholm oslo copenhagen helsinki warsaw budapest zurich geneva milan
    munich moscow istanbul cairo dubai tokyo kyoto osaka seoul beijing shanghai singapore
    bangkok delhi mumbai sydney melbourne toronto vancouver montreal chicago boston seattle
    austin denver miami atlanta dallas houston phoenix portland brooklyn manhattan california
    texas florida hawaii alaska oregon colorado nevada france germany spain italy portugal
    england scotland ireland wales britain netherlands belgium austria switzerland sweden
    norway denmark finland poland greece russia ukraine turkey egypt israel india china japan
    korea vietnam thailand indonesia australia zealand canada mexico brazil argentina chile
    peru colombia cuba nigeria kenya ethiopia morocco africa europe asia america usa uk us
    """
)

_PLACE_SUFFIXES = _wordset(
    """
    city street st avenue ave road rd boulevard park lake river mountain mountains beach island
    islands county bay valley hill hills square bridge falls canyon coast harbor harbour
    """
)

_ORG_SUFFIXES = _wordset(
    """
    inc ltd llc corp corporation co company labs lab university college school institute team
    group bank foundation association agency club society organization organisation
    department ministry council committee hospital church academy studio studios museum
    """
)

_KNOWN_ORGS = _wordset(
    """
    google apple microsoft amazon meta facebook openai anthropic ibm netflix spotify tesla nasa
    intel nvidia samsung twitter youtube instagram tiktok reddit github linkedin uber airbnb
    """
)

# Words that, right after a capitalized word, mark it as a person.
_PERSON_VERBS = _wordset(
    """
    says said lives lived moved works worked told asks asked thinks thought feels felt wants
    wanted loves loved likes liked married graduated replied wrote mentioned agreed believes
    believed met smiled laughed shared decided started joined teaches taught studies studied
    paints painted plays played runs ran goes went writes reads cooks cooked
    """
)
# Words that, right after a sentence-initial capitalized word, make it a name ("Porto is").
_NAME_FOLLOWERS = _PERSON_VERBS | _wordset(
    """
    is was has had will can could would should does did and has isn wasn won
    """
)
#: What opens a verb's object right after it: determiners and possessives (closed classes).
#: Not prepositions: "Movie marathons with friends" has a plural noun before one.
_OBJECT_OPENERS = _wordset("the a an my our your his her their its this that these those")
_RELATION_WORDS = _wordset(
    """
    friend friends sister brother mom mother dad father wife husband partner son daughter boss
    colleague cousin aunt uncle grandma grandmother grandpa grandfather neighbor neighbour
    coworker boyfriend girlfriend niece nephew kid kids roommate mentor teacher doctor named
    met meet told asked called thanked hugged dr mr mrs ms
    """
)
_PLACE_PREPS = _wordset(
    "in at to from near into around across visited visiting towards toward through outside"
)

# ---------------------------------------------------------------------------------------------
# Lexical analysis
# ---------------------------------------------------------------------------------------------

_ALNUM = re.compile(r"[^\W_]+")


def tokens(text: str) -> list[str]:
    """Lowercase alphanumeric tokens, split on everything else (apostrophes included)."""
    return _ALNUM.findall(text.casefold())


def query_terms(text: str) -> list[str]:
    """Terms of a query for BM25: no stopwords, no 1-letter tokens, deduped in order.

    Digits are kept at any length ("4"). Splitting on apostrophes matches the FTS tokenizers
    ("Carol's" -> "carol"; the stray "s" is a 1-letter token). Stemming is the FTS engine's job.
    When every token is filtered out, the unfiltered tokens are returned instead, so non-empty
    alphanumeric input never yields an empty query.
    """
    toks = tokens(text)
    kept = [t for t in toks if t not in STOPWORDS and (len(t) > 1 or t.isdigit())]
    return list(dict.fromkeys(kept or toks))


_POSSESSIVE = re.compile(r"['’]s\b|(?<=s)['’](?=\s|$)", re.IGNORECASE)
_KEY_DROP = re.compile(r"[.'’]")
_KEY_SPACE = re.compile(r"[^\w]+|_+")


def entity_key(name: str) -> str:
    """Lookup key of an entity name: casefolded, possessive and punctuation stripped."""
    text = unicodedata.normalize("NFKC", name)
    text = _POSSESSIVE.sub("", text)
    text = _KEY_DROP.sub("", text)
    return " ".join(_KEY_SPACE.sub(" ", text).casefold().split())


# ---------------------------------------------------------------------------------------------
# Classification
# ---------------------------------------------------------------------------------------------


def _words(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


# Inline (?-i:...) keeps a name capitalized inside the case-insensitive patterns.
_SUBJ = r"(?:i|we|you|he|she|they|(?-i:[A-Z][a-z]+))"
_ADV = r"(?:(?:really|also|just|still|always|truly|absolutely|totally|kind\s+of|do|did|does)\s+)*"

_RULE = _words(
    r"^(?:always|never)\s+\w+|\b(?:should|must|shall)\s+(?:always|never)\b|"
    r"^(?:we|you|one|everyone|agents?)\s+(?:always|never)\s+(?!\w+ed\b)\w+|"
    r"\bas\s+a\s+(?:rule|policy)\b|^(?:rule|policy)\s*:"
)
_ACTION = _words(
    r"\bremember\s+to\b|\b(?:i|we|you)\s+(?:really\s+)?(?:need|needs|have)\s+to\b|"
    r"\bneeds?\s+to\s+be\b|\bdon'?t\s+forget\b|\btodo\b|\bto-do\b|^(?:i|we|you)\s+must\b|"
    r"^(?:please\s+)?(?:call|buy|send|email|book|schedule|fix|check|pick\s+up|make\s+sure|"
    r"remind|follow\s+up|review|update|submit|pay|renew|cancel)\b"
)
_GOAL = _words(
    r"\b(?:want|wants|wanted|plan|plans|planning|hope|hopes|hoping|aim|aims|aiming|intend|"
    r"intends|intending|aspire|aspires|decided|would\s+like|would\s+love|'d\s+like|'d\s+love)"
    # "plans to <verb>" is an intention; "the Pro plan to 15 dollars" is an amount.
    r"\s+to\b(?!\s+[$€£]?\d)|"
    r"\bgoing\s+to\s+(?!the\b|a\b|an\b|my\b|our\b|his\b|her\b|their\b|be\s+\w+ing\b)"
    r"\w+|\b(?:my|our|his|her|their)\s+(?:goal|dream|plan|ambition)\b|\bdream\s+of\b|"
    r"\bsaving\s+up\s+for\b"
)
_PREFERENCE = _words(
    rf"\b{_SUBJ}\s+{_ADV}(?:like|likes|liked|love|loves|loved|hate|hates|hated|prefer|"
    r"prefers|preferred|enjoy|enjoys|enjoyed|dislike|dislikes|disliked|adore|adores|adored|"
    r"detest|detests)\b|\bfavou?rite\b|\bcan'?t\s+stand\b|\bcannot\s+stand\b|\bfond\s+of\b|"
    r"\bbig\s+fan\s+of\b|\ba\s+fan\s+of\b|\bwould\s+rather\b|\bnot\s+a\s+fan\b"
)
_SKILL = _words(
    rf"\b{_SUBJ}\s+can\s+(?!not\b|'t\b|be\b|see\b|tell\b|imagine\b)\w+|\bknows?\s+how\s+to\b|"
    r"\b(?:am|is|are|'m|'s|'re)\s+(?:\w+\s+)?(?:good|great|skilled|proficient|fluent|an\s+expert|"
    r"experienced)\s+(?:at|in|with)\b|\bspeaks?\s+(?:fluent\s+)?(?-i:[A-Z][a-z]+)|\bexpert\s+in\b"
)
_ACHIEVEMENT = _words(
    r"\b(?:won|win\s+the|graduated|got\s+promoted|was\s+promoted|promoted|finished|completed|"
    r"achieved|published|earned|awarded|accomplished|passed\s+(?:my|the|his|her)|"
    r"got\s+(?:my|a|the)\s+(?:degree|diploma|certificate|certification|license|job\s+offer)|"
    r"got\s+(?:into|accepted)|ran\s+a\s+(?:marathon|half)|set\s+a\s+record)\b"
)
_BELIEF = _words(
    r"\b(?:i|we)\s+(?:really\s+)?(?:believe|think|suspect|reckon|guess|suppose|assume)\b|"
    r"\bin\s+my\s+(?:opinion|view)\b|\bi\s+(?:feel|felt)\s+(?:that|like)\b|\bimo\b|"
    r"\bi'?m\s+(?:sure|convinced|certain)\s+that\b"
)
_JUDGEMENT = _words(
    r"\b(?:best|worst|awesome|amazing|terrible|awful|horrible|wonderful|fantastic|overrated|"
    r"underrated|boring|beautiful|ugly|excellent|brilliant|stupid|ridiculous|incredible|"
    r"lovely|gorgeous|disgusting|pointless|useless|inspiring|powerful|meaningful|delicious|"
    r"adorable|cute|fun|dumb)\b|"
    r"\b(?:is|are|was|were|'s|'re)\s+(?:so\s+|really\s+|very\s+|too\s+|pretty\s+|quite\s+)?"
    r"(?:good|bad|great|nice|cool|better|worse|important|interesting|hard|easy|sad|scary)\b|"
    r"\bshould(?:n'?t)?\b|\bseems?\b|\bprobably\b|\bin\s+my\s+opinion\b|\bi\s+feel\s+(?:that|like)\b"
)
_PAST_IRREGULAR = (
    "went|saw|ran|made|took|got|had|did|was|were|met|bought|ate|came|found|gave|felt|left|"
    "lost|read|wrote|began|brought|built|caught|chose|drew|drove|fell|flew|forgot|grew|heard|"
    "kept|knew|led|paid|put|rode|sang|sat|sent|slept|spent|spoke|stood|swam|taught|told|"
    "thought|threw|understood|won|wore|became|broke|held|hung|hurt|lit|meant|quit|rang|said|"
    "sold|shot|shut|sold|stole|struck|swore|tore|woke|dug|fed|fought|hid|lay|let|sought|"
    "spun|stuck|stung|upset|withdrew"
)
_EXPERIENCE = _words(
    r"\b(?:i|we)\s+(?:(?:just|finally|also|recently|actually|really|once|already|even|"
    r"then|first|last|never)\s+)*"
    rf"(?:(?:have|has|had)\s+(?:\w+\s+)?(?:been|\w+ed|{_PAST_IRREGULAR}|\w+en)\b|"
    rf"\w{{2,}}ed\b|(?:{_PAST_IRREGULAR})\b)|\b(?:i|we)'(?:ve|d)\s+(?:\w+\s+)?(?:been|\w+ed)\b"
)
_NOT_PAST_ED = frozenset({"need", "feed", "seed", "speed", "bleed", "breed", "exceed", "proceed"})


def _is_first_person_past(text: str) -> bool:
    for m in _EXPERIENCE.finditer(text):
        last = m.group(0).split()[-1].lower()
        if last not in _NOT_PAST_ED:
            return True
    return False


def classify(atom: str) -> tuple[Network, UnitType]:
    """Network and type of one atom, by rules (never ``Network.OBSERVATION``).

    Network: ``opinion`` when the atom carries belief or judgement language ("I think",
    "probably", "should", "is the best", "seems"); else ``experience`` for first-person past
    actions ("I went", "we have finished"; a speaker prefix counts as first person); else
    ``world``.

    Type, first matching row wins:

    ============  ========================================================================
    precedence    type: cue
    ============  ========================================================================
    1             rule: a policy with always/never ("always use X", "never deploy on Fridays")
    2             action: a todo ("remember to", "need to", "TODO", imperative "Call ...")
    3             goal: "want to", "plan to", "going to <verb>", "hope to", "my goal"
    4             preference: like/love/hate/prefer/enjoy/favorite/can't stand
    5             skill: "can <verb>", "know how to", "good at", "speaks <Language>"
    6             achievement: won, graduated, promoted, finished, completed, published
    7             belief: "I believe/think ..." without a judgement word in it
    8             opinion: judgement words ("best", "awesome", "is great", "should")
    9             experience: first-person past events
    10            fact: everything else
    ============  ========================================================================
    """
    text = " ".join(strip_speaker(atom).replace("’", "'").split())
    belief = _BELIEF.search(text) is not None
    judgement = _JUDGEMENT.search(text) is not None
    past = _is_first_person_past(text)
    network = (
        Network.OPINION if belief or judgement else Network.EXPERIENCE if past else Network.WORLD
    )
    ordered: tuple[tuple[re.Pattern[str], UnitType], ...] = (
        (_RULE, UnitType.RULE),
        (_ACTION, UnitType.ACTION),
        (_GOAL, UnitType.GOAL),
        (_PREFERENCE, UnitType.PREFERENCE),
        (_SKILL, UnitType.SKILL),
        (_ACHIEVEMENT, UnitType.ACHIEVEMENT),
    )
    for pattern, unit_type in ordered:
        if pattern.search(text):
            return network, unit_type
    if belief:
        return network, UnitType.OPINION if judgement else UnitType.BELIEF
    if judgement:
        return network, UnitType.OPINION
    return network, UnitType.EXPERIENCE if past else UnitType.FACT


# ---------------------------------------------------------------------------------------------
# Entities
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class EntityMention:
    """A named thing in an atom: its name as written, a kind and short aliases."""

    name: str
    kind: str  # person | place | organization | thing
    aliases: tuple[str, ...] = ()


_TOKEN = re.compile(r"[^\W_]+(?:[’'&.\-][^\W_]+)*(?:['’]s?)?|[^\w\s]")
_QUOTED = re.compile(r"[\"“]([^\"“”\n]{1,80})[\"”]")
_ACRONYM = re.compile(r"^[A-Z][A-Z0-9&]{1,7}$")
_SENTENCE_END = frozenset(".!?")


@dataclass
class _Run:
    words: list[str]
    start: int  # token index of the first word
    end: int  # token index after the last word
    sentence_start: bool
    possessive: bool = False
    title: bool = False


def _is_cap(word: str) -> bool:
    return word[:1].isupper() and word not in {"I", "I'm", "I've", "I'd", "I'll"}


def _strip_possessive(word: str) -> tuple[str, bool]:
    for suffix in ("'s", "’s", "'", "’"):
        if word.endswith(suffix) and len(word) > len(suffix):
            return word[: -len(suffix)], True
    return word, False


def _collect_runs(toks: list[str]) -> list[_Run]:
    """Runs of capitalized words, with title dots and inner particles ("Bank of America")."""
    runs: list[_Run] = []
    i, n = 0, len(toks)
    at_start = True
    while i < n:
        tok = toks[i]
        if not _is_cap(tok) or not tok[0].isalnum():
            at_start = tok in _SENTENCE_END or (at_start and not tok[0].isalnum())
            i += 1
            continue
        run = _Run([], i, i, at_start)
        while i < n and _is_cap(toks[i]) and toks[i][0].isalnum():
            word, poss = _strip_possessive(toks[i])
            if word.casefold() in _TITLES and i + 1 < n and toks[i + 1] == ".":
                run.words.append(word + ".")
                run.title = True
                i += 2
                continue
            run.words.append(word)
            i += 1
            if poss:
                run.possessive = True
                break
            if i + 1 < n and toks[i].casefold() in _NAME_PARTICLES and _is_cap(toks[i + 1]):
                run.words.append(toks[i])
                i += 1
        run.end = i
        runs.append(run)
        at_start = False
    return runs


def _trim(run: _Run) -> list[str]:
    """The run's words without the ones that never name at its ends. A leading word of small
    talk ("Wow", "Great", "Super") is cut only from a run that opens a sentence, where a
    capital says nothing; inside a sentence it is the name's own ("at Great Wall Restaurant",
    ADR 0089). A function word ("The") is cut anywhere."""
    words = list(run.words)
    cut = NON_NAMES - _TITLES if run.sentence_start else STOPWORDS
    while words and _plain(words[0]).rstrip(".") in cut:
        words.pop(0)
    while words and (_plain(words[-1]) in NON_NAMES or _particle(words[-1])):
        words.pop()
    return words


def _particle(word: str) -> bool:
    """Whether a word ending a run is a name's particle ("de", "van", "La"), left out; in
    capitals it is an acronym of its own ("LA", "DE")."""
    return word.casefold() in _NAME_PARTICLES and not (len(word) > 1 and word.isupper())


def _plain(word: str) -> str:
    """A word folded, a contraction's ending dropped: "You're" is "you", a function word
    however it is written (capitalized after "Please confirm:", it named nothing)."""
    return CONTRACTION.sub("", word.casefold())


def _kind(words: list[str], run: _Run, toks: list[str]) -> str:
    last = words[-1].casefold().rstrip(".")
    first = words[0].casefold().rstrip(".")
    key = " ".join(w.casefold() for w in words)
    prev = toks[run.start - 1].casefold() if run.start > 0 else ""
    nxt = toks[run.end].casefold() if run.end < len(toks) else ""
    if run.title:
        return "person"
    if last in _ORG_SUFFIXES or first in {"university", "bank"} or key in _KNOWN_ORGS:
        return "organization"
    if last in _PLACE_SUFFIXES or key in _PLACES or (first == "new" and len(words) > 1):
        return "place"
    if first in _GIVEN_NAMES or nxt in _PERSON_VERBS or prev in _RELATION_WORDS:
        return "person"
    after = toks[run.end + 1].casefold() if run.end + 1 < len(toks) else ""
    if nxt in {"is", "was"} and after in {"a", "an", "my", "our", "his", "her", "the"}:
        return "person"
    if prev in _PLACE_PREPS:
        return "place"
    return "thing"


def _accept_sentence_initial(words: list[str], run: _Run, toks: list[str]) -> bool:
    """A lone capitalized word opening a sentence names something only in name-like contexts."""
    if not run.sentence_start or len(words) > 1 or words[0] != run.words[0]:
        return True
    if run.possessive or _ACRONYM.match(words[0]) or words[0].casefold() in _GIVEN_NAMES:
        return True
    if len(words[0]) > 5 and words[0].casefold().endswith("ing"):
        return False  # a gerund opening the sentence ("Gaming has brought me so much")
    nxt = toks[run.end].casefold() if run.end < len(toks) else ""
    if nxt in _NAME_FOLLOWERS or (nxt.endswith("ed") and len(nxt) > 4):
        return True
    # "Mira owns the rota", "Dana leads the rewrite": a verb in -s with its object after it
    # (a determiner or a possessive opens it); "Pizza sounds good" names none.
    after = toks[run.end + 1].casefold() if run.end + 1 < len(toks) else ""
    return (
        len(nxt) > 3
        and toks[run.end].islower()
        and nxt.endswith("s")
        and not nxt.endswith(("ss", "us", "is"))
        and after in _OBJECT_OPENERS
    )


def _acronym_after(run: _Run, toks: list[str]) -> str | None:
    j = run.end
    if j + 2 < len(toks) and toks[j] == "(" and toks[j + 2] == ")" and _ACRONYM.match(toks[j + 1]):
        return toks[j + 1]
    return None


def _mentions(text: str) -> list[tuple[int, EntityMention]]:
    """Every entity mention with the offset where it starts, in order, repeats included."""
    found: list[tuple[int, EntityMention]] = []
    speaker, body = split_speaker(text)
    if speaker:
        found.append((-1, EntityMention(speaker, "person")))
    for m in _QUOTED.finditer(body):
        title = m.group(1).strip().rstrip(".,!?")
        if title[:1].isupper() and len(title.split()) <= 8:
            found.append((m.start(), EntityMention(title, "thing")))
    body = _QUOTED.sub(lambda m: "," + " " * (len(m.group(0)) - 1), body)
    matches = list(_TOKEN.finditer(body))
    toks = [m.group(0) for m in matches]
    for run in _collect_runs(toks):
        words = _trim(run)
        if not words or not _accept_sentence_initial(words, run, toks):
            continue
        name = " ".join(words)
        aliases: list[str] = []
        if run.title and len(words) > 1 and words[0].endswith("."):
            aliases.append(" ".join(words[1:]))
        acronym = _acronym_after(run, toks)
        if acronym:
            aliases.append(acronym)
        kind = _kind(words, run, toks)
        found.append((matches[run.start].start(), EntityMention(name, kind, tuple(aliases))))
    found.sort(key=lambda item: item[0])
    return found


def extract_entities(atom: str) -> list[EntityMention]:
    """Named things in an atom, in order of first appearance, without duplicates.

    Offline heuristics: runs of capitalized words (a lone sentence-initial word only in a
    name-like context such as "Carol is"), titles, quoted titles, a transcript speaker and
    parenthesized acronyms as aliases. Possessives are stripped ("Carol's" -> "Carol").
    """
    seen: set[str] = set()
    out: list[EntityMention] = []
    for _, mention in _mentions(atom):
        key = entity_key(mention.name)
        if key and key not in seen:
            seen.add(key)
            out.append(mention)
    return out


def person_names(text: str) -> list[str]:
    """Person names mentioned in ``text``, in order, repeats included (pronoun antecedents)."""
    return [m.name for _, m in _mentions(text) if m.kind == "person"]


def entity_mentions(text: str) -> list[tuple[int, str]]:
    """Named things as written, with the offset where each starts in ``text`` (repeats kept).

    A transcript speaker prefix is not a mention here: it says who spoke, not what was said.
    """
    _, body = split_speaker(text)
    skip = len(text) - len(body)
    out: list[tuple[int, str]] = []
    for at, mention in _mentions(body):
        if at < 0:
            continue
        name = mention.name
        found = body.find(name, at)
        if found >= 0:
            out.append((skip + found, name))
    return out
