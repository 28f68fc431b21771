# mneme: `make run` and `make test` set up what is missing, then do their job.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
# CrewAI's adapter has a venv of its own: no CrewAI release installs beside the main venv's
# pins (pydantic, openai; ADR 0049, amendment). It runs only tests/e2e/adapters/crewai/.
CREWAI_VENV := .venv-crewai
CREWAI_PY := $(CREWAI_VENV)/bin/python
CREWAI_STAMP := $(CREWAI_VENV)/.installed-$(shell cat pyproject.toml | cksum | cut -d' ' -f1)
# CrewAI's telemetry and tracing stay off: its tests make no network call.
CREWAI_OFFLINE := CREWAI_DISABLE_TELEMETRY=true OTEL_SDK_DISABLED=true CREWAI_TRACING_ENABLED=false
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: run test lint typecheck unit browser bench bench-scale demo clean crewai-env crewai-test

$(STAMP): pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	# The CPU build of torch first (a file on these machines); unpinned, pip would pull CUDA.
	$(PY) -m pip install --quiet torch==2.13.0
	$(PY) -m pip install --quiet -e '.[dev,postgres,server,adapters]'
	rm -f $(VENV)/.installed-*
	touch $(STAMP)

# About 2 minutes and 2.5 GB from nothing (torch, onnxruntime and openvino again, CrewAI,
# chromadb, lancedb); mneme itself is installed editable, as in the main venv.
$(CREWAI_STAMP): pyproject.toml
	test -x $(CREWAI_PY) || $(PYTHON) -m venv $(CREWAI_VENV)
	$(CREWAI_PY) -m pip install --quiet --upgrade pip
	$(CREWAI_PY) -m pip install --quiet torch==2.13.0
	$(CREWAI_PY) -m pip install --quiet -e '.[crewai]' 'pytest>=8'
	rm -f $(CREWAI_VENV)/.installed-*
	touch $(CREWAI_STAMP)

crewai-env: $(CREWAI_STAMP)

# The CrewAI adapter's tests and its docs page's example, in CrewAI's venv (tests/README.md).
crewai-test: $(CREWAI_STAMP)
	$(CREWAI_OFFLINE) $(CREWAI_PY) -m pytest -q tests/e2e/adapters/crewai

run: $(STAMP)
	$(VENV)/bin/mneme serve --port 8765

# The review page's end-to-end tests drive Debian's chromium (never a downloaded browser).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
		echo "installing Debian's chromium for the browser tests" >&2; \
		(apt-get update -qq && apt-get install -y -qq chromium >/dev/null) || \
		sudo sh -c 'apt-get update -qq && apt-get install -y -qq chromium >/dev/null'; }

# Two workers: the suite is CPU-bound and these machines have two cores (ADR 0040).
test: $(STAMP) $(CREWAI_STAMP) browser lint typecheck
	$(PY) -m pytest -q -n 2
	$(MAKE) --no-print-directory crewai-test

lint: $(STAMP)
	$(VENV)/bin/ruff check .
	$(VENV)/bin/ruff format --check .

typecheck: $(STAMP)
	$(VENV)/bin/mypy

# The pure core's tests (tests/README.md): no store, no model, seconds.
unit: $(STAMP)
	$(PY) -m pytest -q tests/unit

# Benchmarks report numbers (tests assert behaviour). Results land in bench/results/.
bench: $(STAMP)
	$(PY) -m bench.locomo.run
	$(PY) -m bench.locomo.calibration
	$(PY) -m bench.locomo.context
	$(PY) -m bench.locomo.reflect
	$(PY) -m bench.insights.run
	$(PY) -m bench.portable
	$(PY) -m bench.sgd.run
	$(PY) -m bench.sgd.shared --split dev --limit 150
	$(PY) -m bench.sgd.shared --split test --limit 150
	$(PY) -m bench.sgd.decisions
	$(PY) -m bench.locomo.events
	$(PY) -m bench.locomo.dating
	$(PY) -m bench.sgd.tombstones
	$(PY) -m bench.sgd.dates
	$(PY) -m bench.sgd.roles --ablate
	$(PY) -m bench.sgd.names
	$(PY) -m bench.sgd.slot_pairs
	$(PY) -m bench.decisions.run
	$(PY) -m bench.behaviour.run
	$(PY) -m bench.buffer --n 200
	$(PY) -m bench.http_load --write
	$(PY) -m bench.reconsolidation
	$(PY) -m bench.watchdog_overhead
	$(PY) -m bench.scale.run --sizes 1000,10000 --ingest-budget-min 20

bench-scale: $(STAMP)
	$(PY) -m bench.scale.run --sizes 100000,1000000 --backends sqlite,postgres --ingest-budget-min 30
	$(PY) -m bench.scale_pg --units 100000

clean:
	rm -rf $(VENV) $(CREWAI_VENV) .mypy_cache .ruff_cache .pytest_cache
