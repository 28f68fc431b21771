"""Fuzz every route of the OpenAPI document with schemathesis: no input is a server error.

Bounded: about 200 generated requests in all, valid ones and invalid ones for every operation,
with an admin token for every bank (so requests get past the guard and reach validation and
``Memory``).
"""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
import schemathesis  # the dev extra installs it

import mneme
from mneme.surfaces.http import TokenStore, create_app

pytestmark = pytest.mark.slow

TOTAL_EXAMPLES = 200
TIME_BUDGET_S = 90


def test_no_generated_request_is_a_server_error(mem: mneme.Memory, tmp_path: Path) -> None:
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis.errors import Unsatisfiable
    from schemathesis.checks import not_a_server_error

    mem.retain("Alice lives in Paris.", bank="team", agent="scout")
    mem.retain("Alice lives in Berlin.", bank="team", agent="critic")
    tokens = TokenStore(tmp_path / "tokens.json")
    secret, _ = tokens.create(bank="*", agent="fuzzer", role="admin")
    app = create_app(mem, tokens)
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    operations = []
    for result in schema.get_all_operations():
        if isinstance(result, schemathesis.core.result.Err):
            raise result.err()  # the document itself is invalid
        operations.append(result.ok())
    assert len(operations) >= 25
    modes = (schemathesis.GenerationMode.POSITIVE, schemathesis.GenerationMode.NEGATIVE)
    per_run = max(2, TOTAL_EXAMPLES // (len(operations) * len(modes)))
    headers = {"Authorization": f"Bearer {secret}"}
    started = time.monotonic()
    failures: list[str] = []

    runs = [(op, mode) for op in operations for mode in modes]
    for operation, mode in runs:

        @given(case=operation.as_strategy(generation_mode=mode))
        @settings(
            max_examples=per_run,
            deadline=None,
            database=None,
            phases=[Phase.explicit, Phase.generate],
            suppress_health_check=list(HealthCheck),
        )
        def fuzz(case: Any) -> None:
            response = case.call(headers=headers)
            if response.status_code >= 500:
                failures.append(
                    f"{case.method} {case.formatted_path} -> {response.status_code}: "
                    f"{response.text[:300]}"
                )
            case.validate_response(response, checks=[not_a_server_error])

        try:
            fuzz()
        except Unsatisfiable:
            pass  # nothing to make invalid (e.g. /healthz has no parameters)
        except AssertionError:
            pass  # recorded in failures; keep fuzzing the other operations
        except Exception as exc:  # schemathesis raises its own failure types
            if not failures:
                failures.append(f"{operation.label}: {type(exc).__name__}: {exc}")
        assert time.monotonic() - started < TIME_BUDGET_S, "the fuzzing run overran its budget"
    assert not failures, "\n".join(failures[:20])
