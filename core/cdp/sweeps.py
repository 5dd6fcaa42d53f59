"""The CDP-LR page's runs: every scheme at one epsilon (the live bars) and over an epsilon
grid (Fig. 4's curve), seeded so the two agree.

The seeds of the runs at one epsilon come from :func:`point_seeds`, a function of the
viewer's seed, epsilon, noise method and preset only: the bars (any epsilon the slider
takes) and the curve (each grid epsilon) draw the same noise there, so at a grid epsilon
the bars are exactly the curve's point. All schemes share the seed of a repetition
(common random numbers, as in :func:`core.cdp.baselines.scheme_curve`).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np
import pandas as pd

from core.cdp.baselines import DP_SCHEME, SchemeSetup, fit_scheme
from core.cdp.dpsgd import DPSGDLogisticRegression
from core.evaluation.classification import binary_scores, guess_scores
from core.evaluation.metrics import (
    majority_share,
    mean_interval,
    no_better_than,
    proportion_interval,
)
from core.runtime.experiments import summarize
from core.runtime.progress import Progress, Stop, check_stop, report
from core.runtime.randomness import display_rng, draw_seeds

__all__ = ["point_seeds", "runs_at", "accuracy_at", "accuracy_curve", "dpsgd_curve", "DPSGD_SCHEME",
           "Reference", "CONSTANT_GUESS", "NON_PRIVATE", "constant_guess", "model_reference",
           "accuracy_references", "reference_sentences", "scores_table", "SCORE_COLUMNS"]

#: The scheme value of :func:`dpsgd_curve` (its legend name).
DPSGD_SCHEME = "DP-SGD (ordinary DP)"


def point_seeds(seed: int, epsilon: float, noise_method: int, preset: str, repetitions: int) -> list[int]:
    """The noise seeds of the runs at one epsilon: one per repetition, shared by the schemes.

    The viewer's seed is mixed with epsilon, method and preset, so two epsilons never share
    noise draws (docs/design.md section 2.6). Epsilon is rounded to 1e-9 so
    0.30000000000000004 and 0.3 get the same seeds.
    """
    rng = display_rng(int(seed), "CDP-LR", round(float(epsilon), 9), int(noise_method), str(preset))
    return [int(s) for s in draw_seeds(rng, int(repetitions))]


def runs_at(setup: SchemeSetup, mats: dict, *, epsilon: float, noise_method: int, preset: str,
            repetitions: int, seed: int,
            on_repetition: Callable[[int], None] | None = None) -> tuple[list[dict], dict]:
    """Every scheme trained ``repetitions`` times at one epsilon.

    Parameters
    ----------
    setup, mats : SchemeSetup, dict
        The prepared schemes (:func:`core.cdp.baselines.prepare_schemes`) and each scheme's
        (X_train, X_test, y_train, y_test).
    epsilon : float
        Budget of one training; each training's ledger says what it spent.
    seed : int
        The viewer's seed; the runs' noise seeds come from :func:`point_seeds`.
    on_repetition : callable(int), optional
        Told the number of repetitions done.

    Returns
    -------
    (list of dict, dict)
        One row per run (scheme, epsilon, repetition, seed, accuracy, ROC AUC ``auc`` and
        ``balanced_accuracy`` on the test part) and the first model of each scheme (for its ledger).
    """
    rows, models = [], {}
    seeds = point_seeds(seed, epsilon, noise_method, preset, repetitions)
    for r, s in enumerate(seeds):
        for scheme in setup.columns:
            model, acc = fit_scheme(setup, scheme, epsilon=float(epsilon), noise_method=int(noise_method),
                                    preset=preset, random_state=s, matrices=mats[scheme])
            Xte, yte = mats[scheme][1], mats[scheme][3]
            ranked = binary_scores(np.asarray(yte) == model.classes_[1], model.decision_function(Xte))
            rows.append({"scheme": scheme, "epsilon": float(epsilon), "repetition": r, "seed": s,
                         "accuracy": acc, **ranked})
            models.setdefault(scheme, model)
        if on_repetition is not None:
            on_repetition(r + 1)
    return rows, models


def accuracy_at(setup: SchemeSetup, mats: dict, *, epsilon: float, noise_method: int, preset: str,
                repetitions: int, seed: int) -> tuple[pd.DataFrame, dict]:
    """:func:`runs_at` as a table (the live bars), with the first model of each scheme."""
    rows, models = runs_at(setup, mats, epsilon=epsilon, noise_method=noise_method, preset=preset,
                           repetitions=repetitions, seed=seed)
    return pd.DataFrame(rows), models


def accuracy_curve(setup: SchemeSetup, mats: dict, *, epsilons: tuple[float, ...], noise_method: int,
                   preset: str, repetitions: int, seed: int, progress: Progress | None = None,
                   stop: Stop | None = None) -> pd.DataFrame:
    """Fig. 4: :func:`runs_at` at each epsilon, summarised (mean, std per scheme and epsilon)
    with the schemes in the setup's order; ``progress`` is told each repetition, and ``stop``
    (a ``threading.Event``), once set, ends the sweep there with
    :class:`core.runtime.progress.Stopped`."""
    check_stop(stop, "The sweep")
    rows = []
    total = len(epsilons) * repetitions
    for i, eps in enumerate(epsilons):
        first = i * repetitions

        def told(r: int, first: int = first) -> None:
            report(progress, (first + r) / total, f"run {first + r} of {total}", stop=stop)

        rows += runs_at(setup, mats, epsilon=eps, noise_method=noise_method, preset=preset,
                        repetitions=repetitions, seed=seed, on_repetition=told)[0]
    summary = summarize(pd.DataFrame(rows), ["scheme", "epsilon"], "accuracy")
    order = {s: i for i, s in enumerate(setup.columns)}  # legend in the schemes' order
    summary = summary.sort_values(["scheme", "epsilon"], key=lambda c: c.map(order) if c.name == "scheme" else c)
    return summary.reset_index(drop=True)


def dpsgd_curve(setup: SchemeSetup, mats: dict, *, epsilons: tuple[float, ...], repetitions: int, seed: int,
                progress: Progress | None = None, stop: Stop | None = None) -> pd.DataFrame:
    """DP-SGD (ordinary DP, beyond the paper) over the epsilon grid, summarised like
    :func:`accuracy_curve` with the scheme :data:`DPSGD_SCHEME`.

    Trained on the DP reading's matrices (every schema feature, scaled by the declared bounds:
    nothing read from the records; the Non-private scheme's standardised ones when a setup has
    no DP reading) with
    :class:`core.cdp.dpsgd.DPSGDLogisticRegression` at its defaults: sensitivity 1, so the
    guarantee covers one record, not paper 000's correlated group (not comparable with the
    schemes at equal epsilon when CS > 1). Its seeds mix the viewer's seed with "DP-SGD" and
    epsilon (never shared with the schemes' runs). ``progress`` is told each run; ``stop`` (a
    ``threading.Event``), once set, ends the sweep with :class:`core.runtime.progress.Stopped`.
    """
    Xtr, Xte, ytr, yte = mats[DP_SCHEME] if DP_SCHEME in mats else mats["Non-private"]
    check_stop(stop, "The sweep")
    rows = []
    total = len(epsilons) * repetitions
    done = 0
    for eps in epsilons:
        rng = display_rng(int(seed), "DP-SGD", round(float(eps), 9))
        for r, s in enumerate(draw_seeds(rng, int(repetitions))):
            model = DPSGDLogisticRegression(epsilon=float(eps), random_state=int(s)).fit(Xtr, ytr)
            rows.append({"scheme": DPSGD_SCHEME, "epsilon": float(eps), "repetition": r, "seed": int(s),
                         "accuracy": model.score(Xte, yte)})
            done += 1
            report(progress, done / total, f"run {done} of {total}", stop=stop)
    summary = summarize(pd.DataFrame(rows), ["scheme", "epsilon"], "accuracy")
    return summary.sort_values("epsilon").reset_index(drop=True)


# ---------------------------------------------------------------------------------------
# References: what every accuracy on the CDP-LR page is read against
# ---------------------------------------------------------------------------------------

#: the legend name of the majority-class reference (a constant guess: no model at all)
CONSTANT_GUESS = "majority class (constant guess)"
#: the legend name of the non-private model's reference (no noise: the ceiling)
NON_PRIVATE = "non-private model"


@dataclass(frozen=True)
class Reference:
    """An accuracy that every scheme is read against, with its 95% interval.

    Attributes
    ----------
    name : str
        :data:`CONSTANT_GUESS` or :data:`NON_PRIVATE` (the legend name on the charts).
    value : float
        The accuracy on the test part.
    low, high : float
        Its Wilson interval on the ``n`` test rows
        (:func:`core.evaluation.metrics.proportion_interval`): what another test part of that size could
        have given.
    n : int
        Number of test rows.
    """

    name: str
    value: float
    low: float
    high: float
    n: int

    def describe(self) -> str:
        """"0.900 (95% interval 0.86-0.93, 200 test rows)"."""
        return f"{self.value:.3f} (95% interval {self.low:.3f}-{self.high:.3f}, {self.n:,} test rows)"

    def covers(self, value: float) -> bool:
        """Whether ``value`` is at or below the top of this reference's interval (no better
        than it, as far as this test part can tell)."""
        return bool(np.isfinite(value) and value <= self.high)


def constant_guess(y_test, *, confidence: float = 0.95) -> Reference:
    """The accuracy of always guessing the most common class of the test part
    (:func:`core.evaluation.metrics.majority_share`), with its Wilson interval on the test size."""
    y = np.asarray(y_test)
    if y.ndim != 1 or len(y) == 0:
        raise ValueError("y_test must be a non-empty 1-D array of the test part's labels.")
    share = majority_share(y)
    lo, hi = proportion_interval(share * len(y), len(y), confidence=confidence)
    return Reference(CONSTANT_GUESS, share, lo, hi, len(y))


def model_reference(accuracy: float, n_test: int, *, name: str = NON_PRIVATE,
                    confidence: float = 0.95) -> Reference:
    """A model's test accuracy as a reference (the non-private model), with its Wilson
    interval on ``n_test`` rows."""
    acc = float(accuracy)
    if not 0.0 <= acc <= 1.0:
        raise ValueError(f"accuracy must lie in [0, 1], got {accuracy!r}.")
    lo, hi = proportion_interval(acc * int(n_test), int(n_test), confidence=confidence)
    return Reference(str(name), acc, lo, hi, int(n_test))


def accuracy_references(mats: dict, runs: pd.DataFrame | None = None) -> tuple[Reference, ...]:
    """The CDP-LR page's references: the constant guess on the test part of the
    Non-private scheme's matrices (the split every scheme shares), and, when ``runs`` has
    the Non-private scheme, its mean accuracy there."""
    y_test = np.asarray(mats["Non-private"][3])
    refs = [constant_guess(y_test)]
    if runs is not None and not runs.empty and "Non-private" in set(runs["scheme"]):
        acc = float(runs.loc[runs["scheme"] == "Non-private", "accuracy"].mean())
        refs.append(model_reference(acc, len(y_test)))
    return tuple(refs)


#: The scores of :func:`scores_table`, in words.
SCORE_COLUMNS = {"accuracy": "accuracy", "auc": "ROC AUC", "balanced_accuracy": "balanced accuracy"}


def scores_table(runs: pd.DataFrame, y_test) -> pd.DataFrame:
    """Accuracy, ROC AUC and balanced accuracy of each scheme at one epsilon (mean over the
    runs, with the runs' standard deviation), under the constant guess's row (the majority
    share, 0.5, 0.5, each with its 95% interval on the test part: where a model that learned
    nothing lands by chance) and above it the non-private scheme (the ceiling).

    Parameters
    ----------
    runs : DataFrame
        :func:`runs_at`'s rows at one epsilon.
    y_test : array-like
        The test part's labels every scheme shares (private: evaluation, not released).
    """
    guess = guess_scores(np.asarray(y_test))
    rows = []
    for scheme, g in runs.groupby("scheme", sort=False):
        row = {"scheme": scheme}
        for col, words in SCORE_COLUMNS.items():
            values = g[col].to_numpy(dtype=float) if col in g else np.array([np.nan])
            row[words] = f"{np.nanmean(values):.3f}" + (f" ± {np.nanstd(values, ddof=1):.3f}" if len(values) > 1
                                                        else "")
        rows.append(row)
    ref = {"scheme": CONSTANT_GUESS}
    for col, words in SCORE_COLUMNS.items():
        lo, hi = guess[f"{col}_interval"]
        ref[words] = f"{guess[col]:.3f} ({lo:.3f}-{hi:.3f})"
    rows.append(ref)
    return pd.DataFrame(rows, columns=["scheme", *SCORE_COLUMNS.values()])


def reference_sentences(runs: pd.DataFrame, reference: Reference, *, group: str = "scheme",
                        value: str = "accuracy") -> list[str]:
    """One sentence per group of ``runs`` whose mean ``value`` is no better than
    ``reference`` (the constant guess): below it, or inside its 95% interval
    (:func:`core.evaluation.metrics.no_better_than`). The Non-private scheme's sentence says what it means for all."""
    out = []
    for name, g in runs.groupby(group, sort=False):
        mean, lo, hi = mean_interval(g[value].to_numpy(dtype=float))
        spread = f" (runs' 95% interval {lo:.3f}-{hi:.3f})" if np.isfinite(lo) and hi > lo else ""
        said = no_better_than(mean, reference.value, (reference.low, reference.high), what="the constant guess",
                              meaning="always guessing the majority class")
        if said is None:
            continue
        text = f"{name}{spread}: {said}"
        if name == "Non-private":
            text += " Even without noise the features do not beat the constant guess on this table."
        out.append(text)
    return out
