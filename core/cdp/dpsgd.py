"""DP-SGD logistic regression: a baseline for ordinary DP beside the CDP-LR schemes (beyond the paper).

Paper 000 protects a record together with the CS records correlated with it. DP-SGD (Abadi et
al. 2016) protects one record: it is the standard way to train a differentially private model,
so the CDP-LR page can draw its curve to show where the paper's methods stand. Its guarantee
covers one record (sensitivity 1), not the correlated group, so at equal epsilon the two are
NOT comparable guarantees: DP-SGD's is weaker whenever CS > 1.

The algorithm, per step: every record joins the batch independently with probability ``q``
(Poisson subsampling, the generator of ``random_state``); each record's logistic-loss gradient
``x_i (p_i - y_i)`` (intercept included) is clipped to L2 norm ``clip_norm``; the clipped terms
are summed, Gaussian noise of standard deviation ``sigma * clip_norm`` is added to every
coordinate, and the result is divided by the EXPECTED batch size ``q * N`` (public: N is public
under the project's relation, docs/design.md section 2.1); then a plain SGD step.

Accounting (:func:`dpsgd_calibration`). ``sigma`` is calibrated with dp-accounting's PLD
accountant on ``SelfComposedDpEvent(PoissonSampledDpEvent(q, GaussianDpEvent(sigma)), steps)``
so that the ledger holds a guarantee under the project's relation, one record REPLACED by any
other:

* ``q < 1``: dp-accounting 0.6.0 accepts ``REPLACE_ONE`` for a Poisson-sampled Gaussian, but
  its privacy-loss pair for it is one-dimensional (the replaced record's term at +clip, the
  new one at -clip on the same line through 0). For gradient VECTORS the old and the new
  terms and 0 need not lie on one line, and we have no proof that the one-dimensional pair
  dominates that case. So we do not use it. We account under ``ADD_OR_REMOVE_ONE`` instead,
  whose pair is proven for vectors (only 0 and one term are mixed, which always lie on a
  line), and obtain the replace-one guarantee by group privacy of size 2: replacing record x
  by x' is removing x then adding x' (the mechanism, with the public N and q as fixed
  parameters, is defined on the intermediate dataset of N - 1 records). An (e, d) guarantee
  for add/remove gives (2 e, (1 + exp(e)) d) for replace-one. The calibration targets
  ``(epsilon / 2, delta / (1 + exp(epsilon / 2)))`` for add/remove, and the ledger records
  ``(2 e, (1 + exp(e)) d)`` with ``e`` the accountant's epsilon at that ``d``: at most the
  requested (epsilon, delta). This is conservative (sound, not tight).
* ``q == 1`` (full batch, no subsampling): each step is a Gaussian mechanism with L2 shift at
  most ``2 * clip_norm`` when a record is replaced, a one-dimensional problem whatever the
  directions (the shift alone matters), so ``REPLACE_ONE`` is exact there (the same accounting
  as CDP-LR noise method 7 with CS = 1), and it is used.
"""
from __future__ import annotations

import math
import numbers
from functools import lru_cache
from typing import Any

import numpy as np
import pandas as pd
from scipy.special import expit
from sklearn.base import BaseEstimator, ClassifierMixin

from core.cdp.linear_outputs import BinaryLinearOutputs
from core.privacy.accounting import PLD_DISCRETIZATION, pld_calibrate, pld_epsilon  # noqa: F401 (the grid, read here too)
from core.privacy.ledger import PrivacyLedger
from core.privacy.sampler import RoundDraws, gaussian_on_grid
from core.runtime.randomness import RandomState, check_random_state
from core.validation import DataError, check_delta, check_epsilon, check_positive_int

__all__ = ["DPSGDLogisticRegression", "dpsgd_calibration", "dpsgd_epsilon", "dpsgd_steps", "DPSGD_NOTE",
           "DEFAULT_BATCH"]

#: Poisson sampling compares a uniform integer below this with floor(q * this).
_SAMPLING_DENOMINATOR = 2**53
#: Expected batch size of the default sampling rate (``q = DEFAULT_BATCH / N``, at most 1).
DEFAULT_BATCH = 512
#: What DP-SGD's guarantee covers, written to every ledger.
DPSGD_NOTE = "ordinary DP for one record; paper 000's correlated records (CS) are not covered"


def dpsgd_steps(sampling_rate: float, epochs: int) -> int:
    """Number of SGD steps: ``epochs / q`` rounded (at least 1), a function of public values."""
    return max(1, int(round(int(epochs) / float(sampling_rate))))


def _event(noise_multiplier: float, sampling_rate: float, steps: int):
    from dp_accounting import (
        GaussianDpEvent,
        PoissonSampledDpEvent,
        SelfComposedDpEvent,
    )

    return SelfComposedDpEvent(PoissonSampledDpEvent(float(sampling_rate), GaussianDpEvent(float(noise_multiplier))),
                               int(steps))


def _accounting_target(epsilon: float, delta: float, sampling_rate: float) -> tuple[float, float]:
    """The (epsilon, delta) the accountant must reach under its relation (see the module doc)."""
    if sampling_rate == 1.0:
        return epsilon, delta
    # a hair below, so that rounding in (1 + e^e) d never lands above the requested delta
    return epsilon / 2.0, delta / (1.0 + math.exp(epsilon / 2.0)) * (1.0 - 1e-9)


def _replace_one(accounted_eps: float, accounted_delta: float, sampling_rate: float) -> tuple[float, float]:
    """The replace-one guarantee that follows from the accountant's (epsilon, delta)."""
    if sampling_rate == 1.0:
        return accounted_eps, accounted_delta
    return 2.0 * accounted_eps, (1.0 + math.exp(accounted_eps)) * accounted_delta  # group privacy, size 2


def _check_rate(sampling_rate: Any) -> float:
    if isinstance(sampling_rate, bool) or not isinstance(sampling_rate, numbers.Real):
        raise TypeError(f"sampling_rate must be a number in (0, 1], got {type(sampling_rate).__name__}.")
    q = float(sampling_rate)
    if not (0.0 < q <= 1.0):
        raise ValueError(f"sampling_rate must be in (0, 1], got {sampling_rate}.")
    return q


@lru_cache(maxsize=256)
def dpsgd_epsilon(noise_multiplier: float, accounted_delta: float, sampling_rate: float,
                  steps: int) -> tuple[float, float]:
    """Replace-one (epsilon, delta) of DP-SGD with this noise multiplier, rate and steps.

    The accountant (REPLACE_ONE for ``q == 1``, else ADD_OR_REMOVE_ONE) is asked for its epsilon at
    ``accounted_delta``; for ``q < 1`` group privacy of size 2 turns its add/remove
    (e, d) into the replace-one (2 e, (1 + exp(e)) d). Pessimistic discretisation: an
    upper bound.
    """
    q = _check_rate(sampling_rate)
    e = pld_epsilon(_event(noise_multiplier, q, steps), accounted_delta, replace_one=q == 1.0)
    return _replace_one(e, float(accounted_delta), q)


@lru_cache(maxsize=256)
def dpsgd_calibration(epsilon: float, delta: float, sampling_rate: float, steps: int) -> tuple[float, float, float]:
    """Noise multiplier of DP-SGD and the replace-one (epsilon, delta) the ledger records.

    Returns ``(sigma, eps, dlt)``: ``sigma`` (in units of ``clip_norm``) is the smallest noise
    multiplier, to a relative 1e-6 and rounded up by dp-accounting, for which its PLD
    accountant reports at most the target of :func:`_accounting_target` (``(epsilon, delta)``
    under ``REPLACE_ONE`` when ``q == 1``; ``(epsilon / 2, delta / (1 + exp(epsilon / 2)))``
    under ``ADD_OR_REMOVE_ONE`` otherwise, turned into replace-one by group privacy of size
    2); ``(eps, dlt)`` is what that gives for ``sigma`` itself, at most ``(epsilon, delta)``.
    All arguments are public (epsilon, delta, q, steps); nothing reads the records.
    """
    eps = check_epsilon(epsilon)
    dlt = float(check_delta(delta))
    if dlt <= 0:
        raise ValueError("DP-SGD needs delta > 0 (Gaussian noise).")
    q = _check_rate(sampling_rate)
    n_steps = check_positive_int(steps, name="steps")
    t_eps, t_dlt = _accounting_target(eps, dlt, q)

    def spent(z: float) -> float:  # the accountant's epsilon under its own relation
        return pld_epsilon(_event(z, q, n_steps), t_dlt, replace_one=q == 1.0)

    # a bracket by doubling / halving (the accountant, not the bracket, decides the value)
    hi = 1.0
    while spent(hi) > t_eps:
        hi *= 2.0
        if hi > 1e6:
            raise RuntimeError("DP-SGD calibration: no noise multiplier below 1e6 reaches the target.")
    while hi > 1e-2 and spent(hi / 2.0) <= t_eps:
        hi /= 2.0
    z = pld_calibrate(lambda v: _event(v, q, n_steps), t_eps, t_dlt, replace_one=q == 1.0, lo=hi / 2.0, hi=hi,
                      tol=1e-6 * hi)
    a_eps = spent(z)
    if not a_eps <= t_eps:  # the library promises this; refuse rather than record less than was spent
        raise RuntimeError(f"DP-SGD calibration gave epsilon {a_eps} above the target {t_eps}.")
    g_eps, g_dlt = dpsgd_epsilon(z, t_dlt, q, n_steps)
    if not (g_eps <= eps and g_dlt <= dlt):  # recorded as computed, never rounded down
        raise RuntimeError(f"DP-SGD calibration gave ({g_eps}, {g_dlt}) above the requested ({eps}, {dlt}).")
    return z, g_eps, g_dlt


def _train(X: np.ndarray, yb: np.ndarray, *, q: float, steps: int, sigma: float, clip: float, lr: float,
           rng: np.random.Generator) -> tuple[np.ndarray, Any]:
    """DP-SGD's ``steps`` noisy steps from w = 0: Poisson batches of rate ``q``, each record's
    gradient term clipped to L2 norm ``clip``, exact discrete Gaussian noise of standard
    deviation ``sigma * clip`` on the sum, divided by the expected batch size ``q * N``.

    Returns the weights and the last step's noise (the ledger's description of it)."""
    n, d = X.shape
    norms = np.sqrt(np.einsum("ij,ij->i", X, X))
    w = np.zeros(d)
    expected = q * n  # public: the divisor never reads which records were sampled
    # Poisson sampling with integers only: P(join) = floor(q 2^53) / 2^53, exactly, at most
    # q (a smaller rate only helps the accounting), and no float draw near the comparison.
    cut = int(q * _SAMPLING_DENOMINATOR)  # q * 2^53 is exact (a power of two), int() floors
    # one replaced record moves the clipped sum by 2 clip (full batch) or, under the
    # add/remove accounting of q < 1, by clip
    l2_shift = 2.0 * clip if q == 1.0 else clip
    noise_text = None
    draws = RoundDraws(rng, rounds=steps)  # every step's noise (same sigma and size) in one batch
    for _ in range(steps):
        batch = (np.arange(n) if cut >= _SAMPLING_DENOMINATOR else
                 np.flatnonzero(rng.integers(0, _SAMPLING_DENOMINATOR, size=n, dtype=np.int64) < cut))
        if len(batch):
            Xb = X[batch]
            r = expit(Xb @ w) - yb[batch]
            size = np.abs(r) * norms[batch]  # L2 norm of x_i (p_i - y_i)
            with np.errstate(divide="ignore", invalid="ignore"):
                factor = np.where(size > clip, clip / size, 1.0)
            g = Xb.T @ (r * factor)
        else:
            g = np.zeros(d)
        # exact discrete Gaussian on a grid (core.privacy.sampler), sigma * clip at least
        noisy, noise_text = gaussian_on_grid(g, sigma=sigma * clip, l2_sensitivity=l2_shift, coordinates=d,
                                             random_state=draws)
        w -= lr * noisy / expected
    return w, noise_text


class DPSGDLogisticRegression(BinaryLinearOutputs, ClassifierMixin, BaseEstimator):
    """Logistic regression trained with DP-SGD (ordinary DP for one record; beyond the paper).

    Parameters
    ----------
    epsilon : float
        Replace-one budget of the whole training (one record replaced by any other).
    delta : float
        Its delta (> 0).
    clip_norm : float
        L2 bound on each record's gradient term (intercept included).
    sampling_rate : float or None
        Poisson sampling probability q of every record at every step (the expected batch over
        N); None means ``min(1, 512 / N)``, computed in :meth:`fit` from the public N.
    epochs : int
        Passes in expectation: ``round(epochs / q)`` steps.
    learning_rate : float
        SGD step size.
    fit_intercept : bool
        Learn a bias (a constant feature, clipped and noised with the others).
    random_state : int, Generator or None
        The one generator of the batches and the noise.

    Attributes
    ----------
    coef_, intercept_, classes_ : ndarray
    noise_multiplier_ : float
        sigma: the noise on the summed clipped gradient has standard deviation sigma * clip_norm.
    sampling_rate_ : float
    steps_ : int
    ledger_ : PrivacyLedger
        One entry: the accountant's (epsilon, delta) for the whole training, replace-one.

    Notes
    -----
    The accounting (module docstring): with ``q == 1`` dp-accounting's PLD accountant under
    ``REPLACE_ONE`` (exact for a full-batch Gaussian); with ``q < 1`` the accountant under
    ``ADD_OR_REMOVE_ONE`` at ``(epsilon / 2, delta / (1 + exp(epsilon / 2)))``, and the
    replace-one guarantee by group privacy of size 2 (epsilon doubled, delta times
    ``1 + exp(epsilon / 2)``), because dp-accounting's replace-one pair for a Poisson-sampled
    Gaussian is one-dimensional and not proven for gradient vectors. The guarantee covers one
    record, not paper 000's correlated group.
    """

    def __init__(self, *, epsilon: float = 1.0, delta: float = 1e-5, clip_norm: float = 1.0,
                 sampling_rate: float | None = None, epochs: int = 5, learning_rate: float = 2.0,
                 fit_intercept: bool = True, random_state: RandomState = None) -> None:
        self.epsilon = epsilon
        self.delta = delta
        self.clip_norm = clip_norm
        self.sampling_rate = sampling_rate
        self.epochs = epochs
        self.learning_rate = learning_rate
        self.fit_intercept = fit_intercept
        self.random_state = random_state

    def _check_params(self) -> tuple[float, float, float, int, float]:
        eps = check_epsilon(self.epsilon)
        dlt = float(check_delta(self.delta))
        if dlt <= 0:
            raise ValueError("DP-SGD needs delta > 0 (Gaussian noise).")
        clip = self.clip_norm
        if isinstance(clip, bool) or not isinstance(clip, numbers.Real) or not (np.isfinite(clip) and clip > 0):
            raise ValueError(f"clip_norm must be a finite number > 0, got {clip!r}.")
        epochs = check_positive_int(self.epochs, name="epochs")
        lr = self.learning_rate
        if isinstance(lr, bool) or not isinstance(lr, numbers.Real) or not (np.isfinite(lr) and lr > 0):
            raise ValueError(f"learning_rate must be a finite number > 0, got {lr!r}.")
        return eps, dlt, float(clip), epochs, float(lr)

    def fit(self, X: Any, y: Any) -> "DPSGDLogisticRegression":
        """Train with DP-SGD; ``ledger_`` says what it spent."""
        eps, dlt, clip, epochs, lr = self._check_params()
        X, yb = self._check_data(X, y)
        n = X.shape[0]
        q = min(1.0, DEFAULT_BATCH / n) if self.sampling_rate is None else _check_rate(self.sampling_rate)
        steps = dpsgd_steps(q, epochs)
        sigma, spent_eps, spent_dlt = dpsgd_calibration(eps, dlt, q, steps)
        self.sampling_rate_, self.steps_, self.noise_multiplier_ = q, steps, sigma
        if self.fit_intercept:
            X = np.hstack([X, np.ones((n, 1))])
        rng = check_random_state(self.random_state)
        w, noise_text = _train(X, yb, q=q, steps=steps, sigma=sigma, clip=clip, lr=lr, rng=rng)
        self.ledger_ = PrivacyLedger()
        how = ("full batch, PLD accounting, replace-one" if q == 1.0 else
               "Poisson sampling, PLD accounting (add/remove) + group privacy of size 2 for replace-one")
        self.ledger_.spend(spent_eps, spent_dlt, label=f"DP-SGD: {steps} steps at rate {q:.4g} ({how})",
                           noise=noise_text)
        self.ledger_.assume(DPSGD_NOTE)
        self._set_weights(w)
        return self

    def _check_data(self, X: Any, y: Any) -> tuple[np.ndarray, np.ndarray]:
        """The features as a finite float matrix and the labels as 0/1 (``classes_[1]`` is 1);
        sets ``classes_``."""
        X = np.asarray(X, dtype=np.float64)
        if X.ndim != 2:
            raise ValueError(f"X must be 2-D (records x features), got {X.ndim} dimension(s).")
        if not np.all(np.isfinite(X)):
            raise DataError("X has missing or infinite values; drop or fill them first.")
        y = np.asarray(y)
        if y.ndim != 1 or len(y) != X.shape[0]:
            raise ValueError(f"y must be 1-D with one label per row of X ({X.shape[0]}).")
        classes = np.sort(pd.unique(y))
        if len(classes) != 2:
            raise DataError(f"DP-SGD logistic regression is a binary classifier; the label has "
                            f"{len(classes)} class(es).")
        if X.shape[0] < 2:
            raise DataError("Training needs at least 2 records.")
        self.classes_ = classes
        return X, (y == classes[1]).astype(np.float64)

    def decision_function(self, X: Any) -> np.ndarray:
        """w^T x + b for each row."""
        return np.asarray(X, dtype=np.float64) @ self.coef_.ravel() + self.intercept_[0]
