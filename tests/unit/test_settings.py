from __future__ import annotations

from pathlib import Path

import pytest

from translate_server.cli import _parser
from translate_server.settings import (
    DEFAULT_MODEL,
    OPTIONS,
    SettingsError,
    configuration_table,
    load_settings,
)


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


def test_readme_configuration_table_is_current() -> None:
    readme = (Path(__file__).parents[2] / "README.md").read_text()
    assert configuration_table() in readme, (
        "README's configuration table drifted: "
        "paste `python -c 'from translate_server.settings import configuration_table as t; "
        "print(t())'`"
    )
