"""The committed client and the HTTP API never drift apart: mneme/client/api.py is what the
generator writes from the app's OpenAPI document today, and every operation has its method."""

from __future__ import annotations

import inspect
import json
from pathlib import Path
from typing import Any

import pytest

from mneme.client import AsyncMnemeClient, MnemeClient
from mneme.client.generate import (
    API_FILE,
    COMMAND,
    GenerationError,
    main,
    openapi_document,
    operation_name,
    render,
)


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    return openapi_document()


def test_the_committed_client_is_what_the_api_document_generates(document: dict[str, Any]) -> None:
    committed = API_FILE.read_text("utf-8")
    assert render(document) == committed, (
        f"{API_FILE.name} is out of date with the HTTP API: run `{COMMAND}` and commit it"
    )


def test_every_operation_of_the_document_is_a_method_of_both_clients(
    document: dict[str, Any],
) -> None:
    seen = 0
    for path, item in document["paths"].items():
        for method, operation in item.items():
            name = operation_name(operation["operationId"], method, path)
            wire = {p["name"] for p in operation.get("parameters", ())}
            body = operation.get("requestBody", {}).get("content", {}).get("application/json")
            if body:
                component = body["schema"]["$ref"].rsplit("/", 1)[-1]
                wire |= set(document["components"]["schemas"][component]["properties"])
            for client, is_async in ((MnemeClient, False), (AsyncMnemeClient, True)):
                where = f"{client.__name__}.{name} for {method.upper()} {path}"
                function = getattr(client, name, None)
                assert function is not None, f"no {where}"
                assert inspect.iscoroutinefunction(function) is is_async, where
                parameters = set(inspect.signature(function).parameters) - {"self"}
                assert parameters == wire, where
                assert f"``{method.upper()} {path}``" in (function.__doc__ or ""), where
            seen += 1
    assert seen >= 35


SMALL = {
    "openapi": "3.1.0",
    "info": {"title": "small", "version": "1"},
    "paths": {
        "/v1/things/{thing_id}": {
            "get": {
                "operationId": "get_thing_v1_things__thing_id__get",
                "summary": "One thing",
                "parameters": [
                    {"name": "thing_id", "in": "path", "required": True, "schema": {}},
                    {"name": "x-trace", "in": "header", "schema": {"type": "string"}},
                ],
                "responses": {
                    "200": {
                        "content": {
                            "application/json": {
                                "schema": {
                                    "type": "object",
                                    "required": ["from"],
                                    "properties": {
                                        "from": {"type": "string"},
                                        "size": {"type": "integer"},
                                    },
                                }
                            }
                        }
                    }
                },
            }
        }
    },
}


def test_a_declared_answer_becomes_a_typed_dict_that_runs(tmp_path: Path) -> None:
    source = render(SMALL)
    assert "class MnemeClient(SyncWire):" in source
    assert '"from": str,' in source  # a keyword as a key: the functional TypedDict
    assert '"size": NotRequired[int],' in source
    assert "def get_thing(\n        self,\n        thing_id: Any,\n    ) -> GetThingResult:" in (
        source
    )
    namespace: dict[str, Any] = {}
    exec(compile(source, "small.py", "exec"), namespace)
    assert namespace["GetThingResult"].__required_keys__ == frozenset({"from"})


def test_two_routes_that_would_be_one_method_are_refused() -> None:
    twice = json.loads(json.dumps(SMALL))
    twice["paths"]["/v2/things/{thing_id}"] = {
        "get": {**twice["paths"]["/v1/things/{thing_id}"]["get"], "operationId": "get_thing"}
    }
    with pytest.raises(GenerationError, match=r"would both be the method get_thing\(\)"):
        render(twice)


def test_check_names_the_command_when_the_file_is_stale(tmp_path: Path) -> None:
    doc = tmp_path / "openapi.json"
    doc.write_text(json.dumps(SMALL), encoding="utf-8")
    out = tmp_path / "api.py"
    out.write_text("# an older client\n", encoding="utf-8")
    with pytest.raises(SystemExit, match=f"out of date with the HTTP API: run `{COMMAND}`"):
        main(["--check", "--document", str(doc), "--output", str(out)])
    main(["--document", str(doc), "--output", str(out)])
    assert out.read_text("utf-8") == render(SMALL)
    main(["--check", "--document", str(doc), "--output", str(out)])  # up to date: no exit
