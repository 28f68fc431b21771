"""Any system, scored through a command: one JSON case on stdin, one prediction on stdout.

The command is run once per case (``shlex``-split, no shell). It reads the case exactly as it
is in the dataset (the JSON object of ``schema.json``) and prints one JSON object:
``{"answer": str, "citations": [event ids], "contradictions": [[event ids], ...]}``, optionally
``"unsupported": [features it could not apply]`` and ``"notes": [str]``. A non-zero exit, a
timeout or output that is not such an object scores the case 0 and is reported in the notes.
"""

from __future__ import annotations

import json
import shlex
import subprocess
from collections.abc import Sequence

from bench.behaviour.adapters import SYSTEM
from bench.behaviour.model import Case, CaseError, Prediction, prediction_from_json


class CommandAdapter:
    label = SYSTEM

    def __init__(
        self, command: str | Sequence[str], *, name: str = "command", timeout: float = 60.0
    ):
        self.argv = shlex.split(command) if isinstance(command, str) else list(command)
        if not self.argv:
            raise ValueError("the command adapter needs a command")
        self.name = name
        self.timeout = timeout

    def predict(self, case: Case) -> Prediction:
        try:
            done = subprocess.run(
                self.argv,
                input=json.dumps(dict(case.raw)),
                capture_output=True,
                text=True,
                timeout=self.timeout,
                check=False,
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return _failed(f"command failed: {exc}")
        if done.returncode != 0:
            return _failed(f"exit {done.returncode}: {done.stderr.strip()[-400:]}")
        try:
            return prediction_from_json(json.loads(done.stdout))
        except (json.JSONDecodeError, CaseError) as exc:
            return _failed(f"bad prediction on stdout: {exc}")

    def close(self) -> None:
        pass


def _failed(why: str) -> Prediction:
    return Prediction(answer="", unsupported=("command-failed",), notes=(why,))
