"""Differential-privacy mechanisms and a ledger of what was spent.

All functions draw through one ``numpy.random.Generator`` made by
:func:`core.runtime.randomness.check_random_state`, so a fixed ``random_state`` gives identical
draws on one machine.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Hashable, Sequence

import numpy as np
import pandas as pd
from scipy.special import ndtr

from core.privacy.sampler import GridNoise, bernoulli_exp, gaussian_on_grid, laplace_on_grid
from core.validation import check_delta, check_epsilon, check_sensitivity
from core.runtime.randomness import RandomState, check_random_state

__all__ = [
    "laplace",
    "laplace_scale",
    "laplace_noise",
    "gaussian",
    "gaussian_sigma",
    "krr",
    "krr_keep_probability",
    "LedgerEntry",
    "NEIGHBOURING_RELATION",
    "PrivacyLedger",
]


def _as_float_array(value: Any, name: str = "value") -> np.ndarray:
    try:
        arr = np.asarray(value, dtype=float)
    except (TypeError, ValueError) as exc:
        raise TypeError(f"{name} must be a number or an array of numbers.") from exc
    if not np.all(np.isfinite(arr)):
        raise ValueError(f"{name} must be finite (no NaN or infinity).")
    return arr


def _same_kind(original: Any, noisy: np.ndarray) -> float | np.ndarray:
    return float(noisy) if np.ndim(original) == 0 else noisy


def laplace_scale(*, sensitivity: float, epsilon: float) -> float:
    """Scale b = sensitivity / epsilon of the Laplace mechanism."""
    return check_sensitivity(sensitivity) / check_epsilon(epsilon)


def laplace(
    value: Any,
    *,
    sensitivity: float,
    epsilon: float,
    random_state: RandomState = None,
    grid: float | None = None,
    on_grid: bool = False,
) -> float | np.ndarray:
    """The Laplace mechanism, exactly: ``value`` on a grid plus discrete Laplace noise (epsilon-DP).

    The noise comes from :func:`core.privacy.sampler.laplace_on_grid` (integer arithmetic, no
    floating-point draws: Mironov 2012's attack finds no holes), at a scale of at least
    ``sensitivity / epsilon``; the output lies exactly on the grid. Use
    :func:`laplace_noise` to also get the :class:`~core.privacy.sampler.GridNoise` for a ledger.

    Parameters
    ----------
    value : float or array_like
        The exact answer(s); each entry gets independent noise.
    sensitivity : float
        L1 sensitivity of the whole answer: how far it can move when one record (or one
        correlated group, under correlated DP) is replaced.
    epsilon : float
        Privacy budget spent by this release; smaller means more noise.
    random_state : int, Generator or None
        Source of the noise: a seed for what a page shows, fresh entropy for a release.
    grid : float or None
        Output spacing; None chooses a power of two with at least 1,024 steps per
        sensitivity (:func:`core.privacy.sampler.grid_for`).
    on_grid : bool
        The values are already multiples of ``grid`` (counts on the grid 1): no rounding.

    Returns
    -------
    float or ndarray
        The noisy answer, a float for a scalar input.
    """
    noisy, _ = laplace_noise(value, sensitivity=sensitivity, epsilon=epsilon,
                             random_state=random_state, grid=grid, on_grid=on_grid)
    return noisy


def laplace_noise(
    value: Any,
    *,
    sensitivity: float,
    epsilon: float,
    random_state: RandomState = None,
    grid: float | None = None,
    on_grid: bool = False,
) -> tuple[float | np.ndarray, GridNoise | None]:
    """:func:`laplace` that also returns the noise's description (None when sensitivity is 0)."""
    arr = _as_float_array(value)
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    if sens == 0:
        return _same_kind(value, arr.copy()), None
    noisy, noise = laplace_on_grid(arr, sensitivity=sens, epsilon=eps, grid=grid, on_grid=on_grid,
                                   random_state=check_random_state(random_state))
    return _same_kind(value, noisy), noise


def _analytic_delta(sigma: float, sensitivity: float, epsilon: float) -> float:
    a = sensitivity / (2.0 * sigma)
    b = epsilon * sigma / sensitivity
    return float(ndtr(a - b) - math.exp(epsilon) * ndtr(-a - b))


def gaussian_sigma(
    *, sensitivity: float, epsilon: float, delta: float, calibration: str = "classic"
) -> float:
    """Standard deviation of the Gaussian mechanism for (epsilon, delta)-DP.

    ``calibration="classic"`` is Dwork & Roth's Theorem A.1,
    sigma = sqrt(2 ln(1.25 / delta)) * sensitivity / epsilon, valid only for epsilon < 1.
    ``calibration="analytic"`` is Balle & Wang (2018): the smallest sigma whose privacy
    profile meets delta exactly, valid for every epsilon > 0 and never larger than the
    classic one.
    """
    sens = check_sensitivity(sensitivity)
    eps = check_epsilon(epsilon)
    dlt = check_delta(delta)
    if calibration == "classic":
        if eps >= 1:
            raise ValueError(
                f"The classic Gaussian calibration holds only for epsilon < 1 (got {eps:g}); "
                "use calibration='analytic' for larger epsilon."
            )
        return math.sqrt(2.0 * math.log(1.25 / dlt)) * sens / eps
    if calibration != "analytic":
        raise ValueError(f"calibration must be 'classic' or 'analytic', got {calibration!r}.")
    if sens == 0:
        return 0.0
    lo, hi = 1e-12 * sens, sens
    while _analytic_delta(hi, sens, eps) > dlt:
        hi *= 2.0
    for _ in range(200):  # bisection on a monotone decreasing function of sigma
        mid = 0.5 * (lo + hi)
        if _analytic_delta(mid, sens, eps) > dlt:
            lo = mid
        else:
            hi = mid
    return hi


def gaussian(
    value: Any,
    *,
    sensitivity: float,
    epsilon: float,
    delta: float,
    random_state: RandomState = None,
    calibration: str = "classic",
) -> float | np.ndarray:
    """Add Gaussian noise calibrated for (epsilon, delta)-DP.

    Parameters
    ----------
    value : float or array_like
        The exact answer(s).
    sensitivity : float
        L2 sensitivity of the answer.
    epsilon, delta : float
        The privacy guarantee: with probability at least 1 - delta the privacy loss is at
        most epsilon.
    random_state : int, Generator or None
        Source of the noise.
    calibration : {"classic", "analytic"}
        See :func:`gaussian_sigma`.

    The noise is the exact discrete Gaussian on a grid (:func:`core.privacy.sampler.gaussian_on_grid`,
    sigma enlarged for the rounding of the answer to the grid), not numpy's float normal.
    """
    arr = _as_float_array(value)
    sigma = gaussian_sigma(
        sensitivity=sensitivity, epsilon=epsilon, delta=delta, calibration=calibration
    )
    if sigma == 0:
        return _same_kind(value, arr.copy())
    noisy, _ = gaussian_on_grid(arr, sigma=sigma, l2_sensitivity=float(sensitivity),
                                random_state=check_random_state(random_state))
    return _same_kind(value, noisy)


def krr_keep_probability(*, k: int, epsilon: float) -> float:
    """Probability e^eps / (k - 1 + e^eps) that k-ary randomized response keeps the truth."""
    eps = check_epsilon(epsilon)
    if k < 2:
        raise ValueError(f"k-ary randomized response needs at least 2 categories, got {k}.")
    # stable for large epsilon: 1 / (1 + (k-1) e^-eps)
    return 1.0 / (1.0 + (k - 1) * math.exp(-eps))


#: kRR's epsilon is rounded down to a multiple of 2^-20 for its exact sampler (never up)
_KRR_DENOMINATOR = 1 << 20


def _krr_codes(codes: np.ndarray, k: int, epsilon: float, rng: np.random.Generator) -> np.ndarray:
    """kRR's reports, exactly: a candidate uniform over the k categories is reported when it
    is the truth, and with probability exp(-epsilon) otherwise; else a new candidate is drawn.

    Reports then have P(truth) proportional to 1 and P(each other) to exp(-epsilon), i.e.
    e^eps / (k - 1 + e^eps) and 1 / (k - 1 + e^eps), with integer draws only
    (:func:`core.privacy.sampler.bernoulli_exp`); epsilon is rounded down to a multiple of 2^-20, so the
    ratio never exceeds e^eps.
    """
    num = math.floor(epsilon * _KRR_DENOMINATOR)  # 0 for epsilon < 2^-20: uniform reports, ratio 1
    out = np.empty(len(codes), dtype=np.int64)
    todo = np.arange(len(codes))
    while todo.size:
        cand = rng.integers(0, k, size=todo.size)
        truth = cand == codes[todo]
        accept = truth.copy()
        other = np.flatnonzero(~truth)
        if other.size:
            accept[other] = bernoulli_exp(np.full(other.size, num, dtype=np.int64), _KRR_DENOMINATOR,
                                          random_state=rng)
        out[todo[accept]] = cand[accept]
        todo = todo[~accept]
    return out


def krr(
    values: Any,
    *,
    categories: Sequence[Hashable],
    epsilon: float,
    random_state: RandomState = None,
) -> np.ndarray:
    """k-ary randomized response (Eq. 1 of paper 002), epsilon-local-DP per value.

    Each value is kept with probability e^eps / (k - 1 + e^eps) and otherwise replaced by
    one of the other k - 1 categories chosen uniformly.

    Parameters
    ----------
    values : array_like
        True categories, each one of ``categories``.
    categories : sequence
        The k possible answers (the domain is public).
    epsilon : float
        Local privacy budget of each reported value.
    random_state : int, Generator or None
        Source of randomness.

    Returns
    -------
    ndarray
        Reported values, same length and dtype family as ``categories``.
    """
    cats = list(dict.fromkeys(categories))
    k = len(cats)
    krr_keep_probability(k=k, epsilon=epsilon)  # checks k and epsilon
    vals = np.asarray(values, dtype=object).ravel()
    index = {c: i for i, c in enumerate(cats)}
    try:
        codes = np.fromiter((index[v] for v in vals), dtype=np.int64, count=len(vals))
    except KeyError as exc:
        raise ValueError(f"value {exc.args[0]!r} is not one of the {k} categories.") from None
    rng = check_random_state(random_state)
    out_codes = _krr_codes(codes, k, float(epsilon), rng)
    cat_arr = np.empty(k, dtype=object)
    cat_arr[:] = cats
    out = cat_arr[out_codes]
    try:
        return out.astype(np.asarray(cats).dtype)
    except (TypeError, ValueError):
        return out


#: The one neighbouring relation of the whole project; every mechanism is calibrated to it.
NEIGHBOURING_RELATION = (
    "Two datasets are neighbours when one record is replaced by any other record (the number "
    "of records n is public). Under paper 000's correlated DP, the records correlated with the "
    "replaced one (their number bounded by the correlated sensitivity CS) may change with it."
)


@dataclass(frozen=True)
class LedgerEntry:
    """One release: what was spent, on what, and under which composition."""

    label: str
    epsilon: float
    delta: float = 0.0
    parallel_group: str | None = None
    noise: str = ""


@dataclass
class PrivacyLedger:
    """A record of every privacy spend of one analysis, and whether it is a guarantee.

    Spends add up (sequential composition) except those that share a ``parallel_group``:
    those act on disjoint parts of the data (for example one Laplace release per cluster),
    so together they cost only the largest of them (parallel composition).

    A ledger is a differential-privacy guarantee under :data:`NEIGHBOURING_RELATION` only
    while :attr:`is_dp` is True. A mechanism that is not DP (the paper's SSKM_DP, CDP-LR
    noise method 4, IMPOSTER, plain MDAV) calls :meth:`mark_not_dp` with the reason; its
    spends are then *nominal*: :meth:`nominal` still adds them up, but :meth:`total`, the
    true guarantee, is (inf, 1) — none. :meth:`assume` records what a guarantee that does
    hold takes for granted (bounds read from the data, a partition fitted on a held-out
    part): the UI lists those beside the epsilon.

    Attributes
    ----------
    entries : list of LedgerEntry
    not_dp_reasons : list of str
        Why there is no guarantee (empty for a DP release).
    assumptions : list of str
        What the guarantee does not cover or takes as public.
    """

    entries: list[LedgerEntry] = field(default_factory=list)
    not_dp_reasons: list[str] = field(default_factory=list)
    assumptions: list[str] = field(default_factory=list)
    floating_point: list[str] = field(default_factory=list)

    def spend(
        self,
        epsilon: float,
        delta: float = 0.0,
        *,
        label: str,
        parallel_group: str | None = None,
        noise: str | GridNoise | None = None,
    ) -> LedgerEntry:
        """Record a release that costs (epsilon, delta).

        ``noise`` says how it was drawn (a :class:`~core.privacy.sampler.GridNoise` or a sentence):
        the sampler, its grid and its scale, shown with the entry.
        """
        eps = check_epsilon(epsilon)
        dlt = 0.0 if delta == 0 else check_delta(delta)
        text = noise.describe() if isinstance(noise, GridNoise) else (noise or "")
        entry = LedgerEntry(str(label), eps, dlt, parallel_group, str(text))
        self.entries.append(entry)
        return entry

    def mark_not_dp(self, reason: str) -> None:
        """Declare that the release has no DP guarantee, saying why in one sentence."""
        if not isinstance(reason, str) or not reason.strip():
            raise ValueError("give the reason a release is not differentially private, in words.")
        if reason not in self.not_dp_reasons:
            self.not_dp_reasons.append(reason)

    def note_floating_point(self, text: str) -> None:
        """Record noise drawn with floating-point arithmetic (no exact sampler exists for it).

        Such noise can leak more than its epsilon through the bits of its output (Mironov
        2012); :meth:`describe` says so beside the guarantee.
        """
        if not isinstance(text, str) or not text.strip():
            raise ValueError("say which noise uses floating-point sampling, in words.")
        if text not in self.floating_point:
            self.floating_point.append(text)

    def assume(self, text: str) -> None:
        """Record something the guarantee takes as public or does not cover."""
        if not isinstance(text, str) or not text.strip():
            raise ValueError("an assumption must be a sentence.")
        if text not in self.assumptions:
            self.assumptions.append(text)

    @property
    def is_dp(self) -> bool:
        """True when the release is differentially private under the project's relation."""
        return not self.not_dp_reasons

    def nominal(self) -> tuple[float, float]:
        """The spends added up by basic composition (sequential sums, parallel maxima).

        This is the guarantee when :attr:`is_dp`; otherwise only the number a paper or a
        setting names, with no guarantee behind it.
        """
        eps = dlt = 0.0
        groups: dict[str, tuple[float, float]] = {}
        for e in self.entries:
            if e.parallel_group is None:
                eps += e.epsilon
                dlt += e.delta
            else:
                g_eps, g_dlt = groups.get(e.parallel_group, (0.0, 0.0))
                groups[e.parallel_group] = (max(g_eps, e.epsilon), max(g_dlt, e.delta))
        for g_eps, g_dlt in groups.values():
            eps += g_eps
            dlt += g_dlt
        return eps, min(dlt, 1.0)

    def total(self) -> tuple[float, float]:
        """The true (epsilon, delta): :meth:`nominal` when DP, else (inf, 1.0), no guarantee."""
        return self.nominal() if self.is_dp else (math.inf, 1.0)

    def extend(self, other: "PrivacyLedger", *, prefix: str = "") -> None:
        """Add another release's spends, reasons and assumptions (sequential composition).

        Parallel groups are renamed with ``prefix`` so that two releases never share one
        (two releases of the same data compose sequentially, even cluster by cluster).
        """
        if not isinstance(other, PrivacyLedger):
            raise TypeError(f"other must be a PrivacyLedger, got {type(other).__name__}.")
        tag = f"{prefix}: " if prefix else f"release {id(other)}: "
        for e in other.entries:
            group = None if e.parallel_group is None else tag + e.parallel_group
            self.entries.append(LedgerEntry(tag + e.label if prefix else e.label, e.epsilon,
                                            e.delta, group, e.noise))
        for r in other.not_dp_reasons:
            self.mark_not_dp(r)
        for f in other.floating_point:
            self.note_floating_point(f)
        for a in other.assumptions:
            self.assume(a)

    def describe(self) -> str:
        """One sentence for a page or a file header: the guarantee, or why there is none."""
        eps, dlt = self.nominal()
        if not self.is_dp:
            named = f" (the epsilon = {eps:.4g} it names is nominal)" if self.entries else ""
            return "Not differentially private" + named + ": " + " ".join(self.not_dp_reasons)
        if not self.entries:
            return "Nothing released yet: epsilon = 0."
        caveat = ""
        if self.floating_point:
            caveat = (" Part of the noise uses floating-point sampling ("
                      + "; ".join(self.floating_point)
                      + "), which can leak more than this epsilon through the low bits of its output.")
        if dlt > 0:
            return (f"({eps:.4g}, {dlt:.2g})-differentially private under the project's "
                    "neighbouring relation (one record replaced by any other)." + caveat)
        return (f"{eps:.4g}-differentially private under the project's neighbouring relation "
                "(one record replaced by any other)." + caveat)

    def __len__(self) -> int:
        return len(self.entries)

    def to_frame(self) -> pd.DataFrame:
        """The entries as a table (label, epsilon, delta, parallel_group, noise)."""
        return pd.DataFrame(
            [(e.label, e.epsilon, e.delta, e.parallel_group, e.noise) for e in self.entries],
            columns=["label", "epsilon", "delta", "parallel_group", "noise"],
        )
