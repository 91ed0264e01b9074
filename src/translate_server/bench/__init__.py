"""Benchmarks: a load generator for /translate and OpenAI-compatible chat servers, and the
comparisons behind `make bench` (engine in-process, this service, vLLM's own server)."""
