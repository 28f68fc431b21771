"""`mneme reflect` and `mneme insights run` with the LLM paths switched on in the config file
(ADR 0058) and the model unreachable: the offline result, and the reason, in the output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from click.testing import CliRunner
from tests.integration.llm.llm_servers import serve

from mneme.surfaces.cli.main import cli


def mneme(db: Path, *args: str, config: Path | None = None) -> Any:
    env = {"MNEME_DB": None, "MNEME_EMBEDDER": None, "MNEME_CONFIG": str(config or "")}
    runner = CliRunner(env=env)
    return runner.invoke(cli, ["--db", str(db), "--embedder", "hashing", *args])


def test_reflect_and_insights_say_why_they_fell_back_offline(tmp_path: Path) -> None:
    db = tmp_path / "cli.db"
    assert mneme(db, "banks", "create", "b").exit_code == 0
    for text in ("Oliver likes hiking.", "Oliver likes painting.", "Oliver lives in Lisbon."):
        assert mneme(db, "add", text, "--bank", "b", "--agent", "a1").exit_code == 0
    with serve() as gone:
        url = gone.base_url
    config = tmp_path / "config.toml"
    config.write_text(
        "reflect_llm = true\nreflect_llm_max_calls = 1\ninsights_llm = true\n\n[[llm]]\n"
        f'provider = "openai"\nmodel = "m"\nbase_url = "{url}/v1"\napi_key_env = ""\n'
        "timeout = 1.0\nmax_retries = 0\n",
        encoding="utf-8",
    )
    shown = mneme(db, "reflect", "--bank", "b", config=config)
    assert shown.exit_code == 0, shown.output
    assert "composed offline" in shown.output
    assert "LLMUnavailable" in shown.output
    assert "1 deferred by the cap" in shown.output  # two groups, one call
    report = json.loads(mneme(db, "insights", "run", "--bank", "b", "--json", config=config).output)
    assert "LLMUnavailable" in report["categorized"]["naming_fallback"]
    assert report["categorized"]["tagged"] == 3
