"""The one way kernelviz reaches a Dask cluster, for every command that can run on one
(``kernelviz grid --scheduler``, ``kernelviz reproduce --scheduler``).

Dask is an optional dependency (``pip install 'kernelviz[dask]'``): it is imported only here,
and only when a scheduler is named.
"""

from __future__ import annotations

import contextlib

#: How long to wait for a Dask scheduler to answer before giving up.
SCHEDULER_TIMEOUT = "10s"


class SchedulerUnavailable(ValueError):
    """No Dask client could be made: Dask is not installed, or the scheduler does not answer."""


@contextlib.contextmanager
def client(address: str):
    """A Dask client connected to the scheduler at ``address`` (closed on exit)."""
    try:
        from dask.distributed import Client
    except ImportError:
        raise SchedulerUnavailable("--scheduler needs Dask: install it with pip install 'kernelviz[dask]'.") from None
    try:
        connected = Client(address, timeout=SCHEDULER_TIMEOUT)
    except (OSError, TimeoutError, ValueError) as exc:
        raise SchedulerUnavailable(f"cannot reach the Dask scheduler at {address!r}: {exc}") from None
    with connected:
        yield connected
