"""Finding secrets and personal data in a text, with maintained libraries (ADR 0034).

The boundary between mneme and the detector libraries; it answers in ``core.sensitive``'s
vocabulary (``Finding``: kind, span, a label that does not reveal the value).

- Secrets: Yelp's ``detect-secrets`` plugins, called on each line through ``analyze_string``
  only: never ``analyze_line`` or ``verify``, which may call the provider over the network.
  Its own heuristic filters (templated, sequential, UUID-shaped, indirect references) drop
  what is not a secret. The keyword plugin runs in its config-file form (``password: x``,
  ``api_key = x``), the form a person types in chat. Its base64 entropy test also runs on
  unquoted words, for keys of no format it knows (web addresses left alone).
- Phone numbers: ``phonenumbers`` (Google's libphonenumber), ``PhoneNumberMatcher`` at
  ``Leniency.VALID`` for the configured default region (numbers with a ``+`` match in any).
- Email addresses: a candidate shape, then ``email-validator``'s syntax check (no DNS).
- Card numbers: digit runs of 13 to 19 digits that pass the Luhn check and start with an
  issuer's number (ISO/IEC 7812): no library that finds them in text is small enough.
- Passwords said in words ("my password is hunter2", "the API key for staging is: ..."): one
  pattern, the only one of ours (detect-secrets knows assignments, not sentences), measured on
  public dialogue.
- A key a plugin found is redacted to the ends of its token: the plugins' patterns give a
  key's shape, not where it ends (``_whole_token``).

The libraries are imported on first use, so opening a store or starting the CLI does not pay
their import time (detect-secrets pulls in ``requests``).
"""

from __future__ import annotations

import re
import threading
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from mneme.core.sensitive import Finding, Kind

#: detect-secrets plugin class name -> (kind, label). Left out: ``IPPublicDetector`` (an IP
#: address is no credential). The base64 high-entropy plugin runs apart (``_random``); its hex
#: sibling is left out: commit hashes and checksums are hex, and are no secrets.
_PLUGINS: dict[str, tuple[str, Kind, str]] = {
    "AWSKeyDetector": ("aws", Kind.API_KEY, "AWS access key"),
    "ArtifactoryDetector": ("artifactory", Kind.API_KEY, "Artifactory credential"),
    "AzureStorageKeyDetector": ("azure_storage_key", Kind.API_KEY, "Azure storage key"),
    "CloudantDetector": ("cloudant", Kind.API_KEY, "Cloudant credential"),
    "IbmCloudIamDetector": ("ibm_cloud_iam", Kind.API_KEY, "IBM Cloud IAM key"),
    "IbmCosHmacDetector": ("ibm_cos_hmac", Kind.API_KEY, "IBM COS HMAC credential"),
    "MailchimpDetector": ("mailchimp", Kind.API_KEY, "Mailchimp key"),
    "OpenAIDetector": ("openai", Kind.API_KEY, "OpenAI key"),
    "SendGridDetector": ("sendgrid", Kind.API_KEY, "SendGrid key"),
    "SoftlayerDetector": ("softlayer", Kind.API_KEY, "SoftLayer credential"),
    "StripeDetector": ("stripe", Kind.API_KEY, "Stripe key"),
    "TwilioKeyDetector": ("twilio", Kind.API_KEY, "Twilio key"),
    "DiscordBotTokenDetector": ("discord", Kind.TOKEN, "Discord bot token"),
    "GitHubTokenDetector": ("github_token", Kind.TOKEN, "GitHub token"),
    "GitLabTokenDetector": ("gitlab_token", Kind.TOKEN, "GitLab token"),
    "JwtTokenDetector": ("jwt", Kind.TOKEN, "JSON web token"),
    "NpmDetector": ("npm", Kind.TOKEN, "npm token"),
    "PypiTokenDetector": ("pypi_token", Kind.TOKEN, "PyPI token"),
    "SlackDetector": ("slack", Kind.TOKEN, "Slack token"),
    "SquareOAuthDetector": ("square_oauth", Kind.TOKEN, "Square OAuth secret"),
    "TelegramBotTokenDetector": ("telegram_token", Kind.TOKEN, "Telegram bot token"),
    "PrivateKeyDetector": ("private_key", Kind.PRIVATE_KEY, "private key"),
    "BasicAuthDetector": ("basic_auth", Kind.PASSWORD, "password in a URL"),
    "KeywordDetector": ("keyword", Kind.PASSWORD, "secret after a keyword"),  # or a key
}

#: A PEM or PuTTY block, from the marker detect-secrets finds to its end marker (or the end
#: of the text): the whole key is redacted, not only the line that names it.
_KEY_BLOCK_END = re.compile(
    r"-----END [A-Z0-9 ]*-----|---- END SSH2 [A-Z ]*----|Private-MAC: *[0-9a-fA-F]*"
)
#: The rest of a key's token, each way. detect-secrets' patterns give a key's shape, not
#: where it ends: "sk-...T3BlbkFJ" takes 20 characters after the marker (an ``sk-proj-`` key
#: has 74 more), ``ghp_`` 36, ``xox[bp]-`` lower case only, ``sk_live_`` 24, ``AKIA`` 16, and
#: a JSON web token's ends lazily, before the signature. What follows (or leads into) the match
#: without a break is more of the same key, and would be stored in the clear. Back: the
#: URL-safe base64 alphabet of prefixed keys (a "/" before a key ends a path, not the key).
#: On: base64 as well, and dots (a JWT's parts), bar a dot that ends the sentence.
_HEAD_CHAR = re.compile(r"[A-Za-z0-9_\-]")
_TAIL_CHAR = re.compile(r"[A-Za-z0-9_\-+/=.]")
_TOKEN_TAIL = re.compile(r"[A-Za-z0-9_\-+/=.]*")

#: What a secret said in words is called: passwords, keys named as such (an "API key"; a bare
#: "key" is a door's), tokens ("the token is: ..."; one that is a number, "the max token is
#: 8192", is dropped in ``_said_passwords``). "secret" on its own, but not "the secret to ..."
#: (of success, not of an account).
_SAID_NOUN = (
    r"(?<![A-Za-z0-9])"
    r"(?:(?P<key>(?:api|access|secret|auth|bearer|refresh)[ _-]?(?:key|token)|token)"
    r"|password|passcode|passphrase|passwd|pin(?: code| number)?|secret(?!\s+to\b))"
)
#: What it is for: "for the router", "of my home NAS", "on Bob's laptop" (up to three words,
#: none of them the verb that follows).
_SAID_FOR = (
    r"(?:\s+(?:for|to|of|on|at)\s+(?:(?:the|my|our|your|his|her|their|a|an)\s+)?"
    r"(?!(?:is|was|has|are|to)\b)[\w.'’-]{1,30}"
    r"(?:\s+(?!(?:is|was|has|are|to)\b)[\w.'’-]{1,30}){0,2})?"
)
#: How the value is given: a change ("is now x7k2", "changed the PIN to 4831", "was reset to
#: 'q9!z'"), a verb, with or without a mark after it ("is x", "is: x", "was - x"; a probe found
#: "is: x" stored in the clear), or a mark alone ("PIN: 4831", "password = x", "pin - 4831").
_SAID_AS = (
    r"\s*(?:(?:(?:is|was|has\s+been|'s)\s+)?(?:now\s+|still\s+)?"
    r"(?:(?:changed|set|updated|reset|switched|rotated)\s+)?to\b"
    r"|(?:is|was|has\s+been|'s)(?:\s+(?:now|still))?(?:\s*[:=-]|\b)|[:=-])\s*"
)
#: Where a bare value ends: a space, a comma or a bracket, or a dot that ends the sentence.
#: Not "!" or "?": a password often ends in one, and taking a sentence's "!" with it costs
#: less than storing the password's last character.
_SAID_END = r"(?=[\s,;)\]]|[.](?:\s|$)|$)"
#: A value that is a quantity, not a secret: a price, a percentage, a decimal or version
#: number, a time ("the secret of it is: 100%", "the token is $2.75").
_SAID_QUANTITY = r"(?:[$€£¥]\d[\d,]*(?:\.\d+)?|v?\d+(?:[.,:]\d+)+(?:%|am|pm)?|\d+%)"
#: The value: quoted, or bare and no quantity. A bare one must not be a plain word (that is
#: how people talk about passwords: "my password is wrong", "the password is on the fridge"):
#: it holds a digit or a symbol.
_SAID_VALUE = (
    r"(?:(?P<q>[\"'`“‘])(?P<quoted>[^\"'`”’\s]{3,64})[\"'`”’]"
    rf"|(?!{_SAID_QUANTITY}{_SAID_END})"
    r"(?P<bare>(?=\S*[\d!#$%&*+/=?@^_~])[^\s\"'`,;]{4,64}?))"
)
#: "my password is hunter2", "the wifi passcode was 'x7!k'", "PIN: 4831", "the admin password
#: for the router is: Zq8!mW3#", "the API key is: ..." and a change of one ("the password is now
#: x7k2", "changed the PIN to 4831").
_SAID_PASSWORD = re.compile(
    _SAID_NOUN + _SAID_FOR + _SAID_AS + _SAID_VALUE + _SAID_END, re.IGNORECASE
)

#: A run of 20 or more base64 (and URL-safe base64) characters.
_B64_RUN = re.compile(r"[A-Za-z0-9+/\-_=]{20,}")

#: Local part (RFC 5322 dot-atom characters, or any letter: RFC 6531) @ a domain with a dot;
#: email-validator decides.
_EMAIL_CANDIDATE = re.compile(
    r"(?<![\w.+%-])[\w!#$%&'*+/=?^`{|}~-]+(?:\.[\w!#$%&'*+/=?^`{|}~-]+)*"
    r"@[^\W_](?:[\w-]{0,61}[^\W_])?(?:\.[^\W_](?:[\w-]{0,61}[^\W_])?)+"
)

#: 13 to 19 digits, in groups split by single spaces or dashes, not inside a longer number.
_CARD_CANDIDATE = re.compile(r"(?<![\d.,-])\d(?:[ -]?\d){12,18}(?![\d]|[.,-]\d)")

#: Issuer identification numbers (first digits) and lengths of the major card schemes.
_CARD_ISSUERS = (
    (re.compile(r"4"), (13, 16, 19)),  # Visa
    (re.compile(r"5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720)"), (16,)),  # Mastercard
    (re.compile(r"3[47]"), (15,)),  # American Express
    (re.compile(r"6(?:011|5|4[4-9])"), (16, 19)),  # Discover
    (re.compile(r"35(?:2[89]|[3-8]\d)"), (16, 19)),  # JCB
    (re.compile(r"3(?:0[0-5]|[68])"), (14, 16, 19)),  # Diners Club
    (re.compile(r"62"), (16, 17, 18, 19)),  # UnionPay
)


def luhn_ok(digits: str) -> bool:
    total = 0
    for i, ch in enumerate(reversed(digits)):
        d = ord(ch) - 48
        if i % 2:
            d = d * 2 - 9 if d > 4 else d * 2
        total += d
    return total % 10 == 0


def is_card_number(digits: str) -> bool:
    if not 13 <= len(digits) <= 19 or len(set(digits)) < 2 or not luhn_ok(digits):
        return False
    return any(prefix.match(digits) and len(digits) in lengths for prefix, lengths in _CARD_ISSUERS)


@dataclass(frozen=True, slots=True)
class _Plugin:
    kind: Kind
    label: str
    #: The values the plugin reports in a line (its ``analyze_string``).
    values: Callable[[str], Iterator[str]]
    #: Its patterns, to tell where a value is: ``analyze_string`` reports a capture group,
    #: which may be a prefix ("ghp" of a GitHub token) rather than the secret. None: the
    #: values are the secrets (the keyword plugin).
    patterns: tuple[re.Pattern[str], ...] | None


def _secret_span(m: re.Match[str]) -> tuple[int, int]:
    """Where the secret is in a match of a plugin's pattern: its first group when that group
    follows some context ("aws_secret_key = '...'", "https://user:...@") and is the value
    (it ends the match, or is long), else the whole match ("ghp_..." is all secret)."""
    if m.lastindex and m.start(1) > m.start(0) >= 0:
        start, end = m.span(1)
        if start >= 0 and (m.end(0) - end <= 1 or end - start >= 16):
            return start, end
    return m.span(0)


class Detector:
    """Finds secrets and personal data; one per ``Memory``, safe to share between threads.

    ``phone_region``: the ISO 3166 region whose national numbers are recognized ("US",
    "DE"...); numbers written with ``+`` and a country code are found whatever it is. An
    empty string finds only those.
    """

    def __init__(self, phone_region: str = "US") -> None:
        self.phone_region = phone_region.upper() or None
        self._plugins: list[_Plugin] | None = None
        self._lock = threading.Lock()
        self._phones: Any = None
        self._entropy: Any = None
        self._email: Any = None
        self._filters: tuple[Callable[[str], bool], ...] = ()
        self._indirect: Callable[[str], bool] = lambda _line: False

    def find(self, text: str) -> list[Finding]:
        """Every finding in ``text``, in order of position (overlaps are left to the caller)."""
        plugins = self._load()
        found: list[Finding] = []
        offset = 0
        for line in text.splitlines(keepends=True):
            if not line.isspace():
                found.extend(self._secrets(plugins, text, line, offset))
            offset += len(line)
        found.extend(self._said_passwords(text))
        found.extend(self._cards(text))
        found.extend(self._emails(text))
        found.extend(self._phone_numbers(text))
        # A random-looking string counts only where nothing that knows its format found it.
        found.extend(
            r
            for r in self._random(text)
            if not any(f.start < r.end and r.start < f.end for f in found)
        )
        return sorted(found, key=lambda f: (f.start, f.end))

    # -- secrets (detect-secrets) -----------------------------------------------------------

    def _load(self) -> list[_Plugin]:
        if self._plugins is not None:
            return self._plugins
        with self._lock:
            if self._plugins is None:
                self._plugins = self._build()
        return self._plugins

    def _build(self) -> list[_Plugin]:
        import importlib

        import email_validator
        import phonenumbers
        from detect_secrets.filters import heuristic
        from detect_secrets.plugins import keyword

        plugins: list[_Plugin] = []
        for name, (module, kind, label) in _PLUGINS.items():
            cls = getattr(importlib.import_module(f"detect_secrets.plugins.{module}"), name)
            plugin = cls()
            patterns: tuple[re.Pattern[str], ...] | None = None
            if name == "KeywordDetector":
                config = keyword.CONFIG_DENYLIST_REGEX_TO_GROUP
                # The plugin's own keyword list, searched once: most lines name no keyword,
                # and its assignment patterns cost most of the detector's time.
                gate = re.compile(keyword.DENYLIST_REGEX, re.IGNORECASE)

                def find(
                    line: str, p: Any = plugin, c: Any = config, g: Any = gate
                ) -> Iterator[str]:
                    if not g.search(line):
                        return iter(())
                    return iter(p.analyze_string(line, denylist_regex_to_group=c))

            else:
                find = plugin.analyze_string
                patterns = tuple(plugin.denylist)
            plugins.append(_Plugin(kind, label, find, patterns))
        self._filters = (
            heuristic.is_templated_secret,
            heuristic.is_prefixed_with_dollar_sign,
            heuristic.is_sequential_string,
            heuristic.is_potential_uuid,
            heuristic.is_not_alphanumeric_string,
        )
        self._indirect = heuristic.is_indirect_reference
        from detect_secrets.plugins.high_entropy_strings import Base64HighEntropyString

        self._entropy = Base64HighEntropyString()
        self._phones = phonenumbers
        self._email = email_validator
        return plugins

    def _secrets(
        self, plugins: list[_Plugin], text: str, line: str, offset: int
    ) -> Iterator[Finding]:
        for plugin in plugins:
            values = {v for v in plugin.values(line) if v and v.strip()}
            if not values:
                continue
            if plugin.patterns is None:  # the keyword plugin: the value is the secret
                for value in values:
                    kept = self._keyword_value(line, value)
                    if kept is None:
                        continue
                    for start in _occurrences(line, kept):
                        at = offset + start
                        kind = _keyword_kind(line[max(0, start - 40) : start])
                        yield Finding(kind, at, at + len(kept), plugin.label)
                continue
            for pattern in plugin.patterns:
                for m in pattern.finditer(line):
                    start, end = _secret_span(m)
                    # Only what the plugin itself reported (the JWT plugin drops matches that
                    # do not decode), and not what detect-secrets' filters call no secret.
                    if not any(v in m.group(0) for v in values):
                        continue
                    if plugin.kind == Kind.PRIVATE_KEY:
                        start, end = _key_block(text, offset + start)
                        yield Finding(plugin.kind, start, end, plugin.label)
                        continue
                    if plugin.kind in (Kind.API_KEY, Kind.TOKEN):
                        start, end = _whole_token(line, start, end)
                    if any(f(line[start:end]) for f in self._filters):
                        continue
                    yield Finding(plugin.kind, offset + start, offset + end, plugin.label)

    def _keyword_value(self, line: str, value: str) -> str | None:
        """A keyword plugin's value as a password: unquoted, it ends at the first space (the
        plugin reads a config line to its end; a sentence goes on after the password)."""
        at = line.find(value)
        quoted = at > 0 and line[at - 1] in "\"'`"
        if not quoted:
            value = value.split()[0] if value.split() else ""
            value = value.rstrip(".,;:!?)")
        if len(value) < 3 or any(f(value) for f in self._filters) or self._indirect(line):
            return None
        return value

    def _random(self, text: str) -> Iterator[Finding]:
        """A random-looking string of no known provider's format ("my token: 9xQe...") by
        detect-secrets' base64 entropy test (over 4.5 bits a character, which takes some 30
        random characters), quoted or not. A web address is left alone: a shared link is
        what a memory is often for, and credentials in one are the basic-auth plugin's."""
        plugin = self._entropy
        for m in _B64_RUN.finditer(text):
            value = m.group().strip("=-_")
            word_start = max(text.rfind(" ", 0, m.start()), text.rfind("\n", 0, m.start())) + 1
            word = text[word_start : m.end() + 3]
            if "://" in word or word.lower().startswith("www."):
                continue
            if (
                len(value) >= 20
                and plugin.calculate_shannon_entropy(value) > plugin.entropy_limit
                and not any(f(value) for f in self._filters)
            ):
                # The whole run: the "=-_" stripped to measure it are the key's too (its
                # padding, a last "-"), and would be left in the clear.
                yield Finding(Kind.TOKEN, m.start(), m.end(), "random-looking string")

    # -- passwords said in words, cards, emails, phones ----------------------------------

    def _said_passwords(self, text: str) -> Iterator[Finding]:
        for m in _SAID_PASSWORD.finditer(text):
            group = "quoted" if m.group("quoted") else "bare"
            if m.group("key"):
                if m.group("key").lower() == "token" and m.group(group).isdigit():
                    continue
                kind = Kind.TOKEN if m.group("key").lower().endswith("token") else Kind.API_KEY
                yield Finding(kind, m.start(group), m.end(group), "key named in words")
            else:
                yield Finding(Kind.PASSWORD, m.start(group), m.end(group), "password")

    def _cards(self, text: str) -> Iterator[Finding]:
        for m in _CARD_CANDIDATE.finditer(text):
            raw = m.group()
            if len({c for c in raw if not c.isdigit()}) > 1:
                continue  # "4111 1111-1111 1111": one separator throughout, or none
            if is_card_number(re.sub(r"[ -]", "", raw)):
                yield Finding(Kind.CARD_NUMBER, m.start(), m.end(), "payment card number")

    def _emails(self, text: str) -> Iterator[Finding]:
        ev = self._email
        for m in _EMAIL_CANDIDATE.finditer(text):
            candidate = m.group().rstrip(".-")
            try:
                ev.validate_email(
                    candidate,
                    check_deliverability=False,
                    allow_smtputf8=True,
                    allow_quoted_local=False,
                )
            except ev.EmailNotValidError:
                continue
            yield Finding(Kind.EMAIL, m.start(), m.start() + len(candidate), "email address")

    def _phone_numbers(self, text: str) -> Iterator[Finding]:
        pn = self._phones
        matcher = pn.PhoneNumberMatcher(text, self.phone_region, leniency=pn.Leniency.VALID)
        for match in matcher:
            yield Finding(Kind.PHONE, match.start, match.end, "phone number")


def _keyword_kind(before: str) -> Kind:
    """What a keyword names: the plugin's list holds keys ("api_key", "private_key") as well
    as passwords ("password", "pwd", "secret")."""
    lowered = before.lower()
    if "key" not in lowered:
        return Kind.PASSWORD
    return Kind.PRIVATE_KEY if "priv" in lowered else Kind.API_KEY


def _occurrences(line: str, value: str) -> Iterator[int]:
    at = line.find(value)
    while at >= 0:
        yield at
        at = line.find(value, at + len(value))


def _whole_token(line: str, start: int, end: int) -> tuple[int, int]:
    """A key's span widened to the whole token it is in (``_HEAD_CHAR``, ``_TAIL_CHAR``): a
    pattern that stops inside a longer token must not leave the rest of the key in the clear.
    An edge that is no key character does not grow: a pattern that takes the space or quote
    around a key (Artifactory's) must not take the word beyond it too, and a value after a
    quote or an "=" does not grow back into its name."""
    begin, stop = start, end
    if _HEAD_CHAR.match(line, start):
        # Stepped back, not searched: a regex search back from the span is quadratic on a
        # long run of key characters broken just before it.
        while begin > 0 and _HEAD_CHAR.match(line, begin - 1):
            begin -= 1
    if end > start and _TAIL_CHAR.match(line, end - 1):
        tail = _TOKEN_TAIL.match(line, end)
        stop = len(line[: tail.end()].rstrip(".")) if tail else end
    return begin, stop if stop > start else end


def _key_block(text: str, start: int) -> tuple[int, int]:
    """The span of the whole key block around a private-key marker."""
    head = text.rfind("-----", 0, start)
    line_start = text.rfind("\n", 0, start) + 1
    begin = head if head >= line_start else start
    end = _KEY_BLOCK_END.search(text, start)
    return begin, end.end() if end else len(text)
