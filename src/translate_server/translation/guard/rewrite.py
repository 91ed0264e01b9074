"""The guard of DeepL Write's answers: a rewrite of the text, or nothing.

A small instruction-tuned model asked to rephrase or correct a text answers, now and then,
with everything but a rewrite: a preamble alone ("The original text is:"), a reply wrapped
around the text ("I'm ready to assist you. ..."), the prompt's scaffolding (`<instruction>`),
a text of another meaning, or the text in another language. `clean_rewrite` strips what can be
stripped (translation's hygiene, then Write's own preambles, tags and reply sentences);
`check_rewrite` names what is still not a rewrite, for one retry and then the text as sent
(compat/deepl/write.py). Pure functions.
"""

from __future__ import annotations

import re
from collections.abc import Callable

import msgspec
from rapidfuzz import fuzz

from translate_server.translation.guard.hygiene import clean_translation

# What the prompt's fences and the model's habits put around a rewrite: tags of their own.
_TAGS = re.compile(
    r"</?(?:instructions?|text|source|sentence|input|output|answer|response|rewrite|rephrased"
    r"|corrected|correction|improved|result)>",
    re.IGNORECASE,
)
# "Here is the corrected text:", "Corrected sentence:", "Rephrased version:", "The original
# text is:" ... at the start, ending in a colon.
_PREAMBLE = re.compile(
    r"^(?:(?:sure|certainly|of course|okay|ok|absolutely)[,.!]?\s+)?"
    r"(?:here(?:'s|’s| is| are)\s+(?:the|your|my|a|an)\s+|(?:the|your|my|a|an)\s+)?"
    r"(?:(?:corrected|rephrased|improved|revised|rewritten|edited|polished|updated|original"
    r"|new|fixed|final|better|simpler|clearer)\s+)?"
    r"(?:text|sentence|sentences|version|paragraph|rewrite|correction|answer|wording|phrasing)"
    r"(?:\s+is|\s+would be|\s+reads)?\s*:\s*",
    re.IGNORECASE,
)
# A sentence of a reply to the person rather than a rewrite of their text.
_REPLY = re.compile(
    r"^(?:i'?m (?:ready|happy|glad|here)\b|i am (?:ready|happy|glad|here)\b"
    r"|i(?:'d| would) (?:be )?(?:happy|glad|love)\b|i can(?:not|'t)? help\b"
    r"|(?:sure|certainly|of course|absolutely|no problem|great|okay|ok)\b[,.!]?"
    r"|here you go\b|thank you\b|thanks\b|let me know\b|i hope this helps\b"
    r"|please provide\b|could you (?:please )?(?:provide|share|send|clarify)\b"
    r"|what (?:would|do) you\b|how can i\b|as an ai\b)",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"[^.!?\n]+(?:[.!?]+|$)\s*")
# The least similarity of a rewrite to its text (rapidfuzz's token set ratio, 0-100): a
# correction keeps most of the text, a rephrasing less. Measured on the committed learners'
# sentences (quality/data/write_errors.tsv): corrections score 83-100 against their texts,
# unrelated sentences about 50, a bare preamble about 33.
LEAST_SIMILARITY = {"correct": 70.0, "rephrase": 55.0}
# Detected languages are trusted from this many letters on, at this confidence.
LANGUAGE_LETTERS = 20
LANGUAGE_CONFIDENCE = 0.8


class RewriteVerdict(msgspec.Struct, frozen=True):
    text: str  # the answer cleaned
    failure: str | None = None  # what it is instead of a rewrite; None: a rewrite


def clean_rewrite(answer: str, source: str, language_name: str) -> str:
    """The rewrite alone: no markers, tags, preamble, or reply sentences around it."""
    # Before translation's hygiene, which keeps the first line of a one-line text's answer:
    # a tag or a preamble may have a line of its own.
    cleaned = answer.strip()
    if not _TAGS.search(source):
        cleaned = _TAGS.sub("", cleaned).strip()
    if not _PREAMBLE.match(source.strip()):
        cleaned = _PREAMBLE.sub("", cleaned, count=1).strip()
    cleaned = clean_translation(cleaned, source, languages=(language_name,))
    return _without_reply(cleaned, source)


def _without_reply(text: str, source: str) -> str:
    """Reply sentences at either end of the answer that the source does not have."""
    sentences = [s for s in _SENTENCE.findall(text) if s.strip()]
    folded = source.casefold()

    def is_reply(sentence: str) -> bool:
        found = sentence.strip().casefold()
        return (
            bool(_REPLY.match(found))
            and found not in folded
            and fuzz.token_set_ratio(found, folded) < LEAST_SIMILARITY["rephrase"]
        )

    while sentences and is_reply(sentences[0]):
        sentences.pop(0)
    while sentences and is_reply(sentences[-1]):
        sentences.pop()
    return "".join(sentences).strip()


def check_rewrite(
    answer: str,
    source: str,
    *,
    task: str,
    language_name: str,
    language: str,
    same_language: bool = True,
    detect: Callable[[str], tuple[str, float] | None] | None = None,
) -> RewriteVerdict:
    """The answer cleaned, and what it is where it is not a rewrite of `source`: `preamble`
    (nothing but one), `reply`, `other_meaning`, `wrong_language` (not `language`, a base
    tag), `empty`. `same_language`: the text is written in `language` (else Write translates
    it too, and only the language is checked). `detect`: a text's base language and
    confidence, or None where it cannot tell."""
    cleaned = clean_rewrite(answer, source, language_name)
    if not cleaned:
        stripped = answer.strip()
        kind = "preamble" if stripped.endswith(":") else "reply" if stripped else "empty"
        return RewriteVerdict(cleaned, kind)
    if cleaned.endswith(":") and len(cleaned.split()) <= 8 and not source.strip().endswith(":"):
        return RewriteVerdict(cleaned, "preamble")
    if _REPLY.match(cleaned) and not _REPLY.match(source.strip()):
        return RewriteVerdict(cleaned, "reply")
    if detect is not None and sum(c.isalpha() for c in cleaned) >= LANGUAGE_LETTERS:
        found = detect(cleaned)
        if found is not None and found[0] != language and found[1] >= LANGUAGE_CONFIDENCE:
            return RewriteVerdict(cleaned, "wrong_language")
    least = LEAST_SIMILARITY.get(task, LEAST_SIMILARITY["rephrase"])
    if same_language and fuzz.token_set_ratio(source.casefold(), cleaned.casefold()) < least:
        return RewriteVerdict(cleaned, "other_meaning")
    return RewriteVerdict(cleaned)
