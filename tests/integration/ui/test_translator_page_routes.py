"""How the app serves the translator page: open without a key, outside the OpenAPI document,
and gone with `--no-ui`. (What the page does is tested in a browser, tests/browser.)"""

from __future__ import annotations

from collections.abc import Callable

from litestar import Litestar

from tests.support.harness import AppClient, running

AppFactory = Callable[..., Litestar]


async def test_the_page_and_its_assets(client: AppClient) -> None:
    page = await client.get("/")
    assert page.status_code == 200
    assert page.headers["content-type"].startswith("text/html")
    assert '<script type="module" src="ui/app.js">' in page.text
    # The script's modules are served as they are: a browser runs a module only when its
    # media type is JavaScript's.
    modules = [f"{name}.js" for name in ("app", "shared", "translate", "files", "review")]
    modules += ["corrections.js", "stores.js", "memories.js", "glossaries.js"]
    assets = [(name, "javascript") for name in modules] + [("style.css", "text/css")]
    for asset, media_type in assets:
        response = await client.get(f"/ui/{asset}")
        assert response.status_code == 200
        assert media_type in response.headers["content-type"]
    assert (await client.get("/ui/nothing-here.js")).status_code == 404


async def test_config_tells_the_page_the_servers_limits(make_app: AppFactory) -> None:
    async with running(make_app(max_text_chars=1234, max_document_bytes=5000)) as client:
        config = (await client.get("/ui/config.json")).json()
    extensions = config.pop("document_extensions")
    assert config == {
        "max_text_chars": 1234,
        "api_key_required": False,
        "documents": True,
        "max_document_bytes": 5000,
    }
    assert {".srt", ".txt", ".docx", ".po"} <= set(extensions)
    assert extensions == sorted(extensions)


async def test_no_documents_turns_the_file_panel_and_the_routes_off(make_app: AppFactory) -> None:
    async with running(make_app(documents=False)) as client:
        config = (await client.get("/ui/config.json")).json()
        assert config["documents"] is False
        assert config["max_document_bytes"] is None and config["document_extensions"] == []
        submitted = await client.post(
            "/translate/document", files={"file": ("a.txt", b"Hi")}, data={"target_lang": "de"}
        )
        assert submitted.status_code == 404
        assert (await client.post("/v2/document")).status_code == 404
        assert (await client.post("/libretranslate/translate_file")).status_code == 404
        # LibreTranslate's web page reads whether files are offered from its settings.
        settings = (await client.get("/libretranslate/frontend/settings")).json()
        assert settings["filesTranslation"] is False and settings["supportedFilesFormat"] == []


async def test_with_api_keys_the_page_is_open_and_the_api_is_not(make_app: AppFactory) -> None:
    async with running(make_app(api_key=["secret"])) as client:
        assert (await client.get("/")).status_code == 200
        assert (await client.get("/ui/app.js")).status_code == 200
        assert (await client.get("/ui/config.json")).json()["api_key_required"] is True
        assert (await client.get("/languages")).status_code == 401
        # Open means the page's paths only, not whatever starts like them.
        assert (await client.get("/uix")).status_code == 401


async def test_the_page_is_not_in_the_openapi_document(client: AppClient) -> None:
    paths = (await client.get("/docs/openapi.json")).json()["paths"]
    assert "/" not in paths
    assert not [path for path in paths if path.startswith("/ui")]


async def test_no_ui_turns_the_page_off(make_app: AppFactory) -> None:
    async with running(make_app(ui=False, api_key=["secret"])) as client:
        # Not found, and no longer open: without the page, its paths need the key like any.
        assert (await client.get("/")).status_code == 401
        assert (
            await client.get("/ui/app.js", headers={"authorization": "Bearer secret"})
        ).status_code == 404
        assert (
            await client.get("/", headers={"authorization": "Bearer secret"})
        ).status_code == 404
