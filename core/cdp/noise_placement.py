"""Table 3 of paper 000 as data: where each CDP-LR noise method puts its noise.

Every draw goes through the project's exact sampler (:mod:`core.privacy.sampler`: discrete Laplace
and discrete Gaussian on a power-of-two grid, integer arithmetic), never a floating-point
``rng.laplace`` or ``rng.normal``; each ledger entry says which sampler, grid and scale.
Method 6's gamma-distributed radius has no exact sampler: it stays floating point and its
ledger says so (:meth:`core.privacy.ledger.PrivacyLedger.note_floating_point`).

One :class:`NoisePlacement` per method 0..6 of the paper (and method 7, beyond the paper)
says what the method is called, whether the weights it trains are differentially private,
what it writes to the ledger, how large its noise is and how one gradient step draws it. :class:`core.cdp.logistic.CDPLogisticRegression`
reads everything method-specific from :data:`NOISE_PLACEMENTS`.

Calibration (the project's neighbouring relation, docs/design.md section 2): one replaced
record and the CS records correlated with it move the clipped summed gradient by at most
``2 * CS * clip``, and the mean gradient by that over the public N. The budget of the
gradient methods is split evenly over the epochs; the sample size N is public, so noise on
it buys no privacy. Method 7 (not in the paper) keeps the Gaussian noise of method 2 but
composes its epochs with a privacy-loss-distribution accountant (``dp-accounting``) instead
of splitting the budget: see :func:`pld_gaussian_calibration`.
"""
from __future__ import annotations

import math
from dataclasses import dataclass
from functools import lru_cache
from typing import Callable

import numpy as np

from core.privacy.accounting import pld_calibrate, pld_epsilon
from core.privacy.mechanisms import gaussian_sigma, laplace_scale
from core.privacy.sampler import GridNoise, RoundDraws, gaussian_on_grid, laplace_on_grid
from core.validation import check_delta

__all__ = ["NoisePlacement", "Calibration", "NoiseScales", "NOISE_PLACEMENTS", "PLD_METHOD",
           "pld_gaussian_calibration", "pld_gaussian_epsilon"]


@dataclass(frozen=True)
class Calibration:
    """What the noise scales are computed from."""

    epsilon: float  # the whole training budget
    delta: float  # the whole delta (read, and checked, only by the Gaussian method)
    epochs: int
    n: int  # records (public)
    cs: float  # correlated (or group) sensitivity: records that move with one
    clip: float  # bound on each record's gradient term
    l2: float = 0.0  # regularisation strength (output perturbation only; as given)

    @property
    def epoch_epsilon(self) -> float:
        """Each epoch's share of the budget (sequential composition)."""
        return self.epsilon / self.epochs

    @property
    def sum_sensitivity(self) -> float:
        """How far one replaced record and its correlated ones move the summed gradient."""
        return 2.0 * self.cs * self.clip


@dataclass(frozen=True)
class NoiseScales:
    """The noise of one method: Laplace scale on the summed gradient (``sum``) and on N
    (``n``), Gaussian sigma on the mean gradient, the delta each epoch spends (the whole
    training's for an accountant method), the L2 sensitivity of the final weights (output
    perturbation), and, for an accountant method only, the whole training's ``epsilon`` as
    the accountant composes it.

    The exact sampler (:mod:`core.privacy.sampler`) is given the sensitivity and the epsilon that
    each scale is the ratio of (``sum_sensitivity`` / ``sum_epsilon``, ``n_sensitivity`` /
    ``n_epsilon``), and the L2 sensitivity of the mean gradient that ``sigma`` is calibrated
    to (``mean_l2``): it rounds the scale up on its grid, never down."""

    sum: float = 0.0
    n: float = 0.0
    sigma: float = 0.0
    delta: float = 0.0
    weights: float = 0.0
    epsilon: float = 0.0
    sum_sensitivity: float = 0.0
    sum_epsilon: float = 0.0
    n_sensitivity: float = 0.0
    n_epsilon: float = 0.0
    mean_l2: float = 0.0


#: One gradient step: ``step(g, n, draws, scales) -> (noisy mean gradient, noise)`` from the
#: clipped summed gradient ``g``; ``noise`` says how the noise was drawn (a
#: :class:`~core.privacy.sampler.GridNoise`, a sentence, or None for no noise), for the ledger.
Step = Callable[[np.ndarray, int, RoundDraws, NoiseScales], "tuple[np.ndarray, GridNoise | str | None]"]


@dataclass(frozen=True)
class NoisePlacement:
    """One noise method of Table 3.

    Attributes
    ----------
    name : str
        What it perturbs (Table 3).
    meaning : str
        What it protects, in one sentence (shown beside the control).
    is_dp : bool
        Whether the trained weights are differentially private.
    ledger_label : str
        What each spend is written as in the ledger ("epoch t: " is put in front for the
        gradient methods); empty when the method spends nothing.
    spent_share : float
        The share of each release's epsilon that the ledger counts as a privacy spend.
    not_dp_reason : str
        The ledger's reason when ``is_dp`` is False.
    assumptions : tuple of str
        What the ledger assumes besides the sensitivity (DP methods).
    clip_order : int
        The norm (1 or 2) each record's gradient term is clipped in.
    scales : callable
        ``scales(calibration) -> NoiseScales``.
    step : callable or None
        ``step(g, n, rng, scales) -> mean gradient`` for one epoch of gradient descent;
        None for output perturbation (train without noise, perturb the optimum once).
    accountant : str
        "" (the paper's methods): every release is one ledger entry and the ledger adds them
        up (basic composition). "pld": the epochs are composed by a privacy-loss-distribution
        accountant, and the whole training is ONE ledger entry with the accountant's
        (``scales.epsilon``, ``scales.delta``), since the ledger itself only adds.
    in_paper : bool
        False for a method that paper 000 does not have.
    floating_point : str
        Non-empty for a method whose noise has no exact sampler (method 6): what the ledger's
        :meth:`~core.privacy.ledger.PrivacyLedger.note_floating_point` records.
    """

    name: str
    meaning: str
    is_dp: bool
    ledger_label: str
    scales: Callable[[Calibration], NoiseScales]
    step: Step | None
    spent_share: float = 1.0
    not_dp_reason: str = ""
    assumptions: tuple[str, ...] = ()
    clip_order: int = 1
    accountant: str = ""
    in_paper: bool = True
    floating_point: str = ""


# ---------------------------------------------------------------- noise scales
def _no_scales(c: Calibration) -> NoiseScales:
    return NoiseScales()


def _laplace(sensitivity: float, epsilon: float) -> tuple[float, float, float]:
    """(scale, sensitivity, the epsilon the sampler is given): the epsilon is read back from the
    scale, so that the sampler draws exactly the scale :func:`laplace_scale` calibrated."""
    scale = laplace_scale(sensitivity=sensitivity, epsilon=epsilon)
    return scale, sensitivity, sensitivity / scale


def _laplace_sum_scales(c: Calibration) -> NoiseScales:
    scale, sens, eps = _laplace(c.sum_sensitivity, c.epoch_epsilon)
    return NoiseScales(sum=scale, sum_sensitivity=sens, sum_epsilon=eps)


def _gaussian_mean_scales(c: Calibration) -> NoiseScales:
    eps_e = c.epoch_epsilon
    d_e = check_delta(c.delta) / c.epochs
    calib = "classic" if eps_e < 1 else "analytic"
    sigma = gaussian_sigma(sensitivity=c.sum_sensitivity / c.n, epsilon=eps_e, delta=d_e, calibration=calib)
    return NoiseScales(sigma=sigma, delta=d_e, mean_l2=c.sum_sensitivity / c.n)


# ---------------------------------------------------------------- method 7: PLD accounting
def _pld_event(noise_multiplier: float, epochs: int):
    from dp_accounting import GaussianDpEvent, SelfComposedDpEvent

    return SelfComposedDpEvent(GaussianDpEvent(float(noise_multiplier)), int(epochs))


@lru_cache(maxsize=256)
def pld_gaussian_epsilon(noise_multiplier: float, delta: float, epochs: int) -> float:
    """The PLD accountant's epsilon at ``delta`` for ``epochs`` Gaussian releases.

    ``noise_multiplier`` is the noise standard deviation in units of the per-unit bound
    ``B = CS * clip`` (see :func:`pld_gaussian_calibration`). dp-accounting's
    ``PLDAccountant`` under ``REPLACE_ONE`` (pessimistic discretisation: an upper bound).
    """
    return pld_epsilon(_pld_event(noise_multiplier, epochs), delta, replace_one=True)


@lru_cache(maxsize=256)
def pld_gaussian_calibration(epsilon: float, delta: float, epochs: int) -> tuple[float, float]:
    """Noise multiplier of method 7 and the accountant's epsilon for it.

    Returns ``(z, eps)``: ``z`` is the smallest noise multiplier (to a relative 1e-6, rounded
    up by the library) for which dp-accounting's PLD accountant, composing ``epochs``
    Gaussian releases, reports at most ``epsilon`` at ``delta``; ``eps`` (<= ``epsilon``) is
    what that accountant reports for ``z`` itself, the number the ledger records.

    The relation. The accountant runs with ``NeighboringRelation.REPLACE_ONE``, which for a
    Gaussian with unit sensitivity compares N(+1, z^2) with N(-1, z^2): one unit replaced by
    any other moves the released sum by 2 (dp-accounting's ``GaussianPrivacyLoss`` with
    ``REPLACE`` adjacency). Method 7 takes the unit to be the correlated group: one record
    and the CS records that move with it, whose clipped terms (L2 norm <= clip each) sum to
    at most ``B = CS * clip`` in L2, so replacing the group moves the summed gradient by at
    most ``2 * CS * clip`` (the project's ``Calibration.sum_sensitivity``), and the noise on
    the sum is ``z * B``. A d-dimensional Gaussian with L2 shift s has the privacy loss of a
    scalar one with shift s, so the scalar accounting covers the gradient vector. For one
    epoch ``z * B`` equals the analytic Gaussian mechanism's sigma (Balle & Wang 2018) for
    L2 sensitivity ``2 * CS * clip``, which the tests check.
    """
    eps = float(epsilon)
    dlt = float(check_delta(delta))
    e = int(epochs)
    # Search interval only (the accountant, not the bracket, decides the value): around the
    # analytic Gaussian sigma of one release, grown like sqrt(E). A bracket reaching far
    # below the answer would make the accountant build huge distributions (minutes).
    ref = gaussian_sigma(sensitivity=2.0, epsilon=eps, delta=dlt, calibration="analytic") * math.sqrt(e)
    z = pld_calibrate(lambda v: _pld_event(v, e), eps, dlt, replace_one=True, lo=ref / 2.0, hi=ref * 2.0,
                      tol=1e-6 * ref)
    spent = pld_gaussian_epsilon(z, dlt, e)
    if not spent <= eps:  # the library promises this; refuse rather than record less than was spent
        raise RuntimeError(f"PLD calibration gave epsilon {spent} above the target {eps}.")
    return z, spent


def _pld_gaussian_scales(c: Calibration) -> NoiseScales:
    dlt = check_delta(c.delta)
    z, spent = pld_gaussian_calibration(float(c.epsilon), float(dlt), int(c.epochs))
    unit = c.sum_sensitivity / 2.0  # CS * clip: replacing the group moves the sum by 2 units
    return NoiseScales(sigma=z * unit / c.n, delta=dlt, epsilon=spent, mean_l2=c.sum_sensitivity / c.n)


def _laplace_n_scales(c: Calibration) -> NoiseScales:
    scale, sens, eps = _laplace(c.cs, c.epoch_epsilon)  # the paper's scale on N
    return NoiseScales(n=scale, n_sensitivity=sens, n_epsilon=eps)


def _laplace_sum_and_n_scales(c: Calibration) -> NoiseScales:
    eps_e = c.epoch_epsilon
    s_scale, s_sens, s_eps = _laplace(c.sum_sensitivity, eps_e / 2)
    n_scale, n_sens, n_eps = _laplace(c.cs, eps_e / 2)
    return NoiseScales(sum=s_scale, n=n_scale, sum_sensitivity=s_sens, sum_epsilon=s_eps,
                       n_sensitivity=n_sens, n_epsilon=n_eps)


def _output_scales(c: Calibration) -> NoiseScales:
    # Chaudhuri et al. (2011), Alg. 1: L2 sensitivity of the regularised optimum
    return NoiseScales(weights=2.0 * c.cs * c.clip / (c.n * c.l2))


# ---------------------------------------------------------------- steps
# Every draw goes through the exact sampler (core.privacy.sampler: integer arithmetic, outputs on a
# power-of-two grid), never numpy's floating-point rng.laplace / rng.normal. One replaced
# record (and its correlated group) moves every coordinate of the summed gradient, so the
# grid's rounding slack is paid for d coordinates (``coordinates=len(g)``).
def _exact_mean(g: np.ndarray, n: int, rng: RoundDraws, scales: NoiseScales):
    return g / n, None


def _noisy_sum(g: np.ndarray, rng: RoundDraws, scales: NoiseScales) -> tuple[np.ndarray, GridNoise]:
    """The summed gradient plus exact discrete Laplace noise of scale >= sum_sensitivity / sum_epsilon."""
    return laplace_on_grid(g, sensitivity=scales.sum_sensitivity, epsilon=scales.sum_epsilon,
                           coordinates=len(g), random_state=rng)


def _noisy_n(n: int, rng: RoundDraws, scales: NoiseScales) -> tuple[float, GridNoise]:
    """N plus exact discrete Laplace noise on the integers (N is a count: grid 1, no rounding)."""
    noisy, noise = laplace_on_grid(np.array([float(n)]), sensitivity=scales.n_sensitivity,
                                   epsilon=scales.n_epsilon, grid=1.0, on_grid=True, random_state=rng)
    return max(1.0, float(noisy[0])), noise


def _laplace_on_sum(g: np.ndarray, n: int, rng: RoundDraws, scales: NoiseScales):
    # methods 1 and 3 (see _laplace_on_gradient)
    noisy, noise = _noisy_sum(g, rng, scales)
    return noisy / n, noise


def _gaussian_on_mean(g: np.ndarray, n: int, rng: RoundDraws, scales: NoiseScales):
    return gaussian_on_grid(g / n, sigma=scales.sigma, l2_sensitivity=scales.mean_l2, coordinates=len(g),
                            random_state=rng)


def _laplace_on_n(g: np.ndarray, n: int, rng: RoundDraws, scales: NoiseScales):
    n_noisy, noise = _noisy_n(n, rng, scales)
    return g / n_noisy, noise


def _laplace_on_sum_and_n(g: np.ndarray, n: int, rng: RoundDraws, scales: NoiseScales):
    g_noisy, noise = _noisy_sum(g, rng, scales)
    n_noisy, n_noise = _noisy_n(n, rng, scales)
    return g_noisy / n_noisy, f"{noise.describe()}; on the public N: {n_noise.describe()}"


def _laplace_on_gradient(name: str, ledger_label: str, meaning: str) -> NoisePlacement:
    """Methods 1 and 3, one mechanism: Lap(2 CS clip / eps_e) on the summed gradient divided
    by the public N is Lap(2 CS clip / (N eps_e)) on the mean gradient."""
    return NoisePlacement(name=name, meaning=meaning, is_dp=True, ledger_label=ledger_label,
                          scales=_laplace_sum_scales, step=_laplace_on_sum)


#: Table 3 of paper 000, keyed by method number.
NOISE_PLACEMENTS: dict[int, NoisePlacement] = {
    0: NoisePlacement(
        name="No noise (non-private)", is_dp=False, ledger_label="", scales=_no_scales, step=_exact_mean,
        not_dp_reason="Noise method 0 adds no noise: the weights are computed from the raw data.",
        meaning="Not differentially private: no noise, the weights are computed from the raw data.",
    ),
    1: _laplace_on_gradient("Laplace noise on the mean gradient", ledger_label="mean gradient", meaning=(
        "epsilon-DP for the weights: every epoch's mean gradient gets Laplace noise of scale 2 * CS * clip / (N * epsilon / epochs).")),
    2: NoisePlacement(
        name="Gaussian noise on the mean gradient", is_dp=True, ledger_label="mean gradient (Gaussian)",
        scales=_gaussian_mean_scales, step=_gaussian_on_mean, clip_order=2,
        meaning="(epsilon, delta)-DP for the weights: Gaussian noise on every epoch's mean gradient (L2 clipping, L2 sensitivity 2 * CS * clip / N).",
    ),
    3: _laplace_on_gradient("Laplace noise on the summed gradient", ledger_label="summed gradient", meaning=(
        "epsilon-DP for the weights: Laplace noise of scale 2 * CS * clip / (epsilon / epochs) on every epoch's summed gradient, then divided by the public N (same distribution as method 1).")),
    4: NoisePlacement(
        name="Laplace noise on the sample size N only", is_dp=False, ledger_label="sample size (nominal)",
        scales=_laplace_n_scales, step=_laplace_on_n,
        not_dp_reason="Noise method 4 adds noise to the sample size N only, which is public; "
                      "the gradients, and so the weights, get no noise.",
        meaning="Not differentially private: only the sample size N gets noise (and N is public), the gradients get none.",
    ),
    5: NoisePlacement(
        name="Laplace noise on the summed gradient and on N", is_dp=True, ledger_label="summed gradient",
        spent_share=0.5,  # N is public under the relation: its half of the budget protects nothing
        scales=_laplace_sum_and_n_scales, step=_laplace_on_sum_and_n,
        assumptions=("Method 5 spends half of each epoch's budget on the sample size N, which the "
                     "relation treats as public, so only the other half is a privacy spend.",),
        meaning="(epsilon / 2)-DP for the weights: the paper spends half of each epoch's budget on N, which is public, so only the half on the summed gradient buys privacy.",
    ),
    6: NoisePlacement(
        name="Laplace-type noise on the final weights (output perturbation)", is_dp=True,
        ledger_label="final weights (output perturbation)", scales=_output_scales, step=None, clip_order=2,
        floating_point=("method 6's output perturbation: a gamma-distributed radius and a normal "
                        "direction, drawn in floating point (no exact sampler exists for them)"),
        meaning="epsilon-DP for the weights: the L2-regularised optimum gets noise scaled to 2 * CS * clip / (N * l2) (Chaudhuri et al. 2011).",
    ),
    # Beyond the paper. Full batch on purpose: amplification by (Poisson) subsampling is
    # proved for one record that is in or out of the batch; a correlated GROUP of CS records
    # that move together is sampled record by record, which is not the event the standard
    # accountants compute, so no subsampling (and no amplification) is claimed.
    7: NoisePlacement(
        name="Gaussian on the mean gradient, PLD accounting (not in the paper)", is_dp=True,
        ledger_label="mean gradient (Gaussian, PLD accounting)",
        scales=_pld_gaussian_scales, step=_gaussian_on_mean, clip_order=2, accountant="pld", in_paper=False,
        assumptions=("Method 7 is not in paper 000: its (epsilon, delta) is dp-accounting's privacy-loss-"
                     "distribution accountant composing the epochs (replace-one, the correlated group "
                     "as the unit), not a sum of per-epoch spends.",),
        meaning="(epsilon, delta)-DP for the weights, beyond the paper: the same Gaussian sigma on every epoch's mean gradient (L2 clipping, L2 sensitivity 2 * CS * clip / N), calibrated so that a privacy-loss-distribution accountant (dp-accounting) composing all epochs reports (epsilon, delta); full batch, no subsampling.",
    ),
}

#: The noise method whose epochs a PLD accountant composes (not in the paper).
PLD_METHOD = 7
