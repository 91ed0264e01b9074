"""DeepL API v3 style rules (`/v3/style_rules`), as DeepL's client calls them: rule lists
with configured rules and custom instructions, per API key (style_rules.py)."""

from __future__ import annotations

from typing import Any

from litestar import Request, route
from litestar.openapi.datastructures import ResponseSpec
from litestar.response import Response

from translate_server.compat.common import presented_key
from translate_server.compat.deepl.keys import DEEPL
from translate_server.compat.deepl.protocol import DeepLError
from translate_server.compat.deepl.style_rules import (
    ConfiguredRules,
    CustomInstruction,
    InstructionBody,
    StyleRule,
    StyleRuleCreate,
    StyleRuleList,
    StyleRuleRename,
)
from translate_server.compat.deepl.style_service import DeepLStyleRules
from translate_server.errors import InvalidRequestError
from translate_server.http.bodies import read_body
from translate_server.http.openapi import COMPAT_ERRORS, error_responses
from translate_server.services import services

KEY_FIELD = "auth_key"
_ERRORS = error_responses(*COMPAT_ERRORS, shape=DeepLError)
_DELETED = {204: ResponseSpec(data_container=None, description="Deleted"), **_ERRORS}
_RULE = "/style_rules/{style_id:str}"
_INSTRUCTION = _RULE + "/custom_instructions/{instruction_id:str}"


async def _rules(request: Request[Any, Any, Any]) -> tuple[str, DeepLStyleRules]:
    return await presented_key(request, KEY_FIELD), services(request)[DEEPL].style_rules


def _number(request: Request[Any, Any, Any], name: str, default: int, least: int) -> int:
    value = request.query_params.get(name)
    try:
        number = default if value is None else int(value)
    except ValueError:
        number = least - 1
    if number < least:
        raise InvalidRequestError(
            f"`{name}` must be a whole number of at least {least}.", param=name
        )
    return number


@route(
    "/style_rules",
    http_method=["GET", "POST"],
    status_code=200,
    summary="DeepL v3: list style rules (GET; `detailed`, `page`, `page_size`) or create one",
    tags=["deepl"],
    responses=_ERRORS,
)
async def style_rules(request: Request[Any, Any, Any]) -> StyleRuleList | StyleRule:
    key, rules = await _rules(request)
    if request.method == "POST":
        return await rules.create(key, await read_body(request, StyleRuleCreate))
    detailed = request.query_params.get("detailed", "false").lower() == "true"
    page = _number(request, "page", 0, 0)
    page_size = _number(request, "page_size", 10, 1)
    return await rules.page(key, page, page_size, detailed=detailed)


@route(
    _RULE,
    http_method=["GET", "PATCH", "DELETE"],
    status_code=200,
    summary="DeepL v3: a style rule (GET), renamed (PATCH) or deleted (DELETE, 204)",
    tags=["deepl"],
    responses=_DELETED,
)
async def style_rule(style_id: str, request: Request[Any, Any, Any]) -> Response[StyleRule | None]:
    key, rules = await _rules(request)
    if request.method == "GET":
        return Response(await rules.get(key, style_id))
    if request.method == "PATCH":
        body = await read_body(request, StyleRuleRename)
        return Response(await rules.rename(key, style_id, body.name))
    await rules.delete(key, style_id)
    return Response(None, status_code=204)


@route(
    _RULE + "/configured_rules",
    http_method=["PUT"],
    status_code=200,
    summary="DeepL v3: replace a style rule's configured rules",
    tags=["deepl"],
    responses=_ERRORS,
)
async def configured_rules(style_id: str, request: Request[Any, Any, Any]) -> StyleRule:
    key, rules = await _rules(request)
    configured = await read_body(request, ConfiguredRules)
    return await rules.configure(key, style_id, configured)


@route(
    _RULE + "/custom_instructions",
    http_method=["POST"],
    status_code=200,
    summary="DeepL v3: add a custom instruction to a style rule",
    tags=["deepl"],
    responses=_ERRORS,
)
async def custom_instructions(style_id: str, request: Request[Any, Any, Any]) -> CustomInstruction:
    key, rules = await _rules(request)
    return await rules.add_instruction(key, style_id, await read_body(request, InstructionBody))


@route(
    _INSTRUCTION,
    http_method=["GET", "PUT", "DELETE"],
    status_code=200,
    summary="DeepL v3: a style rule's custom instruction (GET), replaced (PUT) or deleted "
    "(DELETE, 204)",
    tags=["deepl"],
    responses=_DELETED,
)
async def custom_instruction(
    style_id: str, instruction_id: str, request: Request[Any, Any, Any]
) -> Response[CustomInstruction | None]:
    key, rules = await _rules(request)
    if request.method == "GET":
        return Response(await rules.instruction(key, style_id, instruction_id))
    if request.method == "PUT":
        body = await read_body(request, InstructionBody)
        return Response(await rules.replace_instruction(key, style_id, instruction_id, body))
    await rules.delete_instruction(key, style_id, instruction_id)
    return Response(None, status_code=204)


STYLE_RULE_ROUTES = [
    style_rules,
    style_rule,
    configured_rules,
    custom_instructions,
    custom_instruction,
]
