import numpy as np
import pytest

from mneme.embed import HashingEmbedder
from mneme.errors import InvalidInput

TEXTS = ["Alice lives in Lisbon", "Bob drinks green tea every morning", "the cat sat on the mat"]


def test_hashing_embedder_is_deterministic_across_instances() -> None:
    first = HashingEmbedder(dim=128).embed(TEXTS)
    second = HashingEmbedder(dim=128).embed(TEXTS)
    assert np.array_equal(first, second)


def test_same_text_embeds_the_same_alone_and_in_a_batch() -> None:
    embedder = HashingEmbedder()
    batch = embedder.embed(TEXTS)
    for i, text in enumerate(TEXTS):
        assert np.array_equal(embedder.embed([text])[0], batch[i])


def test_hashing_vectors_are_float32_unit_rows_of_the_declared_dim() -> None:
    embedder = HashingEmbedder(dim=512)
    vectors = embedder.embed([*TEXTS, "?!", "a"])
    assert embedder.model_id == "hashing-512"
    assert vectors.dtype == np.float32
    assert vectors.shape == (5, 512)
    assert np.allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-6)


def test_similar_texts_are_closer_than_unrelated_ones() -> None:
    embedder = HashingEmbedder()
    query, similar, unrelated = embedder.embed(
        ["where does Alice live", "Alice lives in Lisbon", "Bob drinks tea"]
    )
    assert float(query @ similar) > float(query @ unrelated) + 0.1


def test_word_order_changes_the_vector_through_bigrams() -> None:
    a, b = HashingEmbedder().embed(["dog bites man", "man bites dog"])
    assert 0.5 < float(a @ b) < 0.999


def test_empty_batch_gives_an_empty_matrix_of_the_right_width() -> None:
    assert HashingEmbedder(dim=64).embed([]).shape == (0, 64)


@pytest.mark.parametrize("dim", [0, -3, True, 2.5])
def test_hashing_embedder_rejects_a_bad_dim(dim: object) -> None:
    with pytest.raises(InvalidInput, match="dim"):
        HashingEmbedder(dim=dim)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("texts", "message"),
    [("a bare string", "single string"), (["ok", ""], "#1 is empty"), (["ok", 3], "#1 is int")],
)
def test_hashing_embedder_rejects_unusable_texts(texts: object, message: str) -> None:
    with pytest.raises(InvalidInput, match=message):
        HashingEmbedder().embed(texts)  # type: ignore[arg-type]
