"""The admin API's bodies: accounts, keys and the audit log as JSON."""

from __future__ import annotations

from typing import Annotated

from msgspec import Meta

from translate_server.accounts.records import Account, AuditEntry, KeyRecord
from translate_server.limits.policy import Limits
from translate_server.wire import RequestStruct, ResponseStruct


class CreateAccountRequest(RequestStruct, kw_only=True):
    name: Annotated[str, Meta(min_length=1, max_length=200, description="A unique name.")]
    limits: Limits | None = None


class LimitsRequest(RequestStruct, kw_only=True):
    limits: Annotated[Limits, Meta(description="Every limit; one left out is no limit.")]


class CreateKeyRequest(RequestStruct, kw_only=True):
    account: Annotated[str, Meta(description="The account's name (or id).")]
    name: str = ""
    scopes: Annotated[
        list[str] | None,
        Meta(description="Scopes it has; by default every scope but `admin`."),
    ] = None
    expires: Annotated[int | None, Meta(description="Unix seconds after which it is refused.")] = (
        None
    )
    limits: Limits | None = None


class RotateKeyRequest(RequestStruct, kw_only=True):
    grace_seconds: Annotated[int, Meta(ge=0, description="How long the old key keeps working.")] = (
        86_400
    )


class AccountList(ResponseStruct, kw_only=True):
    data: list[Account]


class KeyList(ResponseStruct, kw_only=True):
    data: list[KeyRecord]


class CreatedKey(ResponseStruct, kw_only=True):
    key: Annotated[str, Meta(description="The key itself: shown this once, never again.")]
    data: KeyRecord


class AuditList(ResponseStruct, kw_only=True):
    data: list[AuditEntry]
