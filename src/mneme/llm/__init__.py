"""Optional LLMs for the write side and background passes (never recall): a small protocol,
OpenAI-compatible and Anthropic clients, an ordered fallback chain, and the two uses."""

from mneme.llm.anthropic import AnthropicChat
from mneme.llm.extract import ExtractedFact, Extraction, LLMExtractor, Relation
from mneme.llm.fallback import FallbackChain, LLMTierSkipped, TierSpec, build_chain
from mneme.llm.judge import LLMJudge, LLMVerdict
from mneme.llm.openai import OpenAIChat
from mneme.llm.protocol import LLM, LLMError, LLMInvalid, LLMRefused, LLMReply, LLMUnavailable

__all__ = [
    "LLM",
    "AnthropicChat",
    "ExtractedFact",
    "Extraction",
    "FallbackChain",
    "LLMError",
    "LLMExtractor",
    "LLMInvalid",
    "LLMJudge",
    "LLMRefused",
    "LLMReply",
    "LLMTierSkipped",
    "LLMUnavailable",
    "LLMVerdict",
    "OpenAIChat",
    "Relation",
    "TierSpec",
    "build_chain",
]
