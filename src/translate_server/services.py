"""The app's services, reached by every handler through one object on `app.state.services`.

It holds the core every domain builds on (the engine, the one path into it, admission, the
metrics and limits) as plain attributes, and whatever each domain provides under a typed `Key`
of its own, so that this module names no domain: a new domain adds its key in its own package.
Handlers ask `services(request)` rather than take a `state: State` parameter: Litestar would
deep-copy the state for every request (slow), and admission counts would never be shared.
"""

from __future__ import annotations

from collections.abc import Collection, Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from litestar import Request

if TYPE_CHECKING:  # the services' modules load with the engine, not with the routes
    from translate_server.accounts.directory import KeyDirectory
    from translate_server.inference.admission import Admission
    from translate_server.inference.engine import Engine
    from translate_server.inference.engine_failures import EngineFailures
    from translate_server.inference.generation import GenerationService
    from translate_server.inference.served_models import ServedModels
    from translate_server.observability.metrics import ServiceMetrics
    from translate_server.settings import LimitSettings
    from translate_server.storage.opening import StoreDatabases

T = TypeVar("T")


@dataclass(frozen=True, slots=True, eq=False)
class Key(Generic[T]):
    """The name a domain provides a service under; its type parameter is the service's type,
    so `services[KEY]` is typed. Keys compare by identity: two domains never share one by
    accident of naming."""

    name: str

    def __repr__(self) -> str:
        return f"Key({self.name!r})"


class MissingServiceError(LookupError):
    """A domain asked for a service that no domain opened before it (an ordering mistake in
    the composition root, or a store this process does not own), or one it does not declare."""


@dataclass(frozen=True, slots=True)
class Declared:
    """What the domain being opened declares (`registration.Domain`): the keys it reads (`needs`,
    always there; `uses`, which their provider may leave out) and those it provides. Reading or
    providing another is a mistake in its declaration, and fails its start."""

    domain: str
    needs: Collection[Key[Any]] = ()
    uses: Collection[Key[Any]] = ()
    provides: Collection[Key[Any]] = ()

    def reading(self, key: Key[Any], *, optional: bool) -> None:
        if key in self.needs or (optional and key in self.uses):
            return
        if key in self.uses:
            raise MissingServiceError(
                f"the {self.domain} domain reads {key} as always there, but declares it in its "
                "`uses` (its provider may leave it out): read it with `get`"
            )
        raise MissingServiceError(
            f"the {self.domain} domain reads {key} without declaring it in its `needs` or `uses`"
        )

    def providing(self, key: Key[Any]) -> None:
        if key not in self.provides:
            raise MissingServiceError(
                f"the {self.domain} domain provides {key} without declaring it in its `provides`"
            )


# The domain whose `open` is running, in its task and the tasks it starts (start-up opens one
# domain at a time); None once it has opened, and for every request.
_opening: ContextVar[Declared | None] = ContextVar("opening", default=None)


@dataclass(slots=True)
class Services:
    engine: Engine
    generation: GenerationService
    # The engine's failures in a row, as the generation service counts them (health reads it).
    engine_failures: EngineFailures
    admission: Admission
    metrics: ServiceMetrics
    limits: LimitSettings
    model_name: str
    started_at: int
    # Who each API key is (accounts, scopes, limits): the gate's, filled from the database
    # once the stores open.
    keys: KeyDirectory
    # The stores' databases, where this process owns the stores (with --api-processes, only
    # one front end does).
    databases: StoreDatabases | None = None
    _provided: dict[Key[Any], Any] = field(default_factory=dict)

    def provide(self, key: Key[T], value: T) -> None:
        if (declared := _opening.get()) is not None:
            declared.providing(key)
        if key in self._provided:
            raise ValueError(f"{key} is provided twice")
        self._provided[key] = value

    def __getitem__(self, key: Key[T]) -> T:
        if (declared := _opening.get()) is not None:
            declared.reading(key, optional=False)
        try:
            found: T = self._provided[key]
        except KeyError:
            raise MissingServiceError(f"nothing is provided as {key}") from None
        return found

    def get(self, key: Key[T]) -> T | None:
        """The service, or None where no domain opened it (this front end owns no stores,
        or the settings leave the domain out)."""
        if (declared := _opening.get()) is not None:
            declared.reading(key, optional=True)
        found: T | None = self._provided.get(key)
        return found

    @contextmanager
    def opening(self, declared: Declared) -> Iterator[None]:
        """While a domain opens: what it reads and provides is checked against `declared`."""
        token = _opening.set(declared)
        try:
            yield
        finally:
            _opening.reset(token)


# Which model a request means (the base model and any LoRA adapters beside it): every surface
# resolves `model` with it. The adapters domain provides it, before any surface opens.
SERVED_MODELS: Key[ServedModels] = Key("served models")


def services(request: Request[Any, Any, Any]) -> Services:
    found: Services = request.app.state.services
    return found
