"""Embedders: texts to unit vectors, behind the small ``Embedder`` protocol."""

from mneme.embed.factory import build_embedder
from mneme.embed.hashing import HashingEmbedder
from mneme.embed.minilm import MiniLMEmbedder
from mneme.embed.openai import OpenAIEmbedder
from mneme.embed.protocol import Embedder

__all__ = ["Embedder", "HashingEmbedder", "MiniLMEmbedder", "OpenAIEmbedder", "build_embedder"]
