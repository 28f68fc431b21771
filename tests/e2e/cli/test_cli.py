"""The `mneme` command line: output shapes, --json everywhere, exit codes, import and demo.

Most tests run in process through click's CliRunner with the fast hashing embedder; a few run
the installed `mneme` script, because the process boundary (exit status, which stream gets
what) is the thing under test there.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import click
import pytest
from click.testing import CliRunner, Result

from mneme.surfaces.cli.main import EXIT_CODES, cli

MNEME = Path(sys.executable).with_name("mneme")
DOCS = Path(__file__).resolve().parents[3] / "docs" / "cli.md"

Run = Callable[..., Result]


@pytest.fixture
def db(tmp_path: Path) -> str:
    return str(tmp_path / "cli.db")


@pytest.fixture
def run(db: str) -> Run:
    """Run `mneme --db <tmp> --embedder hashing ARGS...` in process."""

    def invoke(*args: str, input: str | None = None, db_arg: str | None = None) -> Result:
        runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
        argv = ["--db", db_arg or db, "--embedder", "hashing", *args]
        return runner.invoke(cli, argv, input=input, catch_exceptions=False)

    # The bank most tests use, made as a user makes one (a typo never makes a bank).
    assert invoke("banks", "create", "b").exit_code == 0
    return invoke


def as_json(result: Result) -> Any:
    return json.loads(result.stdout)


def add(run: Run, text: str, *extra: str) -> dict[str, Any]:
    result = run("add", text, "--bank", "b", "--agent", "alice", "--json", *extra)
    assert result.exit_code == 0, result.output
    data: dict[str, Any] = as_json(result)
    return data


def leaf_commands(group: click.Group, prefix: tuple[str, ...] = ()) -> Iterator[tuple[str, ...]]:
    for name, command in sorted(group.commands.items()):
        if isinstance(command, click.Group):
            yield from leaf_commands(command, (*prefix, name))
        else:
            yield (*prefix, name)


# -- add and search -----------------------------------------------------------------------


def test_add_then_search_returns_hits_with_evidence_and_channels(run: Run) -> None:
    added = add(
        run,
        "Alice: I moved to Lisbon in March 2023.",
        "--source-id",
        "chat-1",
        "--occurred-at",
        "2023-05-08T13:56:00Z",
        "--session",
        "s1",
    )
    assert added["status"] == "ok"
    assert added["source_id"] == "chat-1"
    assert added["memory_ids"]
    assert {d["verdict"] for d in added["decisions"]} == {"ADD"}

    result = run(
        "search",
        "Where did Alice move?",
        "--bank",
        "b",
        "--agent",
        "alice",
        "--json",
        "--detail",
        "full",
    )
    assert result.exit_code == 0, result.output
    data = as_json(result)
    assert data["query"] == "Where did Alice move?"
    assert isinstance(data["latency_ms"], float)
    top = data["hits"][0]
    assert top["rank"] == 1
    assert top["id"] == top["unit"]["id"]
    assert "Lisbon" in top["text"]
    assert top["evidence_source_ids"] == ["chat-1"]
    assert set(top["channels"]) <= {"semantic", "lexical", "graph", "temporal"}
    assert all(isinstance(rank, int) for rank in top["channels"].values())
    for flag in ("superseded", "successor", "flashback", "conflicts", "origin"):
        assert flag in top
    assert top["unit"]["occurred_start"].startswith("2023-03-01")


def test_search_text_output_shows_score_evidence_and_channels(run: Run) -> None:
    add(run, "Bob plays the cello every Thursday.", "--source-id", "ev-9")
    result = run("search", "cello", "--bank", "b", "--agent", "alice")
    assert result.exit_code == 0
    assert "Bob plays the cello" in result.stdout
    assert "evidence: ev-9" in result.stdout
    assert "lexical #" in result.stdout
    assert result.stderr == ""


def test_add_reads_text_from_stdin(run: Run) -> None:
    result = run(
        "add",
        "-",
        "--bank",
        "b",
        "--agent",
        "alice",
        "--json",
        input="Carol adopted a beagle named Biscuit.\n",
    )
    assert result.exit_code == 0, result.output
    unit = as_json(run("show", as_json(result)["memory_ids"][0], "--json"))["memory"]
    assert unit["text"].endswith("Biscuit.")


def test_search_filters_pass_through(run: Run) -> None:
    add(run, "Dan started a job at Greenleaf in June 2024.", "--occurred-at", "2024-06-03")
    result = run(
        "search",
        "job",
        "--bank",
        "b",
        "--agent",
        "alice",
        "--scope",
        "collective",
        "-k",
        "3",
        "--from",
        "2024-01-01",
        "--to",
        "2024-12-31",
        "--as-of",
        "2025-01-01",
        "--type",
        "experience",
        "--type",
        "fact",
        "--no-superseded",
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert len(as_json(result)["hits"]) <= 3


def test_show_history_graph_and_list_describe_a_stored_memory(run: Run) -> None:
    added = add(run, "Erin loves Thai green curry.", "--source-id", "src-1")
    uid = added["memory_ids"][0]

    shown = as_json(run("show", uid, "--json"))
    assert shown["kind"] == "memory"
    assert shown["memory"]["evidence"] == ["src-1"]
    source = as_json(run("show", "src-1", "--bank", "b", "--json"))
    assert source["kind"] == "source"
    assert source["source"]["text"] == "Erin loves Thai green curry."

    events = as_json(run("history", uid, "--json"))["events"]
    assert events
    assert events[0]["kind"]

    view = as_json(run("graph", uid, "--depth", "2", "--json"))
    assert view["center"] == uid
    assert uid in view["units"]

    listed = as_json(run("list", "--bank", "b", "--limit", "5", "--json"))
    assert uid in [u["id"] for u in listed["memories"]]

    text = run("show", uid)
    assert "Erin loves Thai green curry." in text.stdout
    assert "evidence src-1" in text.stdout


# -- --json on every command --------------------------------------------------------------


def _args_for(command: tuple[str, ...], uid: str, jsonl: Path) -> list[str]:
    bank_agent = ["--bank", "b", "--agent", "alice"]
    return {
        ("add",): ["add", "Frank has a red bike.", *bank_agent],
        ("search",): ["search", "bike", *bank_agent],
        ("context",): ["context", "bike", *bank_agent],
        ("show",): ["show", uid],
        ("history",): ["history", uid],
        ("graph",): ["graph", uid],
        ("list",): ["list", "--bank", "b"],
        ("import",): ["import", str(jsonl), *bank_agent],
        ("review", "worklist"): ["review", "worklist", "--bank", "b"],
        ("banks",): ["banks"],
        ("health",): ["health"],
        ("watch",): ["watch", "--interval", "0", "--max-passes", "1"],
        ("banks", "list"): ["banks", "list"],
        ("banks", "create"): ["banks", "create", "c"],
        ("agents",): ["agents", "--bank", "b"],
        ("reembed",): ["reembed"],
        ("db", "migrate"): ["db", "migrate"],
        ("db", "version"): ["db", "version"],
        ("db", "compact"): ["db", "compact"],
        ("audit", "verify"): ["audit", "verify"],
        ("audit", "anchor"): ["audit", "anchor"],
        ("stats",): ["stats"],
        ("sensitive",): ["sensitive", "--bank", "b", "--set", "email=redact"],
        ("demo",): ["demo"],
        ("review", "queue"): ["review", "queue", "--bank", "b"],
        ("review", "decide"): [
            "review",
            "decide",
            uid,
            "reject",
            "--actor",
            "rev1",
            "--note",
            "wrong",
        ],
        ("conflicts", "list"): ["conflicts", "list", "--bank", "b"],
        ("conflicts", "resolve"): ["conflicts", "resolve", "cfl_none", "reject", "--actor", "r"],
        ("reject",): ["reject", uid, "--reason", "wrong", "--actor", "rev1"],
        ("restore",): ["restore", uid, "--actor", "rev1"],
        ("resolve-contradiction",): [
            "resolve-contradiction",
            uid,
            "u_none",
            "confirm",
            "--actor",
            "rev1",
        ],
        ("rules",): ["rules"],
        ("adopt-rule",): [
            "adopt-rule",
            "--bank",
            "b",
            "--kind",
            "value",
            "--decision",
            "confirm",
            "--actor",
            "rev1",
        ],
        ("invalidate",): ["invalidate", uid, "--until", "2030-01-01", "--actor", "rev1"],
        ("purge",): ["purge", uid, "--actor", "dpo", "--reason", "erasure", "--yes"],
        ("reconsolidate",): ["reconsolidate"],
        ("reflect",): ["reflect", "--bank", "b"],
        ("insights", "run"): ["insights", "run", "--bank", "b"],
        ("insights", "list"): ["insights", "list", "--bank", "b"],
        ("insights", "verify"): ["insights", "verify", "--bank", "b"],
        ("insights", "categories"): ["insights", "categories", "--bank", "b"],
        ("proposals", "list"): ["proposals", "list", "--bank", "b"],
        ("proposals", "decide"): ["proposals", "decide", "prop_none", "accept", "--actor", "r"],
        ("serve",): ["serve", "--get", "/healthz"],
        ("setup",): ["setup"],
        ("token", "create"): [
            "token",
            "create",
            "--bank",
            "b",
            "--agent",
            "a",
            "--tokens",
            str(jsonl.with_name("t.json")),
        ],
        ("token", "list"): ["token", "list", "--tokens", str(jsonl.with_name("t.json"))],
        ("token", "revoke"): [
            "token",
            "revoke",
            "tok_none",
            "--tokens",
            str(jsonl.with_name("t.json")),
        ],
        ("db", "copy"): [
            "db",
            "copy",
            str(jsonl.with_name("src.db")),
            str(jsonl.with_name("dst.db")),
        ],
        ("backup",): ["backup", str(jsonl.with_name("backup.db"))],
        ("export",): ["export", str(jsonl.with_name("store.mneme.gz"))],
        ("config", "get"): ["config", "--file", str(jsonl.with_name("c.toml")), "get", "recall"],
        ("config", "set"): [
            "config",
            "--file",
            str(jsonl.with_name("c.toml")),
            "set",
            "max_atoms",
            "9",
        ],
        ("config", "edit"): [
            "config",
            "--file",
            str(jsonl.with_name("c.toml")),
            "edit",
            "--editor",
            "true",
        ],
        ("config", "path"): ["config", "path"],
        ("config", "apply"): ["config", "apply", "--wait", "0"],
    }[command]


#: Commands whose stdout is a protocol stream, not a document: `mcp` speaks JSON-RPC there.
PROTOCOL_ON_STDOUT = {("mcp",)}


#: Commands whose success needs state this test does not build (a conflict, precedents, a
#: proposal): they must still answer in JSON on stdout, as an error object.
ANSWERS_WITH_AN_ERROR = {
    ("conflicts", "resolve"),
    ("resolve-contradiction",),
    ("adopt-rule",),
    ("proposals", "decide"),
    ("restore",),
    ("token", "revoke"),
    ("config", "apply"),  # no server runs on the test's store
}


ALL_COMMANDS = sorted(leaf_commands(cli))


@pytest.mark.parametrize(
    "command", [c for c in ALL_COMMANDS if c not in PROTOCOL_ON_STDOUT], ids=" ".join
)
@pytest.mark.parametrize("placement", ["subcommand", "root"])
def test_every_command_prints_json_on_stdout(
    run: Run, tmp_path: Path, command: tuple[str, ...], placement: str
) -> None:
    uid = add(run, "Grace keeps bees in her garden.")["memory_ids"][0]
    jsonl = tmp_path / "in.jsonl"
    jsonl.write_text(json.dumps({"text": "Heidi flies gliders."}) + "\n")
    jsonl.with_name("c.toml").write_text("# the config commands' file\n")
    args = _args_for(command, uid, jsonl)
    args = [*args, "--json"] if placement == "subcommand" else ["--json", *args]
    result = run(*args)
    data = json.loads(result.stdout)
    assert isinstance(data, dict)
    if command in ANSWERS_WITH_AN_ERROR:
        assert result.exit_code in (3, 4), result.output
        assert set(data) == {"error"}
        return
    assert result.exit_code == 0, result.output
    assert "error" not in data


def test_json_errors_are_an_object_on_stdout(run: Run) -> None:
    result = run("show", "u_nothing_here", "--json")
    assert result.exit_code == 3
    assert as_json(result) == {
        "error": {"code": "not_found", "message": "no memory or source 'u_nothing_here'"}
    }
    assert result.stderr == ""


# -- exit codes ---------------------------------------------------------------------------


def test_help_documents_every_exit_code() -> None:
    result = CliRunner().invoke(cli, ["--help"])
    assert result.exit_code == 0
    for code in EXIT_CODES:
        assert f"  {code}  " in result.stdout


@pytest.mark.parametrize(
    ("args", "code"),
    [
        (["add", "", "--bank", "b", "--agent", "a"], "invalid_input"),
        (["add", "   ", "--bank", "b", "--agent", "a"], "invalid_input"),
        (
            ["add", "x", "--bank", "b", "--agent", "a", "--occurred-at", "not a time"],
            "invalid_input",
        ),
        (
            ["search", "x", "--bank", "b", "--agent", "a", "--from", "yesterday-ish"],
            "invalid_input",
        ),
        (["add", "x", "--bank", "b", "--agent", "a", "--trust", "7"], "invalid_input"),
        (["add", "x", "--bank", "bad bank!", "--agent", "a"], "invalid_input"),
        (["add", "x", "--bank", "b"], "usage_error"),
        (["search", "x", "--bank", "b", "--agent", "a", "-k", "0"], "usage_error"),
        (["no-such-command"], "usage_error"),
    ],
)
def test_bad_input_exits_2(run: Run, args: list[str], code: str) -> None:
    text = run(*args)
    assert text.exit_code == 2
    assert text.stdout == ""
    assert text.stderr.strip()
    assert "Traceback" not in text.output
    result = run(*args, "--json")
    assert result.exit_code == 2
    assert as_json(result)["error"]["code"] == code


def test_unknown_id_exits_3(run: Run) -> None:
    add(run, "Ivan writes haiku.")
    for args in (["show", "u_missing"], ["history", "u_missing"], ["graph", "u_missing"]):
        result = run(*args)
        assert result.exit_code == 3
        assert result.stderr.startswith("error: no memory")


def test_a_file_that_is_not_sqlite_exits_4(run: Run, tmp_path: Path) -> None:
    garbage = tmp_path / "garbage.db"
    garbage.write_bytes(b"\x00\x01not a database at all" * 64)
    result = run("banks", "--json", db_arg=str(garbage))
    assert result.exit_code == 4
    assert as_json(result)["error"]["code"] == "schema_mismatch"
    assert garbage.read_bytes().startswith(b"\x00\x01not a database")  # untouched


def test_a_store_that_cannot_be_created_exits_5(run: Run, tmp_path: Path) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    for target in (tmp_path, blocker / "sub" / "x.db"):  # a directory; a parent that is a file
        result = run("stats", "--json", db_arg=str(target))
        assert result.exit_code == 5, result.output
        assert as_json(result)["error"]["code"] == "backend_unavailable"


def test_a_reused_source_id_with_other_text_exits_4(run: Run) -> None:
    add(run, "Judy likes jazz.", "--source-id", "same")
    result = run(
        "add", "Judy likes opera.", "--bank", "b", "--agent", "alice", "--source-id", "same"
    )
    assert result.exit_code == 4
    assert result.stderr.startswith("error: ")


def test_audit_verify_exits_1_and_names_the_broken_record(run: Run, db: str) -> None:
    add(run, "Ken runs marathons.")
    ok = run("audit", "verify", "--json")
    assert ok.exit_code == 0
    assert as_json(ok)["ok"] is True
    with sqlite3.connect(db) as conn:
        seq = conn.execute("SELECT min(seq) FROM audit_log").fetchone()[0]
        conn.execute("UPDATE audit_log SET reason = 'forged' WHERE seq = ?", (seq,))
    broken = run("audit", "verify", "--bank", "b", "--json")
    assert broken.exit_code == 1
    data = as_json(broken)
    assert data["ok"] is False
    assert data["banks"]["b"]["first_bad_seq"] == seq
    assert f"record {seq}" in data["error"]["message"]
    text = run("audit", "verify")
    assert text.exit_code == 1
    assert f"record {seq}" in text.stderr
    # A bank that cannot exist, or does not, is an error, never a clean bill of health.
    assert run("audit", "verify", "--bank", "../x").exit_code == 2
    assert run("audit", "verify", "--bank", "nope").exit_code not in (0, 1)


def test_db_commands_report_the_schema_version(run: Run) -> None:
    version = as_json(run("db", "version", "--json"))["version"]
    assert version >= 1
    migrated = run("db", "migrate")
    assert migrated.exit_code == 0
    assert f"up to date (schema version {version})" in migrated.stdout


def test_banks_agents_stats_and_reembed(run: Run) -> None:
    add(run, "Leo grows tomatoes.")
    assert [b["id"] for b in as_json(run("banks", "--json"))["banks"]] == ["b"]
    roster = as_json(run("agents", "--bank", "b", "--json"))
    assert [a["id"] for a in roster["live"]] == ["alice"]
    assert roster["hidden_stale"] == 0
    stats = as_json(run("stats", "--json"))
    assert stats["units"] >= 1
    assert stats["embeddings_by_model"]
    assert as_json(run("reembed", "--bank", "b", "--json"))["reembedded"] == 0


def test_reflect_writes_observations_once_and_reports_them(run: Run) -> None:
    add(run, "Oliver likes hiking.")
    add(run, "Oliver likes painting.")
    first = as_json(run("reflect", "--bank", "b", "--json"))
    assert len(first["created"]) == 1  # the topic has the entity's evidence: one observation
    assert first["disposition"]["skepticism"] == 2
    again = as_json(run("reflect", "--bank", "b", "--json"))
    assert again["created"] == []
    assert again["unchanged"] == 1
    thin = run("reflect", "--bank", "b", "--skepticism", "3")
    assert thin.exit_code == 0, thin.output
    assert "1 retired" in thin.stdout
    assert run("reflect", "--bank", "nobody").exit_code == 3


# -- import -------------------------------------------------------------------------------


def _jsonl(path: Path, rows: list[Any]) -> Path:
    path.write_text("".join((r if isinstance(r, str) else json.dumps(r)) + "\n" for r in rows))
    return path


def test_import_jsonl_then_search_cites_its_source_ids(run: Run, tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "chat.jsonl",
        [
            {
                "text": "I moved to Bristol last month.",
                "speaker": "Tom",
                "source_id": "t-1",
                "occurred_at": "2024-03-10T12:00:00Z",
                "session": "s1",
            },
            {
                "text": "The orchestra rehearses on Thursdays.",
                "source_id": "t-2",
                "metadata": {"lang": "en"},
            },
            "",
            {"text": "Maya prefers tea over coffee.", "agent": "maya", "source_id": "t-3"},
        ],
    )
    result = run(
        "import", str(path), "--bank", "b", "--agent", "importer", "--batch", "2", "--json"
    )
    assert result.exit_code == 0, result.output
    summary = as_json(result)
    assert summary["imported"] == 3
    assert summary["format"] == "jsonl"
    assert summary["banks"] == ["b"]
    assert result.stderr == ""  # no progress bar off a terminal

    hits = as_json(run("search", "Bristol", "--bank", "b", "--agent", "importer", "--json"))
    top = hits["hits"][0]
    assert top["text"].startswith("Tom: ")
    assert top["source_ids"] == ["t-1"]
    source = as_json(run("show", "t-3", "--json"))["source"]
    assert source["agent_id"] == "maya"


def test_a_malformed_jsonl_line_is_named_and_nothing_from_it_on_is_written(
    run: Run, tmp_path: Path
) -> None:
    rows: list[Any] = [
        {"text": f"Fact number {i} about the garden.", "source_id": f"g-{i}"} for i in range(1, 4)
    ]
    rows += ["{not json", {"text": "After the bad line.", "source_id": "g-5"}]
    path = _jsonl(tmp_path / "bad.jsonl", rows)
    result = run("import", str(path), "--bank", "b", "--agent", "a", "--batch", "2", "--json")
    assert result.exit_code == 2
    error = as_json(result)["error"]
    assert error["code"] == "invalid_input"
    assert error["at"] == "line 4"
    assert error["imported"] == 3
    assert "line 4" in error["message"]
    assert "not valid JSON" in error["message"]
    assert run("show", "g-3", "--json").exit_code == 0
    assert run("show", "g-5", "--json").exit_code == 3

    # Running it again is safe: the lines already imported are recognised by their source ids.
    text = run("import", str(path), "--bank", "b", "--agent", "a")
    assert text.exit_code == 2, text.output
    assert text.stderr.startswith("error: line 4: ")


def test_an_invalid_item_mid_batch_keeps_the_lines_before_it(run: Run, tmp_path: Path) -> None:
    path = _jsonl(
        tmp_path / "bad-time.jsonl",
        [
            {"text": "Quinn paints murals.", "source_id": "q-1"},
            {"text": "Quinn lives in Porto.", "source_id": "q-2"},
            {"text": "Quinn bought a boat.", "source_id": "q-3", "occurred_at": "last blursday"},
            {"text": "Quinn sold the boat.", "source_id": "q-4"},
        ],
    )
    result = run("import", str(path), "--bank", "b", "--agent", "a", "--batch", "10", "--json")
    assert result.exit_code == 2
    error = as_json(result)["error"]
    assert (error["at"], error["imported"]) == ("line 3", 2)
    assert "occurred_at" in error["message"]
    assert run("show", "q-2", "--json").exit_code == 0
    assert run("show", "q-3", "--json").exit_code == 3
    assert run("show", "q-4", "--json").exit_code == 3


def test_a_bad_item_in_a_later_batch_keeps_every_batch_and_line_before_it(
    run: Run, tmp_path: Path
) -> None:
    """The import streams its batches (the next one embeds while the current one is
    written): a bad item three batches in still keeps everything before it, and nothing after."""
    rows: list[Any] = [
        {"text": f"Rook {i} nests in the elm.", "source_id": f"r-{i}"} for i in range(1, 9)
    ]
    rows[5]["occurred_at"] = "last blursday"
    path = _jsonl(tmp_path / "late.jsonl", rows)
    result = run("import", str(path), "--bank", "b", "--agent", "a", "--batch", "2", "--json")
    assert result.exit_code == 2
    error = as_json(result)["error"]
    assert (error["at"], error["imported"]) == ("line 6", 5)
    assert [run("show", f"r-{i}", "--json").exit_code for i in range(1, 9)] == [0] * 5 + [3] * 3


def test_a_failed_batch_names_itself_and_keeps_the_batches_before_it(
    run: Run, tmp_path: Path
) -> None:
    first = _jsonl(tmp_path / "first.jsonl", [{"text": "Wren sings.", "source_id": "w-3"}])
    assert run("import", str(first), "--bank", "b", "--agent", "a").exit_code == 0
    rows = [{"text": f"Wren {i} sings at dawn.", "source_id": f"w-{i}"} for i in range(1, 7)]
    path = _jsonl(tmp_path / "clash.jsonl", rows)
    result = run("import", str(path), "--bank", "b", "--agent", "a", "--batch", "2", "--json")
    assert result.exit_code != 0
    error = as_json(result)["error"]
    assert (error["at"], error["imported"]) == ("line 3", 2)
    assert "already used in bank b for other content" in error["message"]
    assert [run("show", f"w-{i}", "--json").exit_code for i in (1, 2, 4, 5)] == [0, 0, 3, 3]


def test_jsonl_with_unknown_keys_is_refused(run: Run, tmp_path: Path) -> None:
    path = _jsonl(tmp_path / "typo.jsonl", [{"text": "x y z", "ocurred_at": "2024-01-01"}])
    result = run("import", str(path), "--bank", "b", "--agent", "a")
    assert result.exit_code == 2
    assert "ocurred_at" in result.stderr


def locomo_sample() -> dict[str, Any]:
    """A LoCoMo-style conversation: two sessions, five turns, one photo."""
    return {
        "sample_id": "conv-t1",
        "conversation": {
            "speaker_a": "Rosa",
            "speaker_b": "Sam",
            "session_1_date_time": "1:56 pm on 8 May, 2023",
            "session_1": [
                {"speaker": "Rosa", "dia_id": "D1:1", "text": "I adopted a greyhound!"},
                {"speaker": "Sam", "dia_id": "D1:2", "text": "What is the dog called?"},
                {
                    "speaker": "Rosa",
                    "dia_id": "D1:3",
                    "text": "His name is Pepper.",
                    "blip_caption": "a photo of a grey dog on a sofa",
                    "img_url": ["x"],
                },
            ],
            "session_2_date_time": "7:05 pm on 2 June, 2023",
            "session_2": [
                {"speaker": "Sam", "dia_id": "D2:1", "text": "I started learning the violin."},
                {"speaker": "Rosa", "dia_id": "D2:2", "text": "Pepper hates the violin."},
            ],
            "session_3_date_time": "9:00 am on 1 July, 2023",  # a date without a session
        },
        "qa": [],
    }


def test_import_locomo_then_search_cites_sample_and_dia_ids(run: Run, tmp_path: Path) -> None:
    path = tmp_path / "locomo.json"
    path.write_text(json.dumps([locomo_sample()]))
    result = run("import", str(path), "--agent", "bench", "--json")
    assert result.exit_code == 0, result.output
    summary = as_json(result)
    assert (summary["format"], summary["imported"], summary["banks"]) == ("locomo", 5, ["conv-t1"])

    hits = as_json(
        run("search", "violin lessons", "--bank", "conv-t1", "--agent", "bench", "--json")
    )["hits"]
    assert "conv-t1:D2:1" in {e for h in hits for e in h["source_ids"]}

    photo = as_json(run("show", "conv-t1:D1:3", "--json"))["source"]
    assert photo["text"] == (
        "Rosa: His name is Pepper. [shares a photo: a photo of a grey dog on a sofa]"
    )
    assert photo["occurred_at"] == "2023-05-08T13:56:00+00:00"
    assert photo["session_id"] == "conv-t1:session_1"
    later = as_json(run("show", "conv-t1:D2:2", "--json"))["source"]
    assert later["occurred_at"] == "2023-06-02T19:05:00+00:00"


def test_import_locomo_one_sample_into_a_chosen_bank(run: Run, tmp_path: Path) -> None:
    other = locomo_sample() | {"sample_id": "conv-t2"}
    path = tmp_path / "two.json"
    path.write_text(json.dumps([locomo_sample(), other]))
    result = run(
        "import",
        str(path),
        "--agent",
        "a",
        "--sample",
        "conv-t2",
        "--bank",
        "mine",
        "--format",
        "locomo",
        "--json",
    )
    assert result.exit_code == 0, result.output
    assert as_json(result)["banks"] == ["mine"]
    assert run("show", "conv-t1:D1:1", "--json").exit_code == 3
    missing = run("import", str(path), "--agent", "a", "--sample", "conv-zz")
    assert missing.exit_code == 3
    assert "conv-t1, conv-t2" in missing.stderr


# -- demo ---------------------------------------------------------------------------------


def test_demo_answers_questions_with_evidence_ids(run: Run, tmp_path: Path) -> None:
    store = tmp_path / "demo.db"
    result = run("demo", "--db", str(store))
    assert result.exit_code == 0, result.output
    assert "Q: What is Maya's new job?" in result.stdout
    assert "evidence demo:S" in result.stdout
    assert "channels " in result.stdout
    assert " ms, " in result.stdout
    assert store.exists()
    data = as_json(run("demo", "--db", str(store), "--json"))
    assert len(data["answers"]) >= 6
    for answer in data["answers"]:
        assert len(answer["hits"]) == 3
        assert answer["latency_ms"] > 0
        assert all(h["evidence_source_ids"] and h["channels"] for h in answer["hits"])


def test_context_prints_a_cited_block_within_its_budget(run: Run) -> None:
    add(run, "Alice lives in Berlin.", "--source-id", "ev-1", "--occurred-at", "2024-01-01")
    add(run, "Alice moved to Munich.", "--source-id", "ev-2", "--occurred-at", "2024-03-01")
    shown = run("context", "Where does Alice live now?", "--bank", "b", "--agent", "alice")
    assert shown.exit_code == 0, shown.output
    lines = shown.stdout.splitlines()
    assert lines[1].endswith("Alice moved to Munich. [ev-2]")  # newest first: about now
    assert "superseded; now [ev-2]" in shown.stdout
    assert "tokens" in shown.stderr
    block = as_json(
        run("context", "Alice", "--bank", "b", "--agent", "alice", "--max-tokens", "20", "--json")
    )
    assert block["tokens"] <= 20
    assert block["omitted"] >= 1
    for bad in ("0", "1000000000"):
        refused = run("context", "Alice", "--bank", "b", "--agent", "alice", "--max-tokens", bad)
        assert refused.exit_code == 2
        assert "max-tokens" in refused.output


def test_the_sample_conversation_is_packaged_and_well_formed() -> None:
    from importlib import resources

    text = resources.files("mneme.data").joinpath("sample_conversation.jsonl").read_text()
    rows = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert 35 <= len(rows) <= 50
    assert {r["speaker"] for r in rows} == {"Maya", "Tom"}
    assert len({r["session"] for r in rows}) == 6
    assert len({r["source_id"] for r in rows}) == len(rows)


# -- docs ---------------------------------------------------------------------------------


@pytest.mark.parametrize("command", ALL_COMMANDS, ids=" ".join)
def test_every_command_has_help_text_and_a_docs_entry(command: tuple[str, ...]) -> None:
    node: click.Command = cli
    for name in command:
        assert isinstance(node, click.Group)
        node = node.commands[name]
        assert (node.help or "").strip(), f"{name} has no help text"
        for param in node.params:
            if isinstance(param, click.Option):
                assert param.help, f"{' '.join(command)} {param.opts[0]} has no help text"
    docs = DOCS.read_text()
    assert f"mneme {' '.join(command)}" in docs


def test_docs_list_every_exit_code() -> None:
    docs = DOCS.read_text()
    for code in EXIT_CODES:
        assert f"| {code} |" in docs


# -- the installed script: exit status and stream separation ------------------------------


def _script(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in ("MNEME_DB", "MNEME_EMBEDDER")}
    return subprocess.run(
        [str(MNEME), "--embedder", "hashing", *args],
        input=stdin,
        capture_output=True,
        text=True,
        env=env,
        timeout=120,
        check=False,
    )


def test_script_keeps_json_on_stdout_and_errors_in_their_stream(tmp_path: Path) -> None:
    db = str(tmp_path / "proc.db")
    ok = _script(
        "--db",
        db,
        "add",
        "-",
        "--bank",
        "b",
        "--create-bank",
        "--agent",
        "a",
        "--json",
        stdin="Uma collects stamps.\n",
    )
    assert ok.returncode == 0, ok.stderr
    assert json.loads(ok.stdout)["status"] == "ok"
    assert ok.stderr == ""

    missing_json = _script("--db", db, "--json", "show", "u_nope")
    assert missing_json.returncode == 3
    assert json.loads(missing_json.stdout)["error"]["code"] == "not_found"
    assert missing_json.stderr == ""

    missing_text = _script("--db", db, "show", "u_nope")
    assert missing_text.returncode == 3
    assert missing_text.stdout == ""
    assert missing_text.stderr == "error: no memory or source 'u_nope'\n"


def test_script_exit_codes_for_usage_schema_and_backend_errors(tmp_path: Path) -> None:
    garbage = tmp_path / "junk.db"
    garbage.write_bytes(b"garbage bytes, not SQLite" * 10)
    cases = [
        (["--db", str(tmp_path / "u.db"), "add", "--bank", "b"], 2),
        (["--db", str(tmp_path / "u.db"), "add", "", "--bank", "b", "--agent", "a"], 2),
        (["--db", str(garbage), "stats"], 4),
        (["--db", str(tmp_path), "stats"], 5),
    ]
    for args, code in cases:
        proc = _script(*args)
        assert proc.returncode == code, (args, proc.stderr)
        assert proc.stdout == ""
        assert "Traceback" not in proc.stderr
        assert proc.stderr.strip()


# -- the real default embedder ------------------------------------------------------------


@pytest.mark.slow
def test_add_and_search_with_the_default_embedder(tmp_path: Path) -> None:
    runner = CliRunner(env={"MNEME_DB": None, "MNEME_EMBEDDER": None})
    db = str(tmp_path / "real.db")
    added = runner.invoke(
        cli,
        [
            "--db",
            db,
            "add",
            "Vera moved to Oslo to work as a nurse.",
            "--bank",
            "b",
            "--create-bank",
            "--agent",
            "a",
            "--source-id",
            "v-1",
            "--json",
        ],
    )
    assert added.exit_code == 0, added.output
    found = runner.invoke(
        cli,
        [
            "--db",
            db,
            "search",
            "Which city does Vera live in?",
            "--bank",
            "b",
            "--agent",
            "a",
            "--json",
            "--detail",
            "full",
        ],
    )
    assert found.exit_code == 0, found.output
    hits = json.loads(found.stdout)["hits"]
    assert hits[0]["evidence_source_ids"] == ["v-1"]
    assert hits[0]["unit"]["embedding_model"] == "sentence-transformers/all-MiniLM-L6-v2"
    assert "semantic" in hits[0]["channels"]


# -- relevance ------------------------------------------------------------------------------

OFFICE = [
    "Quentin keeps the spare badge in drawer D-41.",
    "Quentin keeps his bike in the shed.",
    "The spare keys are with the front desk.",
    "Rosa painted the badge office blue.",
]
BADGE = "Where does Quentin keep the spare badge?"


def test_search_min_relevance_keeps_only_the_hits_at_or_above_it(run: Run) -> None:
    for i, text in enumerate(OFFICE):
        add(run, text, "--source-id", f"ev-{i}")
    every = as_json(run("search", BADGE, "--bank", "b", "--agent", "alice", "--json"))["hits"]
    assert all(0.0 <= h["relevance"] <= 1.0 for h in every)
    top, second = sorted({h["relevance"] for h in every}, reverse=True)[:2]
    bar = (top + second) / 2
    result = run(
        "search", BADGE, "--bank", "b", "--agent", "alice", "--min-relevance", str(bar), "--json"
    )
    assert result.exit_code == 0, result.output
    kept = as_json(result)["hits"]
    assert [h["id"] for h in kept] == [h["id"] for h in every if h["relevance"] >= bar]
    assert [h["source_ids"] for h in kept] == [["ev-0"]]
    shown = run("search", BADGE, "--bank", "b", "--agent", "alice", "--min-relevance", str(bar))
    assert f"relevance {kept[0]['relevance']:.2f}" in shown.stdout
    assert shown.stdout.count("relevance ") == 1


@pytest.mark.parametrize("bad", ["1.5", "-0.2", "high"])
def test_search_refuses_a_min_relevance_outside_0_to_1(run: Run, bad: str) -> None:
    result = run("search", "x", "--bank", "b", "--agent", "a", "--min-relevance", bad, "--json")
    assert result.exit_code == 2
    assert as_json(result)["error"]["code"] == "usage_error"
    assert "min-relevance" in as_json(result)["error"]["message"]


def test_a_bank_is_made_explicitly_and_a_typo_is_an_error_naming_the_known_ones(run: Run) -> None:
    typo = run("add", "Ada likes chess.", "--bank", "bb", "--agent", "a", "--json")
    search = run("search", "chess", "--bank", "bb", "--agent", "a", "--json")
    assert typo.exit_code == search.exit_code == 3
    for result in (typo, search):
        error = json.loads(result.stdout)["error"]
        assert error["code"] == "not_found"
        assert "no bank 'bb'" in error["message"]
        assert "'b'" in error["message"]
    assert "bb" not in run("banks").stdout
    made = run("add", "Ada likes chess.", "--bank", "club", "--agent", "a", "--create-bank")
    assert made.exit_code == 0, made.output
    created = run("banks", "create", "lab", "--name", "The lab")
    again = run("banks", "create", "lab")
    assert (created.stdout.strip(), again.stdout.strip()) == ("created  lab", "exists  lab")
    listed = run("banks").stdout
    assert all(name in listed for name in ("b ", "club", "lab", "(The lab)"))
