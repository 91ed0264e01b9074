"""Usage per account, key, day, route and language pair: counted as requests end, flushed to
the database, read at /admin/usage (JSON, CSV) and in /metrics; the log line names the key's id
and account, never the key."""

from __future__ import annotations

import csv
import io

from structlog.testing import capture_logs

from tests.support.harness import running

KEY = "team-key-secret"
AUTH = {"Authorization": f"Bearer {KEY}"}
ADMIN_KEY = "operator-key-secret"
ADMIN = {"Authorization": f"Bearer {ADMIN_KEY}"}


async def test_usage_is_read_by_account_key_route_and_pair(make_app) -> None:
    async with running(make_app(api_key=[KEY], admin_key=ADMIN_KEY)) as client:
        with capture_logs() as logs:
            for text in ("Hello", "Good morning"):
                body = {"text": text, "source_lang": "en", "target_lang": "de"}
                assert (await client.post("/translate", json=body, headers=AUTH)).status_code == 200
        listed = (await client.get("/admin/usage", headers=ADMIN)).json()
        as_csv = await client.get("/admin/usage.csv", headers=ADMIN)
        metrics = (await client.get("/metrics")).text
    rows = [row for row in listed["data"] if row["route"] == "/translate"]
    assert len(rows) == 1
    row = rows[0]
    assert (row["source_lang"], row["target_lang"]) == ("en", "de")
    assert row["requests"] == 2
    assert row["characters"] == len("Hello") + len("Good morning")
    assert row["tokens"] > 0
    # A static key is an account of its own, named by the key's digest.
    assert row["key_id"] == "static-" + row["account"][:12]
    read = list(csv.DictReader(io.StringIO(as_csv.text)))
    assert as_csv.headers["content-type"].startswith("text/csv")
    assert {r["route"]: r["characters"] for r in read}["/translate"] == str(row["characters"])
    line = next(entry for entry in logs if entry.get("route") == "/translate")
    assert line["key_id"] == row["key_id"] and line["account"] == row["account"]
    assert all(KEY not in str(entry) for entry in logs)
    assert f'translate_usage_characters_total{{account="{row["account"]}"}} 17.0' in metrics


async def test_usage_is_the_operators(make_app) -> None:
    async with running(make_app(api_key=[KEY], admin_key=ADMIN_KEY)) as client:
        assert (await client.get("/admin/usage")).status_code == 401
        refused = await client.get("/admin/usage", headers=AUTH)  # a key without `admin`
        assert refused.status_code == 403
        assert refused.json()["error"]["code"] == "missing_scope"
