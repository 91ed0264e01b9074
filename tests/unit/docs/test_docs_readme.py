"""The README is a front door: short, the same two set-up commands first, and the figures it
quotes equal to their one source."""

from __future__ import annotations

import re

import pytest

from translate_server.inference.model_files import BUNDLED, SMOLLM2_135M

from tests.support.docs_text import ROOT, fenced_blocks

README = (ROOT / "README.md").read_text()
SET_UP = """make serve   # set up everything, prepare the default model, serve on http://127.0.0.1:8000
make test    # the same set-up, then the whole test suite (real vLLM engine on the CPU included)
"""


def test_the_readme_is_short_and_opens_with_the_two_set_up_commands() -> None:
    assert len(README.splitlines()) <= 300
    assert fenced_blocks(README)[0] == ("sh", SET_UP)
    assert README.index("```sh\n" + SET_UP) < README.index("\n## ")


def test_the_readme_has_a_table_of_contents_of_its_sections() -> None:
    sections = re.findall(r"^## (.+)$", README, re.MULTILINE)
    contents = README[README.index("## Contents") : README.index("## Start it")]
    for section in sections[1:]:  # after Contents itself
        assert f"[{section}](#" in contents, section


@pytest.mark.parametrize(
    ("source", "label"), [("docs/quality.md", "quality"), ("docs/benchmarking.md", "speed")]
)
def test_the_headline_figures_are_copies_of_their_source(source: str, label: str) -> None:
    copied = re.search(
        rf"<!-- copied from {re.escape(source)}#headline-figures: [^>]*-->\n(.*?)"
        r"<!-- end of the copy -->",
        README,
        re.DOTALL,
    )
    assert copied, f"the README's copy of {source}'s headline ({label})"
    original = re.search(
        r"^## Headline figures$.*?<!-- headline figures: README.md copies this block -->\n(.*?)"
        r"<!-- end of the headline figures -->",
        (ROOT / source).read_text(),
        re.DOTALL | re.MULTILINE,
    )
    assert original, f"{source}: its headline figures"
    assert copied[1] == original[1], f"the README's copy differs from {source}: copy it again"
    # A figure says when and how it was measured.
    assert re.search(r"measured \d{4}-\d\d-\d\d", " ".join(original[1].split()), re.IGNORECASE)
    assert "`" in original[1]  # the command


def test_the_openai_example_names_an_instruction_tuned_model() -> None:
    (example,) = [body for lang, body in fenced_blocks(README) if "from openai import" in body]
    (model,) = re.findall(r'model="([^"]+)"', example)
    assert model == SMOLLM2_135M and BUNDLED[model].chat_template
    # And the README says how to serve it, and what the default model answers instead.
    assert f"--model {SMOLLM2_135M}" in README
    assert f"TRANSLATE_MODEL={SMOLLM2_135M} docker compose up" in README
    assert "chat_not_supported" in README


def test_no_stale_headline() -> None:
    # The figure of a run before the quality guard, once the README's headline.
    assert "38.8" not in README


def test_the_readme_links_every_docs_page() -> None:
    for page in sorted((ROOT / "docs").glob("*.md")):
        assert f"(docs/{page.name})" in README, f"README.md: no link to docs/{page.name}"
