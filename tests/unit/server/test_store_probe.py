"""Which /translate bodies a front end without the stores sends to the one that owns them: those
giving a field its route declares to name a store (a translation memory, a stored glossary)."""

from __future__ import annotations

import pytest

from translate_server.server.owner_forwarding import names_a_store
from translate_server.translation.routes import NAMING_STORES


@pytest.mark.parametrize(
    ("body", "named"),
    [
        (b'{"text": "Hi", "target_lang": "de"}', False),
        (b'{"text": "Hi", "target_lang": "de", "memory": "m1"}', True),
        (b'{"text": "Hi", "target_lang": "de", "glossary_id": "g1"}', True),
        (b'{"text": "Hi", "target_lang": "de", "glossary_id": ["g1", "g2"]}', True),
        (b'{"text": "Hi", "target_lang": "de", "glossary": {"a": "b"}}', False),
        (b"not json", False),
    ],
)
def test_a_body_naming_a_memory_or_a_stored_glossary_needs_the_stores(
    body: bytes, named: bool
) -> None:
    assert names_a_store(body, NAMING_STORES) is named


def test_only_the_fields_declared_are_read() -> None:
    body = b'{"text": "Hi", "memory": "m1", "glossary_id": null}'
    assert names_a_store(body, ("glossary_id",)) is False
    assert names_a_store(body, ("memory",)) is True
    assert names_a_store(b'["memory"]', ("memory",)) is False
