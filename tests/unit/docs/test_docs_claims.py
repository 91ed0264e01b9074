"""What the docs show of an answer, the defaults they state and the surfaces they list are
the source's: the README's `/translate` answer and docs/api.md's last streamed event are
decoded with the real response structs and carry the very fields a real answer to the same
request carries (the service over the engine double; a real model's answer is compared in
tests/engine); a setting's default written in prose (`--max-pieces` ... (1,024 by default))
is its declared one; every compatible API is named where keys, errors, CORS and the package
are described."""

from __future__ import annotations

import json
import re
import tomllib
from functools import cache
from typing import Any

import msgspec
import pytest

from translate_server.app import create_app
from translate_server.http.openapi import DOCS_PATH
from translate_server.http.route_paths import RoutePaths
from translate_server.settings import OPTIONS, load_settings
from translate_server.settings.options import Option
from translate_server.translation.protocol import (
    TranslateChunk,
    TranslateRequest,
    TranslateResponse,
)

from tests.support.docs_text import ROOT, help_texts, pages, prose, relative
from tests.support.service_builder import ServiceBuilder, deadline, record, wire

README = (ROOT / "README.md").read_text()
API = (ROOT / "docs/api.md").read_text()


def _request_of(text: str, marker: str) -> dict[str, Any]:
    """The JSON body of the first curl command that sends `marker`."""
    for body in re.findall(r"-d '(\{.*?\})'", text):
        if marker in body:
            return json.loads(body)
    raise AssertionError(f"no curl command sending {marker}")


def _readme_answer() -> dict[str, Any]:
    shown = re.search(r"```json\n(\{\"translation\".*?\})\n```", README, re.DOTALL)
    assert shown, "README.md: its sample /translate answer"
    return json.loads(shown[1])


def _streamed_end() -> dict[str, Any]:
    ends = re.findall(r"^data: (\{\"delta\":\"\",\"finish_reason\".*\})$", API, re.MULTILINE)
    assert len(ends) == 1, "docs/api.md: the streamed sample's last event"
    return json.loads(ends[0])


def _fields(answer: dict[str, Any]) -> dict[str, Any]:
    """An answer's field names, and those of its objects (`usage`), as a tree."""
    return {k: _fields(v) if isinstance(v, dict) else None for k, v in answer.items()}


async def _real_answer(body: dict[str, Any]) -> dict[str, Any]:
    service = ServiceBuilder().translation()
    answer = await service.translate(wire(TranslateRequest, body), record(), deadline())
    return json.loads(msgspec.json.encode(answer))


async def _real_streamed_end(body: dict[str, Any]) -> dict[str, Any]:
    service = ServiceBuilder().translation()
    chunks = await service.open_stream(wire(TranslateRequest, body), record(), deadline())
    events = [chunk async for chunk in chunks]
    return json.loads(msgspec.json.encode(events[-1]))


async def test_the_readmes_answer_has_every_field_of_a_real_one() -> None:
    shown = _readme_answer()
    msgspec.convert(shown, TranslateResponse)  # each field of its type, none missing
    real = await _real_answer(_request_of(README, "Where is the train station?"))
    assert _fields(shown) == _fields(real)
    assert {"quality_estimate", "needs_review"} <= set(shown)


async def test_the_streamed_samples_last_event_has_every_field_of_a_real_one() -> None:
    shown = _streamed_end()
    msgspec.convert(shown, TranslateChunk)
    body = _request_of(API, '"stream": true')
    assert body["stream"] is True
    real = await _real_streamed_end(body)
    assert _fields(shown) == _fields(real)
    assert {"quality_estimate", "needs_review"} <= set(shown)


# -- defaults stated in prose ----------------------------------------------------------------

_NAME = r"`(--[a-z][\w-]*|TRANSLATE_[A-Z0-9_]+)`"
_VALUE = r"(`[^`]*`|\d[\d,]*(?:\.\d+)?)"
# "`--flag`, default 40", "`--flag` (default 0.9)", "`--flag` long (20,000 by default)",
# "(`TRANSLATE_X`, default `suggestions`)"; a default said as a product ("4 x ...") is not one.
_DEFAULT = re.compile(
    rf"{_NAME}[^()`.;]{{0,30}}?[,(]\s*(?:default:?\s+{_VALUE}(?![\w ]*x\b)|{_VALUE} by default)"
)
# Commands other than `serve` whose flags may share a setting's name (the quality bench's
# `--seed`): a default stated beside one of theirs is theirs.
_SERVE_LIKE = ("translate-server serve", "translate-server db", "translate-server prepare-model")


def _others_flags() -> set[str]:
    return {
        flag
        for command, text in help_texts().items()
        if not command.startswith(_SERVE_LIKE)
        for flag in re.findall(r"--[a-z][\w-]*", text)
    }


def stated_defaults(text: str) -> list[tuple[str, str]]:
    """(flag or variable, default as written) of each default a page states in prose."""
    flat = re.sub(r"\s+", " ", prose(text))
    return [(m[1], (m[2] or m[3]).strip("`")) for m in _DEFAULT.finditer(flat)]


def _same(written: str, option: Option) -> bool:
    default = option.default
    if isinstance(default, bool) or not isinstance(default, int | float):
        return written == str(default)
    try:
        return float(written.replace(",", "")) == default
    except ValueError:
        return False


OPTIONS_BY_NAME = {name: o for o in OPTIONS for name in (o.flag, o.env)}


@pytest.mark.parametrize("page", pages(), ids=relative)
def test_defaults_stated_in_prose_are_the_declared_ones(page) -> None:
    others = _others_flags()
    wrong = [
        f"{name}: {written} (declared: {OPTIONS_BY_NAME[name].default!r})"
        for name, written in stated_defaults(page.read_text())
        if name in OPTIONS_BY_NAME
        and name not in others
        # Where the declared default is none, it is derived elsewhere (a path in a folder).
        and OPTIONS_BY_NAME[name].default not in (None, ())
        and not _same(written, OPTIONS_BY_NAME[name])
    ]
    assert not wrong, f"{relative(page)} states defaults the settings do not declare: {wrong}"


def test_stated_defaults_are_found() -> None:
    text = (
        "Each (`--suggestions-memory`, default `suggestions`), `--max-pieces` engine requests "
        "(1,024 by default), `--stream-coalesce-ms`, default 40; `--max-queued-requests` "
        "(default 4 x max-num-seqs)."
    )
    assert stated_defaults(text) == [
        ("--suggestions-memory", "suggestions"),
        ("--max-pieces", "1,024"),
        ("--stream-coalesce-ms", "40"),
    ]
    pieces = OPTIONS_BY_NAME["--max-pieces"]
    assert _same("1,024", pieces) and not _same("1,000", pieces)


# -- the compatible APIs, wherever the server's surfaces are listed ---------------------------

# The APIs with their own key and error shapes, by their routes' OpenAPI tag.
COMPATIBLE = {
    "deepl": "DeepL",
    "libretranslate": "LibreTranslate",
    "google": "Google",
    "deeplx": "DeepLX",
}


@cache
def route_paths() -> RoutePaths:
    app = create_app(load_settings({}, environ={}), lambda: None)  # type: ignore[arg-type,return-value]
    return RoutePaths.of(app, docs_path=DOCS_PATH, metrics_need_key=False)


def _section(text: str, heading: str) -> str:
    pattern = rf"^## {re.escape(heading)}\n(.*?)(?=^## |\Z)"
    found = re.search(pattern, text, re.DOTALL | re.MULTILINE)
    assert found, heading
    return found[1]


def test_the_compatible_apis_are_those_with_their_own_error_shapes() -> None:
    document = json.loads((ROOT / "openapi/openapi.json").read_text())
    prefixes = tuple(prefix for prefix, _ in route_paths().error_shapes)
    tags = {
        tag
        for path, operations in document["paths"].items()
        if path.startswith(prefixes)
        for operation in operations.values()
        for tag in operation.get("tags", [])
    }
    assert tags == set(COMPATIBLE)


def test_every_compatible_api_is_named_where_the_server_is_described() -> None:
    package = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["description"]
    document = json.loads((ROOT / "openapi/openapi.json").read_text())["info"]["description"]
    places = {
        "pyproject.toml's description": package,
        "the OpenAPI document's description": document,
        "docs/api.md, Authentication": _section(API, "Authentication"),
        "docs/api.md, Errors": _section(API, "Errors"),
    }
    for place, text in places.items():
        missing = [name for name in COMPATIBLE.values() if name not in text]
        assert not missing, f"{place} leaves out {missing}"


def test_every_route_that_answers_any_origin_is_named_where_cors_is() -> None:
    """Routes whose browser clients call them from any page get CORS whatever
    `--cors-origins` says: docs/api.md's CORS section and that setting's help name each."""
    cors_help = next(o.help for o in OPTIONS if o.flag == "--cors-origins")
    places = {"docs/api.md, CORS": _section(API, "CORS"), "--cors-origins": cors_help}
    prefixes = route_paths().cors_prefixes
    assert "/libretranslate/" in prefixes
    for place, text in places.items():
        written = re.findall(r"`(/[^`\s]*)`", text)
        missing = [p for p in prefixes if not any(path.startswith(p) for path in written)]
        assert not missing, f"{place} does not name {missing} among the routes any origin may call"
