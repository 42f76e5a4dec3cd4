"""The cluster-pair engine behind CkRBF: one Gaussian per cluster, compared pair by pair.

For cluster covariances Σ_1..Σ_k and a hard assignment c(·) of points to clusters,

    K(x, y) = n_{c(x)c(y)} exp(−γ (x−y)ᵀ (Σ_{c(x)} + Σ_{c(y)})⁻¹ (x−y)),

with log n_ij = −½ log det(Σi + Σj) for the paper's scale. Everything that depends on a
cluster pair only is computed once per fit in :class:`PairTables` (whiteners,
precisions, log-normalisers, the worst condition number); :func:`gram` and
:func:`gamma_family_parts` then evaluate the quadratic forms for all point pairs, either
with lifted features (one matrix product) or with one triangular whitening per cluster
pair (higher dimensions, ill-conditioned pairs).

Normalisers stay in log space throughout: det(Σi + Σj)^(−½) overflows float64 long
before its logarithm is remarkable (d = 150 on [0, 0.01] data already needs e^830).
"""

from __future__ import annotations

import numpy as np
from scipy import linalg
from sklearn.metrics.pairwise import euclidean_distances

#: Largest log kernel value allowed. libsvm, which fits every SVM here, keeps kernel values
#: in single precision: anything above float32's maximum (3.4e38) turns into inf there and
#: the fit ends in "dual coefficients or intercepts are not finite". Refusing such values
#: up front lets the message say what works instead.
LOG_MAX = float(np.log(np.finfo(np.float32).max))

OVERFLOW_MESSAGE = (
    "Kernel values are too large: the normaliser det(Σx+Σy)^(−½) exceeds 3.4e38, the largest value an "
    "SVM (libsvm) can hold, on this data. Use normalize='unit' (every value then lies in (0, 1]) or "
    "scale the data up."
)

#: Lifted-feature path (one matrix product for the whole Gram) is used while the lifted
#: dimension k·(d² + d + 1) stays below this; above it the block path is cheaper.
MAX_LIFTED_DIM = 160

#: ... and while every Σi + Σj has a condition number below this: the lifted expansion
#: loses about machine ε × condition number (relative to the quadratic form), the whitened
#: block path only about ε × its square root.
MAX_LIFTED_CONDITION = 1e4


def whitener(S):
    """Return W with WᵀW = S⁻¹ (so ‖W(x − y)‖² is the Mahalanobis distance) and log det S."""
    L = linalg.cholesky(S, lower=True)
    W = linalg.solve_triangular(L, np.eye(len(S)), lower=True)
    return W, 2.0 * np.log(np.diag(L)).sum()


class PairTables:
    """Per cluster pair (i, j), from S_ij = Σi + Σj:

    * ``whiteners`` W_ij = L_ij⁻¹ (L_ij the Cholesky factor of S_ij), so WᵀW = S_ij⁻¹;
    * ``precisions`` P_ij = S_ij⁻¹ (formed explicitly: only as accurate as ε × cond S_ij);
    * ``log_norm`` log n_ij = −½ log det S_ij;
    * ``condition`` the largest condition number of the S_ij.
    """

    def __init__(self, covariances):
        k, d, _ = covariances.shape
        self.whiteners = np.empty((k, k, d, d))
        self.precisions = np.empty((k, k, d, d))
        self.log_norm = np.empty((k, k))
        self.condition = 1.0
        for i in range(k):
            for j in range(i, k):
                S = covariances[i] + covariances[j]
                W, log_det = whitener(S)
                self.whiteners[i, j] = self.whiteners[j, i] = W
                self.precisions[i, j] = self.precisions[j, i] = W.T @ W
                self.log_norm[i, j] = self.log_norm[j, i] = -0.5 * log_det
                eig = linalg.eigvalsh(S)  # k(k+1)/2 small eigenproblems per fit: not worth deferring
                self.condition = max(self.condition, eig[-1] / eig[0] if eig[0] > 0 else np.inf)


def unit_log_norm(log_norm):
    """log n_ij − ½ (log n_ii + log n_jj): the paper's normaliser divided by √(K(x, x) K(y, y)).

    In log space, so it stays finite where n_ij itself overflows (d in the hundreds). Each
    entry is ≤ 0, because det(½(Σi + Σj)) ≥ √(det Σi det Σj) (log det is concave): the
    unit-scale kernel has a diagonal of ones and no value above one. It is D K D with
    D = diag(n_{c(x)c(x)}^(−½)), so a PSD Gram stays PSD. A single constant could not do
    this: with the clusters' log det differing by hundreds, some cluster's diagonal would
    be e^(±hundreds) whatever the constant.
    """
    self_terms = np.diag(log_norm)
    return log_norm - 0.5 * (self_terms[:, None] + self_terms[None, :])


def cluster_centers(X, labels, k, fallback):
    """Mean of each cluster's points in ``X``; ``fallback`` (k, d) rows for clusters without any."""
    centers = np.array(fallback, dtype=np.float64, copy=True)
    counts = np.bincount(labels, minlength=k)
    sums = np.zeros_like(centers)
    np.add.at(sums, labels, X)
    filled = counts > 0
    centers[filled] = sums[filled] / counts[filled, None]
    return centers


def symmetrize(M, block=1024):
    """M ← ½(M + Mᵀ) in place, block by block (no second n × n array)."""
    n = len(M)
    for a in range(0, n, block):
        for b in range(a, n, block):
            upper = M[a:a + block, b:b + block]
            mean = 0.5 * (upper + M[b:b + block, a:a + block].T)
            M[a:a + block, b:b + block] = mean
            M[b:b + block, a:a + block] = mean.T


def cluster_quadratic(X, Y, cx, cy, centers, tables, scale, offset, same):
    """scale · (x−y)ᵀ P_{c(x)c(y)} (x−y) + offset[c(x), c(y)] for all pairs.

    Both paths expand the quadratic form, so rounding costs about machine ε × ‖P‖ × |x − m|²
    for a shift m shared by x and y: every block is shifted by its row cluster's centre
    (``centers``). The lifted path also works with P = (Σi + Σj)⁻¹ formed explicitly, whose
    error grows with the condition number of Σi + Σj: it is only used while that stays below
    ``MAX_LIFTED_CONDITION``. Regularised, rank-deficient clusters (condition numbers near
    1/ε) go to the block path, which applies the triangular whitener L⁻¹ to the points.
    A self-Gram (``same``) gets exact diagonal values. The block path's self-Gram is also
    symmetrised exactly; the lifted path's is symmetric to about ε × its condition bound
    already, and a symmetrising pass would cost more than the whole lifted product.
    """
    k, d = len(tables.log_norm), X.shape[1]
    if k * (d * d + d + 1) <= MAX_LIFTED_DIM and tables.condition <= MAX_LIFTED_CONDITION:
        out = lifted_quadratic(X, Y, cx, cy, centers, tables.precisions, scale, offset)
    else:
        out = blocked_quadratic(X, Y, cx, cy, centers, tables.whiteners, scale, offset)
        if same:
            symmetrize(out)
    if same:
        np.fill_diagonal(out, offset[cx, cx])
    return out


def lifted_quadratic(X, Y, cx, cy, centers, precisions, scale, offset):
    """All pairs with one matrix product.

    (x−y)ᵀP(x−y) = ⟨x⊗x, P⟩ − 2 xᵀ P y + yᵀ P y, so with lifted row features
    φ(x) = [x⊗x, x, 1] placed in the block of x's cluster, and column features
    ψ_i(y) = [vec P_{i c(y)}, −2 P_{i c(y)} y, yᵀ P_{i c(y)} y] for every row cluster i,
    the whole matrix is Φ Ψᵀ: no sorting, no scattering, output in the input order.
    Block i is written in coordinates centred on m_i: x − m_i and y − m_i.
    """
    n, d = X.shape
    k = len(precisions)
    p = d * d + d + 1
    Xc = X - centers[cx]
    phi_x = np.concatenate([(Xc[:, :, None] * Xc[:, None, :]).reshape(n, d * d), Xc, np.ones((n, 1))], axis=1)
    Phi = np.zeros((n, k * p))
    for i in range(k):
        rows = cx == i
        Phi[rows, i * p:(i + 1) * p] = phi_x[rows]
    m = len(Y)
    Psi = np.empty((m, k * p))
    for i in range(k):
        Yc = Y - centers[i]
        P = precisions[i, cy]                      # (m, d, d): P_{i, c(y)} per column point
        Py = np.einsum("mab,mb->ma", P, Yc)
        block = Psi[:, i * p:(i + 1) * p]
        block[:, :d * d] = scale * P.reshape(m, d * d)
        block[:, d * d:d * d + d] = -2.0 * scale * Py
        block[:, -1] = scale * np.einsum("ma,ma->m", Py, Yc) + offset[i, cy]
    return Phi @ Psi.T


def blocked_quadratic(X, Y, cx, cy, centers, whiteners, scale, offset):
    """One whitening W_ij = L_ij⁻¹ per cluster pair, centred on the row cluster; for higher
    dimensions and ill-conditioned covariances."""
    out = np.empty((len(X), len(Y)))
    k = len(whiteners)
    for i in range(k):
        rows = np.flatnonzero(cx == i)
        if len(rows) == 0:
            continue
        Xi = X[rows] - centers[i]
        for j in range(k):
            cols = np.flatnonzero(cy == j)
            if len(cols) == 0:
                continue
            W = whiteners[i, j]                                   # WᵀW = (Σi + Σj)⁻¹
            block = euclidean_distances(Xi @ W.T, (Y[cols] - centers[i]) @ W.T, squared=True)
            block *= scale
            block += offset[i, j]
            out[np.ix_(rows, cols)] = block
    return out


def gamma_family_parts(X, Y, cx, cy, centers, tables, log_norm, same):
    """D (the γ-free quadratic forms) and log n (per pair, from ``log_norm``) with K_γ = exp(log n − γ D)."""
    D = cluster_quadratic(X, Y, cx, cy, centers, tables, 1.0, np.zeros_like(log_norm), same)
    np.maximum(D, 0.0, out=D)
    return D, log_norm[np.ix_(cx, cy)]


def gram(X, Y, cx, cy, centers, tables, log_norm, gamma, same):
    """K_γ = exp(log n_{c(x)c(y)} − γ D) with ``log_norm`` the (k, k) log-normalisers."""
    if log_norm.max() > LOG_MAX:
        raise ValueError(OVERFLOW_MESSAGE)
    # The exponent comes out of one fused pass, then one exp: cheaper than D, then n·exp(−γD).
    E = cluster_quadratic(X, Y, cx, cy, centers, tables, -gamma, log_norm, same)
    # Rounding in the expanded form can leave −γD a hair above 0; K(x, y) ≤ n_ij always.
    np.minimum(E, log_norm.max(), out=E)
    return np.exp(E, out=E)
