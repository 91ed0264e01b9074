"""Which adapter answers a translation: the most specific one that serves its pair and domain.

An adapter serves a request when each kind of rule it declares matches: one of its pairs
(when it has pairs), and the request's `domain` among its domains (when it has domains). An
adapter without rules is chosen only by name. Specificity: a matched domain outweighs any
pair; an exact pair (`en-de`) outweighs one side given (`en-*`, `*-de`). Equal ones are told
apart by name, so the choice never depends on load order. No match: the base model.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TypeVar

from translate_server.adapters.spec import ANY, AdapterSpec

DOMAIN_WEIGHT = 4

_T = TypeVar("_T")


def primary(tag: str) -> str:
    """`de-CH` -> `de`: the rules name primary language subtags."""
    return tag.split("-", 1)[0].split("_", 1)[0].lower()


def specificity(spec: AdapterSpec, source: str, target: str, domain: str | None) -> int | None:
    """How specifically `spec` serves the request; None when it does not serve it."""
    if not spec.pairs and not spec.domains:
        return None
    score = 0
    if spec.domains:
        if domain is None or domain.lower() not in spec.domains:
            return None
        score += DOMAIN_WEIGHT
    if spec.pairs:
        source, target = primary(source), primary(target)
        best = max(
            (
                (s != ANY) + (t != ANY)
                for s, t in spec.pairs
                if s in (ANY, source) and t in (ANY, target)
            ),
            default=None,
        )
        if best is None:
            return None
        score += best
    return score


def choose(
    candidates: Iterable[tuple[AdapterSpec, _T]], source: str, target: str, domain: str | None
) -> _T | None:
    """The value beside the most specific spec that serves the request, or None."""
    listed = list(candidates)
    scored = [
        (-score, spec.name, index)
        for index, (spec, _) in enumerate(listed)
        if (score := specificity(spec, source, target, domain)) is not None
    ]
    return listed[min(scored)[2]][1] if scored else None
