"""The real engine on the CPU translates a small SRT file and a small PO catalog end to end
through POST /translate/document, its requests at vLLM's low priority (the tiny model's output
is gibberish: this checks the plumbing and the files' structure, not the translations). The
app runs over the engine tier's shared engine."""

from __future__ import annotations

from pathlib import Path

import polib
import pytest
import srt

from translate_server.app import create_app
from translate_server.settings import load_settings

from tests.support.harness import AppClient, read_until, running
from tests.support.shared_servers import LentEngine
from tests.support.stores import own_stores

# The shared engine answers in the loop it was made in.
pytestmark = pytest.mark.asyncio(loop_scope="session")

SRT = """1
00:00:01,000 --> 00:00:02,500
Good morning, everyone.

2
00:00:03,000 --> 00:00:04,200
Welcome to the quarterly meeting.

3
00:00:05,000 --> 00:00:06,000
Let us begin.
"""

PO = """msgid ""
msgstr ""
"Content-Type: text/plain; charset=UTF-8\\n"
"Plural-Forms: nplurals=2; plural=(n != 1);\\n"

#: app.py:10
msgid "Save the file"
msgstr ""

#: app.py:12
#, python-format
msgid "%(count)d file saved"
msgid_plural "%(count)d files saved"
msgstr[0] ""
msgstr[1] ""

msgid "Already translated"
msgstr "Schon übersetzt"
"""


async def translated(client: AppClient, name: str, data: str) -> bytes:
    submitted = await client.post(
        "/translate/document",
        files={"file": (name, data.encode())},
        data={"target_lang": "de", "source_lang": "en"},
    )
    assert submitted.status_code == 202, submitted.text
    urls = submitted.json()
    status = (
        await read_until(
            lambda: client.get(urls["status_url"]),
            lambda response: response.json()["status"] in ("done", "error"),
            timeout=60,
            every=0.1,
        )
    ).json()
    assert status["status"] == "done", status
    return (await client.get(urls["result_url"])).content


async def test_srt_and_po_files_translate_on_the_real_engine(
    tiny_model: Path, tmp_path: Path, shared_tiny_engine
) -> None:
    settings = load_settings(
        {
            "model": str(tiny_model),
            "served_model_name": "tiny",
            "quality_guard": False,
            "max_model_len": 512,
            "max_num_seqs": 8,
            "max_tokens": 24,
            **own_stores(tmp_path),
            "document_dir": str(tmp_path),
        },
        environ={},
    )
    app = create_app(settings, lambda: LentEngine(shared_tiny_engine))
    async with running(app) as client:
        subtitles = list(srt.parse((await translated(client, "talk.srt", SRT)).decode()))
        source = list(srt.parse(SRT))
        assert [(c.index, c.start, c.end) for c in subtitles] == [
            (c.index, c.start, c.end) for c in source
        ]

        catalog = polib.pofile((await translated(client, "app.po", PO)).decode())
        entries = {entry.msgid: entry for entry in catalog}
        assert set(entries) == {"Save the file", "%(count)d file saved", "Already translated"}
        assert entries["Already translated"].msgstr == "Schon übersetzt"
        assert "fuzzy" not in entries["Already translated"].flags
        for msgid in ("Save the file", "%(count)d file saved"):
            assert "fuzzy" in entries[msgid].flags  # machine-translated: for review
        plural = entries["%(count)d file saved"]
        assert plural.msgid_plural == "%(count)d files saved"
        assert set(plural.msgstr_plural) == {0, 1}
        assert "python-format" in plural.flags and plural.occurrences == [("app.py", "12")]
