"""Accounts, their keys and the audit log, on either backend (`storage.database`). Every
change writes its audit entry and raises the key revision in the same transaction, so every
replica's cache (`directory`) sees it on its next poll."""

from __future__ import annotations

import secrets
import time
from collections.abc import Sequence
from typing import Any

import msgspec
from sqlalchemy import select, update
from sqlalchemy.engine import Connection

from translate_server.accounts import key_format
from translate_server.accounts.records import (
    ACTIVE,
    REVOKED,
    ROTATED,
    Account,
    Actor,
    AuditEntry,
    KeyRecord,
    NewKey,
)
from translate_server.errors import AccountExistsError, AccountNotFoundError, KeyNotFoundError
from translate_server.limits.policy import NO_LIMITS, Limits
from translate_server.owners import SHARED
from translate_server.storage.account_tables import accounts, api_keys, audit_log, key_revision
from translate_server.storage.database import Database

# The name of the keyless caller's account (its id is the shared owner's).
KEYLESS_NAME = "keyless"
ADOPTION = Actor(who="migration", origin="")
_A = accounts.c
_K = api_keys.c
_LIMITS = msgspec.json.Decoder(Limits)
_DETAIL = msgspec.json.Decoder(dict[str, Any])


class AccountStore:
    def __init__(self, database: Database) -> None:
        self.database = database

    # Reads.
    async def revision(self) -> int:
        return int(await self.database.read(_revision))

    async def snapshot(self) -> tuple[int, list[Account], list[tuple[str, KeyRecord]]]:
        """Everything the key cache holds, read at one revision: the keys with their digests."""

        def read(c: Connection) -> tuple[int, list[Account], list[tuple[str, KeyRecord]]]:
            return _revision(c), _accounts(c), _keys_with_digests(c)

        return await self.database.read(read)

    async def accounts(self) -> list[Account]:
        return await self.database.read(_accounts)

    async def account(self, name: str) -> Account:
        return await self.database.read(lambda c: _account(c, name))

    async def keys(self, account: str | None = None) -> list[KeyRecord]:
        def read(c: Connection) -> list[KeyRecord]:
            account_id = _account(c, account).account_id if account is not None else None
            return _keys(c, account_id)

        return await self.database.read(read)

    async def key(self, ref: str) -> KeyRecord:
        return await self.database.read(lambda c: _key(c, ref))

    async def audit(self, limit: int = 100, after: int = 0) -> list[AuditEntry]:
        def read(c: Connection) -> list[AuditEntry]:
            t = audit_log.c
            query = select(audit_log).where(t.entry_id > after).order_by(t.entry_id).limit(limit)
            return [
                AuditEntry(**{**row._mapping, "detail": _DETAIL.decode(row.detail)})
                for row in c.execute(query)
            ]

        return await self.database.read(read)

    # Changes.
    async def create_account(
        self, actor: Actor, name: str, limits: Limits = NO_LIMITS, *, account_id: str = ""
    ) -> Account:
        made = Account(
            account_id=account_id or f"acct_{secrets.token_hex(8)}",
            name=name,
            limits=limits,
            created=int(time.time()),
        )

        def write(c: Connection) -> Account:
            taken = c.execute(select(_A.account_id).where(_A.name == name)).first()
            if taken is not None or name == KEYLESS_NAME:
                raise AccountExistsError(f"An account named {name!r} already exists.")
            c.execute(accounts.insert().values(**_account_row(made)))
            _changed(c, actor, "accounts.create", made.account_id, {"name": name, **_shown(limits)})
            return made

        return await self.database.write(write)

    async def set_account_limits(self, actor: Actor, name: str, limits: Limits) -> Account:
        """The account named `name`'s limits; `keyless` names the keyless caller's (made at
        its first limit), where no key is required."""

        def write(c: Connection) -> Account:
            if (
                name == KEYLESS_NAME
                and c.execute(select(_A.account_id).where(_A.account_id == SHARED)).first() is None
            ):
                made = Account(
                    account_id=SHARED, name=KEYLESS_NAME, limits=limits, created=int(time.time())
                )
                c.execute(accounts.insert().values(**_account_row(made)))
            found = _account(c, name)
            c.execute(
                update(accounts)
                .where(_A.account_id == found.account_id)
                .values(limits=_encoded(limits))
            )
            _changed(c, actor, "accounts.set_limits", found.account_id, _shown(limits))
            return msgspec.structs.replace(found, limits=limits)

        return await self.database.write(write)

    async def create_key(
        self,
        actor: Actor,
        account: str,
        *,
        name: str = "",
        scopes: frozenset[str],
        limits: Limits = NO_LIMITS,
        expires: int | None = None,
    ) -> NewKey:
        def write(c: Connection) -> NewKey:
            owner = _account(c, account)
            made = _insert_key(c, owner, name, sorted(scopes), limits, expires)
            detail = {"name": name, "scopes": sorted(scopes), "expires": expires, **_shown(limits)}
            _changed(c, actor, "keys.create", made.record.key_id, detail)
            return made

        return await self.database.write(write)

    async def revoke_key(self, actor: Actor, ref: str) -> KeyRecord:
        def write(c: Connection) -> KeyRecord:
            found = _key(c, ref)
            c.execute(update(api_keys).where(_K.key_id == found.key_id).values(status=REVOKED))
            _changed(c, actor, "keys.revoke", found.key_id, {})
            return msgspec.structs.replace(found, status=REVOKED)

        return await self.database.write(write)

    async def rotate_key(self, actor: Actor, ref: str, grace_seconds: int) -> NewKey:
        """A new key like `ref` (its account, name, scopes, limits and expiry); the old one
        keeps working `grace_seconds` more, then is refused."""

        def write(c: Connection) -> NewKey:
            old = _key(c, ref)
            if old.status != ACTIVE:
                raise KeyNotFoundError(f"{old.prefix} is {old.status}: only active ones rotate.")
            owner = _account(c, old.account)
            made = _insert_key(c, owner, old.name, old.scopes, old.limits, old.expires)
            until = int(time.time()) + grace_seconds
            if old.expires is not None:
                until = min(until, old.expires)
            c.execute(
                update(api_keys)
                .where(_K.key_id == old.key_id)
                .values(status=ROTATED, expires=until)
            )
            detail = {"new_key": made.record.key_id, "grace_seconds": grace_seconds}
            _changed(c, actor, "keys.rotate", old.key_id, detail)
            return made

        return await self.database.write(write)

    async def set_key_limits(self, actor: Actor, ref: str, limits: Limits) -> KeyRecord:
        def write(c: Connection) -> KeyRecord:
            found = _key(c, ref)
            c.execute(
                update(api_keys).where(_K.key_id == found.key_id).values(limits=_encoded(limits))
            )
            _changed(c, actor, "keys.set_limits", found.key_id, _shown(limits))
            return msgspec.structs.replace(found, limits=limits)

        return await self.database.write(write)

    async def adopt(self, owners: set[str]) -> int:
        """An account for each owner of stored things that has none (a key's digest, from
        the stores written before accounts existed): how many were made."""

        def write(c: Connection) -> int:
            known = {row.account_id for row in c.execute(select(_A.account_id))}
            missing = sorted(owners - known - {SHARED})
            now = int(time.time())
            for owner in missing:
                c.execute(
                    accounts.insert().values(
                        account_id=owner, name=f"key-{owner[:12]}", limits="{}", created=now
                    )
                )
            if missing:
                _changed(c, ADOPTION, "accounts.adopt", "", {"accounts": missing})
            return len(missing)

        return await self.database.write(write)

    async def note_used(self, last_used: dict[str, int]) -> None:
        """The keys' last use, as a cache gathered it (not an audited change, nor a revision:
        no cache needs to reload for it)."""

        def write(c: Connection) -> None:
            for key_id, at in sorted(last_used.items()):
                c.execute(
                    update(api_keys)
                    .where(_K.key_id == key_id)
                    .where((_K.last_used.is_(None)) | (_K.last_used < at))
                    .values(last_used=at)
                )

        if last_used:
            await self.database.write(write)


def _insert_key(
    c: Connection,
    owner: Account,
    name: str,
    scopes: Sequence[str],
    limits: Limits,
    expires: int | None,
) -> NewKey:
    key, key_id = key_format.new_key()
    record = KeyRecord(
        key_id=key_id,
        prefix=key_format.shown_prefix(key_id),
        name=name,
        account_id=owner.account_id,
        account=owner.name,
        scopes=list(scopes),
        limits=limits,
        created=int(time.time()),
        expires=expires,
    )
    c.execute(
        api_keys.insert().values(
            key_id=key_id,
            digest=key_format.digest(key),
            prefix=record.prefix,
            name=name,
            account_id=owner.account_id,
            scopes=msgspec.json.encode(record.scopes).decode(),
            limits=_encoded(limits),
            created=record.created,
            expires=expires,
            status=ACTIVE,
        )
    )
    return NewKey(key=key, record=record)


def _revision(c: Connection) -> int:
    return int(c.execute(select(key_revision.c.revision)).scalar_one())


def _changed(c: Connection, actor: Actor, action: str, target: str, detail: dict[str, Any]) -> None:
    c.execute(update(key_revision).values(revision=key_revision.c.revision + 1))
    c.execute(
        audit_log.insert().values(
            at=int(time.time()),
            actor=actor.who,
            origin=actor.origin,
            action=action,
            target=target,
            detail=msgspec.json.encode(detail).decode(),
        )
    )


def _account_row(account: Account) -> dict[str, Any]:
    return {
        "account_id": account.account_id,
        "name": account.name,
        "limits": _encoded(account.limits),
        "created": account.created,
    }


def _accounts(c: Connection) -> list[Account]:
    return [
        Account(
            account_id=row.account_id,
            name=row.name,
            limits=_LIMITS.decode(row.limits),
            created=row.created,
        )
        for row in c.execute(select(accounts).order_by(_A.name))
    ]


def _account(c: Connection, name: str) -> Account:
    """By name, or by id."""
    row = c.execute(select(accounts).where((_A.name == name) | (_A.account_id == name))).first()
    if row is None:
        raise AccountNotFoundError(f"No account is named {name!r}.")
    return Account(
        account_id=row.account_id,
        name=row.name,
        limits=_LIMITS.decode(row.limits),
        created=row.created,
    )


_KEY_COLUMNS = (
    _K.key_id, _K.prefix, _K.name, _K.account_id, _A.name.label("account"), _K.scopes,
    _K.limits, _K.created, _K.expires, _K.last_used, _K.status, _K.digest,
)  # fmt: skip


def _keys(c: Connection, account_id: str | None = None) -> list[KeyRecord]:
    query = select(*_KEY_COLUMNS).join(accounts, _A.account_id == _K.account_id)
    if account_id is not None:
        query = query.where(_K.account_id == account_id)
    return [_key_record(row) for row in c.execute(query.order_by(_K.created, _K.key_id))]


def _keys_with_digests(c: Connection) -> list[tuple[str, KeyRecord]]:
    query = select(*_KEY_COLUMNS).join(accounts, _A.account_id == _K.account_id)
    return [(row.digest, _key_record(row)) for row in c.execute(query)]


def _key(c: Connection, ref: str) -> KeyRecord:
    """By the key itself, its id, or the prefix `keys list` shows."""
    key_id = key_format.key_id_of(ref)
    condition = _K.digest == key_format.digest(ref)
    condition = condition | (_K.key_id == (key_id or ref))
    query = select(*_KEY_COLUMNS).join(accounts, _A.account_id == _K.account_id).where(condition)
    row = c.execute(query).first()
    if row is None:
        raise KeyNotFoundError("No key has that id, prefix or value.")
    return _key_record(row)


def _key_record(row: Any) -> KeyRecord:
    return KeyRecord(
        key_id=row.key_id,
        prefix=row.prefix,
        name=row.name,
        account_id=row.account_id,
        account=row.account,
        scopes=msgspec.json.decode(row.scopes, type=list[str]),
        limits=_LIMITS.decode(row.limits),
        created=row.created,
        expires=row.expires,
        last_used=row.last_used,
        status=row.status,
    )


def _encoded(limits: Limits) -> str:
    return msgspec.json.encode(limits).decode()


def _shown(limits: Limits) -> dict[str, Any]:
    return {"limits": msgspec.to_builtins(limits)}
