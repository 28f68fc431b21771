"""The write-time defence: each input is screened for secrets and personal data before it is
planned, and the bank's policy says whether it is stored, redacted or refused (ADR 0034).

A bank's policy lives in its configuration (``banks.config["sensitive"]``), over the
process's default (``Config.sensitive``), over ``core.sensitive.DEFAULT_POLICY``. Screening
runs before anything is stored or sent anywhere (the ingest queue, the LLM extractor, the
embedder): what is redacted never reaches the store in any form. The decision is audited:
a refusal at once (nothing else is written for it), a stored or redacted write in the
transaction that stores its source.
"""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Protocol

from mneme import validate
from mneme.config import Config
from mneme.core.audit_chain import MacKey
from mneme.core.model import Bank
from mneme.core.sensitive import (
    Action,
    Kind,
    Policy,
    Screening,
    Tagger,
    parse_policy,
    refusal,
    screen,
)
from mneme.errors import InvalidInput, NotFound
from mneme.store.protocol import Audit, Banks, Transactions
from mneme.write.detector import Detector


class DefenceStore(Transactions, Protocol):
    """The roles of the store this module uses (ADR 0044)."""

    banks: Banks
    audit: Audit


log = logging.getLogger("mneme.defence")

#: The key of a bank's configuration that holds its policy.
CONFIG_KEY = "sensitive"
#: Hex digits of a redacted value's keyed tag: enough that two secrets of one kind in a bank
#: almost never read the same (1 in 65,536), too few to confirm a guess with the key in hand.
TAG_DIGITS = 4


@dataclass(frozen=True, slots=True)
class PolicyView:
    """A bank's sensitive-data policy: the rules set on the bank, and the action every
    category and kind gets once the defaults are applied."""

    bank: str
    rules: Mapping[str, str]
    effective: Mapping[str, str]


class Defence:
    def __init__(
        self, store: DefenceStore, config: Config, detector: Detector | None = None
    ) -> None:
        self.store = store
        self.detector = detector or Detector(config.phone_region)
        self._tag_key: MacKey | bool | None = False  # not looked up yet
        try:
            self.base = parse_policy(dict(config.sensitive))
        except ValueError as exc:
            raise InvalidInput(f"configuration key sensitive: {exc}") from exc

    def policy(self, bank_id: str) -> Policy:
        bank = self.store.banks.get_bank(bank_id)
        rules = bank.config.get(CONFIG_KEY) if bank is not None else None
        try:
            return parse_policy(rules, self.base)
        except ValueError:
            # Only set_policy writes the key, and it validates; a hand-edited bank row
            # with a bad policy must not open the gate: every kind is refused until fixed.
            log.error("bank %s has an unreadable sensitive-data policy; refusing", bank_id)
            return Policy({"secret": Action.REFUSE, "personal": Action.REFUSE})

    def view(self, bank_id: str) -> PolicyView:
        """How a bank's writes treat secrets and personal data: the rules set on the bank,
        and the action (store | redact | refuse) every category and kind gets."""
        bank = self.store.banks.get_bank(validate.ident(bank_id, "bank"))
        rules = bank.config.get(CONFIG_KEY) if bank is not None else None
        return PolicyView(
            bank_id,
            dict(rules) if isinstance(rules, Mapping) else {},
            self.policy(bank_id).effective(),
        )

    def set_policy(
        self, bank_id: str, value: Any, *, actor: str, reason: str, now: Any, create: bool
    ) -> PolicyView:
        """Lay ``value`` over the bank's rules (``"default"`` drops one); audited.

        Raises:
            InvalidInput: an unknown category, kind or action.
            NotFound: no such bank and ``create`` is off.
        """
        bank_id = validate.ident(bank_id, "bank")
        actor = validate.ident(actor, "actor")
        with self.store.transaction():
            bank = self.store.banks.get_bank(bank_id)
            if bank is None:
                if not create:
                    raise NotFound(f"no bank {bank_id!r} (create_banks is off)")
                bank = self.store.banks.ensure_bank(Bank(id=bank_id, name=bank_id, created_at=now))
            held = bank.config.get(CONFIG_KEY)
            try:
                current = parse_policy(held if isinstance(held, Mapping) else None)
                rules = parse_policy(value, current).to_json()
            except ValueError as exc:
                raise InvalidInput(str(exc)) from exc
            config = {**bank.config, CONFIG_KEY: rules}
            self.store.banks.set_bank_config(
                bank_id, config, actor=actor, reason=reason or "sensitive-data policy set"
            )
        return self.view(bank_id)

    def screen(self, bank_id: str, agent_id: str, source_id: str, text: str) -> Screening:
        """The text to store for one input, and what was decided.

        Raises:
            InvalidInput: the bank's policy refuses a kind found in the text (audited in
                the bank, when the bank exists; the message names kinds, never values).
        """
        findings = self.detector.find(text)
        if not findings:
            return Screening(text, {}, {})
        screening = screen(text, findings, self.policy(bank_id), self._tagger(bank_id))
        if screening.refused:
            self._audit_refusal(bank_id, agent_id, source_id, screening)
            raise InvalidInput(refusal(screening, bank_id))
        return screening

    def _tagger(self, bank_id: str) -> Tagger | None:
        """Tags redacted values with the store's audit key (kept outside the database, ADR
        0035), so "[redacted:password#3fa9]" and "[redacted:password#c01e]" are two passwords
        and a changed one is an update; None when the store has no key (untagged)."""
        if self._tag_key is False:
            ring = self.store.audit.anchors().keyring
            self._tag_key = ring.signing if ring is not None else None
        key = self._tag_key
        if not isinstance(key, MacKey):
            return None

        def tag(kind: Kind, value: str) -> str:
            return key.mac(f"mneme.redaction-tag\x1f{bank_id}\x1f{kind.value}\x1f{value}")[
                :TAG_DIGITS
            ]

        return tag

    def _audit_refusal(
        self, bank_id: str, agent_id: str, source_id: str, screening: Screening
    ) -> None:
        if self.store.banks.get_bank(bank_id) is None:
            # No bank to hold the record, and a refused write must not create one.
            log.warning(
                "refused a write to bank %s (no such bank yet): %s", bank_id, screening.summary()
            )
            return
        with self.store.transaction():
            self.store.audit.append(
                bank_id,
                agent_id,
                "write.refuse",
                source_id,
                None,
                screening.summary(),
                "the bank's sensitive-data policy refuses what the text holds",
            )


def audit_screening(
    store: DefenceStore, bank_id: str, agent_id: str, source_id: str, s: Screening
) -> None:
    """The audit record of a stored write that had findings (inside its transaction)."""
    store.audit.append(
        bank_id,
        agent_id,
        "source.screen",
        source_id,
        None,
        s.summary(),
        "redacted by the bank's sensitive-data policy"
        if s.redacted
        else "stored as the bank's sensitive-data policy allows",
    )
