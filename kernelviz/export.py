"""Figures as files to take away: PNG and SVG (rendered by kaleido in a headless Chromium) and HTML.

kaleido 1.x draws a figure with the plotly.js that ships in the ``plotly`` package, inside a
Chromium-based browser it finds on ``PATH`` (Debian's ``/usr/bin/chromium``) or at the path
in the ``BROWSER_PATH`` environment variable. Starting that browser is the slow part of an
export (seconds on a busy machine; a render in a running browser takes about one second), so
this module keeps one browser open — the *warm exporter* — from the first PNG or SVG export
until the process ends. Rendering needs no network: MathJax (kaleido's only other download)
is switched off, as kernelviz's figures write their formulas in Unicode.

>>> png = figure_bytes(fig, "png")   # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import atexit
import threading
from pathlib import Path

import plotly.graph_objects as go

#: The formats :func:`figure_bytes` writes, with the MIME type a download should carry.
MIME_TYPES = {"png": "image/png", "svg": "image/svg+xml", "html": "text/html"}
#: Size of an exported figure without a size of its own: a 16:9 slide.
SLIDE_WIDTH = 1280
SLIDE_HEIGHT = 720
#: PNG pixels per figure pixel: sharp on a projector and when a slide is enlarged.
PNG_SCALE = 2
#: Longest wait for the browser to start, and for one figure to render (seconds). A busy
#: 2-core machine was measured to take 6–13 s for the start.
START_TIMEOUT = 60.0
RENDER_TIMEOUT = 60.0


class ExportUnavailable(RuntimeError):
    """PNG / SVG export cannot run here (no Chromium, or kaleido is not installed).

    The message says what to install; HTML export works without either.
    """


NO_BROWSER = ("PNG and SVG export draws the figure in Chromium (or Google Chrome), and none was found. "
              "Install it (on Debian or Ubuntu: sudo apt-get install chromium) or set the environment variable "
              "BROWSER_PATH to a Chrome or Chromium executable, then try again. The HTML download works without it.")
NO_KALEIDO = ("PNG and SVG export needs the Python package kaleido (version 1 or later): "
              "pip install 'kaleido>=1'. The HTML download works without it.")


def unavailable_reason() -> str:
    """Why PNG / SVG export cannot run here ("" when it can), found without starting a browser.

    The app can show this instead of PNG and SVG buttons that would fail.
    """
    try:
        from choreographer.browsers.chromium import Chromium
    except ImportError:  # choreographer comes with kaleido
        return NO_KALEIDO
    path = Chromium.find_browser(skip_local=False)
    return "" if path and Path(path).is_file() else NO_BROWSER


def figure_bytes(fig: go.Figure, fmt: str) -> bytes:
    """The figure as a file's content.

    Parameters
    ----------
    fig : plotly.graph_objects.Figure
    fmt : {"png", "svg", "html"}
        ``"png"`` and ``"svg"`` at the figure's own size, or :data:`SLIDE_WIDTH` ×
        :data:`SLIDE_HEIGHT` where it has none (PNG at :data:`PNG_SCALE` × that many
        pixels); ``"html"`` an interactive page holding plotly.js itself, so it opens
        without a network.

    Returns
    -------
    bytes

    Raises
    ------
    ValueError
        For any other format.
    ExportUnavailable
        For PNG or SVG when no Chromium-based browser (or no kaleido) is installed.
    """
    if fmt not in MIME_TYPES:
        raise ValueError(f"Cannot export a figure as {fmt!r}: choose one of {', '.join(MIME_TYPES)}.")
    if fmt == "html":
        return fig.to_html(include_plotlyjs=True, full_html=True).encode("utf-8")
    opts = {"format": fmt, "width": fig.layout.width or SLIDE_WIDTH, "height": fig.layout.height or SLIDE_HEIGHT,
            "scale": PNG_SCALE if fmt == "png" else 1}
    return _EXPORTER.render(fig, opts)


class _WarmExporter:
    """One kaleido browser, opened on first use, kept open, and reached from any thread.

    kaleido's browser lives in an asyncio loop; that loop runs in a daemon thread of its
    own, so callers (Streamlit runs each page in a fresh thread) submit renders to it and
    wait with a timeout. kaleido's own ``start_sync_server`` is not used: a browser that
    fails to start inside it leaves every later call waiting forever.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._loop = None
        self._kaleido = None

    def render(self, fig: go.Figure, opts: dict) -> bytes:
        with self._lock:  # one render at a time: the browser has a single tab
            self._open()
            future = asyncio.run_coroutine_threadsafe(self._kaleido.calc_fig(fig, opts=opts), self._loop)
            try:
                return future.result(timeout=RENDER_TIMEOUT)
            except BaseException:
                # a browser that failed or timed out is not trusted again: the next export starts a fresh one
                future.cancel()
                self._close_browser()
                raise

    def open(self) -> None:
        """Start the browser unless it is running."""
        with self._lock:
            self._open()

    def close(self) -> None:
        """Close the browser (the next export opens a new one)."""
        with self._lock:
            self._close_browser()

    @property
    def is_open(self) -> bool:
        return self._kaleido is not None

    def _open(self) -> None:
        if self._kaleido is not None:
            return
        try:
            import kaleido  # noqa: F401 - only to tell a missing package from a missing browser
        except ImportError:
            raise ExportUnavailable(NO_KALEIDO) from None
        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            threading.Thread(target=self._loop.run_forever, name="kernelviz-export", daemon=True).start()
        future = asyncio.run_coroutine_threadsafe(_start_browser(), self._loop)
        try:
            self._kaleido = future.result(timeout=START_TIMEOUT)
        except Exception as err:
            future.cancel()  # a start that timed out must not leave a browser behind later
            from choreographer.browsers.chromium import ChromeNotFoundError

            if isinstance(err, ChromeNotFoundError):
                raise ExportUnavailable(NO_BROWSER) from None
            raise

    def _close_browser(self) -> None:
        browser, self._kaleido = self._kaleido, None
        if browser is not None:
            try:
                asyncio.run_coroutine_threadsafe(browser.close(), self._loop).result(timeout=START_TIMEOUT)
            except Exception:  # noqa: BLE001 - a browser that will not close cleanly is abandoned, not fatal
                pass


def render_page():
    """The page kaleido draws figures in: plotly.js from the ``plotly`` package and kaleido's
    own script, both local files, and no MathJax (kaleido would fetch it from a CDN)."""
    import kaleido

    return kaleido.PageGenerator(mathjax=False)


async def _start_browser():
    import kaleido

    # Built inside the exporter's loop, which its queues and subprocess belong to.
    browser = kaleido.Kaleido(n=1, page_generator=render_page(), timeout=RENDER_TIMEOUT)
    await browser.open()
    return browser


_EXPORTER = _WarmExporter()
atexit.register(_EXPORTER.close)


def warm_up() -> None:
    """Start the export browser now (say, in the background when the app opens), so the
    first download does not wait for it.

    Raises
    ------
    ExportUnavailable
        When no Chromium-based browser (or no kaleido) is installed.
    """
    _EXPORTER.open()
