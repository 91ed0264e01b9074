"""`bench quality --sets localization`: a catalog of each localization format, translated as a
document job translates it (each segment with the context the format gives: a description,
a plural category and its sample number) and written back; scored per format:

- `valid`: the file written reads again (its format's reader, through our own extraction);
- `placeholders`: the share of segments whose translation keeps the source's placeholders;
- `plurals`: the share of plural groups written with exactly the target language's CLDR
  categories;
- `chrf`: chrF against human translations, where the catalog ships some (Godot's demo CSV
  has Spanish and Japanese ones); None elsewhere.

The catalogs are small (a few entries each, the formats' cases rather than volume); the
translator is injected (`Translator`): the CLI's posts to /translate, the tests' is the engine
double's.
"""

from __future__ import annotations

import json
import plistlib
import re
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import msgspec
import yaml

from translate_server.documents.formats import detect_format, extract
from translate_server.documents.formats.base import Extracted, FormatOptions
from translate_server.documents.formats.l10n import plurals
from translate_server.documents.formats.l10n.slots import keep_placeholders
from translate_server.text.placeholders import placeholder_keys

# translate(texts, contexts, target_lang) -> one translation per text
Translator = Callable[[list[str], list[str | None], str], Awaitable[list[str]]]


@dataclass(frozen=True)
class Case:
    filename: str
    text: str
    target: str
    references: dict[str, str] = field(default_factory=dict)  # source -> human translation


CASES: tuple[Case, ...] = (
    Case(
        "i18next.json",
        '{\n  "inbox": {\n    "message_one": "You have {{count}} new message",\n'
        '    "message_other": "You have {{count}} new messages"\n  },\n'
        '  "greeting": "Hello, {{name}}!",\n'
        '  "files": "{count, plural, one {# file} other {# files}} in {folder}"\n}\n',
        "pl",
    ),
    Case(
        "app_en.arb",
        '{\n  "@@locale": "en",\n  "tabLabel": "Tab {index} of {count}",\n'
        '  "@tabLabel": {"description": "Accessibility label of a tab."},\n'
        '  "items": "{n, plural, =0 {No items} one {One item} other {{n} items}}"\n}\n',
        "ru",
    ),
    Case(
        "strings.xml",
        '<?xml version="1.0" encoding="utf-8"?>\n<resources>\n'
        '    <string name="app_name" translatable="false">Sunflower</string>\n'
        '    <string name="share">Check out the %1$s plant in the Sunflower app</string>\n'
        '    <plurals name="watering_next">\n'
        '        <item quantity="one">water tomorrow.</item>\n'
        '        <item quantity="other">water in %d days.</item>\n'
        "    </plurals>\n</resources>\n",
        "ar",
    ),
    Case(
        "Localizable.strings",
        '/* Button */\n"save" = "Save";\n"greeting" = "Hello, %@!";\n',
        "fr",
    ),
    Case(
        "Localizable.stringsdict",
        '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0">\n<dict>\n'
        "\t<key>articles</key>\n\t<dict>\n"
        "\t\t<key>NSStringLocalizedFormatKey</key>\n\t\t<string>%#@v0@</string>\n"
        "\t\t<key>v0</key>\n\t\t<dict>\n"
        "\t\t\t<key>NSStringFormatSpecTypeKey</key>\n"
        "\t\t\t<string>NSStringPluralRuleType</string>\n"
        "\t\t\t<key>NSStringFormatValueTypeKey</key>\n\t\t\t<string>d</string>\n"
        "\t\t\t<key>one</key>\n\t\t\t<string>%d article</string>\n"
        "\t\t\t<key>other</key>\n\t\t\t<string>%d articles</string>\n"
        "\t\t</dict>\n\t</dict>\n</dict>\n</plist>\n",
        "pl",
    ),
    Case(
        "Localizable.xcstrings",
        '{\n  "sourceLanguage" : "en",\n  "strings" : {\n    "%lld items" : {\n'
        '      "localizations" : {\n        "en" : {\n          "variations" : {\n'
        '            "plural" : {\n              "one" : {\n                "stringUnit" : {\n'
        '                  "state" : "new",\n                  "value" : "%lld item"\n'
        "                }\n              },\n"
        '              "other" : {\n                "stringUnit" : {\n'
        '                  "state" : "new",\n                  "value" : "%lld items"\n'
        "                }\n              }\n            }\n          }\n        }\n      }\n"
        '    },\n    "Settings" : {\n\n    }\n  },\n  "version" : "1.0"\n}\n',
        "ja",
    ),
    Case(
        "en.yml",
        'en:\n  x_days:\n    one:   "1 day"\n    other: "%{count} days"\n'
        "  prompt: 'Please select'\n",
        "ru",
    ),
    Case("messages.properties", "# Shop\ncart.count={0} items in your cart\n", "de"),
    Case(
        "Resources.resx",
        '<?xml version="1.0" encoding="utf-8"?>\n<root>\n'
        '  <data name="Required" xml:space="preserve"><value>{0} is required.</value>'
        "<comment>Validation message</comment></data>\n</root>\n",
        "es",
    ),
    Case(
        "app_fr.ts",
        '<?xml version="1.0" encoding="utf-8"?>\n<!DOCTYPE TS>\n<TS version="2.1" language="fr">\n'
        "<context>\n    <name>Dialog</name>\n    <message>\n"
        "        <source>Batch Translation of &apos;%1&apos;</source>\n"
        '        <translation type="unfinished"></translation>\n    </message>\n'
        "</context>\n</TS>\n",
        "fr",
    ),
    # Godot's demo translations (godotengine/godot-demo-projects, MIT): human Spanish ones.
    Case(
        "text.csv",
        "KEYS,en,es\nKEY_HELLO,Hello!,\nKEY_PUSH,Push Me!,\n",
        "es",
        {"Hello!": "Hola!", "Push Me!": "Aprétame!"},
    ),
)


class FormatScore(msgspec.Struct, frozen=True, kw_only=True):
    format: str
    target: str
    segments: int
    valid: bool
    placeholders: float  # share of segments whose placeholders were kept
    plurals: float | None  # share of plural groups with the target's categories
    chrf: float | None


async def run_localization(
    translate: Translator, cases: Sequence[Case] = CASES
) -> list[FormatScore]:
    return [await score_case(case, translate) for case in cases]


async def score_case(case: Case, translate: Translator) -> FormatScore:
    data = case.text.encode()
    fmt = detect_format(case.filename, data)
    extracted = extract(fmt, data, FormatOptions(target_lang=case.target))
    contexts = extracted.contexts or [None] * len(extracted.segments)
    answers = await translate(list(extracted.segments), list(contexts), case.target)
    kept = [keep_placeholders(s, t) for s, t in zip(extracted.segments, answers, strict=True)]
    out = extracted.rebuild(answers)
    return FormatScore(
        format=fmt.name,
        target=case.target,
        segments=len(extracted.segments),
        valid=_reads(fmt.name, case.filename, out, case.target),
        placeholders=_share(
            [
                placeholder_keys(s) == placeholder_keys(t)
                for s, t in zip(extracted.segments, kept, strict=True)
            ]
        ),
        plurals=_plurals(fmt.name, out, case.target),
        chrf=_chrf(extracted, answers, case.references),
    )


def _share(flags: list[bool]) -> float:
    return round(sum(flags) / len(flags), 4) if flags else 1.0


def _reads(name: str, filename: str, out: bytes, target: str) -> bool:
    try:
        extract(detect_format(filename, out), out, FormatOptions(target_lang=target))
    except Exception:  # noqa: BLE001 - any reader's error: the file is broken
        return False
    return True


def _plurals(name: str, out: bytes, target: str) -> float | None:
    """The share of plural groups in the file written whose categories are the target's."""
    groups = plural_groups(name, out)
    if not groups:
        return None
    expected = list(plurals.categories(target))
    return _share([group == expected for group in groups])


def plural_groups(name: str, out: bytes) -> list[list[str]]:
    """The categories of each plural group of a file written, as its format holds them."""
    categories = set(plurals.CATEGORIES)
    if name in ("json", "arb"):
        text = out.decode()
        found = [re.findall(r'"\w+_(zero|one|two|few|many|other)"', text)] if name == "json" else []
        icu_groups = [
            list(re.findall(r"(?:^|[}\s,])(zero|one|two|few|many|other) \{", value))
            for value in _strings(json.loads(text))
            if ", plural," in value
        ]
        return [g for g in found + icu_groups if g]
    if name == "android":
        blocks = re.findall(rb"<plurals[^>]*>(.*?)</plurals>", out, re.DOTALL)
        return [[q.decode() for q in re.findall(rb'quantity="(\w+)"', b)] for b in blocks]
    if name == "stringsdict":
        return [
            [k for k in rule if k in categories]
            for entry in plistlib.loads(out).values()
            for rule in entry.values()
            if isinstance(rule, dict)
        ]
    if name == "xcstrings":
        return [
            list(loc["variations"]["plural"])
            for entry in json.loads(out)["strings"].values()
            for loc in entry.get("localizations", {}).values()
            if "variations" in loc
        ][1:]  # the source language's first
    if name == "yaml":
        return [
            list(m) for m in _mappings(yaml.safe_load(out)) if "other" in m and set(m) <= categories
        ]
    return []


def _strings(value: Any) -> list[str]:
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _mappings(value: Any) -> list[dict[str, Any]]:
    if isinstance(value, dict):
        return [value, *(m for v in value.values() for m in _mappings(v))]
    return []


def _chrf(extracted: Extracted, answers: Sequence[str], references: dict[str, str]) -> float | None:
    pairs = [
        (t, references[s])
        for s, t in zip(extracted.segments, answers, strict=True)
        if s in references
    ]
    if not pairs:
        return None
    from translate_server.quality.scoring import corpus_chrf

    return corpus_chrf([t for t, _ in pairs], [r for _, r in pairs])


def http_translator(base_url: str, timeout_s: float = 300.0) -> Translator:
    """Each segment through /translate with its context, as a document job sends it."""

    async def translate(texts: list[str], contexts: list[str | None], target: str) -> list[str]:
        import aiohttp

        url = base_url.rstrip("/") + "/translate"
        async with aiohttp.ClientSession(timeout=aiohttp.ClientTimeout(total=timeout_s)) as session:

            async def one(text: str, context: str | None) -> str:
                if not text.strip():
                    return text
                body: dict[str, Any] = {"text": [text], "source_lang": "en", "target_lang": target}
                if context:
                    body["context"] = context[:2000]
                async with session.post(url, json=body) as response:
                    payload = await response.json()
                    return str(payload.get("translations", [text])[0]) if response.ok else text

            import asyncio

            return list(
                await asyncio.gather(*(one(t, c) for t, c in zip(texts, contexts, strict=True)))
            )

    return translate


def format_table(scores: Sequence[FormatScore]) -> str:
    rows = ["format       target  segs  valid  placeholders  plurals  chrF"]
    for s in scores:
        plural = "-" if s.plurals is None else f"{s.plurals:.2f}"
        chrf = "-" if s.chrf is None else f"{s.chrf:.1f}"
        rows.append(
            f"{s.format:<12} {s.target:<7} {s.segments:>4}  {'yes' if s.valid else 'NO':<5}  "
            f"{s.placeholders:>12.2f}  {plural:>7}  {chrf:>4}"
        )
    return "\n".join(rows)
