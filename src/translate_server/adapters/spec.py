"""What a LoRA adapter is and what it serves: `NAME=PATH[@RULES]` from the settings, or the
rules in its own `translate-server.json` (which `translate-server adapt` writes).

Rules, comma-separated: `en-de` (a language pair), `en-*` or `*-de` (any target or source),
`domain=ui` (requests that name that domain). Languages are primary subtags: `de` also serves
`de-CH`. Pure: reads files, never the engine.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import msgspec

# Beside peft's adapter_config.json: what the adapter serves, and the base model it was made for.
SERVES_FILE = "translate-server.json"
ANY = "*"
_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")
_LANGUAGE = re.compile(r"[a-z]{2,3}|\*")


class AdapterSpecError(ValueError):
    """An adapter that cannot be served as described (the message says why)."""


class AdapterSpec(msgspec.Struct, frozen=True, kw_only=True):
    name: str
    path: str
    # (source, target) primary subtags, either of them `*`.
    pairs: tuple[tuple[str, str], ...] = ()
    domains: tuple[str, ...] = ()
    rank: int = 0
    base_model: str | None = None

    @property
    def serves(self) -> list[str]:
        """The rules as they are written (`en-de`, `domain=ui`)."""
        return [f"{s}-{t}" for s, t in self.pairs] + [f"domain={d}" for d in self.domains]


class ServesFile(msgspec.Struct, frozen=True, kw_only=True):
    serves: list[str] = []
    base_model: str | None = None


def parse_rules(rules: list[str]) -> tuple[tuple[tuple[str, str], ...], tuple[str, ...]]:
    """`["en-de", "en-*", "domain=ui"]` -> the pairs and the domains."""
    pairs: list[tuple[str, str]] = []
    domains: list[str] = []
    for raw in rules:
        rule = raw.strip()
        if not rule:
            continue
        if rule.startswith("domain="):
            domain = rule.removeprefix("domain=").strip().lower()
            if not domain:
                raise AdapterSpecError(f"`{rule}` names no domain")
            domains.append(domain)
            continue
        source, dash, target = rule.lower().partition("-")
        if not dash or not _LANGUAGE.fullmatch(source) or not _LANGUAGE.fullmatch(target):
            raise AdapterSpecError(
                f"`{rule}` is not a rule: write a pair of primary language subtags (`en-de`, "
                "`en-*`, `*-de`) or `domain=NAME`"
            )
        pairs.append((source, target))
    return tuple(dict.fromkeys(pairs)), tuple(dict.fromkeys(domains))


def read_adapter(name: str, path: str, rules: list[str] | None = None) -> AdapterSpec:
    """The adapter at `path` (a peft LoRA directory), serving `rules` or, when None, what its
    own `translate-server.json` says (nothing: it is only chosen by name)."""
    if not _NAME.fullmatch(name):
        raise AdapterSpecError(
            f"`{name}` is not an adapter name: letters, digits, `.`, `_` and `-`, up to 64"
        )
    folder = Path(path).expanduser()
    config = folder / "adapter_config.json"
    try:
        peft_config = json.loads(config.read_text())
    except OSError:
        raise AdapterSpecError(f"no LoRA adapter at {folder} (no adapter_config.json)") from None
    except ValueError:
        raise AdapterSpecError(f"{config} is not JSON") from None
    if peft_config.get("peft_type", "LORA") != "LORA":
        raise AdapterSpecError(f"{folder} holds a {peft_config['peft_type']} adapter, not LoRA")
    own = _serves_file(folder)
    pairs, domains = parse_rules(own.serves if rules is None else rules)
    return AdapterSpec(
        name=name,
        path=str(folder.resolve()),
        pairs=pairs,
        domains=domains,
        rank=int(peft_config.get("r", 0)),
        base_model=own.base_model or peft_config.get("base_model_name_or_path"),
    )


def _serves_file(folder: Path) -> ServesFile:
    found = folder / SERVES_FILE
    if not found.exists():
        return ServesFile()
    try:
        return msgspec.json.decode(found.read_bytes(), type=ServesFile)
    except msgspec.DecodeError as exc:
        raise AdapterSpecError(f"{found}: {exc}") from None


def parse_lora_option(value: str) -> AdapterSpec:
    """`NAME=PATH` or `NAME=PATH@RULE,RULE` (the `--lora` setting)."""
    name, equals, rest = value.partition("=")
    if not equals or not rest.strip():
        raise AdapterSpecError(f"--lora takes NAME=PATH, not `{value}`")
    path, at, rules = rest.rpartition("@") if "@" in rest else (rest, "", "")
    return read_adapter(name.strip(), path.strip(), rules.split(",") if at else None)


def write_serves_file(folder: Path, rules: list[str], base_model: str | None) -> None:
    parse_rules(rules)  # refuse what a server would refuse
    (folder / SERVES_FILE).write_bytes(
        msgspec.json.format(msgspec.json.encode(ServesFile(serves=rules, base_model=base_model)))
    )
