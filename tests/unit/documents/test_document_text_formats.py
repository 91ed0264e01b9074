from __future__ import annotations

import pytest

from tests.support.document_doubles import reverse_words, shout, translate_file

TEXT = "Title line\r\n\r\n  First paragraph,\r\nstill first.  \r\n\r\n\r\nSecond one.\r\n"

MARKDOWN = """---
title: Keep me
---

# A *heading* here #

Some paragraph with `x = 1` and
a second line.

> quoted text
> goes on

- item one
- item **two**
  continued

| Name | Value |
| --- | --- |
| a | b c |

```python
print("hi")
```

    indented code

[ref]: http://example.com/a
"""

HTML = (
    '<!DOCTYPE html><html><body><h1 class="t">Hello &amp; welcome</h1>'
    "<p>Some <b>bold</b> text.</p><script>var a = 'x';</script></body></html>"
)


@pytest.mark.parametrize(("name", "data"), [("a.txt", TEXT), ("a.md", MARKDOWN), ("a.html", HTML)])
def test_echo_gives_back_the_same_bytes(name: str, data: str) -> None:
    _, rebuilt = translate_file(name, data.encode())
    assert rebuilt == data.encode()


def test_byte_order_mark_is_kept() -> None:
    data = b"\xef\xbb\xbfHello\n"
    segments, rebuilt = translate_file("a.txt", data, shout)
    assert segments == ["Hello"]
    assert rebuilt == b"\xef\xbb\xbfHELLO\n"


def test_text_in_another_encoding_is_read_and_written_as_utf8() -> None:
    text = "Привет, как дела? Это проверка кодировки субтитров.\n"
    segments, rebuilt = translate_file("a.txt", text.encode("cp1251"), shout)
    assert segments == [text.strip()]
    assert rebuilt == text.upper().encode()


def test_plain_text_paragraphs_and_blank_lines() -> None:
    segments, rebuilt = translate_file("a.txt", TEXT.encode(), shout)
    assert segments == ["Title line", "First paragraph,\r\nstill first.", "Second one."]
    assert rebuilt.decode() == (
        "TITLE LINE\r\n\r\n  FIRST PARAGRAPH,\r\nSTILL FIRST.  \r\n\r\n\r\nSECOND ONE.\r\n"
    )


def test_markdown_segments_skip_code_and_front_matter() -> None:
    segments, _ = translate_file("a.md", MARKDOWN.encode())
    assert segments == [
        "A *heading* here",
        "Some paragraph with `x = 1` and\na second line.",
        "quoted text\ngoes on",
        "item one",
        "item **two**\ncontinued",
        "Name",
        "Value",
        "a",
        "b c",
    ]


def test_markdown_rewrite_changes_only_text() -> None:
    _, rebuilt = translate_file("a.md", MARKDOWN.encode(), shout)
    expected = MARKDOWN
    for before, after in [
        ("A *heading* here", "A *HEADING* HERE"),
        ("Some paragraph with", "SOME PARAGRAPH WITH"),
        ("and\na second line.", "AND\nA SECOND LINE."),
        ("> quoted text\n> goes on", "> QUOTED TEXT\n> GOES ON"),
        ("item one", "ITEM ONE"),
        ("item **two**\n  continued", "ITEM **TWO**\n  CONTINUED"),
        ("| Name | Value |", "| NAME | VALUE |"),
        ("| a | b c |", "| A | B C |"),
    ]:
        assert before in expected
        expected = expected.replace(before, after)
    assert rebuilt.decode() == expected


def test_markdown_code_spans_are_restored_when_the_translator_changes_them() -> None:
    data = b"Run `make test` before you push.\n"
    _, rebuilt = translate_file("a.md", data, lambda s: s.upper())
    assert rebuilt == b"RUN `make test` BEFORE YOU PUSH.\n"


def test_markdown_multiline_translation_keeps_line_prefixes() -> None:
    data = b"> one\n> two\n\n# Title\n"
    _, rebuilt = translate_file("a.md", data, lambda s: reverse_words(s) + "\nthree")
    assert rebuilt == b"> one\n> two\n> three\n\n# Title three\n"


def test_html_tags_and_scripts_are_kept() -> None:
    segments, rebuilt = translate_file("page.htm", HTML.encode(), shout)
    assert segments == ["Hello & welcome", "Some", "bold", "text."]
    assert rebuilt.decode() == HTML.replace("Hello &amp; welcome", "HELLO &amp; WELCOME").replace(
        "Some <b>bold</b> text.", "SOME <b>BOLD</b> TEXT."
    )


def test_a_long_paragraph_is_split_at_lines_and_kept_byte_for_byte() -> None:
    lines = [f"Line number {i} of a file without blank lines." for i in range(200)]
    data = "\n".join(lines).encode() + b"\n"
    segments, rebuilt = translate_file("log.txt", data, shout)
    assert len(segments) > 1
    assert all(len(segment) <= 2000 for segment in segments)
    assert "\n".join(segments) == "\n".join(lines)
    assert rebuilt == data.upper()


def test_markdown_link_destinations_are_restored() -> None:
    data = b'See [the guide](/docs/getting-started "Start") and ![a logo](img/logo.png).\n'

    def translate(text: str) -> str:
        return (
            text.replace("the guide", "die Anleitung")
            .replace("getting-started", "anfang")
            .replace("logo", "Logo")
            .replace("See", "Siehe")
        )

    _, rebuilt = translate_file("a.md", data, translate)
    assert rebuilt == (
        b'Siehe [die Anleitung](/docs/getting-started "Start") and ![a Logo](img/logo.png).\n'
    )


def test_markdown_reference_labels_are_restored() -> None:
    data = b"Read [the docs][docs] now.\n\n[docs]: https://example.com\n"
    _, rebuilt = translate_file("a.md", data, lambda text: text.upper())
    assert rebuilt == b"READ [THE DOCS][docs] NOW.\n\n[docs]: https://example.com\n"


def test_markdown_code_spans_moved_intact_stay_where_the_translator_put_them() -> None:
    data = b"Use `a` before `b`.\n"
    _, rebuilt = translate_file("a.md", data, lambda _: "Vor `b` kommt `a`.")
    assert rebuilt == b"Vor `b` kommt `a`.\n"
