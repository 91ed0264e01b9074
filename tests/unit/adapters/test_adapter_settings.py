"""`--lora` is repeatable on the command line and `;`-separated in the environment."""

from __future__ import annotations

from translate_server.inference.engine.engine_args import engine_args_kwargs
from translate_server.settings import load_settings


def test_lora_from_the_environment_and_from_flags():
    from_env = load_settings(environ={"TRANSLATE_LORA": "a=/x@en-de,en-fr; b=/y"})
    assert from_env.engine.lora == ("a=/x@en-de,en-fr", "b=/y")
    from_flags = load_settings({"lora": ["a=/x", "b=/y"]}, environ={"TRANSLATE_LORA": "c=/z"})
    assert from_flags.engine.lora == ("a=/x", "b=/y")


def test_the_engine_is_started_for_lora_only_when_adapters_are_configured_or_enabled():
    def lora_args(**overrides: object) -> dict:
        engine = load_settings(overrides, environ={}).engine
        kwargs = engine_args_kwargs(engine, "m", on_cpu=True, flags=frozenset())
        return {k: v for k, v in kwargs.items() if "lora" in k}

    assert lora_args() == {}
    expected = {"enable_lora": True, "max_loras": 2, "max_lora_rank": 32}
    assert lora_args(lora=["a=/x"], max_loras=2, max_lora_rank=32) == expected
    assert lora_args(enable_lora=True, max_loras=2, max_lora_rank=32) == expected
