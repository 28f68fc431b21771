"""The default embedder with the real packaged all-MiniLM-L6-v2 weights."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
import textwrap
import threading
from pathlib import Path

import numpy as np
import pytest

from mneme.embed import MiniLMEmbedder
from mneme.errors import InvalidInput


@pytest.fixture(scope="module")
def minilm() -> MiniLMEmbedder:
    return MiniLMEmbedder()


def test_constructing_the_default_embedder_loads_nothing() -> None:
    embedder = MiniLMEmbedder()
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.dim == 384
    assert embedder.embed([]).shape == (0, 384)
    assert "not loaded" in repr(embedder)


def test_bad_texts_are_invalid_input_without_loading_the_model() -> None:
    embedder = MiniLMEmbedder()
    with pytest.raises(InvalidInput, match="single string"):
        embedder.embed("Alice lives in Lisbon")
    with pytest.raises(InvalidInput, match="empty"):
        embedder.embed_query(" ")
    assert "not loaded" in repr(embedder)


def test_the_weights_come_from_site_packages_not_a_hub_cache() -> None:
    path = MiniLMEmbedder().model_path
    site_packages = [Path(p).resolve() for p in {*sysconfig.get_paths().values()}]
    assert any(path.is_relative_to(p) for p in site_packages if "site-packages" in p.parts)
    assert (path / "model.safetensors").is_file()


@pytest.mark.slow
def test_embeddings_are_unit_float32_rows_of_dim_384(minilm: MiniLMEmbedder) -> None:
    texts = [f"sentence number {i} about something else entirely" for i in range(70)]
    vectors = minilm.embed(texts)
    assert vectors.dtype == np.float32
    assert vectors.shape == (70, 384)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


@pytest.mark.slow
def test_a_question_is_closest_to_the_sentence_that_answers_it(minilm: MiniLMEmbedder) -> None:
    answer, unrelated = minilm.embed(["Alice lives in Lisbon", "Bob drinks tea"])
    query = minilm.embed_query("Where does Alice live?")
    assert float(query @ answer) > float(query @ unrelated) + 0.2


@pytest.mark.slow
def test_a_repeated_query_comes_from_the_cache_and_cannot_be_mutated(
    minilm: MiniLMEmbedder,
) -> None:
    first = minilm.embed_query("what does Bob drink?")
    again = minilm.embed_query("what does Bob drink?")
    assert again is first
    assert first.shape == (384,)
    assert np.allclose(first, minilm.embed(["what does Bob drink?"])[0], atol=1e-5)
    with pytest.raises(ValueError, match="read-only"):
        first[0] = 1.0


@pytest.mark.slow
def test_concurrent_first_calls_all_get_the_same_vectors() -> None:
    embedder = MiniLMEmbedder()
    start = threading.Barrier(4)
    results: list[np.ndarray] = []
    errors: list[BaseException] = []

    def work() -> None:
        start.wait(timeout=10)
        try:
            results.append(embedder.embed(["Alice lives in Lisbon", "Bob drinks tea"]))
        except BaseException as exc:
            errors.append(exc)

    threads = [threading.Thread(target=work) for _ in range(4)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert errors == []
    assert len(results) == 4
    for result in results[1:]:
        assert np.allclose(result, results[0], atol=1e-5)


@pytest.mark.slow
def test_loads_with_hf_hub_offline_set(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("TRANSFORMERS_OFFLINE", "1")
    assert MiniLMEmbedder().embed(["hello"]).shape == (1, 384)


@pytest.mark.slow
def test_loads_in_a_fresh_process_where_every_hub_route_is_dead(tmp_path: Path) -> None:
    # The hub libraries read their environment at import, so the honest check is a fresh
    # interpreter: offline flags unset, hub endpoint and proxies pointing at a closed port,
    # an empty HF cache. Any attempt to reach a hub would fail or hang here.
    env = {k: v for k, v in os.environ.items() if "OFFLINE" not in k and "PROXY" not in k.upper()}
    dead = "http://127.0.0.1:9"
    env |= {
        "HF_ENDPOINT": dead,
        "HTTP_PROXY": dead,
        "HTTPS_PROXY": dead,
        "ALL_PROXY": dead,
        "HF_HOME": str(tmp_path / "hf"),
        "PYTHONPATH": os.pathsep.join(p for p in sys.path if p),
    }
    script = textwrap.dedent(
        """
        from mneme.embed import MiniLMEmbedder
        vectors = MiniLMEmbedder().embed(["Alice lives in Lisbon"])
        print(vectors.shape)
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", script], env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "(1, 384)"
    assert "Loading weights" not in done.stderr  # no progress bar on the CLI's stderr
    assert not (tmp_path / "hf").exists() or not any((tmp_path / "hf").rglob("*.safetensors"))


def test_precision_is_validated_before_anything_loads() -> None:
    with pytest.raises(InvalidInput, match="precision"):
        MiniLMEmbedder(precision="int4")
    assert MiniLMEmbedder(precision="fp32").precision == "fp32"


def test_bf16_batches_match_fp32_vectors(minilm: MiniLMEmbedder) -> None:
    """Autocast batches (on CPUs with native bfloat16) give the float32 vectors, near enough
    that one model identity covers both: cosine >= 0.9999 on every text."""
    texts = [f"Caroline went to a support group on day {i}; it was so powerful" for i in range(12)]
    texts += ["Melanie: I'm swamped with the kids & work.", "What's up with you? Anything new?"]
    fast = minilm.embed(texts)
    exact = MiniLMEmbedder(precision="fp32").embed(texts)
    assert fast.shape == exact.shape == (len(texts), 384)
    assert float(np.min(np.sum(fast * exact, axis=1))) >= 0.9999
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-5)
    # A single query stays in float32 whatever the CPU.
    text = "Anything new with Melanie?"
    exact_query = MiniLMEmbedder(precision="fp32").embed_query(text)
    assert float(minilm.embed_query(text) @ exact_query) > 0.99999
