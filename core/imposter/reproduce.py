"""Reproductions of paper 002 on UCI Adult: ``pux reproduce imposter-table1`` etc.

Each function takes ``data_dir``, ``quick``, ``random_state``, ``progress`` (a ``progress(message)``
callable, as ``pux reproduce`` passes) and ``stop`` (a ``threading.Event``: once set, the work
ends at its next report with :class:`core.runtime.progress.Stopped`, keeping nothing) and returns
a :class:`core.runtime.experiments.Reproduction`: the parameters, the seeds, every run, a summary,
and the paper's numbers beside ours. As in the paper, ``sex`` ("gender") is the explicit privacy
attribute and ``income`` the class label.
"""
from __future__ import annotations

import time
from dataclasses import replace
from typing import Any, Callable

import numpy as np

from core.data import load_adult
from core.runtime.experiments import Reproduction
from core.imposter.claims import fig6_claim, fig7_claim, fig8_claim, table1_claim, table2_claim
from core.imposter.detection import detect_implicit
from core.imposter.evaluation import evaluate_settings, lambda_sweep, table_long, theta_sweep
from core.imposter.krr_baseline import FIG7_EPSILONS, krr_sweep
from core.imposter.paper import PAPER_FIG7, PAPER_FIG8, PAPER_TABLE1, PAPER_TABLE2
from core.imposter.synthesizer import ImposterSynthesizer
from core.runtime.progress import Stop, check_stop, watch_lines
from core.runtime.randomness import check_random_state, draw_seed

__all__ = ["REPRODUCTIONS", "DEFAULTS"]

SENSITIVE, LABEL = "sex", "income"

#: Synthesizer settings of every reproduction (the class defaults, written out).
DEFAULTS: dict[str, Any] = dict(d2_weight=1.0, latent_dim=32, epochs=15, batch_size=500, ema=0.995,
                                hidden=(128, 128), disc_hidden=(128,))
QUICK: dict[str, Any] = dict(DEFAULTS, epochs=5)

Progress = Callable[[str], None]


def _adult(data_dir, quick: bool, rng: np.random.Generator):
    ds = load_adult(data_dir)
    if quick:  # a seeded subsample: minutes, not tens of minutes
        ds = replace(ds, frame=ds.frame.sample(n=12_000, random_state=draw_seed(rng))
                     .reset_index(drop=True))
    return ds


def _start(data_dir, quick: bool, random_state):
    """The generator, the Adult data and the synthesizer settings every reproduction starts from."""
    rng = check_random_state(random_state)
    return rng, _adult(data_dir, quick, rng), QUICK if quick else DEFAULTS


def _detect(ds, rng, theta: float = 0.01, stop: Stop | None = None):
    # the paper's theta/beta rule (Algorithm 1): the reproductions keep the paper's detection
    return detect_implicit(ds.frame, SENSITIVE, theta=theta, beta=0.7, classifier="lr",
                           random_state=draw_seed(rng), rule="paper", stop=stop)


def _train(ds, implicit, params: dict, seed: int, progress: Progress, stop: Stop | None):
    t0 = time.perf_counter()
    model = ImposterSynthesizer(**params, random_state=seed)
    last = [0.0]

    def told(fraction: float, message: str) -> None:  # a line every 15 s, from the model's events
        check_stop(stop)
        now = time.perf_counter()
        if now - last[0] > 15:
            last[0] = now
            event = model.events_[-1]
            probe = next((e["d2_accuracy"] for e in reversed(model.events_) if e["d2_accuracy"] is not None),
                         float("nan"))
            progress(f"  iteration {event['iteration']}/{event['iterations']}, "
                     f"recon {event['recon']:.2f}, D2 accuracy probe {probe:.3f}")

    model.fit(ds, SENSITIVE, implicit, progress=told)
    return model, time.perf_counter() - t0


def _sweep_lines(progress: Progress, stop: Stop | None):
    """A sweep's ``progress(fraction, message)`` as lines: each training's start, and an
    iteration at most every 15 s; each report first checks ``stop``."""
    last = [time.perf_counter()]

    def told(fraction: float, message: str) -> None:
        check_stop(stop)
        now = time.perf_counter()
        if ": iteration " not in message:
            progress(message)
        elif now - last[0] > 15:
            last[0] = now
            progress(f"  {message}")

    return told


def _paper_rows(table: dict) -> list[dict]:
    rows = []
    for key, cells in table.items():
        for cell, (acc, f1) in cells.items():
            setting, task = cell.split("_")
            rows.append({"row": key, "setting": setting, "task": task, "accuracy": acc, "f1": f1})
    return rows


def table1(*, data_dir=None, quick: bool = False, random_state: int | None = 0,
           progress: Progress = print, stop: Stop | None = None) -> Reproduction:
    """Table 1: five classifiers, settings A and B (+ TSTR), theta = 0.01, lambda = 1."""
    progress = watch_lines(progress, stop)
    rng, ds, params = _start(data_dir, quick, random_state)
    progress(f"detecting implicit attributes on {ds.n_rows} rows")
    det = _detect(ds, rng, stop=stop)
    progress(f"implicit: {list(det.implicit)} (tau = {det.tau:.3f})")
    seed = draw_seed(rng)
    model, seconds = _train(ds, det.implicit, params, seed, progress, stop)
    progress(f"trained {model.iterations_} iterations in {seconds:.0f} s")
    syn = model.sample(ds.n_rows)
    classifiers = ["xgboost", "gbdt", "lr"] if quick else ["xgboost", "gbdt", "rf", "mlp", "lr"]
    table = evaluate_settings(ds.frame, syn, sensitive=SENSITIVE, label=LABEL,
                              implicit=det.implicit, classifiers=classifiers, random_state=seed,
                              progress=lambda f, m: progress(f"  {m}"))
    long = table_long(table)
    floor = table.attrs["majority_synthetic"]
    b_sens = table[("B", "sensitive", "accuracy")]
    b_label = table[("B", "label", "accuracy")]
    tstr = table[("TSTR", "label", "accuracy")]
    summary = {
        "training_seconds": seconds, "iterations": model.iterations_,
        "majority_share_synthetic": floor, "majority_share_real": table.attrs["majority_real"],
        "A_sensitive_accuracy_mean": float(table[("A", "sensitive", "accuracy")].mean()),
        "B_sensitive_max_gap_to_majority": float((b_sens - floor).abs().max()),
        "B_label_accuracy_at_least_0.80": int((b_label >= 0.80).sum()),
        "TSTR_label_accuracy_mean": float(tstr.mean()),
        "targets": {
            "A gender accuracy about 0.84": bool(abs(table[("A", "sensitive", "accuracy")].mean() - 0.845) < 0.02),
            "B gender within 0.03 of majority for every classifier": bool((b_sens - floor).abs().max() <= 0.03),
            "B income >= 0.80 for 4 of 5 classifiers": bool((b_label >= 0.80).sum() >= min(4, len(b_label) - 1)),
            "TSTR income >= 0.78": bool(tstr.min() >= 0.78),
        },
    }
    summary["claim"] = table1_claim(table).to_dict()
    summary["fig6_claim"] = fig6_claim(det.scores, theta=0.01, sensitive=SENSITIVE).to_dict()
    return Reproduction(
        name="imposter-table1",
        parameters={"theta": 0.01, "beta": 0.7, "synthesizer": params, "rows": ds.n_rows,
                    "quick": quick, "classifiers": classifiers, "test_size": 0.3},
        seeds={"random_state": random_state, "synthesizer_and_evaluation": seed},
        setup={"detection": det.to_dict()},
        runs=long.to_dict(orient="records"),
        diagnostics={"history_tail": model.history_.tail(5).to_dict(orient="records")},
        summary=summary,
        paper=_paper_rows(PAPER_TABLE1),
        notes=[
            "F1 is macro F1 (the paper's figures match it: all-majority gives 0.40).",
            "GBDT is scikit-learn's HistGradientBoostingClassifier.",
            "TSTR (train on synthetic, test on real) is not in the paper.",
        ],
    )


def table2(*, data_dir=None, quick: bool = False, random_state: int | None = 0,
           progress: Progress = print, stop: Stop | None = None) -> Reproduction:
    """Table 2: XGBoost in settings A and B for theta in {0.002, 0.01, 0.02, 0.1}."""
    progress = watch_lines(progress, stop)
    rng, ds, params = _start(data_dir, quick, random_state)
    seed = draw_seed(rng)
    runs = theta_sweep(ds, sensitive=SENSITIVE, label=LABEL, thetas=(0.002, 0.01, 0.02, 0.1),
                       classifier="xgboost", synthesizer=params, random_state=seed,
                       progress=_sweep_lines(progress, stop))
    return Reproduction(
        name="imposter-table2",
        parameters={"thetas": [0.002, 0.01, 0.02, 0.1], "classifier": "xgboost",
                    "synthesizer": params, "rows": ds.n_rows, "quick": quick},
        seeds={"random_state": random_state, "sweep": seed},
        runs=runs.to_dict(orient="records"),
        summary={"per_theta": runs.drop(columns=["seed"], errors="ignore").to_dict(orient="records"),
                 "claim": table2_claim(runs).to_dict()},
        paper=_paper_rows({str(k): v for k, v in PAPER_TABLE2.items()}),
        notes=["Each theta uses its candidate set (NMI >= theta) as the implicit attributes."],
    )


def fig7(*, data_dir=None, quick: bool = False, random_state: int | None = 0,
         progress: Progress = print, stop: Stop | None = None) -> Reproduction:
    """Fig. 7: kRR on the implicit attributes for epsilon 1..100 (GBDT), beside IMPOSTER."""
    progress = watch_lines(progress, stop)
    rng, ds, params = _start(data_dir, quick, random_state)
    det = _detect(ds, rng, stop=stop)
    reps = 1 if quick else 3
    progress(f"kRR sweep over {len(FIG7_EPSILONS)} budgets x {reps} runs")
    runs = krr_sweep(ds, sensitive=SENSITIVE, label=LABEL, implicit=det.implicit,
                     epsilons=FIG7_EPSILONS, classifier="gbdt", repetitions=reps,
                     random_state=draw_seed(rng),
                     progress=lambda f, m: progress(f"  {m}"))
    curve = runs.groupby("epsilon")[["sensitive_accuracy", "sensitive_f1", "label_accuracy",
                                     "label_f1"]].mean().reset_index()
    seed = draw_seed(rng)
    progress("training IMPOSTER for the comparison point")
    model, seconds = _train(ds, det.implicit, params, seed, progress, stop)
    syn = model.sample(ds.n_rows)
    point = evaluate_settings(ds.frame, syn, sensitive=SENSITIVE, label=LABEL, implicit=det.implicit,
                              classifiers=["gbdt"], settings=["B"], random_state=seed, stop=stop)
    imp_gender = float(point[("B", "sensitive", "accuracy")].iloc[0])
    imp_income = float(point[("B", "label", "accuracy")].iloc[0])
    # kRR income at IMPOSTER's gender accuracy: the nearest budget, and the curve interpolated
    nearest = curve.iloc[(curve["sensitive_accuracy"] - imp_gender).abs().argmin()]
    order = np.argsort(curve["sensitive_accuracy"].to_numpy())
    interp = float(np.interp(imp_gender, curve["sensitive_accuracy"].to_numpy()[order],
                             curve["label_accuracy"].to_numpy()[order]))
    summary = {
        "curve": curve.to_dict(orient="records"),
        "imposter": {"gender_accuracy": imp_gender, "income_accuracy": imp_income,
                     "training_seconds": seconds},
        "krr_at_matching_gender": {"epsilon": float(nearest["epsilon"]),
                                   "gender_accuracy": float(nearest["sensitive_accuracy"]),
                                   "income_accuracy": float(nearest["label_accuracy"]),
                                   "income_accuracy_interpolated": interp},
        "target_imposter_income_higher": bool(imp_income > max(float(nearest["label_accuracy"]), interp)),
    }
    summary["claim"] = fig7_claim(curve, imposter=(imp_gender, imp_income)).to_dict()
    return Reproduction(
        name="imposter-fig7",
        parameters={"epsilons": list(FIG7_EPSILONS), "classifier": "gbdt", "bins": 10,
                    "implicit": list(det.implicit), "synthesizer": params, "rows": ds.n_rows,
                    "quick": quick},
        seeds={"random_state": random_state, "imposter": seed},
        runs=runs.to_dict(orient="records"),
        summary=summary,
        paper=PAPER_FIG7,
        notes=["kRR perturbs every implicit attribute (income included, as it is implicit "
               "at theta = 0.01); classifiers train and test on the perturbed table."],
    )


def fig8(*, data_dir=None, quick: bool = False, random_state: int | None = 0,
         progress: Progress = print, stop: Stop | None = None) -> Reproduction:
    """Fig. 8: setting B (XGBoost) for lambda in {0, 0.5, 1, 2, 5, 10}."""
    progress = watch_lines(progress, stop)
    rng, ds, params = _start(data_dir, quick, random_state)
    det = _detect(ds, rng, stop=stop)
    lambdas = (0.0, 1.0, 5.0) if quick else (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)
    seed = draw_seed(rng)
    runs = lambda_sweep(ds, sensitive=SENSITIVE, label=LABEL, implicit=det.implicit,
                        lambdas=lambdas, classifier="xgboost", synthesizer=params,
                        random_state=seed, progress=_sweep_lines(progress, stop))
    summary = {"per_lambda": runs.groupby("lambda").mean(numeric_only=True).drop(
        columns=["repetition", "seed"]).reset_index().to_dict(orient="records"),
        "claim": fig8_claim(runs).to_dict()}
    return Reproduction(
        name="imposter-fig8",
        parameters={"lambdas": list(lambdas), "classifier": "xgboost", "synthesizer": params,
                    "implicit": list(det.implicit), "rows": ds.n_rows, "quick": quick},
        seeds={"random_state": random_state, "sweep": seed},
        runs=runs.to_dict(orient="records"),
        summary=summary,
        paper=PAPER_FIG8,
        notes=[],
    )


REPRODUCTIONS = {
    "imposter-table1": table1,
    "imposter-table2": table2,
    "imposter-fig7": fig7,
    "imposter-fig8": fig8,
}
