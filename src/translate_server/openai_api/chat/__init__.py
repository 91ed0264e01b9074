"""POST /v1/chat/completions and /v1/models: the OpenAI-compatible surface."""
