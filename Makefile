# Two commands on a fresh machine:
#   make run   - create/refresh .venv, install kernelviz, start the app on localhost
#   make test  - create/refresh .venv, install kernelviz + test extras + Chromium + Node, run every test
#                (the components' JavaScript under node --test, then pytest)
# and, on purpose only:
#   make newest      - the same suite on the newest Streamlit and Plotly (past the pinned range)
#   make screenshots - run the browser tests and save their screenshots into docs/screenshots/
#                      (an ordinary test run keeps them in a temporary folder)
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed

.PHONY: run test newest screenshots venv browser node bench shipped-cache clean

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

# Node for the unit tests of the components' JavaScript (node --test, built in since Node 18).
node:
	@if ! command -v node >/dev/null 2>&1; then \
	    if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	    $$SUDO apt-get update -qq && $$SUDO apt-get install -y -qq nodejs; \
	fi
	@node --version

run: venv
	$(BIN)/streamlit run app.py --server.address localhost --server.headless true

test: venv browser node
	node --test tests/js/
	$(BIN)/python -m pytest -q

# The whole suite on the newest Streamlit and Plotly, past pyproject.toml's bounds, in a venv of its
# own: what to run before a bound moves (the app uses private parts of both).
NEWEST := .venv-newest
newest: browser node
	$(PYTHON) -m venv $(NEWEST)
	$(NEWEST)/bin/pip install --quiet --upgrade pip
	$(NEWEST)/bin/pip install --quiet -e ".[test,dask]"
	$(NEWEST)/bin/pip install --quiet --upgrade streamlit plotly
	$(NEWEST)/bin/python -c "import streamlit, plotly; print('streamlit', streamlit.__version__, '· plotly', plotly.__version__)"
	node --test tests/js/
	$(NEWEST)/bin/python -m pytest -q

screenshots: venv browser
	KERNELVIZ_SCREENSHOTS=docs/screenshots $(BIN)/python -m pytest -q -m browser

bench: venv
	$(BIN)/python benchmarks/run_all.py

# The lessons' grid searches shipped in the package: their keys carry the version of the code that
# computes them, so an edit to it needs them made again (tests/test_teach.py fails until then).
shipped-cache: venv
	rm -f kernelviz/shipped_cache/*.entry
	$(BIN)/python -m kernelviz --cache-dir kernelviz/shipped_cache warm --lessons --searches-only

clean:
	rm -rf $(VENV) $(NEWEST) .pytest_cache
