"""The audit key ring: the secret the chain is sealed with, kept outside the database.

A key file holds one key per line (64 hex digits; ``#`` starts a comment). The first key
signs new records; the others only verify (keys that sealed records copied in from another
store, or a key rotated out). The default file of a SQLite store lies beside it
(``<file>.audit-key``); ``MNEME_AUDIT_KEY_FILE`` (``Config.audit_key_file``) names another
place, which is what an operator who does not trust the database's own directory does.
A file is created on the first writable open, readable by its owner only (0600), and never
overwritten. ADR 0035.
"""

from __future__ import annotations

import os
import secrets
from collections.abc import Iterable, Mapping
from pathlib import Path

from mneme.core.audit_chain import MacKey
from mneme.errors import BackendUnavailable


class KeyRing:
    """The audit keys a store was opened with."""

    def __init__(self, secrets_: Iterable[bytes], path: str | None) -> None:
        self._keys: dict[str, MacKey] = {}
        self._secrets: dict[str, bytes] = {}
        for secret in secrets_:
            key = MacKey(secret)
            self._keys.setdefault(key.id, key)
            self._secrets.setdefault(key.id, secret)
        if not self._keys:
            raise BackendUnavailable(f"the audit key file {path} holds no key")
        self.path = path  # None: a key that lives only in this process (memory stores)
        self.signing = next(iter(self._keys.values()))

    @property
    def keys(self) -> Mapping[str, MacKey]:
        return self._keys

    def secrets(self) -> dict[str, bytes]:
        """Key id -> secret, for a copy that carries its keys to another store's ring."""
        return dict(self._secrets)

    def adopt(self, others: Mapping[str, bytes]) -> None:
        """Add keys (that sealed records copied into this store) after the signing key."""
        new = {kid: s for kid, s in others.items() if kid not in self._keys}
        if not new:
            return
        if self.path is not None:
            with open(self.path, "a", encoding="ascii") as fh:
                for kid, secret in new.items():
                    fh.write(f"{secret.hex()}  # {kid}, adopted by a copy\n")
        for kid, secret in new.items():
            self._keys[kid] = MacKey(secret)
            self._secrets[kid] = secret


def ephemeral() -> KeyRing:
    """A fresh key that lives only in this process (an in-memory store)."""
    return KeyRing([secrets.token_bytes(32)], None)


def default_path(db_path: str) -> str:
    return f"{db_path}.audit-key"


def _parse(path: str, text: str) -> list[bytes]:
    out = []
    for n, line in enumerate(text.splitlines(), 1):
        body = line.split("#", 1)[0].strip()
        if not body:
            continue
        try:
            secret = bytes.fromhex(body)
        except ValueError:
            raise BackendUnavailable(
                f"the audit key file {path} line {n} is not a hex key"
            ) from None
        if len(secret) < 16:
            raise BackendUnavailable(f"the audit key file {path} line {n} is too short a key")
        out.append(secret)
    return out


def load(path: str, *, create: bool) -> KeyRing | None:
    """The ring in ``path``; with ``create``, a new key file (0600) when there is none.

    None when the file does not exist and may not be created (a read-only open).
    """
    p = Path(path).expanduser()
    try:
        return KeyRing(_parse(str(p), p.read_text(encoding="ascii")), str(p))
    except FileNotFoundError:
        if not create:
            return None
    except OSError as exc:
        raise BackendUnavailable(f"cannot read the audit key file {p}: {exc}") from exc
    secret = secrets.token_bytes(32)
    tmp = p.with_name(f".{p.name}.{secrets.token_hex(4)}.tmp")
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as fh:
            fh.write(
                "# mneme audit key: keep it; without it the audit chain cannot be verified\n"
                f"{secret.hex()}\n"
            )
        try:
            os.link(tmp, p)  # never replaces a key another process just created
        except FileExistsError:
            pass
    except OSError as exc:
        raise BackendUnavailable(f"cannot create the audit key file {p}: {exc}") from exc
    finally:
        tmp.unlink(missing_ok=True)
    return KeyRing(_parse(str(p), p.read_text(encoding="ascii")), str(p))
