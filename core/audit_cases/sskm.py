"""Audit cases of paper 003's SSKM_DP: the sound release, the steps before its noise, the paper's.

:func:`sskm_sound_case` audits the sound release's noise (one record moves to another
neuron; the statistic is the likelihood ratio of the released counts and sums),
:func:`sskm_sound_pipeline_cases` the steps before it (a new category, a value out of range,
a record changed on every column), and :func:`sskm_paper_case` the paper's release run whole
on a small sample, against its nominal epsilon.
"""
from __future__ import annotations

from functools import partial
from typing import Any, Callable, Sequence

import numpy as np

from core.audit_cases.case import AuditCase, pipeline_cases
from core.audit.pairs import NeighbouringPair, extreme_record
from core.audit.pipeline_pairs import held_out_pair
from core.runtime.randomness import RandomState, check_random_state
from core.validation import check_epsilon

__all__ = ["sskm_paper_case", "sskm_sound_case", "sskm_sound_pipeline_cases"]


def _llr_statistic(mu0: np.ndarray, mu1: np.ndarray) -> Callable[[np.ndarray], float]:
    """Log-likelihood ratio of two Laplace vectors with one scale (up to 1 / scale): the most
    powerful test. Kept at full precision: a statistic is a function of the output, so it
    cannot make two datasets more distinguishable than the output does; rounding it would
    only hide low bits that do differ (floating-point noise, Mironov 2012)."""
    mu0, mu1 = np.asarray(mu0, dtype=float), np.asarray(mu1, dtype=float)
    return partial(_llr, mu0=mu0, mu1=mu1)


def _llr(y: np.ndarray, *, mu0: np.ndarray, mu1: np.ndarray) -> float:
    return float(np.sum(np.abs(y - mu0) - np.abs(y - mu1)))


def _sskm_params(pub: Any) -> dict:
    import inspect

    names = [p for p in inspect.signature(type(pub).__init__).parameters if p != "self"]
    return {p: getattr(pub, p) for p in names}


class _SSKMRelease:
    """The sound SSKM_DP's whole release on a dataset, as an audit mechanism (picklable).

    Each dataset is scaled once (the schema's scaling is a deterministic function of the
    records, so computing it once per dataset is the same as computing it per run); every
    run then draws the noisy map and the noisy counts and sums afresh from its seed.
    ``output="aggregates"`` returns the release's noisy vector, else the published frame.
    """

    def __init__(self, params: dict, connections: Any, epsilon: float, reference: Any = None,
                 output: str = "frame") -> None:
        self.params, self.connections, self.epsilon = params, connections, epsilon
        self.reference, self.output = reference, output
        self._fitted: dict = {}

    def fitted(self, data: Any) -> Any:
        from core.sskm.sound import SSKMDP

        pub = self._fitted.get(id(data))
        if pub is None:
            pub = SSKMDP(**self.params).fit(data, connections=self.connections, reference=self.reference)
            self._fitted[id(data)] = pub
        return pub

    def __call__(self, data: Any, random_state: int) -> Any:
        import copy

        mine = copy.copy(self.fitted(data))
        if self.output == "aggregates":
            counts, sums = mine.release_aggregates(epsilon=self.epsilon, random_state=random_state)
            return np.concatenate([counts, sums.ravel()])
        return mine.publish(epsilon=self.epsilon, random_state=random_state)

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_fitted"] = {}  # ids mean nothing in another process
        return state


def _sskm_check_sound(pub: Any) -> None:
    from core.sskm.sound import SSKMDP

    if not isinstance(pub, SSKMDP):
        raise ValueError("the sound SSKM_DP audit needs a sound publisher (SSKMDP, not PaperSSKMDP).")
    if not isinstance(pub.random_state, (int, np.integer)):
        raise ValueError("the sound SSKM_DP audit needs a publisher seeded with an int (to refit the same map).")


def sskm_sound_case(pub: Any, frame: Any, *, epsilon: float) -> AuditCase:
    """The sound SSKM_DP fitted on ``frame``: one record moves to another neuron.

    The record with the largest scaled values is replaced by the one with the largest
    values among the records of another neuron (under the fitted map), so counts and sums
    move far (near the sensitivity 2(m + 1)). Both datasets are scaled with the same public
    schema; every run draws the noisy map (or uses the public reference map) and the
    release's noisy counts and sums, the mechanism's output. The statistic is the
    log-likelihood ratio of the released vector under the fitted map's assignment (exact
    with a reference map; a valid, weaker test when each run draws its own noisy map). The
    steps before the noise are audited by :func:`sskm_sound_pipeline_cases`.
    """
    _sskm_check_sound(pub)
    eps = check_epsilon(epsilon)
    X = pub.table_.X
    labels = np.asarray(pub.som_.predict(X))
    r = int(np.argmax(X.sum(axis=1)))
    other = np.flatnonzero(labels != labels[r])
    if len(other) == 0:
        raise ValueError("every record sits in one neuron: the audit needs two; use a larger map.")
    s = int(other[np.argmax(X[other].sum(axis=1))])
    d1 = frame.copy()
    d1.iloc[r] = frame.iloc[s].to_numpy()
    params = _sskm_params(pub)
    reference = getattr(pub, "reference_frame_", None)
    run = _SSKMRelease(params, pub.connections_, eps, reference, output="aggregates")
    p0, p1 = run.fitted(frame), run.fitted(d1)
    mu0 = np.concatenate([p0._counts, p0._sums.ravel()])
    mu1 = np.concatenate([p1._counts, p1._sums.ravel()])
    pair = NeighbouringPair(frame, d1, f"record {r} replaced by a copy of record {s} "
                                       "(another neuron, the largest values)")
    moved = float(np.abs(mu0 - mu1).sum())
    note = (f"SSKM_DP (sound): one record moves to another neuron; the released counts and sums move by "
            f"{moved:.3g} in L1 (the noise is calibrated to {2 * (X.shape[1] + 1)}). Statistic: the "
            "log-likelihood ratio of the released vector.")
    return AuditCase("SSKM_DP (sound)", run, pair, _llr_statistic(mu0, mu1), eps, 0.0, note)


def _sskm_outside(out: Any, *, seen: dict) -> float:
    """How many released cells lie outside what ``d0`` holds: a category it does not have, a
    number beyond its observed range (full precision)."""
    total = 0.0
    for col, allowed in seen.items():
        if col not in out.columns:
            continue
        values = out[col]
        if isinstance(allowed, tuple):
            v = _sskm_numbers(values)
            total += float(np.sum((v > allowed[1]) | (v < allowed[0])))
        else:
            total += float((~values.astype(str).isin(allowed)).sum())
    return total


def _sskm_numbers(values: Any) -> np.ndarray:
    import pandas as pd

    return pd.to_numeric(values, errors="coerce").to_numpy(dtype=float)


def sskm_sound_pipeline_cases(pub: Any, frame: Any, *, epsilon: float, index: int = 0,
                              columns: Sequence[str] | None = None) -> list[AuditCase]:
    """The sound SSKM_DP's steps before the noise: one case per data-dependent step.

    :func:`pipeline_cases` with the whole release (scaling, noisy map, noisy counts and
    sums) as the mechanism: record ``index`` brings a category outside the declared list
    (each categorical column), a value ten ranges above the maximum (each numeric column),
    and one record changed on every column at once (what the old held-out part read). The
    statistic counts released cells outside what ``d0`` holds (a new category, a number
    beyond ``d0``'s range): a release that read its categories or bounds from the rows shows
    them on one side only; with a public schema both sides are clipped alike. ``columns``
    limits the one-column pairs to those columns (default every published column; each case
    costs 2 x runs releases; ``()`` keeps only the pair that changes every column at once).
    """
    _sskm_check_sound(pub)
    eps = check_epsilon(epsilon)
    table = pub.table_
    cols = list(table.columns)
    frame = frame[cols] if all(c in frame.columns for c in cols) else frame
    categorical = [c for c in cols if c in table.categories]
    numeric = [c for c in cols if c not in table.categories]
    seen = {}
    for c in cols:
        if c in table.categories:
            seen[c] = frozenset(str(v) for v in frame[c].dropna().unique())
        else:
            v = _sskm_numbers(frame[c])
            seen[c] = (float(np.nanmin(v)), float(np.nanmax(v)))
    run = _SSKMRelease(_sskm_params(pub), pub.connections_, eps, getattr(pub, "reference_frame_", None))
    if columns is not None:
        categorical = [c for c in categorical if c in columns]
        numeric = [c for c in numeric if c in columns]
    cases = []
    if categorical or numeric:
        cases = pipeline_cases("SSKM_DP (sound)", run, frame, claimed_epsilon=eps,
                               statistic=partial(_sskm_outside, seen=seen), categorical=categorical,
                               numeric=numeric, schema=pub.schema, index=index,
                               note="Statistic: released cells outside what the first dataset holds.")
    whole = held_out_pair(frame, [index], index=index, schema=pub.schema)
    cases.append(AuditCase("SSKM_DP (sound)", run, whole, partial(_sskm_outside, seen=seen), eps, 0.0,
                           f"SSKM_DP (sound): record {index} changed on every column (out of range, new "
                           "categories): what the old held-out part read without noise."))
    return cases


def _sskm_paper_run(data: Any, random_state: int, *, params: dict) -> float:
    from core.sskm.paper_publisher import PaperSSKMDP

    pub = PaperSSKMDP(**params, random_state=random_state)
    pub.fit(data).publish()
    exact = [j for j, c in enumerate(pub.table_.columns) if c not in set(pub.protected_)]
    return float(pub.published_scaled_[0, exact or slice(None)].sum())


def sskm_paper_case(frame: Any, *, sensitive: Sequence[str], epsilon: float, cs_threshold: float,
                    n_rows: int = 40, rows: int = 2, cols: int = 2, iterations: int = 400,
                    random_state: RandomState = 0) -> AuditCase:
    """The paper's SSKM_DP, run whole (map, MIC and noise) on a sample of ``n_rows`` records.

    Record 0 is replaced by an extreme record (every attribute at its largest value). The
    paper publishes record 0's row in place as its cluster centre, whose unprotected
    attributes are exact means and whose cluster the map chose from the raw records; the
    statistic is the sum of that row's unprotected attributes (scaled; all attributes when
    every one is protected). The claim checked is the paper's nominal
    epsilon. A small map and sample keep each run fast; the leak does not depend on them.
    """
    from core.sskm.paper_publisher import PaperSSKMDP

    eps = check_epsilon(epsilon)
    rng = check_random_state(random_state if isinstance(random_state, (int, np.integer)) else None)
    sample = frame.iloc[np.sort(rng.choice(len(frame), size=min(n_rows, len(frame)), replace=False))]
    sample = sample.reset_index(drop=True)
    d1 = sample.copy()
    d1.iloc[0] = _pd_row(extreme_record(sample), sample.columns)
    params = dict(epsilon=eps, sensitive=tuple(sensitive), cs_threshold=cs_threshold,
                  rows=rows, cols=cols, iterations=iterations, mic_max_rows=None,
                  sfla_params={"iterations": 3, "n_frogs": 6})
    nominal = PaperSSKMDP(**params, random_state=0).fit(sample)
    nominal.publish()
    pair = NeighbouringPair(sample, d1, "record 0 replaced by an extreme record (every attribute at its "
                                        f"largest value), {len(sample)} records")
    note = (f"SSKM_DP (paper), run whole on a sample of {len(sample)} records with a {rows} x {cols} map: "
            "record 0 replaced by an extreme record. Statistic: the sum of the unprotected attributes of its "
            "published row (exact in the paper). The claim "
            "checked is the paper's nominal epsilon.")
    return AuditCase("SSKM_DP (paper)", partial(_sskm_paper_run, params=params), pair, None,
                     nominal.ledger_.nominal()[0], 0.0, note)


def _pd_row(record: Any, columns: Sequence[str]) -> list:
    """A record (dict, Series or sequence) as a list in ``columns`` order."""
    if isinstance(record, dict):
        return [record[c] for c in columns]
    if hasattr(record, "reindex"):
        return list(record.reindex(columns))
    return list(record)
