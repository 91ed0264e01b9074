"""`docker compose up`, for real: the CPU image built, the stack run, its promises checked.

In file order (one session): every documented compose command's configuration; the image
(built once: every stack runs it); a plain `up`: the README's curl and DeepL examples, the
routes, a setting from the env file, metrics and Prometheus; data across `down`/`up`; `stop`
draining; the README's OpenAI example on the instruction-tuned model, whose engine is then
killed and Compose restarts it; docker-compose.scale.yml's replicas behind HAProxy. The
three stacks are projects of their own (tests/support/compose_stack.py) and run side by side:
the plain and the instruction-tuned one start together, each preparing its model into the one
model volume, and the scale stack starts as soon as the default model is prepared. Only the
tests of a restart, a stop or a kill restart, stop or kill anything.
"""

from __future__ import annotations

import contextlib
import io
import itertools
import json
import os
import re
import threading
import time

import deepl
import httpx
import pytest

from tests.support import compose_files
from tests.support.compose_stack import (
    ADMIN_KEY,
    CLIENT_TIMEOUT,
    FIGURES,
    IMAGE,
    INSTRUCT,
    INSTRUCT_MODEL,
    MAX_TEXT_CHARS,
    PLAIN,
    SCALE,
    SERVICE,
    container_state,
    run,
)
from tests.support.docs_text import ROOT, compose_commands, fenced_blocks, shell_lines

pytestmark = pytest.mark.docker

STOP_GRACE_PERIOD = 45  # docker-compose.yml's stop_grace_period for the servers
# The restart test's load: a few clients, each one request at a time, for as long as the
# restart takes (the replica's stop, and its start with the model already prepared).
LOAD_CLIENTS = 2
# tests/docker/compose.tier.yml's stop_grace_period for the replicas (drain: 120 s).
REPLICA_STOP_GRACE_PERIOD = 150
# A replica's restart with its model prepared; a host busy with other work may need longer.
RESTART_HEALTHY_WITHIN = float(os.environ.get("DOCKER_TIER_RESTART_WITHIN", "300"))
# A server whose engine fails: the health check's interval times its retries (or the server's
# own exit), and Docker's restart.
ENGINE_FAILURE_RESTART_WITHIN = 180
# Run in the server's container (as its user): SIGKILL to vLLM's engine core process, found by
# the title vLLM gives it. Prints what it killed, or fails listing the processes it saw.
KILL_ENGINE_CORE = """
import os, signal
seen = {}
for pid in filter(str.isdigit, os.listdir("/proc")):
    try:
        with open(f"/proc/{pid}/cmdline", "rb") as cmdline:
            seen[int(pid)] = cmdline.read().replace(b"\\0", b" ").decode().strip()
    except OSError:
        pass
cores = [pid for pid, line in seen.items() if "EngineCore" in line and pid != os.getpid()]
assert len(cores) == 1, seen
os.kill(cores[0], signal.SIGKILL)
print(cores[0], seen[cores[0]])
"""

README = (ROOT / "README.md").read_text()


def translate(client: httpx.Client, text: str, **extra) -> httpx.Response:
    return client.post(
        "/translate", json={"text": text, "source_lang": "en", "target_lang": "de", **extra}
    )


def on_this_port(text: str, port: int = PLAIN.port) -> str:
    """A README example, pointed at a stack's published port."""
    return text.replace("localhost:8000", f"localhost:{port}")


def readme_python(marker: str, port: int = PLAIN.port) -> str:
    (example,) = [
        body for lang, body in fenced_blocks(README) if lang == "python" and marker in body
    ]
    return on_this_port(example, port)


def printed_by(source: str) -> str:
    output = io.StringIO()
    with contextlib.redirect_stdout(output):
        exec(compile(source, "README.md", "exec"), {})
    return output.getvalue()


def test_every_documented_compose_command_is_a_valid_configuration() -> None:
    """Each `docker compose` command the docs and the compose files' headers show, as compose
    itself reads it (its files and profiles; the action replaced by `config`)."""
    checked = []
    for command, arguments in compose_commands().items():
        options = []
        for index, word in enumerate(arguments):
            if word in ("-f", "--profile", "--env-file") and index + 1 < len(arguments):
                options += [word, arguments[index + 1]]
        done = run("docker", "compose", *options, "config", "--quiet", check=False)
        assert done.returncode == 0, f"`{command}`: {done.stderr[-1000:]}"
        checked.append(command)
    print(f"\n{len(checked)} documented compose commands checked")


@pytest.mark.parametrize(
    "files", [(), (compose_files.GPU,), (compose_files.SCALE,)], ids=["plain", "gpu", "scale"]
)
def test_compose_merges_the_files_as_the_deploy_tests_read_them(files) -> None:
    """The deploy tier reads the compose files without Docker (tests/support/compose_files.py);
    here compose itself says the same of what a plain `up` starts and how."""
    options = [item for file in ("docker-compose.yml", *files) for item in ("-f", file)]
    done = run("docker", "compose", *options, "config", "--format", "json")
    real = json.loads(done.stdout)["services"]
    modelled = compose_files.stack(*files)["services"]
    started = {name for name, service in modelled.items() if not service.get("profiles")}
    assert set(real) == started  # compose leaves out what waits for a profile
    server, model = real[SERVICE], modelled[SERVICE]
    assert server["image"] == model["image"]
    assert server["build"]["dockerfile"] == model["build"]["dockerfile"]
    assert [
        f"{p['host_ip']}:{p['published']}:{p['target']}" for p in server.get("ports", [])
    ] == model.get("ports", [])
    assert server.get("deploy", {}).get("replicas") == model.get("deploy", {}).get("replicas")
    assert ("shm_size" in server) == ("shm_size" in model)
    assert set(server["environment"]) == set(model["environment"])


def test_cpu_image_runs_as_a_non_root_user(cpu_image, stacks) -> None:
    """(The stacks start first: they begin while this probe runs.)"""
    config = json.loads(
        run("docker", "image", "inspect", "--format", "{{json .Config}}", cpu_image).stdout
    )
    assert config["User"] == "10001:10001"
    assert config["Entrypoint"] == ["translate-server"] and config["Cmd"] == ["serve"]
    who = run("docker", "run", "--rm", "--entrypoint", "id", cpu_image, "-u").stdout.strip()
    assert who == "10001"
    # The engine imports in the image (torchcodec & co. removed, as the build step says).
    probe = run(
        "docker",
        "run",
        "--rm",
        "--entrypoint",
        "python",
        cpu_image,
        "-c",
        "import vllm, translate_server; print(vllm.__version__)",
        timeout=300,
    )
    assert probe.stdout.strip().endswith("0.32.0")
    print(
        f"\n{IMAGE}: {FIGURES['cpu_image_size_mb']} MB, built in {FIGURES['cpu_image_build_s']} s"
    )


def test_routes_answer_through_the_published_port(cpu_stack, client) -> None:
    translated = translate(client, "Good morning")
    assert translated.status_code == 200, translated.text
    assert translated.json()["translation"].strip()
    assert translated.json()["model"] == "google/gemma-3-270m"

    chat = client.post(
        "/v1/chat/completions", json={"messages": [{"role": "user", "content": "Hello"}]}
    )
    assert chat.status_code == 400 and chat.json()["error"]["code"] == "chat_not_supported"
    assert f"TRANSLATE_MODEL={INSTRUCT_MODEL} docker compose up" in chat.json()["error"]["message"]

    page = client.get("/")
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]

    deepl_answer = client.post("/v2/translate", json={"text": ["Thank you"], "target_lang": "DE"})
    assert deepl_answer.status_code == 200, deepl_answer.text
    assert deepl_answer.json()["translations"][0]["text"].strip()

    metrics = client.get("/metrics")
    assert metrics.status_code == 200
    assert "translate_" in metrics.text and "vllm:" in metrics.text


def test_the_readme_curl_answers_as_written(cpu_stack) -> None:
    """The README's first request, run by the shell as a newcomer pastes it."""
    (command,) = [line for line in shell_lines(README) if line.startswith("curl -s localhost")]
    done = run("bash", "-c", on_this_port(command), timeout=300)
    shown = json.loads(re.search(r"```json\n(\{.*?\})\n```", README, re.DOTALL)[1])
    answer = json.loads(done.stdout)
    print(f"\n$ {command}\n{done.stdout}")
    assert answer["translation"] == shown["translation"]
    assert answer["model"] == shown["model"] and answer["usage"] == shown["usage"]


def test_the_readme_deepl_example_answers(cpu_stack) -> None:
    printed = printed_by(readme_python("import deepl"))
    print(f"\nREADME's DeepL example: {printed!r}")
    assert printed.strip()


def test_a_setting_in_dotenv_reaches_the_server(cpu_stack, client) -> None:
    """The env file (`.env` for a user) sets the admin key and a text limit: the server
    applies both."""
    keyed = client.get("/admin/adapters", headers={"Authorization": f"Bearer {ADMIN_KEY}"})
    # The key is accepted: the routes exist and say why they cannot load adapters here.
    assert keyed.status_code == 400 and keyed.json()["error"]["code"] == "lora_not_enabled"
    assert client.get("/admin/adapters").status_code == 401
    too_long = translate(client, "x" * (MAX_TEXT_CHARS + 1))
    assert too_long.status_code == 400
    assert too_long.json()["error"]["code"] == "string_above_max_length"
    assert str(MAX_TEXT_CHARS) in too_long.json()["error"]["message"]


def test_prometheus_scrapes_the_service(cpu_stack) -> None:
    deadline = time.monotonic() + 90  # scrape_interval is 15 s
    targets: list[dict] = []
    while time.monotonic() < deadline:
        answer = httpx.get("http://127.0.0.1:9090/api/v1/targets", timeout=10).json()
        targets = [
            t for t in answer["data"]["activeTargets"] if t["labels"]["job"] == "translate-server"
        ]
        if targets and all(t["health"] == "up" for t in targets):
            return
        time.sleep(3)
    pytest.fail(f"translate-server target not up: {targets}")


def test_data_survives_down_and_up(cpu_stack, client) -> None:
    translator = deepl.Translator("docker-tier-key", server_url=f"http://127.0.0.1:{PLAIN.port}")
    glossary = translator.create_glossary("docker tier", "EN", "DE", {"stack": "Stapel"})
    translator.translate_text("Data survives.", target_lang="DE")
    usage_before = translator.get_usage().character.count
    assert usage_before > 0
    job = client.post(
        "/translate/document",
        data={"target_lang": "de"},
        files={"file": ("note.txt", b"Good night.\n", "text/plain")},
    )
    assert job.status_code == 202, job.text
    job_id, key = job.json()["document_id"], job.json()["document_key"]
    deadline = time.monotonic() + 180
    while (
        client.get(f"/translate/document/{job_id}", params={"key": key}).json()["status"] != "done"
    ):
        assert time.monotonic() < deadline, "document job not done"
        time.sleep(2)
    result_before = client.get(f"/translate/document/{job_id}/result", params={"key": key})
    assert result_before.status_code == 200

    PLAIN.compose("down")
    PLAIN.up()
    FIGURES["restart_with_prepared_model_to_healthy_s"] = round(PLAIN.wait_healthy(), 1)

    assert [g.glossary_id for g in translator.list_glossaries()] == [glossary.glossary_id]
    assert translator.get_glossary_entries(glossary) == {"stack": "Stapel"}
    assert translator.get_usage().character.count == usage_before
    status = client.get(f"/translate/document/{job_id}", params={"key": key})
    assert status.status_code == 200 and status.json()["status"] == "done"
    result_after = client.get(f"/translate/document/{job_id}/result", params={"key": key})
    assert result_after.content == result_before.content


def test_stop_drains_a_request_in_flight(cpu_stack, client) -> None:
    text = " ".join(["The committee met on Tuesday to discuss the new budget for the library."] * 6)
    events: list[str] = []
    started = threading.Event()
    outcome: dict[str, object] = {}

    def stream() -> None:
        try:
            with client.stream(
                "POST",
                "/translate",
                json={"text": text, "source_lang": "en", "target_lang": "de", "stream": True},
            ) as response:
                outcome["status"] = response.status_code
                for line in response.iter_lines():
                    if line.startswith("data:"):
                        events.append(line)
                        started.set()
        except httpx.HTTPError as exc:
            outcome["error"] = repr(exc)
        finally:
            started.set()

    reader = threading.Thread(target=stream)
    reader.start()
    assert started.wait(120), "the stream never began"
    assert "error" not in outcome, outcome
    begun = time.monotonic()
    PLAIN.compose("stop", SERVICE, timeout=STOP_GRACE_PERIOD + 30)
    stop_s = time.monotonic() - begun
    reader.join(10)
    FIGURES["stop_with_request_in_flight_s"] = round(stop_s, 1)
    assert outcome.get("status") == 200 and "error" not in outcome, outcome
    assert events and '"error"' not in events[-1], events[-3:]
    assert stop_s < STOP_GRACE_PERIOD, f"stop took {stop_s:.0f} s: the grace period ran out"
    assert "Exited (0)" in PLAIN.compose("ps", "-a", SERVICE).stdout


def test_the_readme_openai_example_on_the_instruction_tuned_model(instruct_stack) -> None:
    """`TRANSLATE_MODEL=HuggingFaceTB/SmolLM2-135M-Instruct docker compose up`, then the
    README's OpenAI SDK example, as written."""
    assert f"TRANSLATE_MODEL={INSTRUCT_MODEL} docker compose up" in README
    printed = printed_by(readme_python("from openai import OpenAI", INSTRUCT.port))
    print(f"\nREADME's OpenAI example on {INSTRUCT_MODEL}: {printed!r}")
    assert printed.strip()
    models = httpx.get(f"http://127.0.0.1:{INSTRUCT.port}/v1/models", timeout=30).json()
    assert [m["id"] for m in models["data"]] == [INSTRUCT_MODEL]


def test_a_failing_engine_is_restarted_by_compose(instruct_stack) -> None:
    """The engine's process is killed inside the running server, as the kernel's OOM killer or
    a crash in a kernel would: from then on every request fails. The server must not stay in
    service so: it reports itself failing (`/health/live` 503 `engine_failing`), the compose
    health check ends it (or it exits), and `restart: unless-stopped` starts it again. Docker
    restarts the same container, which becomes healthy and translates."""
    (container,) = instruct_stack.containers()
    before = container_state(container)
    killed = run("docker", "exec", container, "python", "-c", KILL_ENGINE_CORE).stdout.strip()
    print(f"\nkilled the engine core: {killed}")
    begun = time.monotonic()
    url = f"http://127.0.0.1:{instruct_stack.port}"
    with httpx.Client(base_url=url, timeout=60) as http:
        try:  # while it lasts, the server refuses to translate (or is already gone)
            failed = translate(http, "Is the engine alive?")
            assert failed.status_code >= 500, failed.text
        except httpx.TransportError:
            pass
    deadline = time.monotonic() + ENGINE_FAILURE_RESTART_WITHIN
    state = before
    while state["restarts"] == before["restarts"]:
        assert time.monotonic() < deadline, f"not restarted: {state}"
        time.sleep(1)
        state = container_state(container)
    FIGURES["failing_engine_to_restart_s"] = round(time.monotonic() - begun, 1)
    assert state["state"]["StartedAt"] != before["state"]["StartedAt"]
    instruct_stack.wait_healthy()
    FIGURES["failing_engine_to_healthy_s"] = round(time.monotonic() - begun, 1)
    with httpx.Client(base_url=url, timeout=CLIENT_TIMEOUT) as http:
        answer = translate(http, "The engine is back.")
    assert answer.status_code == 200, answer.text
    assert answer.json()["translation"].strip()


def test_scale_streams_through_the_router(scale_stack, scale_client) -> None:
    with scale_client.stream(
        "POST",
        "/translate",
        json={
            "text": "The weather is fine today.",
            "source_lang": "en",
            "target_lang": "de",
            "stream": True,
        },
    ) as response:
        assert response.status_code == 200
        assert response.headers["x-replica"].startswith("replica")
        events = [line for line in response.iter_lines() if line.startswith("data:")]
    assert events and '"error"' not in events[-1]
    assert "delta" in events[0]


def test_replicas_share_their_stores_in_postgresql(scale_stack, scale_client, monkeypatch) -> None:
    """What one replica stores, the other answers with: a glossary made through the router
    is found through both replicas, and the usage both count is one figure."""
    # The client gives up on a request after 10 s and sends it again, and the server bills
    # what it translated: a first request that waits for a kernel to compile would count twice.
    monkeypatch.setattr(deepl.http_client, "min_connection_timeout", 300.0)
    key = "docker-tier-shared"
    translator = deepl.Translator(key, server_url=f"http://127.0.0.1:{SCALE.port}")
    glossary = translator.create_glossary("replicas", "EN", "DE", {"stack": "Stapel"})
    headers = {"Authorization": f"DeepL-Auth-Key {key}"}
    answered_by: dict[str, int] = {}
    for _ in range(12):
        answer = scale_client.get(f"/v2/glossaries/{glossary.glossary_id}", headers=headers)
        assert answer.status_code == 200, answer.text
        assert answer.json()["entry_count"] == 1
        replica = answer.headers["x-replica"]
        answered_by[replica] = answered_by.get(replica, 0) + 1
    assert len(answered_by) == 2, answered_by
    texts = [f"Shared usage {n}." for n in range(6)]
    for text in texts:
        translator.translate_text(text, target_lang="DE")
    assert translator.get_usage().character.count == sum(len(text) for text in texts)


def test_restarting_one_replica_under_load_loses_no_request(scale_stack) -> None:
    """A few clients keep asking through HAProxy while one replica's container restarts:
    every request is answered 200, and the restarted replica is taken back afterwards."""
    numbers = itertools.count()
    answers: list[tuple[float, int, str, float]] = []  # (sent, status, replica, answered)
    failures: list[str] = []
    stop = threading.Event()

    def load() -> None:
        with httpx.Client(
            base_url=f"http://127.0.0.1:{SCALE.port}", timeout=CLIENT_TIMEOUT
        ) as http:
            while not stop.is_set():
                sent = time.monotonic()
                try:  # a new text each time: the translation cache must not answer for the engine
                    response = translate(http, f"See you at {next(numbers)} o'clock.", max_tokens=8)
                except httpx.HTTPError as exc:
                    failures.append(f"{exc!r} (sent {sent - begun:.0f} s after the restart)")
                    continue
                answers.append(
                    (
                        sent,
                        response.status_code,
                        response.headers.get("x-replica", "?"),
                        time.monotonic(),
                    )
                )
                if response.status_code != 200:
                    failures.append(
                        f"{response.status_code} from {response.headers.get('x-replica')}"
                        f" after {time.monotonic() - sent:.0f} s: {response.text[:150]}"
                    )

    first = sorted(SCALE.containers())[0]
    begun = time.monotonic() + 3
    workers = [threading.Thread(target=load) for _ in range(LOAD_CLIENTS)]
    for worker in workers:
        worker.start()
    try:
        time.sleep(3)
        # One replica (compose's `restart` takes a whole service): the stop (SIGTERM, then
        # stop_grace_period) and start that compose itself would do.
        run(
            "docker",
            "restart",
            "--time",
            str(REPLICA_STOP_GRACE_PERIOD),
            first,
            timeout=REPLICA_STOP_GRACE_PERIOD + 30,
        )
        back = time.monotonic()
        SCALE.wait_healthy(count=2, within=RESTART_HEALTHY_WITHIN)
        FIGURES["replica_restart_to_healthy_s"] = round(time.monotonic() - begun, 1)
        # HAProxy takes it back after 2 good checks (1 s) and a 5 s slow start.
        healthy = time.monotonic()
        # Long enough for a few requests sent after that to be answered: 30 s on a quiet
        # host, more where each request takes long (a host busy with other work).
        slowest = max((done - sent for sent, _, _, done in answers), default=0.0)
        deadline = healthy + 6 + max(24.0, 3 * slowest)
        while (
            time.monotonic() < deadline and len({a[2] for a in answers if a[0] > healthy + 6}) < 2
        ):
            time.sleep(1)
    finally:
        stop.set()
        for worker in workers:
            worker.join(CLIENT_TIMEOUT + 10)
    during = [a for a in answers if begun <= a[0] <= back]
    after = {a[2] for a in answers if a[0] > healthy + 6}
    FIGURES["requests_during_replica_restart"] = len(answers)
    FIGURES["replica_restart_slowest_request_s"] = round(
        max((done - sent for sent, _, _, done in answers), default=0), 1
    )
    print(
        f"\n{len(answers)} requests, {len(during)} sent while the replica stopped; "
        f"answered by {sorted({a[2] for a in answers})}"
    )
    assert not failures, failures[:5]
    assert during, "no request was sent while the replica stopped"
    assert len(after) == 2, f"the restarted replica was not taken back: {after}"
