"""Matrix helpers shared by the kernel tests."""

import numpy as np


def spd(rng, d, scale=1.0):
    """A random symmetric positive definite d × d matrix (eigenvalues at least 0.1·scale)."""
    A = rng.normal(size=(d, d))
    return scale * (A @ A.T / d + 0.1 * np.eye(d))


def min_relative_eigenvalue(K):
    """The smallest eigenvalue of K's symmetric part, relative to the largest in magnitude."""
    eig = np.linalg.eigvalsh(0.5 * (K + K.T))
    return eig[0] / np.abs(eig).max()
