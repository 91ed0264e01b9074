"""Comparisons that need a source checkout and are not shipped: the engine in-process vs this
service vs vLLM's own server (`compare`), and the HTTP layer vs a FastAPI twin over a
zero-latency engine (`http-layer`). Run them as `python -m benchmarks compare|http-layer`.

The modules the HTTP-layer apps are built from (`apps`, `fastapi_app`, `zero_engine`,
`asgi_floor`) are imported as top-level modules: uvicorn loads them with `--app-dir benchmarks`.
"""
