"""The generated parts of the docs are current, and the error-code table cannot leave a code
out: its codes and statuses are read from the source, only their meanings are written."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from translate_server import error_codes
from translate_server.error_codes import MEANINGS, collect_codes, error_table
from translate_server.settings import configuration_table

from tests.support.docs_text import ROOT

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
