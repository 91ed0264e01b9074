"""Settings from `TRANSLATE_*` variables, with explicit values (flags) on top, checked once."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import msgspec

from translate_server.settings.options import OPTIONS, Option
from translate_server.settings.sections import Settings


class SettingsError(ValueError):
    pass


def parse_bool(value: str | bool) -> bool:
    if isinstance(value, bool):
        return value
    lowered = value.strip().lower()
    if lowered in ("1", "true", "yes", "on"):
        return True
    if lowered in ("0", "false", "no", "off"):
        return False
    raise SettingsError(f"not a boolean: {value!r}")


def load_settings(
    overrides: Mapping[str, Any] | None = None, environ: Mapping[str, str] | None = None
) -> Settings:
    """Settings from `TRANSLATE_*` variables, with explicit values (e.g. flags) on top.

    `overrides` maps option names to values; None values mean "not given".
    """
    environ = os.environ if environ is None else environ
    overrides = overrides or {}
    sections: dict[str, dict[str, Any]] = {
        section.name: {} for section in msgspec.structs.fields(Settings)
    }
    # Repeatable fields gather from every option that feeds them (`--api-key`, its file).
    gathered: dict[tuple[str, str], list[Any]] = {}
    for option in OPTIONS:
        value = overrides.get(option.name)
        if value is None or value == []:
            raw = environ.get(option.env)
            if raw is None or raw == "":
                continue
            value = raw
        if option.reads_file:
            gathered.setdefault((option.section, option.field), []).extend(
                _read_lines(option, str(value))
            )
        elif option.repeatable:
            values = (
                value if isinstance(value, list | tuple) else str(value).split(option.separator)
            )
            gathered.setdefault((option.section, option.field), []).extend(
                _coerce(option, item.strip()) for item in values if item.strip()
            )
        else:
            sections[option.section][option.field] = _coerce(option, value)
    for (section, field), values in gathered.items():
        if values:
            sections[section][field] = tuple(dict.fromkeys(values))
    try:
        return msgspec.convert(sections, Settings, strict=False)
    except msgspec.ValidationError as exc:
        raise SettingsError(str(exc)) from exc


def _coerce(option: Option, value: Any) -> Any:
    if option.kind is bool:
        return parse_bool(value)
    try:
        converted = option.kind(value)
    except (TypeError, ValueError) as exc:
        raise SettingsError(f"{option.flag} / {option.env}: {exc}") from exc
    if option.choices and converted not in option.choices:
        raise SettingsError(f"{option.flag} must be one of {', '.join(option.choices)}")
    return converted


def _read_lines(option: Option, path: str) -> list[str]:
    """The values in a file, one a line; blank lines and `#` comments skipped."""
    try:
        lines = Path(path).expanduser().read_text().splitlines()
    except OSError as exc:
        raise SettingsError(f"cannot read {option.flag} {path}: {exc.strerror}") from exc
    return [line.strip() for line in lines if line.strip() and not line.startswith("#")]
