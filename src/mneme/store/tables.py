"""Every table of a store, its columns in a portable form, and its key: what ``mneme db copy``
moves between backends.

A portable row is a dict of column name to a plain Python value of the column's kind: ``text``
(str), ``int``, ``float``, ``bool``, ``ts`` (an aware UTC datetime), ``json`` (the parsed value)
and ``vector`` (a list of float32 values as floats). Each backend converts to and from its own
storage (SQLite text and blobs; PostgreSQL timestamptz, jsonb, boolean and pgvector). Derived
columns and tables are not portable: SQLite's FTS index and PostgreSQL's ``tsv``, ``doc_len``,
``units.seq``, the BM25 statistics in ``index_state`` and the ``lexeme_df`` and
``lexeme_postings`` tables (``store.postgres.lexical.DERIVED_TABLES``) are rebuilt by the
importing backend. Insertion order is kept (units are exported in the order they were written),
so tie-breaks survive the move.

Adding a table to a migration means adding it here, or to the backend's derived tables: the
contract suite compares this list with the tables each backend really has.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Table:
    name: str
    columns: tuple[tuple[str, str], ...]  # (name, kind)
    key: tuple[str, ...]  # export order; unique; "rowid" for units means insertion order

    @property
    def names(self) -> tuple[str, ...]:
        return tuple(c for c, _ in self.columns)

    def kinds(self, kind: str) -> frozenset[str]:
        return frozenset(c for c, k in self.columns if k == kind)


def _t(name: str, key: tuple[str, ...], spec: str) -> Table:
    cols = []
    for item in spec.split():
        col, _, kind = item.partition(":")
        cols.append((col, kind or "text"))
    return Table(name, tuple(cols), key)


_BK = ("bank_id", "id")

#: Parents before children, so an importing backend with foreign keys accepts every batch.
SPECS: tuple[Table, ...] = (
    _t("banks", ("id",), "id name created_at:ts config:json"),
    _t(
        "sources",
        ("bank_id", "id", "agent_id"),  # an id is its writer's (ADR 0107)
        "bank_id id text content_hash kind agent_id session_id task_id occurred_at:ts "
        "mentioned_at:ts recorded_at:ts trust:float visibility metadata:json",
    ),
    _t(
        "units",
        ("insertion",),
        "bank_id id text content_key network type status confidence:float agent_id visibility "
        "owner occurred_start:ts occurred_end:ts valid_from:ts valid_until:ts recorded_at:ts "
        "retired_at:ts mentioned_at:ts embedding_model embedding_dim:int superseded_by "
        "supersedes:json contradictions:json categories:json metadata:json",
    ),
    _t(
        "unit_knowers",
        ("bank_id", "unit_id", "agent_id"),
        "bank_id unit_id agent_id first_source_id first_at:ts",
    ),
    _t(
        "unit_evidence",
        ("bank_id", "unit_id", "source_id", "agent_id"),
        "bank_id unit_id source_id agent_id at:ts",
    ),
    _t("entities", _BK, "bank_id id name key kind aliases:json"),
    _t("mentions", ("bank_id", "unit_id", "entity_id"), "bank_id unit_id entity_id"),
    _t(
        "edges",
        _BK,
        "bank_id id src dst type weight:float confidence:float made_by created_at:ts metadata:json",
    ),
    _t(
        "embeddings",
        ("bank_id", "unit_id", "model"),
        "bank_id unit_id model dim:int vector:vector",
    ),
    _t("index_state", ("bank_id",), "bank_id generation:int"),
    _t("agents", _BK, "bank_id id host status first_seen:ts last_seen:ts"),
    # before/after stay text: the hash covers their exact bytes (copied verbatim).
    _t(
        "audit_log",
        ("seq",),
        "seq:int bank_id at:ts actor op target before after reason prev_hash hash before_sha "
        "after_sha purged_at:ts version:int key_id reason_sha row_seals",
    ),
    _t("audit_head", ("bank_id",), "bank_id seq:int hash count:int mac"),
    # Which keys sealed the records (the keys themselves are never in a store; ADR 0035).
    _t("audit_keys", ("key_id",), "key_id check_mac added_at:ts"),
    _t(
        "ingest_queue",
        _BK,
        "bank_id id payload:json status attempts:int created_at:ts updated_at:ts result:json error",
    ),
    _t(
        "claims",
        _BK,
        "bank_id id claim_key slot_key subject attribute value negated:bool status "
        "review_status evidence_count:int evidence_refs:json contradiction_refs:json supersedes "
        "superseded_by first_evidence_at:ts last_evidence_at:ts created_at:ts updated_at:ts "
        "reviewed_at:ts reviewed_by review_note",
    ),
    _t("claim_units", ("bank_id", "claim_id", "unit_id"), "bank_id claim_id unit_id"),
    _t(
        "review_events",
        ("seq",),
        "seq:int bank_id id target_kind target_id decision actor note at:ts prior_status "
        "prior_review_status new_status new_review_status metadata:json",
    ),
    _t(
        "tombstones",
        _BK,
        "bank_id id content_key claim_key unit_id text reason actor at:ts lifted_at:ts "
        "lifted_by evidence:json",
    ),
    _t(
        "conflicts",
        _BK,
        "bank_id id kind pair_key a_unit b_unit a_claim b_claim status resolution winner "
        "scope_a scope_b question created_at:ts resolved_at:ts resolved_by note",
    ),
    _t(
        "adopted_rules",
        _BK,
        "bank_id id kind attribute decision text precedents:int adopted_by adopted_at:ts "
        "retired_at:ts",
    ),
)

SPECS += (
    _t(
        "reconsolidation",
        _BK,
        "bank_id id belief_id reason status created_at:ts done_at:ts report:json",
    ),
    _t(
        "sweep_proposals",
        _BK,
        "bank_id id unit_id belief_id verdict reason evidence:json confidence:float status "
        "created_at:ts decided_at:ts decided_by",
    ),
    # A bank's category vocabulary (ADR 0056).
    _t("categories", _BK, "bank_id id name aliases:json minted_from made_by created_at:ts"),
)

BY_NAME: dict[str, Table] = {t.name: t for t in SPECS}

#: Every table of a store, in import order.
TABLES: tuple[str, ...] = tuple(t.name for t in SPECS)


def spec(table: str) -> Table:
    """The portable form of one table.

    Raises:
        KeyError: not a table of a mneme store.
    """
    try:
        return BY_NAME[table]
    except KeyError:
        raise KeyError(f"{table!r} is not a table of a mneme store") from None
