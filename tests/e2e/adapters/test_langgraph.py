"""The LangGraph store (mneme.adapters.langgraph, ADR 0049): a real ``StateGraph`` compiled with
``store=MnemeStore(...)``, plain Python nodes, no LLM; values kept exact, deletes that retire,
scope kept, and namespaces it cannot map refused with nothing written."""

from __future__ import annotations

import asyncio
import math
from typing import Any

import pytest
from langgraph.graph import END, START, StateGraph
from langgraph.store.base import BaseStore, InvalidNamespaceError, PutOp
from typing_extensions import TypedDict

import mneme
from mneme.adapters.langgraph import MnemeStore, NamespaceNotMapped
from mneme.errors import InvalidInput


class State(TypedDict, total=False):
    user: str
    fact: str
    recalled: list[str]


def _counts(mem: mneme.Memory) -> tuple[int, int]:
    stats = mem.admin.stats()
    return stats.sources, stats.units


def test_a_graph_node_writes_and_another_reads_through_the_mneme_store(mem: mneme.Memory) -> None:
    def remember(state: State, *, store: BaseStore) -> State:
        store.put(("acme", state["user"], "facts"), "drink", {"text": state["fact"]})
        return {}

    def recall(state: State, *, store: BaseStore) -> State:
        items = store.search(("acme", state["user"]), query="what does she drink")
        return {"recalled": [i.value["text"] for i in items]}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_node("recall", recall)
    graph.add_edge(START, "remember")
    graph.add_edge("remember", "recall")
    graph.add_edge("recall", END)
    app = graph.compile(store=MnemeStore(mem))

    out = app.invoke({"user": "alice", "fact": "Alice drinks green tea every morning."})

    assert out["recalled"] == ["Alice drinks green tea every morning."]
    hits = mem.recall("green tea", bank="acme", agent="alice")
    assert hits[0].unit.text == "Alice drinks green tea every morning."


def test_the_async_graph_runs_on_the_store_s_abatch(mem: mneme.Memory) -> None:
    async def remember(state: State, *, store: BaseStore) -> State:
        await store.aput(("notes",), "n1", {"text": state["fact"]})
        item = await store.aget(("notes",), "n1")
        assert item is not None
        return {"recalled": [item.value["text"]]}

    graph = StateGraph(State)
    graph.add_node("remember", remember)
    graph.add_edge(START, "remember")
    app = graph.compile(store=MnemeStore(mem, bank="acme", agent="bot"))

    out = asyncio.run(app.ainvoke({"fact": "The release ships on Friday."}))

    assert out["recalled"] == ["The release ships on Friday."]


def test_get_returns_the_value_exactly_as_put_and_a_new_put_supersedes_the_old(
    mem: mneme.Memory,
) -> None:
    store = MnemeStore(mem, bank="acme", agent="bot")
    value: dict[str, Any] = {
        "text": "Ünïcode stays: 東京 in June.",
        "score": 4.5,
        "tags": ["a", "b"],
        "nested": {"deep": [1, {"x": None}], "flag": True},
    }
    store.put(("profile",), "k", value)
    first = store.get(("profile",), "k")
    assert first is not None
    assert first.value == value
    assert first.namespace == ("profile",)

    store.put(("profile",), "k", {"text": "Moved to Lisbon in May."})
    second = store.get(("profile",), "k")

    assert second is not None
    assert second.value == {"text": "Moved to Lisbon in May."}
    assert second.created_at == first.created_at
    old = [
        h
        for h in mem.recall("Tokyo June Ünïcode", bank="acme", agent="bot")
        if "東京" in h.unit.text
    ]
    assert old
    assert old[0].superseded


def test_delete_retires_the_item_and_erases_nothing(mem: mneme.Memory) -> None:
    store = MnemeStore(mem, bank="acme", agent="bot")
    store.put(("facts",), "car", {"text": "The car is parked on level 3."})
    unit = mem.recall("car parked", bank="acme", agent="bot")[0].unit

    store.delete(("facts",), "car")

    assert store.get(("facts",), "car") is None
    assert store.search(("facts",), query="car parked") == []
    assert store.search(("facts",)) == []
    kept = mem.get(unit.id)
    assert kept.text == "The car is parked on level 3."
    assert kept.valid_until is not None
    store.put(("facts",), "car", {"text": "The car is in the street."})
    again = store.get(("facts",), "car")
    assert again is not None
    assert again.value == {"text": "The car is in the street."}


def test_search_filters_pages_and_lists_namespaces(mem: mneme.Memory) -> None:
    store = MnemeStore(mem)
    for i in range(5):
        ns = ("acme", "bot", "docs", "even" if i % 2 == 0 else "odd")
        store.put(ns, f"d{i}", {"text": f"Document {i} is about topic {i}.", "n": i})

    big = store.search(("acme", "bot", "docs"), filter={"n": {"$gte": 3}})
    even = store.search(("acme", "bot", "docs", "even"), limit=2)
    exact = store.search(("acme", "bot"), filter={"n": 1})

    assert sorted(i.key for i in big) == ["d3", "d4"]
    assert len(even) == 2
    assert all(i.namespace[-1] == "even" for i in even)
    assert [i.key for i in exact] == ["d1"]
    assert store.list_namespaces(prefix=("acme", "bot")) == [
        ("acme", "bot", "docs", "even"),
        ("acme", "bot", "docs", "odd"),
    ]
    assert store.list_namespaces(prefix=("acme", "bot"), suffix=("odd",)) == [
        ("acme", "bot", "docs", "odd")
    ]
    assert store.list_namespaces(prefix=("acme", "bot"), max_depth=3) == [("acme", "bot", "docs")]


def test_one_agent_never_sees_another_agent_s_private_items(mem: mneme.Memory) -> None:
    bob = MnemeStore(mem, bank="acme", agent="bob", visibility="private")
    alice = MnemeStore(mem, bank="acme", agent="alice")
    bob.put(("secrets",), "pin", {"text": "Bob's locker code is 4417."})

    assert alice.get(("secrets",), "pin") is None
    assert alice.search(("secrets",), query="locker code") == []
    assert alice.list_namespaces() == []
    collective = mem.recall("locker code", bank="acme", agent="alice", scope="collective")
    assert all("4417" not in h.unit.text for h in collective)
    assert bob.search(("secrets",), query="locker code")[0].key == "pin"


def test_a_store_for_one_bank_never_reads_another(mem: mneme.Memory) -> None:
    MnemeStore(mem, bank="north", agent="bot").put(
        ("n",), "k", {"text": "North office opens at 8."}
    )
    south = MnemeStore(mem, bank="south", agent="bot")

    assert south.get(("n",), "k") is None
    assert south.search(("n",), query="office opens") == []


@pytest.mark.parametrize(
    "namespace",
    [("acme",), ("acme", "not an id!"), ("-acme", "bot"), ("acme", "x" * 200)],
)
def test_a_namespace_it_cannot_map_is_refused_and_nothing_is_written(
    mem: mneme.Memory, namespace: tuple[str, ...]
) -> None:
    store = MnemeStore(mem)
    before = _counts(mem)

    with pytest.raises(NamespaceNotMapped, match="namespace") as err:
        store.put(namespace, "k", {"text": "This must not be kept."})
    with pytest.raises(NamespaceNotMapped):
        store.search(namespace[:1] if len(namespace) > 1 else (), query="kept")

    assert isinstance(err.value, InvalidInput)
    assert isinstance(err.value, InvalidNamespaceError)
    assert _counts(mem) == before


def test_a_batch_with_one_bad_operation_runs_none_of_them(mem: mneme.Memory) -> None:
    store = MnemeStore(mem)
    before = _counts(mem)
    good = PutOp(("acme", "bot", "facts"), "ok", {"text": "The sky is blue today."})
    bad = PutOp(("acme",), "k", {"text": "No agent in this namespace."})

    with pytest.raises(NamespaceNotMapped):
        store.batch([good, bad])

    assert _counts(mem) == before
    assert store.get(("acme", "bot", "facts"), "ok") is None


@pytest.mark.parametrize(
    ("key", "value", "message"),
    [
        ("k", "just a string", "mapping"),
        ("k", {"text": math.nan}, "plain JSON"),
        ("k", {"text": {1, 2}}, "plain JSON"),
        ("k", {"pair": ("a", "b")}, "plain JSON"),
        ("k", {}, "no text"),
        ("k", {"text": "   "}, "no text"),
        (7, {"text": "A key must be a string."}, "key"),
    ],
)
def test_a_value_or_key_it_cannot_keep_is_refused_and_nothing_is_written(
    mem: mneme.Memory, key: Any, value: Any, message: str
) -> None:
    store = MnemeStore(mem, bank="acme", agent="bot")
    before = _counts(mem)

    with pytest.raises(InvalidInput, match=message):
        store.batch([PutOp(("facts",), key, value)])

    assert _counts(mem) == before


def test_a_ttl_is_refused_since_the_store_keeps_none(mem: mneme.Memory) -> None:
    store = MnemeStore(mem, bank="acme", agent="bot")

    with pytest.raises(NotImplementedError):
        store.put(("facts",), "k", {"text": "Expires soon."}, ttl=5)

    assert _counts(mem) == (0, 0)


def test_a_secret_the_bank_redacts_is_refused_whole_since_the_value_must_stay_exact(
    mem: mneme.Memory,
) -> None:
    store = MnemeStore(mem, bank="acme", agent="bot")
    store.put(("facts",), "ok", {"text": "The deploy runs at noon."})
    before = _counts(mem)

    with pytest.raises(InvalidInput, match="redacts"):
        store.put(
            ("facts",), "key", {"text": "The token is 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"}
        )

    assert _counts(mem) == before
    assert store.get(("facts",), "key") is None
    assert all("ghp_" not in u.text for u in mem.list_memories(bank="acme"))
