"""DeepL's `/v3/languages` and `/v3/languages/resources` (DeepL's OpenAPI, version 3.9): which
languages each of its API's resources serves here, as a source, a target or both, with the
features each language has. Built from the same list as `/v2/languages` (`deepl_languages`'
languages and target variants), the served model's measured support beside each target.

A resource this server does not serve (voice; documents, Write or memories where they are
off) lists no languages, and is not among the resources.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal

import msgspec

from translate_server.compat.deepl.protocol import TARGET_VARIANTS
from translate_server.errors import InvalidRequestError
from translate_server.text.languages import Language

RESOURCES = (
    "translate_text",
    "translate_document",
    "glossary",
    "voice",
    "write",
    "style_rules",
    "translation_memory",
)
INCLUDES = ("beta", "external")

Status = Literal["stable", "beta", "early_access"]


class ResourceFeature(msgspec.Struct, kw_only=True, omit_defaults=True):
    name: str
    # Which language must have the feature for it to apply (absent: false).
    needs_source_support: bool = False
    needs_target_support: bool = False


class LanguageResource(msgspec.Struct, kw_only=True):
    name: str
    features: list[ResourceFeature]


class FeatureSupport(msgspec.Struct, kw_only=True):
    status: Status = "stable"


class V3Language(msgspec.Struct, kw_only=True, omit_defaults=True):
    lang: str  # BCP-47, as DeepL's v3 writes it: `de`, `en-US`, `zh-Hans`
    name: str
    usable_as_source: bool
    usable_as_target: bool
    status: Status
    features: dict[str, FeatureSupport]
    # Not DeepL's: how well the served model writes it, where measured (targets).
    support: str | None = None


_TEXT_FEATURES = (
    ResourceFeature(name="formality", needs_target_support=True),
    ResourceFeature(name="tag_handling", needs_source_support=True, needs_target_support=True),
    ResourceFeature(name="glossary", needs_source_support=True, needs_target_support=True),
    ResourceFeature(name="auto_detection", needs_source_support=True),
)
# Documents' markup is their format's, not `tag_handling`'s.
_DOCUMENT_FEATURES = tuple(f for f in _TEXT_FEATURES if f.name != "tag_handling")
_STYLE_RULES = ResourceFeature(name="style_rules", needs_target_support=True)
_MEMORY = ResourceFeature(
    name="translation_memory", needs_source_support=True, needs_target_support=True
)
_WRITE_FEATURES = (
    ResourceFeature(name="writing_style", needs_target_support=True),
    ResourceFeature(name="tone", needs_target_support=True),
)


@dataclass(frozen=True, slots=True)
class Served:
    """What this server serves of DeepL's resources."""

    documents: bool  # /v2/document
    instructions: bool  # an instruction-tuned model: Write and style rules apply
    memories: bool  # translation memories


def resources(served: Served) -> list[LanguageResource]:
    """The resources served here and the features of each."""
    instructed = (_STYLE_RULES,) if served.instructions else ()
    memory = (_MEMORY,) if served.memories else ()
    features: dict[str, Sequence[ResourceFeature]] = {
        "translate_text": (*_TEXT_FEATURES, *instructed, *memory),
    }
    if served.documents:
        features["translate_document"] = (*_DOCUMENT_FEATURES, *instructed, *memory)
    features["glossary"] = ()
    if served.instructions:
        features["write"] = _WRITE_FEATURES
    features["style_rules"] = ()
    if served.memories:
        features["translation_memory"] = ()
    return [LanguageResource(name=name, features=list(found)) for name, found in features.items()]


def languages(
    resource: str | None,
    include: Sequence[str],
    served: Served,
    known: Sequence[Language],
    support: Callable[[str], str | None],
) -> list[V3Language]:
    """The languages of `resource`: each of `known` as a source and a target, but English
    and Portuguese, whose targets are their variants (as `/v2/languages` lists them)."""
    if not resource:
        raise InvalidRequestError("Parameter 'resource' is required.", param="resource")
    if resource not in RESOURCES:
        raise InvalidRequestError(
            f"Value for 'resource' not supported: {resource}.", param="resource"
        )
    if unknown := [value for value in include if value not in INCLUDES]:
        raise InvalidRequestError(
            f"Value for 'include' not supported: {unknown[0]}.", param="include"
        )
    features = next((r.features for r in resources(served) if r.name == resource), None)
    if features is None:
        return []
    result = []
    for language in known:
        variants = TARGET_VARIANTS.get(language.tag)
        result.append(_language(language.tag, language.name, True, not variants, features))
        for tag, name in variants or ():
            result.append(_language(tag, name, False, True, features))
    for entry in result:
        if entry.usable_as_target:
            entry.support = support(entry.lang)
    return result


def _language(
    tag: str, name: str, source: bool, target: bool, features: Sequence[ResourceFeature]
) -> V3Language:
    """A language with the features it takes part in: those that need a source's support
    where it is a source, a target's where it is a target."""
    had = {
        feature.name: FeatureSupport()
        for feature in features
        if (source and feature.needs_source_support) or (target and feature.needs_target_support)
    }
    return V3Language(
        lang=tag,
        name=name,
        usable_as_source=source,
        usable_as_target=target,
        status="stable",
        features=had,
    )
