"""Kernel evaluations in row blocks: the one chunking helper of the package.

A decision function on a 200 × 200 grid against 5000 training points would otherwise
build a 1.6 GB Gram matrix; evaluated block by block, peak memory stays near
:data:`MAX_BYTES` whatever the number of rows.
"""

import numpy as np

#: Default size of one block of float64 kernel values (64 MB).
MAX_BYTES = 64 * 2**20


def apply_in_chunks(kernel, X, Y, fn, max_bytes=None):
    """``fn(kernel(X_chunk, Y))`` over row chunks of ``X``, concatenated along axis 0.

    Parameters
    ----------
    kernel : callable
        ``kernel(A, B)`` → the (len(A), len(B)) matrix of kernel values.
    X, Y : array-like or kernelviz.kernels.Units
        Rows to chunk, and the columns every chunk is compared with.
    fn : callable
        Maps one block of kernel values to the block's result (e.g. ``K @ w + b``).
    max_bytes : int, default=None
        Largest block of float64 kernel values; None: :data:`MAX_BYTES`.

    Returns
    -------
    ndarray
        The blocks' results stacked along axis 0.

    Examples
    --------
    >>> scores = apply_in_chunks(k, grid, X_sv, lambda K: K @ dual_coef + b)
    """
    max_bytes = MAX_BYTES if max_bytes is None else max_bytes
    if len(X) == 0:
        raise ValueError("No points to evaluate.")
    rows_per_block = max(1, int(max_bytes // (8 * max(len(Y), 1))))
    return np.concatenate([fn(kernel(X[start:start + rows_per_block], Y)) for start in range(0, len(X), rows_per_block)],
                          axis=0)
