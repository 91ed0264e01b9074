"""The admin domain: the operator's routes over accounts' usage (`/admin/usage`). The limits
and usage themselves are the gate's (`limits.Limiter`), opened with the app over the accounts'
database, which this domain has migrated."""

from __future__ import annotations

from translate_server.admin.usage_routes import usage_router
from translate_server.registration import Domain

DOMAIN = Domain(
    "admin",
    routes=lambda settings: [usage_router()],
    stores=lambda settings: ["accounts"],
)
