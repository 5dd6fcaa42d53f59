# make run   - set everything up and open the dashboard on the built-in sample data
# make test  - set everything up and run the test suite (the command CI runs)
# make bench - run the benchmarks, JSON into benchmarks/results/
# The server listens on this machine only (127.0.0.1). To serve others, behind a proxy
# that adds authentication: make run ADDRESS=0.0.0.0 (README, "Serving it to others").
VENV ?= .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.pux-installed
PORT ?= 8501
ADDRESS ?= 127.0.0.1

.PHONY: setup run test bench clean

$(STAMP): pyproject.toml scripts/setup_env.sh scripts/install_minepy.sh
	bash scripts/setup_env.sh $(VENV)
	touch $(STAMP)

setup: $(STAMP)

run: setup
	$(VENV)/bin/streamlit run dashboard/app.py --server.address $(ADDRESS) --server.port $(PORT)

test: setup
	$(PY) -m pytest

bench: setup
	$(PY) -m benchmarks

clean:
	rm -rf $(VENV) .pytest_cache benchmarks/results
