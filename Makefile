# make run   - set everything up and open the dashboard on the built-in sample data
# make test  - set everything up and run the test suite (the command CI runs)
# make coverage - line coverage of core/ and dashboard/ by the suite (coverage.json)
# make bench - run the benchmarks, JSON into benchmarks/results/
# make lock  - rebuild requirements/lock.txt from a fresh install of pyproject.toml's newest
#              allowed versions (README, "Upgrading the lock"); then make test, commit both
# The server listens on this machine only (127.0.0.1). To serve others, behind a proxy
# that adds authentication: make run ADDRESS=0.0.0.0 (README, "Serving it to others").
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.pux-installed
PORT ?= 8501
ADDRESS ?= 127.0.0.1
TEST_WORKERS ?= 2

.PHONY: setup run test coverage bench lock clean

$(STAMP): pyproject.toml requirements/lock.txt scripts/setup_env.sh scripts/install_minepy.sh
	bash scripts/setup_env.sh $(VENV)
	touch $(STAMP)

setup: $(STAMP)

# glibc keeps the free top of every thread arena's heap: two arenas let a closed tab's
# memory go back (benchmarks/bench_upload_cycle.py; an operator's own value wins)
run: export MALLOC_ARENA_MAX ?= 2
run: setup
	$(VENV)/bin/streamlit run dashboard/app.py --server.address $(ADDRESS) --server.port $(PORT)

# two processes for the suite (pytest-xdist), then the browser tests alone: they drive a real
# server and browser, which a second test process on 2 cores would slow past their timeouts
# Each part prints its 20 slowest tests and its time; the total follows (growth shows in CI).
test: setup
	@start=$$(date +%s); \
	$(PY) -m pytest -n $(TEST_WORKERS) -m "not slow and not e2e" --durations=20 && \
	$(PY) -m pytest -m "e2e and not slow" --durations=20; rc=$$?; \
	echo "make test: the suite took $$(( $$(date +%s) - start )) s"; exit $$rc

# line coverage of core/ and dashboard/ by the suite make test runs (a separate, slower run)
coverage: setup
	$(PY) -m pytest -n $(TEST_WORKERS) -m "not slow and not e2e" --cov=core --cov=dashboard \
	  --cov-report=term:skip-covered --cov-report=json:coverage.json -q

bench: setup
	$(PY) -m benchmarks

# a throwaway venv in a temporary folder, installed with no constraints; only the lock stays
lock:
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && bash scripts/setup_env.sh --write-lock "$$tmp/venv"

clean:
	rm -rf $(VENV) .pytest_cache benchmarks/results
