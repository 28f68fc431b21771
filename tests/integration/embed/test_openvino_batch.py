"""The default embedder's write path on OpenVINO (bfloat16 where the CPU has it, float32
elsewhere): float32's vectors to 1e-4, in input order, from the same cached graph as the query
path; torch where it cannot run."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

from mneme.embed import MiniLMEmbedder
from mneme.embed.minilm import BF16_MIN_BATCH, packaged_model_path
from mneme.embed.onnx_query import graph_path
from mneme.embed.openvino_batch import OpenVinoBatchEncoder
from mneme.errors import BackendUnavailable, InvalidInput

TEXTS = [
    "Caroline researched adoption agencies last week.",
    "Wann ist Melanie nach Lissabon gezogen? ünïcödé",
    "x",
    "I love it!",
    # Longer than the model's 256 word pieces: both paths truncate the same way.
    " ".join(f"token{i}" for i in range(400)),
    *(f"Melanie painted a sunset over the lake on day {i} of the trip." for i in range(40)),
    "The support group meets on Tuesdays at the community centre.",
]


@pytest.fixture(scope="module")
def batcher(tmp_path_factory: pytest.TempPathFactory) -> OpenVinoBatchEncoder:
    try:
        return OpenVinoBatchEncoder(
            packaged_model_path(),
            threads=2,
            batch_size=16,
            directory=tmp_path_factory.mktemp("ov-cache"),
        )
    except BackendUnavailable as exc:  # pragma: no cover - OpenVINO cannot compile here
        pytest.skip(f"no OpenVINO here: {exc}")


def test_batches_stay_within_1e_4_of_float32(batcher: OpenVinoBatchEncoder) -> None:
    exact = MiniLMEmbedder(precision="fp32", batch_backend="torch").embed(TEXTS)
    fast = batcher.encode(TEXTS)
    assert fast.shape == (len(TEXTS), 384)
    assert fast.dtype == np.float32
    cosines = np.sum(fast * exact, axis=1)
    assert float(cosines.min()) > 0.9999
    assert np.allclose(np.linalg.norm(fast, axis=1), 1.0, atol=1e-4)


def test_rows_come_back_in_input_order(batcher: OpenVinoBatchEncoder) -> None:
    # batches are formed by length, across the input: every row must still be its own text's
    together = batcher.encode(TEXTS)
    for i in (0, 2, 4, len(TEXTS) - 1):
        alone = batcher.encode([TEXTS[i]])[0]
        assert float(together[i] @ alone) > 0.9999, TEXTS[i]


def test_the_embedder_uses_it_for_batches_and_keeps_torch_for_one_text() -> None:
    embedder = MiniLMEmbedder()
    vectors = embedder.embed(TEXTS[:BF16_MIN_BATCH])
    assert vectors.shape == (BF16_MIN_BATCH, 384)
    if embedder.batch_fallback is None:
        assert embedder._batcher is not None
        assert embedder.uses_bf16 == (embedder._batcher.precision == "bf16")
        # the graph is the query path's: one export serves both
        assert embedder._batcher.path == graph_path(packaged_model_path())
    single = embedder.embed(TEXTS[:1])  # below BF16_MIN_BATCH: torch, float32
    exact = MiniLMEmbedder(precision="fp32", batch_backend="torch").embed(TEXTS[:1])
    assert float(single[0] @ exact[0]) > 0.99999


def test_warm_loads_both_paths_before_the_first_write() -> None:
    embedder = MiniLMEmbedder(query_cache_size=0)
    assert embedder._batcher is None
    assert embedder._onnx is None
    embedder.warm()
    # the batch path is ready (OpenVINO compiled, or torch when it fell back) and so is the
    # query path: the first write and the first recall load nothing
    assert embedder.batch_fallback is not None or embedder._batcher is not None
    assert embedder._onnx is not None or embedder.query_backend != "auto"
    assert embedder.embed(TEXTS[:BF16_MIN_BATCH]).shape == (BF16_MIN_BATCH, 384)


def test_embed_beside_gives_the_same_vectors_on_one_cpu_fewer() -> None:
    embedder = MiniLMEmbedder(query_cache_size=0)
    together = embedder.embed(TEXTS)
    beside = embedder.embed_beside(TEXTS)
    assert beside.shape == together.shape
    assert min(float(a @ b) for a, b in zip(together, beside, strict=True)) > 0.9999
    if embedder.batch_fallback is None and embedder._batch_threads() > 1:
        assert embedder._beside is not None
        assert embedder._beside is not embedder._batcher
    # a short list, as embed: torch
    assert embedder.embed_beside(TEXTS[:1]).shape == (1, 384)
    # one thread: nothing fewer to give, the batch encoder serves
    one = MiniLMEmbedder(num_threads=1)
    one.embed_beside(TEXTS[:BF16_MIN_BATCH])
    assert one._beside is None


def test_torch_can_be_chosen_and_the_backend_is_validated() -> None:
    with pytest.raises(InvalidInput, match="batch_backend"):
        MiniLMEmbedder(batch_backend="tensorrt")
    embedder = MiniLMEmbedder(batch_backend="torch")
    embedder.embed(TEXTS[:BF16_MIN_BATCH])
    assert embedder._batcher is None
    assert embedder.batch_fallback is None
    fp32 = MiniLMEmbedder(precision="fp32")  # float32 asked for: never a bfloat16 backend
    fp32.embed(TEXTS[:BF16_MIN_BATCH])
    assert not fp32.uses_bf16
    if fp32._batcher is not None:
        assert fp32._batcher.precision == "f32"


def test_float32_can_be_forced_and_bf16_is_refused_where_the_cpu_lacks_it(
    tmp_path: Path,
) -> None:
    import openvino as ov

    with pytest.raises(ValueError, match="precision"):
        OpenVinoBatchEncoder(packaged_model_path(), threads=1, batch_size=8, precision="int4")
    f32 = OpenVinoBatchEncoder(
        packaged_model_path(), threads=1, batch_size=8, directory=tmp_path, precision="f32"
    )
    assert f32.precision == "f32"
    exact = MiniLMEmbedder(precision="fp32", batch_backend="torch").embed(TEXTS[:3])
    assert float(np.sum(f32.encode(TEXTS[:3]) * exact, axis=1).min()) > 0.99999
    if "BF16" not in ov.Core().get_property("CPU", "OPTIMIZATION_CAPABILITIES"):
        with pytest.raises(BackendUnavailable, match="bfloat16"):
            OpenVinoBatchEncoder(
                packaged_model_path(),
                threads=1,
                batch_size=8,
                directory=tmp_path,
                precision="bf16",
            )
        auto = OpenVinoBatchEncoder(
            packaged_model_path(), threads=1, batch_size=8, directory=tmp_path
        )
        assert auto.precision == "f32"


def test_without_openvino_batches_fall_back_to_torch_and_say_why(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setitem(sys.modules, "openvino", None)  # import openvino -> ImportError
    embedder = MiniLMEmbedder()
    vectors = embedder.embed(TEXTS[:BF16_MIN_BATCH])
    assert vectors.shape == (BF16_MIN_BATCH, 384)
    assert embedder._batcher is None
    assert embedder.batch_fallback is not None
    assert "openvino" in embedder.batch_fallback


def test_a_corrupt_cached_graph_is_exported_again(tmp_path: Path) -> None:
    path = graph_path(packaged_model_path(), tmp_path)
    path.write_bytes(b"not an onnx graph")
    try:
        enc = OpenVinoBatchEncoder(
            packaged_model_path(), threads=1, batch_size=8, directory=tmp_path
        )
    except BackendUnavailable as exc:  # pragma: no cover - OpenVINO cannot compile here
        pytest.skip(str(exc))
    assert path.stat().st_size > 1_000_000
    assert enc.encode(["a text"]).shape == (1, 384)
