"""An upload's form as plain values, and the order every surface maps its fields onto."""

from __future__ import annotations

import pytest

from translate_server.documents.job import DocumentOptions
from translate_server.documents.job_memory import JobMemory
from translate_server.documents.upload import DocumentOrder, Upload
from translate_server.errors import InvalidRequestError


def _form(**fields: str) -> Upload:
    return Upload(b"data", "talk.srt", dict(fields))


@pytest.mark.parametrize(("value", "yes"), [("1", True), ("Yes", True), ("on", True), ("x", False)])
def test_a_default_no_turns_yes_only_on_a_clear_yes(value: str, yes: bool) -> None:
    assert _form(neighbours=value).flag("neighbours", default=False) is yes
    assert _form().flag("neighbours", default=False) is False


@pytest.mark.parametrize(
    ("value", "yes"), [("0", False), ("OFF", False), ("no", False), ("x", True)]
)
def test_a_default_yes_turns_no_only_on_a_clear_no(value: str, yes: bool) -> None:
    assert _form(file_memory=value).flag("file_memory", default=True) is yes
    assert _form().flag("file_memory", default=True) is True


def test_auto_like_nothing_asks_for_detection() -> None:
    assert _form(source="auto").source_language("source") is None
    assert _form(source="").source_language("source") is None
    assert _form().source_language("source") is None
    assert _form(source="de").source_language("source") == "de"


def test_a_required_field_missing_is_refused_in_the_surface_s_words() -> None:
    with pytest.raises(InvalidRequestError) as refused:
        _form(target="").required("target", "Where to?")
    assert (refused.value.message, refused.value.param) == ("Where to?", "target")
    assert _form(target="de").required("target", "Where to?") == "de"


def test_an_order_s_options_are_the_job_s() -> None:
    assert DocumentOrder(target_lang="de").options() == DocumentOptions()
    memory = JobMemory(memory="m1", memory_threshold=80.0, memory_owner="o")
    order = DocumentOrder(
        target_lang="de",
        formality="more",
        glossary={"cat": "Katze"},
        instructions=("Be brief.",),
        memory=memory,
        retranslate=True,
        file_memory=False,
        neighbours=True,
    )
    assert order.options() == DocumentOptions(
        formality="more",
        glossary={"cat": "Katze"},
        retranslate=True,
        memory="m1",
        memory_threshold=80.0,
        memory_owner="o",
        file_memory=False,
        neighbours=True,
        instructions=("Be brief.",),
    )
