"""Typed configuration: defaults < TOML file < environment < explicit keyword arguments.

Built once at the edge (``Memory.open``, the CLI, the server factory); nothing reads the
environment at import time.
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from mneme.errors import InvalidInput


@dataclass(frozen=True, slots=True)
class RecallConfig:
    """Read-path knobs. Defaults are defended by the LoCoMo benchmark (ADR 0005)."""

    rrf_k: float = 20.0
    semantic_weight: float = 0.7
    lexical_weight: float = 1.0
    graph_weight: float = 0.3
    temporal_weight: float = 0.7
    candidates: int = 60  # per channel
    semantic_floor: float = 0.1  # cosine below this is noise, not a semantic match
    #: BM25 matches scoring below this fraction of the best one are dropped before fusion: a
    #: lone common term (a speaker's name on every line) must not outvote a strong match.
    lexical_floor: float = 0.15
    graph_seeds: int = 8
    graph_links: int = 400
    #: What the graph channel follows: typed edges ("EDGE"), shared entities ("ENTITY"),
    #: sibling atoms ("SOURCE"); and whether the query links to the units of entities it
    #: names. Entity hops hurt LoCoMo recall@10 and cost most of the latency (ADR 0010).
    graph_kinds: tuple[str, ...] = ("EDGE",)
    graph_query_entities: bool = False
    flashback_cap: int = 2
    freshness_half_life_days: float = 365.0
    blend_similarity: float = 0.25
    blend_graph: float = 0.0
    blend_freshness: float = 0.02
    blend_consensus: float = 0.05
    superseded_penalty: float = 0.5
    #: A question about now ranks, among this many best candidates, the newest statements of
    #: what it asks for first (0: off; ADR 0026).
    present_window: int = 10


@dataclass(frozen=True, slots=True)
class Config:
    db: str | None = None
    embedder: str = "minilm"
    embedder_api_key: str | None = None
    create_banks: bool = True
    max_text_chars: int = 200_000
    max_atoms: int = 512
    read_only: bool = False
    #: The audit key file (ADR 0035). None: beside a SQLite file (``<file>.audit-key``); for
    #: PostgreSQL, a file per database under the user data directory. Keep it where the
    #: database's writers cannot write, and share it between the hosts of one hive.
    audit_key_file: str | None = None
    #: How PostgreSQL ranks the semantic channel: "hnsw" (an approximate index per model,
    #: the default) or "exact" (no index: every visible vector is compared; exact results,
    #: linear cost, and the mode for a pgvector whose index builds cannot run on the host).
    pg_vector_index: str = "hnsw"
    charter: str | None = None  # path of the charter file; None: the packaged default
    #: Seconds between background reconsolidation passes; 0 runs sweeps only when asked
    #: (``Memory.reconsolidate``, ``mneme reconsolidate``). ``mneme serve`` turns it on.
    reconsolidate_every: float = 0.0
    reconsolidation_bar: float = 0.7  # verdicts below this confidence go to a person
    reconsolidation_batch: int = 4  # pending belief changes swept per pass (ADR 0009)
    #: Seconds between background reflect passes (observations, ADR 0051); 0 reflects only
    #: when asked (``Memory.reflect``, ``mneme reflect``). ``mneme serve`` turns it on
    #: (``--reflect-every``).
    reflect_every: float = 0.0
    #: Banks one background reflect pass takes, round-robin: every bank is reached over
    #: passes, and no pass does more than this many banks' work.
    reflect_banks_per_pass: int = 4
    #: Seconds between background insight passes (categories, threads, insights; ADR 0056),
    #: each over ``reflect_banks_per_pass`` banks in turn; 0 runs them only when asked
    #: (``mem.insights.run``, ``mneme insights run``). ``mneme serve --insights-every``.
    insights_every: float = 0.0
    #: LLM tiers, tried in order (write side and background only; never on recall). Each a
    #: mapping like {"provider": "openai", "model": "...", "base_url": "...",
    #: "api_key_env": "OPENAI_API_KEY"} or {"provider": "anthropic", "model": "..."}.
    llm: tuple[Mapping[str, Any], ...] = ()
    recall: RecallConfig = field(default_factory=RecallConfig)
    #: The default sensitive-data policy of every bank (category or kind -> store | redact |
    #: refuse); a bank's own rules override it (ADR 0034). Unset: secrets are redacted,
    #: personal data is stored, and every finding is audited.
    sensitive: Mapping[str, str] = field(default_factory=dict)
    #: The region whose national phone numbers the detector recognizes; numbers written with
    #: + and a country code are found whatever it is. "" finds only those.
    phone_region: str = "US"

    def replace(self, **changes: Any) -> Config:
        return dataclasses.replace(self, **changes)


def default_db_path(env: Mapping[str, str]) -> str:
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "mneme" / "mneme.db")


def default_audit_key_file(env: Mapping[str, str], target: str) -> str | None:
    """Where a store's audit key lives when none is configured (ADR 0035): beside a SQLite
    file (None: the store's own default), else one file per PostgreSQL database under the user
    data directory, named by a digest of the DSN without its password."""
    if not target.startswith(("postgresql://", "postgres://")):
        return None
    parts = urllib.parse.urlsplit(target)
    host = parts.hostname or ""
    where = f"{parts.username or ''}@{host}:{parts.port or ''}{parts.path}"
    name = hashlib.sha256(where.encode("utf-8")).hexdigest()[:16]
    base = env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")
    return str(Path(base) / "mneme" / "audit-keys" / f"{name}.key")


_ENV = {
    "MNEME_DB": "db",
    "MNEME_EMBEDDER": "embedder",
    "MNEME_EMBEDDER_API_KEY": "embedder_api_key",
    "MNEME_AUDIT_KEY_FILE": "audit_key_file",
    "MNEME_PG_VECTOR_INDEX": "pg_vector_index",
}

VECTOR_INDEXES = ("hnsw", "exact")


def _check_cadence(values: Mapping[str, Any]) -> None:
    """Refuse a background interval or pass size no worker could run with."""
    for key in ("reconsolidate_every", "reflect_every", "insights_every"):
        value = values.get(key, 0)
        if isinstance(value, bool) or not isinstance(value, int | float) or value < 0:
            raise InvalidInput(f"{key} must be a number of seconds, 0 or more (0: off)")
    per_pass = values.get("reflect_banks_per_pass", 1)
    if isinstance(per_pass, bool) or not isinstance(per_pass, int) or per_pass < 1:
        raise InvalidInput("reflect_banks_per_pass must be a whole number, 1 or more")


def load(
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    file: str | None = None,
) -> Config:
    """Build the configuration from its layers; unknown keys are an error, not ignored."""
    env = os.environ if env is None else env
    values: dict[str, Any] = {}
    recall: dict[str, Any] = {}
    path = file or env.get("MNEME_CONFIG")
    if path:
        try:
            with open(path, "rb") as fh:
                data = tomllib.load(fh)
        except (OSError, tomllib.TOMLDecodeError) as exc:
            raise InvalidInput(f"cannot read the config file {path}: {exc}") from exc
        section = data.get("mneme", data)
        recall.update(section.pop("recall", {}) if isinstance(section, dict) else {})
        values.update(section)
    for var, key in _ENV.items():
        if env.get(var):
            values[key] = env[var]
    for key, value in (overrides or {}).items():
        if value is None:
            continue
        if key == "recall" and isinstance(value, Mapping):
            recall.update(value)
        else:
            values[key] = value
    names = {f.name for f in dataclasses.fields(Config)}
    unknown = set(values) - names
    if unknown:
        raise InvalidInput(f"unknown configuration keys: {', '.join(sorted(unknown))}")
    rnames = {f.name for f in dataclasses.fields(RecallConfig)}
    if set(recall) - rnames:
        raise InvalidInput(
            f"unknown recall configuration keys: {', '.join(sorted(set(recall) - rnames))}"
        )
    if "llm" in values:
        tiers = values["llm"]
        if not isinstance(tiers, list | tuple) or not all(isinstance(t, Mapping) for t in tiers):
            raise InvalidInput("llm must be a list of tier tables (provider, model, ...)")
        values["llm"] = tuple(dict(t) for t in tiers)
    if values.get("pg_vector_index", "hnsw") not in VECTOR_INDEXES:
        raise InvalidInput(
            f"pg_vector_index must be one of {', '.join(VECTOR_INDEXES)}, "
            f"got {values['pg_vector_index']!r}"
        )
    _check_cadence(values)
    if isinstance(values.get("recall"), RecallConfig):
        return Config(**values)
    return Config(**values, recall=RecallConfig(**recall))
