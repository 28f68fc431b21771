"""The batch encoder of the default embedder: all-MiniLM-L6-v2 on OpenVINO.

Writes embed their atoms in batches. OpenVINO runs the graph the query path exports (mean
pooling and L2 normalization inside it, ADR 0016). On a CPU with native bfloat16 (AMX or
AVX512-BF16) its matrix products run in bfloat16: 1,001 LoCoMo sentences/s on one core, against
614/s for torch under bfloat16 autocast, and as close to the float32 vectors (cosine >= 0.9999,
mean 0.99998, the same as autocast's: ADR 0015's bar for keeping the model identity; ADR 0023).
On a CPU without it the graph runs in float32: 331-373 LoCoMo sentences/s on two AVX2 cores
against torch float32's 208-244, cosine to torch's vectors >= 0.9999998 (ADR 0038).
Where OpenVINO is missing, batches stay on torch.
"""

from __future__ import annotations

import threading
from pathlib import Path
from typing import Any

import numpy as np

from mneme.embed.onnx_query import exported_graph, tokenizer
from mneme.embed.protocol import Vectors
from mneme.errors import BackendUnavailable, InvalidInput

DIM = 384

#: ``precision`` values of the encoder.
PRECISIONS = ("auto", "bf16", "f32")


class OpenVinoBatchEncoder:
    """Encodes batches of texts on OpenVINO, in bfloat16 where the CPU has it; thread-safe.

    Texts are sorted by length and encoded ``batch_size`` at a time, each batch padded to its
    own longest text (as sentence-transformers does), so little work goes to padding.

    ``precision`` is "auto" (bfloat16 where the CPU reports native bfloat16, else float32),
    "bf16" (bfloat16 or nothing) or "f32"; ``self.precision`` is what was chosen.

    Raises BackendUnavailable from the constructor when openvino is missing, bfloat16 was
    required and the CPU has none, or the graph can be neither read nor exported.
    """

    def __init__(
        self,
        model_dir: Path,
        *,
        threads: int,
        batch_size: int,
        directory: Path | None = None,
        precision: str = "auto",
    ) -> None:
        if precision not in PRECISIONS:
            raise InvalidInput(
                f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"
            )
        try:
            import openvino as ov
        except ImportError as exc:
            raise BackendUnavailable(f"the OpenVINO batch path needs openvino: {exc}") from exc
        core = ov.Core()
        capabilities = core.get_property("CPU", "OPTIMIZATION_CAPABILITIES")
        if precision == "auto":
            precision = "bf16" if "BF16" in capabilities else "f32"
        if precision == "bf16" and "BF16" not in capabilities:
            raise BackendUnavailable(
                f"this CPU has no native bfloat16 (OpenVINO reports {', '.join(capabilities)})"
            )
        self.precision = precision
        config = {
            "INFERENCE_PRECISION_HINT": precision,
            "INFERENCE_NUM_THREADS": threads,
            "PERFORMANCE_HINT": "LATENCY",
        }
        path = exported_graph(model_dir, directory)
        try:
            compiled = core.compile_model(str(path), "CPU", config)
        except Exception:  # a cached file it cannot read: export again, once
            path = exported_graph(model_dir, directory, fresh=True)
            try:
                compiled = core.compile_model(str(path), "CPU", config)
            except Exception as exc:
                raise BackendUnavailable(f"OpenVINO cannot compile {path}: {exc}") from exc
        self.path = path
        self.batch_size = batch_size
        self._request: Any = compiled.create_infer_request()
        self._output = compiled.output(0)
        self._tokenizer = tokenizer(model_dir)
        self._lock = threading.Lock()

    def encode(self, texts: list[str]) -> Vectors:
        """Unit vectors of ``texts``, shape (len(texts), 384), float32, in input order."""
        out = np.empty((len(texts), DIM), dtype=np.float32)
        with self._lock:  # one infer request, and the Rust tokenizer is not shared mid-call
            encodings = self._tokenizer.encode_batch(texts)
            order = np.argsort([len(e.ids) for e in encodings], kind="stable")
            for start in range(0, len(texts), self.batch_size):
                batch = order[start : start + self.batch_size]
                width = max(len(encodings[i].ids) for i in batch)
                ids = np.zeros((len(batch), width), dtype=np.int64)
                mask = np.zeros((len(batch), width), dtype=np.int64)
                types = np.zeros((len(batch), width), dtype=np.int64)
                for row, i in enumerate(batch):
                    e = encodings[i]
                    ids[row, : len(e.ids)] = e.ids
                    mask[row, : len(e.ids)] = e.attention_mask
                    types[row, : len(e.ids)] = e.type_ids
                result = self._request.infer(
                    {"input_ids": ids, "attention_mask": mask, "token_type_ids": types}
                )
                out[batch] = result[self._output]
        return out
