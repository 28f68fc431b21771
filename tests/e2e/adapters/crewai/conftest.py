"""CrewAI's tests run in a virtual environment of their own (ADR 0049, amendment): no CrewAI
release installs beside the main venv's pins. ``make test`` runs this folder with
``.venv-crewai/bin/python`` after the main suite; where ``crewai`` is not importable (the main
venv), the folder is not collected at all rather than skipped test by test."""

from __future__ import annotations

import importlib.util
import os

import pytest

collect_ignore_glob = [] if importlib.util.find_spec("crewai") else ["test_*.py"]

if not collect_ignore_glob:
    # CrewAI's telemetry and tracing stay off: the tests make no network call.
    os.environ.setdefault("CREWAI_DISABLE_TELEMETRY", "true")
    os.environ.setdefault("OTEL_SDK_DISABLED", "true")
    os.environ.setdefault("CREWAI_TRACING_ENABLED", "false")


def pytest_configure(config: pytest.Config) -> None:
    # CrewAI's lazy ``crewai.rag`` module refuses the attribute the import system sets for a
    # child module; the ImportWarning is CrewAI's, not ours (filterwarnings = error).
    config.addinivalue_line(
        "filterwarnings", "ignore:Cannot set an attribute on 'crewai:ImportWarning"
    )
