"""/admin/usage: what was used, per account, key, day (UTC), route and language pair, as JSON;
/admin/usage.csv: the same rows as CSV (a path of its own: one media type per answer, as its
OpenAPI document says). The operator's: under the `admin` scope, as the rest of `/admin`."""

from __future__ import annotations

import csv
import io
from datetime import UTC, datetime, timedelta
from typing import Annotated, Any

from litestar import Request, Response, Router, get
from litestar.params import Parameter

from translate_server.accounts import scopes
from translate_server.errors import InvalidRequestError
from translate_server.http.openapi import error_responses
from translate_server.http.requests import LIMITER
from translate_server.http.route_paths import SCOPE
from translate_server.limits.limiter import Limiter
from translate_server.limits.usage import UsageRow
from translate_server.wire import ResponseStruct

_FIELDS = tuple(UsageRow.__struct_fields__)


class UsageList(ResponseStruct, kw_only=True):
    since: str
    until: str
    data: list[UsageRow]


Since = Annotated[
    str | None, Parameter(description="First day, YYYY-MM-DD (UTC); 30 days ago by default.")
]
Until = Annotated[str | None, Parameter(description="Last day, YYYY-MM-DD; today by default.")]
Account = Annotated[str | None, Parameter(description="Only this account's.")]


@get(
    "/usage",
    summary="Usage per account, key, day, route and language pair",
    responses=error_responses(400, 401, 403),
)
async def usage(
    request: Request[Any, Any, Any],
    since: Since = None,
    until: Until = None,
    account: Account = None,
) -> UsageList:
    first, last, rows = await _rows(request, since, until, account)
    return UsageList(since=first, until=last, data=rows)


@get(
    "/usage.csv",
    summary="Usage per account, key, day, route and language pair, as CSV",
    media_type="text/csv",
    responses=error_responses(400, 401, 403),
)
async def usage_csv(
    request: Request[Any, Any, Any],
    since: Since = None,
    until: Until = None,
    account: Account = None,
) -> Response[str]:
    _, _, rows = await _rows(request, since, until, account)
    return Response(_csv(rows), media_type="text/csv")


async def _rows(
    request: Request[Any, Any, Any], since: str | None, until: str | None, account: str | None
) -> tuple[str, str, list[UsageRow]]:
    today = datetime.now(UTC).date()
    first = _day(since, "since") or (today - timedelta(days=30)).isoformat()
    last = _day(until, "until") or today.isoformat()
    limiter: Limiter = request.app.state[LIMITER]
    return first, last, await limiter.usage.rows(first, last, account)


def _day(value: str | None, param: str) -> str | None:
    if value is None:
        return None
    try:
        return datetime.strptime(value, "%Y-%m-%d").date().isoformat()
    except ValueError:
        raise InvalidRequestError(
            f"`{param}` must be a day as YYYY-MM-DD, not `{value}`.", param=param
        ) from None


def _csv(rows: list[UsageRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(_FIELDS)
    for row in rows:
        writer.writerow([getattr(row, name) for name in _FIELDS])
    return out.getvalue()


def usage_router() -> Router:
    return Router(
        "/admin", route_handlers=[usage, usage_csv], tags=["admin"], opt={SCOPE: scopes.ADMIN}
    )
