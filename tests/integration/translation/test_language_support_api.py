"""Target languages the served model cannot write: listed as such, warned about, or refused."""

from __future__ import annotations

from pathlib import Path

from tests.support.harness import running

TEMPLATES = """
[fake]
match = ["fake-model"]
support = { de = "supported", sw = "weak", hi = "unsupported" }
"""


async def test_languages_carry_the_served_models_support_level(make_app, tmp_path: Path) -> None:
    (tmp_path / "t.toml").write_text(TEMPLATES)
    async with running(make_app(prompt_templates=str(tmp_path / "t.toml"))) as client:
        ours = {
            l["code"]: l.get("support")
            for l in (await client.get("/languages")).json()["languages"]
        }
        deepl = {
            l["language"]: l.get("support")
            for l in (await client.get("/v2/languages", params={"type": "target"})).json()
        }
    assert (ours["de"], ours["sw"], ours["hi"], ours["fr"]) == (
        "supported",
        "weak",
        "unsupported",
        None,
    )
    assert (deepl["DE"], deepl["HI"], deepl["FR"]) == ("supported", "unsupported", None)


async def test_a_target_the_model_cannot_write_is_warned_about_or_refused(
    make_app, tmp_path: Path
) -> None:
    (tmp_path / "t.toml").write_text(TEMPLATES)
    body = {"text": ["Good morning.", "Good night."], "source_lang": "en", "target_lang": "hi"}
    async with running(make_app(prompt_templates=str(tmp_path / "t.toml"))) as client:
        warned = await client.post("/translate", json=body)
        fine = await client.post("/translate", json={**body, "target_lang": "sw"})
    assert warned.status_code == 200
    assert warned.json()["warnings"] == [["unsupported_target_language"]] * 2
    assert fine.json().get("warnings") is None
    async with running(
        make_app(prompt_templates=str(tmp_path / "t.toml"), refuse_unsupported_targets=True)
    ) as client:
        refused = await client.post("/translate", json=body)
    assert refused.status_code == 400
    error = refused.json()["error"]
    assert error["code"] == "unsupported_target_language" and error["param"] == "target_lang"
    assert "Hindi" in error["message"]
