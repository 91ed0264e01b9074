"""Every option, derived from the settings fields: its flag, its variable, its help, its row.

The help text is the field's `Meta(description=...)` rather than an attribute docstring: msgspec
already carries it at run time, so an installed wheel (even one without sources, or with `-OO`)
reads it with no `inspect.getsource` or parsing of the module, and the bounds sit beside it.
"""

from __future__ import annotations

import types
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated, Any, Literal, Union, get_args, get_origin, get_type_hints

import msgspec

from translate_server.settings.sections import Settings

ENV_PREFIX = "TRANSLATE_"


@dataclass(frozen=True)
class Option:
    """One setting: its flag `--name-with-dashes`, its variable `TRANSLATE_NAME`, its place."""

    name: str
    section: str
    field: str  # the field it sets (`api_key` and `api_key_file` both set `api_keys`)
    help: str
    default: Any
    kind: type = str
    choices: tuple[str, ...] | None = None
    repeatable: bool = False
    separator: str = ","  # between a repeatable option's values in its variable
    reads_file: bool = False  # the value names a file whose lines are the values

    @property
    def flag(self) -> str:
        return "--" + self.name.replace("_", "-")

    @property
    def env(self) -> str:
        return ENV_PREFIX + self.name.upper()


@dataclass(frozen=True)
class _FieldType:
    kind: type
    choices: tuple[str, ...] | None
    repeatable: bool
    help: str
    extra: dict[str, Any]


def _field_type(annotation: Any) -> _FieldType:
    """Unwrap `Annotated[T, Meta(...)] | None` into the parts an option needs."""
    if get_origin(annotation) in (Union, types.UnionType):
        arms = [arm for arm in get_args(annotation) if arm is not type(None)]
        if len(arms) != 1:
            raise TypeError(f"a setting is one type or None, not {annotation}")
        annotation = arms[0]
    if get_origin(annotation) is not Annotated:
        raise TypeError(f"a setting needs Annotated[T, Meta(description=...)], not {annotation}")
    value_type, *extras = get_args(annotation)
    metas = [extra for extra in extras if isinstance(extra, msgspec.Meta)]
    if len(metas) != 1 or not metas[0].description:
        raise TypeError(f"a setting needs one Meta with a description: {annotation}")
    help_text, extra = metas[0].description, metas[0].extra or {}
    if get_origin(value_type) is Literal:
        choices = get_args(value_type)
        return _FieldType(type(choices[0]), choices, False, help_text, extra)
    if get_origin(value_type) is tuple:
        return _FieldType(get_args(value_type)[0], None, True, help_text, extra)
    return _FieldType(value_type, None, False, help_text, extra)


def _section_options(section: str, section_type: type[msgspec.Struct]) -> list[Option]:
    hints = get_type_hints(section_type, include_extras=True)
    options = []
    for field in msgspec.structs.fields(section_type):
        parts = _field_type(hints[field.name])
        extra = parts.extra
        option = Option(
            name=extra.get("option", field.name),
            section=section,
            field=field.name,
            help=parts.help,
            default=field.default,
            kind=parts.kind,
            choices=parts.choices,
            repeatable=parts.repeatable,
            separator=extra.get("separator", ","),
        )
        options.append(option)
        if "file_option" in extra:
            file_help = extra["file_description"]
            file_option = Option(
                extra["file_option"], section, field.name, file_help, None, reads_file=True
            )
            options.append(file_option)
    return options


def _options() -> tuple[Option, ...]:
    return tuple(
        option
        for section in msgspec.structs.fields(Settings)
        for option in _section_options(section.name, section.type)
    )


OPTIONS: tuple[Option, ...] = _options()


def _shown_default(default: Any) -> str:
    """A default as docs/configuration.md shows it: paths under the home directory as `~/...`,
    not this machine's own home."""
    if default in (None, ()):
        return ""
    if isinstance(default, str) and Path(default).is_absolute():
        path, home = Path(default), Path.home()
        if path.is_relative_to(home):
            default = "~/" + path.relative_to(home).as_posix()
    return f"`{default}`"


def configuration_table(options: Sequence[Option] = OPTIONS) -> str:
    """The Markdown table of every option, as docs/configuration.md shows it."""
    rows = ["| flag | environment variable | default | meaning |", "|---|---|---|---|"]
    rows.extend(
        f"| `{option.flag}` | `{option.env}` | {_shown_default(option.default)} | {option.help} |"
        for option in options
    )
    return "\n".join(rows)
