"""Bearer tokens for the HTTP API: each maps to (bank, agent, role) and is stored hashed.

Tokens live in a small JSON file (next to the SQLite database by default, or in the config
directory for a PostgreSQL DSN), never in the store itself: the store's schema belongs to the
storage layer. Only a SHA-256 digest of each secret is kept; the secret is shown once, when it is
created. A secret is 32 random bytes, so a fast hash is enough (no password stretching needed).

The file is re-read when it changes on disk, so ``mneme token create`` or ``revoke`` takes effect
on a running server without a restart.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import hmac
import json
import logging
import os
import secrets
import tempfile
import threading
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from mneme.errors import BackendUnavailable, InvalidInput, NotFound
from mneme.surfaces.authority import ALL_BANKS, ROLES, Principal, check_principal

SECRET_PREFIX = "mn_"
_FORMAT = 1

__all__ = ["ALL_BANKS", "ROLES", "Principal", "TokenRecord", "TokenStore", "default_tokens_path"]


@dataclass(frozen=True, slots=True)
class TokenRecord:
    id: str
    digest: str  # "sha256:<hex>" of the secret
    bank: str
    agent: str
    role: str
    created_at: str
    label: str = ""

    def principal(self) -> Principal:
        return Principal(self.id, self.bank, self.agent, self.role, self.label)


def digest(secret: str) -> str:
    return "sha256:" + hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()


def default_tokens_path(db_target: str, env: Mapping[str, str]) -> Path:
    """Next to a SQLite file (``x.db`` -> ``x.tokens.json``), else in the config directory."""
    if db_target and db_target != ":memory:" and "://" not in db_target:
        db = Path(db_target).expanduser()
        return db.parent / f"{db.stem}.tokens.json"
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return Path(base) / "mneme" / "tokens.json"


log = logging.getLogger("mneme.http.tokens")


class TokensUnreadable(BackendUnavailable):
    """The tokens file cannot be read or is damaged: the server cannot tell who anyone is.

    Its message is what an HTTP client may see and names no file (the path would tell a caller
    where the server keeps its credentials); ``operator_detail`` names the file and the cause,
    for the server log and the CLI.
    """

    def __init__(self, path: Path, cause: str) -> None:
        super().__init__(
            "the server cannot read its API tokens file, so no token can be checked; "
            "its operator must repair the file (the server log names it)"
        )
        self.operator_detail = f"the tokens file {path} is unreadable: {cause}"


class TokenStore:
    """The tokens file: create, list, revoke, and look a secret up (thread-safe)."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        self._stamp: tuple[int, int] | None = None
        self._records: dict[str, TokenRecord] = {}  # by digest
        self._logged: tuple[tuple[int, int], str] | None = None  # the damage last logged

    # -- reading ------------------------------------------------------------------------

    def exists(self) -> bool:
        return self.path.exists()

    def _load(self) -> None:
        """Re-read the file when its size or mtime changed since the last read."""
        try:
            st = self.path.stat()
        except FileNotFoundError:
            self._stamp, self._records = None, {}
            return
        stamp = (st.st_mtime_ns, st.st_size)
        if stamp == self._stamp:
            return
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            rows = data["tokens"] if isinstance(data, dict) else None
            if not isinstance(rows, list):
                raise ValueError("no 'tokens' list")
            records = [TokenRecord(**row) for row in rows]
            for r in records:
                if not all(isinstance(v, str) for v in asdict(r).values()):
                    raise ValueError(f"token {r.id!r} has a field that is not a string")
        except (OSError, ValueError, TypeError, KeyError, RecursionError) as exc:
            # Checked on every request: log the damage once, not once a request.
            error = TokensUnreadable(self.path, f"{type(exc).__name__}: {exc}")
            if self._logged != (stamp, str(error.operator_detail)):
                self._logged = (stamp, str(error.operator_detail))
                log.error("%s", error.operator_detail)
            raise error from None
        self._records = {r.digest: r for r in records}
        self._stamp = stamp

    def records(self) -> list[TokenRecord]:
        with self._lock:
            self._load()
            return sorted(self._records.values(), key=lambda r: r.created_at)

    def lookup(self, secret: str) -> Principal | None:
        """The principal a secret stands for, or None for an unknown or malformed secret."""
        if not secret.startswith(SECRET_PREFIX) or len(secret) > 200:
            return None
        wanted = digest(secret)
        with self._lock:
            self._load()
            found = self._records.get(wanted)
        # The dict lookup already matched; compare_digest keeps the final check constant-time.
        if found is None or not hmac.compare_digest(found.digest, wanted):
            return None
        return found.principal()

    # -- writing ------------------------------------------------------------------------

    def create(
        self, *, bank: str, agent: str, role: str, label: str = ""
    ) -> tuple[str, TokenRecord]:
        """Make a token; returns the secret (shown once, never stored) and its record.

        Raises:
            InvalidInput: an unknown role, a bad bank or agent id, or "*" for a non-admin.
        """
        check_principal(bank, agent, role)
        if len(label) > 200:
            raise InvalidInput("label is longer than 200 characters")
        secret = SECRET_PREFIX + secrets.token_urlsafe(32)
        record = TokenRecord(
            id="tok_" + secrets.token_hex(6),
            digest=digest(secret),
            bank=bank,
            agent=agent,
            role=role,
            created_at=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
            label=label,
        )
        with self._lock:
            self._load()
            self._records[record.digest] = record
            self._save()
        return secret, record

    def revoke(self, token_id: str) -> TokenRecord:
        """Remove a token by its id (not its secret).

        Raises:
            NotFound: no token has this id.
        """
        with self._lock:
            self._load()
            for key, rec in self._records.items():
                if rec.id == token_id:
                    del self._records[key]
                    self._save()
                    return rec
        raise NotFound(f"no token {token_id!r} in {self.path}")

    def _save(self) -> None:
        """Write the whole file atomically, readable by its owner only."""
        self.path.parent.mkdir(parents=True, exist_ok=True)
        body: dict[str, Any] = {
            "format": _FORMAT,
            "note": "mneme API tokens: only SHA-256 digests of the secrets are kept here",
            "tokens": [
                asdict(r) for r in sorted(self._records.values(), key=lambda r: r.created_at)
            ],
        }
        fd, tmp = tempfile.mkstemp(prefix=".tokens-", dir=self.path.parent)
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump(body, fh, indent=2)
                fh.write("\n")
            os.chmod(tmp, 0o600)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
        self._stamp = None  # re-stat on the next read
