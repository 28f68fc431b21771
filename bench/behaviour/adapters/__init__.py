"""Adapters: one per system under test. Each turns a case into a prediction."""

from __future__ import annotations

from typing import Protocol

from bench.behaviour.model import Case, Prediction

SYSTEM = "system"
BASELINE = "reference_baseline_not_a_product"


class Adapter(Protocol):
    name: str
    label: str  # SYSTEM or BASELINE

    def predict(self, case: Case) -> Prediction: ...

    def close(self) -> None: ...
