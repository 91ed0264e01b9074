from __future__ import annotations

import re

import pytest

from translate_server.documents.formats import FormatOptions, detect_format, extract
from translate_server.documents.formats.distribute import distribute

from tests.support.document_doubles import reverse_words, shout, translate_file

SRT = """1
00:00:01,000 --> 00:00:02,500
Hello there, this is a sentence

2
00:00:02,600 --> 00:00:04,000
that runs over
three cues in total

3
00:00:04,100 --> 00:00:05,000
until here.

7
00:00:09,000 --> 00:01:07,250
<i>Short one!</i>

"""

VTT = """WEBVTT
Kind: captions

NOTE made by hand

STYLE
::cue { color: yellow }

intro
00:00:01.000 --> 00:00:02.500 align:start position:10%
Hello there,
my friend, how

00:00:02.600 --> 00:00:04.000
are you today?

00:00:05.000 --> 00:00:06.000
<v Bob>Fine, thanks.</v>
"""

_TIMING = re.compile(r"^\S+ --> .*$", re.MULTILINE)
_NUMBERS = re.compile(r"^\d+$", re.MULTILINE)


@pytest.mark.parametrize(
    ("name", "data"),
    [
        ("a.srt", SRT),
        ("a.vtt", VTT),
        ("crlf.srt", SRT.replace("\n", "\r\n")),
        ("crlf.vtt", VTT.replace("\n", "\r\n")),
    ],
)
def test_echo_gives_back_the_same_bytes(name: str, data: str) -> None:
    _, rebuilt = translate_file(name, data.encode())
    assert rebuilt == data.encode()


def test_a_sentence_over_several_cues_is_one_segment() -> None:
    segments, _ = translate_file("a.srt", SRT.encode())
    assert segments == [
        "Hello there, this is a sentence that runs over three cues in total until here.",
        "<i>Short one!</i>",
    ]


def test_rewrite_keeps_numbers_timings_and_tags() -> None:
    _, rebuilt = translate_file("a.srt", SRT.encode(), shout)
    text = rebuilt.decode()
    assert _TIMING.findall(text) == _TIMING.findall(SRT)
    assert _NUMBERS.findall(text) == ["1", "2", "3", "7"]
    assert text == SRT.upper().replace("<I>", "<i>").replace("</I>", "</i>")


def _cue_texts(data: bytes) -> list[str]:
    blocks = data.decode().strip().split("\n\n")
    return ["\n".join(block.split("\n")[2:]) for block in blocks]


def test_a_longer_translation_is_spread_over_the_same_cues() -> None:
    translation = (
        "Hallo zusammen, das ist ein ziemlich langer Satz, der über drei "
        "Untertitel läuft, bis genau hier."
    )
    extracted = extract(detect_format("a.srt", b""), SRT.encode(), FormatOptions())
    rebuilt = extracted.rebuild([translation, "Kurz!"])
    cues = _cue_texts(rebuilt)
    assert len(cues) == 4
    assert all(cue.strip() for cue in cues)
    assert " ".join(" ".join(cue.split()) for cue in cues[:3]) == translation
    assert len(cues[1].split("\n")) == 2  # the two-line cue stays two lines
    assert _TIMING.findall(rebuilt.decode()) == _TIMING.findall(SRT)


def test_a_much_shorter_translation_leaves_no_cue_empty() -> None:
    extracted = extract(detect_format("a.srt", b""), SRT.encode(), FormatOptions())
    cues = _cue_texts(extracted.rebuild(["Ja, gut so.", "Kurz!"]))
    assert cues == ["Ja,", "gut", "so.", "Kurz!"]


def test_text_without_spaces_is_cut_between_characters() -> None:
    extracted = extract(detect_format("a.srt", b""), SRT.encode(), FormatOptions())
    cues = _cue_texts(extracted.rebuild(["这是一个跨越三个字幕的很长的句子。", "短！"]))
    assert all(cues) and "".join(cues[:3]) == "这是一个跨越三个字幕的很长的句子。"


def test_webvtt_keeps_header_notes_styles_ids_and_settings() -> None:
    segments, rebuilt = translate_file("a.vtt", VTT.encode(), reverse_words)
    assert segments == ["Hello there, my friend, how are you today?", "<v Bob>Fine, thanks.</v>"]
    text = rebuilt.decode()
    head = VTT.split("intro")[0]
    assert text.startswith(head + "intro\n00:00:01.000 --> 00:00:02.500 align:start position:10%")
    assert _TIMING.findall(text) == _TIMING.findall(VTT)
    cues = [block.split("\n") for block in text.strip().split("\n\n")[3:]]
    assert [len(cue) for cue in cues] == [4, 2, 2]  # id + timing + two lines; timing + line
    words = " ".join(" ".join(cue[-2:] if i == 0 else cue[-1:]) for i, cue in enumerate(cues[:2]))
    assert words == reverse_words(segments[0])


def test_cues_are_grouped_by_pauses_and_speakers() -> None:
    data = (
        "1\n00:00:01,000 --> 00:00:02,000\nno end here\n\n"
        "2\n00:00:05,000 --> 00:00:06,000\nafter a pause\n\n"
        "3\n00:00:06,100 --> 00:00:07,000\n- A new speaker\n"
    )
    segments, _ = translate_file("a.srt", data.encode())
    assert segments == ["no end here", "after a pause", "- A new speaker"]


@pytest.mark.parametrize(
    ("text", "weights", "expected"),
    [
        ("one two three four", [4, 4, 5, 4], ["one ", "two ", "three ", "four"]),
        ("one two three four", [1, 1], ["one two ", "three four"]),
        ("one two", [5, 5, 5], ["on", "e t", "wo"]),  # too few words: cut between characters
        ("a", [1, 1], ["a", ""]),
        ("just one", [3], ["just one"]),
        ("  lead and trail  ", [1, 1], ["  lead ", "and trail  "]),
    ],
)
def test_distribute(text: str, weights: list[int], expected: list[str]) -> None:
    assert distribute(text, weights) == expected
    assert "".join(distribute(text, weights)) == text
