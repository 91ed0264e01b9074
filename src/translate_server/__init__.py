"""translate-server: a translation API and an OpenAI-compatible API over one vLLM engine."""

__version__ = "0.1.0"
