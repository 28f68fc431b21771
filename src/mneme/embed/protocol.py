"""The embedder contract: texts in, L2-normalized float32 vectors out, with a model identity."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

import numpy as np
import numpy.typing as npt

Vectors = npt.NDArray[np.float32]


class Embedder(Protocol):
    #: Stable identity stored with every vector, e.g. "sentence-transformers/all-MiniLM-L6-v2".
    #: Vectors of different model ids are never compared.
    model_id: str
    dim: int

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed texts in one batch: shape (len(texts), dim), float32, unit length rows.

        Raises:
            BackendUnavailable: the model or endpoint cannot be reached.
        """
        ...
