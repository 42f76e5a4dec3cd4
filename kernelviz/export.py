"""Figures as files to take away: PNG and SVG (rendered by kaleido in a headless Chromium) and HTML.

kaleido 1.x draws a figure with the plotly.js that ships in the ``plotly`` package, inside a
Chromium-based browser it finds on ``PATH`` (Debian's ``/usr/bin/chromium``) or at the path
in the ``BROWSER_PATH`` environment variable. Starting that browser is the slow part of an
export (seconds on a busy machine; a render in a running browser takes about one second), so
this module keeps one browser open — the *warm exporter* — from the first PNG or SVG export
until the process ends. Rendering needs no network: MathJax (kaleido's only other download)
is switched off, as kernelviz's figures write their formulas in Unicode.

An export cannot hang a server: every PNG or SVG is done within :data:`EXPORT_TIMEOUT` seconds
or stopped with :class:`ExportTimeout`, and a browser that did not answer in time is killed
with every process it started (the next export starts a fresh one).

>>> png = figure_bytes(fig, "png")   # doctest: +SKIP
"""

from __future__ import annotations

import asyncio
import atexit
import os
import signal
import threading
import time
from concurrent.futures import CancelledError as FutureCancelled
from concurrent.futures import TimeoutError as FutureTimeout
from pathlib import Path

import plotly.graph_objects as go

#: The formats :func:`figure_bytes` writes, with the MIME type a download should carry.
MIME_TYPES = {"png": "image/png", "svg": "image/svg+xml", "html": "text/html"}
#: Size of an exported figure without a size of its own: a 16:9 slide.
SLIDE_WIDTH = 1280
SLIDE_HEIGHT = 720
#: PNG pixels per figure pixel: sharp on a projector and when a slide is enlarged.
PNG_SCALE = 2
#: Longest one PNG or SVG export may take (seconds), all waits together: for another
#: session's export to finish, for the browser to start (6–13 s on a busy 2-core machine)
#: and for the figure (about 1 s). One budget per call, read when the call starts, so that no
#: caller waits longer than this, whatever happens to the others or to the browser.
EXPORT_TIMEOUT = 60.0
#: Seconds a browser being stopped gets to exit on SIGTERM before it is SIGKILLed. A hung
#: browser is not waited for longer: an export gives up within EXPORT_TIMEOUT + KILL_GRACE.
KILL_GRACE = 1.0


class ExportUnavailable(RuntimeError):
    """PNG / SVG export cannot run here (no Chromium, kaleido is not installed, the browser
    exits as soon as it is started, or a fresh browser stops while drawing).

    The message says what to install; HTML export works without either.
    """


class ExportTimeout(TimeoutError):
    """A PNG / SVG export did not finish within its timeout and was stopped.

    A ``TimeoutError``, so code that already handles timeouts handles this one; its message is
    written for the person who clicked the download (it says how long, and to try again), and
    :attr:`timeout` is the limit that applied.
    """

    def __init__(self, timeout: float, behind_another: bool = False):
        self.timeout = timeout
        if behind_another:
            why = "another figure's export was still running. Try again in a moment."
        else:
            why = ("its browser was closed (the next export starts a fresh one). Try again; "
                   "the HTML download does not need the browser.")
        super().__init__(f"The figure export took longer than {timeout:g} s and was stopped: {why}")


NO_BROWSER = ("PNG and SVG export draws the figure in Chromium (or Google Chrome), and none was found. "
              "Install it (on Debian or Ubuntu: sudo apt-get install chromium) or set the environment variable "
              "BROWSER_PATH to a Chrome or Chromium executable, then try again. The HTML download works without it.")
NO_START = ("PNG and SVG export could not start its browser: Chromium closed as soon as it was started on the "
            "server. Try again later, or tell the server's administrator (the browser the environment variable "
            "BROWSER_PATH names, or the one installed, does not run). The HTML download works without it.")
NO_DRAW = ("PNG and SVG export lost its browser while drawing the figure (Chromium stopped on the server). "
           "Try again; the HTML download works without it.")
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
        For PNG or SVG when no Chromium-based browser (or no kaleido) is installed, or the
        browser fails as it starts or while drawing (the message says so in words, without the
        server's paths). A warm browser that died since the last export is replaced first.
    ExportTimeout
        For PNG or SVG not done within :data:`EXPORT_TIMEOUT` seconds (a hung browser, or
        another session's export holding it that long); the message asks to try again.
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

    Every wait of a call is bounded by that call's own deadline, :data:`EXPORT_TIMEOUT` after
    it began: the lock (one render at a time: the browser has a single tab) is taken with what
    is left of the budget, so an export stuck in the browser holds up other sessions no longer
    than their own timeouts, and the stuck export kills its browser at its deadline. One shared
    browser rather than one per export: a start costs a core for seconds on a 2-core server,
    and browsers started side by side would slow each other and the app.
    """

    def __init__(self):
        self._lock = threading.Lock()
        self._loop = None
        self._kaleido = None

    def render(self, fig: go.Figure, opts: dict, timeout: float | None = None) -> bytes:
        """The figure as kaleido's bytes for ``opts``, within ``timeout`` seconds
        (:data:`EXPORT_TIMEOUT`, read now, by default) or :class:`ExportTimeout`."""
        timeout = EXPORT_TIMEOUT if timeout is None else timeout
        deadline = time.monotonic() + timeout
        if not self._lock.acquire(timeout=max(timeout, 0.0)):
            raise ExportTimeout(timeout, behind_another=True)
        try:
            from choreographer.errors import BrowserClosedError, BrowserFailedError, ChannelClosedError

            # a dying browser's pending calls end with these, or cancelled by choreographer's watchdog
            gone = (BrowserClosedError, BrowserFailedError, ChannelClosedError, FutureCancelled, asyncio.CancelledError)
            warm = self._kaleido is not None
            browser = self._open(deadline, timeout)
            try:
                return self._wait(browser.calc_fig(fig, opts=opts), browser, deadline, timeout)
            except gone:
                if not warm:
                    raise ExportUnavailable(NO_DRAW) from None
            # the warm browser died since the last export (killed, out of memory): _wait dropped
            # it, and a fresh one draws the figure within the same deadline
            browser = self._open(deadline, timeout)
            try:
                return self._wait(browser.calc_fig(fig, opts=opts), browser, deadline, timeout)
            except gone:
                raise ExportUnavailable(NO_DRAW) from None
        finally:
            self._lock.release()

    def open(self) -> None:
        """Start the browser unless it is running, or an export under way is using or starting it.

        Raises :class:`ExportTimeout` when the browser does not start within :data:`EXPORT_TIMEOUT`.
        """
        timeout = EXPORT_TIMEOUT
        if not self._lock.acquire(blocking=False):
            return
        try:
            self._open(time.monotonic() + timeout, timeout)
        finally:
            self._lock.release()

    def close(self) -> None:
        """Close the browser (the next export opens a new one).

        Waits for an export under way until its deadline at most, then closes the browser
        anyway: at exit, a hung render must not keep the process (and its browser) alive. The
        browser is asked to close first (a healthy one does in well under a second); whatever
        still runs after :data:`KILL_GRACE` is killed like a hung browser.
        """
        locked = self._lock.acquire(timeout=EXPORT_TIMEOUT + KILL_GRACE)
        try:
            browser = self._kaleido
            if browser is not None:
                self._kaleido = None
                asked = asyncio.run_coroutine_threadsafe(_cancellable(browser.close()), self._loop)
                try:
                    asked.result(timeout=KILL_GRACE)
                except Exception:  # noqa: BLE001 - it did not close by itself: it is killed below
                    asked.cancel()
                try:  # so that the browser's temporary folders are gone when the process ends
                    self._stop(browser).result(timeout=2 * KILL_GRACE + 5)
                except Exception:  # noqa: BLE001 - the processes are dead; only files may be left
                    pass
        finally:
            if locked:
                self._lock.release()

    @property
    def is_open(self) -> bool:
        return self._kaleido is not None

    def _open(self, deadline: float, timeout: float):
        """The running browser, started first if there is none (within the caller's deadline)."""
        if self._kaleido is not None:
            return self._kaleido
        try:
            import kaleido  # noqa: F401 - only to tell a missing package from a missing browser
        except ImportError:
            raise ExportUnavailable(NO_KALEIDO) from None
        from choreographer.browsers.chromium import ChromeNotFoundError

        if self._loop is None:
            self._loop = asyncio.new_event_loop()
            threading.Thread(target=self._loop.run_forever, name="kernelviz-export", daemon=True).start()
        # Built first, opened second: a start that times out leaves a browser object to kill.
        future = asyncio.run_coroutine_threadsafe(_new_browser(), self._loop)
        try:
            browser = future.result(timeout=max(0.0, deadline - time.monotonic()))
        except ChromeNotFoundError:
            raise ExportUnavailable(NO_BROWSER) from None
        except FutureTimeout:  # the loop was busy; no process was started
            future.cancel()
            raise ExportTimeout(timeout) from None
        from choreographer.errors import BrowserDepsError, BrowserFailedError

        try:
            self._wait(browser.open(), browser, deadline, timeout)
        except (BrowserFailedError, BrowserDepsError):
            # its message names the program's path on the server: the person is told in words
            raise ExportUnavailable(NO_START) from None
        process = _browser_process(browser, 0.0)
        if process is not None:
            _run_behind(process.pid)
        self._kaleido = browser
        # Registered now, after the browser made its temporary folders: atexit runs the last
        # registered first, so the browser is closed before the finalizers that remove those
        # folders run (registered at import, it ran after them, and a report run ended with
        # tempfile's "Directory not empty" traceback as Chromium still wrote its profile).
        atexit.unregister(self.close)
        atexit.register(self.close)
        return browser

    def _wait(self, coroutine, browser, deadline: float, timeout: float):
        """Run ``coroutine`` (of ``browser``) in the loop and wait for it until ``deadline``.

        A browser that failed or did not answer in time is not trusted again: it is killed,
        and the next export starts a fresh one.
        """
        future = asyncio.run_coroutine_threadsafe(_cancellable(coroutine), self._loop)
        try:
            return future.result(timeout=max(0.0, deadline - time.monotonic()))
        except BaseException as err:
            # killed before the coroutine is cancelled: cancelled inside its launch, choreographer
            # would drop the browser's process handle and the process would run on unseen
            self._stop(browser, patience=KILL_GRACE if not future.done() else 0.0)
            future.cancel()
            if isinstance(err, FutureTimeout):
                raise ExportTimeout(timeout) from None
            raise

    def _stop(self, browser, patience: float = 0.0):
        """Kill ``browser`` with every process it started, then let choreographer release its
        pipes, threads and temporary folders in the loop (returned: a future of that cleanup).

        Not kaleido's ``close()``: it asks the browser over its pipe to close, which a hung
        browser never answers; the old exporter waited a second timeout on it and left the
        browser's 9 processes running beside the next one.
        """
        if self._kaleido is browser:
            self._kaleido = None
        process = _browser_process(browser, patience)
        if process is not None:
            _kill_process_tree(process.pid, KILL_GRACE)
        return asyncio.run_coroutine_threadsafe(_forget(browser), self._loop)


def render_page():
    """The page kaleido draws figures in: plotly.js from the ``plotly`` package and kaleido's
    own script, both local files, and no MathJax (kaleido would fetch it from a CDN)."""
    import kaleido

    return kaleido.PageGenerator(mathjax=False)


async def _new_browser():
    """A kaleido browser, not started yet. Built inside the exporter's loop, which its queues
    and subprocess belong to. kaleido's own render timeout is off: the caller's deadline
    (:data:`EXPORT_TIMEOUT`) is the one that applies, and the caller kills the browser at it."""
    import kaleido

    return kaleido.Kaleido(n=1, page_generator=render_page(), timeout=None)


async def _cancellable(coroutine):
    """``coroutine``, ending as cancelled when it is cancelled. choreographer's ``open()``
    turns its cancellation into ``BrowserFailedError``, which nobody awaits any more: asyncio
    would log it as "Task exception was never retrieved" after every start that timed out."""
    try:
        return await coroutine
    except Exception:
        if asyncio.current_task().cancelling():
            raise asyncio.CancelledError from None
        raise


async def _forget(browser) -> None:
    """choreographer's cleanup of a killed browser: once its process has exited (until then,
    ``close()`` would ask it over the pipe and wait), close its pipes and remove its folders."""
    process = getattr(browser, "subprocess", None)
    for _ in range(100):
        if process is None or process.poll() is not None:
            break
        await asyncio.sleep(0.05)
    try:
        await asyncio.wait_for(browser.close(), timeout=10)
    except Exception:  # noqa: BLE001 - the processes are dead; a failed cleanup leaves files, no browser
        pass


def _browser_process(browser, patience: float):
    """The ``Popen`` of the process choreographer started for ``browser`` (its Python wrapper
    around Chromium), or None. The launch runs in one of choreographer's threads: a browser
    stopped during its start may get its process up to ``patience`` seconds later."""
    end = time.monotonic() + patience
    while (process := getattr(browser, "subprocess", None)) is None and time.monotonic() < end:
        time.sleep(0.01)
    return process


#: The export browser's niceness. PNG and SVG are made in the background while the person goes on
#: (each 1.5–2.5 s of the browser's CPU for the four-panel figure); at the server's priority they
#: took a core from the next γ step's run and from the person's browser. Not the lowest priority: a
#: click on PNG may wait for the export, and on a loaded machine a browser at 10 or 19 got so little
#: CPU that the wait neared the export's timeout (and a hung browser's kill its grace).
EXPORT_NICENESS = 5


def _run_behind(leader: int) -> None:
    """Give the browser started as ``leader`` a lower priority than the server's: :data:`EXPORT_NICENESS`
    more than the server's own niceness (at most 19), for every process of it and the processes it
    starts later (they inherit their parent's niceness).

    choreographer starts it in a session of its own, and where the kernel groups a session's
    processes for the scheduler (autogroups) the group's share counts first: its group gets the
    server's group's niceness plus as much. Relative, so a server started with ``nice`` keeps its
    export behind it, and only ever lowered; where neither can be set (no /proc, another system),
    the export runs as before.
    """
    own = _autogroup_niceness("self")
    if own is not None:
        try:
            with open(f"/proc/{leader}/autogroup", "w") as f:
                f.write(str(min(19, own + EXPORT_NICENESS)))
        except OSError:
            pass  # not ours to set
    target = min(19, os.getpriority(os.PRIO_PROCESS, 0) + EXPORT_NICENESS)
    for pid in _process_tree(leader) or (leader,):
        try:
            os.setpriority(os.PRIO_PROCESS, pid, max(target, os.getpriority(os.PRIO_PROCESS, pid)))
        except OSError:
            pass  # gone meanwhile, or not ours


def _autogroup_niceness(pid) -> int | None:
    """The niceness of the scheduler's group of process ``pid`` ("self" for this one), or None where
    the kernel does not schedule it by autogroup (none compiled in, or the process sits in a cgroup of
    its own, as in a CI runner's container: the file then reads empty)."""
    try:
        with open(f"/proc/{pid}/autogroup") as f:  # "/autogroup-123 nice 0"
            return int(f.read().split()[-1])
    except (OSError, ValueError, IndexError):
        return None


def _proc_stat(pid: int):
    """(state, parent pid, process group, start time) of a live process from /proc, or None
    when it is gone or a zombie (exited: only its exit status is left)."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            text = f.read()
    except OSError:
        return None
    fields = text[text.rindex(b")") + 2:].split()
    if fields[0] in (b"Z", b"X"):
        return None
    return fields[0], int(fields[1]), int(fields[2]), int(fields[19])


def _process_tree(leader: int) -> dict[int, int] | None:
    """Every live process of the browser started as ``leader`` (pid → start time): its process
    group, and descendants that left the group. The start time tells a survivor from a later
    process that got a freed pid. None where there is no /proc (macOS: the group is killed)."""
    try:
        pids = [int(name) for name in os.listdir("/proc") if name.isdigit()]
    except OSError:
        return None
    stats = {pid: st for pid in pids if (st := _proc_stat(pid)) is not None}
    found = {pid for pid, st in stats.items() if pid == leader or st[2] == leader}
    while new := {pid for pid, st in stats.items() if st[1] in found} - found:
        found |= new
    return {pid: stats[pid][3] for pid in found}


def _running(processes: dict[int, int]) -> dict[int, int]:
    return {pid: start for pid, start in processes.items() if (st := _proc_stat(pid)) and st[3] == start}


def _kill_process_tree(leader: int, grace: float) -> None:
    """Stop the browser started as ``leader``, with every process it started: SIGTERM, and
    SIGKILL for whatever still runs ``grace`` seconds later.

    choreographer starts the browser (a small Python wrapper, ``leader``, which starts
    Chromium) in a session and process group of its own, and Chromium's zygotes, GPU process
    and renderers stay in it: signalling the group reaches all of them, where killing the
    wrapper alone orphaned them. A process that left the group (``setsid``) while still a
    descendant is found through /proc and signalled too. SIGCONT follows SIGTERM because a
    stopped process acts on SIGTERM only once it runs again (SIGKILL needs no such help).
    """
    processes = _process_tree(leader)
    if processes is None:  # no /proc to watch them by: the group gets its grace, then SIGKILL
        for sig in (signal.SIGTERM, signal.SIGCONT):
            _signal(leader, {}, sig)
        time.sleep(grace)
        _signal(leader, {}, signal.SIGKILL)
        return
    if not processes:  # exited already
        return
    _signal(leader, processes, signal.SIGTERM)
    _signal(leader, processes, signal.SIGCONT)
    _wait_for_exit(processes, grace)
    processes.update(_process_tree(leader) or {})  # any started during the grace
    if _running(processes):
        _signal(leader, processes, signal.SIGKILL)
        _wait_for_exit(processes, grace)  # SIGKILL acts at once: this only bounds the wait for it


def _signal(leader: int, processes: dict[int, int], sig: int) -> None:
    """Send ``sig`` to the process group ``leader`` and to each of ``processes`` still running
    (those that left the group)."""
    try:
        os.killpg(leader, sig)
    except OSError:  # the group is empty
        pass
    for pid in _running(processes):
        try:
            os.kill(pid, sig)
        except OSError:  # exited meanwhile
            pass


def _wait_for_exit(processes: dict[int, int], seconds: float) -> None:
    end = time.monotonic() + seconds
    while _running(processes) and time.monotonic() < end:
        time.sleep(0.02)



_EXPORTER = _WarmExporter()


def browser_running() -> bool:
    """Whether the export browser is running (an export made since the warm-up, or the warm-up itself)."""
    return _EXPORTER.is_open


def warm_up() -> None:
    """Start the export browser now (say, in the background when the app opens), so the
    first download does not wait for it.

    Raises
    ------
    ExportUnavailable
        When no Chromium-based browser (or no kaleido) is installed.
    """
    try:
        _EXPORTER.open()
    except ExportTimeout:
        pass  # its browser was killed; the first export starts one (and says so if it cannot)
