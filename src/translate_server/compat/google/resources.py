"""What Google's v3 requests name of this server's stores, read from Google's resource names:
a glossary (`projects/*/locations/*/glossaries/ID`) is a stored glossary, an adaptive MT
dataset (`projects/*/locations/*/adaptiveMtDatasets/ID`) a translation memory; and adaptive
MT's reference sentences, one list of example pairs per text."""

from __future__ import annotations

from translate_server.compat.google.envelope import MISSING
from translate_server.compat.google.protocol import GoogleGlossaryConfig, ReferenceSentenceConfig
from translate_server.errors import InvalidRequestError

# The least fuzzy-match score of a memory entry shown as an example: lower than /translate's
# default, since Google's adaptive MT always shows its dataset's closest pairs.
ADAPTIVE_THRESHOLD = 50.0
# The reference sentences shown with a text: Google's adaptive MT uses five.
MAX_REFERENCES = 5


def resource_id(name: str, collection: str, param: str) -> str:
    """The last segment of `projects/p/locations/l/{collection}/ID`, or of a bare ID."""
    parts = name.strip().strip("/").split("/")
    if len(parts) == 1 and parts[0]:
        return parts[0]
    if len(parts) >= 2 and parts[-2] == collection and parts[-1]:
        return parts[-1]
    raise InvalidRequestError(
        f"`{name}` is not a resource name of the form "
        f"`projects/{{project}}/locations/{{location}}/{collection}/{{id}}`.",
        param=param,
    )


def glossary_id(config: GoogleGlossaryConfig | None) -> str | None:
    """The stored glossary a `glossaryConfig` names, or None where there is none. Its terms
    are matched whatever their case: `ignoreCase: false` matches more than Google's."""
    if config is None:
        return None
    if not config.glossary:
        raise InvalidRequestError(
            "`glossaryConfig.glossary` is required.", param="glossaryConfig.glossary", code=MISSING
        )
    return resource_id(config.glossary, "glossaries", "glossaryConfig.glossary")


def dataset_id(name: str) -> str:
    return resource_id(name, "adaptiveMtDatasets", "dataset")


def reference_lists(
    config: ReferenceSentenceConfig | None, texts: int
) -> list[tuple[tuple[str, str], ...]] | None:
    """Each text's reference pairs (at most five, in order), or None where none are given.
    Google asks for one list per text; one list for every text is taken too."""
    if config is None or not config.referenceSentencePairLists:
        return None
    lists = config.referenceSentencePairLists
    if len(lists) not in (1, texts):
        raise InvalidRequestError(
            f"{len(lists)} lists of reference sentences for {texts} texts: one per text.",
            param="referenceSentenceConfig.referenceSentencePairLists",
        )
    pairs = [
        tuple(
            (pair.sourceSentence, pair.targetSentence)
            for pair in found.referenceSentencePairs
            if pair.sourceSentence.strip() and pair.targetSentence.strip()
        )[:MAX_REFERENCES]
        for found in lists
    ]
    return pairs * texts if len(pairs) == 1 and texts > 1 else pairs
