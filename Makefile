# Two commands on a fresh machine:
#   make run   - create/refresh .venv, install kernelviz, start the app on localhost
#   make test  - create/refresh .venv, install kernelviz + test extras + Chromium, run every test
# and, on purpose only:
#   make screenshots - run the browser tests and save their screenshots into docs/screenshots/
#                      (an ordinary test run keeps them in a temporary folder)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test screenshots venv browser bench clean

$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e ".[test,dask]"
	touch $(STAMP)

venv: $(STAMP)

# Debian's Chromium for the real-browser tests (Playwright never downloads its own browser here).
browser:
	@if [ ! -x /usr/bin/chromium ]; then \
	    if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq chromium; \
	fi
	@/usr/bin/chromium --version

run: venv
	$(BIN)/streamlit run app.py --server.address localhost --server.headless true

test: venv browser
	$(BIN)/python -m pytest -q

screenshots: venv browser
	KERNELVIZ_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q -m browser

bench: venv
	$(BIN)/python benchmarks/run_all.py

clean:
	rm -rf $(VENV) .pytest_cache
