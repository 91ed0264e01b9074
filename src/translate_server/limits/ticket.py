"""One request's account with the limits, its `Ticket`: admitted once its caller is known (by
the gate, or by the route that found the key in the body), charged the characters it bills
before any engine work (`charge`, from the services, which know what they bill), released when
the request ends, and then counted in the usage.

The ticket is the request's context variable (`CURRENT`), set by the gate for the request's
task: a service bills through `charge` without the request being handed down to it.
"""

from __future__ import annotations

from contextvars import ContextVar
from typing import Protocol

from translate_server.limits.meter import CHARACTERS, REQUESTS, Meter, Standing, Subject
from translate_server.limits.policy import Limits
from translate_server.limits.usage import UsageLedger


class Spender(Protocol):
    """Whom a request is billed to (`accounts.Caller`)."""

    @property
    def key_id(self) -> str: ...
    @property
    def account(self) -> str: ...
    @property
    def key_limits(self) -> Limits: ...
    @property
    def account_limits(self) -> Limits: ...


class Ticket:
    __slots__ = (
        "admitted",
        "characters",
        "documents",
        "ledger",
        "meter",
        "pair",
        "spender",
        "subjects",
    )

    def __init__(self, meter: Meter, ledger: UsageLedger) -> None:
        self.meter = meter
        self.ledger = ledger
        self.spender: Spender | None = None
        self.subjects: tuple[Subject, ...] = ()
        self.admitted = False
        self.characters = 0
        self.documents = 0
        self.pair = ("", "")

    async def admit(self, spender: Spender) -> None:
        """Count the request against its key's and account's limits, or raise the refusal
        (RateLimitedError) having counted nothing."""
        meter = self.meter
        subjects = tuple(
            meter.subject(name, limits)
            for name, limits in (
                ("key:" + spender.key_id, spender.key_limits),
                ("account:" + spender.account, spender.account_limits),
            )
            if not limits.unlimited
        )
        self.subjects = subjects  # its headers tell where they stand, refused or not
        if subjects:
            await meter.admit(subjects)
        self.admitted = True
        self.spender = spender

    async def charge(self, characters: int, pair: tuple[str, str] | None = None) -> None:
        if self.admitted and self.subjects:
            await self.meter.charge(self.subjects, characters)
        self.characters += characters
        if pair is not None:
            self.pair = pair

    def end(self, route: str, tokens: int) -> None:
        """The request is over: its place freed, its usage counted."""
        if self.admitted:
            self.admitted = False
            if self.subjects:
                self.meter.release(self.subjects)
        spender = self.spender
        if spender is not None:
            self.spender = None
            self.ledger.add(
                spender.account,
                spender.key_id,
                route,
                self.pair,
                characters=self.characters,
                tokens=tokens,
                documents=self.documents,
            )

    def headers(self) -> list[tuple[bytes, bytes]]:
        """`x-ratelimit-*` for requests and characters (as OpenAI's `-tokens`), where a rate
        limit applies: the tighter of the key's and the account's."""
        found: list[tuple[bytes, bytes]] = []
        for measure, suffix in ((REQUESTS, b"requests"), (CHARACTERS, b"tokens")):
            standings = [
                s for s in (self.meter.standing(sub, measure) for sub in self.subjects) if s
            ]
            if standings:
                found += _headers(min(standings, key=lambda s: s.remaining), suffix)
        return found


def _headers(standing: Standing, suffix: bytes) -> list[tuple[bytes, bytes]]:
    return [
        (b"x-ratelimit-limit-" + suffix, str(standing.limit).encode()),
        (b"x-ratelimit-remaining-" + suffix, str(standing.remaining).encode()),
        (b"x-ratelimit-reset-" + suffix, f"{standing.reset:.3f}s".encode()),
    ]


CURRENT: ContextVar[Ticket | None] = ContextVar("limits_ticket", default=None)


async def charge(characters: int, pair: tuple[str, str] | None = None) -> None:
    """Bill `characters` (of the language pair `pair`) to the current request, or raise its
    refusal (RateLimitedError, QuotaExceededError) before any engine work; nothing outside a
    request."""
    ticket = CURRENT.get()
    if ticket is not None:
        await ticket.charge(characters, pair)


async def month_standing() -> tuple[int, int] | None:
    """The current caller's monthly quota as (characters used, limit): the tighter of its
    key's and its account's; None where neither has one."""
    ticket = CURRENT.get()
    if ticket is None:
        return None
    best: tuple[int, int] | None = None
    for subject in ticket.subjects:
        limit = subject.limits.characters_per_month
        if limit is not None:
            used = await ticket.meter.used_this_month(subject)
            if best is None or limit - used < best[1] - best[0]:
                best = (used, limit)
    return best


def count_document() -> None:
    ticket = CURRENT.get()
    if ticket is not None:
        ticket.documents += 1


def documents_in_flight(default: int | None) -> int | None:
    """The current caller's limit on documents in translation at once: the least of its
    key's, its account's and `default` (the server's)."""
    ticket = CURRENT.get()
    spender = ticket.spender if ticket is not None else None
    found = [default]
    if spender is not None:
        found += [
            spender.key_limits.documents_in_flight,
            spender.account_limits.documents_in_flight,
        ]
    limits = [limit for limit in found if limit is not None]
    return min(limits) if limits else None
