"""The domains' wiring checks itself: each declares the service keys it reads and provides, and
a key that no domain before its reader provides is refused, naming the reader, the key and,
where it is registered later, its provider (tests/integration/http/test_startup_wiring.py:
the app refuses to start so)."""

from __future__ import annotations

import pytest

from translate_server.app import DOMAINS
from translate_server.registration import Domain, WiringError, check_wiring
from translate_server.services import Key

THING: Key[str] = Key("thing")
OTHER: Key[str] = Key("other")


def test_the_app_s_domains_are_wired_in_an_order_of_their_dependencies() -> None:
    check_wiring(DOMAINS)


def test_a_key_nobody_provides_is_refused_naming_its_reader_and_the_key() -> None:
    with pytest.raises(WiringError, match=r"the reader domain needs Key\('thing'\), which no"):
        check_wiring([Domain("provider", provides=(OTHER,)), Domain("reader", needs=(THING,))])


def test_a_key_provided_after_its_reader_names_the_provider() -> None:
    domains = [Domain("reader", uses=(THING,)), Domain("provider", provides=(THING,))]
    with pytest.raises(WiringError) as refused:
        check_wiring(domains)
    assert str(refused.value) == (
        "the reader domain needs Key('thing'), which the provider domain provides only after "
        "it: register provider before reader"
    )


def test_a_key_provided_twice_is_refused() -> None:
    with pytest.raises(WiringError, match="provided by both the first and the second domains"):
        check_wiring([Domain("first", provides=(THING,)), Domain("second", provides=(THING,))])
