"""Table 3 of paper 000 as data: where each CDP-LR noise method puts its noise.

One :class:`NoisePlacement` per method 0..6 says what the method is called, whether the
weights it trains are differentially private, what it writes to the ledger, how large its
noise is and how one gradient step draws it. :class:`core.cdp.logistic.CDPLogisticRegression`
reads everything method-specific from :data:`NOISE_PLACEMENTS`.

Calibration (the project's neighbouring relation, docs/design.md section 2): one replaced
record and the CS records correlated with it move the clipped summed gradient by at most
``2 * CS * clip``, and the mean gradient by that over the public N. The budget of the
gradient methods is split evenly over the epochs; the sample size N is public, so noise on
it buys no privacy.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from core.mechanisms import gaussian_sigma, laplace_scale
from core.validation import check_delta

__all__ = ["NoisePlacement", "Calibration", "NoiseScales", "NOISE_PLACEMENTS"]


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
    (``n``), Gaussian sigma on the mean gradient, the delta each epoch spends, and the L2
    sensitivity of the final weights (output perturbation)."""

    sum: float = 0.0
    n: float = 0.0
    sigma: float = 0.0
    delta: float = 0.0
    weights: float = 0.0


#: One gradient step's noisy mean gradient from the clipped summed gradient ``g``.
Step = Callable[[np.ndarray, int, np.random.Generator, NoiseScales], np.ndarray]


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


# ---------------------------------------------------------------- noise scales
def _no_scales(c: Calibration) -> NoiseScales:
    return NoiseScales()


def _laplace_sum_scales(c: Calibration) -> NoiseScales:
    return NoiseScales(sum=laplace_scale(sensitivity=c.sum_sensitivity, epsilon=c.epoch_epsilon))


def _gaussian_mean_scales(c: Calibration) -> NoiseScales:
    eps_e = c.epoch_epsilon
    d_e = check_delta(c.delta) / c.epochs
    calib = "classic" if eps_e < 1 else "analytic"
    sigma = gaussian_sigma(sensitivity=c.sum_sensitivity / c.n, epsilon=eps_e, delta=d_e, calibration=calib)
    return NoiseScales(sigma=sigma, delta=d_e)


def _laplace_n_scales(c: Calibration) -> NoiseScales:
    return NoiseScales(n=laplace_scale(sensitivity=c.cs, epsilon=c.epoch_epsilon))  # the paper's scale on N


def _laplace_sum_and_n_scales(c: Calibration) -> NoiseScales:
    eps_e = c.epoch_epsilon
    return NoiseScales(sum=laplace_scale(sensitivity=c.sum_sensitivity, epsilon=eps_e / 2),
                       n=laplace_scale(sensitivity=c.cs, epsilon=eps_e / 2))


def _output_scales(c: Calibration) -> NoiseScales:
    # Chaudhuri et al. (2011), Alg. 1: L2 sensitivity of the regularised optimum
    return NoiseScales(weights=2.0 * c.cs * c.clip / (c.n * c.l2))


# ---------------------------------------------------------------- steps
def _exact_mean(g: np.ndarray, n: int, rng: np.random.Generator, scales: NoiseScales) -> np.ndarray:
    return g / n


def _laplace_on_sum(g: np.ndarray, n: int, rng: np.random.Generator, scales: NoiseScales) -> np.ndarray:
    # methods 1 and 3 (see _laplace_on_gradient)
    return (g + rng.laplace(0.0, scales.sum, size=len(g))) / n


def _gaussian_on_mean(g: np.ndarray, n: int, rng: np.random.Generator, scales: NoiseScales) -> np.ndarray:
    return g / n + rng.normal(0.0, scales.sigma, size=len(g))


def _laplace_on_n(g: np.ndarray, n: int, rng: np.random.Generator, scales: NoiseScales) -> np.ndarray:
    n_noisy = max(1.0, n + rng.laplace(0.0, scales.n))
    return g / n_noisy


def _laplace_on_sum_and_n(g: np.ndarray, n: int, rng: np.random.Generator, scales: NoiseScales) -> np.ndarray:
    g_noisy = g + rng.laplace(0.0, scales.sum, size=len(g))
    n_noisy = max(1.0, n + rng.laplace(0.0, scales.n))
    return g_noisy / n_noisy


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
        meaning="epsilon-DP for the weights: the L2-regularised optimum gets noise scaled to 2 * CS * clip / (N * l2) (Chaudhuri et al. 2011).",
    ),
}
