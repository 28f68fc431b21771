"""Write ``mneme/client/api.py`` from the HTTP API's OpenAPI document.

    python -m mneme.client.generate           # rewrite src/mneme/client/api.py
    python -m mneme.client.generate --check   # exit 1 when the file is out of date

The document is ``create_app(...).openapi()`` over a throwaway store in a temporary directory:
no server, no network. ``render(document)`` is pure and deterministic: the same document gives
the same bytes, already in ruff's format (every bracket that holds more than one item is
exploded with a trailing comma, which ruff keeps), so the drift test can compare the committed
file with a fresh rendering without running a formatter.

What it writes (ADR 0050):

- a ``Literal`` alias for each enum, a ``TypedDict`` for each object schema a response or a
  parameter names (required keys plain, the others ``NotRequired``), and ``JsonObject`` for
  an answer whose schema the document leaves open;
- ``MnemeClient`` and ``AsyncMnemeClient``: one method per operation, named after the route's
  function (the ``operationId`` without the suffix FastAPI adds); path parameters positional,
  query parameters and body fields keyword-only, with the document's types and defaults.

This module imports the app to read its document; the client it writes imports only
``mneme.client.wire`` (httpx and ``mneme.errors``): see ``tests/repo/test_layers.py``.
"""

from __future__ import annotations

import argparse
import json
import keyword
import re
import sys
import tempfile
import textwrap
from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

API_FILE = Path(__file__).with_name("api.py")
COMMAND = "python -m mneme.client.generate"
WIDTH = 100
_METHODS = ("get", "put", "post", "delete", "patch")
_PLACES = ("path", "query")
_OK = ("200", "201", "202", "203")
#: Names the generated module defines or imports: no schema may take them.
_RESERVED = {
    "Any",
    "AsyncMnemeClient",
    "AsyncWire",
    "JsonObject",
    "Literal",
    "Mapping",
    "MnemeClient",
    "NotRequired",
    "Sequence",
    "SyncWire",
    "TypedDict",
    "cast",
}
_SCALARS = {"string": "str", "integer": "int", "number": "float", "boolean": "bool", "null": "None"}


class GenerationError(Exception):
    """The document holds something the generator cannot write a client for."""


def openapi_document() -> dict[str, Any]:
    """The OpenAPI document of ``mneme.surfaces.http.create_app``, built on a throwaway store."""
    from mneme.embed.hashing import HashingEmbedder
    from mneme.memory import Memory
    from mneme.surfaces.http import TokenStore, create_app

    with tempfile.TemporaryDirectory(prefix="mneme-openapi-") as tmp:
        memory = Memory.open(str(Path(tmp) / "openapi.db"), embedder=HashingEmbedder(), env={})
        try:
            return create_app(memory, TokenStore(Path(tmp) / "tokens.json")).openapi()
        finally:
            memory.close()


# -- names -----------------------------------------------------------------------------------


def _pascal(name: str) -> str:
    return "".join(part[:1].upper() + part[1:] for part in re.split(r"[^A-Za-z0-9]+", name))


def _snake(name: str) -> str:
    name = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name)
    return re.sub(r"[^A-Za-z0-9]+", "_", name).strip("_").lower()


def _python_name(name: str) -> str:
    snake = _snake(name) or "value"
    if snake[0].isdigit():
        snake = f"n_{snake}"
    return f"{snake}_" if keyword.iskeyword(snake) else snake


def _singular(name: str) -> str:
    return name[:-1] if len(name) > 3 and name.endswith("s") and not name.endswith("ss") else name


def operation_name(operation_id: str, method: str, path: str) -> str:
    """The route function's name: FastAPI's operationId is it plus ``_<path>_<method>``."""
    suffix = re.sub(r"\W", "_", path) + "_" + method.lower()
    base = operation_id.removesuffix(suffix) if operation_id.endswith(suffix) else operation_id
    return _python_name(base or operation_id)


# -- text ------------------------------------------------------------------------------------


def _doc_text(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"""', '\\"\\"\\"')


def _wrap(text: str, indent: int, first: str = "", rest: str = "") -> list[str]:
    """``text`` as lines of at most WIDTH characters at ``indent`` spaces (paragraphs kept)."""
    lines: list[str] = []
    for paragraph in re.split(r"\n\s*\n", text.strip()):
        flat = " ".join(paragraph.split())
        if not flat:
            continue
        if lines:
            lines.append("")
        lines += textwrap.wrap(
            _doc_text(flat),
            width=WIDTH - indent,
            initial_indent=first,
            subsequent_indent=rest,
            break_on_hyphens=False,
            break_long_words=False,
        )
    return [(" " * indent + line) if line else "" for line in lines]


def _docstring(summary: str, body: Sequence[str], indent: int) -> list[str]:
    """A docstring: the summary on the opening line, then ``body`` (already indented)."""
    pad = " " * indent
    head = " ".join(summary.split()) or "No summary."
    if head[-1] not in ".!?:":
        head += "."
    if head.endswith('"'):
        head += " "
    first = _wrap(head, indent, first='"""')
    if not body and len(first) == 1 and len(first[0]) + 3 <= WIDTH:
        return [first[0] + '"""']
    return [*first, "", *body, f'{pad}"""'] if body else [*first, f'{pad}"""']


def _literal(value: Any) -> str:
    if isinstance(value, bool) or value is None:
        return repr(value)
    if isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, int | float):
        return repr(value)
    raise GenerationError(f"cannot write {value!r} as a Python literal")


# -- types -----------------------------------------------------------------------------------


@dataclass
class _Types:
    """The aliases and TypedDicts the operations need, in the order they are first named."""

    components: Mapping[str, Any]
    literals: dict[str, tuple[Any, ...]] = field(default_factory=dict)
    literal_names: dict[tuple[Any, ...], str] = field(default_factory=dict)
    dicts: dict[str, list[str]] = field(default_factory=dict)
    dict_names: dict[str, str] = field(default_factory=dict)  # wanted -> given
    building: set[str] = field(default_factory=set)
    used: set[str] = field(default_factory=set)

    def _free(self, *candidates: str) -> str:
        taken = _RESERVED | set(self.literals) | set(self.dicts) | self.building
        for name in candidates:
            if name and name not in taken:
                return name
        n = 2
        while f"{candidates[-1]}{n}" in taken:
            n += 1
        return f"{candidates[-1]}{n}"

    def literal(self, values: Sequence[Any], hint: str, context: str) -> str:
        key = tuple(values)
        if key not in self.literal_names:
            name = self._free(_pascal(hint), _pascal(context) + _pascal(hint))
            self.literals[name] = key
            self.literal_names[key] = name
        self.used.add("Literal")
        return self.literal_names[key]

    def of(self, schema: Mapping[str, Any], hint: str, context: str, *, param: bool) -> str:
        """The Python type of ``schema``; ``param``: as an argument (Sequence, Mapping)."""
        if "$ref" in schema:
            return self._ref(str(schema["$ref"]), param=param)
        for key in ("anyOf", "oneOf"):
            if key in schema:
                return self._union([self.of(s, hint, context, param=param) for s in schema[key]])
        if "allOf" in schema and len(schema["allOf"]) == 1:
            return self.of(schema["allOf"][0], hint, context, param=param)
        if "const" in schema:
            return self.literal([schema["const"]], hint, context)
        if "enum" in schema:
            return self.literal(schema["enum"], hint, context)
        kind = schema.get("type")
        if isinstance(kind, list):
            return self._union(
                [self.of({**schema, "type": k}, hint, context, param=param) for k in kind]
            )
        if kind in _SCALARS:
            return _SCALARS[kind]
        if kind == "array":
            item = self.of(schema.get("items") or {}, _singular(hint), context, param=param)
            if param:
                self.used.add("Sequence")
            return f"Sequence[{item}]" if param else f"list[{item}]"
        if kind == "object" or "properties" in schema:
            return self._object(schema, hint, context, param=param)
        self.used.add("Any")
        return "Any"

    def _union(self, parts: list[str]) -> str:
        unique = list(dict.fromkeys(parts))
        if "Any" in unique:
            return "Any"
        return " | ".join(
            [p for p in unique if p != "None"] + (["None"] if "None" in unique else [])
        )

    def _ref(self, ref: str, *, param: bool) -> str:
        name = ref.rsplit("/", 1)[-1]
        if name not in self.components:
            raise GenerationError(f"{ref} is not in components/schemas")
        target = self.components[name]
        if target.get("properties"):
            return self.typed_dict(name, target)
        return self.of(target, name, name, param=param)

    def _object(self, schema: Mapping[str, Any], hint: str, context: str, *, param: bool) -> str:
        if schema.get("properties"):
            return self.typed_dict(_pascal(context) + _pascal(hint), schema)
        extra = schema.get("additionalProperties")
        names = schema.get("propertyNames") or {}
        key = self.of(names, f"{hint}_key", context, param=param) if names else "str"
        if isinstance(extra, Mapping) and extra:
            value = self.of(extra, f"{hint}_value", context, param=param)
        else:
            self.used.add("Any")
            value = "Any"
        if param:
            self.used.add("Mapping")
        return f"Mapping[{key}, {value}]" if param else f"dict[{key}, {value}]"

    def typed_dict(self, wanted: str, schema: Mapping[str, Any]) -> str:
        """A TypedDict for an object schema, written after the types its fields name."""
        if wanted in self.dict_names:
            return self.dict_names[wanted]
        name = self._free(_pascal(wanted))
        self.dict_names[wanted] = name
        self.building.add(name)
        required = set(schema.get("required", ()))
        fields: list[tuple[str, str, str]] = []
        for key, sub in schema["properties"].items():
            hint = self.of(sub, key, name, param=False)
            if key not in required:
                self.used.add("NotRequired")
                hint = f"NotRequired[{hint}]"
            fields.append((key, hint, str(sub.get("description", ""))))
        self.building.discard(name)
        self.used.add("TypedDict")
        self.dicts[name] = _typed_dict_source(name, str(schema.get("description", "")), fields)
        return name

    def alias_lines(self) -> list[str]:
        lines: list[str] = []
        for name, values in self.literals.items():
            one = f"{name} = Literal[{', '.join(_literal(v) for v in values)}]"
            if len(one) <= WIDTH:
                lines.append(one)
            else:
                lines += [f"{name} = Literal[", *(f"    {_literal(v)}," for v in values), "]"]
        return lines


def _typed_dict_source(
    name: str, description: str, fields: list[tuple[str, str, str]]
) -> list[str]:
    if all(k.isidentifier() and not keyword.iskeyword(k) for k, _, _ in fields):
        lines = [f"class {name}(TypedDict):"]
        lines += _docstring(description or f"The {name} object.", [], 4)
        lines.append("")
        for key, hint, text in fields:
            if text:
                lines += _wrap(text, 4, first="#: ", rest="#: ")
            lines.append(f"    {key}: {hint}")
        return lines
    # A key that is no Python name (or a keyword): the functional form takes any string.
    lines = [f"{name} = TypedDict(", f"    {json.dumps(name)},", "    {"]
    lines += [f"        {json.dumps(key)}: {hint}," for key, hint, _ in fields]
    return [*lines, "    },", ")"]


# -- operations ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Param:
    name: str  # in Python
    wire: str  # on the wire
    place: str  # path, query or body
    type: str
    required: bool
    default: str | None  # a Python literal, or None: the argument defaults to None
    description: str


@dataclass(frozen=True)
class Operation:
    name: str
    method: str
    path: str
    summary: str
    description: str
    params: tuple[Param, ...]
    has_body: bool
    returns: str


def _param(
    types: _Types, wire: str, schema: Mapping[str, Any], place: str, required: bool, context: str
) -> Param:
    hint = types.of(schema, wire, context, param=True)
    default = None
    if not required:
        value = schema.get("default")
        if value is not None and not isinstance(value, list | dict):
            default = _literal(value)
        elif not hint.endswith("| None") and hint not in ("None", "Any"):
            hint = f"{hint} | None"
    return Param(
        name=_python_name(wire),
        wire=wire,
        place=place,
        type=hint,
        required=required,
        default=default,
        description=str(schema.get("description", "")),
    )


def _body_params(
    types: _Types, operation: Mapping[str, Any], context: str
) -> tuple[list[Param], bool]:
    content = (operation.get("requestBody") or {}).get("content") or {}
    if not content:
        return [], False
    if "application/json" not in content:
        raise GenerationError(f"{context}: only JSON bodies are supported, not {list(content)}")
    schema = content["application/json"].get("schema") or {}
    if "$ref" in schema:
        schema = types.components[str(schema["$ref"]).rsplit("/", 1)[-1]]
    properties = schema.get("properties")
    if not properties:
        raise GenerationError(f"{context}: a body that is not an object with properties")
    required = set(schema.get("required", ()))
    params = [
        _param(types, key, sub, "body", key in required, context) for key, sub in properties.items()
    ]
    return params, True


def _returns(types: _Types, operation: Mapping[str, Any], name: str) -> str:
    responses = operation.get("responses") or {}
    for status in _OK:
        content = (responses.get(status) or {}).get("content") or {}
        schema = (content.get("application/json") or {}).get("schema")
        if schema:
            return types.of(schema, "result", name, param=False)
        if content:
            break
    return "JsonObject"


def operations(document: Mapping[str, Any], types: _Types) -> list[Operation]:
    """Every operation of the document, in its order, with its parameters typed."""
    found: list[Operation] = []
    names: dict[str, str] = {}
    for path, item in document.get("paths", {}).items():
        shared = item.get("parameters", [])
        for method in (m for m in item if m in _METHODS):
            op = item[method]
            where = f"{method.upper()} {path}"
            name = operation_name(str(op.get("operationId") or where), method, path)
            if name in names:
                raise GenerationError(
                    f"{where} and {names[name]} would both be the method {name}(): give one "
                    "route another function name (or an operation_id)"
                )
            names[name] = where
            params: list[Param] = []
            for p in [*shared, *op.get("parameters", [])]:
                if p.get("in") not in _PLACES:
                    continue  # headers and cookies: the client sets its own
                params.append(
                    _param(
                        types,
                        p["name"],
                        p.get("schema") or {},
                        p["in"],
                        bool(p.get("required")) or p["in"] == "path",
                        name,
                    )
                )
            body, has_body = _body_params(types, op, name)
            params += body
            clash = sorted({p.name for p in params if [q.name for q in params].count(p.name) > 1})
            if clash:
                raise GenerationError(f"{where}: parameters named twice: {clash}")
            found.append(
                Operation(
                    name=name,
                    method=method.upper(),
                    path=path,
                    summary=str(op.get("summary", "")),
                    description=str(op.get("description", "")),
                    params=tuple(params),
                    has_body=has_body,
                    returns=_returns(types, op, name),
                )
            )
    return found


def _signature(op: Operation, is_async: bool) -> list[str]:
    # In the order the path names them: get_memory(bank, memory_id), whatever the route's own.
    positional = sorted(
        (p for p in op.params if p.place == "path"), key=lambda p: op.path.index(f"{{{p.wire}}}")
    )
    keyword_only = [p for p in op.params if p.place != "path"]
    keyword_only.sort(key=lambda p: not p.required)  # stable: the document's order otherwise
    head = f"    {'async ' if is_async else ''}def {op.name}("
    if not op.params:
        return [f"{head}self) -> {op.returns}:"]
    lines = [head, "        self,"]
    lines += [f"        {p.name}: {p.type}," for p in positional]
    if keyword_only:
        lines.append("        *,")
    for p in keyword_only:
        default = "" if p.required else f" = {p.default or 'None'}"
        lines.append(f"        {p.name}: {p.type}{default},")
    return [*lines, f"    ) -> {op.returns}:"]


def _method_doc(op: Operation) -> list[str]:
    body: list[str] = []
    if op.description:
        body += _wrap(op.description, 8)
    described = [p for p in op.params if p.description]
    if described:
        body += ["", "        Args:"] if body else ["        Args:"]
        for p in described:
            body += _wrap(p.description, 12, first=f"{p.name}: ", rest="    ")
    body += (
        ["", f"        ``{op.method} {op.path}``"]
        if body
        else [f"        ``{op.method} {op.path}``"]
    )
    return _docstring(op.summary or op.name, body, 8)


def _call(op: Operation, is_async: bool) -> list[str]:
    lines = [
        "        return cast(",
        f"            {op.returns},",
        f"            {'await ' if is_async else ''}self._call(",
        f"                {json.dumps(op.method)},",
        f"                {json.dumps(op.path)},",
    ]
    for place in ("path", "query", "body"):
        members = [p for p in op.params if p.place == place]
        if place == "body" and op.has_body and not members:
            lines.append("                body={},")
        if not members:
            continue
        lines.append(f"                {place}={{")
        lines += [f"                    {json.dumps(p.wire)}: {p.name}," for p in members]
        lines.append("                },")
    return [*lines, "            ),", "        )"]


def _client(ops: Sequence[Operation], is_async: bool, title: str) -> list[str]:
    name, base = ("AsyncMnemeClient", "AsyncWire") if is_async else ("MnemeClient", "SyncWire")
    how = (
        "Use it as an async context manager, or ``await aclose()`` it."
        if is_async
        else "Use it as a context manager, or ``close()`` it."
    )
    doc = _wrap(
        f"``{name}(base_url, token=..., timeout=..., transport=..., http=...)``. Each method "
        f"is one operation of the API; an error answer raises its ``mneme.client.ApiError`` (also "
        f"the ``mneme.errors`` class of the failure: NotFound, InvalidInput, Refused...). {how}",
        4,
    )
    lines = [f"class {name}({base}):"]
    lines += _docstring(
        f"The {'asynchronous' if is_async else 'synchronous'} client of {title}.", doc, 4
    )
    for op in ops:
        lines += ["", *_signature(op, is_async), *_method_doc(op), *_call(op, is_async)]
    return lines


def render(document: Mapping[str, Any]) -> str:
    """The source of ``mneme/client/api.py`` for an OpenAPI document."""
    types = _Types(components=document.get("components", {}).get("schemas", {}))
    ops = operations(document, types)
    title = str(document.get("info", {}).get("title", "the API"))
    typing_names = {"Any", "cast"} | (types.used & {"Literal", "NotRequired", "TypedDict"})
    abc_names = sorted(types.used & {"Mapping", "Sequence"})
    lines = [
        '"""The HTTP API as Python, written from its OpenAPI document: do not edit by hand.',
        "",
        f"Regenerate it after the API changes: ``{COMMAND}``. The drift test",
        "(tests/e2e/client/test_client_drift.py) fails until then.",
        '"""',
        "",
        "from __future__ import annotations",
        "",
    ]
    if abc_names:
        lines.append(f"from collections.abc import {', '.join(abc_names)}")
    lines += [
        f"from typing import {', '.join(sorted(typing_names, key=lambda n: (n.islower(), n)))}",
        "",
        "from mneme.client.wire import AsyncWire, SyncWire",
        "",
        "#: An answer whose shape the OpenAPI document does not declare (yet): a JSON object.",
        "JsonObject = dict[str, Any]",
    ]
    aliases = types.alias_lines()
    if aliases:
        lines += ["", *aliases]
    for source in types.dicts.values():
        lines += ["", "", *source]
    for is_async in (False, True):
        lines += ["", "", *_client(ops, is_async, title)]
    return "\n".join(lines) + "\n"


def _main_lines(argv: Sequence[str] | None) -> Iterator[str]:
    parser = argparse.ArgumentParser(prog=COMMAND, description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 if the file is stale")
    parser.add_argument("--output", type=Path, default=API_FILE, help="where to write")
    parser.add_argument("--document", type=Path, help="an OpenAPI JSON file instead of the app")
    args = parser.parse_args(argv)
    document = json.loads(args.document.read_text("utf-8")) if args.document else openapi_document()
    source = render(document)
    current = args.output.read_text("utf-8") if args.output.exists() else None
    if args.check:
        if current != source:
            raise SystemExit(f"{args.output} is out of date with the HTTP API: run `{COMMAND}`")
        yield f"{args.output} is up to date"
        return
    if current == source:
        yield f"{args.output} is up to date"
        return
    args.output.write_text(source, encoding="utf-8")
    yield f"wrote {args.output}"


def main(argv: Sequence[str] | None = None) -> None:
    for line in _main_lines(argv):
        print(line, file=sys.stderr)


if __name__ == "__main__":
    main()
