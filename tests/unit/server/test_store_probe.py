"""Which /translate bodies a front end without the stores sends to the one that owns them: those
naming a translation memory or a stored glossary (both kept with the stores)."""

from __future__ import annotations

import pytest

from translate_server.server.owner_forwarding import names_a_store


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
    assert names_a_store(body) is named
