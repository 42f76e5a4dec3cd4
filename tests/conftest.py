"""Fixtures shared by the test files.

The real-browser fixtures (a Streamlit server on a free port, Debian's Chromium through
Playwright, a fresh page) start only when a test asks for them, so the other test files
never pay for them. ``screenshot_dir`` decides where the browser tests save their
screenshots: a temporary folder, so that a test run never changes the repository, unless
``KERNELVIZ_SCREENSHOTS`` names a folder (``make screenshots`` sets it to docs/screenshots
to refresh the README's pictures on purpose).

Every test belongs to one layer, declared by its file (``pytestmark``) or by the test itself when it
differs from its file's: ``browser``, ``app`` (runs the app through AppTest) or ``unit`` (library code
alone), so that ``pytest -m unit`` is the fast one (under two minutes). A library test marked ``slow``
(a grid search, a hung browser waited out, a Dask cluster started) is left out of ``unit``:
``pytest -m slow`` runs those, ``make test`` runs everything.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]
SCREENSHOTS_VARIABLE = "KERNELVIZ_SCREENSHOTS"
# Every figure a test builds goes through Plotly's validation, which the app skips for speed
# (kernelviz.figures.VALIDATE_ENV); the test servers inherit it.
os.environ.setdefault("KERNELVIZ_VALIDATE_FIGURES", "1")
# No disk cache of the person's (kernelviz._diskcache): the app servers the browser tests start keep
# nothing on disk, so a search one test ran never answers another's (the shipped lesson searches
# are still read); each test in this process gets an empty folder of its own (fresh_disk_cache).
os.environ["KERNELVIZ_CACHE_DIR"] = "off"

# Hypothesis's per-example deadline (200 ms) measures the machine, not the property: at load 20 a
# 60 kB hostile text took 400 ms in test_outside. The properties are checked on every example whatever
# it takes; the example counts stay each test's own.
from hypothesis import settings as _hypothesis_settings  # noqa: E402

_hypothesis_settings.register_profile("kernelviz", deadline=None)
_hypothesis_settings.load_profile("kernelviz")
SERVER_START_SECONDS = 60


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="session")
def screenshot_dir(tmp_path_factory) -> Path:
    """Where browser tests save screenshots: $KERNELVIZ_SCREENSHOTS (relative to the repository root) or a temp folder."""
    chosen = os.environ.get(SCREENSHOTS_VARIABLE, "").strip()
    if not chosen:
        return tmp_path_factory.mktemp("screenshots")
    folder = Path(chosen)
    if not folder.is_absolute():
        # `make screenshots` runs from the root, but pytest may be started from anywhere.
        folder = ROOT / folder
    folder.mkdir(parents=True, exist_ok=True)
    return folder


@pytest.fixture(scope="session")
def server(tmp_path_factory):
    """The app (``streamlit run app.py``) on a free localhost port; yields its URL, stops it afterwards."""
    port = _free_port()
    env = {**os.environ, "PYTHONUNBUFFERED": "1"}
    # The log goes to a file: an unread pipe fills up and freezes the server mid-test.
    log_path = tmp_path_factory.mktemp("streamlit") / "server.log"
    log = open(log_path, "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "localhost", "--browser.gatherUsageStats", "false"],
        cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    url = f"http://localhost:{port}"
    deadline = time.time() + SERVER_START_SECONDS
    while time.time() < deadline:
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    break
        except OSError:
            time.sleep(0.3)
    else:
        proc.kill()
        log.close()
        pytest.fail(f"streamlit did not start within {SERVER_START_SECONDS} s:\n"
                    + log_path.read_text(errors="replace"))
    yield url
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
    log.close()


@pytest.fixture(scope="session")
def browser():
    """Debian's headless Chromium; a missing browser fails the test rather than skipping it."""
    if not os.path.exists(CHROMIUM):
        pytest.fail(f"{CHROMIUM} is missing: install Debian's chromium (make browser).")
    # Imported here so that test files without browser tests never need Playwright.
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield b
        b.close()


@pytest.fixture
def page(browser):
    """A fresh browser context and page per test (no cookies or URL state carried over)."""
    helpers = str(ROOT / "tests" / "apps")
    if helpers not in sys.path:
        sys.path.insert(0, helpers)
    import live_drag

    context = browser.new_context(viewport={"width": 1440, "height": 1000}, device_scale_factor=1)
    context.add_init_script(live_drag.COUNT_RUNS)  # the script runs of every page (live_drag.after_action)
    pg = context.new_page()
    pg.set_default_timeout(90_000)
    yield pg
    context.close()


LAYERS = ("unit", "app", "browser")


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Every test file declares its layer (``pytestmark = pytest.mark.unit``, ``.app`` or ``.browser``);
    a test of another layer marks itself. Each test then carries its one layer, so that ``-m unit``
    selects by it (run before pytest's own selection); a slow test of the unit layer is left to
    ``-m slow``. A file that declares no layer, or two, stops the run."""
    declared = {}
    for item in items:
        module = item.getparent(pytest.Module)
        if module not in declared:
            marks = [mark.name for mark in module.own_markers if mark.name in LAYERS]
            if len(marks) != 1:
                raise pytest.UsageError(f"{module.nodeid} must declare one layer: pytestmark = pytest.mark.unit, "
                                        f".app or .browser (it declares {marks or 'none'})")
            declared[module] = marks[0]
            module.own_markers[:] = [mark for mark in module.own_markers if mark.name not in LAYERS]
        if any(mark.name in LAYERS for mark in item.iter_markers()):
            continue  # the test's own layer
        layer = declared[module]
        if not (layer == "unit" and item.get_closest_marker("slow")):
            item.add_marker(getattr(pytest.mark, layer))


@pytest.fixture(autouse=True)
def fresh_disk_cache(tmp_path_factory, monkeypatch):
    """An empty disk cache for each test (the package's shipped entries behind it): what one test
    searched never answers another's, as the app's session store never did."""
    from kernelviz import _diskcache

    monkeypatch.setattr(_diskcache, "CACHE", _diskcache.DiskCache(tmp_path_factory.mktemp("disk-cache"),
                                                                  read_only=(_diskcache.SHIPPED,)))
