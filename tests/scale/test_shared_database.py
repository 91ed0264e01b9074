"""Two real replicas on the tiny model, over one PostgreSQL database, behind the real HAProxy
running deploy/haproxy/haproxy.cfg: what one replica stores, the other serves.

- a memory imported through replica 1 with the official `deepl` client gives exact matches
  through replica 2;
- a glossary created through replica 2 is found and applied through replica 1;
- usage is exact after 200 concurrent DeepL requests spread over both;
- a document submitted to replica 1, which is SIGKILLed mid-job, is finished by replica 2
  from the pieces already translated, and downloads through the router.

The tests share the replicas and run in file order; the last one kills replica 1.
"""

from __future__ import annotations

import asyncio
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import deepl
import httpx
import pytest
from deepl.api_data import MultilingualGlossaryDictionaryEntries as Entries

from translate_server.memory.entries import Entry
from translate_server.memory.formats import write_tmx

from tests.support.cluster import Replica, Router, haproxy_binary
from tests.support.postgres import Cluster, Unavailable, throwaway_cluster
from tests.support.prerequisites import missing_prerequisite, prerequisite_reason
from tests.support.tiny_model import tiny_model_dir

pytestmark = [
    pytest.mark.engine,
    pytest.mark.postgres,
    pytest.mark.skipif(
        haproxy_binary() is None,
        reason=prerequisite_reason("scale", "haproxy is not installed"),
    ),
]

ROOT = Path(__file__).resolve().parents[2]
REPLICA_ARGS = [
    "--served-model-name",
    "tiny",
    "--max-model-len",
    "1024",
    "--max-num-seqs",
    "8",
    "--max-queued-requests",
    "256",  # the 200 concurrent requests wait rather than be refused
    "--no-quality-guard",
]
ENTRIES = [
    Entry("Save the file.", "Speichern Sie die Datei.", "en", "de"),
    Entry("Open the settings window.", "Öffnen Sie das Einstellungsfenster.", "en", "de"),
]
DOCUMENT = "".join(f"Paragraph {i} says something new.\n\n" for i in range(300)).encode()


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    try:
        with throwaway_cluster() as started:
            yield started
    except Unavailable as why:
        missing_prerequisite("scale", f"PostgreSQL is not available: {why}")


@pytest.fixture(scope="module")
def replicas(cluster: Cluster, tmp_path_factory) -> Iterator[list[Replica]]:
    model = tiny_model_dir(ROOT / ".cache" / "test-models")
    log_dir = tmp_path_factory.mktemp("replicas")
    database = cluster.new_database()
    started = [
        Replica(
            f"replica{i}",
            [
                "--model",
                str(model),
                *REPLICA_ARGS,
                "--database-url",
                database,
                "--document-dir",
                str(log_dir / f"documents{i}"),
            ],
            log_dir,
        )
        for i in (1, 2)
    ]
    try:
        for replica in started:
            replica.start()
        for replica in started:
            print(f"\n{replica.name} ready in {replica.wait_ready():.1f} s")
        yield started
    finally:
        for replica in started:
            replica.stop()


@pytest.fixture(scope="module")
def router(replicas, tmp_path_factory) -> Iterator[Router]:
    proxy = Router(replicas, tmp_path_factory.mktemp("router"))
    try:
        for name in ("replica1", "replica2"):
            proxy.wait_status(name, "UP")
        yield proxy
    finally:
        proxy.stop()


def test_a_memory_imported_through_one_replica_answers_through_the_other(
    replicas: list[Replica], tmp_path: Path
) -> None:
    """Slow as the module's first test: it waits for PostgreSQL and two replicas over it,
    whose settings no other module shares, to start."""
    first, second = replicas
    tmx = tmp_path / "product.tmx"
    tmx.write_bytes(write_tmx(ENTRIES))
    job = deepl.DeepLClient(
        "alice", server_url=first.base_url
    ).import_translation_memory_from_filepath(tmx, display_name="product")
    assert job.ok and job.result is not None
    memory_id = job.result.translation_memory_id
    through_second = deepl.DeepLClient("alice", server_url=second.base_url)
    for entry in ENTRIES:
        found = through_second.translate_text(
            entry.source, source_lang="EN", target_lang="DE", translation_memory=memory_id
        )
        assert found.text == entry.target  # the memory's, not the random model's
    assert [m.translation_memory_id for m in through_second.list_translation_memories()] == [
        memory_id
    ]


def test_a_glossary_created_through_one_replica_is_applied_through_the_other(
    replicas: list[Replica],
) -> None:
    first, second = replicas
    glossary = deepl.DeepLClient("alice", server_url=second.base_url).create_multilingual_glossary(
        "terms", [Entries("EN", "DE", {"bird": "Vogel"})]
    )
    through_first = deepl.DeepLClient("alice", server_url=first.base_url)
    # Found and given to the model (whose random answer says nothing): an unknown id is a 404.
    through_first.translate_text(
        "The bird sleeps.", source_lang="EN", target_lang="DE", glossary=glossary.glossary_id
    )
    with pytest.raises(deepl.DeepLException):
        through_first.translate_text(
            "The bird sleeps.", source_lang="EN", target_lang="DE", glossary="0" * 32
        )
    # Replica 1 reads the glossary's dictionaries: it has none for this pair.
    with pytest.raises(deepl.DeepLException, match="no dictionary for that pair"):
        through_first.translate_text(
            "cat", source_lang="EN", target_lang="IT", glossary=glossary.glossary_id
        )
    entries = through_first.get_multilingual_glossary_entries(glossary, "EN", "DE")
    assert entries.dictionaries[0].entries == "bird\tVogel"  # the client keeps them as TSV


def test_usage_is_exact_after_concurrent_requests_through_the_router(router: Router) -> None:
    """Slow: 200 concurrent DeepL requests, each answered by a real engine."""
    texts = [[f"Request {i}, part {j}." for j in range(1 + i % 3)] for i in range(200)]
    answered = asyncio.run(_translate_all(router.base_url, "carol", texts))
    assert [status for status, _ in answered] == [200] * len(texts)
    replicas = Counter(replica for _, replica in answered)
    print(f"\n200 requests: split {dict(replicas)}")
    assert set(replicas) == {"replica1", "replica2"}
    expected = sum(len(text) for batch in texts for text in batch)
    for _ in range(4):  # read through both replicas
        usage = httpx.get(
            f"{router.base_url}/v2/usage",
            headers={"Authorization": "DeepL-Auth-Key carol"},
            timeout=30,
        )
        assert usage.json()["character_count"] == expected


async def _translate_all(
    url: str, key: str, texts: list[list[str]]
) -> list[tuple[int, str | None]]:
    async with httpx.AsyncClient(base_url=url, timeout=300) as client:

        async def one(batch: list[str]) -> tuple[int, str | None]:
            response = await client.post(
                "/v2/translate",
                json={"text": batch, "source_lang": "EN", "target_lang": "DE"},
                headers={"Authorization": f"DeepL-Auth-Key {key}"},
            )
            return response.status_code, response.headers.get("x-replica")

        return await asyncio.gather(*(one(batch) for batch in texts))


def test_a_document_whose_replica_dies_is_finished_by_the_other(
    replicas: list[Replica], router: Router, cluster: Cluster
) -> None:
    """Slow: a 300-paragraph job, cut off by SIGKILL, is finished by the other replica once
    the dead one's claim runs out."""
    first, second = replicas
    submitted = httpx.post(
        f"{first.base_url}/translate/document",
        files={"file": ("long.txt", DOCUMENT)},
        data={"target_lang": "de", "source_lang": "en"},
        timeout=60,
    ).json()
    # The job's paths (its key in their query), asked of any replica.
    status_path = httpx.URL(submitted["status_url"]).raw_path.decode()
    result_path = httpx.URL(submitted["result_url"]).raw_path.decode()
    while (status := httpx.get(second.base_url + status_path, timeout=30).json())[
        "segments_done"
    ] == 0:
        assert status["status"] in ("queued", "translating"), status
        time.sleep(0.05)
    first.kill()  # SIGKILL, engine and all, mid-job
    killed_at = time.monotonic()
    print(f"\nreplica1 killed at {status['segments_done']}/{status['segments_total']} segments")

    deadline = time.monotonic() + 600
    while (status := httpx.get(router.base_url + status_path, timeout=30).json())["status"] in (
        "queued",
        "translating",
    ):
        assert time.monotonic() < deadline, status
        time.sleep(0.5)
    assert status["status"] == "done", status
    print(f"finished by replica2 {time.monotonic() - killed_at:.1f} s after the kill")
    row = cluster.psql(
        "SELECT claimed_by, segments_at_start FROM document_jobs "
        f"WHERE id = '{submitted['document_id']}'",
        database=_database_of(second),
    )
    claimed_by, kept = row.split("|")
    assert claimed_by.split("/")[1] == str(second.process.pid)  # replica 2 finished it
    assert int(kept) > 0  # from the pieces replica 1 had translated
    result = httpx.get(router.base_url + result_path, timeout=60)
    assert result.status_code == 200 and result.content


def _database_of(replica: Replica) -> str:
    url = replica.args[replica.args.index("--database-url") + 1]
    return url.split("@/", 1)[1].split("?")[0]
