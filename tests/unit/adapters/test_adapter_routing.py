"""Which adapter serves a request, and what an adapter's description says it serves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from translate_server.adapters.routing import choose, specificity
from translate_server.adapters.spec import (
    AdapterSpec,
    AdapterSpecError,
    parse_lora_option,
    parse_rules,
    write_serves_file,
)


def spec(name: str, *rules: str) -> AdapterSpec:
    pairs, domains = parse_rules(list(rules))
    return AdapterSpec(name=name, path="/x", pairs=pairs, domains=domains)


ADAPTERS = [
    spec("any-de", "*-de"),
    spec("en-any", "en-*"),
    spec("en-de", "en-de"),
    spec("ui", "domain=ui"),
    spec("ui-en-de", "en-de", "domain=ui"),
    spec("by-name-only"),
]


def chosen(source: str, target: str, domain: str | None = None) -> str | None:
    return choose(((s, s.name) for s in ADAPTERS), source, target, domain)


@pytest.mark.parametrize(
    ("source", "target", "domain", "expected"),
    [
        ("en", "de", None, "en-de"),  # the exact pair beats either wildcard
        ("en", "de-CH", None, "en-de"),  # primary subtags
        ("EN", "fr", None, "en-any"),
        ("fr", "de", None, "any-de"),
        ("fr", "ja", None, None),  # nothing serves it: the base model
        ("en", "de", "ui", "ui-en-de"),  # domain and pair beat domain alone and pair alone
        ("fr", "ja", "ui", "ui"),
        ("en", "fr", "ui", "ui"),  # a matched domain outweighs any pair
        ("en", "de", "legal", "en-de"),  # an unknown domain: the pair rules still apply
    ],
)
def test_the_most_specific_adapter_wins(source, target, domain, expected):
    assert chosen(source, target, domain) == expected


def test_an_adapter_of_a_domain_never_answers_requests_outside_it():
    assert specificity(spec("ui", "domain=ui"), "en", "de", None) is None
    assert specificity(spec("ui", "en-de", "domain=ui"), "en", "fr", "ui") is None


def test_equally_specific_adapters_are_told_apart_by_name_not_order():
    both = [spec("b", "en-de"), spec("a", "en-de")]
    assert choose(((s, s.name) for s in both), "en", "de", None) == "a"
    assert choose(((s, s.name) for s in reversed(both)), "en", "de", None) == "a"


@pytest.mark.parametrize("rule", ["english-de", "en", "en-de-ch", "domain=", "1-2"])
def test_a_rule_that_is_not_one_is_refused(rule):
    with pytest.raises(AdapterSpecError):
        parse_rules([rule])


def _adapter_dir(tmp_path: Path, rank: int = 8) -> Path:
    folder = tmp_path / "adapter"
    folder.mkdir()
    (folder / "adapter_config.json").write_text(
        json.dumps({"peft_type": "LORA", "r": rank, "base_model_name_or_path": "base"})
    )
    return folder


def test_the_option_names_an_adapter_and_what_it_serves(tmp_path):
    folder = _adapter_dir(tmp_path, rank=4)
    parsed = parse_lora_option(f"de-ui={folder}@en-de,domain=UI")
    assert (parsed.name, parsed.path, parsed.rank) == ("de-ui", str(folder), 4)
    assert parsed.serves == ["en-de", "domain=ui"]
    assert parsed.base_model == "base"


def test_without_rules_in_the_option_the_adapters_own_file_says_what_it_serves(tmp_path):
    folder = _adapter_dir(tmp_path)
    assert parse_lora_option(f"plain={folder}").serves == []
    write_serves_file(folder, ["en-*"], "tiny")
    parsed = parse_lora_option(f"plain={folder}")
    assert parsed.serves == ["en-*"]
    assert parsed.base_model == "tiny"


@pytest.mark.parametrize("value", ["no-equals", "=/path", "bad name=/x"])
def test_a_malformed_option_is_refused(tmp_path, value):
    with pytest.raises(AdapterSpecError):
        parse_lora_option(value)


def test_a_folder_without_an_adapter_is_refused(tmp_path):
    with pytest.raises(AdapterSpecError, match="no LoRA adapter"):
        parse_lora_option(f"x={tmp_path}")
