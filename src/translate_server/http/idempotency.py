"""No request done twice: `Idempotency-Key`, and identical requests in flight sharing one run.

On the routes that declare it (`route_paths.IDEMPOTENT`), a POST is read whole, then:
- with an `Idempotency-Key` header: the first request with that key (per caller) runs and its
  answer is kept a day in the shared database (`idempotent_answers`); the same key with the
  same body (and route) gets that answer again, from any replica, without running or being
  billed again; with another body, a 422 `idempotency_key_reused`. A replay while the first
  still runs waits for it (on another replica, by reading the database every
  `POLL_SECONDS`). An answer of 5xx (or a 408, 409 or 429) is not kept: nothing was done, the
  next request with the key runs.
- without one, on the routes whose answers are not sampled (not chat's: two identical chat
  requests at once may want two answers): a request identical to one of the same caller still
  running here (same route, same body) waits for that one's answer instead of running again.
  A run whose client left goes on `GRACE_SECONDS` for a retry to join, and an answer nobody
  received is kept `WINDOW_SECONDS` for it: a client that gives up and sends again (DeepL's
  after 10 s) gets the first run's answer, billed once.

Every replayed answer says `Idempotent-Replayed: true`. The first client of a run gets its
answer as it is sent (a stream streams); the others get it whole once it ends. An answer over
`MAX_KEPT_BYTES` is not kept: the others run on their own.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
from collections.abc import Callable
from typing import Any

from litestar.enums import ScopeType
from litestar.types import (
    ASGIApp,
    HTTPDisconnectEvent,
    HTTPRequestEvent,
    Message,
    Receive,
    ReceiveMessage,
    Scope,
    Send,
)
from litestar.utils import normalize_path

from translate_server.accounts.caller import CALLER, Caller
from translate_server.errors import ApiError, IdempotencyKeyReusedError, InvalidRequestError
from translate_server.http.errors import ErrorShape, answer_for, encode_error, note_error
from translate_server.http.idempotent_answers import Answer, Captured, IdempotentAnswers
from translate_server.owners import SHARED, owner_of

HEADER = b"idempotency-key"
REPLAYED = (b"idempotent-replayed", b"true")
GRACE_SECONDS = 5.0
WINDOW_SECONDS = 30.0
POLL_SECONDS = 0.2
MAX_KEPT_BYTES = 4 * 2**20
_KEY = re.compile(rb"[\x21-\x7e]{1,255}")
# Answers a retry should run again for: nothing was done (or it may be done now), or the
# run was stopped when its clients left.
_NOT_KEPT = {408, 409, 429, 499}


class _Run:
    """One run of a request, and who waits for its answer."""

    def __init__(self, digest: str, live: Send | None) -> None:
        self.digest = digest
        self.live = live  # the first client's send, while it is there
        self.done = asyncio.Event()
        self.abandoned = asyncio.Event()
        self.answer: Answer | None = None
        self.present = 0
        self.delivered = False


class IdempotentRequests:
    def __init__(
        self,
        app: ASGIApp,
        *,
        routes: tuple[re.Pattern[str], ...],
        shared_runs: tuple[re.Pattern[str], ...] = (),
        answers: Callable[[], IdempotentAnswers | None],
        lease: float,
        max_body: int,
        error_shapes: tuple[tuple[str, ErrorShape], ...] = (),
    ) -> None:
        """`routes`: the idempotent paths; `answers`: the shared store, once the app has
        opened it (None: the keys are kept in this process only); `lease`: how long a claim
        holds (the longest a request may take)."""
        self.app = app
        self.routes = routes
        self.shared_runs = shared_runs
        self.answers = answers
        self.lease = lease
        self.max_body = max_body
        self.error_shapes = error_shapes
        self._runs: dict[tuple[str, ...], _Run] = {}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (
            scope["type"] != ScopeType.HTTP
            or scope["method"] != "POST"
            or not any(r.fullmatch(normalize_path(scope["path"])) for r in self.routes)
        ):
            await self.app(scope, receive, send)
            return
        body, complete = await _read(receive, self.max_body)
        if not complete:  # too large for the app anyway: it answers so
            await self.app(scope, _replaying(body, receive, complete=False), send)
            return
        headers = dict(scope["headers"])
        owner = _owner(scope, headers)

        digest = _digest(scope["path"], headers.get(b"content-type", b""), body)
        key = headers.get(HEADER)
        if key is None:
            path = normalize_path(scope["path"])
            if any(r.fullmatch(path) for r in self.shared_runs):
                await self._shared(("run", owner, digest), digest, scope, body, receive, send)
            else:
                await self.app(scope, _replaying(body, receive, complete=True), send)
            return
        if not _KEY.fullmatch(key):
            await self._refuse(
                scope,
                send,
                InvalidRequestError(
                    "`Idempotency-Key` must be 1 to 255 printable ASCII characters.",
                    param="Idempotency-Key",
                ),
            )
            return
        await self._keyed(owner, key.decode(), digest, scope, body, receive, send)

    async def _keyed(
        self,
        owner: str,
        key: str,
        digest: str,
        scope: Scope,
        body: bytes,
        receive: Receive,
        send: Send,
    ) -> None:
        here = ("key", owner, key)
        store = self.answers()
        while True:
            run = self._runs.get(here)
            if run is not None:  # this process runs it, or did a moment ago
                if run.digest != digest:
                    await self._refuse(scope, send, _reused())
                    return
                if await self._attend(run, receive, send):
                    return
                continue  # nothing to replay (the first failed): claim the key again
            if store is None:
                await self._shared(here, digest, scope, body, receive, send, kept=True)
                return
            found = await store.claim(owner, key, digest, self.lease)
            if found.digest != digest:
                await self._refuse(scope, send, _reused())
                return
            if found.state == "finished":
                assert found.answer is not None
                await _replay(found.answer, send)
                return
            if found.state == "claimed":

                async def keep(answer: Answer | None) -> None:
                    if answer is None or not _kept(answer.status):
                        await store.release(owner, key)
                    else:
                        await store.finish(owner, key, answer)

                await self._shared(here, digest, scope, body, receive, send, kept=True, then=keep)
                return
            await asyncio.sleep(POLL_SECONDS)  # running on another replica: wait for it

    async def _shared(
        self,
        here: tuple[str, ...],
        digest: str,
        scope: Scope,
        body: bytes,
        receive: Receive,
        send: Send,
        *,
        kept: bool = False,
        then: Callable[[Answer | None], Any] | None = None,
    ) -> None:
        """The request run once for everyone who waits for it under `here`."""
        run = self._runs.get(here)
        if run is not None:
            if not await self._attend(run, receive, send):
                # No answer to share (too large, or none): its own run.
                await self.app(scope, _replaying(body, receive, complete=True), send)
            return
        run = self._runs[here] = _Run(digest, send)
        run.present = 1
        await self._execute(here, run, scope, body, receive, kept, then)

    async def _execute(
        self,
        here: tuple[str, ...],
        run: _Run,
        scope: Scope,
        body: bytes,
        first_receive: Receive,
        kept: bool,
        then: Callable[[Answer | None], Any] | None,
    ) -> None:
        """The run, in its first client's own task (no task of its own on the hot path):
        the app hears that client leave only once nobody else waits and no retry came."""
        read = False

        async def receive() -> ReceiveMessage:
            nonlocal read
            if not read:
                read = True
                whole: HTTPRequestEvent = {"type": "http.request", "body": body, "more_body": False}
                return whole
            if run.live is not None:  # the first client: its own disconnect, when it comes
                if (await first_receive())["type"] != "http.disconnect":
                    raise RuntimeError("a request's body was read whole before it ran")
                run.live = None
                _left(run)
            await run.abandoned.wait()  # everyone left, and no retry came
            gone: HTTPDisconnectEvent = {"type": "http.disconnect"}
            return gone

        captured = Captured(MAX_KEPT_BYTES)

        async def send(message: Message) -> None:
            captured.add(message)
            if run.live is not None:
                try:
                    await run.live(message)
                except Exception:  # noqa: BLE001 - the client is gone; the others wait
                    run.live = None
                    return
                if message["type"] == "http.response.body" and not message.get("more_body"):
                    run.delivered = True

        try:
            await self.app(scope, receive, send)
        finally:
            run.answer = captured.answer()
            if kept and run.answer is not None and not _kept(run.answer.status):
                run.answer = None  # the key's next request runs again
            try:
                if then is not None:
                    await then(run.answer)
            finally:
                run.done.set()
                if run.answer is not None and (kept or not run.delivered):
                    # A moment for a retry that is on its way (a kept key's replay reads the
                    # database after it).
                    asyncio.get_running_loop().call_later(WINDOW_SECONDS, self._forget, here, run)
                else:
                    self._forget(here, run)

    def _forget(self, here: tuple[str, ...], run: _Run) -> None:
        if self._runs.get(here) is run:
            del self._runs[here]

    async def _attend(self, run: _Run, receive: Receive, send: Send) -> bool:
        """Wait for the run's answer and replay it, or for this client to leave; False where
        the run ended without an answer to replay."""
        run.present += 1
        left = asyncio.ensure_future(_disconnected(receive))
        ended = asyncio.ensure_future(run.done.wait())
        try:
            await asyncio.wait((left, ended), return_when=asyncio.FIRST_COMPLETED)
            if not ended.done():  # the client left
                return True
            if run.answer is None:
                return False
            await _replay(run.answer, send)
            run.delivered = True
            return True
        finally:
            left.cancel()
            ended.cancel()
            _left(run)

    async def _refuse(self, scope: Scope, send: Send, error: ApiError) -> None:
        note_error(scope, answer_for(error).error)
        shape = next((s for p, s in self.error_shapes if scope["path"].startswith(p)), None)
        status, headers, body = encode_error(error, shape)
        await send({"type": "http.response.start", "status": status, "headers": headers})
        await send({"type": "http.response.body", "body": body, "more_body": False})


def _digest(path: str, content_type: bytes, body: bytes) -> str:
    """What makes two requests the same: route and body. A multipart body's boundary is
    the client's own choice, new at each send (a retry's too): left out."""
    _, found, boundary = content_type.partition(b"boundary=")
    if found:
        body = body.replace(b"--" + boundary.split(b";")[0].strip(b'" '), b"--")
    return hashlib.sha256(path.encode() + b"\n" + body).hexdigest()


def _reused() -> ApiError:
    return IdempotencyKeyReusedError(
        "This `Idempotency-Key` was sent with another request body (or route); use a new key "
        "for a new request.",
        param="Idempotency-Key",
    )


def _kept(status: int) -> bool:
    return status < 500 and status not in _NOT_KEPT


def _left(run: _Run) -> None:
    """A client of the run gone: where it was the last, the run stops after GRACE_SECONDS
    unless a retry joins meanwhile."""
    run.present -= 1
    if run.present == 0 and not run.done.is_set():
        asyncio.get_running_loop().call_later(GRACE_SECONDS, _abandon_if_alone, run)


def _abandon_if_alone(run: _Run) -> None:
    if run.present == 0:
        run.abandoned.set()


async def _replay(answer: Answer, send: Send) -> None:
    headers = [
        (k.encode("latin-1"), v.encode("latin-1"))
        for k, v in answer.headers
        if k.lower() not in ("content-length", "connection")
    ]
    headers += [(b"content-length", str(len(answer.body)).encode()), REPLAYED]
    await send({"type": "http.response.start", "status": answer.status, "headers": headers})
    await send({"type": "http.response.body", "body": answer.body, "more_body": False})


async def _read(receive: Receive, limit: int) -> tuple[bytes, bool]:
    """The body, and whether it is all there (False: over `limit`, or the client left)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":
            return b"".join(chunks), False
        chunk = message.get("body", b"")
        chunks.append(chunk)
        size += len(chunk)
        if not message.get("more_body", False):
            return b"".join(chunks), True
        if size > limit:
            return b"".join(chunks), False


def _replaying(body: bytes, receive: Receive, *, complete: bool) -> Receive:
    """`receive` with what was read of the body handed out first (`complete`: all of it)."""
    read = False

    async def replay() -> ReceiveMessage:
        nonlocal read
        if not read:
            read = True
            first: HTTPRequestEvent = {
                "type": "http.request",
                "body": body,
                "more_body": not complete,
            }
            return first
        return await receive()

    return replay


async def _disconnected(receive: Receive) -> None:
    while (await receive())["type"] != "http.disconnect":
        pass


def _owner(scope: Scope, headers: dict[bytes, bytes]) -> str:
    """Whose answers these are: the account of the caller the gate let in; where no keys are
    required (every caller is the one keyless account) or the key is left to the route (sent
    in the body, which is part of the digest), the key presented in the header, if any (DeepL
    bills per presented key even where none are configured)."""
    caller: Caller | None = scope.get("state", {}).get(CALLER)
    if caller is not None and caller.account != SHARED:
        return caller.account
    _, _, token = headers.get(b"authorization", b"").partition(b" ")
    token = token.strip()
    return owner_of(token.decode("latin-1")) if token else ""
