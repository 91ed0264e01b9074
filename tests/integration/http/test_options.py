"""OPTIONS on a documented path answers the methods the document gives it, as `Allow` (paths
open to every origin, LibreTranslate's and Google's, answer it as a CORS preflight instead)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.support.harness import running

OPENAPI = json.loads((Path(__file__).parents[3] / "openapi" / "openapi.json").read_text())
HTTP_METHODS = {"get", "put", "post", "delete", "options", "head", "patch", "trace"}


async def test_options_lists_each_paths_documented_methods(make_app) -> None:
    async with running(make_app()) as client:
        wrong, checked = {}, set()
        for path, operations in OPENAPI["paths"].items():
            documented = {m.upper() for m in operations if m in HTTP_METHODS} | {"OPTIONS"}
            answer = await client.options(re.sub(r"\{[^}]+\}", "1", path))
            assert answer.status_code == 204, path
            if "allow" not in answer.headers:
                assert "access-control-allow-origin" in answer.headers, path
                continue
            checked.add(path)
            allowed = {m.strip() for m in answer.headers["allow"].split(",")}
            if allowed != documented:
                wrong[path] = (sorted(allowed), sorted(documented))
        assert wrong == {}
        assert "/glossaries/{glossary_id}/tbx" in checked  # two handlers on one path
        assert len(checked) > len(OPENAPI["paths"]) * 3 // 4
