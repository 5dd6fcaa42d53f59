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
only). Everything that differs between the noise methods (name, guarantee, ledger entries,
noise scales, gradient step) is one row of :data:`NOISE_PLACEMENTS`
(:mod:`core.cdp.noise_placement`): the paper's seven (0..6) and method 7, beyond the paper,
whose epochs a privacy-loss-distribution accountant composes (one ledger entry for the
whole training with the accountant's (epsilon, delta)).

By default the number of epochs and the step size come from
:func:`core.cdp.schedule.auto_schedule`, a rule that reads only public quantities (N,
epsilon, the sensitivity, ``clip_norm`` and the noise method), never X or y: more budget
per correlated group (N x epsilon / CS) buys more, cheaper epochs. The automatic schedule adds heavy-ball momentum, which only combines the
noisy gradients already released (post-processing): the noise scale, the neighbouring
relation and the ledger are those of plain gradient descent with the same epochs.
"""
from __future__ import annotations

import numbers
from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd
from scipy import sparse
from scipy.optimize import minimize
from scipy.special import expit, log_expit
from sklearn.base import BaseEstimator, ClassifierMixin

from core.cdp.linear_outputs import BinaryLinearOutputs
from core.cdp.noise_placement import (
    NOISE_PLACEMENTS,
    Calibration,
    NoisePlacement,
    NoiseScales,
)
from core.cdp.schedule import DEFAULT_NOISE_METHOD, auto_noise_method, auto_schedule
from core.correlation import correlated_sensitivity
from core.privacy.ledger import PrivacyLedger
from core.privacy.sampler import RoundDraws
from core.runtime.randomness import RandomState, check_random_state
from core.runtime.threads import blas_limit
from core.validation import (
    DataError,
    check_choice,
    check_epsilon,
    check_positive_int,
    check_sensitivity,
)

__all__ = ["CDPLogisticRegression", "SENSITIVITY_SOURCES"]


#: Where a numeric ``sensitivity`` came from (the schema's sources): only "read from data"
#: breaks the guarantee.
SENSITIVITY_SOURCES = ("declared", "built-in", "private estimate", "read from data")


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


def _check_noise_method(method: int) -> None:
    """Refuse a method outside :data:`NOISE_PLACEMENTS`, naming each valid one."""
    try:
        check_choice(method, NOISE_PLACEMENTS, name="noise_method")
    except ValueError as exc:
        choices = ", ".join(f"{m} ({p.name})" for m, p in NOISE_PLACEMENTS.items())
        raise ValueError(f"{exc} The methods (Table 3 and beyond): {choices}.") from None


def _is_auto(value: Any, name: str) -> bool:
    if isinstance(value, str):
        if value != "auto":
            raise ValueError(f"{name} must be a number or 'auto', got {value!r}.")
        return True
    return False


class CDPLogisticRegression(BinaryLinearOutputs, ClassifierMixin, BaseEstimator):
    """Logistic regression trained under correlated differential privacy (CDP-LR).

    Parameters
    ----------
    epsilon : float
        Privacy budget of training under the project's neighbouring relation (split evenly
        over the epochs for methods 1-5, spent once for method 6). Method 5 delivers only
        epsilon / 2 (its other half noises the public N); methods 0 and 4 deliver none, and
        their ``ledger_.is_dp`` is False.
    noise_method : int, 0..7, or "auto"
        Where the noise goes (Table 3; see :data:`core.cdp.schedule.NOISE_METHODS`). Method 4 protects only
        the sample size, not the weights. Method 7 (not in the paper) is method 2's Gaussian
        noise with the epochs composed by a PLD accountant instead of split evenly:
        (epsilon, delta)-DP. Method 1 is the paper's Laplace noise on the gradient (pure
        epsilon-DP). "auto" (the default) is 7, or 1 where ``N epsilon / sensitivity`` is
        below 300 (:func:`auto_noise_method`; public quantities only); ``noise_method_``
        and the ledger say which.
    sensitivity : {"correlated", "group"} or float
        "correlated" uses CS (Eq. 16), "group" uses GS (every correlated record counted as
        one more record), both computed from the record matrix in :meth:`fit` (paper 000's
        reading: not differentially private, the ledger says so); a float is a bound on how
        many records move with one (1 for ordinary DP; a declared group size), whose origin
        ``sensitivity_source`` states. It multiplies every noise scale.
    threshold : float
        delta0 of the record correlation when ``sensitivity`` is a string.
    measure : {"pearson", "mahalanobis"}
        Record-correlation measure when ``sensitivity`` is a string.
    epochs : int or "auto"
        Full-batch gradient steps. More epochs split the budget thinner. "auto" (the
        default) takes them from :func:`auto_schedule`, which reads only public quantities
        (N, epsilon, the sensitivity, ``clip_norm`` and the noise method), never X or y.
    learning_rate : float or "auto"
        Step size gamma (the paper's Table 2 used 1e-6, which leaves the weights near 0).
        "auto" (the default) is :func:`auto_schedule`'s ``50 / clip_norm`` (15 for L2
        clipping), with momentum.
    momentum : float or "auto"
        Heavy-ball momentum on the noisy mean gradients (post-processing of what each
        epoch releases: no change to the noise or the ledger). "auto" means 0.5 when
        ``learning_rate`` is "auto" and 0 (the paper's plain gradient descent) otherwise.
    clip_norm : float
        Bound on each record's gradient term (L1; L2 for methods 2 and 6). Smaller clips
        less noise but more signal.
    delta : float
        Total delta of the Gaussian methods (split over the epochs by method 2, the
        accountant's target for method 7).
    l2 : float
        Regularisation strength of method 6 (output perturbation needs a strongly convex
        objective; larger l2 means less noise and more bias).
    fit_intercept : bool
        Learn a bias (a constant feature, clipped and noised like the others).
    sensitivity_source : {"declared", "built-in", "private estimate", "read from data"}
        Where a numeric ``sensitivity`` came from. "read from data" (CS or GS computed on
        the records, as paper 000 does) makes the fit not differentially private: one record
        can move the noise scale. The others are public bounds: the ledger says the
        guarantee covers a correlated group of that many records (one record when 1).
        A string ``sensitivity`` is always read from the data.
    random_state : int, Generator or None
        Source of all noise (the exact sampler of :mod:`core.privacy.sampler`; method 6's gamma
        radius is floating point and the ledger says so).

    Notes
    -----
    Nothing in :meth:`fit` reads a range from ``X``: each record's gradient term is clipped
    by its own norm, and the schedule reads only N, epsilon, the sensitivity and the clip.
    Encoding and scaling ``X`` without reading the rows (from a public schema:
    :func:`core.cdp.dp_reading.schema_matrix`) is the caller's job; a scaler fitted on the
    rows makes the whole release depend on every record outside the noise.

    Attributes
    ----------
    coef_ : ndarray of shape (1, d)
    intercept_ : ndarray of shape (1,)
    classes_ : ndarray of shape (2,)
    sensitivity_ : float
        The count sensitivity (CS or GS) used.
    noise_method_ : int
        The noise method used (``noise_method``, or what "auto" resolved to).
    epochs_, learning_rate_, momentum_ : int, float, float
        The schedule used (``epochs`` etc. as given, or as :func:`auto_schedule` chose).
    ledger_ : PrivacyLedger
        Every spend of the fit.
    """

    def __init__(
        self,
        *,
        epsilon: float = 1.0,
        noise_method: int | str = DEFAULT_NOISE_METHOD,
        sensitivity: str | float = "correlated",
        threshold: float = 0.8,
        measure: str = "pearson",
        epochs: int | str = "auto",
        learning_rate: float | str = "auto",
        momentum: float | str = "auto",
        clip_norm: float = 1.0,
        delta: float = 1e-5,
        l2: float = 0.1,
        fit_intercept: bool = True,
        sensitivity_source: str = "declared",
        random_state: RandomState = None,
    ) -> None:
        self.epsilon = epsilon
        self.noise_method = noise_method
        self.sensitivity = sensitivity
        self.sensitivity_source = sensitivity_source
        self.threshold = threshold
        self.measure = measure
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.momentum = momentum
        self.clip_norm = clip_norm
        self.delta = delta
        self.l2 = l2
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    # ------------------------------------------------------------------ checks
    def _check_params(self) -> tuple[int | None, float, int | None, float | None, float | None, float]:
        """Method, epsilon, epochs, learning rate, momentum (None where "auto") and clip."""
        method = self.noise_method
        if isinstance(method, str) and method == "auto":
            method = None
        elif isinstance(method, bool) or not isinstance(method, numbers.Integral):
            raise TypeError(f"noise_method must be an integer 0..{max(NOISE_PLACEMENTS)} or 'auto', "
                            f"got {type(method).__name__}.")
        if method is not None:
            _check_noise_method(method)
        eps = check_epsilon(self.epsilon)
        epochs = None if _is_auto(self.epochs, "epochs") else check_positive_int(self.epochs, name="epochs")
        lr = None
        if not _is_auto(self.learning_rate, "learning_rate"):
            lr = self.learning_rate
            if isinstance(lr, bool) or not isinstance(lr, numbers.Real):
                raise TypeError(f"learning_rate must be a number or 'auto', got {type(lr).__name__}.")
            if not (np.isfinite(lr) and lr > 0):
                raise ValueError(f"learning_rate must be a finite number > 0, got {lr}.")
            lr = float(lr)
        mom = None
        if not _is_auto(self.momentum, "momentum"):
            mom = self.momentum
            if isinstance(mom, bool) or not isinstance(mom, numbers.Real):
                raise TypeError(f"momentum must be a number or 'auto', got {type(mom).__name__}.")
            if not (0 <= mom < 1):
                raise ValueError(f"momentum must be in [0, 1), got {mom}.")
            mom = float(mom)
        clip = check_sensitivity(self.clip_norm, name="clip_norm")
        if clip == 0:
            raise ValueError("clip_norm must be greater than 0: a zero bound clips every gradient away.")
        return None if method is None else int(method), eps, epochs, lr, mom, clip

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
        method, eps, epochs, lr, mom, clip = self._check_params()
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
        if method is None:  # "auto": from N, epsilon and the sensitivity, never the records
            method = auto_noise_method(n=n, epsilon=eps, sensitivity=self.sensitivity_)
        self.noise_method_ = method
        # the schedule reads public quantities only: N, epsilon, the sensitivity, clip, method
        auto_epochs, auto_lr, auto_mom = auto_schedule(n=n, epsilon=eps, sensitivity=self.sensitivity_,
                                                       clip_norm=clip, noise_method=method)
        self.epochs_ = auto_epochs if epochs is None else epochs
        self.learning_rate_ = auto_lr if lr is None else lr
        self.momentum_ = mom if mom is not None else (auto_mom if lr is None else 0.0)
        epochs, lr = self.epochs_, self.learning_rate_
        rng = check_random_state(self.random_state)
        if self.fit_intercept:
            ones = np.ones((n, 1))
            Xd = sparse.hstack([Xd, ones], format="csr") if sparse.issparse(Xd) else np.hstack([Xd, ones])
        if not sparse.issparse(Xd) and Xd.size and np.count_nonzero(Xd) < 0.3 * Xd.size:
            Xd = sparse.csr_matrix(Xd)  # one-hot data: the products touch only the nonzeros
        placement = NOISE_PLACEMENTS[method]
        self.ledger_ = self._new_ledger(placement)
        calibration = Calibration(epsilon=eps, delta=self.delta, epochs=epochs, n=n,
                                  cs=self.sensitivity_, clip=clip)
        if placement.step is None:
            w = self._fit_output_perturbation(Xd, yb, placement, calibration, rng)
        else:
            w = self._fit_gradient(Xd, yb, placement, calibration, lr, rng)
        self._set_weights(w)
        return self

    def _sensitivity_from_records(self) -> bool:
        """True when the sensitivity was read from the records (computed in :meth:`fit`, or a
        number whose ``sensitivity_source`` says so)."""
        if isinstance(self.sensitivity, str):
            return True
        src = check_choice(self.sensitivity_source, SENSITIVITY_SOURCES, name="sensitivity_source", kind=str)
        return src == "read from data"

    def _new_ledger(self, placement: NoisePlacement) -> PrivacyLedger:
        """An empty ledger that already says what the fit's guarantee is and covers.

        A sensitivity read from the records (a string ``sensitivity``, or
        ``sensitivity_source="read from data"``) marks the fit not DP: one record can move
        it, and with it the noise (docs/design.md section 2.1). A public one is stated as
        what the guarantee covers: one record (sensitivity 1) or a correlated group of that
        many records."""
        ledger = PrivacyLedger()
        if not placement.is_dp:
            ledger.mark_not_dp(placement.not_dp_reason)
        s = self.sensitivity_
        if self._sensitivity_from_records():
            what = "group sensitivity GS" if self.sensitivity == "group" else "correlated sensitivity CS"
            ledger.mark_not_dp(f"The {what} ({s:.4g}) is computed from your records, so one record can move "
                               "the noise scale.")
        if not placement.is_dp:
            return ledger
        if not ledger.not_dp_reasons:
            if s <= 1.0:
                ledger.assume(f"The noise covers one record (sensitivity {s:.4g}), not a correlated group.")
            else:
                ledger.assume(f"The noise covers a correlated group of up to {s:.4g} records (a "
                              f"{self.sensitivity_source} bound, not read from the records).")
        for text in placement.assumptions:
            ledger.assume(text)
        if placement.floating_point:
            ledger.note_floating_point(placement.floating_point)
        return ledger

    def _spend(self, placement: NoisePlacement, epsilon: float, scales: NoiseScales, label: str,
               noise: Any = None) -> None:
        """Write one release of ``placement`` (its share of ``epsilon``) to the ledger, with
        how its noise was drawn (``noise``: a GridNoise or a sentence).

        An accountant method writes nothing per release: :meth:`_fit_gradient` records its
        whole training once, with the accountant's composed (epsilon, delta)."""
        if placement.ledger_label and not placement.accountant:
            self.ledger_.spend(epsilon * placement.spent_share, scales.delta, label=label + placement.ledger_label,
                               noise=noise)

    @staticmethod
    def _row_norms(Xd: Any, order: int) -> np.ndarray:
        if sparse.issparse(Xd):
            data = np.abs(Xd.data) if order == 1 else Xd.data**2
            sums = np.add.reduceat(data, Xd.indptr[:-1]) if len(data) else np.zeros(Xd.shape[0])
            sums[np.diff(Xd.indptr) == 0] = 0.0
            return sums if order == 1 else np.sqrt(sums)
        return np.abs(Xd).sum(axis=1) if order == 1 else np.sqrt(np.einsum("ij,ij->i", Xd, Xd))

    def _fit_gradient(self, Xd, yb, placement: NoisePlacement, calibration: Calibration, lr: float,
                      rng) -> np.ndarray:
        """Full-batch gradient descent, ``placement`` drawing each epoch's noise."""
        cap = self._clip_caps(Xd, placement.clip_order, calibration.clip)  # |p_i - y_i| <= cap_i
        if sparse.issparse(Xd):
            XT = Xd.T.tocsr()
        else:  # column-major X: both X @ w and X.T @ s stream contiguous memory
            Xd = np.asfortranarray(Xd)
            XT = Xd.T
        scales = placement.scales(calibration)
        eps_e = calibration.epoch_epsilon
        n, d = Xd.shape
        w = np.zeros(d)
        velocity = np.zeros(d)
        mom = self.momentum_
        draws = RoundDraws(rng, rounds=calibration.epochs)  # every epoch's noise in one batch
        with blas_limit(1):  # thin products: threads only cost
            for t in range(calibration.epochs):
                s = np.clip(expit(Xd @ w) - yb, -cap, cap)
                g = XT @ s  # clipped summed gradient dw
                mean, noise = placement.step(g, n, draws, scales)
                self._spend(placement, eps_e, scales, f"epoch {t + 1}: ", noise)
                if mom:  # heavy ball: a combination of released noisy gradients only
                    velocity = mom * velocity + mean
                    w -= lr * velocity
                else:
                    w -= lr * mean
        if placement.accountant:  # one entry: the ledger only adds, the accountant composes
            self.ledger_.spend(scales.epsilon, scales.delta,
                               label=f"{calibration.epochs} epochs, {placement.accountant.upper()} composition: "
                                     + placement.ledger_label, noise=noise)
        return w

    def _clip_caps(self, Xd, order: int, clip: float) -> np.ndarray:
        """Per record, the bound on |p_i - y_i| that clips its gradient term to ``clip``."""
        norms = self._row_norms(Xd, order)
        with np.errstate(divide="ignore"):
            return np.where(norms > 0, clip / norms, np.inf)

    def _fit_output_perturbation(self, Xd, yb, placement: NoisePlacement, calibration: Calibration,
                                 rng) -> np.ndarray:
        l2 = self.l2
        if isinstance(l2, bool) or not isinstance(l2, numbers.Real) or not (np.isfinite(l2) and l2 > 0):
            raise ValueError(f"l2 must be a finite number > 0 for output perturbation, got {l2!r}.")
        n, d = Xd.shape
        cap = self._clip_caps(Xd, placement.clip_order, calibration.clip)
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
        scales = placement.scales(replace(calibration, l2=l2))
        eps = calibration.epsilon
        # No exact sampler exists for a gamma radius: the ledger says this noise is floating point.
        radius = rng.gamma(shape=d, scale=scales.weights / eps)
        direction = rng.normal(size=d)
        direction /= np.linalg.norm(direction)
        self._spend(placement, eps, scales, "", "floating-point gamma radius and normal direction "
                                                 f"(density ~ exp(-epsilon ||b|| / {scales.weights:.4g}))")
        return w + radius * direction

    # ------------------------------------------------------------------ predict
    def decision_function(self, X: Any) -> np.ndarray:
        """w^T x + b for each row."""
        Xd = _as_design(X)
        return np.asarray(Xd @ self.coef_.ravel()).ravel() + self.intercept_[0]

