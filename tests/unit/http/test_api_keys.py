"""API keys: compared as the bytes a client sends, in constant time."""

from __future__ import annotations

import pytest

from translate_server.http.gate import ApiKeys


@pytest.mark.parametrize(
    "header", ["", "Bearer", "Bearer ", "Basic k1", "Bearer k3", "Bearer k1x", "k1"]
)
def test_keys_refused(header: str) -> None:
    assert not ApiKeys(("k1", "k2")).accepts(header.encode("utf-8"))


@pytest.mark.parametrize("header", ["Bearer k1", "bearer k2", "Bearer  k1 "])
def test_keys_accepted(header: str) -> None:
    assert ApiKeys(("k1", "k2")).accepts(header.encode("utf-8"))


def test_a_key_outside_ascii_matches_what_a_client_sends_for_it() -> None:
    keys = ApiKeys(("clé-secrète-🔑",))
    assert keys.accepts("Bearer clé-secrète-🔑".encode())
    assert not keys.accepts("Bearer clé-secrète-🔑".encode().replace(b"\xc3", b"\xc4"))
