"""GET /v1/models and /v1/models/{id}: the base model and its LoRA adapters, as OpenAI's
clients list them."""
