"""What reading and rebuilding a large file costs per format, and the job runner's own
overhead per segment (an instant translator: only extraction, batching, SQLite progress and
rebuild are timed).

    PYTHONPATH=src python bench/document_formats.py [--size 2000] [--rounds 3]

Per format: segments, extract and rebuild milliseconds (medians over rounds). Then one job
of `--size` * 5 subtitle cues through `DocumentJobs` with the default limits: wall time and
microseconds per segment. Both run in worker threads in the server, off the event loop.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import statistics
import tempfile
import time
from pathlib import Path

import docx
import polib

from translate_server.documents.formats import FormatOptions, detect_format, extract
from translate_server.documents.runner import DocumentJobs
from translate_server.documents.store import JobStore
from translate_server.storage.opening import migrated_database

SENTENCE = "The quick brown fox jumps over the lazy dog near the river bank."


def _srt(cues: int) -> bytes:
    return "".join(
        f"{i}\n00:{i // 60 % 60:02d}:{i % 60:02d},000 --> 00:{i // 60 % 60:02d}:"
        f"{i % 60:02d},900\n{SENTENCE}\n\n"
        for i in range(1, cues + 1)
    ).encode()


def _markdown(paragraphs: int) -> bytes:
    return "".join(
        f"## Part {i}\n\n{SENTENCE} Use `code {i}` here.\n\n- {SENTENCE}\n\n"
        for i in range(paragraphs)
    ).encode()


def _po(entries: int) -> bytes:
    catalog = polib.POFile()
    catalog.metadata = {"Content-Type": "text/plain; charset=UTF-8"}
    for i in range(entries):
        catalog.append(polib.POEntry(msgid=f"{SENTENCE} ({i})", msgstr=""))
    return str(catalog).encode()


def _docx(paragraphs: int) -> bytes:
    document = docx.Document()
    for i in range(paragraphs):
        paragraph = document.add_paragraph(f"{SENTENCE} ")
        paragraph.add_run(f"Bold {i}.").bold = True
    out = io.BytesIO()
    document.save(out)
    return out.getvalue()


def _time(data: bytes, name: str, rounds: int) -> tuple[int, float, float]:
    fmt = detect_format(name, data)
    extracts, rebuilds = [], []
    for _ in range(rounds):
        start = time.perf_counter()
        extracted = extract(fmt, data, FormatOptions(target_lang="de"))
        middle = time.perf_counter()
        extracted.rebuild([segment.upper() for segment in extracted.segments])
        extracts.append(middle - start)
        rebuilds.append(time.perf_counter() - middle)
    return (
        len(extracted.segments),
        statistics.median(extracts) * 1000,
        statistics.median(rebuilds) * 1000,
    )


async def _runner(cues: int) -> tuple[int, float]:
    async def instant(texts, source, target, options):
        return texts

    with tempfile.TemporaryDirectory() as directory:
        async with migrated_database(Path(directory) / "jobs.sqlite3", "jobs") as database:
            jobs = DocumentJobs(JobStore(database, retention_seconds=60), instant)
            start = time.perf_counter()
            job, key = await jobs.submit(_srt(cues), filename="big.srt", target_lang="DE")
            async for state in jobs.watch(job.id, key):
                last = state
            elapsed = time.perf_counter() - start
            assert last.status == "done", last
            await jobs.close()
    return last.segments_total, elapsed


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--size", type=int, default=2000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    files = [
        ("talk.srt", _srt(args.size)),
        ("doc.md", _markdown(args.size)),
        ("de.po", _po(args.size)),
        ("report.docx", _docx(args.size)),
    ]
    print("| format | bytes | segments | extract ms | rebuild ms |\n|---|---:|---:|---:|---:|")
    for name, data in files:
        segments, extract_ms, rebuild_ms = _time(data, name, args.rounds)
        print(
            f"| {name.split('.')[1]} | {len(data):,} | {segments:,} | {extract_ms:.0f} | "
            f"{rebuild_ms:.0f} |"
        )
    segments, elapsed = asyncio.run(_runner(args.size * 5))
    print(
        f"\nrunner, instant translator: {segments:,} segments in {elapsed:.2f} s "
        f"({elapsed / segments * 1e6:.0f} us per segment)"
    )


if __name__ == "__main__":
    main()
