"""The noise methods of CDP-LR and the rules that choose them from public quantities only.

:data:`NOISE_METHODS` names the methods of Table 3 of paper 000 (and method 7, beyond the
paper), :data:`PRESETS` the paper's training settings and the one that learns, and
:func:`auto_noise_method` and :func:`auto_schedule` what ``noise_method="auto"`` and
``epochs="auto"`` / ``learning_rate="auto"`` of
:class:`core.cdp.logistic.CDPLogisticRegression` mean: they read N, epsilon, the sensitivity,
the clip and the method, never the records, so choosing costs no budget.
"""
from __future__ import annotations

import numpy as np

from core.cdp.noise_placement import NOISE_PLACEMENTS

__all__ = ["NOISE_METHODS", "NOISE_METHOD_MEANING", "DP_METHODS", "DEFAULT_NOISE_METHOD", "PRESETS",
           "AUTO_GAUSSIAN_MIN_M", "AUTO_METHODS", "auto_noise_method", "auto_schedule"]


#: Table 3 of paper 000: what each noise method perturbs.
NOISE_METHODS = {m: p.name for m, p in NOISE_PLACEMENTS.items()}

#: What each method protects, in one sentence (shown beside the control).
NOISE_METHOD_MEANING = {m: p.meaning for m, p in NOISE_PLACEMENTS.items()}

#: The noise methods whose weights are differentially private.
DP_METHODS = frozenset(m for m, p in NOISE_PLACEMENTS.items() if p.is_dp)

#: The default noise method: "auto", resolved by :func:`auto_noise_method` from public
#: quantities to method 7 (Gaussian on the mean gradient, PLD accounting; not in the paper)
#: or, where the budget per correlated group is too small for a Gaussian, the paper's Laplace
#: method 1. Pass an integer to choose; ``noise_method=1`` for pure epsilon-DP throughout.
DEFAULT_NOISE_METHOD = "auto"
#: :func:`auto_noise_method` takes the Gaussian method 7 from ``N eps / sensitivity`` this large
#: up. Below it one epoch's Gaussian noise (delta 1e-5) swamps the signal more than Laplace
#: noise does: supplier and census samples with CS (N eps / CS of 20 to 250), measured.
AUTO_GAUSSIAN_MIN_M = 300.0
#: The method "auto" resolves to in each regime.
AUTO_METHODS = {"small budget per group": 1, "otherwise": 7}

#: The paper's Table 2 / Fig. 5 settings (for teaching: the weights barely move) and the
#: setting that learns: epochs and step size from :func:`auto_schedule` (the default).
PRESETS = {
    "paper": {"learning_rate": 1e-6, "epochs": 100, "clip_norm": 1.0, "delta": 0.2},
    "sensible": {"learning_rate": "auto", "epochs": "auto", "clip_norm": 1.0, "delta": 1e-5},
}

#: :func:`auto_schedule`'s constants, tuned on UCI Adult (one-hot + standardised numerics,
#: method 1, sensitivity 1, eps 0.1..10; benchmarks/bench_cdp_auto.py).
AUTO_EPOCH_DIVISOR = 12.0  # epochs = sqrt(N eps / CS) / this
AUTO_MAX_EPOCHS = 100
AUTO_STEP = {1: 50.0, 2: 15.0}  # learning rate x clip_norm, by the clipping norm (L1 or L2)
AUTO_MOMENTUM = 0.5
#: Epochs x this for an accountant method (7): its per-epoch noise grows like sqrt(epochs),
#: not like epochs, so more steps pay (Adult, eps 0.1..2: benchmarks/bench_cdp_pld.py).
AUTO_ACCOUNTANT_EPOCH_FACTOR = 4.0


def auto_noise_method(*, n: int, epsilon: float, sensitivity: float) -> int:
    """The noise method that ``noise_method="auto"`` means, from public quantities only.

    Parameters
    ----------
    n : int
        Number of training records (public under the neighbouring relation).
    epsilon : float
        Training budget.
    sensitivity : float
        CS (or GS, or 1 for ordinary DP): how many records move with one.

    Returns
    -------
    int
        7 (Gaussian, PLD accounting: (epsilon, delta)-DP) when ``n epsilon / sensitivity`` is
        at least :data:`AUTO_GAUSSIAN_MIN_M`, else 1 (Laplace, pure epsilon-DP).

    Notes
    -----
    On UCI Adult at sensitivity 1 method 7 beats method 1 from ``n eps`` of 100 up (83.7 % against
    81.2 % at epsilon 0.1) and is within 0.2 points of tuned Opacus DP-SGD at epsilon 0.5..2
    (benchmarks/bench_peers.py). With CS of 30 to 100 on the samples, where ``n eps / CS`` is a few
    hundred at most, one epoch's Laplace noise leaves more signal (census, epsilon 2: 65.0 % against
    58.7 % on the Proposed scheme), so "auto" keeps the paper's method there. Reading only n,
    epsilon and the sensitivity, the choice costs no budget.
    """
    m = float(n) * float(epsilon) / float(sensitivity)
    return AUTO_METHODS["otherwise"] if m >= AUTO_GAUSSIAN_MIN_M else AUTO_METHODS["small budget per group"]


def auto_schedule(*, n: int, epsilon: float, sensitivity: float, clip_norm: float,
                  noise_method: int = 1) -> tuple[int, float, float]:
    """Epochs, learning rate and momentum of CDP-LR from public quantities only.

    Parameters
    ----------
    n : int
        Number of training records (public under the neighbouring relation).
    epsilon : float
        Training budget.
    sensitivity : float
        CS (or GS, or 1 for ordinary DP): how many records move with one.
    clip_norm : float
        Bound on each record's gradient term.
    noise_method : int
        Table 3 method; method 5 noises the gradient with half the budget, methods 0 and 4
        add no noise to it.

    Returns
    -------
    (epochs, learning_rate, momentum)

    Notes
    -----
    Each epoch's mean gradient gets noise of scale ``2 CS clip epochs / (N eps)`` while its
    signal is at most ``clip``, so the noise-to-signal ratio of one epoch is
    ``2 epochs / m`` with ``m = N eps / CS``. Splitting the budget over more epochs lets the
    model converge but makes every step noisier; on Adult the best number of epochs grows
    like ``sqrt(m)`` (5 at m = 3,400, about 15 at m = 34,000, 50 at m = 340,000), hence
    ``epochs = round(sqrt(m) / 12)`` between 1 and 100. Once most records are clipped the
    gradient scales with ``clip``, so the step is ``50 / clip`` (``15 / clip`` for the
    L2-clipped methods 2 and 6, whose clipped terms are larger in L1); momentum 0.5 combines the
    released noisy gradients (post-processing: it costs no budget). Method 7 (PLD accounting,
    not in the paper) pays only about ``sqrt(epochs)`` in noise for more epochs, so it takes 4
    times as many (at most 100). Nothing here reads the
    records: the same (n, epsilon, sensitivity, clip, method) gives the same schedule.
    """
    placement = NOISE_PLACEMENTS[int(noise_method)]
    noised = placement.is_dp  # 0 and 4: the gradient gets no noise
    step = AUTO_STEP[placement.clip_order]
    if placement.step is None:  # output perturbation: one release, no gradient steps
        epochs = 1
    elif noised:
        m = float(n) * float(epsilon) * placement.spent_share / float(sensitivity)
        base = np.sqrt(m) / AUTO_EPOCH_DIVISOR
        if placement.accountant:
            # the accountant's extra epochs (and a full step) pay only once one epoch's signal
            # stands above its noise: below base = 4 both ramp down with it
            ramp = min(1.0, base / AUTO_ACCOUNTANT_EPOCH_FACTOR)
            base *= max(1.0, AUTO_ACCOUNTANT_EPOCH_FACTOR * ramp)
            step *= ramp
        epochs = int(min(AUTO_MAX_EPOCHS, max(1, round(base))))
    else:
        epochs = AUTO_MAX_EPOCHS
    return epochs, step / float(clip_norm), AUTO_MOMENTUM
