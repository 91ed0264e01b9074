"""The generated parts of the docs are current, and the error-code table cannot leave a code
out: its codes and statuses are read from the source, only their meanings are written. Every
code the prose writes beside a status is one the source answers with, and the renderer names
no framework error that nothing here raises."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from translate_server import error_codes
from translate_server.error_codes import MEANINGS, RENDERER, collect_codes, error_table
from translate_server.http.errors import _HTTP_ERROR_CODES
from translate_server.settings import configuration_table

from tests.support.docs_text import ROOT, pages, relative, status_codes

STALE = "stale: run `make docs` (python docs/generated.py)"


@pytest.fixture(scope="module")
def found() -> dict[str, error_codes.Found]:
    """The package's codes, read once (every module parsed: a second or more)."""
    return collect_codes()


def test_the_configuration_table_is_current() -> None:
    assert configuration_table() in (ROOT / "docs/configuration.md").read_text(), STALE


def test_the_error_code_table_is_current(found) -> None:
    assert error_table(found) in (ROOT / "docs/api.md").read_text(), STALE


def test_every_code_has_a_meaning_and_every_meaning_a_code(found) -> None:
    assert set(found) - set(MEANINGS) == set(), "write their meanings in error_codes.MEANINGS"
    assert set(MEANINGS) - set(found) == set(), "codes no longer answered: drop their meanings"


@pytest.mark.parametrize("page", pages(), ids=relative)
def test_codes_written_beside_a_status_are_answered_with_it(page: Path, found) -> None:
    """A code beside a status ("a 429 `too_many_documents`") is one the source answers
    with, and that status among its own, or a compatible API's for it (DeepL's and
    LibreTranslate's 403 for a key, 429 for `overloaded`)."""
    compat = {"invalid_api_key": {403}, "overloaded": {429}}
    wrong = [
        f"{status} `{code}`"
        for status, code in status_codes(page.read_text())
        if status not in (found[code].statuses | compat.get(code, set()) if code in found else ())
    ]
    assert not wrong, f"{relative(page)}: no such code, or not with that status: {wrong}"


# The framework's own refusals that reach the renderer with no error class of ours, each with
# what raises it. A code for any other status (a 429 of a rate limit nobody applies) would be
# documented and never answered.
FRAMEWORK_REFUSALS = {
    405: "Litestar: a route that exists, not with this method",
}


def test_the_renderer_names_only_framework_errors_that_are_raised(found) -> None:
    for status, code in _HTTP_ERROR_CODES.items():
        raised_here = found[code].places - {RENDERER}
        assert raised_here or status in FRAMEWORK_REFUSALS, (
            f"http/errors.py names {status} `{code}`, which nothing raises: drop it, or say "
            "in FRAMEWORK_REFUSALS what raises it"
        )


def test_codes_are_read_with_their_statuses(found) -> None:
    # A class's own code, a code given where it is raised, and the renderer's own.
    assert found["overloaded"].statuses == {503}
    assert found["chat_not_supported"].statuses == {400}  # InvalidRequestError(code=...)
    assert found["shutting_down"].statuses == {503}  # UnavailableError(code=...)
    assert found["aborted"].statuses == {502}  # EngineFailedError(code=...)
    assert found["instructions_not_supported"].statuses == {400}  # a subclass elsewhere
    assert found["method_not_allowed"].statuses == {405}  # the framework's, by status
    assert found["invalid_value"].statuses == {400}  # the validation errors'
    assert found["internal_error"].statuses == {500}
    assert found["document_not_ready"].statuses == {409, 503}  # ours, and DeepL's
    assert len(found) >= 50


def test_a_new_code_fails_until_its_meaning_is_written(tmp_path: Path) -> None:
    package = tmp_path / "translate_server"
    shutil.copytree(Path(error_codes.__file__).parent, package)
    (package / "new_feature.py").write_text(
        "from translate_server.errors import InvalidRequestError, ApiError\n\n"
        "class GoneError(ApiError):\n    status_code = 410\n    code = 'gone_away'\n\n"
        "def check() -> None:\n"
        "    raise InvalidRequestError('No.', code='brand_new')\n"
    )
    with_new = collect_codes(package)
    assert with_new["brand_new"].statuses == {400}
    assert with_new["gone_away"].statuses == {410}
    with pytest.raises(KeyError, match=r"brand_new|gone_away"):
        error_table(with_new)
