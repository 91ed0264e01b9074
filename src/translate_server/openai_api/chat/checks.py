"""What a chat request may not ask, refused before admission and tokenizing as every other
client mistake: tools, audio, log probabilities asked for wrongly."""

from __future__ import annotations

from translate_server.errors import InvalidRequestError
from translate_server.openai_api.chat.protocol import ChatCompletionRequest


def logprobs_asked(request: ChatCompletionRequest) -> int | None:
    """Alternatives per token the engine should report: `top_logprobs` of them, and the
    chosen token's own log probability whenever `logprobs` is true."""
    if not request.logprobs:
        if request.top_logprobs:
            raise InvalidRequestError("top_logprobs needs logprobs: true.", param="top_logprobs")
        return None
    return request.top_logprobs or 0


def refuse_tools(request: ChatCompletionRequest) -> None:
    """Tool calling is not served. An agent that sent tools must not take prose for a final
    answer, so the request is refused rather than answered without them."""
    for param in ("tools", "functions"):
        if getattr(request, param):
            raise _tools_refused(param)
    if request.tool_choice not in (None, "none") or request.function_call not in (None, "none"):
        raise _tools_refused("tool_choice" if request.tool_choice else "function_call")
    for i, message in enumerate(request.messages):
        if message.role in ("tool", "function"):
            raise _tools_refused(f"messages[{i}].role")
        if message.tool_calls or message.function_call:
            raise _tools_refused(f"messages[{i}].tool_calls")


def refuse_audio(request: ChatCompletionRequest) -> None:
    """Only text is generated: a request for audio output is refused, not answered in text."""
    if request.audio is not None or any(m != "text" for m in request.modalities or ()):
        raise InvalidRequestError(
            "Only text output is served.",
            param="audio" if request.audio is not None else "modalities",
        )


def _tools_refused(param: str) -> InvalidRequestError:
    return InvalidRequestError(
        "Tool calling is not served by this server: send no tools, tool_choice or tool messages.",
        param=param,
        code="tools_not_supported",
    )
