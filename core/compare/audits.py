"""The audit beside every frontier point: each DP release's claim against a measured lower bound.

Every method of the comparison that claims differential privacy (``dp=True`` in
:data:`core.compare.registry.METHODS`) has an entry in :data:`AUDITS`: a builder that turns
the comparison's context and one epsilon into the :class:`~core.audit_cases.AuditCase` list
of that method, built from the cases of :mod:`core.audit_cases`. :func:`run_audits` runs them
once per (method, epsilon) (not per repetition), keeps the worst case
(:func:`core.audit_cases.worst_result`) and gives one row per point: the claim, the audited
lower bound, the ceiling the run count allows (:func:`core.audit.bounds.audit_ceiling`), the
runs, the seconds, the worst pair in words and a verdict (:func:`audit_verdict`).

Each audit tests **the step that spends the budget**, on a seeded sample of
:data:`AUDIT_ROWS` training records, so a point costs seconds:

- CDP-LR: the page's DP reading trained on the sample (:func:`core.audit_cases.cdp_lr_case`:
  a record at an extreme point changes label; statistic: one trained weight) and the hub-record
  pair of :func:`core.audit_cases.cdp_pairs.hub_case` (a sensitivity read from the records would move).
- SSKM_DP (sound): the noisy counts and sums of every neuron (:func:`core.audit_cases.sskm_sound_case`)
  and the whole release with one record changed on every column
  (:func:`core.audit_cases.sskm_sound_pipeline_cases`).
- IDP-KMeans: one noisy Lloyd step with the whole budget from two public centres (the
  (counts, sums) vector the ledger pays for; statistic: its log-likelihood ratio), and Compare's
  own release (fit and release of the registry) with one record changed on every column.
- MST and AIM: the release's own OpenDP measurement of the noisy marginals, through the function
  the release calls (:func:`core.marginal.synthesizer.measure_marginals`; the case is
  :func:`core.audit_cases.marginal.mst_case`), without the model fit (post-processing). It
  takes seconds a run (OpenDP searches a noise scale for each marginal it chooses), so the
  point is timed first: where the runs would take more than :data:`AUDIT_POINT_SECONDS`, or
  the release step fails, the point says "not audited" and why, never a bound from a
  stand-in. OpenDP's noise is not seedable: these audits vary from run to run
  (:data:`UNSEEDED`, said in the row's note).

An audit can only find violations: a lower bound above the claim is evidence of a bug; one
below it proves nothing. A claim above the ceiling cannot be tested with that many runs.
"""
from __future__ import annotations

import math
import time
from dataclasses import replace
from functools import partial
from typing import Any, Callable, Mapping, Sequence

import numpy as np
import pandas as pd

from core.audit.bounds import MIN_RUNS, audit_ceiling
from core.audit_cases import (
    AuditCase, cdp_lr_case, run_cases, sskm_sound_case, sskm_sound_pipeline_cases, worst_result,
)
from core.audit.pairs import NeighbouringPair
from core.audit.pipeline_pairs import held_out_pair
from core.audit_cases.cdp_pairs import hub_case
from core.cdp.dp_reading import group_bound
from core.cdp.schedule import PRESETS
from core.compare.context import RunContext
from core.compare.methods import CDP_LR_NOISE_METHOD, CDP_LR_PRESET
from core.compare.registry import METHODS
from core.privacy.schema import PublicSchema
from core.runtime.progress import Progress, Stop, check_stop, report, stage
from core.runtime.randomness import display_rng, display_seed
from core.sskm.dp_kmeans import idp_kmeans
from core.validation import DataError

__all__ = [
    "AUDITS", "AUDIT_COLUMNS", "AUDIT_POINT_SECONDS", "AUDIT_ROWS", "DEFAULT_AUDIT_RUNS", "UNSEEDED",
    "audit_frame", "audit_verdict", "check_audit_runs", "empty_audits", "idp_kmeans_step_case", "run_audits",
]

#: Training records (a seeded sample, the same for every method) each audit runs on.
AUDIT_ROWS = 200
#: Runs per side of each audit unless the comparison says otherwise (0: no audit).
DEFAULT_AUDIT_RUNS = 500
#: Methods whose noise comes from a sampler that takes no seed: their audits vary run to run.
UNSEEDED = frozenset(m.name for m in METHODS.values() if not m.seeded)
#: The columns of one audited point (:func:`run_audits`), after ``method`` and ``epsilon``.
AUDIT_COLUMNS = ("audit_claim", "audit_lower", "audit_ceiling", "audit_runs", "audit_seconds", "audit_pair",
                 "audit_violation", "audit_verdict", "audit_note")
#: The most seconds one point's audit may take, estimated from one timed run of each case whose
#: mechanism times itself (MST's and AIM's real measurement): above it the point is "not audited".
AUDIT_POINT_SECONDS = 120.0
_UNSEEDED_NOTE = ("OpenDP's noise cannot be seeded: this audit's numbers vary from run to run (the same config "
                  "gives the same releases elsewhere only where their noise is seeded).")


def check_audit_runs(value: Any, name: str = "audit_runs") -> int:
    """``value`` as runs per side: 0 (no audit) or at least :data:`core.audit.bounds.MIN_RUNS`."""
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)):
        raise TypeError(f"{name} must be an int, got {type(value).__name__}.")
    if value != 0 and value < MIN_RUNS:
        raise ValueError(f"{name} must be 0 (no audit) or at least {MIN_RUNS} runs per side, got {value}.")
    return int(value)


# ----------------------------------------------------------------------------- the sample
def audit_frame(ctx: RunContext) -> pd.DataFrame:
    """The training records every audit runs on: :data:`AUDIT_ROWS` of them (all when fewer),
    a seeded sample of the training part, the same for every method and epsilon."""
    def make() -> pd.DataFrame:
        frame = ctx.train.frame
        if len(frame) <= AUDIT_ROWS:
            return frame.reset_index(drop=True)
        rows = np.sort(display_rng(ctx.base_seed, "audit rows").choice(len(frame), AUDIT_ROWS, replace=False))
        return frame.iloc[rows].reset_index(drop=True)

    return ctx.cached("audit rows", make)


def _audit_context(ctx: RunContext) -> RunContext:
    """A context whose training part is :func:`audit_frame` (the registry's fits run on it)."""
    return ctx.cached("audit context", lambda: RunContext(replace(ctx.train, frame=audit_frame(ctx)),
                                                          ctx.holdout.iloc[:2], ctx.imposter_epochs,
                                                          ctx.base_seed, ctx.schema))


# ----------------------------------------------------------------------------- CDP-LR
def _cdp_lr_cases(ctx: RunContext, epsilon: float) -> list[AuditCase]:
    """CDP-LR as Compare trains it (the page's DP reading), on the sample; and the hub pair."""
    frame = audit_frame(ctx)
    enc = ctx.encoder()
    bound = group_bound(ctx.schema)
    noise = cdp_lr_case(enc.transform(frame), enc.labels(frame), sensitivity=float(bound.value),
                        epsilon=float(epsilon), noise_method=CDP_LR_NOISE_METHOD, **PRESETS[CDP_LR_PRESET])
    return [noise, hub_case(ctx.schema, epsilon=float(epsilon))]


# ----------------------------------------------------------------------------- SSKM_DP
def _sskm_cases(ctx: RunContext, epsilon: float) -> list[AuditCase]:
    """The sound SSKM_DP fitted on the sample (the registry's fit): its noisy counts and sums,
    and the whole release with one record changed on every column."""
    sub = _audit_context(ctx)
    method = METHODS["SSKM_DP (sound)"]
    pub = sub.cached("audit sskm", lambda: method.fit(sub, display_seed(ctx.base_seed, "audit", method.name), None))
    frame = sub.train.frame
    return [sskm_sound_case(pub, frame, epsilon=float(epsilon)),
            *sskm_sound_pipeline_cases(pub, frame, epsilon=float(epsilon), columns=())]


# ----------------------------------------------------------------------------- IDP-KMeans
def _idp_step(X: np.ndarray, random_state: int, *, centres: np.ndarray, epsilon: float) -> np.ndarray:
    res = idp_kmeans(X, n_clusters=len(centres), epsilon=epsilon, iterations=1, init=centres,
                     random_state=random_state)
    return np.concatenate([res.noisy_counts, res.noisy_sums.ravel()])


def _exact_step(X: np.ndarray, centres: np.ndarray) -> np.ndarray:
    """The (counts, sums) vector one Lloyd step from ``centres`` adds noise to."""
    d = np.einsum("ij,ij->i", X, X)[:, None] - 2 * X @ centres.T + np.einsum("ij,ij->i", centres, centres)[None]
    labels = np.argmin(d, axis=1)
    sums = np.zeros_like(centres)
    np.add.at(sums, labels, X)
    return np.concatenate([np.bincount(labels, minlength=len(centres)).astype(float), sums.ravel()])


def _llr(y: np.ndarray, *, mu0: np.ndarray, mu1: np.ndarray) -> float:
    """Log-likelihood ratio of two Laplace vectors with one scale (up to 1 / scale), full precision."""
    return float(np.sum(np.abs(y - mu0) - np.abs(y - mu1)))


def idp_kmeans_step_case(X: Any, *, epsilon: float) -> AuditCase:
    """IDP-KMeans's noisy step: one Lloyd iteration with the whole budget from two public centres.

    ``X`` holds records in [0, 1] units (the schema-scaled table). The centres are the corner of
    ones and the same corner with the last attribute at 0: record 0 is that corner in one
    dataset and the other corner in the other, so it leaves one cluster for the other and the
    (counts, sums) vector moves by 2m + 1 in L1 (the noise is calibrated to 2(m + 1)). The
    statistic is the log-likelihood ratio of the released vector (exact: the step's
    assignment is fixed by the public centres). The claim is the ledger's epsilon.
    """
    X = np.array(X, dtype=np.float64, copy=True)
    if X.ndim != 2 or len(X) < 2:
        raise ValueError("the IDP-KMeans audit needs a 2-D table of at least two records.")
    m = X.shape[1]
    centres = np.ones((2, m))
    centres[1, -1] = 0.0
    d0, d1 = X.copy(), X.copy()
    d0[0], d1[0] = centres[0], centres[1]
    eps = float(epsilon)
    claimed = idp_kmeans(d0, n_clusters=2, epsilon=eps, iterations=1, init=centres, random_state=0).ledger.total()[0]
    pair = NeighbouringPair(d0, d1, "record 0 moved between two clusters (the corner of ones, then the same "
                                    "corner with its last attribute at 0)")
    note = (f"IDP-KMeans: one noisy Lloyd step with the whole budget from two public centres on {len(X)} records; "
            f"the (counts, sums) vector moves by {2 * m + 1} in L1 (noise calibrated to {2 * (m + 1)}). "
            "Statistic: its log-likelihood ratio.")
    return AuditCase("IDP-KMeans", partial(_idp_step, centres=centres, epsilon=eps), pair,
                     partial(_llr, mu0=_exact_step(d0, centres), mu1=_exact_step(d1, centres)), claimed, 0.0, note)


class _CompareRelease:
    """Method ``name``'s release of a table as Compare makes it (the registry's fit and release),
    as an audit mechanism (picklable). The fit does not depend on the noise: it is computed
    once per dataset (a deterministic function of its records, so the same as per run)."""

    def __init__(self, ctx: RunContext, name: str, epsilon: float) -> None:
        self.ctx, self.name, self.epsilon = ctx, name, float(epsilon)
        self._fitted: dict = {}

    def _context_fit(self, frame: pd.DataFrame) -> tuple[RunContext, Any]:
        got = self._fitted.get(id(frame))
        if got is None:
            c = self.ctx
            mine = RunContext(replace(c.train, frame=frame), c.holdout, c.imposter_epochs, c.base_seed, c.schema)
            method = METHODS[self.name]
            got = (mine, method.fit(mine, 0, None) if method.fit is not None else None, frame)
            self._fitted[id(frame)] = got  # the frame is kept: its id stays its own
        return got[0], got[1]

    def __call__(self, frame: pd.DataFrame, random_state: int) -> pd.DataFrame:
        mine, fitted = self._context_fit(frame)
        return METHODS[self.name].release(mine, fitted, self.epsilon, random_state).table

    def __getstate__(self) -> dict:
        state = dict(self.__dict__)
        state["_fitted"] = {}  # ids mean nothing in another process
        return state


def _outside(out: pd.DataFrame, *, seen: Mapping[str, Any]) -> float:
    """Released cells outside what the first dataset holds (a category it lacks, a number beyond its range)."""
    total = 0.0
    for col, allowed in seen.items():
        if col not in out.columns:
            continue
        if isinstance(allowed, tuple):
            v = pd.to_numeric(out[col], errors="coerce").to_numpy(dtype=float)
            total += float(np.sum((v > allowed[1]) | (v < allowed[0])))
        else:
            total += float((~out[col].astype(str).isin(allowed)).sum())
    return total


def _seen(frame: pd.DataFrame, schema: PublicSchema) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for col in frame.columns:
        if col in schema and schema[col].kind == "numeric":
            v = pd.to_numeric(frame[col], errors="coerce").to_numpy(dtype=float)
            out[col] = (float(np.nanmin(v)), float(np.nanmax(v)))
        else:
            out[col] = frozenset(str(v) for v in frame[col].dropna().unique())
    return out


def _whole_release_case(ctx: RunContext, name: str, epsilon: float, claimed: float) -> AuditCase:
    """Compare's own release of ``name`` on the sample, record 0 changed on every column."""
    sub = _audit_context(ctx)
    frame = sub.train.frame
    pair = held_out_pair(frame, [0], index=0, schema=ctx.schema)
    note = (f"{name}: Compare's whole release (its fit and release) on {len(frame)} records, record 0 changed "
            "on every column (out of range, new categories). Statistic: released cells outside what the first "
            "dataset holds: a release that read its bounds or categories from the rows shows them on one side only.")
    return AuditCase(name, _CompareRelease(sub, name, epsilon), pair,
                     partial(_outside, seen=_seen(frame, ctx.schema)), claimed, 0.0, note)


def _idp_cases(ctx: RunContext, epsilon: float) -> list[AuditCase]:
    """IDP-KMeans's noisy step on the schema-scaled sample, and its whole release."""
    X = _audit_context(ctx).cached("audit scaled", lambda: METHODS["IDP-KMeans"].fit(_audit_context(ctx), 0, None)).X
    step = idp_kmeans_step_case(X, epsilon=epsilon)
    return [step, _whole_release_case(ctx, "IDP-KMeans", epsilon, step.claimed_epsilon)]


# ----------------------------------------------------------------------------- MST, AIM
def _marginal_cases(ctx: RunContext, epsilon: float, *, algorithm: str = "MST") -> list[AuditCase]:
    """The release's own noisy marginal measurement of MST (or AIM), on the sample: the columns
    and bins of Compare's release, OpenDP's measurement through the release's function, without
    the model fit (post-processing)."""
    from core.audit_cases.marginal import mst_case
    from core.compare.marginal_methods import MARGINAL_BINS, marginal_columns

    return [mst_case(audit_frame(ctx), ctx.schema, epsilon=float(epsilon), algorithm=algorithm,
                     bins=MARGINAL_BINS, columns=marginal_columns(ctx))]


#: Method name -> the audit cases of that method at one epsilon (every ``dp=True`` method has one).
AUDITS: Mapping[str, Callable[[RunContext, float], list[AuditCase]]] = {
    "CDP-LR": _cdp_lr_cases,
    "SSKM_DP (sound)": _sskm_cases,
    "IDP-KMeans": _idp_cases,
    "MST": _marginal_cases,
    "AIM": partial(_marginal_cases, algorithm="AIM"),
}


# ----------------------------------------------------------------------------- running
def empty_audits() -> pd.DataFrame:
    """The audit table with no point: ``method``, ``epsilon`` and :data:`AUDIT_COLUMNS`."""
    return pd.DataFrame(columns=["method", "epsilon", *AUDIT_COLUMNS])


def audit_verdict(claim: float, lower: float, ceiling: float, runs: Any, violation: Any, *, reason: str = "") -> str:
    """What the table says about one point, in words.

    A point without a lower bound is **not audited**, with ``reason`` ("not audited: the
    real measurement takes ..."): never a bound from a stand-in. Otherwise a violation, a
    claim above what the runs can test, or "no violation found".
    """
    if lower is None or not np.isfinite(float(lower)):
        return f"not audited: {reason}" if reason else "not audited"
    if bool(violation):
        return (f"VIOLATION: the audited lower bound {lower:.3g} exceeds the claimed epsilon {claim:.3g}: "
                "the release leaks more than its guarantee says.")
    if np.isfinite(float(claim)) and claim > ceiling:
        return f"the audit cannot test this claim with {int(runs)} runs (ceiling {ceiling:.3g})"
    return (f"no violation found: lower bound {lower:.3g} against the claim {claim:.3g} (ceiling {ceiling:.3g}; "
            "an audit can only find violations)")


def _nan_row(name: str, epsilon: float, note: str, claim: float = math.nan) -> dict[str, Any]:
    return {"method": name, "epsilon": float(epsilon), "audit_claim": float(claim), "audit_lower": math.nan,
            "audit_ceiling": math.nan, "audit_runs": None, "audit_seconds": math.nan, "audit_pair": "",
            "audit_violation": None, "audit_verdict": audit_verdict(math.nan, math.nan, math.nan, None, None,
                                                                    reason=note),
            "audit_note": note}


def _duration(seconds: float) -> str:
    return f"{seconds:.0f} s" if seconds < 120 else (f"{seconds / 60:.0f} min" if seconds < 7200
                                                     else f"{seconds / 3600:.1f} h")


def _too_slow(cases: Sequence[AuditCase], runs: int) -> str | None:
    """Why the point cannot be audited within :data:`AUDIT_POINT_SECONDS`, or None.

    Each case whose mechanism times itself (``seconds_per_run``: the real release step, timed
    once on the pair's first dataset) is estimated at ``2 x runs`` runs. A release step that
    fails here is a reason too: the point is then not audited, and nothing stands in for it.
    """
    for case in cases:
        timer = getattr(case.mechanism, "seconds_per_run", None)
        if timer is None:
            continue
        try:
            # a first run (with OpenDP's setup) over 20 times the budget of a run settles it alone
            seconds = float(timer(case.pair.d0, limit=20 * AUDIT_POINT_SECONDS / (2 * runs)))
        except Exception as exc:  # noqa: BLE001 - whatever the real release step raises is the reason
            return (f"running {case.name}'s real release step failed ({type(exc).__name__}: {exc}); no bound from "
                    "a stand-in is reported in its place.")
        estimate = 2 * runs * seconds
        if estimate > AUDIT_POINT_SECONDS:
            return (f"one run of {case.name} (the release's own measurement, without the model fit) took "
                    f"{seconds:.2g} s on {len(case.pair.d0)} records, so {runs} runs per side would take about "
                    f"{_duration(estimate)}, over the point's audit budget of {AUDIT_POINT_SECONDS:g} s; no bound "
                    "from a stand-in is reported in its place.")
    return None


def _audit_point(ctx: RunContext, name: str, epsilon: float, *, runs: int, progress: Progress | None,
                 stop: Stop | None) -> dict[str, Any]:
    """One point's audit: the method's cases at ``epsilon``, the worst kept."""
    start = time.perf_counter()
    try:
        cases = AUDITS[name](ctx, float(epsilon))
    except ImportError as exc:  # an optional audit module (or what it needs) is not installed
        return _nan_row(name, epsilon, f"the audit case is not available here: {exc}")
    except (DataError, ValueError) as exc:
        return _nan_row(name, epsilon, f"the audit could not be built on this table: {exc}")
    slow = _too_slow(cases, runs)
    if slow is not None:  # the claim is known (the release's ledger); no bound is
        return _nan_row(name, epsilon, slow, claim=max(c.claimed_epsilon for c in cases))
    seed = display_seed(ctx.base_seed, "audit", name, repr(float(epsilon)))
    try:
        results = run_cases(cases, runs=runs, random_state=seed, progress=progress, stop=stop)
    except (DataError, ValueError) as exc:
        check_stop(stop, "The comparison")  # stopped before the first case had its runs
        return _nan_row(name, epsilon, f"the audit failed on this table: {exc}")
    check_stop(stop, "The comparison")
    k = worst_result(results)
    worst = results[k]
    ceiling = float(worst.ceiling) if np.isfinite(worst.ceiling) else audit_ceiling(worst.runs,
                                                                                    delta=worst.claimed_delta)
    lower, claim = float(worst.epsilon_lower), float(worst.claimed_epsilon)
    return {"method": name, "epsilon": float(epsilon), "audit_claim": claim, "audit_lower": lower,
            "audit_ceiling": ceiling, "audit_runs": int(worst.runs),
            "audit_seconds": time.perf_counter() - start,
            "audit_pair": f"{cases[k].name}: {worst.description}"
                          + (f" (the worst of {len(cases)} cases)" if len(cases) > 1 else ""),
            "audit_violation": bool(worst.violation),
            "audit_verdict": audit_verdict(claim, lower, ceiling, worst.runs, worst.violation),
            "audit_note": _UNSEEDED_NOTE if name in UNSEEDED else ""}


#: methods whose audit releases the whole table per run (seconds per point, against a fraction
#: of a second for the others): audited last, so a time cap leaves them out first
SLOW_AUDITS = ("SSKM_DP (sound)", "IDP-KMeans")


def run_audits(ctx: RunContext, names: Sequence[str], epsilons: Sequence[float], *, runs: int,
               progress: Progress | None = None, stop: Stop | None = None, seconds: float | None = None,
               clock: Callable[[], float] = time.monotonic) -> pd.DataFrame:
    """The audit of every (method, epsilon) point of ``names`` that claims DP.

    Parameters
    ----------
    ctx : RunContext
        The comparison's context: its training part (a sample of :data:`AUDIT_ROWS` records
        is audited), schema and base seed (every audit's seed derives from it, so the same
        comparison gives the same audits; :data:`UNSEEDED` methods excepted).
    names : sequence of str
        Methods that released; those that are not DP get no row (their epsilon is nominal).
        A DP method without an entry in :data:`AUDITS` gets a row of NaN that says so.
    epsilons : sequence of float
        The comparison's epsilon grid: one audit per method and epsilon, not per repetition.
    runs : int
        Runs per side of each case, 0 (no audit: an empty table) or at least 20; the bound can
        never exceed :func:`core.audit.bounds.audit_ceiling` of it.
    progress, stop
        As in :func:`core.compare.run.compare`: a set ``stop`` raises
        :class:`core.runtime.progress.Stopped` at the next report.
    seconds : float, optional
        A time cap (None: none): once the audits have taken this long, the points not
        started yet are not audited, and their row says so (an audit already started runs
        to its end; the :data:`SLOW_AUDITS` run last, so they are the ones left out). Which points are audited then depends on the machine's speed, so a
        capped table is not reproducible: the command line and bundles never cap.
    clock : callable
        Monotonic seconds (tests pass their own).

    Returns
    -------
    DataFrame
        One row per audited point: ``method``, ``epsilon`` and :data:`AUDIT_COLUMNS`.
    """
    runs = check_audit_runs(runs)
    if seconds is not None and not (isinstance(seconds, (int, float)) and seconds > 0):
        raise ValueError(f"seconds must be a positive number of seconds or None, got {seconds!r}.")
    points = [(n, float(e)) for n in names if METHODS[n].dp and METHODS[n].takes_epsilon for e in epsilons]
    if runs == 0 or not points:
        return empty_audits()
    rows, began = {}, clock()
    order = sorted(range(len(points)), key=lambda i: points[i][0] in SLOW_AUDITS)  # the quick ones first
    for k, i in enumerate(order):
        name, eps = points[i]
        part = stage(progress, k / len(points), (k + 1) / len(points), f"Auditing {name} at epsilon {eps:g}")
        report(part, 0.0, "building the neighbouring pairs", stop=stop)
        if seconds is not None and clock() - began >= seconds:
            rows[i] = _nan_row(name, eps, f"not audited: the audits' time cap ({_duration(seconds)}) was "
                                          "reached first; audit it alone, or raise the cap.")
        elif name not in AUDITS:
            rows[i] = _nan_row(name, eps, "no audit case is written for this method yet.")
        else:
            rows[i] = _audit_point(ctx, name, eps, runs=runs, progress=part, stop=stop)
    out = pd.DataFrame([rows[i] for i in range(len(points))], columns=["method", "epsilon", *AUDIT_COLUMNS])
    for col in ("audit_runs", "audit_violation"):  # ints and booleans, None where the audit could not run
        kind = int if col == "audit_runs" else bool
        out[col] = pd.Series([None if pd.isna(v) else kind(v) for v in out[col]], index=out.index, dtype=object)
    return out
