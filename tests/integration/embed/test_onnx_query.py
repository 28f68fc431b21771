"""The default embedder's query path on ONNX Runtime: same vectors as torch, cached export."""

from __future__ import annotations

import dataclasses
import os
from pathlib import Path

import numpy as np
import pytest

from mneme import config
from mneme.embed import MiniLMEmbedder
from mneme.embed.factory import build_embedder
from mneme.embed.minilm import packaged_model_path
from mneme.embed.onnx_query import OnnxQueryEncoder, cache_dir, graph_path
from mneme.errors import BackendUnavailable, InvalidInput

QUERIES = [
    "What did Caroline research?",
    "Wann ist Melanie nach Lissabon gezogen? ünïcödé",
    "x",
    # Longer than the model's 256 word pieces: both paths truncate the same way.
    " ".join(f"token{i}" for i in range(400)),
]


@pytest.fixture(scope="module")
def shared_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("onnx-cache")


@pytest.fixture(scope="module")
def encoder(shared_cache: Path) -> OnnxQueryEncoder:
    return OnnxQueryEncoder(packaged_model_path(), threads=2, directory=shared_cache)


def test_onnx_queries_match_the_torch_vectors(encoder: OnnxQueryEncoder) -> None:
    torch_side = MiniLMEmbedder(query_backend="torch", precision="fp32")
    for text in QUERIES:
        fast = encoder.encode(text)
        exact = torch_side.embed_query(text)
        assert fast.shape == (384,)
        assert fast.dtype == np.float32
        assert float(fast @ exact) > 0.99999, text
        assert abs(float(np.linalg.norm(fast)) - 1.0) < 1e-5


def test_the_export_is_cached_and_reused(encoder: OnnxQueryEncoder, shared_cache: Path) -> None:
    assert encoder.path.parent == shared_cache
    assert encoder.path.exists()
    stamp = encoder.path.stat().st_mtime_ns
    again = OnnxQueryEncoder(packaged_model_path(), threads=1, directory=shared_cache)
    assert again.path == encoder.path
    assert encoder.path.stat().st_mtime_ns == stamp  # read, not exported again
    assert [p.name for p in shared_cache.iterdir()] == [encoder.path.name]  # no temp files left


def test_a_corrupt_cache_file_is_exported_again(tmp_path: Path) -> None:
    path = graph_path(packaged_model_path(), tmp_path)
    path.write_bytes(b"not an onnx graph")
    enc = OnnxQueryEncoder(packaged_model_path(), threads=1, directory=tmp_path)
    assert path.stat().st_size > 1_000_000
    assert enc.encode("still works").shape == (384,)


def test_an_unusable_cache_falls_back_to_torch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "file-not-dir"
    blocker.write_text("a file where the cache directory should be")
    with pytest.raises(BackendUnavailable, match="cannot export"):
        OnnxQueryEncoder(packaged_model_path(), threads=1, directory=blocker / "sub")
    # $MNEME_CACHE_DIR reaches the embedder through the configuration (ADR 0057).
    settings = config.load(env={"MNEME_CACHE_DIR": str(blocker / "sub")})
    assert settings.cache_dir == str(blocker / "sub")
    embedder = build_embedder("minilm", options=dataclasses.asdict(settings))
    assert isinstance(embedder, MiniLMEmbedder)
    vector = embedder.embed_query("Where does Alice live?")
    assert vector.shape == (384,)
    assert embedder.query_fallback is not None
    assert "cannot export" in embedder.query_fallback


def test_query_backend_is_validated_and_torch_can_be_chosen(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(InvalidInput, match="query_backend"):
        MiniLMEmbedder(query_backend="tensorrt")
    settings = config.load(env={"MNEME_QUERY_BACKEND": "torch"})
    embedder = build_embedder("minilm", options=dataclasses.asdict(settings))
    assert isinstance(embedder, MiniLMEmbedder)
    assert embedder.query_backend == "torch"
    embedder.embed_query("hello")
    assert embedder.query_fallback is None
    assert embedder._onnx is None


def test_the_default_cache_dir_follows_xdg(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MNEME_CACHE_DIR", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", "/somewhere")
    assert cache_dir() == Path("/somewhere/mneme")
    monkeypatch.delenv("XDG_CACHE_HOME")
    assert cache_dir() == Path(os.path.expanduser("~")) / ".cache" / "mneme"
