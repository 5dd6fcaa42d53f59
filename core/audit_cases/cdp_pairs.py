"""Neighbouring pairs that move paper 000's data-dependent steps, and the pipelines they attack.

The other audit scenarios of :mod:`core.audit_cases` keep the sensitivity, the scaling and the
queries fixed, so they test the noise step only. The pairs here move what the faithful
schemes read from the records before any noise (docs/design.md section 2.1; issue 23):

* :func:`hub_pair` -- one record replaced by a *hub* correlated with seven others: the group
  sensitivity GS computed from the records moves from 1 to 8, and with it the noise scale;
* :func:`outlier_pair` -- one record's value far outside the declared bounds: a scaler
  fitted on the rows squeezes every other record, the schema's clipping does not;
* :func:`new_value_pair` -- one record with a value no other record has: query ranges drawn
  from the values can end there, ranges drawn from the schema cannot.

Each comes with the pipeline of the DP reading and the faithful (or mutant) one, as
``mechanism(data, random_state) -> float`` for :func:`core.audit.auditor.audit`.
"""
from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd

from core.audit.pairs import NeighbouringPair
from core.audit_cases.case import AuditCase
from core.cdp.dp_reading import group_bound, schema_labels, schema_matrix
from core.cdp.logistic import CDPLogisticRegression
from core.correlation.records import correlated_sensitivity
from core.data import Dataset, infer_column_types
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
from core.runtime.randomness import check_random_state

__all__ = [
    "HUB_GROUP",
    "hub_pair",
    "faithful_group_weight",
    "declared_bound_weight",
    "mutant_dp_label_weight",
    "outlier_pair",
    "schema_scaled_weight",
    "rows_scaled_weight",
    "new_value_pair",
    "query_top",
    "hub_case",
    "new_value_case",
]

#: Records the hub of :func:`hub_pair` correlates with, itself included (GS on D').
HUB_GROUP = 8
#: One-epoch training of the attacks: the tight case (every epoch's noise on one weight).
_TRAIN = dict(noise_method=1, epochs=1, learning_rate=1.0, momentum=0.0, clip_norm=1.0)


# ---------------------------------------------------------------------- the hub (sensitivity)
def hub_pair(n: int = 60, m: int = 16, *, seed: int = 0) -> NeighbouringPair:
    """(X, y) pairs where record 0 is ordinary on D and a hub on D'.

    Records 1..7 are ``0.85 u + 0.53 v_i`` with u, v_1..v_7 orthonormal and centred across
    the ``m`` attributes: each correlates 0.85 with u (above delta0 = 0.8) and 0.72 with the
    others (below). On D' record 0 is u itself, so GS = 8 there; on D it is a random record,
    and GS = 1. Every other record is random (correlations with anything below 0.8).
    """
    rng = check_random_state(seed)
    basis = np.linalg.qr(rng.normal(size=(m, m)))[0]
    centred = basis - basis.mean(axis=0, keepdims=True)
    q = np.linalg.qr(np.column_stack([np.ones(m), centred[:, :HUB_GROUP]]))[0][:, 1:HUB_GROUP + 1]
    u, vs = q[:, 0], q[:, 1:]
    X = rng.normal(size=(n, m))
    X[1:HUB_GROUP] = (0.85 * u + np.sqrt(1 - 0.85**2) * vs.T[:HUB_GROUP - 1]) * 3.0
    y = (rng.random(n) < 0.5).astype(int)
    y[:2] = [0, 1]
    X0 = X.copy()
    X1 = X.copy()
    X1[0] = u * 3.0
    return NeighbouringPair((X0, y), (X1, y.copy()),
                            f"record 0 replaced by a hub correlated with {HUB_GROUP - 1} others (GS 1 -> {HUB_GROUP})")


def _weight(model: CDPLogisticRegression, X: np.ndarray, y: np.ndarray, feature: int) -> float:
    return float(abs(model.fit(X, y).coef_[0, feature]))


def faithful_group_weight(data: tuple, random_state: int, *, epsilon: float = 1.0, feature: int = 0) -> float:
    """The Group scheme as paper 000 runs it: GS computed from the training records (its
    ledger says not DP), then CDP-LR; the statistic is |weight of ``feature``|."""
    X, y = data
    model = CDPLogisticRegression(epsilon=epsilon, sensitivity="group", threshold=0.8, random_state=random_state,
                                  **_TRAIN)
    return _weight(model, X, y, feature)


def declared_bound_weight(data: tuple, random_state: int, *, schema: PublicSchema, epsilon: float = 1.0,
                          feature: int = 0) -> float:
    """The DP reading: the sensitivity is the schema's declared group bound, kept by both
    datasets of a pair (:func:`core.cdp.dp_reading.group_bound`)."""
    X, y = data
    bound = group_bound(schema)
    model = CDPLogisticRegression(epsilon=epsilon, sensitivity=bound.value, sensitivity_source=bound.source,
                                  random_state=random_state, **_TRAIN)
    return _weight(model, X, y, feature)


def mutant_dp_label_weight(data: tuple, random_state: int, *, epsilon: float = 1.0, feature: int = 0) -> float:
    """The leak put back under a DP label: GS computed from the records and passed on as if
    declared (the old "given, taken as public")."""
    X, y = data
    gs = correlated_sensitivity(X, threshold=0.8).group
    model = CDPLogisticRegression(epsilon=epsilon, sensitivity=gs, sensitivity_source="declared",
                                  random_state=random_state, **_TRAIN)
    return _weight(model, X, y, feature)


def _dataset(frame: pd.DataFrame, name: str) -> Dataset:
    numeric, categorical = infer_column_types(frame)
    return Dataset(frame, "y", (), numeric, categorical, name=name)


# ---------------------------------------------------------------------- the outlier (scaling)
def _scaling_schema() -> PublicSchema:
    return PublicSchema((
        ColumnSchema("x", "numeric", lower=0.0, upper=10.0, source="declared", note="declared range"),
        ColumnSchema("z", "numeric", lower=0.0, upper=10.0, source="declared", note="declared range"),
        ColumnSchema("y", "categorical", categories=(0, 1), source="declared", note="the label"),
    ), label="y")


def outlier_pair(n: int = 100, *, seed: int = 0, far: float = 1e6) -> tuple[NeighbouringPair, PublicSchema]:
    """Tables (x, z, label y = x > 5) where record 0 has x at the declared upper bound (10) on
    D and ``far`` (outside the bounds) on D'; and the schema declaring x, z in [0, 10]."""
    rng = check_random_state(seed)
    x = rng.uniform(0, 10, n)
    frame = pd.DataFrame({"x": x, "z": rng.uniform(0, 10, n), "y": (x > 5).astype(int)})
    frame.loc[0, ["x", "y"]] = [10.0, 1]
    d0 = _dataset(frame, "outlier")
    f1 = frame.copy()
    f1.loc[0, "x"] = far
    d1 = _dataset(f1, "outlier")
    return NeighbouringPair(d0, d1, f"record 0's x moved from the upper bound 10 to {far:g}"), _scaling_schema()


def _train_x_weight(X: np.ndarray, y: np.ndarray, random_state: int, epsilon: float) -> float:
    model = CDPLogisticRegression(epsilon=epsilon, sensitivity=1.0, random_state=random_state, **_TRAIN)
    return float(model.fit(X, y).coef_[0, 0])


def schema_scaled_weight(data: Dataset, random_state: int, *, schema: PublicSchema, epsilon: float = 1.0) -> float:
    """The DP reading's matrix (:func:`core.cdp.dp_reading.schema_matrix`: clipped and scaled
    by the declared bounds), then CDP-LR; the statistic is x's weight."""
    X = schema_matrix(data, schema, ["x", "z"]).X
    return _train_x_weight(X, schema_labels(data, schema, "y"), random_state, epsilon)


def rows_scaled_weight(data: Dataset, random_state: int, *, epsilon: float = 1.0) -> float:
    """The mutant: a min-max scaler fitted on all the rows (one far value squeezes the rest)."""
    raw = data.frame[["x", "z"]].to_numpy(dtype=float)
    lo, hi = raw.min(axis=0), raw.max(axis=0)
    X = 2.0 * (raw - lo) / np.where(hi > lo, hi - lo, 1.0) - 1.0
    return _train_x_weight(X, data.frame["y"].to_numpy(dtype=int), random_state, epsilon)


# ---------------------------------------------------------------------- the new value (queries)
def new_value_pair(n: int = 80, *, seed: int = 0) -> tuple[NeighbouringPair, PublicSchema]:
    """Tables (age in 20..60, kind, label) where record 0's age is 40 on D and 95 on D' (a value
    no other record has, inside the declared bounds 0..100); and the schema declaring them."""
    rng = check_random_state(seed)
    frame = pd.DataFrame({"age": rng.integers(20, 61, n), "kind": rng.choice(["a", "b", "c"], n),
                          "y": rng.integers(0, 2, n)})
    frame.loc[0, "age"] = 40
    f1 = frame.copy()
    f1.loc[0, "age"] = 95
    schema = PublicSchema((
        ColumnSchema("age", "numeric", lower=0, upper=100, integer=True, source="declared", note="ages"),
        ColumnSchema("kind", "categorical", categories=("a", "b", "c"), source="declared", note="kinds"),
        ColumnSchema("y", "categorical", categories=(0, 1), source="declared", note="label"),
    ), label="y")
    pair = NeighbouringPair(_dataset(frame, "ages"), _dataset(f1, "ages"),
                            "record 0's age moved from 40 to 95, a value no other record has")
    return pair, schema


def query_top(data: Dataset, random_state: int, *, schema: PublicSchema, query_source: str = "schema",
              epsilon: float = 1.0, n_queries: int = 20) -> float:
    """One count release (:func:`core.cdp.publishing.dp_count_release`); the statistic is the
    highest end of an age range among its published queries (0 when none names age)."""
    from core.cdp.publishing import dp_count_release

    rel = dp_count_release(data, schema, epsilon=epsilon, n_queries=n_queries, query_source=query_source,
                           random_state=random_state)
    tops = [hi for q in rel.queries for c, lo, hi in q.conditions if c == "age"]
    return float(max(tops, default=0.0))



def hub_case(schema: PublicSchema, *, epsilon: float = 1.0):
    """The DP reading's pipeline audit on :func:`hub_pair`, as an
    :class:`~core.audit_cases.AuditCase` for the audit panel: the hub record would move a
    sensitivity read from the records; the DP reading's comes from ``schema`` (kept by both
    datasets), so its claim must hold. One epoch of noise method 1 (the tight case)."""
    pair = hub_pair()
    bound = group_bound(schema)
    X, y = pair.d1
    claimed = CDPLogisticRegression(epsilon=epsilon, sensitivity=bound.value, sensitivity_source=bound.source,
                                    random_state=0, **_TRAIN).fit(X, y).ledger_.total()[0]
    note = (f"CDP-LR's DP reading on a pair where one record is a hub correlated with {HUB_GROUP - 1} others "
            f"(GS read from the records would move from 1 to {HUB_GROUP}); the DP reading's sensitivity is the "
            f"schema's ({bound.value:g}). Statistic: |one trained weight|, one epoch of noise method 1.")
    return AuditCase("CDP-LR DP reading, hub record", partial(declared_bound_weight, schema=schema, epsilon=epsilon),
                     pair, None, claimed, 0.0, note)


def new_value_case(*, epsilon: float = 1.0, n_queries: int = 1):
    """The DP reading's count-release audit on :func:`new_value_pair`, as an
    :class:`~core.audit_cases.AuditCase` for the audit panel: one record brings an age no other
    record has; the queries come from the schema, so no published range can end there.
    Statistic: the highest end of an age range among the published queries."""
    pair, schema = new_value_pair()
    claimed = n_queries * float(epsilon)  # the whole release: its queries at epsilon each
    note = ("Count publishing's DP reading on a pair where one record's age is a value no other record has; "
            f"{n_queries} queries drawn from the schema, never from the values. Statistic: the highest end of an "
            "age range among the published queries.")
    return AuditCase("count release, new value", partial(query_top, schema=schema, epsilon=epsilon,
                                                          n_queries=n_queries),
                     pair, None, claimed, 0.0, note)
