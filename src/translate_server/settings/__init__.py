"""Configuration: one frozen struct per concern, loaded from flags and `TRANSLATE_*` variables.

Every option is declared once, as an annotated field in `sections.py` (the engine's in
`engine_section.py`); its flag, its variable, its `--help` line and its row in
docs/configuration.md are derived from that field (`options.py`), and `load_settings`
(`loading.py`) reads the variables and flags into the structs.

Adding an option: add ONE field to the struct of its section (`sections.py`, or
`engine_section.py` for `EngineSettings`), where it should appear in `--help` and the table,
e.g. in `LimitSettings`:

    max_widgets: Annotated[int, Meta(gt=0, description="Widgets per request (413 beyond).")] = 8

- The field name is the option: `--max-widgets`, `TRANSLATE_MAX_WIDGETS`, `max_widgets` in
  `load_settings` overrides. Its default is the field's default.
- The help is the `description` (one sentence or more, ending with a full stop); bounds (`gt`,
  `ge`, `le`, ...) go in the same `Meta`; msgspec checks them on load.
- Optional (no default value): `Annotated[T, Meta(description=...)] | None = None`.
- A choice: `Annotated[Literal["a", "b"], Meta(description=...)] = "a"`.
- A boolean gets `--x` and `--no-x` by itself.
- A tuple (`tuple[str, ...]`) is a repeatable flag and a comma-separated variable; `api_keys`
  shows how `Meta(extra=...)` renames its flag and adds a file of values; `lora` how
  `extra={"separator": ";"}` splits the variable where a value itself holds commas.

Then `make docs` regenerates the table in docs/configuration.md (tests/unit/docs fails until
it does), and one line in docker-compose.yml passes the variable through to the container
(tests/deploy says where). An `Option(...)` written elsewhere is the old style; turn it into
the field.
"""

from translate_server.settings.loading import SettingsError, load_settings, parse_bool
from translate_server.settings.options import ENV_PREFIX, OPTIONS, Option, configuration_table
from translate_server.settings.sections import (
    DEFAULT_MODEL,
    DocumentSettings,
    EngineSettings,
    LimitSettings,
    ServerSettings,
    Settings,
    TranslationSettings,
)

__all__ = [
    "DEFAULT_MODEL",
    "ENV_PREFIX",
    "OPTIONS",
    "DocumentSettings",
    "EngineSettings",
    "LimitSettings",
    "Option",
    "ServerSettings",
    "Settings",
    "SettingsError",
    "TranslationSettings",
    "configuration_table",
    "load_settings",
    "parse_bool",
]
