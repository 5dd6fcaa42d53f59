"""The CDP-LR page in a bundle (paper 000, Algorithm 2): logistic regression trained with
noise calibrated to the correlated sensitivity, the paper's four schemes beside the DP reading.

The same core calls, rows and seeds as the page (``dashboard/cdp/cached.py`` ``limit_rows``,
``dashboard/cdp/jobs.py`` ``run_schemes``, ``run_curves``, ``run_dpsgd_curves`` and
``run_method_curves``, :func:`core.cdp.sweeps.runs_at` for the live bars; the curve's runs are
:func:`core.decide.pages.cdp_lr_runs`'s, which ``pux solve`` reads): every scheme's test
accuracy at the slider's epsilon with its interval, beside the constant guess and the
non-private model; each scheme's features and sensitivity; the guarantees of the paper's
Proposed and of the DP reading; the accuracy against epsilon (Fig. 4) with its claim, and on
request DP-SGD beside it and the noise methods (Fig. 5). The accuracies are measured on the
private held-out records and the models are not released, so the page releases no table.

The small helpers that turn a reference, a ledger, a claim or a summary into JSON
(:func:`reference_numbers`, :func:`guarantee_numbers`, :func:`claim_numbers`,
:func:`summary_records`) are shared with :mod:`core.bundle.pages.publishing`.
"""
from __future__ import annotations

import math
import numbers as _numbers
from typing import Any, Mapping, Sequence

import pandas as pd

from core.bundle.pages import BundleRelease, records
from core.bundle.pages.correlations import check_known, check_measure, check_threshold
from core.cdp import claims
from core.cdp.baselines import DP_SCHEME, SchemeSetup, method_curve, prepare_schemes
from core.cdp.schedule import NOISE_METHODS, PRESETS
from core.cdp.sweeps import Reference, accuracy_references, dpsgd_curve, reference_sentences, runs_at
from core.data import Dataset
from core.decide.pages import limit_rows
from core.decide.selection import apply_epsilon_choice, check_epsilon_choice
from core.evaluation.metrics import mean_interval
from core.claims.claim import Claim
from core.privacy.ledger import PrivacyLedger
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.experiments import summarize
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.validation import check_choice, check_epsilon, check_epsilons, check_positive_int

__all__ = ["TITLE", "EPS_GRID", "DEFAULTS", "check_settings", "check_flag", "numbers", "releases", "describe",
           "prepare", "live_numbers", "curve_numbers", "reference_numbers", "guarantee_numbers", "claim_numbers",
           "summary_records"]

TITLE = "CDP-LR"
#: The curves' epsilons: the page's grid (the slider's range, 0.1 to 10; every point a slider value).
EPS_GRID = (0.1, 0.2, 0.3, 0.5, 1.0, 2.0, 3.0, 5.0, 7.0, 10.0)
#: The page's defaults: the slider's epsilon, the noise method (Table 3) and training preset,
#: the record correlation measure, delta0, T_c of DC-FBFS, the rows used (a random sample
#: above this), the repetitions per point, the two toggles (DP-SGD beside Fig. 4, the noise
#: methods of Fig. 5) and the curves' epsilons.
DEFAULTS: dict[str, Any] = {"epsilon": 2.0, "noise_method": 1, "preset": "sensible", "measure": "pearson",
                            "threshold": 0.8, "tc": 40.0, "max_rows": 5000, "repetitions": 5, "dpsgd": False,
                            "noise_methods": False, "epsilons": list(EPS_GRID),
                            "epsilon_choice": None}


def check_flag(value: Any, *, name: str) -> bool:
    """A JSON true or false (TypeError for anything else)."""
    if not isinstance(value, bool):
        raise TypeError(f"{name} must be true or false, got {type(value).__name__}.")
    return value


def _check_tc(value: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, _numbers.Real):
        raise TypeError(f"tc must be a number, got {type(value).__name__}.")
    if not math.isfinite(float(value)) or float(value) < 0:
        raise ValueError(f"tc (T_c of DC-FBFS, in units of C(x)) must be a finite number of 0 or more, "
                         f"got {float(value):g}.")
    return float(value)


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The page's settings with its defaults filled (:data:`DEFAULTS`).

    ``epsilon`` (the budget of one training, above 0: smaller is more private), ``noise_method``
    (a method of Table 3, 0 to 7), ``preset`` (sensible or paper), ``measure`` (pearson or
    mahalanobis), ``threshold`` (delta0 in (0, 1]), ``tc`` (T_c, 0 or more), ``max_rows`` (the
    rows used, 20 or more: a random sample drawn from the seed when the table has more),
    ``repetitions`` (trainings per point, 1 or more), ``dpsgd`` and ``noise_methods`` (true or
    false) and ``epsilons`` (the curves' grid, each above 0).
    ``epsilon_choice`` says how ``epsilon`` was chosen (null: by hand or on a public reference;
    ``{"source": "private"}``: solved on the private rows, so the guarantee shown is none;
    ``{"source": "selection", "cost": [epsilon, delta]}``: paid by private selection, added to it).
    """
    out = check_known(settings, DEFAULTS)
    out["epsilon"] = check_epsilon(out["epsilon"])
    out["noise_method"] = check_choice(out["noise_method"], NOISE_METHODS, name="noise_method", kind=int)
    out["preset"] = check_choice(out["preset"], PRESETS, name="preset", kind=str)
    out["measure"] = check_measure(out["measure"])
    out["threshold"] = check_threshold(out["threshold"])
    out["tc"] = _check_tc(out["tc"])
    out["max_rows"] = check_positive_int(out["max_rows"], name="max_rows", minimum=20)
    out["repetitions"] = check_positive_int(out["repetitions"], name="repetitions")
    out["dpsgd"] = check_flag(out["dpsgd"], name="dpsgd")
    out["noise_methods"] = check_flag(out["noise_methods"], name="noise_methods")
    out["epsilons"] = list(check_epsilons(out["epsilons"]))
    out["epsilon_choice"] = check_epsilon_choice(out["epsilon_choice"])
    return out


# --- JSON of the page's objects (shared with the Publishing page) -----------------------------

def summary_records(summary: pd.DataFrame) -> list[dict[str, Any]]:
    """A curve's summary (one row per group and epsilon: mean, std and count) as JSON records."""
    return records(summary)


def reference_numbers(ref: Reference) -> dict[str, Any]:
    """A reference (the constant guess, the non-private model, the mean true count...) with its
    95% interval (NaN where it has none) and the rows it stands on."""
    return {"name": ref.name, "value": float(ref.value), "low": float(ref.low), "high": float(ref.high),
            "n": int(ref.n)}


def guarantee_numbers(ledger: PrivacyLedger) -> dict[str, Any]:
    """A ledger's guarantee: whether it is DP, its (epsilon, delta) (null without one), the
    nominal epsilon a paper's scheme names, and its sentence."""
    eps, dlt = ledger.total()
    nominal = ledger.nominal()[0] if len(ledger) else 0.0
    return {"differentially private": bool(ledger.is_dp), "epsilon": float(eps) if ledger.is_dp else None,
            "delta": float(dlt) if ledger.is_dp else None, "nominal epsilon": float(nominal),
            "ledger entries": len(ledger), "sentence": ledger.describe()}


def claim_numbers(claim: Claim) -> dict[str, Any]:
    """A claim's figure, verdict and finding (the paper's words are in :mod:`core.cdp.paper`)."""
    return {k: v for k, v in claim.to_dict().items() if k != "paper"}


# --- the page's steps -------------------------------------------------------------------------

def prepare(dataset: Dataset, schema: PublicSchema, s: Mapping[str, Any], *, seed: int,
            progress: Progress | None = None, stop: Stop | None = None) -> tuple[Dataset, SchemeSetup, dict]:
    """The page's rows (at most ``max_rows`` drawn from ``seed``), its schemes prepared with
    ``seed`` on them (``schema`` is the whole table's public schema) and each scheme's matrices."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    data = limit_rows(dataset, s["max_rows"], int(seed))
    setup = prepare_schemes(data, schema=schema, threshold=s["threshold"], measure=s["measure"], tc=s["tc"],
                            random_state=int(seed), progress=progress)
    return data, setup, {name: setup.matrices(name) for name in setup.columns}


def _versus(mean: float, guess: Reference) -> str:
    """Where a scheme's mean accuracy stands against the constant guess (as the page's table)."""
    if mean <= guess.value:
        return "no better"
    return "within its interval" if guess.covers(mean) else "above"


def _scheme_row(setup: SchemeSetup, scheme: str, group: pd.DataFrame, guess: Reference) -> dict[str, Any]:
    """One scheme at the slider's epsilon: features, sensitivity, accuracy and its reading."""
    accs = group["accuracy"].to_numpy(dtype=float)
    mean, low, high = mean_interval(accs)
    n_train = len(setup.train)
    sens = None if scheme == "Non-private" else float(setup.sensitivity[scheme])
    kind = {"Non-private": "none", "Group": "GS", DP_SCHEME: "declared group bound"}.get(scheme, "CS")
    return {"scheme": scheme, "features": len(setup.columns[scheme]), "sensitivity": sens, "sensitivity kind": kind,
            "sensitivity share of N training records": None if sens is None else sens / n_train,
            "covers": setup.covers(scheme) if scheme != "Non-private" else "none",
            "mean accuracy": float(group["accuracy"].mean()),
            "std": float(group["accuracy"].std()) if len(accs) > 1 else 0.0,  # the bars' whisker: 0 for one run
            "95% interval low": float(low), "95% interval high": float(high),
            "runs": [float(a) for a in accs], "vs the constant guess": _versus(mean, guess),
            "differentially private": scheme == DP_SCHEME}


def live_numbers(setup: SchemeSetup, mats: dict, s: Mapping[str, Any], *, seed: int) -> dict[str, Any]:
    """The bars at the slider's epsilon (the same seeds as the curve's point there), the
    references, each scheme's table row and the guarantees of Proposed and the DP reading."""
    rows, models = runs_at(setup, mats, epsilon=s["epsilon"], noise_method=s["noise_method"], preset=s["preset"],
                           repetitions=s["repetitions"], seed=int(seed))
    runs = pd.DataFrame(rows)
    refs = accuracy_references(mats, runs)
    guess = refs[0]
    schemes = [_scheme_row(setup, name, g, guess) for name, g in runs.groupby("scheme", sort=False)]
    out: dict[str, Any] = {
        "epsilon": s["epsilon"], "references": [reference_numbers(r) for r in refs], "schemes": schemes,
        "no better than the constant guess": reference_sentences(runs, guess), "guarantees": {}}
    if "Proposed" in models:
        out["guarantees"]["Proposed, as in the paper"] = guarantee_numbers(models["Proposed"].ledger_)
    if DP_SCHEME in models:
        reading = models[DP_SCHEME]
        shown = apply_epsilon_choice(reading.ledger_, s["epsilon_choice"])  # marked when chosen on the rows
        out["guarantees"][DP_SCHEME] = {**guarantee_numbers(shown), "epochs": int(reading.epochs_),
                                        "learning rate": float(reading.learning_rate_),
                                        "momentum": float(reading.momentum_)}
    return out


def _curve(setup: SchemeSetup, mats: dict, s: Mapping[str, Any], *, seed: int,
           progress: Progress | None) -> pd.DataFrame:
    """Fig. 4's summary, as ``run_curves`` makes it: the schemes in the setup's order."""
    rows: list[dict] = []
    grid = s["epsilons"]
    for i, eps in enumerate(grid):
        rows += runs_at(setup, mats, epsilon=eps, noise_method=s["noise_method"], preset=s["preset"],
                        repetitions=s["repetitions"], seed=int(seed))[0]
        report(progress, (i + 1) / len(grid), f"epsilon {eps:g} done")
    summary = summarize(pd.DataFrame(rows), ["scheme", "epsilon"], "accuracy")
    order = {name: i for i, name in enumerate(setup.columns)}
    summary = summary.sort_values(["scheme", "epsilon"], key=lambda c: c.map(order) if c.name == "scheme" else c)
    return summary.reset_index(drop=True)


def curve_numbers(setup: SchemeSetup, mats: dict, s: Mapping[str, Any], guess: Reference, *, seed: int,
                  progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """Fig. 4 (each scheme's mean accuracy and spread over the grid) with its claim, and on
    request DP-SGD on the DP reading's features and Fig. 5 (each noise method on Proposed)."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    parts = 1 + s["dpsgd"] + s["noise_methods"]
    summary = _curve(setup, mats, s, seed=seed, progress=stage(progress, 0.0, 1 / parts))
    out: dict[str, Any] = {"accuracy vs epsilon (Fig. 4)": summary_records(summary),
                           "claims": [claim_numbers(claims.fig4_claim(summary, reference=guess))]}
    done = 1
    if s["dpsgd"]:
        dpsgd = dpsgd_curve(setup, mats, epsilons=tuple(s["epsilons"]), repetitions=s["repetitions"], seed=int(seed),
                            progress=stage(progress, done / parts, (done + 1) / parts))
        out["DP-SGD accuracy vs epsilon (ordinary DP, one record)"] = summary_records(dpsgd)
        done += 1
    if s["noise_methods"]:
        methods = method_curve(setup, epsilons=tuple(s["epsilons"]), methods=tuple(NOISE_METHODS),
                               preset=s["preset"], repetitions=s["repetitions"], random_state=int(seed),
                               progress=stage(progress, done / parts, 1.0))[0]
        out["noise methods on Proposed (Fig. 5)"] = summary_records(methods)
        out["claims"].append(claim_numbers(claims.fig5_claim(methods, reference=guess)))
    return out


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """The bars at the slider's epsilon beside the constant guess and the non-private model,
    each scheme's sensitivity and guarantee, and the curves with their claims."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    s = check_settings(settings)
    if dataset.label is None:
        raise ValueError("CDP-LR trains a classifier: the data needs a label column.")
    report(progress, 0.0, "Selecting features and computing sensitivities")
    data, setup, mats = prepare(dataset, schema, s, seed=seed, progress=stage(progress, 0.0, 0.2))
    report(progress, 0.2, f"Training every scheme at epsilon {s['epsilon']:g}")
    live = live_numbers(setup, mats, s, seed=seed)
    guess = accuracy_references(mats)[0]
    report(progress, 0.3, "Sweeping epsilon")
    curves = curve_numbers(setup, mats, s, guess, seed=seed, progress=stage(progress, 0.3, 1.0))
    return {"dataset": dataset.name, "rows in the table": dataset.n_rows, "rows used": data.n_rows,
            "training rows": len(setup.train), "test rows": len(setup.test), "noise method": s["noise_method"],
            "preset": s["preset"], "measure": s["measure"], "delta0": s["threshold"], "T_c": s["tc"],
            "selected features (DC-FBFS)": list(setup.selection.selected),
            "at the slider's epsilon": live, **curves}


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """None: the page measures models on the private held-out records and releases no table."""
    return []


def _grid_text(epsilons: Sequence[float]) -> str:
    return f"{len(epsilons)} epsilons from {min(epsilons):g} to {max(epsilons):g}"


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the page's numbers."""
    s = check_settings(settings)
    extra = [w for w, on in (("DP-SGD beside it", s["dpsgd"]), ("each noise method (Fig. 5)", s["noise_methods"]))
             if on]
    return (f"Test accuracy of the paper's schemes and the DP reading (noise method {s['noise_method']}, "
            f"{s['preset']} preset, {s['measure']} record correlation, delta0 = {s['threshold']:g}, "
            f"T_c = {s['tc']:g}, at most {s['max_rows']:,} rows, {s['repetitions']} run(s) per point) at "
            f"epsilon = {s['epsilon']:g} and over {_grid_text(s['epsilons'])} (Fig. 4"
            + (", with " + " and ".join(extra) if extra else "") + "), each beside the constant guess and the "
            "non-private model, with each scheme's sensitivity and guarantee: accuracies measured on the "
            "private held-out records.")
