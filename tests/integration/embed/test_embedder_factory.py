import pytest

from mneme.embed import HashingEmbedder, MiniLMEmbedder, OpenAIEmbedder, build_embedder
from mneme.errors import InvalidInput


def test_default_spec_builds_the_packaged_minilm_without_loading_it() -> None:
    embedder = build_embedder()
    assert isinstance(embedder, MiniLMEmbedder)
    assert embedder.model_id == "sentence-transformers/all-MiniLM-L6-v2"
    assert embedder.dim == 384
    assert "not loaded" in repr(embedder)


@pytest.mark.parametrize(("spec", "dim"), [("hashing", 256), ("hashing:512", 512)])
def test_hashing_specs_build_a_hashing_embedder_of_that_dim(spec: str, dim: int) -> None:
    embedder = build_embedder(spec)
    assert isinstance(embedder, HashingEmbedder)
    assert embedder.dim == dim


@pytest.mark.parametrize(
    ("spec", "model", "url"),
    [
        (
            "openai:text-embedding-3-small@http://127.0.0.1:8080/v1",
            "text-embedding-3-small",
            "http://127.0.0.1:8080/v1/embeddings",
        ),
        (
            "openai:nomic-ai/nomic-embed-text:v1.5@https://example.test/api/v1/",
            "nomic-ai/nomic-embed-text:v1.5",
            "https://example.test/api/v1/embeddings",
        ),
    ],
)
def test_openai_spec_splits_model_and_base_url(spec: str, model: str, url: str) -> None:
    embedder = build_embedder(spec, api_key="sk-test")
    assert isinstance(embedder, OpenAIEmbedder)
    try:
        assert embedder.model_id == f"openai-compatible:{model}"
        assert embedder.url == url
        assert "sk-test" not in repr(embedder)
    finally:
        embedder.close()


@pytest.mark.parametrize(
    "spec",
    ["", "mini", "hashing:", "hashing:0", "hashing:x", "openai:", "openai:m", "openai:m@ftp://x"],
)
def test_unknown_spec_is_invalid_input_listing_the_valid_forms(spec: str) -> None:
    with pytest.raises(InvalidInput) as info:
        build_embedder(spec)
    if spec != "hashing:0":  # a well-formed spec with a bad value names the value instead
        assert "openai:<model>@<base_url>" in str(info.value)
        assert '"minilm"' in str(info.value)
