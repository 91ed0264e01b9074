"""Start-up checks the domains' wiring: a domain that needs a key nobody provides stops the
start before the engine starts, naming both; and while a domain opens, it may read and provide
only what it declares (`registration.Domain`: needs, uses, provides)."""

from __future__ import annotations

from pathlib import Path

import pytest

from translate_server import app as app_module
from translate_server.app import DOMAINS, create_app
from translate_server.registration import Domain, Opening, WiringError
from translate_server.services import Key, MissingServiceError
from translate_server.settings import Settings, load_settings

from tests.support.fakes import FakeEngine
from tests.support.harness import running
from tests.support.stores import own_stores

THING: Key[str] = Key("thing")


def settings_in(tmp_path: Path) -> Settings:
    return load_settings(
        {"served_model_name": "fake-model", "quality_guard": False, **own_stores(tmp_path)},
        environ={},
    )


def failure(raised: pytest.ExceptionInfo[BaseException]) -> BaseException:
    """The failure itself: Litestar's lifespan may hand it on inside an exception group."""
    error = raised.value
    while isinstance(error, BaseExceptionGroup):
        error = error.exceptions[0]
    return error


async def test_the_app_refuses_to_start_with_a_need_nobody_provides(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(app_module, "DOMAINS", (*DOMAINS, Domain("reader", needs=(THING,))))
    started: list[FakeEngine] = []

    def start_engine() -> FakeEngine:
        started.append(FakeEngine())
        return started[-1]

    with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is checked below
        async with running(create_app(settings_in(tmp_path), start_engine)):
            pass
    error = failure(raised)
    assert isinstance(error, WiringError)
    assert str(error) == "the reader domain needs Key('thing'), which no domain provides"
    assert started == []  # refused before the engine started


async def reads_undeclared(opening: Opening) -> None:
    opening.services.get(THING)


async def provides_undeclared(opening: Opening) -> None:
    opening.services.provide(THING, "made")


async def reads_a_use_as_always_there(opening: Opening) -> None:
    opening.services[THING]


@pytest.mark.parametrize(
    ("domain", "message"),
    [
        (
            Domain("sneaky", open=reads_undeclared),
            "the sneaky domain reads Key('thing') without declaring it in its `needs` or `uses`",
        ),
        (
            Domain("sneaky", open=provides_undeclared),
            "the sneaky domain provides Key('thing') without declaring it in its `provides`",
        ),
        (
            Domain("sneaky", open=reads_a_use_as_always_there, uses=(THING,)),
            (
                "the sneaky domain reads Key('thing') as always there, but declares it in its "
                "`uses` (its provider may leave it out): read it with `get`"
            ),
        ),
    ],
)
async def test_a_domain_opens_with_only_what_it_declares(
    domain: Domain, message: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    provider = Domain("provider", provides=(THING,))
    monkeypatch.setattr(app_module, "DOMAINS", (*DOMAINS, provider, domain))
    with pytest.raises(Exception) as raised:  # noqa: PT011 - the type is checked below
        async with running(create_app(settings_in(tmp_path), FakeEngine)):
            pass
    error = failure(raised)
    assert isinstance(error, MissingServiceError)
    assert str(error) == message
