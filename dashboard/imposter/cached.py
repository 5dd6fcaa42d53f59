"""Cached calls into core.imposter for the IMPOSTER page (paper 002).

Detection is a setup job (keyed on the dataset's fingerprint, the parameters and the
seed; :func:`dashboard.shared.job_view.setup_view`); the evaluation (Table 1) and the kRR curve are sweep jobs
(:mod:`dashboard.shared.sweeps`). Training runs as a session-owned job in the
bounded pool of :mod:`dashboard.shared.jobs`, so the page can draw its curves live and
stop it: :class:`TrainingJob` holds the per-iteration events. Running jobs are never
shared between sessions; finished ones are kept by their inputs (:func:`finished_training`)
so the next session with the same inputs gets the model at once.
"""
from __future__ import annotations

import threading
from collections import OrderedDict
from typing import Any

import numpy as np
import pandas as pd

from core.audit.cases import AuditCase, krr_case
from core.privacy.schema import PublicSchema
from core.data import Dataset
from core.runtime.progress import Progress
from core.imposter import (
    FIG7_EPSILONS,
    ImposterSynthesizer,
    detect_implicit,
    evaluate_settings,
    krr_ledger,
    krr_sweep,
)
from core.papers.claim import Claim
from core.imposter import claims as _claims
from core.imposter.evaluation import lambda_sweep as _lambda_sweep
from core.imposter.evaluation import marginal_tv
from core.imposter.evaluation import theta_sweep as _theta_sweep
from core.imposter.detection import DetectionResult
from core.evaluation.metrics import below_reference
from core.imposter.reproduce import PAPER_FIG7, PAPER_FIG8, PAPER_TABLE1, PAPER_TABLE2
from dashboard.shared.jobs import BackgroundJob, run_in_child
from dashboard.shared.sweeps import Sweep
from dashboard.shared.safe import md

#: the paper's numbers (the reproduction registry, the one source), for the charts
PAPER = {"Table 1": PAPER_TABLE1, "Table 2": PAPER_TABLE2, "Fig. 7": PAPER_FIG7, "Fig. 8": PAPER_FIG8}
#: the grids of Table 2 and Fig. 8, as the page's text boxes start
THETAS, LAMBDAS = (0.002, 0.01, 0.02, 0.1), (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)


def _detection(progress: Progress, *, dataset: Dataset, sensitive: str, theta: float, beta: float,
               classifier: str, metric: str, bins: int, seed: int, exclude: tuple[str, ...]):
    frame = dataset.frame.drop(columns=[c for c in exclude if c in dataset.frame.columns and c != sensitive])
    return detect_implicit(frame, sensitive, theta=theta, beta=beta, classifier=classifier, metric=metric,
                           bins=bins, random_state=seed, progress=progress)


def detection(dataset: Dataset, sensitive: str, theta: float, beta: float, classifier: str,
              metric: str, bins: int, seed: int, exclude: tuple[str, ...] = ()) -> Sweep:
    """:func:`core.imposter.detect_implicit` on the dataset without the ``exclude`` columns
    (the page leaves the label out unless the user lets it be rewritten), as a setup job."""
    kwargs = dict(sensitive=sensitive, theta=float(theta), beta=float(beta), classifier=classifier, metric=metric,
                  bins=int(bins), seed=int(seed), exclude=tuple(exclude))
    return Sweep(("detection", dataset.fingerprint()) + tuple(kwargs.values()), _detection,
                 dict(dataset=dataset, **kwargs), "Measuring what each attribute says about the sensitive one",
                 in_process=True)


def _train(*, send, stop, dataset, sensitive, implicit, params, seed, n_rows):
    """The training, run in a spawned child (:func:`dashboard.shared.jobs.run_in_child`)."""
    model = ImposterSynthesizer(**params, random_state=seed)
    model.fit(dataset, sensitive, implicit, callback=send, stop=stop)
    return model, model.sample(n_rows)


class TrainingJob(BackgroundJob):
    """One IMPOSTER training in a background thread, observable and stoppable.

    The thread never touches streamlit: it appends the synthesizer's per-iteration events
    to a list under a lock; the page reads :meth:`history` and calls :meth:`stop`.
    """

    name = "imposter-training"

    def __init__(self, dataset: Dataset, sensitive: str, implicit: tuple[str, ...],
                 params: dict[str, Any], seed: int, n_rows: int) -> None:
        super().__init__()
        self.dataset = dataset
        self.sensitive = sensitive
        self.implicit = tuple(implicit)
        self.params = dict(params)
        self.seed = seed
        self.n_rows = n_rows
        self.total = 0
        self._events: list[dict] = []
        self.model: ImposterSynthesizer | None = None
        self.synthetic: pd.DataFrame | None = None

    def _callback(self, event: dict) -> None:
        self.mark_working()
        with self._lock:
            self._events.append(event)
            self.total = event["iterations"]

    def _work(self) -> None:
        """Train in a child process: the server's own threads keep the interpreter, so pages
        and sliders stay responsive while it trains. Events and the fitted model come back
        through a queue; Stop sets an event the child's training loop checks."""
        self.model, self.synthetic = run_in_child(
            _train, dict(dataset=self.dataset, sensitive=self.sensitive, implicit=self.implicit,
                         params=self.params, seed=self.seed, n_rows=self.n_rows),
            on_message=self._callback, stop=self._stop, name=self.name)

    @property
    def stopped(self) -> bool:
        return self._stop.is_set() or bool(self.model is not None and self.model.stopped_)

    def history(self) -> pd.DataFrame:
        """The events so far, one row per iteration."""
        with self._lock:
            return pd.DataFrame(list(self._events))

    def progress(self) -> tuple[int, int]:
        with self._lock:
            return len(self._events), self.total


_FINISHED: "OrderedDict[tuple, TrainingJob]" = OrderedDict()
_FINISHED_LOCK = threading.Lock()
_FINISHED_MAX = 4


def finished_training(key: tuple) -> TrainingJob | None:
    """A finished (never stopped, no error) training for these inputs, shared read-only."""
    with _FINISHED_LOCK:
        job = _FINISHED.get(key)
        if job is not None:
            _FINISHED.move_to_end(key)
        return job


def remember_training(key: tuple, job: TrainingJob) -> None:
    """Keep a finished training so the next session with the same inputs gets it at once."""
    if job.running or job.error is not None or job.stopped or job.model is None:
        return
    with _FINISHED_LOCK:
        _FINISHED[key] = job
        _FINISHED.move_to_end(key)
        while len(_FINISHED) > _FINISHED_MAX:
            _FINISHED.popitem(last=False)


def training_job(dataset: Dataset, sensitive: str, implicit: tuple[str, ...],
                 params: tuple[tuple[str, Any], ...], seed: int) -> TrainingJob:
    """A queued training job owned by the calling session (the page keeps it in its state).

    Running jobs are never shared between sessions: one viewer's Stop stops only their own.
    """
    return TrainingJob(dataset, sensitive, implicit, dict(params), seed, dataset.n_rows).start()


def _table_key(frame: pd.DataFrame) -> int:
    """A content hash of a (synthetic) table, for the sweep keys."""
    return int(pd.util.hash_pandas_object(frame, index=False).sum())


def _table1(progress, *, real: pd.DataFrame, synthetic: pd.DataFrame, sensitive: str, label: str,
            implicit: tuple[str, ...], classifiers: tuple[str, ...], seed: int) -> pd.DataFrame:
    return evaluate_settings(real, synthetic, sensitive=sensitive, label=label, implicit=list(implicit),
                             classifiers=list(classifiers), max_rows=20_000, random_state=seed,
                             progress=progress)


def table1(dataset: Dataset, synthetic: pd.DataFrame, sensitive: str, label: str,
           implicit: tuple[str, ...], classifiers: tuple[str, ...], seed: int) -> Sweep:
    """:func:`core.imposter.evaluate_settings` (settings A, B and TSTR), as a sweep job."""
    key = ("imposter-table1", dataset.fingerprint(), _table_key(synthetic), sensitive, label,
           tuple(implicit), tuple(classifiers), int(seed))
    return Sweep(key, _table1, dict(real=dataset.frame, synthetic=synthetic, sensitive=sensitive, label=label,
                                    implicit=tuple(implicit), classifiers=tuple(classifiers), seed=int(seed)),
                 "Training the classifiers on the real and the synthetic table")


def _krr(progress, *, dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
         classifier: str, seed: int, epsilons: tuple[float, ...], schema: PublicSchema | None) -> pd.DataFrame:
    return krr_sweep(dataset, sensitive=sensitive, label=label, implicit=list(implicit), epsilons=epsilons,
                     classifier=classifier, max_rows=20_000, schema=schema, random_state=seed,
                     progress=progress)


def krr_curve(dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
              classifier: str, seed: int, epsilons: tuple[float, ...] = FIG7_EPSILONS,
              schema: PublicSchema | None = None) -> Sweep:
    """:func:`core.imposter.krr_sweep` (one run per budget, at most 20,000 rows), as a sweep job.

    ``schema`` gives the perturbed columns' public domains (the page passes the session's).
    """
    key = ("imposter-krr", dataset.fingerprint(), sensitive, label, tuple(implicit), classifier, int(seed),
           tuple(epsilons), None if schema is None else schema.to_json())
    return Sweep(key, _krr, dict(dataset=dataset, sensitive=sensitive, label=label, implicit=tuple(implicit),
                                 classifier=classifier, seed=int(seed), epsilons=tuple(epsilons),
                                 schema=schema),
                 "Perturbing the implicit attributes at each epsilon")


def krr_audit_case(dataset: Dataset, column: str, epsilon: float, bins: int = 10,
                   schema: PublicSchema | None = None) -> AuditCase:
    """The kRR audit on one value of ``column``: its public domain from ``schema`` (declared
    categories and "(other)", or ``bins`` bins of the declared bounds), else read from the data."""
    if schema is not None and column in schema and schema[column].kind != "identifier":
        spec = schema[column]
        categories = (list(spec.domain) if spec.kind == "categorical"
                      else [f"bin {i + 1}" for i in range(bins)])
        return krr_case(categories, epsilon=epsilon)
    values = dataset.frame[column].dropna()
    if column in dataset.numeric and values.nunique() > bins:
        categories = [f"bin {i + 1}" for i in range(bins)]
    else:
        categories = sorted(values.unique(), key=str)
    return krr_case(categories, epsilon=epsilon)


# ------------------------------------------------------------------ the page's choices and tables
#: a column the page offers as the sensitive attribute or the label has this many values
CATEGORIES = (2, 20)


def _categorical(frame: pd.DataFrame, column: str) -> bool:
    return CATEGORIES[0] <= frame[column].nunique(dropna=True) <= CATEGORIES[1]


def sensitive_options(dataset: Dataset) -> list[str]:
    """The columns IMPOSTER can protect: not the label, 2 to 20 values."""
    frame = dataset.frame
    return [c for c in frame.columns if c != dataset.label and _categorical(frame, c)]


def label_options(dataset: Dataset, sensitive: str) -> list[str]:
    """The columns that can be the utility target beside ``sensitive``: 2 to 20 values."""
    frame = dataset.frame
    return [c for c in frame.columns if c != sensitive and _categorical(frame, c)]


def default_label(dataset: Dataset, choices: list[str], schema: PublicSchema | None = None) -> str:
    """The Data page's label (``schema.label``, else the dataset's) when it is among
    ``choices``, else the first choice."""
    for candidate in ((schema.label if schema is not None else None), dataset.label):
        if candidate in choices:
            return candidate
    return choices[0]


def protect_options(dataset: Dataset, sensitive: str) -> list[str]:
    """The attributes D2 may protect: every column but the sensitive one and the identifiers."""
    ids = set(dataset.identifiers)
    return [c for c in dataset.frame.columns if c != sensitive and c not in ids]


# ------------------------------------------------------------------ one dataset, one state
#: the page's widgets that name columns: checked against the current dataset, reset on a switch
COLUMN_KEYS = ("imposter_sensitive", "imposter_label", "imposter_audit_col")
#: the session key of the dataset (fingerprint) the column widgets were set for
COLUMNS_OF = "imposter_columns_of"
#: the session's trainings, one per dataset (fingerprint), the last few datasets
JOBS_KEY, _MAX_JOBS = "imposter_jobs", 3


def without_identifiers(dataset: Dataset, schema: PublicSchema | None = None) -> tuple[Dataset, tuple[str, ...]]:
    """``dataset`` without its identifier columns (the dataset's and the reviewed schema's,
    never the label or a sensitive column), and their names: they are never scored,
    synthesized or published."""
    cols = set(dataset.frame.columns)
    roles = {dataset.label, *dataset.sensitive}
    found = list(dataset.identifiers) + (list(schema.identifiers) if schema is not None else [])
    ids = tuple(c for c in dict.fromkeys(found) if c in cols and c not in roles)
    if not ids:
        return dataset, ()
    return dataset.with_identifiers(ids).without_identifiers(), ids


def forget_other_dataset(state: Any, dataset: Dataset) -> bool:
    """On a dataset switch (another fingerprint than the column widgets were set for), drop
    the column widgets' values, so they start again from the Data page's roles; True when
    it did. The first visit keeps them (a shared link's settings), checked by
    :func:`check_columns`."""
    fp = dataset.fingerprint()
    before = state.get(COLUMNS_OF)
    state[COLUMNS_OF] = fp
    if before is None or before == fp:
        return False
    for key in [*COLUMN_KEYS, *[k for k in list(state.keys()) if str(k).startswith("imposter_implicit_")]]:
        if key in state:
            del state[key]
    return True


def check_columns(state: Any, key: str, options: list[str]) -> None:
    """Drop the value of the column widget ``key`` when it names a column not among
    ``options`` (another dataset's column): the widget then starts from its default."""
    if key not in state:
        return
    value = state[key]
    values = value if isinstance(value, (list, tuple)) else [value]
    if any(v is not None and v not in options for v in values):
        del state[key]


def implicit_key(dataset: Dataset, sensitive: str, *settings: Any) -> str:
    """The protected-set widget's key: the dataset's fingerprint, s and the detection's
    settings (a new detection starts a new set from its verdict)."""
    import hashlib

    digest = hashlib.sha1(repr((sensitive, settings)).encode()).hexdigest()[:10]
    return f"imposter_implicit_{dataset.fingerprint()}_{digest}"


def session_jobs(state: Any) -> dict:
    """The session's trainings by dataset fingerprint (a dict kept in ``state``)."""
    jobs = state.get(JOBS_KEY)
    if not isinstance(jobs, dict):
        jobs = state[JOBS_KEY] = {}
    return jobs


def keep_job(jobs: dict, dataset: Dataset, job: TrainingJob) -> None:
    """Keep ``job`` as the training of ``dataset`` (the oldest dataset's goes first)."""
    fp = dataset.fingerprint()
    jobs.pop(fp, None)
    jobs[fp] = job
    while len(jobs) > _MAX_JOBS:
        old = jobs.pop(next(iter(jobs)))
        if old.running:
            old.stop()


# ------------------------------------------------------------------ detection: the two verdicts
#: the two rules, as the page names them
RULE_NAMES = {"default": "the default rule (gain over the constant guess)",
              "paper": "the paper's rule (theta, beta)"}


def _gain_text(scores: pd.DataFrame, attributes) -> str:
    rows = scores.set_index("attribute")
    return ", ".join(f"{md(a)} {rows.loc[a, 'gain']:+.3f} [{rows.loc[a, 'gain_lo']:+.3f}, "
                     f"{rows.loc[a, 'gain_hi']:+.3f}]" for a in attributes)


def verdict_lines(det: DetectionResult, *, sensitive: str) -> list[tuple[str, str]]:
    """The two verdicts side by side, as (``st`` function, markdown) pairs: the default
    rule's (with each flagged attribute's gain and interval) and the paper's (with the
    gain of each attribute it flags); names escaped."""
    s = md(sensitive)
    lines: list[tuple[str, str]] = []
    if det.default_implicit:
        lines.append(("success", f"**Default rule:** {len(det.default_implicit)} attribute(s) predict {s} better "
                                 f"than the constant guess ({det.majority_share:.3f}): "
                                 f"{_gain_text(det.scores, det.default_implicit)} (gain, {det.confidence:.0%} "
                                 "interval)."))
    else:
        lines.append(("info", f"**Default rule:** no implicit attribute found: no attribute predicts {s} "
                              f"better than always guessing its most common value ({det.majority_share:.3f}) "
                              "by a margin its held-out interval supports. IMPOSTER has nothing to remove."))
    tau = "n/a" if det.tau != det.tau else f"{det.tau:.3f}"
    lo, hi = det.tau_interval
    tau_ci = f" [{lo:.3f}, {hi:.3f}]" if lo == lo and hi == hi else ""
    if det.paper_implicit:
        zero = [a for a in det.paper_implicit if a not in det.default_implicit]
        text = (f"**The paper's rule:** flags {_gain_text(det.scores, det.paper_implicit)} (tau = {tau}{tau_ci} "
                f"≥ beta = {det.beta:g}; majority share {det.majority_share:.3f}).")
        if zero:
            text += (f" {len(zero)} of them gain nothing the held-out interval supports: the paper's rule has "
                     "no reference.")
        lines.append(("warning" if zero else "success", text))
    elif det.candidates:
        lines.append(("warning", f"**The paper's rule:** flags nothing: the {len(det.candidates)} candidate(s) "
                                 f"predict {s} with tau = {tau}{tau_ci} < beta = {det.beta:g}."))
    else:
        lines.append(("warning", f"**The paper's rule:** flags nothing: no attribute reaches theta = "
                                 f"{det.theta:g}."))
    if det.metric == "accuracy" and det.tau == det.tau:
        sentence = below_reference(det.tau, det.majority_share)
        if sentence:
            lines.append(("warning", "The paper's tau: " + sentence))
    return lines


def flagged_gains(det: DetectionResult) -> pd.DataFrame:
    """One row per attribute either rule flags: its held-out accuracy, gain and interval,
    NMI and the two verdicts (the table under the detection chart)."""
    flagged = set(det.default_implicit) | set(det.paper_implicit)
    rows = det.scores[det.scores["attribute"].isin(flagged)]
    return pd.DataFrame({
        "attribute": rows["attribute"].astype(str),
        "held-out accuracy": rows["accuracy"].astype(float),
        "gain": rows["gain"].astype(float), "gain: lower end": rows["gain_lo"].astype(float),
        "gain: upper end": rows["gain_hi"].astype(float), "NMI": rows["nmi"].astype(float),
        "default rule": np.where(rows["flagged"], "implicit", "–"),
        "paper's rule": np.where(rows["paper_flagged"], "implicit", "–"),
    }).reset_index(drop=True)


def nothing_to_protect(det: DetectionResult, *, presenting: bool = False) -> str:
    """The sentence beside a disabled Train: no attribute chosen to protect, and why."""
    if not det.default_implicit:
        text = ("No implicit attribute found, so IMPOSTER has nothing to remove: training it would only copy "
                "the table.")
    else:
        text = "No attribute is chosen to protect, so there is nothing to train for."
    if not presenting:
        text += " Choose attributes to protect above to train anyway."
    return text


def batch_size(n_rows: int) -> int:
    """500 rows, or a quarter of the table (at least 16) when it has fewer than 2,000 rows,
    so each epoch sees several batches."""
    return 500 if n_rows >= 2000 else max(16, n_rows // 4)


def training_params(lam: float, epochs: int, latent: int, batch: int, v2_loss: str) -> tuple[tuple[str, Any], ...]:
    """The synthesizer's parameters as the page trains it (hashable, for the job's key)."""
    return (("lambda_", float(lam)), ("epochs", int(epochs)), ("latent_dim", int(latent)),
            ("batch_size", int(batch)), ("hidden", (128, 128)), ("disc_hidden", (128,)),
            ("d2_generator_loss", v2_loss))


def class_count(dataset: Dataset, sensitive: str) -> int:
    """How many values the sensitive attribute takes (at least 2), for D2's chance level."""
    return max(2, int(dataset.frame[sensitive].nunique(dropna=True)))


def tradeoff_points(point_table: pd.DataFrame) -> tuple[tuple[float, float], tuple[float, float], float]:
    """From a one-classifier Table 1: IMPOSTER's (sensitive, label) accuracy on the
    synthetic table (setting B), the real table's (setting A), and the synthetic majority share."""
    row = point_table.iloc[0]
    point = (float(row[("B", "sensitive", "accuracy")]), float(row[("B", "label", "accuracy")]))
    real = (float(row[("A", "sensitive", "accuracy")]), float(row[("A", "label", "accuracy")]))
    return point, real, float(point_table.attrs["majority_synthetic"])


def table1_references(table: pd.DataFrame) -> list[str]:
    """Table 1's accuracies that fall to their constant guess, said in words
    (:func:`core.evaluation.metrics.below_reference`): the attacker on the real table (no leak to
    remove) and each label accuracy (A, B, train synthetic / test real)."""
    sens, lab = table.attrs.get("sensitive", "s"), table.attrs.get("label", "the label")
    out = []
    checks = [(("A", "sensitive", "accuracy"), "majority_real",
               f"On the real table the attacker predicting {md(sens)} from the implicit attributes", " — "
               "there was no leak to remove"),
              (("A", "label", "accuracy"), "label_majority_real", f"On the real table {md(lab)}", ""),
              (("B", "label", "accuracy"), "label_majority_synthetic", f"On the synthetic table {md(lab)}", ""),
              (("TSTR", "label", "accuracy"), "label_majority_real",
               f"Trained on the synthetic table and tested on the real one, {md(lab)}", "")]
    for col, ref_key, who, tail in checks:
        if col not in table.columns or ref_key not in table.attrs:
            continue
        for clf, value in table[col].astype(float).items():
            sentence = below_reference(value, float(table.attrs[ref_key]))
            if sentence:
                out.append(f"{who} ({md(clf)}): {sentence}{tail}")
    return out


def tradeoff_references(point: tuple[float, float], label_majority: float | None) -> list[str]:
    """IMPOSTER's label accuracy under its constant guess, said in words (empty otherwise)."""
    if label_majority is None:
        return []
    sentence = below_reference(point[1], float(label_majority))
    return [f"IMPOSTER's synthetic table, label accuracy: {sentence}"] if sentence else []


def krr_note(implicit: list[str] | tuple[str, ...], columns: list[str],
             schema: PublicSchema | None = None) -> str:
    """The sentence under the kRR comparison: what kRR's table spends and why it is not DP."""
    ledger = krr_ledger(list(implicit), 1.0, table_columns=list(columns), schema=schema)
    return (f"kRR's table: each record spends {len(implicit)} x epsilon on its perturbed values. "
            + (" ".join(ledger.not_dp_reasons) + " So it is not differentially private as a whole."
               if not ledger.is_dp else ""))


_TV_CACHE: "OrderedDict[tuple, dict]" = OrderedDict()
_TV_LOCK = threading.Lock()


def marginal_fidelity(dataset: Dataset, synthetic: pd.DataFrame, bins: int = 10) -> dict:
    """:func:`core.imposter.evaluation.marginal_tv` of the synthetic table against the real
    one (a few seconds on Adult), kept for the last few tables."""
    key = (dataset.fingerprint(), _table_key(synthetic), int(bins))
    with _TV_LOCK:
        if key in _TV_CACHE:
            _TV_CACHE.move_to_end(key)
            return _TV_CACHE[key]
    tv = marginal_tv(dataset.frame, synthetic[list(dataset.frame.columns)], bins=bins)
    with _TV_LOCK:
        _TV_CACHE[key] = tv
        while len(_TV_CACHE) > 8:
            _TV_CACHE.popitem(last=False)
    return tv


# ------------------------------------------------------------------ the sweeps (Table 2, Fig. 8)
def parse_grid(text: str, *, name: str, lo: float, hi: float, most: int = 8) -> tuple[float, ...]:
    """The numbers of a grid typed as "0.002, 0.01, 0.1": sorted, without repeats.

    Raises
    ------
    TypeError
        When ``text`` is not a str.
    ValueError
        When a value is not a number, lies outside [lo, hi], or there are none or more
        than ``most``: the rule in words.
    """
    if not isinstance(text, str):
        raise TypeError(f"The {name} grid must be text, got {type(text).__name__}.")
    parts = [p for p in text.replace(";", ",").replace(" ", ",").split(",") if p]
    values = []
    for part in parts:
        try:
            values.append(float(part))
        except ValueError:
            raise ValueError(f"The {name} grid takes numbers separated by commas; "
                             f"{part[:20]!r} is not a number.") from None
    bad = [v for v in values if not (lo <= v <= hi)]
    if bad:
        raise ValueError(f"Each {name} must lie in [{lo:g}, {hi:g}]; {bad[0]:g} does not.")
    values = sorted(set(values))
    if not values or len(values) > most:
        raise ValueError(f"The {name} grid needs 1 to {most} values (one training each), got {len(values)}.")
    return tuple(values)


def sweep_epochs(n_rows: int) -> int:
    """The sweeps' default epochs: 100 on a table of up to 5,000 rows (as the page's single
    training: on the 3,000-row census sample a theta sweep of 4 points takes about 40 s, a
    lambda sweep of 6 about 60 s; with 30 or 50 epochs the label is not learned yet and
    setting-B utility sits near its majority share), 5 on a larger one (each point is a
    training on the whole table)."""
    return 100 if n_rows <= 5000 else 5


def with_epochs(params: tuple[tuple[str, Any], ...], epochs: int) -> tuple[tuple[str, Any], ...]:
    """The page's training parameters with the sweep's epochs."""
    return tuple((k, int(epochs) if k == "epochs" else v) for k, v in params)


def _reporter(progress: Progress, runs: int):
    """``progress`` told per run (``told``) and, at most twice a second, per iteration
    (``callback``, handed to each training): the fraction over all the runs."""
    import time

    state = {"run": -1, "last": 0.0, "what": ""}

    def told(message: str) -> None:
        state["run"] += 1
        state["what"] = message
        progress(min(state["run"], runs - 1) / runs, message)

    def callback(event: dict) -> None:
        now = time.monotonic()
        if now - state["last"] < 0.5:
            return
        state["last"] = now
        run = min(max(state["run"], 0), runs - 1)
        share = event["iteration"] / max(event["iterations"], 1)
        progress((run + 0.9 * share) / runs,
                 f"{state['what']} (iteration {event['iteration']} of {event['iterations']})")

    return told, callback


def _theta_runs(progress, *, dataset: Dataset, sensitive: str, label: str, thetas: tuple[float, ...],
                classifier: str, params: tuple, seed: int, exclude: tuple[str, ...]) -> pd.DataFrame:
    told, callback = _reporter(progress, len(thetas))
    return _theta_sweep(dataset, sensitive=sensitive, label=label, thetas=thetas, classifier=classifier,
                        synthesizer=dict(params), exclude=exclude, random_state=seed, progress=told,
                        callback=callback)


def theta_sweep(dataset: Dataset, sensitive: str, label: str, thetas: tuple[float, ...], classifier: str,
                params: tuple[tuple[str, Any], ...], seed: int, exclude: tuple[str, ...] = ()) -> Sweep:
    """Table 2: :func:`core.imposter.theta_sweep` (one training per theta), as a sweep job."""
    kwargs = dict(sensitive=sensitive, label=label, thetas=tuple(float(t) for t in thetas),
                  classifier=classifier, params=tuple(params), seed=int(seed), exclude=tuple(exclude))
    return Sweep(("imposter-table2", dataset.fingerprint()) + tuple(kwargs.values()), _theta_runs,
                 dict(dataset=dataset, **kwargs), "Training IMPOSTER for each theta")


def _lambda_runs(progress, *, dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
                 lambdas: tuple[float, ...], classifier: str, params: tuple, seed: int) -> pd.DataFrame:
    told, callback = _reporter(progress, len(lambdas))
    return _lambda_sweep(dataset, sensitive=sensitive, label=label, implicit=list(implicit), lambdas=lambdas,
                         classifier=classifier, synthesizer=dict(params), random_state=seed,
                         progress=told, callback=callback)


def lambda_sweep(dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
                 lambdas: tuple[float, ...], classifier: str, params: tuple[tuple[str, Any], ...],
                 seed: int) -> Sweep:
    """Fig. 8: :func:`core.imposter.lambda_sweep` (one training per lambda), as a sweep job."""
    kwargs = dict(sensitive=sensitive, label=label, implicit=tuple(implicit),
                  lambdas=tuple(float(v) for v in lambdas), classifier=classifier,
                  params=tuple((k, v) for k, v in params if k != "lambda_"), seed=int(seed))
    return Sweep(("imposter-fig8", dataset.fingerprint()) + tuple(kwargs.values()), _lambda_runs,
                 dict(dataset=dataset, **kwargs), "Training IMPOSTER for each lambda")


# ------------------------------------------------------------------ the paper's claims
def fig6_claim(scores: pd.DataFrame, theta: float, sensitive: str) -> Claim:
    """:func:`core.imposter.claims.fig6_claim`."""
    return _claims.fig6_claim(scores, theta=float(theta), sensitive=sensitive)


def table1_claim(table: pd.DataFrame) -> Claim:
    """:func:`core.imposter.claims.table1_claim`."""
    return _claims.table1_claim(table)


def fig7_claim(curve: pd.DataFrame, imposter: tuple[float, float]) -> Claim:
    """:func:`core.imposter.claims.fig7_claim`."""
    return _claims.fig7_claim(curve, imposter=imposter)


def table2_claim(runs: pd.DataFrame) -> Claim:
    """:func:`core.imposter.claims.table2_claim`."""
    return _claims.table2_claim(runs)


def fig8_claim(runs: pd.DataFrame) -> Claim:
    """:func:`core.imposter.claims.fig8_claim`."""
    return _claims.fig8_claim(runs)
