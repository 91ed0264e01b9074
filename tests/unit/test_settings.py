from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Annotated

import msgspec
import pytest

from translate_server.cli import _parser
from translate_server.settings import (
    DEFAULT_MODEL,
    OPTIONS,
    Settings,
    SettingsError,
    configuration_table,
    load_settings,
)
from translate_server.settings.options import _section_options


def test_defaults_without_environment() -> None:
    settings = load_settings(environ={})
    assert settings.engine.model == DEFAULT_MODEL
    assert settings.engine.model_name == DEFAULT_MODEL
    assert settings.engine.max_num_seqs == 16
    assert settings.server.port == 8000 and settings.server.host == "127.0.0.1"
    assert settings.limits.queue_limit(16) == 64


def test_environment_then_flags_win() -> None:
    env = {
        "TRANSLATE_MODEL": "/models/x",
        "TRANSLATE_MAX_NUM_SEQS": "32",
        "TRANSLATE_PORT": "9000",
        "TRANSLATE_ENFORCE_EAGER": "false",
    }
    settings = load_settings({"port": 9100, "max_num_seqs": None}, environ=env)
    assert settings.engine.model == "/models/x"
    assert settings.engine.max_num_seqs == 32
    assert settings.server.port == 9100
    assert settings.engine.enforce_eager is False


def test_served_model_name() -> None:
    settings = load_settings({"served_model_name": "tiny"}, environ={})
    assert settings.engine.model_name == "tiny"


@pytest.mark.parametrize(
    "env",
    [
        {"TRANSLATE_PORT": "eighty"},
        {"TRANSLATE_DTYPE": "float8"},
        {"TRANSLATE_ENFORCE_EAGER": "maybe"},
        {"TRANSLATE_API_KEY_FILE": "/no/such/file"},
        {"TRANSLATE_KV_CACHE_GIB": "0"},
        {"TRANSLATE_KV_CACHE_GIB": "lots"},
    ],
)
def test_bad_values_are_refused(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        load_settings(environ=env)


def test_api_keys_from_flags_variable_and_file(tmp_path: Path) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text("# comment\nfile-key\n\n")
    settings = load_settings(
        {"api_key": ["flag-key"], "api_key_file": str(key_file)},
        environ={"TRANSLATE_API_KEY": "env-a,env-b"},
    )
    assert settings.server.api_keys == ("flag-key", "file-key")
    from_env = load_settings(environ={"TRANSLATE_API_KEY": "env-a, env-b"})
    assert from_env.server.api_keys == ("env-a", "env-b")


def test_every_option_is_a_flag_and_in_the_table() -> None:
    help_text = _parser()._subparsers._group_actions[0].choices["serve"].format_help()
    table = configuration_table()
    for option in OPTIONS:
        assert option.flag in help_text
        assert option.env in help_text
        assert f"`{option.env}`" in table


def test_flags_reach_the_settings_including_the_special_cases(tmp_path: Path) -> None:
    key_file = tmp_path / "keys"
    key_file.write_text("file-key\n")
    args = _parser().parse_args(
        [
            "serve",
            *("--api-key", "a", "--api-key", "b", "--api-key-file", str(key_file)),
            *("--no-ui", "--dtype", "float16", "--document-share", "0.25"),
        ]
    )
    settings = load_settings(vars(args), environ={})
    assert settings.server.api_keys == ("a", "b", "file-key")
    assert settings.server.ui is False and settings.engine.dtype == "float16"
    assert settings.documents.document_share == 0.25
    with pytest.raises(SystemExit):  # a choice outside the Literal, refused by argparse
        _parser().parse_args(["serve", "--dtype", "float8"])


@pytest.mark.parametrize(
    "env",
    [
        {"TRANSLATE_DOCUMENT_SHARE": "1.5"},  # the field's Meta(le=1)
        {"TRANSLATE_MAX_MEMORY_ENTRIES": "0"},  # Meta(gt=0)
        {"TRANSLATE_LOG_LEVEL": "verbose"},  # Literal
    ],
)
def test_bounds_and_choices_come_from_the_fields(env: dict[str, str]) -> None:
    with pytest.raises(SettingsError):
        load_settings(environ=env)


def test_every_field_is_an_option_in_field_order() -> None:
    for section in msgspec.structs.fields(Settings):
        fields = [field.name for field in msgspec.structs.fields(section.type)]
        options = [option.field for option in OPTIONS if option.section == section.name]
        assert list(dict.fromkeys(options)) == fields
    assert [option.name for option in OPTIONS if option.field == "api_keys"] == [
        "api_key",
        "api_key_file",
    ]
    dtype = next(option for option in OPTIONS if option.name == "dtype")
    assert dtype.choices == ("auto", "float32", "float16", "bfloat16") and dtype.kind is str


def test_a_field_without_a_description_is_refused_at_once() -> None:
    class Bare(msgspec.Struct):
        widgets: int = 8

    class Undescribed(msgspec.Struct):
        widgets: Annotated[int, msgspec.Meta(gt=0)] = 8

    for section in (Bare, Undescribed):
        with pytest.raises(TypeError, match="description"):
            _section_options("limits", section)


def test_the_table_shows_home_paths_as_tilde(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", "/home/someone")
    option = replace(OPTIONS[0], default="/home/someone/.cache/x")
    elsewhere = replace(OPTIONS[0], default="/srv/x")
    table = configuration_table([option, elsewhere])
    assert "| `~/.cache/x` |" in table and "| `/srv/x` |" in table
