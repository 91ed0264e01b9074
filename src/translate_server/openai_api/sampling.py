"""OpenAI's sampling fields, shared by chat and legacy completions, as engine options; and
the fields this server refuses instead of ignoring."""

from __future__ import annotations

import hashlib

import msgspec

from translate_server.errors import InvalidRequestError
from translate_server.inference.engine import SamplingOptions, StructuredOutput
from translate_server.openai_api.fields import ResponseFormat, SamplingFields


def max_tokens_for(requested: int | None, cap: int, remaining: int) -> int:
    """What vLLM's server does (`get_max_tokens`, vLLM 0.32): the completion gets the least of
    what was asked, the server's cap and what the context leaves after the prompt. A request
    beyond those is answered, shortened, with `finish_reason: "length"`, not refused."""
    return min(remaining, cap, requested if requested is not None else remaining)


def sampling_options(
    request: SamplingFields,
    max_tokens: int,
    *,
    logprobs: int | None = None,
    structured: StructuredOutput | None = None,
) -> SamplingOptions:
    stop = (request.stop,) if isinstance(request.stop, str) else tuple(request.stop or ())
    return SamplingOptions(
        max_tokens=max_tokens,
        n=request.n,
        temperature=1.0 if request.temperature is None else request.temperature,
        top_p=1.0 if request.top_p is None else request.top_p,
        top_k=0 if request.top_k is None or request.top_k < 0 else request.top_k,
        min_p=request.min_p or 0.0,
        presence_penalty=request.presence_penalty,
        frequency_penalty=request.frequency_penalty,
        repetition_penalty=request.repetition_penalty or 1.0,
        stop=tuple(s for s in stop if s),
        seed=request.seed,
        min_tokens=min(request.min_tokens, max_tokens),
        ignore_eos=request.ignore_eos,
        logprobs=logprobs,
        logit_bias=logit_bias(request),
        structured=structured,
    )


def logit_bias(request: SamplingFields) -> tuple[tuple[int, float], ...]:
    """OpenAI sends token ids as strings; ids outside the vocabulary the engine refuses."""
    pairs = []
    for key, bias in (request.logit_bias or {}).items():
        try:
            token_id = int(key)
        except ValueError:
            raise InvalidRequestError(
                f"logit_bias keys are token ids, not `{key}`.", param="logit_bias"
            ) from None
        if token_id < 0:
            raise InvalidRequestError(
                f"Token id {token_id} in logit_bias is negative.", param="logit_bias"
            )
        pairs.append((token_id, bias))
    return tuple(pairs)


def structured_output(response_format: ResponseFormat | None) -> StructuredOutput | None:
    """`json_object` and `json_schema` constrain the output (vLLM's structured outputs);
    `text` is the default."""
    if response_format is None or response_format.type == "text":
        return None
    if response_format.type == "json_object":
        return StructuredOutput()
    spec = response_format.json_schema
    if spec is None or spec.schema_ is None:
        raise InvalidRequestError(
            "A json_schema response format needs `json_schema.schema`.",
            param="response_format.json_schema",
        )
    return StructuredOutput(json_schema=msgspec.json.encode(spec.schema_).decode())


def system_fingerprint(model_name: str) -> str:
    """Names the served model and this server's release: it changes when either does."""
    from importlib.metadata import PackageNotFoundError, version

    try:
        release = version("translate-server")
    except PackageNotFoundError:
        release = "dev"
    return "fp_" + hashlib.sha256(f"{model_name}:{release}".encode()).hexdigest()[:12]
