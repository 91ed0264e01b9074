"""The documentation read as a newcomer reads it: its pages, the commands and paths they name,
their links; and what those names must match (`--help` texts, make targets, files)."""

from __future__ import annotations

import argparse
import re
import shlex
import subprocess
from collections.abc import Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cache
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "src" / "translate_server"


def pages() -> list[Path]:
    """Every page a reader is sent to: the README, ARCHITECTURE.md, docs/ and deploy/."""
    return [
        ROOT / "README.md",
        ROOT / "ARCHITECTURE.md",
        ROOT / "deploy" / "README.md",
        *sorted((ROOT / "docs").glob("*.md")),
    ]


def relative(page: Path) -> str:
    return page.relative_to(ROOT).as_posix()


_FENCE = re.compile(r"^```(\w*)\n(.*?)^```", re.MULTILINE | re.DOTALL)
_INLINE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")
_LINK = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of each fenced code block."""
    return [(match[1], match[2]) for match in _FENCE.finditer(text)]


def prose(text: str) -> str:
    """The text outside fenced code blocks."""
    return _FENCE.sub("", text)


def inline_code(text: str) -> list[str]:
    return _INLINE.findall(prose(text))


def shell_lines(text: str) -> list[str]:
    """Commands of the shell blocks, continuation lines joined, comments dropped."""
    lines: list[str] = []
    for language, body in fenced_blocks(text):
        if language not in ("sh", "bash", "shell", ""):
            continue
        for line in body.replace("\\\n", " ").splitlines():
            stripped = line.strip()
            if stripped and not stripped.startswith("#"):
                lines.append(stripped)
    return lines


def command_texts(text: str) -> list[str]:
    """Every command a page shows: shell lines, and inline code that reads as a command."""
    return shell_lines(text) + inline_code(text)


def words(command: str) -> list[str]:
    """A command's words as the shell splits them (a trailing comment dropped)."""
    try:
        return shlex.split(command, comments=True)
    except ValueError:  # an unbalanced quote in prose: split on spaces
        return command.split()


def invocations(text: str, program: re.Pattern[str]) -> Iterator[list[str]]:
    """The words after each call of `program` (a pattern of one word) in a page's commands."""
    for command in command_texts(text):
        for segment in re.split(r"&&|\|\||;|\|", command):
            found = words(segment)
            for index, word in enumerate(found):
                if program.fullmatch(word):
                    yield found[index + 1 :]
                    break


def flags(arguments: list[str]) -> list[str]:
    """The long options among a command's words, without their `=value`."""
    return [
        word.split("=", 1)[0] for word in arguments if re.fullmatch(r"--[a-z][\w-]*(=.*)?", word)
    ]


# -- what the names must match -------------------------------------------------------------


def _choices(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            return dict(action.choices)
    return {}


@cache
def help_texts() -> dict[str, str]:
    """`--help` of every command the docs may name: `translate-server serve`, `bench run`, ...,
    and `python -m benchmarks compare`, ..."""
    from benchmarks.__main__ import build_parser as benchmarks_parser
    from translate_server.adapt.cli import _parser as adapt_parser
    from translate_server.bench import build_parser as bench_parser
    from translate_server.cli import _parser as cli_parser

    texts = {
        f"translate-server {name}": parser.format_help()
        for name, parser in _choices(cli_parser()).items()
        if name not in ("adapt", "bench")
    }
    for group in ("db", "keys", "accounts"):
        for name, parser in _choices(_choices(cli_parser())[group]).items():
            texts[f"translate-server {group} {name}"] = parser.format_help()
    texts["translate-server adapt"] = adapt_parser().format_help()
    texts["translate-server bench"] = bench_parser().format_help()
    for name, parser in _choices(bench_parser()).items():
        texts[f"translate-server bench {name}"] = parser.format_help()
    for name, parser in _choices(benchmarks_parser()).items():
        texts[f"python -m benchmarks {name}"] = parser.format_help()
    return texts


@cache
def script_flags() -> dict[str, set[str]]:
    """The flags each benchmark script (`python benchmarks/NAME.py`) spells in its source."""
    return {
        f"benchmarks/{path.name}": set(re.findall(r"[\"'](--[a-z][\w-]*)[\"']", path.read_text()))
        for path in (ROOT / "benchmarks").glob("*.py")
    }


@cache
def make_targets() -> set[str]:
    makefile = (ROOT / "Makefile").read_text()
    targets = set(re.findall(r"^([\w-]+):(?!=)", makefile, re.MULTILINE))
    tiers = re.search(r"^TIERS := (.+)$", makefile, re.MULTILINE)
    assert tiers, "the Makefile's TIERS"
    targets.update(f"test-{tier}" for tier in tiers[1].split())
    return targets


@cache
def repository_files() -> frozenset[str]:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=True,
    ).stdout.split()
    folders = {str(Path(path).parent) + "/" for path in listed}
    while True:
        parents = {str(Path(folder).parent) + "/" for folder in folders} - folders - {"./"}
        if not parents:
            break
        folders |= parents
    return frozenset(listed) | frozenset(folders)


def path_exists(path: str) -> bool:
    """A path as the docs write it: from the root, or from the package (`http/gate.py`), or
    the tail of one (`prompts/templates.toml`)."""
    files = repository_files()
    path = path.removeprefix("./")
    return (
        path in files
        or f"src/translate_server/{path}" in files
        or any(known.endswith("/" + path) for known in files)
    )


# Paths: something with a slash and a file's or folder's look, not a route, URL or placeholder.
_PATH = re.compile(r"[\w.-]+(/[\w.-]+)*/[\w.-]+(\.\w+|/)|[\w.-]+/")
# Packages whose own files the docs name (where vLLM does something), not this repository's.
THIRD_PARTY = ("vllm", "torch", "transformers", "litestar", "uvicorn")
_FILE_SUFFIXES = (".py", ".md", ".yml", ".yaml", ".toml", ".json", ".cfg", ".sh", ".png", ".html")


def named_paths(text: str) -> list[str]:
    """File and folder paths in a page's inline code and commands."""
    found = []
    candidates = inline_code(text) + [w for line in shell_lines(text) for w in words(line)]
    for written in candidates:
        candidate = written.strip().rstrip(".,:;")
        if not _PATH.fullmatch(candidate) or "://" in candidate:
            continue
        parts = [part for part in candidate.strip("/").split("/") if part]
        if any(part.isupper() or part in ("..", ".") for part in parts):  # OUTPUT/, ../
            continue
        if parts[0] in THIRD_PARTY or not all(re.search(r"[a-z]", part) for part in parts):
            continue  # another project's file, or no path at all (a model's `1.0.0.0/`)
        if candidate.endswith("/") or candidate.endswith(_FILE_SUFFIXES):
            found.append(candidate)
    return found


@dataclass(frozen=True)
class Link:
    page: Path
    target: str  # as written

    def resolved(self) -> tuple[Path, str]:
        """The file it points to and its anchor ("" for none)."""
        path, _, anchor = self.target.partition("#")
        file = (self.page.parent / path).resolve() if path else self.page
        return file, anchor


def relative_links(page: Path) -> list[Link]:
    return [
        Link(page, target)
        for target in _LINK.findall(prose(page.read_text()))
        if not re.match(r"[a-z]+:", target)  # http:, https:, mailto:
    ]


def anchors(page: Path) -> set[str]:
    """GitHub's anchors of a page's headings: lower case, punctuation dropped, spaces to
    hyphens, a repeated one numbered."""
    found: set[str] = set()
    for heading in re.findall(r"^#{1,6} (.+)$", prose(page.read_text()), re.MULTILINE):
        slug = re.sub(r"[^\w\- ]", "", heading.strip().lower()).replace(" ", "-")
        candidate, number = slug, 0
        while candidate in found:
            number += 1
            candidate = f"{slug}-{number}"
        found.add(candidate)
    return found


def compose_commands() -> dict[str, list[str]]:
    """Every `docker compose` command in the docs (and in the comments of the compose files
    and deploy/docker's scripts): its words after `docker compose`."""
    found: dict[str, list[str]] = {}
    sources = [
        *pages(),
        *ROOT.glob("docker-compose*.yml"),
        *ROOT.glob("deploy/docker/*.yml"),
        *ROOT.glob("deploy/docker/*.sh"),
    ]
    for source in sources:
        text = source.read_text()
        if source.suffix in (".yml", ".sh"):  # the commands in a file's comments
            body = "\n".join(
                line.lstrip("# ").replace("`", "")
                for line in text.splitlines()
                if line.startswith("#")
            )
            text = f"```sh\n{body.replace(chr(92) + chr(10), ' ')}\n```\n"
        for command in command_texts(text):
            for segment in re.split(r"&&|\|\||;|\|", command):
                found_words = words(segment)
                for index in range(1, len(found_words)):
                    if found_words[index - 1 : index + 1] == ["docker", "compose"]:
                        arguments = [word.rstrip(":.,") for word in found_words[index + 1 :]]
                        found.setdefault(" ".join(["docker compose", *arguments]), arguments)
                        break
    return found


# -- claims the source can check: routes, error codes, module names ------------------------

_METHOD = r"(?:\b(GET|POST|PUT|PATCH|DELETE|OPTIONS) )?"
# Where a route starts: after a space, quote, bracket or backtick, or after a host and port
# in a URL (`localhost:8000/v1`); never inside a file path (`tests/unit/docs/`).
_ROUTE_START = r"(?:(?<=[\s`'\"(\[=])|^|(?<=:\d{4})|(?<=localhost))"


def route_mentions(text: str, first_segments: Iterable[str]) -> list[tuple[str | None, str]]:
    """(method or None, path as written) of each route a page names, anywhere in it (prose,
    tables, commands): the paths whose first segment is one of the app's."""
    segments = "|".join(re.escape(segment) for segment in sorted(first_segments))
    pattern = re.compile(
        rf"{_METHOD}{_ROUTE_START}(/(?:{segments})(?![\w-])[^\s`'\"),|]*)", re.MULTILINE
    )
    return [(match[1], match[2]) for match in pattern.finditer(text)]


def _spellings(path: str) -> list[str]:
    """A path with its optional parts (`/v3/projects/{p}[/locations/{l}]`) left out and in."""
    optional = re.search(r"\[([^\]]*)\]", path)
    if optional is None:
        return [path]
    before, after = path[: optional.start()], path[optional.end() :]
    return _spellings(before + after) + _spellings(before + optional[1] + after)


def route_is_served(
    written: str, method: str | None, served: Mapping[str, Collection[str]]
) -> bool:
    """Whether a route as the docs write it is one of `served` (path: methods): a parameter of
    the route stands for any segment; `/v2/...`, `/v2/*` and `/v2/` name every route under
    `/v2`; a query or trailing punctuation is not the path's."""
    path = written.split("?", 1)[0].rstrip(".,;:")
    under = path.endswith(("/...", "/*", "/")) or path.count("/") == 1
    path = re.sub(r"/(\.\.\.|\*)?$", "", path)
    for spelling in _spellings(path):
        wanted = spelling.strip("/").split("/")
        for route, methods in served.items():
            parts = route.strip("/").split("/")
            if len(parts) < len(wanted) or (len(parts) > len(wanted) and not under):
                continue
            matches = all(p.startswith("{") or p == w for w, p in zip(wanted, parts, strict=False))
            if matches and (method is None or method in methods):
                return True
    return False


# A status then an error code in backticks: "a 429 `too_many_documents`", "(413
# `document_too_large`)"; upper-case names (Google's `INVALID_ARGUMENT`) are not this server's.
_STATUS_CODE = re.compile(r"\b([1-5]\d\d)\)?,? (?:with the reason )?`([a-z][a-z0-9_]*)`")


def status_codes(text: str) -> list[tuple[int, str]]:
    """(status, code) of each error code written beside its status."""
    flat = re.sub(r"\s+", " ", text)
    return [(int(match[1]), match[2]) for match in _STATUS_CODE.finditer(flat)]


def named_modules(text: str) -> list[str]:
    """Python file names written alone in inline code (`job_keys.py`), not a glob's part."""
    return [
        name
        for span in inline_code(text)
        if "*" not in span
        for name in re.findall(r"(?<![\w/.*-])([\w-]+\.py)\b", span)
    ]


def module_exists(name: str) -> bool:
    return any(path.rsplit("/", 1)[-1] == name for path in repository_files())
