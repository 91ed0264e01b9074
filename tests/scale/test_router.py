"""Two real replicas on the tiny model behind the real HAProxy, running
deploy/haproxy/haproxy.cfg: load spreads, a replica's overload refusals are retried on the
other, a rolling restart loses nothing, a killed replica fails only what it was running.

The tests share the replicas and run in file order; the last one kills a replica. Each prints
its figures (requests sent, failed, retried, per-replica split).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import re
import socket
import time
from collections import Counter
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import httpx
import pytest

from tests.support.cluster import Replica, Router, haproxy_binary
from tests.support.prerequisites import prerequisite_reason
from tests.support.tiny_model import tiny_model_dir

pytestmark = [
    pytest.mark.engine,  # every replica runs the real engine
    pytest.mark.skipif(
        haproxy_binary() is None,
        reason=prerequisite_reason("scale", "haproxy is not installed"),
    ),
]

ROOT = Path(__file__).resolve().parents[2]
# Each replica runs 8 sequences and queues none: a 9th request is refused at once (503), so
# the overload test needs only 8 held requests to fill one.
SLOTS = 8
REPLICA_ARGS = [
    "--served-model-name",
    "tiny",
    "--max-model-len",
    "1024",
    "--max-num-seqs",
    str(SLOTS),
    "--max-queued-requests",
    "0",
    # Every request goes to the engine (repeated texts would be answered from the cache).
    "--translation-cache-size",
    "0",
    # Random weights answer gibberish: the quality guard would retry every answer.
    "--no-quality-guard",
]
TEXT = "Good morning, how are you? Where is the train station?"


def translate_body(source: str = "en", target: str = "de", **extra) -> dict:
    return {"text": TEXT, "source_lang": source, "target_lang": target, "max_tokens": 12, **extra}


@pytest.fixture(scope="module")
def replicas(tmp_path_factory) -> Iterator[list[Replica]]:
    model = tiny_model_dir(ROOT / ".cache" / "test-models")
    log_dir = tmp_path_factory.mktemp("replicas")
    # Each replica keeps its document jobs in a folder of its own, as separate machines or
    # containers do.
    started = [
        Replica(
            f"replica{i}",
            [
                "--model",
                str(model),
                *REPLICA_ARGS,
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


# --- a load generator that records every outcome ---------------------------------------


@dataclass
class Outcome:
    started: float
    status: int | None  # None: the connection failed or the body was cut off
    replica: str | None
    stream: bool
    error: str | None = None


@dataclass
class Load:
    outcomes: list[Outcome] = field(default_factory=list)

    def failed(self) -> list[Outcome]:
        return [o for o in self.outcomes if o.status != 200 or o.error]

    def split(self) -> Counter:
        return Counter(o.replica for o in self.outcomes if o.status == 200)

    def summary(self) -> str:
        statuses = Counter(o.status for o in self.outcomes)
        return (
            f"sent {len(self.outcomes)}, failed {len(self.failed())}, "
            f"statuses {dict(statuses)}, split {dict(self.split())}"
        )


async def one_request(
    client: httpx.AsyncClient, stream: bool, load: Load, body: dict | None = None
) -> Outcome:
    outcome = Outcome(time.monotonic(), None, None, stream)
    load.outcomes.append(outcome)
    body = body or translate_body(stream=stream)
    try:
        if not stream:
            response = await client.post("/translate", json=body)
            outcome.status, outcome.replica = (
                response.status_code,
                response.headers.get("x-replica"),
            )
            if response.status_code == 200:
                assert "translation" in response.json()
            return outcome
        async with client.stream("POST", "/translate", json=body) as response:
            outcome.status, outcome.replica = (
                response.status_code,
                response.headers.get("x-replica"),
            )
            events = [
                line[6:] async for line in response.aiter_lines() if line.startswith("data: ")
            ]
        if response.status_code == 200 and (
            events[-1:] != ["[DONE]"] or any("error" in json.loads(e) for e in events[:-1])
        ):
            outcome.error = f"stream ended with {events[-1:]}"
    except (httpx.TransportError, httpx.StreamError) as exc:
        outcome.error = f"{type(exc).__name__}: {exc}"
    return outcome


async def steady_load(
    base_url: str, workers: int, stop: asyncio.Event, load: Load, pause: float = 0.0
) -> None:
    """`workers` clients, each sending its next request when the last is answered (every
    third one streamed) until `stop` is set."""
    async with httpx.AsyncClient(base_url=base_url, timeout=60) as client:

        async def worker(index: int) -> None:
            sent = index
            while not stop.is_set():
                await one_request(client, stream=sent % 3 == 0, load=load)
                sent += 1
                if pause:
                    await asyncio.sleep(pause)

        await asyncio.gather(*(worker(i) for i in range(workers)))


class Hold:
    """Chat streams that occupy engine slots for as long as the test wants: each reads its
    first event, then stops reading. Its client's receive buffer is tiny, so the replica's
    writes soon block, and a blocked stream keeps its slots (`n` choices hold `n` slots)
    however fast the engine is. `release()` reads each to its end; `close()` hangs up."""

    def __init__(self, base_url: str, count: int, choices: int) -> None:
        transport = httpx.AsyncHTTPTransport(
            socket_options=[(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)]
        )
        self.client = httpx.AsyncClient(base_url=base_url, timeout=120, transport=transport)
        self.body = {
            "model": "tiny",
            "messages": [{"role": "user", "content": "Count."}],
            "max_tokens": 960,
            "ignore_eos": True,
            "stream": True,
            "seed": 1,
            "n": choices,
        }
        self.count = count
        self.released = asyncio.Event()
        self.started: asyncio.Queue[str] = asyncio.Queue()
        self.tasks: list[asyncio.Task] = []

    async def start(
        self, on_first_event: Callable[[str], object] = lambda replica: None
    ) -> list[str]:
        """The replica of each stream, once every one has its first event; `on_first_event`
        is called with each replica as its stream's first event arrives."""
        self.tasks = [asyncio.create_task(self._stream()) for _ in range(self.count)]
        replicas = []
        for _ in range(self.count):
            replicas.append(await asyncio.wait_for(self.started.get(), 60))
            on_first_event(replicas[-1])
        return replicas

    async def _stream(self) -> tuple[str | None, list[str], str | None]:
        replica, events = None, []
        try:
            async with self.client.stream(
                "POST", "/v1/chat/completions", json=self.body
            ) as response:
                replica = response.headers.get("x-replica", "direct")
                assert response.status_code == 200, await response.aread()
                lines = response.aiter_lines()
                async for line in lines:
                    if line.startswith("data: "):
                        events.append(line[6:])
                        break
                await self.started.put(replica)
                await self.released.wait()
                events += [line[6:] async for line in lines if line.startswith("data: ")]
            return replica, events, None
        except (httpx.TransportError, httpx.StreamError) as exc:
            return replica, events, f"{type(exc).__name__}: {exc}"

    async def release(self) -> list[tuple[str | None, list[str], str | None]]:
        self.released.set()
        try:
            return await asyncio.gather(*self.tasks)
        finally:
            await self.client.aclose()

    async def close(self) -> None:
        for task in self.tasks:
            task.cancel()
        await asyncio.gather(*self.tasks, return_exceptions=True)
        await self.client.aclose()


def resume_engines(replicas: list[Replica]) -> None:
    for replica in replicas:
        replica.resume_engine()


@contextlib.contextmanager
def engines_frozen(replicas: list[Replica]) -> Iterator[None]:
    """Every replica's engine frozen (SIGSTOP) for the block, so that the requests it admits
    stay in flight; resumed after it, whatever happens."""
    for replica in replicas:
        replica.pause_engine()
    try:
        yield
    finally:
        resume_engines(replicas)


def total(count: int) -> Callable[[dict[str, int]], bool]:
    return lambda counts: sum(counts.values()) == count


async def slots_taken(client: httpx.AsyncClient, count: int) -> None:
    """Until the replica behind `client` has admitted `count` engine requests (its gauge)."""
    for _ in range(1200):
        metrics = (await client.get("/metrics")).text
        found = re.search(r"^translate_requests_running (\S+)$", metrics, re.MULTILINE)
        if found and float(found.group(1)) >= count:
            return
        await asyncio.sleep(0.05)
    raise AssertionError(f"fewer than {count} requests admitted")


async def router_in_flight_when(router: Router, condition) -> dict[str, int]:
    """The router's requests in flight per replica, once `condition` holds for them."""
    for _ in range(400):
        counts = {
            name: int(row["scur"])
            for name, row in (await asyncio.to_thread(router.servers)).items()
        }
        if condition(counts):
            return counts
        await asyncio.sleep(0.05)
    raise AssertionError(f"requests in flight stayed {counts}")


# --- the tests -------------------------------------------------------------------------


async def test_load_spreads_over_both_replicas(router: Router, replicas) -> None:
    """Slow as the module's first test: it waits for the two replicas (one engine and
    OpenMP thread each) and the router to start."""
    # A replica's first requests are slow (allocations, the language detector loading):
    # warm both up, so that the split reflects steady serving.
    for replica in replicas:
        async with httpx.AsyncClient(base_url=replica.base_url, timeout=60) as direct:
            warm = Load()
            await asyncio.gather(*(one_request(direct, i % 2 == 0, warm) for i in range(8)))
            assert not warm.failed(), warm.failed()
    load = Load()
    async with httpx.AsyncClient(base_url=router.base_url, timeout=60) as client:

        async def client_loop(index: int) -> None:
            for sent in range(6):
                await one_request(client, stream=(index + sent) % 3 == 0, load=load)

        await asyncio.gather(*(client_loop(i) for i in range(16)))
    print(f"\nspread, 16 clients: {load.summary()}")
    assert not load.failed(), load.failed()[:5]
    # Both serve, but no share is asserted: least outstanding requests gives a replica that
    # is slower for a while (the two share this machine's cores with the test and with
    # each other) fewer requests, which is the point of it. Splits from 87/9 to 44/52 were
    # seen here. The balancing rule itself is asserted below, where it is deterministic.
    assert set(load.split()) == {"replica1", "replica2"}


async def test_requests_in_flight_go_to_the_less_busy_replica(router: Router, replicas) -> None:
    # Engines frozen, so that requests stay outstanding for as long as the test wants:
    # least outstanding requests must then place each new one on the replica with fewer,
    # where round robin would alternate, whatever either replica's speed.
    first = replicas[0]
    with engines_frozen(replicas):
        async with httpx.AsyncClient(base_url=router.base_url, timeout=60) as client:
            texts = iter(range(6))

            def send() -> asyncio.Task:
                # Each its own text: identical requests in flight would share one run.
                body = translate_body(text=f"{TEXT} {next(texts)}")
                return asyncio.create_task(client.post("/translate", json=body))

            sent = [send() for _ in range(4)]
            assert await router_in_flight_when(router, total(4)) == {"replica1": 2, "replica2": 2}
            # replica1 answers its two while replica2 still holds two: the next two requests
            # must both go to replica1.
            first.resume_engine()
            await router_in_flight_when(router, lambda counts: counts["replica1"] == 0)
            first.pause_engine()
            for count in (3, 4):
                sent.append(send())
                await router_in_flight_when(router, total(count))
            resume_engines(replicas)
            answers = await asyncio.gather(*sent)
    assert [answer.status_code for answer in answers] == [200] * 6
    assert [answer.headers["x-replica"] for answer in answers[4:]] == ["replica1"] * 2


async def test_language_pair_affinity_is_an_option(router: Router, replicas, tmp_path) -> None:
    pairs = Router(replicas, tmp_path, ROUTER_BALANCE="pair")
    try:
        for name in ("replica1", "replica2"):
            pairs.wait_status(name, "UP")
        # slowstart ramps a replica's weight for 5 s after it comes up: wait it out, so the
        # hash ring is the steady one.
        await asyncio.sleep(5.5)
        chosen: dict[tuple[str, str], set[str]] = {}
        async with httpx.AsyncClient(base_url=pairs.base_url, timeout=60) as client:
            for source, target in [
                ("en", "de"),
                ("en", "fr"),
                ("fr", "es"),
                ("ja", "zh"),
                ("de", "en"),
                ("en", "es"),
                ("en", "it"),
                ("pt", "en"),
            ]:
                for _ in range(3):
                    response = await client.post(
                        "/translate", json=translate_body(source, target, max_tokens=2)
                    )
                    assert response.status_code == 200, response.text
                    chosen.setdefault((source, target), set()).add(response.headers["x-replica"])
            # A busy replica's pair spills over: with both engines frozen, requests for one
            # pair stay in flight. HAProxy lets a replica hold at most 1.25 x its share of
            # them, rounded up: of 8, the pair's replica takes 5 and the other 3.
            with engines_frozen(replicas):
                sent = []
                for count in range(1, 9):
                    sent.append(
                        asyncio.create_task(
                            client.post("/translate", json=translate_body("en", "de"))
                        )
                    )
                    await router_in_flight_when(pairs, total(count))
                resume_engines(replicas)
                spilled = [
                    response.headers["x-replica"] for response in await asyncio.gather(*sent)
                ]
    finally:
        pairs.stop()
    print(f"spill-over, en>de 8 in flight: {spilled}")
    [home] = chosen[("en", "de")]
    assert spilled[0] == home and Counter(spilled)[home] == 5, spilled
    assert len(set(spilled)) == 2, spilled
    print(f"\naffinity: { ({f'{s}>{t}': sorted(r) for (s, t), r in chosen.items()}) }")
    assert all(len(names) == 1 for names in chosen.values()), chosen
    assert set().union(*chosen.values()) == {"replica1", "replica2"}


async def test_overload_refusals_are_retried_on_the_other_replica(router: Router, replicas) -> None:
    """Slow: it fills every slot of one replica with long answers before the burst."""
    first = replicas[0]
    retries_before = router.counter("replica1", "wretr")
    # Fill every slot of replica1 directly, past the router (which cannot see that load),
    # with its engine frozen so that they stay taken.
    first.pause_engine()
    try:
        async with httpx.AsyncClient(base_url=first.base_url, timeout=60) as direct:
            # Different texts: identical requests in flight would share one run.
            held = [
                asyncio.create_task(
                    direct.post("/translate", json=translate_body(text=f"{TEXT} {i}"))
                )
                for i in range(SLOTS)
            ]
            await slots_taken(direct, SLOTS)
            refused = await direct.post("/translate", json=translate_body(text=f"{TEXT} again"))
            assert refused.status_code == 503, refused.text
            assert refused.json()["error"]["code"] == "overloaded"

            load = Load()
            async with httpx.AsyncClient(base_url=router.base_url, timeout=60) as client:
                for _ in range(3):
                    await asyncio.gather(
                        *(one_request(client, stream=i % 2 == 0, load=load) for i in range(6))
                    )
            # Still full: every refusal above was an overload refusal.
            late = await direct.post("/translate", json=translate_body(text=f"{TEXT} late"))
            assert late.status_code == 503
            first.resume_engine()
            assert [r.status_code for r in await asyncio.gather(*held)] == [200] * SLOTS
    finally:
        first.resume_engine()
    retried = router.counter("replica1", "wretr") - retries_before
    print(f"\noverload, replica1 full, 6 clients: {load.summary()}, retried {retried}")
    assert not load.failed(), load.failed()[:5]
    assert load.split() == Counter({"replica2": len(load.outcomes)})
    # Some requests went to replica1 first and were refused there, then retried.
    assert retried > 0


SRT = (
    b"1\n00:00:01,000 --> 00:00:02,000\nGood morning, everyone.\n\n"
    b"2\n00:00:03,000 --> 00:00:04,000\nWelcome to the talk.\n"
)


async def test_a_document_job_is_followed_to_its_replica(router: Router, replicas) -> None:
    """Slow: a document job translated by a real engine, followed through the router."""
    # Every request on a job goes where the job is, whichever replica has fewer requests
    # open: without the router's stick table, about half of them would be 404s.
    async with httpx.AsyncClient(base_url=router.base_url, timeout=60) as client:
        seen: Counter = Counter()
        for _ in range(3):
            submitted = await client.post(
                "/translate/document", files={"file": ("a.srt", SRT)}, data={"target_lang": "de"}
            )
            assert submitted.status_code == 202, submitted.text
            home = submitted.headers["x-replica"]
            job = submitted.json()
            for _ in range(600):
                status = await client.get(job["status_url"])
                assert status.status_code == 200, status.text
                seen[status.headers["x-replica"] == home] += 1
                if status.json()["status"] in ("done", "error"):
                    break
                await asyncio.sleep(0.05)
            assert status.json()["status"] == "done", status.text
            result = await client.get(job["result_url"])
            assert result.status_code == 200 and result.headers["x-replica"] == home
            assert b"00:00:03,000 --> 00:00:04,000" in result.content

            # DeepL's document API: upload, poll, download (deleted once downloaded).
            uploaded = await client.post(
                "/v2/document", files={"file": ("b.srt", SRT)}, data={"target_lang": "DE"}
            )
            assert uploaded.status_code == 200, uploaded.text
            home, handle = uploaded.headers["x-replica"], uploaded.json()
            form = {"document_key": handle["document_key"]}
            path = f"/v2/document/{handle['document_id']}"
            for _ in range(600):
                status = await client.post(path, data=form)
                assert status.status_code == 200, status.text
                seen[status.headers["x-replica"] == home] += 1
                if status.json()["status"] in ("done", "error"):
                    break
                await asyncio.sleep(0.05)
            download = await client.post(f"{path}/result", data=form)
            assert download.status_code == 200 and download.headers["x-replica"] == home

            # LibreTranslate's: the answer is a download link, fetched afterwards.
            translated = await client.post(
                "/libretranslate/translate_file",
                files={"file": ("c.srt", SRT)},
                data={"source": "en", "target": "de"},
            )
            assert translated.status_code == 200, translated.text
            link = httpx.URL(translated.json()["translatedFileUrl"])
            fetched = await client.get(link.path)
            assert fetched.status_code == 200
            assert fetched.headers["x-replica"] == translated.headers["x-replica"]
    print(
        f"\ndocuments: {sum(seen.values())} status polls, all on the job's replica: "
        f"{seen[True] == sum(seen.values())}"
    )
    assert seen == Counter({True: sum(seen.values())})


async def test_rolling_restart_loses_no_request(router: Router, replicas) -> None:
    """Slow: it restarts both replicas in turn under traffic, two engine starts one after
    the other, which is what it tests."""
    load, stop = Load(), asyncio.Event()
    retries_before = sum(router.counter(r.name, "wretr") for r in replicas)
    # Light, steady traffic: requests arrive all through both restarts. A heavier load adds
    # nothing to what is checked, and a restarting replica competing with it for the CPU
    # took twice as long to start.
    traffic = asyncio.create_task(steady_load(router.base_url, 2, stop, load, pause=0.2))
    timeline = []
    try:
        await asyncio.sleep(2)
        for replica in replicas:
            code = await asyncio.to_thread(replica.terminate)
            assert code == 0, replica.output()
            down = await asyncio.to_thread(router.wait_status, replica.name, "DOWN")
            replica.start()
            ready = await asyncio.to_thread(replica.wait_ready)
            up = await asyncio.to_thread(router.wait_status, replica.name, "UP")
            timeline.append(
                f"{replica.name}: down +{down:.1f} s, ready in {ready:.1f} s, UP +{up:.1f} s"
            )
            await asyncio.sleep(2)
    finally:
        stop.set()
        await traffic
    retried = sum(router.counter(r.name, "wretr") for r in replicas) - retries_before
    print(
        f"\nrolling restart, 2 clients: {load.summary()}, retried {retried}; " + "; ".join(timeline)
    )
    assert not load.failed(), load.failed()[:5]
    assert not [o for o in load.outcomes if o.status and o.status >= 500]
    assert len(load.outcomes) > 50


async def test_killed_replica_fails_only_its_requests_in_flight(router: Router, replicas) -> None:
    """Slow: long streams on both replicas, one killed mid-stream, then traffic until the
    router has taken the dead replica out."""
    victim = replicas[0]
    # One long stream on each replica (least outstanding requests puts the second on the
    # other one), each generating when the kill comes.
    hold = Hold(router.base_url, 2, choices=SLOTS // 2)

    def freeze_the_victim(replica: str) -> None:
        # Its engine stops as soon as its stream has begun: the stream is certainly still
        # running when it dies. (Waiting for the other stream first once let it generate
        # to its end, all of it then sitting in socket buffers: nothing left to cut off.)
        if replica == victim.name:
            victim.pause_engine()

    names = await hold.start(freeze_the_victim)
    assert sorted(names) == ["replica1", "replica2"], names
    assert int(router.servers()[victim.name]["scur"]) >= 1  # its stream still in flight
    load, stop = Load(), asyncio.Event()
    traffic = asyncio.create_task(steady_load(router.base_url, 3, stop, load))
    await asyncio.sleep(1)
    victim.kill()
    killed_at = time.monotonic()
    noticed = await asyncio.to_thread(router.wait_status, "replica1", "DOWN", 10)
    sessions_when_down = router.counter("replica1", "stot")
    await asyncio.sleep(3)
    stop.set()
    await traffic
    streams = await hold.release()

    (on_victim,) = [s for s in streams if s[0] == "replica1"]
    (survivor,) = [s for s in streams if s[0] == "replica2"]
    late = [o for o in load.outcomes if o.started > killed_at]
    print(
        f"\nSIGKILL replica1: noticed DOWN after {noticed:.1f} s; its stream: "
        f"{on_victim[2]}; load {load.summary()}; after the kill: {len(late)} sent, "
        f"{len([o for o in late if o.status != 200 or o.error])} failed"
    )
    # The stream in flight on the killed replica fails as the client sees it: cut off,
    # without its [DONE]; the one on the other replica finishes.
    assert on_victim[2] is not None and "[DONE]" not in on_victim[1], on_victim[2]
    assert survivor[2] is None and survivor[1][-1] == "[DONE]", survivor[2]
    # Requests sent after the kill all succeed: a refused connection is retried on the
    # other replica until the health check takes the dead one out.
    assert late and all(o.status == 200 and not o.error for o in late), [
        o for o in late if o.status != 200 or o.error
    ][:5]
    # Failures are requests that were running on replica1 when it died.
    assert all(o.started < killed_at for o in load.failed())
    # Nothing more was sent to it once it was marked down.
    assert router.counter("replica1", "stot") == sessions_when_down
