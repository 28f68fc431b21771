"""Value sets every surface spells out in its schemas, written once.

They are ``Literal`` types, not the core's enums, so that a schema (OpenAPI, an MCP tool's
input schema) is static; a test checks each against the enum it spells.
"""

from __future__ import annotations

from typing import Literal

#: ``UnitType``'s values.
MemoryType = Literal[
    "fact",
    "preference",
    "skill",
    "goal",
    "opinion",
    "experience",
    "achievement",
    "action",
    "belief",
    "insight",
    "rule",
]
#: ``Scope``'s values a caller may ask for.
Scope = Literal["personal", "collective"]
