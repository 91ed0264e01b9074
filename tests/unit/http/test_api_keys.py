"""API keys: compared as the bytes a client sends, found by their digest."""

from __future__ import annotations

import pytest

from translate_server.accounts.directory import KeyDirectory


@pytest.mark.parametrize(
    "header", ["", "Bearer", "Bearer ", "Basic k1", "Bearer k3", "Bearer k1x", "k1"]
)
def test_keys_refused(header: str) -> None:
    assert KeyDirectory(("k1", "k2")).caller_for_header(header.encode("utf-8")) is None


@pytest.mark.parametrize("header", ["Bearer k1", "bearer k2", "Bearer  k1 "])
def test_keys_accepted(header: str) -> None:
    assert KeyDirectory(("k1", "k2")).caller_for_header(header.encode("utf-8")) is not None


def test_a_key_outside_ascii_matches_what_a_client_sends_for_it() -> None:
    keys = KeyDirectory(("clé-secrète-🔑",))
    assert keys.caller_for_header("Bearer clé-secrète-🔑".encode()) is not None
    refused = "Bearer clé-secrète-🔑".encode().replace(b"\xc3", b"\xc4")
    assert keys.caller_for_header(refused) is None


def test_each_static_key_is_an_account_of_its_own() -> None:
    keys = KeyDirectory(("k1", "k2"))
    one, two = keys.caller(b"k1"), keys.caller(b"k2")
    assert one is not None and two is not None
    assert one.account != two.account and one.key_id != two.key_id
    assert "k1" not in one.key_id
