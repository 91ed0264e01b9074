"""Who a presented key belongs to, answered from memory: every key's digest mapped to the
`Caller` it makes, built once per change. The database is read again only when its key
revision moves (one number polled every `POLL_SECONDS`, on every replica), so a revocation or
a limit changed anywhere reaches every replica within about a second, and a request never
waits for the database.

Static `--api-key` keys are accounts of their own (their digest is the account's id, as it
owned their things before accounts were stored); where no key exists anywhere, every request
is the keyless caller, the shared owner's, with every scope.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Iterable

import msgspec
import structlog

from translate_server.accounts import key_format, scopes
from translate_server.accounts.caller import Caller
from translate_server.accounts.records import Account, KeyRecord
from translate_server.accounts.store import AccountStore
from translate_server.errors import AuthenticationError, StorageUnavailableError
from translate_server.limits.policy import NO_LIMITS, Limits
from translate_server.owners import SHARED

log = structlog.get_logger(__name__)

POLL_SECONDS = 1.0
LAST_USED_FLUSH_SECONDS = 60.0
ADMIN_KEY_ID = "admin-key"


class KeyDirectory:
    def __init__(
        self,
        static_keys: Iterable[str] = (),
        admin_key: str | None = None,
        store: AccountStore | None = None,
        *,
        default_limits: Limits = NO_LIMITS,
    ) -> None:
        self.store = store
        # The static keys' and the keyless caller's account limits until their account has
        # limits stored (the `--limit-*` settings).
        self.default_limits = default_limits
        self._static = {
            key_format.digest(key): _with_account_limits(_static_caller(key), None, default_limits)
            for key in static_keys
        }
        self._admin = key_format.digest(admin_key) if admin_key else None
        # Where no key is required: the shared owner, every scope (the operator's API only
        # to the `--admin-key` where one is set).
        self.keyless = Caller(
            key_id="",
            account=SHARED,
            scopes=scopes.DEFAULT if admin_key else scopes.ALL,
            account_limits=default_limits,
        )
        self._stored: dict[str, tuple[Caller, int | None]] = {}  # digest -> caller, expiry
        self._accounts: dict[str, Account] = {}
        self._keys_in_database = 0
        self.revision = -1
        self._used: dict[str, int] = {}  # key id -> when, since the last flush

    @property
    def required(self) -> bool:
        """The rule: a key is required once one exists anywhere: a static `--api-key`, or any
        key ever made in the database (a revoked one too, so that revoking the last key never
        opens the server). The `--admin-key` alone leaves the server open: it opens only the
        operator's routes."""
        return bool(self._static) or self._keys_in_database > 0

    def summary(self) -> str:
        if not self.required:
            return "keys not required: no static keys and no keys in the database"
        return (
            f"keys required: {len(self._accounts)} accounts and {self._keys_in_database} keys "
            f"in the database, {len(self._static)} static keys, "
            f"admin key {'set' if self._admin else 'not set'}"
        )

    def caller(self, token: bytes) -> Caller | None:
        """The caller `token` (a key, as the client sent it) makes; None for no key of ours.
        Looked up by its digest: a dict's lookup takes the same time whatever matches, and a
        digest's prefix says nothing of a key."""
        digest = key_format.digest(token)
        if (found := self._stored.get(digest)) is not None:
            caller, expires = found
            now = time.time()
            if expires is not None and now >= expires:
                return None
            self._used[caller.key_id] = int(now)
            return caller
        if (static := self._static.get(digest)) is not None:
            return static
        if self._admin is not None and digest == self._admin:
            return Caller(key_id=ADMIN_KEY_ID, account=SHARED, scopes=frozenset((scopes.ADMIN,)))
        return None

    def caller_for_header(self, header: bytes) -> Caller | None:
        """`Authorization: <scheme> <key>` (Bearer; DeepL's clients send `DeepL-Auth-Key`)."""
        scheme, _, token = header.partition(b" ")
        token = token.strip()
        if scheme.lower() not in (b"bearer", b"deepl-auth-key") or not token:
            return None
        return self.caller(token)

    def account_of_key(self, key: str) -> str:
        """The account a key belongs to, for the surfaces that carry the key itself (DeepL's):
        its caller's where it is one of ours, else the key's own digest (DeepL keeps an
        account per presented key even where no key is required, as DeepL does)."""
        found = self.caller(key.encode("utf-8")) if key else None
        return found.account if found is not None else key_format.digest(key)

    def owner_of_key(self, key: str) -> str:
        """Whose stored things a request let in with `key` sees: its account where keys are
        required, else the one shared owner."""
        if not self.required:
            return SHARED
        if not key:  # unreachable past the gate; never the shared owner for a keyless call
            raise AuthenticationError("A valid API key is required.")
        return self.account_of_key(key)

    def account(self, account_id: str) -> Account | None:
        return self._accounts.get(account_id)

    # Keeping up with the database.
    async def load(self) -> None:
        if self.store is None:
            return
        revision, accounts, keys = await self.store.snapshot()
        self._install(revision, accounts, keys)

    def _install(
        self, revision: int, accounts: list[Account], keys: list[tuple[str, KeyRecord]]
    ) -> None:
        by_id = {account.account_id: account for account in accounts}
        stored: dict[str, tuple[Caller, int | None]] = {}
        for digest, record in keys:
            if record.status == "revoked":
                continue
            account = by_id[record.account_id]
            caller = Caller(
                key_id=record.key_id,
                account=record.account_id,
                scopes=frozenset(record.scopes),
                key_limits=record.limits,
                account_limits=account.limits,
            )
            stored[digest] = (caller, record.expires)
        # Static keys' accounts carry the limits set on them (`accounts set-limits`), the
        # keyless caller the `keyless` account's; else the `--limit-*` settings.
        defaults = self.default_limits
        self._static = {
            digest: _with_account_limits(caller, by_id.get(caller.account), defaults)
            for digest, caller in self._static.items()
        }
        self.keyless = _with_account_limits(self.keyless, by_id.get(SHARED), defaults)
        was_required = self.required
        self._stored, self._accounts, self._keys_in_database = stored, by_id, len(keys)
        if self.revision >= 0 and self.required != was_required:
            log.warning("keys_required_changed", summary=self.summary())
        self.revision = revision

    async def poll(self) -> None:
        """Reload when the key revision moved; write the keys' last use now and then. Runs
        for the app's life; a lost database keeps the last keys known, and is retried."""
        assert self.store is not None
        flushed = time.monotonic()
        while True:
            await asyncio.sleep(POLL_SECONDS)
            try:
                if await self.store.revision() != self.revision:
                    await self.load()
                if time.monotonic() - flushed >= LAST_USED_FLUSH_SECONDS:
                    await self.flush()
                    flushed = time.monotonic()
            except StorageUnavailableError as lost:
                log.warning("keys_not_refreshed", reason=lost.reason)

    async def flush(self) -> None:
        if self.store is not None and self._used:
            used, self._used = self._used, {}
            await self.store.note_used(used)


def _static_caller(key: str) -> Caller:
    digest = key_format.digest(key)
    return Caller(key_id=f"static-{digest[:12]}", account=digest, scopes=scopes.DEFAULT)


def _with_account_limits(caller: Caller, account: Account | None, defaults: Limits) -> Caller:
    """`caller` with its account's stored limits, or `defaults` where none are stored."""
    stored = account.limits if account is not None else NO_LIMITS
    return msgspec.structs.replace(caller, account_limits=defaults if stored.unlimited else stored)
