"""How a domain registers itself with the app, in one declaration: its routes, what it opens
for the app's life (its services, entered on the app's exit stack and provided under its keys),
and its metrics. The composition root (`app.DOMAINS`) is the list of these; adding an API
surface is its package's `DOMAIN` and one line there.

Each domain also declares the service keys it reads and those it provides, and the wiring is
checked before anything opens (`check_wiring`): a key read that no domain before it provides
fails the start, naming the domain, the key and, where one is registered after it, its
provider. While a domain opens, what it reads and provides is held to its declaration
(`services.Declared`), so the declarations cannot drift from the code.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Coroutine, Sequence
from contextlib import AsyncExitStack
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from translate_server.services import Declared, Key, MissingServiceError, Services
from translate_server.settings import Settings
from translate_server.storage.locations import Store

if TYPE_CHECKING:
    from litestar.types import ControllerRouterHandler
    from prometheus_client import CollectorRegistry

    from translate_server.storage.database import Database

T = TypeVar("T")
U = TypeVar("U")

# A domain's collectors are made in the service's registry (observability.metrics).
MetricsFactory = Callable[["CollectorRegistry"], object]


@dataclass(frozen=True, slots=True)
class Opening:
    """What a domain's `open` builds on: the settings, the services opened so far (the core
    and the domains before it), and the exit stack its own resources go on, closed in reverse
    when the app stops or its start fails halfway."""

    settings: Settings
    services: Services
    resources: AsyncExitStack
    # Whether this process opens the stores (memories, DeepL's accounts, document jobs):
    # with `--api-processes N`, only one front end does, and the others forward to it.
    owns_stores: bool = True

    def database(self, store: Store) -> Database:
        """`store`'s database (migrated before the engine started), where this process owns
        the stores."""
        databases = self.services.databases
        if databases is None:
            raise MissingServiceError(f"this process opens no store, not {store}")
        return databases.database(store)

    def start_task(self, work: Coroutine[Any, Any, None]) -> None:
        """A task that lives as long as the app: cancelled, and waited for, when it stops."""
        task = asyncio.create_task(work)
        self.resources.push_async_callback(_cancel, task)


async def _cancel(task: asyncio.Task[None]) -> None:
    task.cancel()
    await asyncio.gather(task, return_exceptions=True)


def _nothing(settings: Settings) -> Sequence[Any]:
    return ()


@dataclass(frozen=True, slots=True)
class Domain:
    name: str
    # The route handlers and routers it serves, decided from the settings alone (the OpenAPI
    # document is built from them without an engine).
    routes: Callable[[Settings], Sequence[ControllerRouterHandler]] = _nothing
    # Builds its services once the engine is up; None: it serves from what others provide.
    open: Callable[[Opening], Awaitable[None]] | None = None
    # Its collectors, made in the service's registry and fed from each request's rendered
    # record where they observe requests (`observability.metrics.ServiceMetrics`).
    metrics: Callable[[Settings], Sequence[MetricsFactory]] = _nothing
    # Refuses settings it cannot serve (raising `SettingsError`), before the engine starts.
    check: Callable[[Settings], None] | None = None
    # The stores whose databases it keeps its things in (`storage.locations.Store`): each is
    # migrated before the engine starts, where this process owns the stores.
    stores: Callable[[Settings], Sequence[Store]] = _nothing
    # The service keys its `open` reads: `needs`, there whenever it opens (`services[KEY]`);
    # `uses`, which their provider may leave out (`services.get(KEY)`: the settings leave the
    # provider out, or this front end owns no store). Each is provided by a domain before it.
    needs: tuple[Key[Any], ...] = ()
    uses: tuple[Key[Any], ...] = ()
    # The keys its `open` provides (some only with some settings, or where it owns the stores).
    provides: tuple[Key[Any], ...] = ()

    def declared(self) -> Declared:
        return Declared(self.name, self.needs, self.uses, self.provides)


class WiringError(MissingServiceError):
    """The domains' declarations do not fit together: a key read that no domain provides
    before the one that reads it, or one provided twice."""


def check_wiring(domains: Sequence[Domain]) -> None:
    """Refuse a list of domains in which a domain reads a key that no domain before it
    provides (naming the provider where one comes after it), or two domains provide one key:
    the order of the list must be an order of the dependencies."""
    providers: dict[Key[Any], str] = {}
    for domain in domains:
        for key in domain.provides:
            if key in providers:
                raise WiringError(
                    f"{key} is provided by both the {providers[key]} and the {domain.name} domains"
                )
            providers[key] = domain.name
    opened: set[Key[Any]] = set()
    for domain in domains:
        for key in (*domain.needs, *domain.uses):
            if key in opened:
                continue
            if key in providers:
                raise WiringError(
                    f"the {domain.name} domain needs {key}, which the {providers[key]} domain "
                    f"provides only after it: register {providers[key]} before {domain.name}"
                )
            raise WiringError(f"the {domain.name} domain needs {key}, which no domain provides")
        opened.update(domain.provides)


def fill(name: str, needed: Key[T], given: Key[U], as_needed: Callable[[U], T]) -> Domain:
    """A capability one domain declares (`needed`, a protocol of its own) filled by what
    another provides (`given`): the composition root's way of joining two domains that never
    import each other. `as_needed` is usually `lambda found: found`, there so that the type
    checker proves `given` fits `needed`. Where `given` is not opened (a front end without
    the stores), neither is `needed`."""

    async def open_(opening: Opening) -> None:
        found = opening.services.get(given)
        if found is not None:
            opening.services.provide(needed, as_needed(found))

    return Domain(name, open=open_, uses=(given,), provides=(needed,))
