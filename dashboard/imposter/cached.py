"""Cached calls into core.imposter for the IMPOSTER page (paper 002), and the page's choices.

Detection is a setup job (keyed on the dataset's fingerprint, the parameters and the
seed; :func:`dashboard.shared.widgets.job_view.setup_view`); the evaluation (Table 1), the kRR curve
and the sweeps of Table 2 and Fig. 8 are sweep jobs (:mod:`dashboard.shared.serving.sweeps`), whose
finished results every session shares; the marginal fidelity of a synthetic table is kept
by ``st.cache_data``. The training itself is a session-owned job
(:mod:`dashboard.imposter.training_jobs`); what the page says in words is in
:mod:`dashboard.imposter.wording`.
"""
from __future__ import annotations

import hashlib
import time
from typing import Any

import pandas as pd
import streamlit as st

from core.audit_cases import AuditCase, krr_case
from core.data import Dataset
from core.imposter import FIG7_EPSILONS, detect_implicit, evaluate_settings, krr_sweep
from core.imposter import claims as _claims
from core.imposter.evaluation import lambda_sweep as _lambda_sweep
from core.imposter.evaluation import EVALUATION_ROWS, marginal_tv
from core.imposter.krr_baseline import krr_perturb
from core.imposter.evaluation import theta_sweep as _theta_sweep
from core.imposter.paper import PAPER_FIG7, PAPER_FIG8, PAPER_TABLE1, PAPER_TABLE2
from core.claims.claim import Claim
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress
from dashboard.shared.serving.cache import HASH_FUNCS, TTL
from dashboard.shared.serving.sweeps import Sweep, warmed

#: the paper's numbers (:mod:`core.imposter.paper`, the one source), for the charts
PAPER = {"Table 1": PAPER_TABLE1, "Table 2": PAPER_TABLE2, "Fig. 7": PAPER_FIG7, "Fig. 8": PAPER_FIG8}
#: the grids of Table 2 and Fig. 8, as the page's text boxes start
THETAS, LAMBDAS = (0.002, 0.01, 0.02, 0.1), (0.0, 0.5, 1.0, 2.0, 5.0, 10.0)


def _detection(progress: Progress, *, dataset: Dataset, sensitive: str, theta: float, beta: float,
               classifier: str, metric: str, bins: int, seed: int, exclude: tuple[str, ...]):
    frame = dataset.frame.drop(columns=[c for c in exclude if c in dataset.frame.columns and c != sensitive])
    return detect_implicit(frame, sensitive, theta=theta, beta=beta, classifier=classifier, metric=metric,
                           bins=bins, random_state=seed, progress=progress)


@warmed  # the warm start's result on a built-in sample
def detection(dataset: Dataset, sensitive: str, theta: float, beta: float, classifier: str,
              metric: str, bins: int, seed: int, exclude: tuple[str, ...] = ()) -> Sweep:
    """:func:`core.imposter.detect_implicit` on the dataset without the ``exclude`` columns
    (the page leaves the label out unless the user lets it be rewritten), as a setup job."""
    kwargs = dict(sensitive=sensitive, theta=float(theta), beta=float(beta), classifier=classifier, metric=metric,
                  bins=int(bins), seed=int(seed), exclude=tuple(exclude))
    return Sweep(("detection", dataset.fingerprint()) + tuple(kwargs.values()), _detection,
                 dict(dataset=dataset, **kwargs), "Measuring what each attribute says about the sensitive one",
                 in_process=True)


def _table_key(frame: pd.DataFrame) -> int:
    """A content hash of a (synthetic) table, for the sweep keys."""
    return int(pd.util.hash_pandas_object(frame, index=False).sum())


def _table1(progress, *, real: pd.DataFrame, synthetic: pd.DataFrame, sensitive: str, label: str,
            implicit: tuple[str, ...], classifiers: tuple[str, ...], seed: int) -> pd.DataFrame:
    return evaluate_settings(real, synthetic, sensitive=sensitive, label=label, implicit=list(implicit),
                             classifiers=list(classifiers), max_rows=EVALUATION_ROWS, random_state=seed,
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
                     classifier=classifier, max_rows=EVALUATION_ROWS, schema=schema, random_state=seed,
                     progress=progress)


@warmed  # the warm start's result on a built-in sample
def krr_curve(dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
              classifier: str, seed: int, epsilons: tuple[float, ...] = FIG7_EPSILONS,
              schema: PublicSchema | None = None) -> Sweep:
    """:func:`core.imposter.krr_sweep` (one run per budget, at most :data:`EVALUATION_ROWS` rows), as a sweep job.

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
    digest = hashlib.sha1(repr((sensitive, settings)).encode()).hexdigest()[:10]
    return f"imposter_implicit_{dataset.fingerprint()}_{digest}"


def batch_size(n_rows: int) -> int:
    """500 rows, or a quarter of the table (at least 16) when it has fewer than 2,000 rows,
    so each epoch sees several batches."""
    return 500 if n_rows >= 2000 else max(16, n_rows // 4)


def training_params(lam: float, epochs: int, latent: int, batch: int, v2_loss: str) -> tuple[tuple[str, Any], ...]:
    """The synthesizer's parameters as the page trains it (hashable, for the job's key)."""
    return (("d2_weight", float(lam)), ("epochs", int(epochs)), ("latent_dim", int(latent)),
            ("batch_size", int(batch)), ("hidden", (128, 128)), ("disc_hidden", (128,)),
            ("d2_generator_loss", v2_loss))


def class_count(dataset: Dataset, sensitive: str) -> int:
    """How many values the sensitive attribute takes (at least 2), for D2's chance level."""
    return max(2, int(dataset.frame[sensitive].nunique(dropna=True)))


@st.cache_data(max_entries=8, ttl=TTL, show_spinner=False, hash_funcs=HASH_FUNCS)
def marginal_fidelity(dataset: Dataset, synthetic: pd.DataFrame, bins: int = 10) -> dict:
    """:func:`core.imposter.evaluation.marginal_tv` of the synthetic table against the real
    one (a few seconds on Adult), kept for the last few tables."""
    return marginal_tv(dataset.frame, synthetic[list(dataset.frame.columns)], bins=bins)


#: the budgets at which the real-against-release section offers kRR's perturbed table
FIDELITY_EPSILONS = (1.0, 10.0, 100.0)


def krr_table(dataset: Dataset, implicit: tuple[str, ...], epsilon: float, seed: int,
              schema: PublicSchema | None) -> pd.DataFrame:
    """The table kRR releases at ``epsilon`` (:func:`core.imposter.krr_baseline.krr_perturb`:
    the implicit attributes perturbed over the schema's public domains), drawn with the page's
    seed for display, kept for the last few (about 0.4 s on Adult)."""
    return _krr_table(dataset, tuple(implicit), float(epsilon), int(seed),
                      None if schema is None else schema.to_json())


@st.cache_data(max_entries=4, ttl=TTL, show_spinner="Perturbing the implicit attributes with kRR...",
               hash_funcs=HASH_FUNCS)
def _krr_table(dataset: Dataset, implicit: tuple[str, ...], epsilon: float, seed: int,
               schema: str | None) -> pd.DataFrame:
    return krr_perturb(dataset, columns=list(implicit), epsilon=epsilon, random_state=seed,
                       schema=None if schema is None else PublicSchema.from_json(schema))


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


def _throttled(progress: Progress, every: float = 0.5) -> Progress:
    """``progress`` told each training's start, and its iterations at most every ``every``
    seconds (each report crosses from the sweep's process to the page)."""
    last = [0.0]

    def told(fraction: float, message: str) -> None:
        now = time.monotonic()
        if ": iteration " in message and now - last[0] < every:
            return
        last[0] = now
        progress(fraction, message)

    return told


def _theta_runs(progress, *, dataset: Dataset, sensitive: str, label: str, thetas: tuple[float, ...],
                classifier: str, params: tuple, seed: int, exclude: tuple[str, ...]) -> pd.DataFrame:
    return _theta_sweep(dataset, sensitive=sensitive, label=label, thetas=thetas, classifier=classifier,
                        synthesizer=dict(params), exclude=exclude, random_state=seed,
                        progress=_throttled(progress))


@warmed  # the warm start's result on a built-in sample
def theta_sweep(dataset: Dataset, sensitive: str, label: str, thetas: tuple[float, ...], classifier: str,
                params: tuple[tuple[str, Any], ...], seed: int, exclude: tuple[str, ...] = ()) -> Sweep:
    """Table 2: :func:`core.imposter.theta_sweep` (one training per theta), as a sweep job."""
    kwargs = dict(sensitive=sensitive, label=label, thetas=tuple(float(t) for t in thetas),
                  classifier=classifier, params=tuple(params), seed=int(seed), exclude=tuple(exclude))
    return Sweep(("imposter-table2", dataset.fingerprint()) + tuple(kwargs.values()), _theta_runs,
                 dict(dataset=dataset, **kwargs), "Training IMPOSTER for each theta")


def _lambda_runs(progress, *, dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
                 lambdas: tuple[float, ...], classifier: str, params: tuple, seed: int) -> pd.DataFrame:
    return _lambda_sweep(dataset, sensitive=sensitive, label=label, implicit=list(implicit), lambdas=lambdas,
                         classifier=classifier, synthesizer=dict(params), random_state=seed,
                         progress=_throttled(progress))


@warmed  # the warm start's result on a built-in sample
def lambda_sweep(dataset: Dataset, sensitive: str, label: str, implicit: tuple[str, ...],
                 lambdas: tuple[float, ...], classifier: str, params: tuple[tuple[str, Any], ...],
                 seed: int) -> Sweep:
    """Fig. 8: :func:`core.imposter.lambda_sweep` (one training per lambda), as a sweep job."""
    kwargs = dict(sensitive=sensitive, label=label, implicit=tuple(implicit),
                  lambdas=tuple(float(v) for v in lambdas), classifier=classifier,
                  params=tuple((k, v) for k, v in params if k != "d2_weight"), seed=int(seed))
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
