"""The translation alone, whatever the model wraps around it; templates as configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from translate_server.translation.guard.hygiene import StreamCleaner, _preamble, clean_translation
from translate_server.translation.prompts.templates import (
    PromptTemplates,
    TemplateError,
    build_translation_messages,
)

LANGUAGES = ("English", "German")  # the request's source and target
CASES = [
    ("Guten Morgen", "Good morning", "Guten Morgen"),
    ("Here is the translation:\nGuten Morgen", "Good morning", "Guten Morgen"),
    (
        "Sure! Here's the German translation of the text: Guten Morgen",
        "Good morning",
        "Guten Morgen",
    ),
    ("Translation: Guten Morgen", "Good morning", "Guten Morgen"),
    ("German translation: «Guten Morgen»", "Good morning", "Guten Morgen"),
    ("The final German translation:\nGuten Morgen", "Good morning", "Guten Morgen"),
    ('"Guten Morgen"', "Good morning", "Guten Morgen"),
    ("„Guten Morgen“", "Good morning", "Guten Morgen"),
    ('"Hallo", sagte er.', '"Hello," he said.', '"Hallo", sagte er.'),
    ("Zeile 1\nZeile 2\n\nNote: I kept the line break.", "line 1\nline 2", "Zeile 1\nZeile 2"),
    ("Übersetzung: Hallo", "Translation: Hello", "Übersetzung: Hallo"),
    ("Guten Morgen\n(Note: informal)", "Good morning", "Guten Morgen"),
    ("<source>Hallo</source>", "Hello", "Hallo"),
    (
        "<text>\nVeuillez garder le ticket.",
        "Please keep the receipt.",
        "Veuillez garder le ticket.",
    ),
    ("<translation>\n<source>\nHallo Welt", "Hello world", "Hallo Welt"),
    ("<text>\n<source>\n<label>\n<label>\n<label>", "Hello world", "<label>"),
    ("Guten Morgen <sour", "Good morning", "Guten Morgen"),  # cut off by max_tokens
    ("a </s", "x </s", "a </s"),
    ("<b>\nHallo", "<b>\nHello", "<b>\nHallo"),
    ("The translation of the text: The city", "La ville", "The city"),
]


@pytest.mark.parametrize(("output", "source", "expected"), CASES)
def test_clean_translation(output: str, source: str, expected: str) -> None:
    assert clean_translation(output, source, languages=LANGUAGES) == expected


@pytest.mark.parametrize(("output", "source", "expected"), CASES)
@pytest.mark.parametrize("step", [1, 3, 7])
def test_streaming_sends_exactly_the_clean_translation(
    output: str, source: str, expected: str, step: int
) -> None:
    cleaner = StreamCleaner(source, LANGUAGES)
    sent = "".join(cleaner.feed(output[i : i + step]) for i in range(0, len(output), step))
    assert sent + cleaner.finish() == expected


@pytest.mark.parametrize(
    "preamble",
    [
        "Here is the translation:",
        "Sure! Here's the German translation of the text:",
        "Translation:",
        "German translation:",
        "The final German translation:",
        "Translated text:",
        "Here are your translations:",
        "The translation into German:",
    ],
)
def test_only_an_answer_with_a_colon_can_have_a_preamble(preamble: str) -> None:
    # Answers without a colon skip the preamble pattern: each preamble must need its colon.
    assert (
        clean_translation(f"{preamble} Guten Morgen", "Good morning", languages=LANGUAGES)
        == "Guten Morgen"
    )
    without_colon = preamble.replace(":", "") + "\nGuten Morgen"
    assert _preamble(LANGUAGES).search(without_colon) is None
    assert (
        clean_translation(without_colon, "Good morning", languages=LANGUAGES)
        == (without_colon.split("\n")[0])
    )


def test_streaming_sends_before_the_end() -> None:
    cleaner = StreamCleaner("A long sentence " * 20)
    sent = cleaner.feed("Ein langer Satz " * 12)
    assert sent.startswith("Ein langer Satz")


@pytest.mark.parametrize(
    ("answer", "released"),
    [
        ("Die", True),
        ("Die Besprechung wurde", True),
        ("¿Puede", True),
        ("The city council approved", True),
        ("Here is the German", False),
        ("German", False),
        ("The final", False),
        ("Translation of the text", False),
        ("Sure", False),
        ("<text>", False),
    ],
)
def test_a_stream_starts_as_soon_as_no_preamble_can_begin_its_way(
    answer: str, released: bool
) -> None:
    assert StreamCleaner("Some source text.", LANGUAGES).feed(answer) == (
        answer if released else ""
    )


def test_a_stream_of_tag_after_tag_is_released_at_its_third_line() -> None:
    # A degenerate answer: held back for two tag lines, not until the generation ends.
    cleaner = StreamCleaner("Some source text.", LANGUAGES)
    assert cleaner.feed("<text>\n<source>\n") == ""
    assert cleaner.feed("<label>\n<label>\n") == "<label>"


def test_bundled_templates_and_families(tmp_path: Path) -> None:
    templates = PromptTemplates.load()
    assert templates.for_model("Qwen/Qwen2.5-1.5B-Instruct").system_role
    gemma = templates.for_model("google/gemma-2-2b-it")
    assert not gemma.system_role
    messages = build_translation_messages("Hi", "English", "German", template=gemma)
    assert [m["role"] for m in messages] == ["user"]
    assert "from English to German" in messages[0]["content"]
    assert messages[0]["content"].endswith("<source>\nHi\n</source>")


def test_a_templates_file_adds_and_overrides_families(tmp_path: Path) -> None:
    path = tmp_path / "templates.toml"
    path.write_text(
        '[mine]\nmatch = ["*tower*"]\n'
        'system = "Translate {source} into {target}, fenced by {open} {close}."\n'
    )
    template = PromptTemplates.load(str(path)).for_model("Unbabel/TowerInstruct-7B")
    messages = build_translation_messages(
        "Hi", "English", "German", template=template, formality="formal"
    )
    assert messages[0]["content"].startswith("Translate English into German, fenced by")
    assert "formal register" in messages[0]["content"]  # the rest comes from `default`


def test_a_broken_templates_file_is_reported(tmp_path: Path) -> None:
    path = tmp_path / "templates.toml"
    path.write_text("[mine]\nsystem_role = 'yes'\n")
    with pytest.raises(TemplateError):
        PromptTemplates.load(str(path))
    with pytest.raises(TemplateError):
        PromptTemplates.load(str(tmp_path / "missing.toml"))


def test_a_run_of_blank_lines_in_an_answer_is_cleaned_in_one_pass() -> None:
    # The trailing-note pattern was cubic in a run of blank lines.
    answer = "Erste Zeile" + "\n" * 20_000 + "zweite Zeile"
    assert clean_translation(answer, "first\nsecond") == answer
    noted = answer + "\n\n(Note: the source was odd.)"
    assert clean_translation(noted, "first\nsecond") == answer


def test_a_stream_of_many_angle_brackets_is_cleaned_in_one_pass() -> None:
    # The arriving-marker pattern ran from every `<` to the next blank.
    cleaner = StreamCleaner("a b")
    answer = "<a" * 20_000 + " done <sour"
    sent = cleaner.feed(answer)
    assert answer.startswith(sent) and not sent.endswith("<sour")
