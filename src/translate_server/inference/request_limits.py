"""Checks both surfaces make of a request before it costs anything: the model it names and
the completion length it asks for."""

from __future__ import annotations

from translate_server.errors import InvalidRequestError, ModelNotFoundError


def check_model(requested: str | None, served: str) -> None:
    if requested is not None and requested != served:
        raise ModelNotFoundError(requested, served)


def check_max_tokens(requested: int | None, cap: int, param: str) -> None:
    if requested is not None and requested > cap:
        raise InvalidRequestError(f"{param} may be at most {cap}.", param=param)
