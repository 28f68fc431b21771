"""Adapters for the frameworks agent builders use (ADR 0049), each a thin module over ``Memory``
in an extra of its own:

- ``mneme.adapters.langgraph``: ``MnemeStore``, a LangGraph ``BaseStore`` (extra ``langgraph``).
- ``mneme.adapters.openai_agents``: ``MnemeSession``, an OpenAI Agents SDK ``Session`` (extra
  ``openai-agents``).
- ``mneme.adapters.llamaindex``: ``MnemeMemoryBlock``, a LlamaIndex memory block (extra
  ``llamaindex``).
- ``mneme.adapters.crewai``: ``MnemeStorage``, a CrewAI memory ``StorageBackend`` (extra
  ``crewai``, in a venv of its own: ADR 0049's amendment).

They sit at the surfaces' level (tests/repo/test_layers.py): they call ``Memory`` and read the
values it returns, nothing else, and nothing of mneme imports them. Importing this package
imports no framework; each module imports its own and names its extra when it is missing.
"""
