"""The k-ary randomized-response baseline of paper 002 (Eq. 1, Section 5.6, Fig. 7).

Each implicit attribute of every record is reported through kRR with budget epsilon:
kept with probability e^eps / (k - 1 + e^eps), otherwise replaced by one of the other
k - 1 values. The sensitive attribute itself and the other attributes are left as they
are. The perturbed table is then evaluated like IMPOSTER's synthetic one in setting B:
classifiers trained and tested on it (if the label is an implicit attribute it is
perturbed too, as in the paper).

kRR needs a finite, **public** domain per column (docs/design.md section 2.1): with a
:class:`~core.privacy.schema.PublicSchema` (``schema=``), a categorical column's domain is its
declared categories plus :data:`~core.privacy.schema_columns.OTHER` (a value outside the list is
reported as OTHER), and a numeric column is cut into ``bins`` equal-width bins of its
public bounds (a value outside them is clipped into the first or last bin) and reported
as the bin's midpoint. Nothing about the domain is read from the rows, so one replaced
record changes only its own report. Without a schema, the paper's way is kept for the
reproductions: the domain is the column's observed values and numeric columns are cut
into quantile bins of the data; the ledger then says the release is not differentially
private (a new category or an extreme value of one record moves the domain, the bins
and the keep probability of every record).

Privacy meaning: each implicit value is epsilon-locally-DP on its own; a record with j
perturbed attributes spends j * epsilon in total (sequential composition). Nothing else
of the record is protected.
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable, Sequence

import numpy as np
import pandas as pd

from core.data import Dataset, infer_column_types
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import OTHER
from core.evaluation.tasks import score_task
from core.imposter.evaluation import _split
from core.privacy.mechanisms import krr
from core.privacy.ledger import PrivacyLedger
from core.validation import DataError, check_epsilon, check_positive_int
from core.runtime.progress import Stop, watch
from core.runtime.randomness import RandomState, check_random_state, draw_seed

__all__ = ["krr_perturb", "krr_ledger", "schema_domain", "public_bin_edges", "DATA_DOMAIN_REASON",
           "krr_baseline", "krr_sweep", "FIG7_EPSILONS"]

#: The privacy budgets of Fig. 7 (the paper sweeps epsilon from 1 to 100).
FIG7_EPSILONS = (1.0, 2.0, 3.0, 5.0, 7.0, 10.0, 20.0, 50.0, 100.0)

_MISSING = "__pux_missing__"


def _numeric_columns(data) -> tuple[pd.DataFrame, tuple[str, ...]]:
    if isinstance(data, Dataset):
        return data.frame, data.numeric
    if isinstance(data, pd.DataFrame):
        return data, infer_column_types(data)[0]
    raise TypeError(f"expected a Dataset or DataFrame, got {type(data).__name__}.")


#: Why a kRR release without a public schema is not differentially private.
DATA_DOMAIN_REASON = (
    "kRR's domain was read from your data (each column's observed categories, and quantile bins "
    "of numeric columns): one record with a new category or an extreme value changes the domain "
    "and the bins of every record's report."
)


def schema_domain(schema: PublicSchema, column: str, values: pd.Series, *, bins: int) -> tuple[np.ndarray, list]:
    """(codes, reported values) of ``values`` over the public domain of ``column``.

    A categorical column: codes over :attr:`ColumnSchema.domain` (the declared categories,
    then OTHER; a value outside the list and a missing one become OTHER), reported as the
    category itself. A numeric column: ``bins`` equal-width bins of the public bounds
    (values clipped to them; a missing value takes the middle of the range), reported as
    the bin's midpoint (rounded for an integer column). Only the schema decides the domain:
    no value of ``values`` changes another's code.
    """
    spec = schema[column]
    if spec.kind == "identifier":
        raise ValueError(f"'{column}' is an identifier in the schema: kRR never perturbs nor "
                         "publishes an identifier; drop it first.")
    if spec.kind == "categorical":
        return schema.codes(values.to_frame(column), column), list(spec.domain)
    edges = public_bin_edges(spec, bins)
    v = schema.conform(values.to_frame(column), [column])[column].to_numpy(dtype=np.float64)
    codes = np.clip(np.searchsorted(edges, v, side="right") - 1, 0, len(edges) - 2).astype(np.int64)
    mids = (edges[:-1] + edges[1:]) / 2.0
    if spec.integer:
        mids = np.clip(np.round(mids), spec.lower, spec.upper)
    return codes, mids.tolist()


def public_bin_edges(spec, bins: int) -> np.ndarray:
    """``bins`` + 1 equal-width edges over a numeric column's public bounds (never quantiles).

    An integer column with fewer whole values than ``bins`` gets one bin per value.
    """
    lo, hi = float(spec.lower), float(spec.upper)
    if spec.integer and hi - lo + 1 <= bins:
        return np.arange(lo, hi + 2) - 0.5
    return np.linspace(lo, hi, bins + 1)


def _data_domain(frame: pd.DataFrame, col: str, numeric: Sequence[str], bins: int):
    """The paper's way (no schema): the domain read from the column's values."""
    s = frame[col]
    if col in numeric and s.nunique(dropna=True) > bins:
        vals = pd.to_numeric(s, errors="coerce")
        codes, edges = pd.qcut(vals, q=bins, labels=False, retbins=True, duplicates="drop")
        mids = (edges[:-1] + edges[1:]) / 2.0
        codes = codes.fillna(-1).astype(np.int64).to_numpy()
        cats = sorted(set(codes.tolist()))
        return "bins", codes, cats, mids
    filled = s.astype(object).where(s.notna(), _MISSING)
    return "values", filled.to_numpy(), sorted(filled.unique(), key=str), None


def krr_perturb(
    data: pd.DataFrame | Dataset,
    *,
    columns: Sequence[str],
    epsilon: float,
    bins: int = 10,
    schema: PublicSchema | None = None,
    random_state: RandomState = None,
) -> pd.DataFrame:
    """A copy of the table with ``columns`` perturbed by k-ary randomized response.

    Parameters
    ----------
    data : DataFrame or Dataset
        The real table.
    columns : sequence of str
        Attributes to perturb (the implicit-privacy attributes).
    epsilon : float
        Local privacy budget per perturbed value (Eq. 1). Smaller means more values
        replaced at random.
    bins : int
        Bins of a numeric attribute: equal-width bins of its public bounds with a schema;
        quantile bins of the data (for more than ``bins`` distinct values) without one.
    schema : PublicSchema, optional
        The public domain of every perturbed column (:func:`schema_domain`). Without it the
        domain is read from the data, as the paper does, and :func:`krr_ledger` says the
        release is not differentially private.
    random_state : int, Generator or None
        Source of the randomness.
    """
    frame, numeric = _numeric_columns(data)
    eps = check_epsilon(epsilon)
    bins = check_positive_int(bins, name="bins", minimum=2)
    if schema is not None and not isinstance(schema, PublicSchema):
        raise TypeError(f"schema must be a PublicSchema or None, got {type(schema).__name__}.")
    rng = check_random_state(random_state)
    out = frame.copy()
    for col in columns:
        if col not in frame.columns:
            raise DataError(f"The column '{col}' is not in the data.")
        s = frame[col]
        if schema is not None:
            if col not in schema:
                raise DataError(f"The column '{col}' is not in the public schema: declare its "
                                "categories or bounds first.")
            codes, domain = schema_domain(schema, col, s, bins=bins)
            noisy = krr(codes, categories=range(len(domain)), epsilon=eps,
                        random_state=rng).astype(np.int64)
            values = np.empty(len(domain), dtype=object)
            values[:] = domain
            reported = pd.Series(values[noisy], index=s.index)
            if schema[col].kind == "numeric":
                reported = reported.astype(np.int64 if schema[col].integer else np.float64)
            else:
                try:
                    reported = reported.infer_objects() if OTHER not in set(reported) else reported
                except (TypeError, ValueError):
                    pass
            out[col] = reported
            continue
        kind, codes, cats, mids = _data_domain(frame, col, numeric, bins)
        if len(cats) < 2:
            continue
        if kind == "bins":
            noisy = krr(codes, categories=cats, epsilon=eps, random_state=rng).astype(np.int64)
            values = np.where(noisy >= 0, mids[np.clip(noisy, 0, len(mids) - 1)], np.nan)
            if pd.api.types.is_integer_dtype(s):
                values = np.round(values)
                out[col] = values.astype(s.dtype) if not np.isnan(values).any() else values
            else:
                out[col] = values
        else:
            noisy = pd.Series(krr(codes, categories=cats, epsilon=eps, random_state=rng), index=s.index)
            noisy = noisy.where(noisy != _MISSING, np.nan)
            try:
                noisy = noisy.astype(s.dtype)
            except (TypeError, ValueError):
                pass
            out[col] = noisy
    return out


def krr_ledger(columns: Sequence[str], epsilon: float, *, table_columns: Sequence[str] = (),
               schema: PublicSchema | None = None) -> PrivacyLedger:
    """The ledger of a table released by :func:`krr_perturb`.

    Each perturbed value is epsilon-locally-DP, so one record spends len(columns) x epsilon
    (sequential composition) -- when the domain is public. It covers only what kRR
    perturbs, honestly:

    - without ``schema`` the domain and the bins were read from the data
      (:data:`DATA_DOMAIN_REASON`): not DP;
    - with ``schema``, :meth:`PublicSchema.charge` of the perturbed columns (an entry read
      from the data makes it not DP; declared entries are listed as assumptions);
    - when the table has other columns, published exactly, the release as a whole is not
      DP under the project's relation (replacing a record changes them visibly).

    Parameters
    ----------
    columns : sequence of str
        The perturbed attributes.
    epsilon : float
        Budget of each perturbed value.
    table_columns : sequence of str
        Every column of the released table (default: only the perturbed ones).
    schema : PublicSchema, optional
        The schema :func:`krr_perturb` took the domain from (None: read from the data).
    """
    eps = check_epsilon(epsilon)
    ledger = PrivacyLedger()
    for col in columns:
        ledger.spend(eps, label=f"kRR on '{col}' (every record)",
                     noise="k-ary randomized response over the column's domain")
    if schema is None:
        ledger.mark_not_dp(DATA_DOMAIN_REASON)
    else:
        if not isinstance(schema, PublicSchema):
            raise TypeError(f"schema must be a PublicSchema or None, got {type(schema).__name__}.")
        schema.charge(ledger, list(columns))
    exact = [c for c in table_columns if c not in set(columns)]
    if exact:
        ledger.mark_not_dp(
            f"kRR perturbs only {len(list(columns))} column(s); the other {len(exact)} are published "
            "exactly, so a replaced record shows in the release."
        )
    return ledger


def krr_baseline(
    data: pd.DataFrame | Dataset,
    *,
    sensitive: str,
    label: str,
    implicit: Sequence[str],
    epsilon: float,
    classifier: str = "gbdt",
    bins: int = 10,
    test_size: float = 0.3,
    schema: PublicSchema | None = None,
    random_state: RandomState = None,
) -> dict[str, float]:
    """Perturb the implicit attributes with kRR, then train and test on the result.

    Returns accuracy and macro F1 of ``classifier`` predicting ``sensitive`` from the
    perturbed implicit attributes and ``label`` from every other attribute (keys
    ``sensitive_accuracy``, ``sensitive_f1``, ``label_accuracy``, ``label_f1``).
    ``schema`` gives the perturbed columns' public domains (see :func:`krr_perturb`);
    without it the domains are read from the data, the paper's way.
    """
    frame, _ = _numeric_columns(data)
    rng = check_random_state(random_state)
    noisy = krr_perturb(data, columns=implicit, epsilon=epsilon, bins=bins, schema=schema,
                        random_state=rng)
    out: dict[str, float] = {}
    features = {"sensitive": list(implicit), "label": [c for c in frame.columns if c != label]}
    for task, target in (("sensitive", sensitive), ("label", label)):
        train, test = _split(noisy, target, test_size, draw_seed(rng))
        res = score_task(train, test, target, features[task], classifier=classifier,
                         random_state=draw_seed(rng))
        out[f"{task}_accuracy"] = res["accuracy"]
        out[f"{task}_f1"] = res["f1"]
    return out


def krr_sweep(
    data: pd.DataFrame | Dataset,
    *,
    sensitive: str,
    label: str,
    implicit: Sequence[str],
    epsilons: Sequence[float] = FIG7_EPSILONS,
    classifier: str = "gbdt",
    repetitions: int = 1,
    bins: int = 10,
    max_rows: int | None = None,
    schema: PublicSchema | None = None,
    random_state: RandomState = 0,
    progress: Callable[[float, str], None] | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Fig. 7: the kRR baseline over a range of epsilon, ``repetitions`` runs each.

    Returns one row per (epsilon, repetition) with the four scores of
    :func:`krr_baseline` (``schema``: the public domains of the perturbed columns). ``progress``
    is told each run; ``stop`` (a ``threading.Event``), once set, ends the sweep at its next
    report with :class:`core.runtime.progress.Stopped`.
    """
    progress = watch(progress, stop)
    frame, _ = _numeric_columns(data)
    reps = check_positive_int(repetitions, name="repetitions")
    rng = check_random_state(random_state)
    if max_rows is not None and len(frame) > max_rows:
        idx = np.sort(rng.choice(len(frame), size=max_rows, replace=False))
        sub = frame.iloc[idx].reset_index(drop=True)
        data = replace(data, frame=sub) if isinstance(data, Dataset) else sub
    rows = []
    total = len(epsilons) * reps
    for i, eps in enumerate(epsilons):
        for rep in range(reps):
            seed = draw_seed(rng)
            res = krr_baseline(data, sensitive=sensitive, label=label, implicit=implicit,
                               epsilon=eps, classifier=classifier, bins=bins, schema=schema,
                               random_state=seed)
            rows.append({"epsilon": float(eps), "repetition": rep, "seed": seed, **res})
            if progress is not None:
                progress((i * reps + rep + 1) / total, f"epsilon={eps:g}, run {rep + 1}")
    return pd.DataFrame(rows)
