"""The IMPOSTER page in a bundle (paper 002): which attributes give the sensitive one away, and
what the synthetic table that hides them keeps.

The same core calls, rows and seeds as the page (``dashboard/imposter/cached.py`` and
``training_jobs.py``): the table without its identifier columns; detection
(:func:`core.imposter.detect_implicit` without the label unless it may be rewritten, 10 bins)
with both verdicts and Fig. 6's claim; the protected set (the chosen rule's verdict, or the
one the user edited); the synthesizer trained with the page's seed and parameters and its
synthetic table of as many rows (:class:`core.imposter.ImposterSynthesizer`: torch on one CPU
thread with deterministic algorithms, so the same seed gives the same table in any process);
Table 1 (settings A, B and train-synthetic/test-real) beside the majority shares and the
paper's Table 1, with its claim; the marginal fidelity; kRR against IMPOSTER (Fig. 7) beside
the real table and the majority shares, with its claim; and on request the theta (Table 2)
and lambda (Fig. 8) sweeps. The release is the synthetic table: not differentially private
(the generator is trained on the raw rows), and its ledger says so.
"""
from __future__ import annotations

from typing import Any, Mapping, Sequence

import pandas as pd

from core.bundle.pages import BundleRelease, check_number, plain, records
from core.bundle.pages.cdp_lr import check_flag, claim_numbers, guarantee_numbers
from core.bundle.pages.correlations import check_known
from core.data import Dataset
from core.imposter import (CLASSIFIERS, FIG7_EPSILONS, DetectionResult, ImposterSynthesizer, detect_implicit,
                           evaluate_settings, krr_ledger, krr_sweep, lambda_sweep, marginal_tv, theta_sweep)
from core.imposter import claims
from core.imposter.evaluation import EVALUATION_ROWS
from core.imposter.paper import PAPER_FIG7, PAPER_TABLE1, PAPER_TABLE2
from core.privacy.noise_source import NoiseSource
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, report, stage, Stop, watch
from core.runtime.randomness import draw_seed
from core.validation import check_choice, check_positive_int, check_probability

__all__ = ["TITLE", "DEFAULTS", "check_settings", "numbers", "releases", "describe", "page_table",
           "choose_columns", "training_params", "detect", "protected", "train"]

TITLE = "IMPOSTER"
#: The page's defaults: s and the label (null: the data's roles), detection's theta, beta,
#: attacker, score, starting rule and whether the label may be rewritten; the protected set
#: (null: the rule's verdict); the training's lambda, epochs (null: 100 up to 5,000 rows,
#: else 15), latent size and G's V2 term; Table 1's classifiers; the classifier of Fig. 7;
#: the sweeps' grids (null: not run), classifier and epochs (null: 100 up to 5,000 rows, else 5).
DEFAULTS: dict[str, Any] = {
    "sensitive": None, "label": None, "theta": 0.01, "beta": 0.7, "detection_classifier": "lr",
    "metric": "accuracy", "rule": "default", "rewrite_label": False, "implicit": None,
    "lambda": 1.0, "epochs": None, "latent": 32, "v2_loss": "minimax",
    "classifiers": list(CLASSIFIERS), "krr_classifier": "gbdt",
    "thetas": None, "lambdas": None, "sweep_classifier": "xgboost", "sweep_epochs": None}
#: Rows both Table 1 and the kRR curve use at most (a seeded subsample above), as the page.
MAX_ROWS = EVALUATION_ROWS
#: A column the page offers as s or the label has this many values.
CATEGORIES = (2, 20)
_LATENT, _V2, _METRICS, _RULES = (8, 16, 32, 64), ("minimax", "capped", "confusion"), ("accuracy", "f1"), \
    ("default", "paper")


def _column(value: Any, *, name: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{name} must be a column name or null, got {type(value).__name__}.")
    return value


def _names(value: Any, *, name: str, choices: Sequence[str] | None = None, empty: bool = True) -> list[str] | None:
    if value is None:
        return None
    if not isinstance(value, (list, tuple)) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"{name} must be a list of names, got {type(value).__name__}.")
    if not value and not empty:
        raise ValueError(f"{name} needs at least one entry.")
    return [check_choice(v, choices, name=name) for v in value] if choices is not None else list(value)


def _grid(value: Any, *, name: str, hi: float) -> list[float] | None:
    """A sweep's grid as the page reads its text box: 1 to 8 numbers in [0, hi], sorted, no repeats."""
    if value is None:
        return None
    if not isinstance(value, (list, tuple)):
        raise TypeError(f"{name} must be a list of numbers or null, got {type(value).__name__}.")
    out = sorted({check_number(v, name=name, lo=0.0, hi=hi) for v in value})
    if not 1 <= len(out) <= 8:
        raise ValueError(f"{name} needs 1 to 8 values (one training each), got {len(out)}.")
    return out


def _epochs(value: Any, *, name: str) -> int | None:
    if value is None:
        return None
    out = check_positive_int(value, name=name)
    if out > 1000:
        raise ValueError(f"{name} must be at most 1000 (as the page's box), got {out}.")
    return out


#: Read off the private rows by the page's detection: null in a bundle to publish (the rule decides again).
PRIVATE_SETTINGS = ("implicit",)


def check_settings(settings: Mapping[str, Any]) -> dict[str, Any]:
    """The page's settings with its defaults filled (:data:`DEFAULTS`).

    ``sensitive`` and ``label`` (column names, or null for the data's roles), ``theta`` and
    ``beta`` (in [0, 1]), ``detection_classifier``, ``krr_classifier``, ``sweep_classifier``
    and each of ``classifiers`` (xgboost, gbdt, rf, mlp or lr), ``metric`` (accuracy or f1),
    ``rule`` (default or paper), ``rewrite_label`` (true or false), ``implicit`` (the
    attributes D2 protects, or null for the rule's verdict), ``lambda`` (0 to 100),
    ``epochs`` and ``sweep_epochs`` (1 to 1000, or null for the page's default), ``latent``
    (8, 16, 32 or 64), ``v2_loss`` (minimax, capped or confusion), ``thetas`` (up to 8 in
    [0, 1]) and ``lambdas`` (up to 8 in [0, 100]), null when the sweep is not run.
    """
    out = check_known(settings, DEFAULTS)
    out["sensitive"] = _column(out["sensitive"], name="sensitive")
    out["label"] = _column(out["label"], name="label")
    out["theta"] = check_probability(out["theta"], name="theta")
    out["beta"] = check_probability(out["beta"], name="beta")
    for key in ("detection_classifier", "krr_classifier", "sweep_classifier"):
        out[key] = check_choice(out[key], CLASSIFIERS, name=key, kind=str)
    out["metric"] = check_choice(out["metric"], _METRICS, name="metric", kind=str)
    out["rule"] = check_choice(out["rule"], _RULES, name="rule", kind=str)
    out["rewrite_label"] = check_flag(out["rewrite_label"], name="rewrite_label")
    out["implicit"] = _names(out["implicit"], name="implicit")
    out["lambda"] = check_number(out["lambda"], name="lambda", lo=0.0, hi=100.0)
    out["epochs"] = _epochs(out["epochs"], name="epochs")
    out["sweep_epochs"] = _epochs(out["sweep_epochs"], name="sweep_epochs")
    out["latent"] = check_choice(out["latent"], _LATENT, name="latent", kind=int)
    out["v2_loss"] = check_choice(out["v2_loss"], _V2, name="v2_loss", kind=str)
    out["classifiers"] = _names(out["classifiers"], name="classifiers", choices=CLASSIFIERS, empty=False)
    out["thetas"] = _grid(out["thetas"], name="thetas", hi=1.0)
    out["lambdas"] = _grid(out["lambdas"], name="lambdas", hi=100.0)
    return out


# --- the page's choices -----------------------------------------------------------------------

def page_table(dataset: Dataset, schema: PublicSchema | None) -> Dataset:
    """``dataset`` without its identifier columns (the data's and the schema's, never the label
    or a sensitive column): never scored, synthesized or published."""
    cols = set(dataset.frame.columns)
    roles = {dataset.label, *dataset.sensitive}
    found = list(dataset.identifiers) + (list(schema.identifiers) if schema is not None else [])
    ids = tuple(c for c in dict.fromkeys(found) if c in cols and c not in roles)
    return dataset.with_identifiers(ids).without_identifiers() if ids else dataset


def _categorical(frame: pd.DataFrame, column: str) -> bool:
    return CATEGORIES[0] <= frame[column].nunique(dropna=True) <= CATEGORIES[1]


def choose_columns(data: Dataset, schema: PublicSchema | None, s: Mapping[str, Any]) -> tuple[str, str]:
    """s and the label: the settings', else the data's roles (the schema's label first), each a
    column of 2 to 20 values (ValueError in one sentence otherwise)."""
    frame = data.frame
    sensitive = s["sensitive"] or next(iter(data.sensitive), None)
    if sensitive is None or sensitive not in frame.columns or sensitive == data.label \
            or not _categorical(frame, sensitive):
        raise ValueError(f"IMPOSTER protects a column of {CATEGORIES[0]} to {CATEGORIES[1]} values other than "
                         f"the label; {sensitive!r} is none (set 'sensitive').")
    options = [c for c in frame.columns if c != sensitive and _categorical(frame, c)]
    if not options:
        raise ValueError("There is no other column of 2 to 20 values to use as the label.")
    label = s["label"]
    if label is None:
        found = [c for c in ((schema.label if schema is not None else None), data.label) if c in options]
        label = found[0] if found else options[0]
    if label not in options:
        raise ValueError(f"The label must be a column of 2 to 20 values other than s; {label!r} is not.")
    return sensitive, label


def batch_size(n_rows: int) -> int:
    """500 rows, or a quarter of the table (at least 16) below 2,000 rows, as the page."""
    return 500 if n_rows >= 2000 else max(16, n_rows // 4)


def training_params(s: Mapping[str, Any], n_rows: int, *, epochs: int | None = None) -> dict[str, Any]:
    """The synthesizer's parameters as the page trains it (``epochs`` replaces the setting's)."""
    epochs = epochs if epochs is not None else s["epochs"] if s["epochs"] is not None else \
        (100 if n_rows <= 5000 else 15)
    return {"d2_weight": float(s["lambda"]), "epochs": int(epochs), "latent_dim": int(s["latent"]),
            "batch_size": batch_size(n_rows), "hidden": (128, 128), "disc_hidden": (128,),
            "d2_generator_loss": s["v2_loss"]}


# --- the page's steps -------------------------------------------------------------------------

def detect(data: Dataset, sensitive: str, label: str, s: Mapping[str, Any], *, seed: int,
           progress: Progress | None = None, stop: Stop | None = None) -> DetectionResult:
    """Both detection rules on the table without the label (unless it may be rewritten), 10 bins."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    exclude = () if s["rewrite_label"] else (label,)
    frame = data.frame.drop(columns=[c for c in exclude if c in data.frame.columns and c != sensitive])
    return detect_implicit(frame, sensitive, theta=s["theta"], beta=s["beta"], classifier=s["detection_classifier"],
                           metric=s["metric"], bins=10, random_state=int(seed), progress=progress)


def protected(data: Dataset, sensitive: str, s: Mapping[str, Any], det: DetectionResult | None) -> list[str]:
    """The attributes D2 protects: the settings', else the chosen rule's verdict (none of
    them s or an identifier); ValueError when there is none (nothing to protect)."""
    options = [c for c in data.frame.columns if c != sensitive and c not in set(data.identifiers)]
    if s["implicit"] is not None:
        bad = [c for c in s["implicit"] if c not in options]
        if bad:
            raise ValueError(f"implicit names {bad}, which D2 cannot protect (s, an identifier or no column).")
        chosen = list(s["implicit"])
    else:
        chosen = [c for c in (det.paper_implicit if s["rule"] == "paper" else det.default_implicit) if c in options]
    if not chosen:
        raise ValueError("No attribute to protect: the detection flags none and implicit names none, so IMPOSTER "
                         "has nothing to remove.")
    return chosen


def train(data: Dataset, sensitive: str, implicit: Sequence[str], params: Mapping[str, Any], *, random_state: Any,
          progress: Progress | None = None, stop: Stop | None = None) -> tuple[ImposterSynthesizer, pd.DataFrame]:
    """The page's training job: the synthesizer fitted with ``random_state`` and as many
    synthetic rows as the table has, drawn from its own generator."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    model = ImposterSynthesizer(**dict(params), random_state=random_state)
    model.fit(data, sensitive, list(implicit), progress=progress)
    return model, model.sample(data.n_rows)


# --- JSON of the page's objects ---------------------------------------------------------------

def detection_numbers(det: DetectionResult, *, theta: float, sensitive: str) -> dict[str, Any]:
    """Both verdicts, each attribute's NMI, held-out gain over the constant guess and interval,
    tau beside the majority share, and Fig. 6's claim."""
    return {"majority share of s (the constant guess)": float(det.majority_share),
            "theta": float(det.theta), "beta": float(det.beta), "candidates (NMI >= theta)": list(det.candidates),
            "tau": float(det.tau), "tau 95% interval": [float(v) for v in det.tau_interval],
            "gain interval confidence (Bonferroni)": float(det.confidence), "rows tested": int(det.n_tested),
            "default rule's verdict": list(det.default_implicit), "paper's verdict": list(det.paper_implicit),
            "attributes": records(det.scores),
            "claim": claim_numbers(claims.fig6_claim(det.scores, theta=float(theta), sensitive=sensitive))}


def table1_numbers(table: pd.DataFrame) -> dict[str, Any]:
    """Table 1 (one row per classifier), the majority shares beside it, the paper's rows for the
    same classifiers and the claim."""
    rows = [{"classifier": str(clf), **{f"{a} {b} {c}": float(v) for (a, b, c), v in row.items()}}
            for clf, row in table.iterrows()]
    refs = {k: plain(table.attrs[k]) for k in ("majority_real", "majority_synthetic", "label_majority_real",
                                                "label_majority_synthetic", "n_test_real", "n_test_synthetic")}
    paper = {clf: {k: list(v) for k, v in cells.items()} for clf, cells in PAPER_TABLE1.items() if clf in table.index}
    return {"classifiers": rows, "references (constant guesses, test rows)": refs,
            "paper (Adult, accuracy and F1)": paper, "claim": claim_numbers(claims.table1_claim(table))}


def fidelity_numbers(tv: Mapping[str, Any]) -> dict[str, Any]:
    """The synthetic table's marginals against the real one's (total variation, 0 = identical)."""
    worst = tv["worst_pair"]
    return {"one-way TV (marginals)": float(tv["one_way"]), "two-way TV (pairs)": float(tv["two_way"]),
            "per column": {str(k): float(v) for k, v in tv["per_column"].items()},
            "worst pair": None if worst is None else {"columns": list(worst["columns"]), "tv": float(worst["tv"])},
            "bins": int(tv["bins"])}


def krr_numbers(curve: pd.DataFrame, point_table: pd.DataFrame, *, implicit: Sequence[str],
                columns: Sequence[str], schema: PublicSchema | None) -> dict[str, Any]:
    """Fig. 7: kRR's scores at each epsilon, IMPOSTER's point (setting B) beside the real
    table's (setting A) and the constant guesses, the paper's points and the claim."""
    row = point_table.iloc[0]
    point = (float(row[("B", "sensitive", "accuracy")]), float(row[("B", "label", "accuracy")]))
    real = (float(row[("A", "sensitive", "accuracy")]), float(row[("A", "label", "accuracy")]))
    ledger = krr_ledger(list(implicit), 1.0, table_columns=list(columns), schema=schema)
    return {"kRR runs": records(curve.drop(columns=["seed"], errors="ignore")),
            "IMPOSTER (setting B): s accuracy, label accuracy": list(point),
            "real table (setting A): s accuracy, label accuracy": list(real),
            "majority share of s (synthetic)": float(point_table.attrs["majority_synthetic"]),
            "majority share of s (real)": float(point_table.attrs["majority_real"]),
            "majority share of the label (real)": float(point_table.attrs["label_majority_real"]),
            "kRR's guarantee at epsilon 1": guarantee_numbers(ledger),
            "paper (Adult, GBDT)": dict(PAPER_FIG7),
            "claim": claim_numbers(claims.fig7_claim(curve, imposter=point))}


def _training_numbers(model: ImposterSynthesizer, synthetic: pd.DataFrame, params: Mapping[str, Any],
                      implicit: Sequence[str]) -> dict[str, Any]:
    """The training's outcome: its parameters, iterations and the last iteration's losses and
    D2 accuracy (its chance level beside it), without the timings."""
    last = {k: plain(v) for k, v in (model.events_[-1] if model.events_ else {}).items() if k != "seconds"}
    return {"protected attributes": list(implicit), "parameters": _plain_params(params),
            "iterations": int(model.iterations_), "stopped early": bool(model.stopped_),
            "last iteration": last, "D2 chance level": 1.0 / max(2, len(model.sensitive_values_)),
            "synthetic rows": int(len(synthetic)), "guarantee": guarantee_numbers(model.ledger_)}


def _plain_params(params: Mapping[str, Any]) -> dict[str, Any]:
    return {k: plain(v) for k, v in params.items()}


# --- numbers and releases ---------------------------------------------------------------------

def _sweeps(data: Dataset, sensitive: str, label: str, implicit: Sequence[str], s: Mapping[str, Any], *,
            seed: int, progress: Progress | None) -> dict[str, Any]:
    """Table 2 (one training per theta) and Fig. 8 (one per lambda), when the settings ask."""
    params = training_params(s, data.n_rows, epochs=s["sweep_epochs"] if s["sweep_epochs"] is not None
                             else (100 if data.n_rows <= 5000 else 5))
    out: dict[str, Any] = {}
    if s["thetas"] is not None:
        runs = theta_sweep(data, sensitive=sensitive, label=label, thetas=tuple(s["thetas"]),
                           classifier=s["sweep_classifier"], synthesizer=params,
                           exclude=() if s["rewrite_label"] else (label,), random_state=int(seed),
                           progress=stage(progress, 0.0, 0.5))
        out["theta sweep (Table 2)"] = {"runs": records(runs.drop(columns=["seed"], errors="ignore")),
                                        "claim": claim_numbers(claims.table2_claim(runs)),
                                        "paper (Adult, XGBoost)": {str(k): {c: list(v) for c, v in cells.items()}
                                                                   for k, cells in PAPER_TABLE2.items()}}
    if s["lambdas"] is not None:
        lam = {k: v for k, v in params.items() if k != "d2_weight"}
        runs = lambda_sweep(data, sensitive=sensitive, label=label, implicit=list(implicit),
                            lambdas=tuple(s["lambdas"]), classifier=s["sweep_classifier"], synthesizer=lam,
                            random_state=int(seed), progress=stage(progress, 0.5, 1.0))
        out["lambda sweep (Fig. 8)"] = {"runs": records(runs.drop(columns=["seed"], errors="ignore")),
                                        "claim": claim_numbers(claims.fig8_claim(runs))}
    return out


def numbers(dataset: Dataset, schema: PublicSchema, *, seed: int, settings: Mapping[str, Any],
            progress: Progress | None = None, stop: Stop | None = None) -> dict[str, Any]:
    """Detection with both verdicts, the training's outcome, Table 1 beside the majority shares,
    the marginal fidelity, kRR against IMPOSTER and the requested sweeps, each with its claim."""
    progress = watch(progress, stop)  # a set stop ends the work at its next report
    s = check_settings(settings)
    data = page_table(dataset, schema)
    sensitive, label = choose_columns(data, schema, s)
    report(progress, 0.0, "Measuring what each attribute says about s")
    det = detect(data, sensitive, label, s, seed=seed)
    implicit = protected(data, sensitive, s, det)
    params = training_params(s, data.n_rows)
    report(progress, 0.05, "Training IMPOSTER")
    model, synthetic = train(data, sensitive, implicit, params, random_state=int(seed),
                             progress=stage(progress, 0.05, 0.4))
    report(progress, 0.4, "Settings A and B (Table 1)")
    table = evaluate_settings(data.frame, synthetic, sensitive=sensitive, label=label, implicit=implicit,
                              classifiers=s["classifiers"], max_rows=MAX_ROWS, random_state=int(seed))
    tv = marginal_tv(data.frame, synthetic[list(data.frame.columns)], bins=10)
    report(progress, 0.55, "kRR against IMPOSTER (Fig. 7)")
    curve = krr_sweep(data, sensitive=sensitive, label=label, implicit=implicit, epsilons=FIG7_EPSILONS,
                      classifier=s["krr_classifier"], max_rows=MAX_ROWS, schema=schema, random_state=int(seed))
    point = evaluate_settings(data.frame, synthetic, sensitive=sensitive, label=label, implicit=implicit,
                              classifiers=[s["krr_classifier"]], max_rows=MAX_ROWS, random_state=int(seed))
    out = {"dataset": dataset.name, "rows": data.n_rows, "columns": [str(c) for c in data.frame.columns],
           "sensitive": sensitive, "label": label,
           "detection (Fig. 6)": detection_numbers(det, theta=s["theta"], sensitive=sensitive),
           "training": _training_numbers(model, synthetic, params, implicit),
           "settings A and B (Table 1)": table1_numbers(table),
           "marginal fidelity (real vs synthetic)": fidelity_numbers(tv),
           "kRR against IMPOSTER (Fig. 7)": krr_numbers(curve, point, implicit=implicit,
                                                        columns=list(data.frame.columns), schema=schema)}
    out.update(_sweeps(data, sensitive, label, implicit, s, seed=seed, progress=stage(progress, 0.7, 1.0)))
    report(progress, 1.0, "Done")
    return out


def releases(dataset: Dataset, schema: PublicSchema, *, noise: NoiseSource,
             settings: Mapping[str, Any]) -> list[BundleRelease]:
    """The synthetic table, as the page's "Prepare a release" draws it (as many rows as the
    table), from a synthesizer trained here with the page's parameters: every draw (the
    detection when the protected set is not given, the training, the sampling) from ``noise``.
    Not differentially private: the generator reads the raw rows (its ledger says so)."""
    s = check_settings(settings)
    data = page_table(dataset, schema)
    sensitive, label = choose_columns(data, schema, s)
    rng = noise.generator()
    det = None if s["implicit"] is not None else detect(data, sensitive, label, s, seed=draw_seed(rng))
    implicit = protected(data, sensitive, s, det)
    model, _ = train(data, sensitive, implicit, training_params(s, data.n_rows), random_state=draw_seed(rng))
    frame = model.sample(data.n_rows, random_state=rng)
    return [BundleRelease(name="imposter_synthetic", method="IMPOSTER synthetic table (paper 002)",
                          frame=frame, ledger=model.ledger_)]


def describe(settings: Mapping[str, Any]) -> str:
    """One sentence on the page's numbers."""
    s = check_settings(settings)
    sweeps = [w for w, on in (("the theta sweep (Table 2)", s["thetas"]), ("the lambda sweep (Fig. 8)", s["lambdas"]))
              if on is not None]
    protect = "the attributes " + ", ".join(s["implicit"]) if s["implicit"] else f"the {s['rule']} rule's verdict"
    return (f"IMPOSTER (paper 002): detection at theta = {s['theta']:g}, beta = {s['beta']:g} (both verdicts, "
            f"each attribute's gain over the constant guess), a synthesizer trained with lambda = {s['lambda']:g} "
            f"protecting {protect}, Table 1 for {', '.join(s['classifiers'])} beside the majority shares and the "
            f"paper's, the marginal fidelity and kRR against IMPOSTER ({s['krr_classifier']})"
            + (", with " + " and ".join(sweeps) if sweeps else "") + ": measured on the private rows; the "
            "synthetic table is not differentially private.")
