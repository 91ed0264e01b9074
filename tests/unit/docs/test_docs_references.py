"""What the docs name exists: `translate-server` and `python -m benchmarks` commands and their
flags (in `--help`), make targets, file paths and module names, routes (in the OpenAPI
document), relative links and their anchors, compose files and profiles (in commands, prose
and the deploy files' comments), and every `/translate` field in the reference."""

from __future__ import annotations

import json
import re
from functools import cache

import msgspec
import pytest

from translate_server.translation.protocol import TranslateRequest, TranslateResponse

from tests.support.compose_files import read
from tests.support.docs_text import (
    ROOT,
    anchors,
    compose_commands,
    flags,
    help_texts,
    inline_code,
    invocations,
    make_targets,
    module_exists,
    named_modules,
    named_paths,
    pages,
    path_exists,
    relative,
    relative_links,
    route_is_served,
    route_mentions,
    script_flags,
)

PAGES = {relative(page): page for page in pages()}
TRANSLATE_SERVER = re.compile(r"(\S*/)?translate-server")
SUBCOMMANDS = (
    "bench run",
    "bench quality",
    "bench languages",
    "bench estimate",
    "bench estimate-eval",
    "bench write",
    "db upgrade",
    "db current",
    "db copy",
    "db",
    "keys create",
    "keys list",
    "keys revoke",
    "keys rotate",
    "keys set-limits",
    "accounts create",
    "accounts list",
    "accounts set-limits",
    "serve",
    "usage",
    "prepare-model",
    "doctor",
    "openapi",
    "adapt",
    "bench",
)
# Flags of other programs that the docs name in passing, each with its program.
OTHER_PROGRAMS_FLAGS = {
    "--build": "docker compose up",
    "--scale": "docker compose up",
    "--profile": "docker compose",
    "--env-file": "docker compose",
    "--cpus": "docker run",
    "--durations": "pytest",
    "--strict-markers": "pytest",
    "--disable-log-stats": "vLLM's own server",
    "--api-server-count": "vLLM's own server",
    "--no-deps": "pip",
}


def subcommand(arguments: list[str]) -> str | None:
    joined = " ".join(word for word in arguments if not word.startswith("-"))
    return next((name for name in SUBCOMMANDS if (joined + " ").startswith(name + " ")), None)


def known_flags() -> set[str]:
    helped = {flag for text in help_texts().values() for flag in re.findall(r"--[a-z][\w-]*", text)}
    return helped.union(*script_flags().values())


@pytest.mark.parametrize("name", PAGES)
def test_translate_server_commands_exist_with_their_flags(name: str) -> None:
    text = PAGES[name].read_text()
    for arguments in invocations(text, TRANSLATE_SERVER):
        if not arguments or arguments[0].startswith("-"):  # `translate-server --help`
            continue
        command = subcommand(arguments)
        assert command, f"{name}: `translate-server {' '.join(arguments)}`: no such command"
        help_text = help_texts()[f"translate-server {command}"]
        for flag in flags(arguments):
            assert re.search(rf"{re.escape(flag)}\b", help_text), (
                f"{name}: `translate-server {command}` has no {flag}"
            )


@pytest.mark.parametrize("name", PAGES)
def test_benchmark_commands_exist_with_their_flags(name: str) -> None:
    text = PAGES[name].read_text()
    for arguments in invocations(text, re.compile(r"benchmarks")):
        if not arguments or "/" in arguments[0] or arguments[0].startswith("-"):
            continue
        key = f"python -m benchmarks {arguments[0]}"
        assert key in help_texts(), f"{name}: `{key}`: no such comparison"
        for flag in flags(arguments[1:]):
            assert re.search(rf"{re.escape(flag)}\b", help_texts()[key]), f"{name}: {key} {flag}"


@pytest.mark.parametrize("name", PAGES)
def test_benchmark_scripts_exist_with_their_flags(name: str) -> None:
    for arguments in invocations(PAGES[name].read_text(), re.compile(r"python3?")):
        script = next((word for word in arguments if word.startswith("benchmarks/")), None)
        if script is None or not script.endswith(".py"):
            continue
        assert script in script_flags(), f"{name}: `python {script}`: no such script"
        for flag in flags(arguments):
            assert flag in script_flags()[script], f"{name}: {script} has no {flag}"


@pytest.mark.parametrize("name", PAGES)
def test_flags_named_in_prose_exist(name: str) -> None:
    known = known_flags()
    for span in inline_code(PAGES[name].read_text()):
        first = span.split()[0] if span.split() else ""
        flag = first.split("=", 1)[0]
        if re.fullmatch(r"--[a-z][\w-]*", flag) and flag not in OTHER_PROGRAMS_FLAGS:
            assert flag in known, f"{name}: `{span}`: no command has {flag}"


@pytest.mark.parametrize("name", PAGES)
def test_make_targets_exist(name: str) -> None:
    for arguments in invocations(PAGES[name].read_text(), re.compile(r"make")):
        targets = [word for word in arguments if not word.startswith("-") and "=" not in word]
        for written in targets[:1]:
            target = written.rstrip(").,;:")
            assert target in make_targets(), f"{name}: `make {target}`: no such target"


@pytest.mark.parametrize("name", PAGES)
def test_named_paths_exist(name: str) -> None:
    missing = [path for path in named_paths(PAGES[name].read_text()) if not path_exists(path)]
    assert not missing, f"{name} names paths that do not exist: {missing}"


@pytest.mark.parametrize("name", PAGES)
def test_named_modules_exist(name: str) -> None:
    # A module named alone (`job_keys.py`), as a section about its folder names them.
    missing = [m for m in named_modules(PAGES[name].read_text()) if not module_exists(m)]
    assert not missing, f"{name} names modules that do not exist: {missing}"


# Routes the docs name that are not this server's, each with why.
NOT_OURS = {
    "/v1/traces": "the OpenTelemetry collector's OTLP/HTTP path (`http://collector:4318/v1/traces`)",
}
# Served, but left out of the OpenAPI document: the translator page, and the API explorer
# with its files (`/docs/openapi.json`).
NOT_IN_THE_DOCUMENT = {
    "/": {"GET"},
    "/ui/config.json": {"GET"},
    "/docs": {"GET"},
    "/docs/{file}": {"GET"},
}


@cache
def served_routes() -> dict[str, set[str]]:
    """Every route of the committed OpenAPI document, with its methods (the integration
    tier's test_committed_openapi_document_is_what_the_app_serves keeps it current)."""
    document = json.loads((ROOT / "openapi/openapi.json").read_text())
    routes = {path: {method.upper() for method in ops} for path, ops in document["paths"].items()}
    return routes | NOT_IN_THE_DOCUMENT


@pytest.mark.parametrize("name", PAGES)
def test_named_routes_are_served(name: str) -> None:
    """Every route a page names under one of the app's first segments (`/v1/...`, `/v2/...`,
    `/v3/...`, `/translate...`, `/libretranslate/...`, Google's `/language/translate/...`,
    `/memories/...`, ...) is served, with the method written before it. Routes of the
    compatible APIs written relative to their prefix in compat.md's tables (`POST /suggest`)
    are checked where they fall under a first segment of the app's."""
    firsts = {route.split("/")[1] for route in served_routes() if route != "/"}
    unknown = [
        f"{method or ''} {path}".strip()
        for method, path in route_mentions(PAGES[name].read_text(), firsts)
        if path.split("?")[0].rstrip(".,;:") not in NOT_OURS
        and not route_is_served(path, method, served_routes())
    ]
    assert not unknown, f"{name} names routes the server does not serve: {unknown}"


def test_a_route_that_is_not_served_is_found() -> None:
    served = {"/v2/translate": {"POST"}, "/v3/projects/{parent}": {"POST"}}
    assert route_is_served("/v2/translate", "POST", served)
    assert route_is_served("/v2/...", None, served)
    assert route_is_served("/v3/projects/{p}[/locations/{l}]:translateText", None, served)
    assert not route_is_served("/v2/translate", "GET", served)
    assert not route_is_served("/v2/rate_limits", None, served)
    assert route_mentions("`POST /v2/translate`, see tests/unit/v2/x", {"v2"}) == [
        ("POST", "/v2/translate")
    ]


@pytest.mark.parametrize("name", PAGES)
def test_relative_links_resolve(name: str) -> None:
    for link in relative_links(PAGES[name]):
        target, anchor = link.resolved()
        assert target.exists(), f"{name}: ({link.target}): no such file"
        if anchor and target.suffix == ".md":
            assert anchor in anchors(target), f"{name}: ({link.target}): no such heading"


def test_the_reference_names_every_translate_field() -> None:
    reference = (ROOT / "docs/api.md").read_text()
    for struct in (TranslateRequest, TranslateResponse):
        for field in msgspec.structs.fields(struct):
            in_a_row = rf"^\|[^|\n]*`{field.name}`"
            assert re.search(in_a_row, reference, re.MULTILINE), (
                f"docs/api.md: the `{field.name}` field of {struct.__name__}"
            )


def test_compose_commands_name_files_and_profiles_that_exist() -> None:
    commands = compose_commands()
    assert "docker compose up" in commands  # the newcomer's
    for command, arguments in commands.items():
        files = [arguments[i + 1] for i, word in enumerate(arguments) if word == "-f"]
        services: dict = {}
        for file in files or ["docker-compose.yml"]:
            assert (ROOT / file).is_file(), f"`{command}`: no {file}"
            services.update(read(file).get("services", {}))
        profiles = {p for service in services.values() for p in (service.get("profiles") or [])}
        for i, word in enumerate(arguments):
            if word == "--profile":
                assert arguments[i + 1] in profiles, f"`{command}`: no profile {arguments[i + 1]}"


def test_profiles_named_in_prose_and_comments_exist() -> None:
    """A profile named ("the `tracing` profile") in a page or in the comments of the
    compose files and the deploy configs is a profile of some compose file (a compose file
    of its own is no profile)."""
    profiles = {
        profile
        for file in ROOT.glob("docker-compose*.yml")
        for service in (read(file.name).get("services") or {}).values()
        for profile in service.get("profiles") or []
    }
    sources = [*pages(), *ROOT.glob("docker-compose*.yml"), *ROOT.glob("deploy/**/*.yml")]
    for source in sources:
        text = source.read_text()
        named = re.findall(r"`([\w-]+)` profile|profile `([\w-]+)`", text)
        for profile in filter(None, (a or b for a, b in named)):
            assert profile in profiles, f"{relative(source)}: no compose profile `{profile}`"
