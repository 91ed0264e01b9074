"""Google's language codes and the service's BCP-47 tags, both ways.

Google keeps legacy ISO 639 codes (`iw` for Hebrew, `jw` for Javanese, `tl` for Filipino,
`no` for Norwegian) and names Chinese by region (`zh-CN` simplified, `zh-TW` traditional); the
service and its detector speak BCP-47 with scripts (`zh-Hans`, `zh-Hant`)."""

from __future__ import annotations

from functools import lru_cache

import langcodes

from translate_server.text.detection import detectable_languages
from translate_server.text.languages import requested_language

_TO_OURS = {
    "zh": "zh-Hans",
    "zh-cn": "zh-Hans",
    "zh-sg": "zh-Hans",
    "zh-tw": "zh-Hant",
    "zh-hk": "zh-Hant",
    "iw": "he",
    "jw": "jv",
    "tl": "fil",
}
_TO_GOOGLE = {
    "zh": "zh-CN",  # the detector finds Chinese without its script: Google's default
    "zh-Hans": "zh-CN",
    "zh-Hant": "zh-TW",
    "he": "iw",
    "jv": "jw",
    "fil": "tl",
    "nb": "no",
}
UNDETERMINED = "und"


def ours(code: str) -> str:
    """A code as Google's clients send it, as the service's tag (`zh-CN` -> `zh-Hans`)."""
    code = code.strip()
    return _TO_OURS.get(code.lower().replace("_", "-"), code)


def google_code(tag: str) -> str:
    """A tag of the service's, as Google answers it (`he` -> `iw`)."""
    return _TO_GOOGLE.get(tag, tag)


def google_languages() -> list[str]:
    """The codes Google's language lists give: the detector's languages, and Chinese in both
    scripts."""
    codes = {google_code(language.tag) for language in detectable_languages()}
    return sorted(codes | {"zh-TW"})


@lru_cache(maxsize=64)
def language_names(display: str, param: str) -> dict[str, str]:
    """Each listed language's name in `display` (a Google code): `Englisch` for `en` in
    German. A 400 for a language that is not one. Remembered: every name is looked up in the
    CLDR data, and clients ask again with the same `display` language."""
    in_language = requested_language(ours(display), param).tag
    return {
        code: langcodes.Language.get(ours(code)).display_name(in_language)
        for code in google_languages()
    }
