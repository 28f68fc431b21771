"""Word lists the offline language rules read with.

Plain data, no logic. First the lists every rule shares: stopwords, and the words that never
name anything (read by :mod:`mneme.core.language` and :mod:`mneme.core.speakers`). Then the lists
of the claim rules (:mod:`mneme.core.claims`): spellings and number words that normalize a text,
the closed word classes (articles, pronouns, copulas, auxiliaries, adverbs) that find a subject
and its verb, the verbs the rules know, and the lexicons that say what an attribute means: which
adjectives hold several values at once ("allergic to"), which nouns number things ("incident
6068", "ticket 42"). Every set is lowercase; the claim rules' sets hold normalized words
(American spelling, digits for numbers).
"""

from __future__ import annotations

import re


def _wordset(words: str) -> frozenset[str]:
    return frozenset(words.split())


def _wordlist(words: str) -> list[str]:
    return words.split()


def _mapping(pairs: str) -> dict[str, str]:
    return dict(pair.split("=") for pair in pairs.split())


#: Function words and small talk, dropped wherever only content words count (query terms, the
#: words of a value).
STOPWORDS: frozenset[str] = _wordset(
    """
    a about above after again against all also am an and any are aren as at be because been
    before being below between both but by can cannot could couldn did didn do does doesn doing
    don down during each either else ever every few for from further had hadn has hasn have
    haven having he her here hers herself him himself his how however i if in into is isn it
    its itself just kind kinds like likely ll me might mine more most much must mustn my myself
    neither no nor not now of off on once one only or other others ought our ours ourselves out
    over own quite rather re really same shall shan she should shouldn so some such than that
    the their theirs them themselves then there these they this those through to too toward
    towards under until up upon us ve very was wasn we were weren what whatever when whenever
    where whereas wherever whether which while who whoever whom whose why will with within
    without won't would wouldn yet you your yours yourself yourselves get got gets getting
    let lets may many maybe anything something nothing everything someone anyone thing things
    sort lot lots way ways yes yeah oh ok okay please thanks thank im ive id youre theyre
    dont doesnt didnt isnt wasnt arent werent cant couldnt wouldnt shouldnt wont hes shes its
    """
)

#: Words that begin sentences or sit in capitalized runs but never name anything on their own
#: (an entity, or the speaker of a transcript line: "Note: ..." is no speaker).
NON_NAMES: frozenset[str] = STOPWORDS | _wordset(
    """
    everyone everybody nobody somebody anybody
    hi hello hey wow haha hahaha lol omg yay aw aww ah oops hmm um uh well sure cool nice great
    good awesome amazing congrats congratulations sorry thanks welcome yep nope alright anyway
    actually honestly basically definitely absolutely totally seriously sounds glad happy super
    today yesterday tomorrow tonight morning evening afternoon night now later soon earlier
    recently lately sometimes often usually always never once last next first second third
    finally meanwhile besides still though although since unless whenever perhaps plus
    january february march april may june july august september october november december
    monday tuesday wednesday thursday friday saturday sunday weekend
    mom dad mum mother father sister brother grandma grandpa
    note todo update warning summary question answer edit subject title re fwd tip reminder
    important example status step remember check call send buy make take try keep add go
    did does do done speaking talking dear love best regards cheers bye goodbye
    god gosh jeez ugh yikes whoa man dude guys everyone everybody nobody somebody
    """
)

SPELLING = _mapping(
    """
    favourite=favorite favourites=favorites colour=color colours=colors coloured=colored
    flavour=flavor honour=honor neighbour=neighbor neighbours=neighbors behaviour=behavior
    favour=favor labour=labor humour=humor harbour=harbor centre=center centres=centers
    theatre=theater metre=meter metres=meters litre=liter litres=liters fibre=fiber grey=gray
    programme=program catalogue=catalog travelled=traveled travelling=traveling
    cancelled=canceled jewellery=jewelry tyre=tire tyres=tires mum=mom
    """
)
# A few synonyms that name the same slot in our domains (RAM is memory, auth is authentication).
SPELLING.update(_mapping("memory=ram auth=authentication implemented=written employed=works"))
BRITISH_ISE = re.compile(
    r"^(organ|real|recogn|special|priorit|apolog|summar|optim|custom|standard|"
    r"author|util|minim|maxim|visual|memor|categor|emphas|final|initial)is(e|es|ed|"
    r"ing|ation|ations)$"
)

NUMBER_WORDS: dict[str, str] = {
    w: str(i)
    for i, w in enumerate(
        _wordlist(
            "zero one two three four five six seven eight nine ten eleven twelve thirteen "
            "fourteen fifteen sixteen seventeen eighteen nineteen twenty"
        )
    )
}
NUMBER_WORDS.update(_mapping("thirty=30 forty=40 fifty=50 hundred=100"))
ORDINALS = _mapping(
    "first=1st second=2nd third=3rd fourth=4th fifth=5th sixth=6th seventh=7th eighth=8th "
    "ninth=9th tenth=10th"
)
# "every second Tuesday" and "the second floor" are numbers; "a second opinion" is rare enough.

MONTHS = _wordset(
    "january february march april may june july august september october november december "
    "jan feb mar apr jun jul aug sep sept oct nov dec"
)
WEEKDAYS = _wordset(
    "monday tuesday wednesday thursday friday saturday sunday mondays tuesdays wednesdays "
    "thursdays fridays saturdays sundays weekday weekdays weekend weekends"
)
RELATIVE_TIME = _wordset(
    "today yesterday tomorrow tonight morning afternoon evening night week month year spring "
    "summer autumn fall winter"
)

ARTICLES = _wordset("a an the this that these those")
#: Verbs of asking and changing: what a bare correction says besides its value ("try 3 pm",
#: "make it 4"), and no thing a phrase brings up ("take a look at Tiburon").
ASKING_WORDS = _wordset(
    "change changed make try look find book check search get switch sorry mind let"
)
#: A contracted ending ("you're", "I'd", "it's", "don't"): what is left is the word it contracts.
CONTRACTION = re.compile(r"['’](?:re|ve|ll|d|m|s|t)$")
POSSESSIVE_DETS = _wordset("his her their its your")
PRONOUNS = {"i": "user", "me": "user", "we": "we", "you": "you", "he": "he", "she": "she"}
PRONOUNS.update({"they": "they", "it": "it"})
RELATIONS = _wordset(
    """
    sister brother mother father mom dad wife husband partner son daughter grandma grandpa
    grandmother grandfather uncle aunt cousin friend boss manager colleague neighbor landlord
    doctor kid kids child children parents family niece nephew boyfriend girlfriend fiance
    fiancee roommate mentor teacher user
    """
)

NOT_NOUNS = _wordset("has have not never cannot no now")
SUBJECT_PREPS = _wordset("of to for in at from on")
ADVERBS = _wordset(
    """
    also still usually always often really mostly sometimes generally only just actually
    definitely truly absolutely totally certainly currently normally typically rarely
    occasionally even already finally very
    """
)
COPULAS = _wordset("is are am was were be")
AUX = _wordset("does do did will would can could should must may might shall")

BASE_VERBS = _wordset(
    """
    eat drink take use run play live work prefer like love enjoy hate dislike adore want plan
    need keep go come leave lead speak study learn read write sleep own drive ride commute cook
    bake brew visit teach manage include hold open close start end expire land depart arrive
    listen cost last weigh turn change rotate host store build sit stay serve support require
    contain mean know think believe smoke walk jog swim climb paint draw sing dance wear watch
    buy sell rent pay owe attend join organize organise move relocate reside migrate switch
    restore fix break follow call meet send receive lose win earn save spend check deploy
    ship release handle process cover sound taste smell feel seem look become remain stand get
    make give find hold show tell ask try help let put set grow raise fly travel hike run
    lift train practice practise volunteer belong report say own operate power back mirror
    replicate scale fail pass block break answer own drop point route forward map expose
    listen stream log alert page cache stop quit index sync store share produce consume manage
    lower increase decrease reduce cut bump hike slash mentor coach tutor hire supervise advise
    oversee promise agree decide approve sponsor maintain
    """
)
#: Verbs that move an amount: "Stackly raised the Pro plan to 15 dollars" sets the plan's price.
AMOUNT_VERBS = _wordset("raise lower increase decrease reduce cut drop bump hike slash")
#: Nouns that name a thing's price rather than the thing ("the price of the Pro plan").
PRICE_NOUNS = _wordset("price cost fee prices costs fees")
IRREGULAR_PAST = _wordset(
    """
    ate drank took ran went came left led spoke wrote slept drove rode taught held began
    built sat stood met bought sold paid lost won spent made gave found told kept grew flew
    knew thought became got saw did had said
    """
)
THIRD_IRREGULAR = {"has": "have", "does": "do", "goes": "go", "is": "be"}


TIME_WORDS = MONTHS | WEEKDAYS | RELATIVE_TIME | _wordset("every at on in of am pm utc")


PREFERENCE_VERBS = {
    "prefer": ("prefers", False),
    "like": ("likes", False),
    "love": ("likes", False),
    "enjoy": ("likes", False),
    "adore": ("likes", False),
    "hate": ("likes", True),
    "dislike": ("likes", True),
    "detest": ("likes", True),
}
PLAN_VERBS = _wordset("plan want intend hope aim need")


#: Words that end the thing whose amount moved: "raised the rent by 50 euros to 950 euros",
#: "cut the fee from 10 to 5 dollars".
AMOUNT_STOPS = _wordset("by from")
OWNERS = _wordset("my our your his her their")
NOT_OWNERS = _wordset("we they you he she it one someone everyone")


#: A claim needs a subject one can hold a value about: "it", "that" or "wow caroline" name
#: nothing that stays put, and comparing two of them only manufactures conflicts.
VAGUE_SUBJECTS = frozenset(
    {
        *("it", "this", "that", "these", "those", "there", "they", "he", "she", "you"),
        *("one", "something", "everything", "nothing", "anything", "someone", "everyone"),
    }
)
INTERJECTIONS = frozenset(
    {
        *("wow", "oh", "ah", "haha", "hah", "lol", "yeah", "yes", "no", "hey", "hi", "hello"),
        *("well", "omg", "aw", "aww", "ooh", "wait", "ok", "okay", "sure", "thanks", "thank"),
        *("congrats", "congratulations"),
    }
)


# ---------------------------------------------------------------------------------------------
# Identifiers: names made of a noun and a number, which are no amounts
# ---------------------------------------------------------------------------------------------

#: Nouns a number names one of: "incident 6068", "ticket 42", "order #7", "room 12". The number
#: after them is an identifier (two incidents, not one incident with two numbers).
ID_NOUNS = _wordset(
    """
    incident incidents ticket tickets order orders issue issues bug bugs case cases invoice
    invoices pr prs request requests task tasks story stories epic epics job jobs build builds
    booking bookings reservation reservations confirmation flight flights room rooms gate gates
    platform platforms seat seats apartment apt unit suite account badge item items sprint
    sprints patient patients claim claims shipment shipments parcel package batch ward bed
    cell locker desk ref reference number id alert alerts cr rfc
    """
)
#: Labels with a number that are not an event's name ("Update 2: ...", "Note 3: ..."): the
#: clause after them is about what it names, not about the label.
NOT_EVENT_LABELS = _wordset(
    """
    update updates edit correction corrections note notes addendum revision version amendment
    ps postscript reminder summary recap answer reply question point
    """
)

# ---------------------------------------------------------------------------------------------
# Copula complements: "X is allergic to Y", "X is mentoring Y"
# ---------------------------------------------------------------------------------------------

#: Prepositions that open an adjective's complement ("allergic to", "afraid of", "good at").
ADJECTIVE_PREPS = _wordset("to of in at with for about on from by over into after")
#: Words after a copula that never head an adjective phrase ("is back in", "is not in").
NOT_ADJECTIVES = _wordset(
    """
    back here there away home out up off over under now still also just only even not no all
    both each some any more less much many most few too so as like very really one none
    nothing something anything everything someone everyone what who where when him her them
    us me you it this that these those his their its our my your then than yet already always
    never usually often sometimes
    """
)
#: Adjectives whose prepositional complement holds several values at once: one is allergic
#: to many things, good at many things, responsible for many things.
MULTI_VALUED_ADJECTIVES = _wordset(
    """
    allergic intolerant sensitive immune afraid scared frightened terrified nervous anxious
    worried interested passionate excited curious enthusiastic keen fond proud ashamed aware
    conscious good great bad excellent terrible skilled skillful talented experienced expert
    fluent proficient competent familiar comfortable responsible accountable involved
    friends related close connected attached addicted devoted dedicated committed subscribed
    known famous popular notorious available compatible eligible qualified certified
    busy grateful thankful happy glad sorry sad angry upset annoyed bored tired sick jealous
    """
)
#: Adjectives whose complement holds one value at a time: one spouse, one due date, one price.
SINGLE_VALUED_ADJECTIVES = _wordset(
    """
    married engaged wed due scheduled slated set planned capped priced limited owned led run
    headed chaired
    """
)

#: Words ending in "-ing" that are no progressive verb after a copula: nouns ("nothing", "the
#: evening") and adjectives ("amazing", "pending"). "X is amazing at chess" is an adjective
#: phrase; "X is mentoring Dana" is the verb "mentor".
ING_NOT_VERBS = _wordset(
    """
    thing something nothing anything everything king ring spring string wing sibling ceiling
    evening morning during pudding wedding darling herring viking awning bring sing swing
    amazing interesting boring exciting charming annoying disappointing surprising confusing
    outstanding ongoing willing loving caring thrilling promising demanding challenging
    rewarding pending missing worrying inspiring fascinating frustrating exhausting relaxing
    stunning striking appealing convincing compelling encouraging refreshing satisfying
    terrifying depressing embarrassing overwhelming amusing entertaining engaging misleading
    upcoming incoming outgoing existing remaining matching corresponding underlying following
    trending thriving booming lasting lacking fitting becoming daring dashing fetching
    easygoing hardworking
    """
)
#: Participles that give a thing its new value after "to": "the branch was renamed to main" is
#: "the branch is main" (now), not a complement "renamed to".
CHANGED_TO = _wordset(
    "renamed changed set updated upgraded downgraded switched converted reset promoted"
)
#: Participles that move a thing in time or place: "the sync was moved to Friday" says when,
#: "the office was moved to Ghent" where.
MOVED_TO = _wordset("moved relocated rescheduled postponed pushed delayed brought")

#: The words that say a date or a time is the end of a span (a trip's return), read by
#: ``statements._ends_span``: a moment said for a thing is when it starts (the day one
#: leaves, picks the car up), so a named end is another slot whatever the cue. Each entry is
#: here for what it measured against SGD's own slot names on the dev split (``python -m
#: bench.sgd.roles --ablate``, ADR 0088): "return" +28 ends read right, "returning" +11,
#: "back" +11 (one start read as an end), "returns" +1. Left out for no dev gain: "dropoff",
#: "ending" (test only), "end", "ends", "finish", "checkout"; start words ("leave", "depart",
#: "pick up") changed nothing.
SPAN_END_WORDS = _wordset("return returns returning back")
