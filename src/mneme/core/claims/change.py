"""Words that say something changed: "moved to", "no longer", "instead", "raised X to 15".

``CHANGE`` sets a claim's ``change`` flag; the judge reads the narrower :data:`STRONG_CHANGE`
and :data:`REPLACING` before it lets a new value replace one a many-valued slot holds.
"""

from __future__ import annotations

import re

#: An amount moved to a new figure ("raised the Pro plan to 15 dollars", "cut the fee to $5"):
#: the old figure no longer holds.
_AMOUNT_CHANGE = (
    r"\b(?:raised|lowered|increased|decreased|reduced|cut|dropped|bumped|hiked|slashed)\s+"
    r"(?:[^\s.;:]+\s+){1,8}?to\s+[^\s\d]?\d"
)
CHANGE = re.compile(
    r"\b(?:moved|moving|relocated|relocating|now|no\s+longer|switched|switching|changed|"
    r"started|starting|stopped|joined|these\s+days|nowadays|anymore|any\s+more|instead|migrated|"
    r"renamed|got\s+a\s+(?:new\s+)?job|became|quit|correction|corrected)\b|" + _AMOUNT_CHANGE
)
#: Change words a multi-valued attribute needs to let a new value replace an old one: "I play
#: golf" then "I started tennis" adds a hobby, "I drink tea instead" replaces the coffee.
STRONG_CHANGE = re.compile(
    r"\b(?:no\s+longer|anymore|any\s+more|instead|switched|switching|changed\s+to|replaced|stopped|"
    r"these\s+days|nowadays|now|correction|corrected)\b|" + _AMOUNT_CHANGE
)
#: What a multi-valued attribute needs to let a new value *replace* one it holds ("I drink tea
#: instead"): a word of replacement. A word of time ("now", "these days") does not say that:
#: "I'm learning German now" adds to "I'm learning the violin" (on LoCoMo, 12 of the 21
#: supersessions were such a "now"; ADR 0039).
REPLACING = re.compile(
    r"\b(?:no\s+longer|anymore|any\s+more|instead|switched|switching|changed\s+to|replaced|"
    r"stopped|correction|corrected)\b"
)
