"""Typed configuration in layers: built-in defaults < a TOML file < environment variables <
explicit keyword arguments (ADR 0057).

- **defaults**: the fields of ``Config`` below (and of its sections, like ``RecallConfig``).
- **file**: TOML, at ``$MNEME_CONFIG``, else ``$XDG_CONFIG_HOME/mneme/config.toml`` (else
  ``~/.config/mneme/config.toml``) when it exists; its keys at the top or under ``[mneme]``,
  a section as a table (``[recall]``).
- **environment**: ``MNEME_<FIELD>`` for every field, ``MNEME_<SECTION>__<FIELD>`` inside a
  section (``MNEME_RECALL__RRF_K``), parsed by the field's type (``config_types``). An empty
  variable counts as unset.
- **keyword arguments**: ``Memory.open(**config)``, the CLI's options.

Every value is checked against its field's annotation whichever layer gave it, and an unknown
key is an error: the first bad one is named with its layer, and nothing is built. Built once
at the edge (``Memory.open``, the CLI, the server factory); nothing reads the environment at
import time, and no module but this one reads a ``MNEME_`` variable (tests/repo/test_env_reads.py).
"""

from __future__ import annotations

import dataclasses
import hashlib
import os
import re
import tomllib
import urllib.parse
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal, get_args

from mneme import config_types as ct
from mneme import validate
from mneme.errors import InvalidInput

VectorIndex = Literal["hnsw", "exact"]
VECTOR_INDEXES: tuple[str, ...] = get_args(VectorIndex)
#: The variable naming the config file; the only MNEME_ variable that is not a field.
CONFIG_ENV = "MNEME_CONFIG"


@dataclass(frozen=True, slots=True)
class RecallConfig:
    """Read-path knobs. Defaults are defended by the LoCoMo benchmark (ADR 0005)."""

    rrf_k: float = 20.0
    semantic_weight: float = 0.7
    lexical_weight: float = 1.0
    graph_weight: float = 0.3
    temporal_weight: float = 0.7
    #: The focus channel (ADR 0103): a query naming entities the bank knows is asked again
    #: without the names, among the units that mention them, and fused with this weight (the
    #: semantic channel's). 0 turns it off.
    focus_weight: float = 0.7
    candidates: int = 60  # per channel
    semantic_floor: float = 0.1  # cosine below this is noise, not a semantic match
    #: The semantic channel ranks its candidates by CSLS (ADR 0092): cosine less this times a
    #: candidate's mean cosine to its ``hub_neighbours`` nearest fellow candidates, so generic
    #: statements near everything ("What was it about?") stop crowding it. 0 turns it off.
    hub_weight: float = 0.5
    #: How many nearest fellow candidates a candidate's density is the mean cosine to (a pool
    #: of this many or fewer is left in cosine order).
    hub_neighbours: int = 10
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
    #: what it asks for first, a retired one counting for what no later statement changed
    #: (0: off; ADR 0026, 0075).
    present_window: int = 10
    #: Of a question that names its subject, only candidates that say a word of it besides
    #: the subject, or whose cosine to it is at least this times the closest one's, are
    #: ordered newest first (0: all; ADR 0063 amendment).
    present_similarity: float = field(default=0.9, metadata={"min": 0, "max": 1})
    #: Of a question that names nothing and whose answer no candidate states as a value of the
    #: kind asked for ("What is the current genre of the movie?"), the candidates as close as
    #: ``present_similarity`` says, or saying a word of it, are ordered as typed ones are
    #: (ADR 0096). Off: such a question keeps the relevance order.
    present_untyped: bool = True
    #: Of a question that names nothing, a typed candidate's place in the newest-first order
    #: plus this times its place by cosine to the question orders them (ties: the newer
    #: first); one that says a change cue or a word of the question counts as the closest.
    #: 0: newest first (ADR 0093; SGD every turn top-1 0.642 -> 0.707 as ADR 0094 scores it,
    #: user turns 0.843 -> 0.856).
    present_closeness: float = field(default=1.0, metadata={"min": 0})
    #: A question that names no value ("Congrats! What breed?") asks and states nothing: among
    #: the best ``question_window`` candidates, one scores this times its score (1: off; ADR
    #: 0067, LoCoMo R@10 0.678 -> 0.705).
    question_factor: float = field(default=0.5, metadata={"min": 0, "max": 1})
    question_window: int = 20
    #: Cluster smoothing: a candidate cited by an observation that is a candidate too gains
    #: this times the observation's score (0: off; ADR 0051).
    observation_smoothing: float = field(default=0.5, metadata={"min": 0})


@dataclass(frozen=True, slots=True)
class Config:
    #: The store: a SQLite file or a postgresql:// DSN. None: ``$XDG_DATA_HOME/mneme/mneme.db``.
    db: str | None = None
    #: The embedder spec: "minilm", "hashing" (tests only) or "openai:<model>@<url>".
    embedder: str = "minilm"
    #: The key of an "openai:" embedder (a secret: shown as ***).
    embedder_api_key: str | None = field(default=None, metadata={"secret": True})
    #: Whether a write to an unknown bank may make it (ADR 0046).
    create_banks: bool = True
    #: The longest text one write takes, in characters.
    max_text_chars: int = 200_000
    #: The most atoms one write is split into.
    max_atoms: int = 512
    #: Whether bulk writes (``retain_many``, ``retain_batches``) analyze the statements of a
    #: batch in a worker process while the writing thread embeds or commits (ADR 0095): one
    #: process per Python process, started on the first batch of 16 texts or more, never on a
    #: single CPU. Off: the writing thread analyzes every text itself. Decisions are the same.
    analysis_ahead: bool = True
    #: Open the store for reading only (no background work, no writes).
    read_only: bool = False
    #: The audit key file (ADR 0035). None: beside a SQLite file (``<file>.audit-key``); for
    #: PostgreSQL, a file per database under the user data directory. Keep it where the
    #: database's writers cannot write, and share it between the hosts of one hive.
    audit_key_file: str | None = None
    #: How PostgreSQL ranks the semantic channel: "hnsw" (an approximate index per model,
    #: the default) or "exact" (no index: every visible vector is compared; exact results,
    #: linear cost, and the mode for a pgvector whose index builds cannot run on the host).
    pg_vector_index: VectorIndex = "hnsw"
    #: Where the default embedder keeps its query graph exported to ONNX (ADR 0016). None:
    #: ``$XDG_CACHE_HOME/mneme``, else ``~/.cache/mneme``.
    cache_dir: str | None = None
    #: The default embedder's batch precision: "auto" (bfloat16 where the CPU multiplies it
    #: natively, ADR 0015) or "fp32".
    embed_precision: Literal["auto", "fp32"] = "auto"
    #: The default embedder's query path: "auto" (the ONNX graph, ADR 0016) or "torch".
    query_backend: Literal["auto", "torch"] = "auto"
    #: The default embedder's batch path: "auto" (OpenVINO where it runs, ADR 0023) or "torch".
    batch_backend: Literal["auto", "torch"] = "auto"
    #: The HTTP API's tokens file (``mneme serve``, ``mneme token``). None:
    #: ``<db>.tokens.json`` beside a SQLite file, else ``~/.config/mneme/tokens.json``.
    tokens: str | None = None
    #: The MCP tool profile of ``mneme mcp`` and ``mneme serve`` (ADR 0047). None: "core".
    mcp_tools: str | None = None
    #: Who ``mneme mcp`` acts as when no option says: its bank (None: "default"), its agent
    #: (None: "assistant") and its role (None: "agent").
    mcp_bank: str | None = None
    mcp_agent: str | None = None
    mcp_role: Literal["agent", "reviewer", "admin"] | None = None
    charter: str | None = None  # path of the charter file; None: the packaged default
    #: Seconds between background reconsolidation passes; 0 runs sweeps only when asked
    #: (``Memory.reconsolidate``, ``mneme reconsolidate``). ``mneme serve`` turns it on.
    reconsolidate_every: float = field(default=0.0, metadata={"min": 0})
    reconsolidation_bar: float = 0.7  # verdicts below this confidence go to a person
    reconsolidation_batch: int = 4  # pending belief changes swept per pass (ADR 0009)
    #: Seconds between background reflect passes (observations, ADR 0051); 0 reflects only
    #: when asked (``Memory.reflect``, ``mneme reflect``). ``mneme serve`` turns it on
    #: (``--reflect-every``).
    reflect_every: float = field(default=0.0, metadata={"min": 0})
    #: Banks one background reflect pass takes, round-robin: every bank is reached over
    #: passes, and no pass does more than this many banks' work.
    reflect_banks_per_pass: int = field(default=4, metadata={"min": 1})
    #: The health watchdog (ADR 0054). Seconds between its passes; 0: no background watchdog
    #: (``mneme health`` and ``mneme watch`` still run it). ``mneme serve`` turns it on.
    watch_every: float = field(default=0.0, metadata={"min": 0})
    #: The system bank: ops-alert memories (recallable) and the journal of every reaction.
    watch_bank: str = "ops"
    #: A shell command run for each new alert (the finding as JSON on stdin, and in
    #: MNEME_WATCH_* variables), killed after ``watch_hook_timeout`` seconds. None: no hook.
    watch_hook: str | None = None
    watch_hook_timeout: float = field(default=10.0, metadata={"min": 0})
    #: Watchdog passes a flooding stage stays paused before it is let run again.
    watch_pause_passes: int = field(default=10, metadata={"min": 0})
    #: Thresholds of the detectors (``core.watchdog.Thresholds``); 0 turns a check off.
    watch_wal_bytes: int = field(default=64 * 1024 * 1024, metadata={"min": 0})
    watch_db_bytes: int = field(default=0, metadata={"min": 0})
    #: Over at least 5 minutes.
    watch_growth_bytes_per_hour: int = field(default=1024 * 1024 * 1024, metadata={"min": 0})
    watch_queue_depth: int = field(default=1000, metadata={"min": 0})
    #: Seconds the oldest pending write may wait.
    watch_queue_age: float = field(default=600.0, metadata={"min": 0})
    #: Seconds an ingest item may stay processing.
    watch_stuck_after: float = field(default=600.0, metadata={"min": 0})
    #: What a background pass may produce.
    watch_flood_per_pass: int = field(default=500, metadata={"min": 0})
    watch_disk_free_bytes: int = field(default=1024 * 1024 * 1024, metadata={"min": 0})
    watch_memory_bytes: int = field(default=0, metadata={"min": 0})
    #: Seconds between background insight passes (categories, threads, insights; ADR 0056),
    #: each over ``reflect_banks_per_pass`` banks in turn; 0 runs them only when asked
    #: (``mem.insights.run``, ``mneme insights run``). ``mneme serve --insights-every``.
    insights_every: float = field(default=0.0, metadata={"min": 0})
    #: Whether reflect asks the LLM (``llm``) to compose each observation as claims, each
    #: checked against the evidence it cites (ADR 0058); off: the offline consolidation only.
    #: Without an ``llm`` it has no effect.
    reflect_llm: bool = False
    #: At most this many LLM calls per reflect pass (one per observation group it composes);
    #: groups beyond it are written with the offline text and composed by a later pass, each
    #: within its own cap (ADR 0058). 0: reflect composes offline only, as with the switch off.
    reflect_llm_max_calls: int = field(default=50, metadata={"min": 0})
    #: Whether the insight pass asks the LLM to name categories it mints and to judge causes
    #: between memories sharing an entity (ADR 0058); off: the offline rules only.
    insights_llm: bool = False
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

    def __post_init__(self) -> None:
        # What a lower bound cannot say (ADR 0054): the system bank is a bank id, a hook is
        # a command, and a hook's timeout is more than nothing.
        validate.ident(self.watch_bank, "watch_bank")
        if self.watch_hook is not None and not self.watch_hook.strip():
            raise InvalidInput("watch_hook must be a shell command (a non-empty string) or unset")
        if self.watch_hook_timeout == 0:
            raise InvalidInput("watch_hook_timeout must be more than 0 seconds")

    def replace(self, **changes: Any) -> Config:
        return dataclasses.replace(self, **changes)


def environment() -> Mapping[str, str]:
    """The process environment: read here, by the functions of this module, and nowhere else
    (the surfaces pass it on to the functions that take an ``env``)."""
    return os.environ


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _data_dir(env: Mapping[str, str]) -> Path:
    return Path(env.get("XDG_DATA_HOME") or str(Path.home() / ".local" / "share")) / "mneme"


def default_db_path(env: Mapping[str, str] | None = None) -> str:
    return str(_data_dir(_env(env)) / "mneme.db")


def default_cache_dir(env: Mapping[str, str] | None = None) -> str:
    """Where the default embedder's exported graphs go when ``cache_dir`` is not set."""
    env = _env(env)
    return str(Path(env.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")) / "mneme")


def default_config_path(env: Mapping[str, str] | None = None) -> str:
    env = _env(env)
    base = env.get("XDG_CONFIG_HOME") or str(Path.home() / ".config")
    return str(Path(base) / "mneme" / "config.toml")


def config_path(env: Mapping[str, str] | None = None, file: str | None = None) -> str:
    """The config file this process reads and ``mneme config set`` writes: ``file``, else
    ``$MNEME_CONFIG``, else the default place (which need not exist)."""
    env = _env(env)
    return file or env.get(CONFIG_ENV) or default_config_path(env)


def _dsn_digest(target: str) -> str:
    parts = urllib.parse.urlsplit(target)
    host = parts.hostname or ""
    where = f"{parts.username or ''}@{host}:{parts.port or ''}{parts.path}"
    return hashlib.sha256(where.encode("utf-8")).hexdigest()[:16]


def default_audit_key_file(env: Mapping[str, str] | None, target: str) -> str | None:
    """Where a store's audit key lives when none is configured (ADR 0035): beside a SQLite
    file (None: the store's own default), else one file per PostgreSQL database under the user
    data directory, named by a digest of the DSN without its password."""
    if not target.startswith(("postgresql://", "postgres://")):
        return None
    return str(_data_dir(_env(env)) / "audit-keys" / f"{_dsn_digest(target)}.key")


def server_file(target: str, env: Mapping[str, str] | None = None) -> str:
    """Where ``mneme serve`` on ``target`` leaves its pid and reload status, for ``mneme
    config apply``: beside a SQLite file, else one file per PostgreSQL database."""
    if target.startswith(("postgresql://", "postgres://")):
        return str(_data_dir(_env(env)) / "servers" / f"{_dsn_digest(target)}.json")
    return str(Path(target).expanduser().absolute()) + ".serve.json"


_USERINFO = re.compile(r"(://[^:/@\s]+):[^@/\s]+@")


def redact_dsn(value: str) -> str:
    """Any URL or DSN inside ``value`` without its password (``user:***@host``)."""
    return _USERINFO.sub(r"\1:***@", value)


ENV_VARS: dict[str, ct.Leaf] = {leaf.env: leaf for leaf in ct.leaves(Config)}
SECTIONS: dict[str, type] = ct.sections(Config)
LEAVES: dict[str, ct.Leaf] = {leaf.path: leaf for leaf in ENV_VARS.values()}
#: Settings whose value is a secret: shown as *** by ``mneme config get`` and the API.
SECRETS = frozenset(p for p, leaf in LEAVES.items() if leaf.field.metadata.get("secret"))


@dataclass(frozen=True, slots=True)
class Layers:
    """A configuration and where each of its settings came from."""

    config: Config
    #: Dotted path -> "default", "file <path>", "env <VAR>" or "argument".
    origins: Mapping[str, str]
    #: The config file read, or None (no file at the default place).
    file: str | None


def read_file(path: str) -> dict[str, Any]:
    """The settings table of a TOML config file (its ``[mneme]`` table when it has one).

    Raises:
        InvalidInput: the file cannot be read or is not TOML (with the line).
    """
    try:
        with open(path, "rb") as fh:
            return parse_text(fh.read().decode("utf-8"), path)
    except (OSError, UnicodeDecodeError) as exc:
        raise InvalidInput(f"cannot read the config file {path}: {exc}") from exc


def parse_text(text: str, label: str) -> dict[str, Any]:
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise InvalidInput(f"cannot read the config file {label}: {exc}") from exc
    section = data.get("mneme", data)
    if not isinstance(section, dict):
        raise InvalidInput(f"[mneme] in the config file {label} must be a table")
    return section


def _take(
    data: Mapping[str, Any],
    values: dict[str, Any],
    origins: dict[str, str],
    origin: str,
    prefix: str = "",
) -> None:
    """Check one layer's (nested) settings by their types and lay them over ``values``."""
    unknown = []
    for key, value in data.items():
        path = f"{prefix}{key}"
        if path in SECTIONS:
            if dataclasses.is_dataclass(value) and not isinstance(value, type):
                value = {f.name: getattr(value, f.name) for f in dataclasses.fields(value)}
            if not isinstance(value, Mapping):
                raise InvalidInput(f"{path} must be a table of settings, got {value!r} ({origin})")
            _take(value, values, origins, origin, path + ".")
        elif path in LEAVES:
            leaf = LEAVES[path]
            try:
                checked = ct.coerce(value, leaf.type, path)
                ct.check_bounds(leaf, checked)
            except InvalidInput as exc:
                raise InvalidInput(f"{exc} ({origin})") from None
            values[path], origins[path] = checked, origin
        else:
            unknown.append(path)
    if unknown:
        raise InvalidInput(f"unknown configuration keys: {', '.join(sorted(unknown))} ({origin})")


def resolve(
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    file: str | None = None,
    file_data: Mapping[str, Any] | None = None,
) -> Layers:
    """Build the configuration from its layers, and say where each setting came from.

    ``file_data``: the file layer already read (``mneme config set`` checks a file before
    writing it); else the file at ``config_path`` is read, when it exists or was named.

    Raises:
        InvalidInput: an unknown key, or a value its field does not take; the message names
            the setting, what it takes, the value and its layer.
    """
    env = _env(env)
    values: dict[str, Any] = {}
    origins: dict[str, str] = dict.fromkeys(LEAVES, "default")
    path = config_path(env, file)
    named = bool(file or env.get(CONFIG_ENV))
    read: str | None = None
    if file_data is not None:
        read = path
        _take(file_data, values, origins, f"file {path}")
    elif named or Path(path).is_file():
        read = path
        _take(read_file(path), values, origins, f"file {path}")
    for var, leaf in ENV_VARS.items():
        text = env.get(var)
        if text:
            try:
                values[leaf.path] = ct.from_text(text, leaf)
            except InvalidInput as exc:
                raise InvalidInput(f"{exc} (env {var})") from None
            origins[leaf.path] = f"env {var}"
    given = {k: v for k, v in (overrides or {}).items() if v is not None}
    _take(given, values, origins, "argument")
    config: Config = ct.build(Config, values)
    return Layers(config, origins, read)


def load(
    overrides: Mapping[str, Any] | None = None,
    *,
    env: Mapping[str, str] | None = None,
    file: str | None = None,
) -> Config:
    """Build the configuration from its layers; unknown keys are an error, not ignored."""
    return resolve(overrides, env=env, file=file).config
