"""A document job survives its server: the server process is killed in the middle of a long
document, started again on the same document directory, and the job finishes. A server
stopped by SIGTERM lets its claim go, and the restart resumes the job at once; one killed
leaves it to run out (30 s), and the restart takes the job over then."""

from __future__ import annotations

import signal
from pathlib import Path

import httpx
import pytest

from tests.support.harness import eventually_sync, start_fake_server

SEGMENTS = 150
TOKEN_DELAY = "0.01"  # each segment's 20-word answer takes about 0.2 s


@pytest.mark.parametrize("stop", [signal.SIGKILL, signal.SIGTERM], ids=lambda s: s.name)
def test_a_job_resumes_after_the_server_is_stopped(tmp_path: Path, stop: signal.Signals) -> None:
    """Slow: a 150-segment job is cut off and resumed; after SIGKILL the restarted server
    waits out the dead one's 30 s claim on the job."""
    documents = str(tmp_path / "documents")
    text = "".join(f"Paragraph {i} of a long document.\n\n" for i in range(SEGMENTS)).encode()
    process, base = start_fake_server(TOKEN_DELAY, "", documents)
    try:
        submitted = httpx.post(
            f"{base}/translate/document",
            files={"file": ("long.txt", text)},
            data={"target_lang": "de", "source_lang": "en"},
        ).json()
        path, key = f"/translate/document/{submitted['document_id']}", submitted["document_key"]

        def progress(url: str) -> dict:
            return httpx.get(f"{url}{path}", params={"key": key}).json()

        before = eventually_sync(
            lambda: (s := progress(base))["segments_done"] >= 16 and s, timeout=60, every=0.05
        )
        assert before["status"] == "translating"
    finally:
        process.send_signal(stop)
        process.wait(timeout=30)
    # The job was cut off in the middle.
    assert before["segments_done"] < SEGMENTS

    process, base = start_fake_server(TOKEN_DELAY, "", documents)
    try:
        resumed = progress(base)
        print(
            f"stopped by {stop.name} at {before['segments_done']}/{SEGMENTS} segments; "
            f"{resumed['segments_done']} kept after the restart"
        )
        # Every batch recorded before the stop is kept: the job goes on from there.
        assert resumed["segments_done"] >= before["segments_done"]
        done = eventually_sync(
            lambda: (s := progress(base))["status"] in ("done", "error") and s,
            timeout=120,  # a killed server's lease runs out first
            every=0.05,
        )
        assert done["status"] == "done", done
        assert done["segments_done"] == SEGMENTS
        result = httpx.get(f"{base}{path}/result", params={"key": key})
        assert result.status_code == 200
        paragraphs = result.text.split("\n\n")
        assert len([p for p in paragraphs if p.strip()]) == SEGMENTS
        assert all(p.strip() == " ".join(["word"] * 20) for p in paragraphs if p.strip())
    finally:
        process.terminate()
        process.wait(timeout=30)
