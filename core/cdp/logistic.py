"""CDP-LR: logistic regression under correlated differential privacy (Algorithm 2 of paper 000).

The model is full-batch gradient descent on the cross-entropy (Eq. 9-11). Each record's
gradient term x_i (p_i - y_i) is clipped to norm ``clip_norm`` (L1; L2 for the Gaussian
method and for output perturbation). Under the project's neighbouring relation (one record
replaced by any other, N public; docs/design.md section 2) a replaced record's term can
move from +clip to -clip, and under correlated DP the CS records correlated with it move
too, so the summed gradient moves by at most ``2 * CS * clip_norm`` and the mean gradient
by that over N. Clipping a record's term is clipping the scalar p_i - y_i to
``clip_norm / ||x_i||``, so the whole epoch is two matrix-vector products. The budget is
split evenly over the epochs (sequential composition) and every spend is written to
``ledger_``, whose ``is_dp`` is False for method 0 (no noise) and method 4 (noise on N
only).
"""
from __future__ import annotations

import numbers
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin

from core.correlation import correlated_sensitivity
from core.mechanisms import PrivacyLedger, gaussian_sigma, laplace_scale
from core.threads import blas_limit
from core.validation import (
    DataError,
    RandomState,
    check_delta,
    check_epsilon,
    check_positive_int,
    check_random_state,
    check_sensitivity,
)

__all__ = ["NOISE_METHODS", "NOISE_METHOD_MEANING", "DP_METHODS", "CDPLogisticRegression", "PRESETS"]


#: Table 3 of paper 000: what each noise method perturbs.
NOISE_METHODS = {
    0: "No noise (non-private)",
    1: "Laplace noise on the mean gradient",
    2: "Gaussian noise on the mean gradient",
    3: "Laplace noise on the summed gradient",
    4: "Laplace noise on the sample size N only",
    5: "Laplace noise on the summed gradient and on N",
    6: "Laplace-type noise on the final weights (output perturbation)",
}

#: What each method protects, in one sentence (shown beside the control).
NOISE_METHOD_MEANING = {
    0: "Not differentially private: no noise, the weights are computed from the raw data.",
    1: "epsilon-DP for the weights: every epoch's mean gradient gets Laplace noise of scale 2 * CS * clip / (N * epsilon / epochs).",
    2: "(epsilon, delta)-DP for the weights: Gaussian noise on every epoch's mean gradient (L2 clipping, L2 sensitivity 2 * CS * clip / N).",
    3: "epsilon-DP for the weights: Laplace noise of scale 2 * CS * clip / (epsilon / epochs) on every epoch's summed gradient, then divided by the public N (same distribution as method 1).",
    4: "Not differentially private: only the sample size N gets noise (and N is public), the gradients get none.",
    5: "(epsilon / 2)-DP for the weights: the paper spends half of each epoch's budget on N, which is public, so only the half on the summed gradient buys privacy.",
    6: "epsilon-DP for the weights: the L2-regularised optimum gets noise scaled to 2 * CS * clip / (N * l2) (Chaudhuri et al. 2011).",
}

#: The noise methods whose weights are differentially private.
DP_METHODS = frozenset({1, 2, 3, 5, 6})

#: The paper's Table 2 / Fig. 5 settings and a setting that learns.
PRESETS = {
    "paper": {"learning_rate": 1e-6, "epochs": 100, "clip_norm": 1.0, "delta": 0.2},
    "sensible": {"learning_rate": 3.0, "epochs": 5, "clip_norm": 1.0, "delta": 1e-5},
}


def _as_design(X: Any) -> Any:
    """Float64 design matrix; sparse (CSR) when that makes the two products per epoch cheaper."""
    if sparse.issparse(X):
        M = sparse.csr_matrix(X, dtype=np.float64)
        if not np.all(np.isfinite(M.data)):
            raise DataError("X has missing or infinite values; drop or fill them first.")
        return M
    if isinstance(X, (str, bytes)) or X is None:
        raise TypeError(f"X must be a 2-D numeric array, got {type(X).__name__}.")
    try:
        A = np.asarray(X, dtype=np.float64)
    except (TypeError, ValueError) as exc:
        raise TypeError("X must be a 2-D numeric array.") from exc
    if A.ndim != 2:
        raise ValueError(f"X must be 2-D (records x features), got {A.ndim} dimension(s).")
    if not np.all(np.isfinite(A)):
        raise DataError("X has missing or infinite values; drop or fill them first.")
    return A


class CDPLogisticRegression(ClassifierMixin, BaseEstimator):
    """Logistic regression trained under correlated differential privacy (CDP-LR).

    Parameters
    ----------
    epsilon : float
        Privacy budget of training under the project's neighbouring relation (split evenly
        over the epochs for methods 1-5, spent once for method 6). Method 5 delivers only
        epsilon / 2 (its other half noises the public N); methods 0 and 4 deliver none, and
        their ``ledger_.is_dp`` is False.
    noise_method : int, 0..6
        Where the noise goes (Table 3; see :data:`NOISE_METHODS`). Method 4 protects only
        the sample size, not the weights.
    sensitivity : {"correlated", "group"} or float
        "correlated" uses CS (Eq. 16), "group" uses GS (every correlated record counted as
        one more record), both computed from the record matrix in :meth:`fit`; a float is a
        sensitivity computed beforehand (so that a slider can refit without recomputing
        it). It multiplies every noise scale.
    threshold : float
        delta0 of the record correlation when ``sensitivity`` is a string.
    measure : {"pearson", "mahalanobis"}
        Record-correlation measure when ``sensitivity`` is a string.
    epochs : int
        Full-batch gradient steps. More epochs split the budget thinner.
    learning_rate : float
        Step size gamma (the paper's Table 2 used 1e-6, which leaves the weights near 0).
    clip_norm : float
        Bound on each record's gradient term (L1; L2 for methods 2 and 6). Smaller clips
        less noise but more signal.
    delta : float
        Total delta of the Gaussian method (split over the epochs).
    l2 : float
        Regularisation strength of method 6 (output perturbation needs a strongly convex
        objective; larger l2 means less noise and more bias).
    fit_intercept : bool
        Learn a bias (a constant feature, clipped and noised like the others).
    random_state : int, Generator or None
        Source of all noise.

    Attributes
    ----------
    coef_ : ndarray of shape (1, d)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    sensitivity_ : float
        The count sensitivity (CS or GS) used.
    ledger_ : PrivacyLedger
        Every spend of the fit.
    """

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        noise_method: int = 1,
        sensitivity: str | float = "correlated",
        threshold: float = 0.8,
        measure: str = "pearson",
        epochs: int = 100,
        learning_rate: float = 1.0,
        clip_norm: float = 1.0,
        delta: float = 1e-5,
        l2: float = 0.1,
        fit_intercept: bool = True,
        random_state: RandomState = None,
    ) -> None:
        self.epsilon = epsilon
        self.noise_method = noise_method
        self.sensitivity = sensitivity
        self.threshold = threshold
        self.measure = measure
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.clip_norm = clip_norm
        self.delta = delta
        self.l2 = l2
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> tuple[int, float, int, float, float]:
        method = self.noise_method
        if isinstance(method, bool) or not isinstance(method, numbers.Integral):
            raise TypeError(f"noise_method must be an integer 0..6, got {type(method).__name__}.")
        if method not in NOISE_METHODS:
            raise ValueError(f"noise_method must be one of 0..6 (Table 3), got {method}.")
        eps = check_epsilon(self.epsilon)
        epochs = check_positive_int(self.epochs, name="epochs")
        lr = self.learning_rate
        if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
            raise TypeError(f"learning_rate must be a number, got {type(lr).__name__}.")
        if not (np.isfinite(lr) and lr > 0):
            raise ValueError(f"learning_rate must be a finite number > 0, got {lr}.")
        clip = check_sensitivity(self.clip_norm, name="clip_norm")
        if clip == 0:
            raise ValueError("clip_norm must be greater than 0: a zero bound clips every gradient away.")
        return int(method), eps, epochs, float(lr), clip

    def _resolve_sensitivity(self, record_X: Any) -> float:
        s = self.sensitivity
        if isinstance(s, str):
            if s not in ("correlated", "group"):
                raise ValueError(f"sensitivity must be 'correlated', 'group' or a number, got {s!r}.")
            if sparse.issparse(record_X):
                record_X = record_X.toarray()
            rep = correlated_sensitivity(record_X, measure=self.measure, threshold=self.threshold)
            return rep.correlated if s == "correlated" else rep.group
        value = check_sensitivity(s)
        if value <= 0:
            raise ValueError("sensitivity must be greater than 0 (CS and GS are at least 1).")
        return value

    # ------------------------------------------------------------------ fit
    def fit(self, X: Any, y: Any, record_X: Any = None) -> "CDPLogisticRegression":
        """Train with noise as chosen.

        Parameters
        ----------
        X : array_like or sparse matrix of shape (n, d)
            Training features (scaled; one-hot categoricals are fine).
        y : array_like of shape (n,)
            Two classes.
        record_X : array_like of shape (n, m), optional
            Record matrix that CS / GS are computed on when ``sensitivity`` is a string
            (one standardised column per attribute); default ``X``.
        """
        method, eps, epochs, lr, clip = self._check_params()
        Xd = _as_design(X)
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != Xd.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({Xd.shape[0]}).")
        classes = np.sort(pd.unique(y))  # hashing, not sorting all n labels as np.unique would
        if len(classes) != 2:
            raise DataError(
                f"CDP-LR is a binary classifier; the label has {len(classes)} class(es)."
            )
        n = Xd.shape[0]
        if n < 2:
            raise DataError("Training needs at least 2 records.")
        self.classes_ = classes
        yb = (y == classes[1]).astype(np.float64)
        self.sensitivity_ = float(self._resolve_sensitivity(Xd if record_X is None else record_X))
        rng = check_random_state(self.random_state)
        if self.fit_intercept:
            ones = np.ones((n, 1))
            Xd = sparse.hstack([Xd, ones], format="csr") if sparse.issparse(Xd) else np.hstack([Xd, ones])
        if not sparse.issparse(Xd) and Xd.size and np.count_nonzero(Xd) < 0.3 * Xd.size:
            Xd = sparse.csr_matrix(Xd)  # one-hot data: the products touch only the nonzeros
        self.ledger_ = self._new_ledger(method)
        if method == 6:
            w = self._fit_output_perturbation(Xd, yb, eps, clip, rng)
        else:
            w = self._fit_gradient(Xd, yb, method, eps, epochs, lr, clip, rng)
        if self.fit_intercept:
            self.coef_, self.intercept_ = w[None, :-1], w[-1:]
        else:
            self.coef_, self.intercept_ = w[None, :], np.zeros(1)
        self.n_features_in_ = self.coef_.shape[1]
        return self

    def _new_ledger(self, method: int) -> PrivacyLedger:
        """An empty ledger that already says what the fit's guarantee is and assumes."""
        ledger = PrivacyLedger()
        if method == 0:
            ledger.mark_not_dp("Noise method 0 adds no noise: the weights are computed from the raw data.")
        elif method == 4:
            ledger.mark_not_dp("Noise method 4 adds noise to the sample size N only, which is public; "
                               "the gradients, and so the weights, get no noise.")
        else:
            source = "computed from the raw records, as paper 000 does" if isinstance(
                self.sensitivity, str) else "given, and taken as public"
            ledger.assume(f"The correlated sensitivity ({self.sensitivity_:.4g}, the number of records that "
                          f"move with one) is {source}; the guarantee holds when it bounds the correlation.")
            if method == 5:
                ledger.assume("Method 5 spends half of each epoch's budget on the sample size N, which the "
                              "relation treats as public, so only the other half is a privacy spend.")
        return ledger

    @staticmethod
    def _row_norms(Xd: Any, order: int) -> np.ndarray:
        if sparse.issparse(Xd):
            data = np.abs(Xd.data) if order == 1 else Xd.data**2
            sums = np.add.reduceat(data, Xd.indptr[:-1]) if len(data) else np.zeros(Xd.shape[0])
            sums[np.diff(Xd.indptr) == 0] = 0.0
            return sums if order == 1 else np.sqrt(sums)
        return np.abs(Xd).sum(axis=1) if order == 1 else np.sqrt(np.einsum("ij,ij->i", Xd, Xd))

    def _fit_gradient(self, Xd, yb, method, eps, epochs, lr, clip, rng) -> np.ndarray:
        n, d = Xd.shape
        cs = self.sensitivity_
        norms = self._row_norms(Xd, 2 if method == 2 else 1)
        with np.errstate(divide="ignore"):
            cap = np.where(norms > 0, clip / norms, np.inf)  # |p_i - y_i| <= cap_i
        if sparse.issparse(Xd):
            XT = Xd.T.tocsr()
        else:  # column-major X: both X @ w and X.T @ s stream contiguous memory
            Xd = np.asfortranarray(Xd)
            XT = Xd.T
        eps_e = eps / epochs
        # one replaced record and its correlated ones move the summed gradient by 2 * CS * clip
        sum_sens = 2.0 * cs * clip
        scale = scale_n = sigma = d_e = 0.0
        if method in (1, 3):
            scale = laplace_scale(sensitivity=sum_sens, epsilon=eps_e)  # of the sum
        elif method == 2:
            d_e = check_delta(self.delta) / epochs
            calib = "classic" if eps_e < 1 else "analytic"
            sigma = gaussian_sigma(sensitivity=sum_sens / n, epsilon=eps_e, delta=d_e, calibration=calib)
        elif method == 4:
            scale_n = laplace_scale(sensitivity=cs, epsilon=eps_e)  # the paper's scale on N
        elif method == 5:
            scale = laplace_scale(sensitivity=sum_sens, epsilon=eps_e / 2)
            scale_n = laplace_scale(sensitivity=cs, epsilon=eps_e / 2)
        with blas_limit(1):  # thin products: threads only cost
            return self._epochs(Xd, XT, yb, cap, method, eps_e, epochs, lr, rng,
                                scale=scale, scale_n=scale_n, sigma=sigma, d_e=d_e)

    def _epochs(self, Xd, XT, yb, cap, method, eps_e, epochs, lr, rng, *, scale, scale_n, sigma,
                d_e) -> np.ndarray:
        """The gradient steps; ``scale`` (sum), ``scale_n`` (N) and ``sigma`` are the noise scales."""
        n, d = Xd.shape
        w = np.zeros(d)
        for t in range(epochs):
            z = Xd @ w
            s = np.clip(expit(z) - yb, -cap, cap)
            g = XT @ s  # clipped summed gradient dw
            if method == 0:
                mean = g / n
            elif method in (1, 3):
                # 1 adds Lap(CS*clip/(N eps_e)) to the mean, 3 adds Lap(CS*clip/eps_e) to the
                # sum and divides by the public N: the same distribution.
                mean = (g + rng.laplace(0.0, scale, size=d)) / n
                self.ledger_.spend(eps_e, label=f"epoch {t + 1}: {'mean' if method == 1 else 'summed'} gradient")
            elif method == 2:
                mean = g / n + rng.normal(0.0, sigma, size=d)
                self.ledger_.spend(eps_e, d_e, label=f"epoch {t + 1}: mean gradient (Gaussian)")
            elif method == 4:
                n_noisy = max(1.0, n + rng.laplace(0.0, scale_n))
                mean = g / n_noisy
                self.ledger_.spend(eps_e, label=f"epoch {t + 1}: sample size (nominal)")
            else:  # 5
                g_noisy = g + rng.laplace(0.0, scale, size=d)
                n_noisy = max(1.0, n + rng.laplace(0.0, scale_n))
                mean = g_noisy / n_noisy
                # N is public under the relation: its half of the budget protects nothing
                self.ledger_.spend(eps_e / 2, label=f"epoch {t + 1}: summed gradient")
            w -= lr * mean
        return w

    def _fit_output_perturbation(self, Xd, yb, eps, clip, rng) -> np.ndarray:
        l2 = self.l2
        if isinstance(l2, bool) or not isinstance(l2, numbers.Real) or not (np.isfinite(l2) and l2 > 0):
            raise ValueError(f"l2 must be a finite number > 0 for output perturbation, got {l2!r}.")
        n, d = Xd.shape
        norms = self._row_norms(Xd, 2)
        with np.errstate(divide="ignore"):
            cap = np.where(norms > 0, clip / norms, np.inf)
        c = np.minimum(cap, 1.0)
        huber = c < 1.0
        u0 = np.zeros(n)
        u0[huber] = np.log1p(-c[huber]) - np.log(c[huber])  # logit(1 - c)
        sign = 2.0 * yb - 1.0
        h0 = -log_expit(u0)

        def objective(w: np.ndarray) -> tuple[float, np.ndarray]:
            u = sign * (Xd @ w)
            below = huber & (u < u0)
            loss = np.where(below, h0 + c * (u0 - u), -log_expit(u))
            dh = np.where(below, -c, -expit(-u))
            grad = Xd.T @ (dh * sign) / n + l2 * w
            return float(loss.mean() + 0.5 * l2 * w @ w), np.asarray(grad).ravel()

        res = minimize(objective, np.zeros(d), jac=True, method="L-BFGS-B",
                       options={"maxiter": 1000, "gtol": 1e-10, "ftol": 1e-14})
        w = res.x
        # Chaudhuri et al. (2011), Alg. 1: density ~ exp(-eps ||b|| / s) with L2 sensitivity s
        s = 2.0 * self.sensitivity_ * clip / (n * l2)
        radius = rng.gamma(shape=d, scale=s / eps)
        direction = rng.normal(size=d)
        direction /= np.linalg.norm(direction)
        self.ledger_.spend(eps, label="final weights (output perturbation)")
        return w + radius * direction

    # ------------------------------------------------------------------ predict
    def decision_function(self, X: Any) -> np.ndarray:
        """w^T x + b for each row."""
        Xd = _as_design(X)
        return np.asarray(Xd @ self.coef_.ravel()).ravel() + self.intercept_[0]

    def predict_proba(self, X: Any) -> np.ndarray:
        """Posterior (Eq. 6-7): columns P(classes_[0]), P(classes_[1])."""
        p = expit(self.decision_function(X))
        return np.column_stack([1 - p, p])

    def predict(self, X: Any) -> np.ndarray:
        """classes_[1] where the posterior is at least 0.5."""
        return self.classes_[(self.decision_function(X) >= 0).astype(int)]

    def score(self, X: Any, y: Any, sample_weight: Any = None) -> float:
        """Accuracy (Eq. 21): share of rows whose predicted class is ``y``.

        Computed directly (sklearn's ``accuracy_score`` validation costs more than the fit
        on small data, and the dashboard scores on every slider move).
        """
        y = np.asarray(y)
        hit = (self.predict(X) == y).astype(float)
        if sample_weight is None:
            return float(hit.mean())
        return float(np.average(hit, weights=np.asarray(sample_weight, dtype=float)))
