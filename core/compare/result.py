"""The outcome of a comparison and how it is read: the result, its summary, front and takeaway.

:class:`ComparisonResult` holds every release's measures (the runs), what was skipped and
why, the parameters that rerun the comparison, and the references every number is read
against. :func:`summarize_runs` gives the mean, spread and count of each measure per method
and epsilon; :func:`pareto_front` the points no other point beats on both utility and risk;
:func:`takeaway` one sentence computed from the numbers (which method keeps the most utility
at low risk, or why no recommendation can be made); :func:`privacy_label` what a table cell
says about a release's guarantee. The measures are evaluated on the private data
(:data:`PRIVATE_MEASURES_NOTE`): they are shown, never released.
"""
from __future__ import annotations

import math
import numbers
from dataclasses import dataclass, field
from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.compare.audits import AUDIT_COLUMNS, empty_audits
from core.compare.measures import LOW_RISK, MEASURE_WORDS, UTILITY_SCORES
from core.compare.registry import METHODS
from core.evaluation.metrics import no_better_than
from core.privacy.schema import PublicSchema

__all__ = [
    "ComparisonResult", "summarize_runs", "pareto_front", "takeaway", "privacy_label",
    "NO_POWER", "NOT_DP_BADGE", "PRIVATE_MEASURES_NOTE", "TABLE_ROWS", "GUESS_MEANING",
]

#: Rows kept of each released table and of the training part (:attr:`ComparisonResult.tables`,
#: :attr:`ComparisonResult.real`): a seeded sample when a table has more.
TABLE_ROWS = 5_000

#: What a utility indistinguishable from the constant guess means.
GUESS_MEANING = "always guessing the majority class"
#: Said (with the reason) wherever a risk measure's attack cannot tell the raw table from its control.
NO_POWER = "the attack has no power on this table"
#: What a table's DP column says for a release that is not differentially private.
NOT_DP_BADGE = "NOT DP"
#: Said wherever the measures are shown: they read the private rows and are not released.
PRIVATE_MEASURES_NOTE = ("Utility, fidelity, MSE and the attacks are evaluated on your private data (the "
                         "training part and the held-out records), not released: they describe the releases, "
                         "and the guarantee of a release does not cover them.")


def _measure_columns(runs: pd.DataFrame) -> list[str]:
    skip = {"epsilon", "repetition", "seed", "is_dp"}
    return [c for c in runs.columns if c not in skip and pd.api.types.is_numeric_dtype(runs[c])
            and not pd.api.types.is_bool_dtype(runs[c])]


def _with_audits(summary: pd.DataFrame, audits: pd.DataFrame | None) -> pd.DataFrame:
    """``summary`` with the audit columns of each (method, epsilon) point (NaN and empty text
    where none)."""
    if audits is None:
        return summary
    if not isinstance(audits, pd.DataFrame):
        raise TypeError(f"audits must be a DataFrame or None, got {type(audits).__name__}.")
    right = audits.reindex(columns=["method", "epsilon", *AUDIT_COLUMNS]).astype({"epsilon": float})
    out = summary.astype({"epsilon": float}).merge(right, on=["method", "epsilon"], how="left")
    for col in ("audit_claim", "audit_lower", "audit_ceiling", "audit_seconds"):
        out[col] = pd.to_numeric(out[col], errors="coerce").astype(float)
    out["audit_runs"] = pd.Series([None if pd.isna(v) else int(v) for v in out["audit_runs"]],
                                  index=out.index, dtype=object)
    out["audit_violation"] = pd.Series([None if pd.isna(v) else bool(v) for v in out["audit_violation"]],
                                       index=out.index, dtype=object)
    for col in ("audit_pair", "audit_verdict", "audit_note"):
        out[col] = out[col].fillna("").astype(str)
    return out


def summarize_runs(runs: pd.DataFrame, *, audits: pd.DataFrame | None = None) -> pd.DataFrame:
    """Mean, standard deviation and count of every measure per (method, epsilon).

    Methods keep their order in ``runs``, epsilons increase (NaN, no epsilon, first); the
    standard deviation of a single run is 0 (no spread measured). ``kind``, ``is_dp``,
    ``guarantee`` and ``caveats`` come from the group's first run. With ``audits``
    (:attr:`ComparisonResult.audits`), each point also gets its audit's columns
    (:data:`core.compare.audits.AUDIT_COLUMNS`: NaN and empty text where nothing was audited,
    as for a release that is not DP, whose epsilon is nominal).
    """
    if not isinstance(runs, pd.DataFrame):
        raise TypeError(f"runs must be a DataFrame, got {type(runs).__name__}.")
    values = _measure_columns(runs)
    if runs.empty:
        return _with_audits(pd.DataFrame(columns=["method", "kind", "epsilon", "is_dp", "guarantee", "caveats",
                                                  *(f"{v}_{s}" for v in values for s in ("mean", "std", "n"))]),
                            audits)
    order = {m: i for i, m in enumerate(dict.fromkeys(runs["method"]))}
    groups = runs.groupby(["method", "epsilon"], dropna=False, sort=False)
    stats = groups[values].agg(["mean", "std", "count"])
    stats.columns = [f"{v}_{'n' if s == 'count' else s}" for v, s in stats.columns]
    for v in values:
        stats.loc[stats[f"{v}_n"] == 1, f"{v}_std"] = 0.0
    first = groups[[c for c in ("kind", "is_dp", "guarantee", "caveats", "reading") if c in runs.columns]].first()
    out = first.join(stats).reset_index()
    out["_order"] = out["method"].map(order)
    out = out.sort_values(["_order", "epsilon"], na_position="first", kind="stable")
    return _with_audits(out.drop(columns="_order").reset_index(drop=True), audits)


def _column(summary: pd.DataFrame, name: Any, what: str) -> str:
    if not isinstance(summary, pd.DataFrame):
        raise TypeError(f"summary must be a DataFrame, got {type(summary).__name__}.")
    if not isinstance(name, str):
        raise TypeError(f"{what} must be a column name, got {type(name).__name__}.")
    for candidate in (f"{name}_mean", name):
        if candidate in summary.columns:
            return candidate
    raise ValueError(f"{what} {name!r} is not a measure of the summary; choose one of "
                     f"{sorted(c[:-5] for c in summary.columns if c.endswith('_mean'))}.")


def pareto_front(summary: pd.DataFrame, *, utility: str = "utility",
                 risk: str = "ai_advantage") -> pd.DataFrame:
    """The points no other point dominates (higher utility is better, lower risk is better).

    Parameters
    ----------
    summary : DataFrame
        One row per point (:func:`summarize_runs`).
    utility, risk : str
        Measures (``"utility"`` reads ``utility_mean``; a plain column name works too).
        A point is dominated when another has utility at least as high and risk at least
        as low, one of them strictly. Points missing either value are left out.

    Returns
    -------
    DataFrame
        The front's rows, by increasing risk.
    """
    u_col, r_col = _column(summary, utility, "utility"), _column(summary, risk, "risk")
    data = summary[np.isfinite(summary[u_col].astype(float)) & np.isfinite(summary[r_col].astype(float))]
    u, r = data[u_col].to_numpy(float), data[r_col].to_numpy(float)
    better_eq = (u[None, :] >= u[:, None]) & (r[None, :] <= r[:, None])
    strictly = (u[None, :] > u[:, None]) | (r[None, :] < r[:, None])
    dominated = (better_eq & strictly).any(axis=1)
    return data[~dominated].sort_values([r_col, u_col], ascending=[True, False], kind="stable")


def privacy_label(is_dp: bool, ledger_epsilon: float, ledger_delta: float, epsilon: float) -> str:
    """What a table cell says about a release's privacy: its guarantee, or that it has none.

    A DP release: "epsilon = 1" (with its delta). A release that is not DP: "not
    differentially private", and the epsilon it was asked for is called nominal, never
    presented as a guarantee.
    """
    if is_dp and math.isfinite(ledger_epsilon):
        return f"epsilon = {ledger_epsilon:.3g}" + (f", delta = {ledger_delta:.2g}" if ledger_delta else "")
    nominal = "" if pd.isna(epsilon) else f" (epsilon {float(epsilon):g} is nominal)"
    return "not differentially private" + nominal


def _point(row: pd.Series) -> str:
    """A point in words; a release that is not DP names its epsilon as nominal."""
    eps = row.get("epsilon", math.nan)
    if pd.isna(eps):
        return row["method"]
    dp = row.get("is_dp", None)
    if dp is not None and not pd.isna(dp) and not bool(dp):
        return f"{row['method']} at nominal epsilon {float(eps):g} (not differentially private)"
    return f"{row['method']} at epsilon {float(eps):g}"


def takeaway(summary: pd.DataFrame, *, utility: str = "utility", risk: str = "ai_advantage",
             below: float | None = None, reference: str = "Raw table",
             utility_label: str | None = None, risk_label: str | None = None,
             no_power: str | None = None, majority: float | None = None,
             majority_interval: Sequence[float] | None = None) -> str:
    """One sentence computed from the numbers: which method keeps the most utility at low risk.

    Parameters
    ----------
    summary : DataFrame
        One row per point (:func:`summarize_runs`).
    utility, risk : str
        Measures, as in :func:`pareto_front`.
    below : float, optional
        The risk level a release must reach (at or below); default the median risk of the
        points other than the reference.
    reference : str
        The method whose utility is quoted for comparison (the unprotected table).
    utility_label, risk_label : str, optional
        Words for the measures (default from their names).
    no_power : str, optional
        Why the risk's attack has no power on this table (it does not separate the raw table
        from its control: :meth:`ComparisonResult.power`); then no method is recommended from
        that risk, and the sentence says so.
    majority : float, optional
        The constant guess's value on the utility measure (the majority share for accuracy,
        0.5 for ROC AUC, 1/K for balanced accuracy). A point that cannot be said to beat it
        (:func:`core.evaluation.metrics.no_better_than`) is never the headline; when no point
        beats it, the sentence opens with that.
    majority_interval : (low, high), optional
        The constant guess's 95% interval: a point inside it cannot be told from the guess.

    Returns
    -------
    str
        Plain text, no markup.
    """
    u_col, r_col = _column(summary, utility, "utility"), _column(summary, risk, "risk")
    if below is not None and (isinstance(below, bool) or not isinstance(below, numbers.Real)):
        raise TypeError(f"below must be a number, got {type(below).__name__}.")
    u_word = utility_label or MEASURE_WORDS.get(utility, utility)
    r_word = risk_label or MEASURE_WORDS.get(risk, risk)
    if no_power is not None:
        if not isinstance(no_power, str):
            raise TypeError(f"no_power must be a sentence (str) or None, got {type(no_power).__name__}.")
        return (f"No recommendation from {r_word}: {NO_POWER}. {no_power.strip()} A release that scores low "
                "on it is not shown to protect anyone; choose another risk, or read the releases by their "
                "guarantees.")
    data = summary[np.isfinite(summary[u_col].astype(float)) & np.isfinite(summary[r_col].astype(float))]
    others = data[data["method"] != reference]
    if others.empty:
        return f"No method besides the {reference.lower()} has both {u_word} and {r_word} measured."
    level = float(np.median(others[r_col])) if below is None else float(below)
    ref = data[data["method"] == reference]
    against = "" if ref.empty else f" against {ref[u_col].iloc[0]:.3g} for the {reference.lower()}"
    if majority is not None:  # a point that cannot be said to beat the guess is never the headline
        beats = others[[no_better_than(u, majority, majority_interval, meaning=GUESS_MEANING) is None
                        for u in others[u_col]]]
        if beats.empty:
            top = others.loc[others[u_col].idxmax()]
            span = "" if majority_interval is None else (
                f", 95% interval {float(majority_interval[0]):.3g} to {float(majority_interval[1]):.3g}")
            return (f"No method beats the constant guess on {u_word} ({float(majority):.3g}{span}): every release "
                    f"here is no better than {GUESS_MEANING}, whatever its {r_word}. The highest, {_point(top)}, "
                    f"reaches {top[u_col]:.3g}{against}.")
        others = beats
    under = others[others[r_col] <= level]
    beat_words = "" if majority is None else " that beats the constant guess"
    if under.empty:
        low = others.loc[others[r_col].idxmin()]
        return (f"No method{beat_words} brings {r_word} to {level:.3g} or below; the lowest is {_point(low)} at "
                f"{low[r_col]:.3g}, with {low[u_col]:.3g} {u_word}{against}.")
    best = under.loc[under[u_col].idxmax()]
    guess = "" if majority is None else f" (the constant guess: {float(majority):.3g})"
    return (f"At {r_word} of {level:.3g} or below, {_point(best)} keeps the most utility: "
            f"{best[u_col]:.3g} {u_word}{against}{guess}.")


def _plain(value: Any) -> Any:
    """A JSON-ready value: NaN and infinities become None, numpy scalars Python ones."""
    if isinstance(value, (np.bool_, bool)):
        return bool(value)
    if isinstance(value, (numbers.Integral, np.integer)):
        return int(value)
    if isinstance(value, (numbers.Real, np.floating)):
        return float(value) if math.isfinite(float(value)) else None
    return value


def _plain_tree(value: Any) -> Any:
    """:func:`_plain` through nested dicts and lists."""
    if isinstance(value, dict):
        return {str(k): _plain_tree(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_plain_tree(v) for v in value]
    return _plain(value)


def _interval_text(interval: Sequence[float] | None) -> str:
    if interval is None or not all(isinstance(v, numbers.Real) and math.isfinite(v) for v in interval):
        return ""
    return f"{interval[0]:.3g} to {interval[1]:.3g}"


def _records(frame: pd.DataFrame) -> list[dict[str, Any]]:
    return [{k: _plain(v) for k, v in row.items()} for row in frame.to_dict(orient="records")]


@dataclass(frozen=True)
class ComparisonResult:
    """Every release's measures, what was skipped, and what reruns the comparison.

    Attributes
    ----------
    runs : DataFrame
        One row per (method, epsilon or NaN, repetition): ``method, kind, epsilon,
        repetition, seed``, the measures (:data:`core.compare.measures.MEASURES`,
        ``ai_advantage_<s>`` and ``ai_member_<s>``), then ``ledger_epsilon, ledger_delta,
        nominal_epsilon, nominal_delta, is_dp, guarantee, caveats, reading``. The measures are
        evaluated on the private rows (:data:`PRIVATE_MEASURES_NOTE`).
    skipped : dict of str to str
        Method -> why it did not run (in words).
    parameters : dict
        Dataset fingerprint, methods, epsilons, repetitions, seed, test_size, max_rows,
        imposter_epochs, the public ``schema`` (its JSON object) and the fixed choices:
        ``compare`` with them gives the same runs.
    seconds : dict of str to float
        Wall time per method (not part of ``runs``: it varies between runs).
    references : dict
        What every number is read against (:func:`core.compare.references.references`):
        ``utility`` (the constant guess and the non-private model, with intervals), ``risks``
        (per risk measure the raw table, its control and whether the attack has power),
        ``mse`` (the raw table and a random release). Empty for a result made without them.
    audits : DataFrame
        The audit beside every DP point (:func:`core.compare.audits.run_audits`): one row per
        (DP method, epsilon) with ``method, epsilon`` and
        :data:`~core.compare.audits.AUDIT_COLUMNS` (the claim, the audited lower bound, the
        ceiling its runs allow, the runs per side, the seconds, the worst pair in words, whether
        the bound exceeds the claim, the verdict in words, a note). Empty when nothing was
        audited. :meth:`summary` joins them to their points.
    tables : dict of (str, float or None) to DataFrame
        The first repetition's released table per (table method, epsilon; None for a method
        that takes none), at most :data:`TABLE_ROWS` rows each (a seeded sample when more): what
        the real-against-release views read. In memory only: not in :meth:`to_dict`.
    real : DataFrame or None
        The training part the releases are compared to (the same cap); in memory only.
    """

    runs: pd.DataFrame
    skipped: dict[str, str]
    parameters: dict[str, Any]
    seconds: dict[str, float] = field(default_factory=dict)
    references: dict[str, Any] = field(default_factory=dict)
    audits: pd.DataFrame = field(default_factory=empty_audits)
    tables: dict[tuple[str, float | None], pd.DataFrame] = field(default_factory=dict)
    real: pd.DataFrame | None = None

    def power(self, risk: str) -> bool | None:
        """Whether ``risk``'s attack separates the raw table from its control on this table
        (None where no reference was measured for it)."""
        entry = self.references.get("risks", {}).get(risk)
        return None if entry is None else bool(entry["power"])

    def utility_reference(self, utility: str = "utility") -> dict[str, Any] | None:
        """The constant guess and the non-private model on the utility measure ``utility``
        (``guess``, ``guess_interval``, ``nonprivate``, ``nonprivate_interval``, ``words``,
        ``guess_words``); None where no label was scored or the measure has no reference."""
        util = self.references.get("utility")
        if not util:
            return None
        by = util.get("by_measure")
        if by is None:  # a result saved before ROC AUC and balanced accuracy: accuracy only
            return None if utility != "utility" else {
                "guess": util["majority"], "guess_interval": util["majority_interval"],
                "nonprivate": util["nonprivate"], "nonprivate_interval": util["nonprivate_interval"],
                "words": "accuracy", "guess_words": "the majority share (always guessing the commonest class)"}
        return by.get(utility)

    def reference_rows(self) -> pd.DataFrame:
        """Every reference as a table: one row per risk measure (raw table, control, power,
        the sentence), then the utility's (constant guess, non-private model: accuracy, ROC AUC
        and balanced accuracy) and the MSE's (raw table, random release). Plain text,
        evaluated on the private data."""
        rows = []
        util = self.references.get("utility")
        for name in UTILITY_SCORES if util else ():
            ref = self.utility_reference(name)
            if ref is None or not np.isfinite(ref["guess"]):
                continue
            rows.append({"measure": f"utility ({ref['words']})", "raw table / non-private model": ref["nonprivate"],
                         "interval": _interval_text(ref["nonprivate_interval"]),
                         "control / constant guess": ref["guess"],
                         "control interval": _interval_text(ref["guess_interval"]),
                         "attack has power": "",
                         "reading": f"Above the constant guess ({ref['guess']:.3g}: {ref['guess_words']}, on the "
                                    f"{util['n']} held-out records) a release teaches something; the "
                                    f"non-private model is {util['nonprivate_words']}."})
        if util and util.get("undefined"):
            rows.append({"measure": "utility (ROC AUC, balanced accuracy)", "raw table / non-private model": math.nan,
                         "interval": "", "control / constant guess": math.nan, "control interval": "",
                         "attack has power": "", "reading": util["undefined"]})
        risks = self.references.get("risks", {})
        for name, e in risks.items():
            if name.startswith(("ai_advantage_", "ai_member_")) and len(self.parameters.get("sensitive", [])) < 2:
                continue  # one sensitive attribute: its row is the frontier's
            rows.append({"measure": MEASURE_WORDS.get(name, name), "raw table / non-private model": e["raw"],
                         "interval": _interval_text(e["raw_interval"]), "control / constant guess": e["control"],
                         "control interval": _interval_text(e["control_interval"]),
                         "attack has power": "yes" if e["power"] else "no: " + NO_POWER,
                         "reading": e["sentence"]})
        m = self.references.get("mse")
        if m:
            rows.append({"measure": "MSE", "raw table / non-private model": m["raw"], "interval": "",
                         "control / constant guess": m["random"], "control interval": "", "attack has power": "",
                         "reading": f"0 for the raw table; {m['random']:.3g} for {m['random_words']}."})
        return pd.DataFrame(rows, columns=["measure", "raw table / non-private model", "interval",
                                           "control / constant guess", "control interval", "attack has power",
                                           "reading"])

    def summary(self) -> pd.DataFrame:
        """Mean, std and n of every measure per method and epsilon, with each point's audit
        (:func:`summarize_runs` with :attr:`audits`)."""
        return summarize_runs(self.runs, audits=self.audits)

    @property
    def schema(self) -> PublicSchema | None:
        """The public schema the comparison used (None for a result saved without one)."""
        data = self.parameters.get("schema")
        return None if data is None else PublicSchema.from_dict(data)

    def pareto_front(self, *, utility: str = "utility", risk: str = "ai_advantage") -> pd.DataFrame:
        """:func:`pareto_front` of :meth:`summary`."""
        return pareto_front(self.summary(), utility=utility, risk=risk)

    def takeaway(self, *, utility: str = "utility", risk: str = "ai_advantage",
                 below: float | None = None) -> str:
        """:func:`takeaway` of :meth:`summary` against the constant guess on ``utility``
        (accuracy, ROC AUC or balanced accuracy), naming the label; ``below`` defaults to the
        risk's :data:`~core.compare.measures.LOW_RISK` level (the median risk for other measures)."""
        if below is None:
            below = LOW_RISK.get(risk)
        label = self.parameters.get("label")
        ref = self.utility_reference(utility)
        words = f"{label} {MEASURE_WORDS.get(utility, utility)}" if ref is not None and label else None
        entry = self.references.get("risks", {}).get(risk)
        no_power = None if entry is None or entry["power"] else entry["sentence"]
        ok = ref is not None and np.isfinite(ref["guess"])
        return takeaway(self.summary(), utility=utility, risk=risk, below=below, utility_label=words,
                        no_power=no_power, majority=ref["guess"] if ok else None,
                        majority_interval=ref["guess_interval"] if ok else None)

    def default_utility(self) -> str:
        """The frontier's default utility measure: ROC AUC for a binary label (accuracy hides
        how well a model ranks when one class is common), accuracy otherwise."""
        util = self.references.get("utility") or {}
        ref = self.utility_reference("utility_auc")
        binary = util.get("classes") == 2 and ref is not None and np.isfinite(ref["guess"])
        return "utility_auc" if binary and "utility_auc_mean" in self.summary() else "utility"

    def dp_headline(self, utility: str | None = None) -> str:
        """One sentence on the differentially private releases against the constant guess on
        ``utility`` (default :meth:`default_utility`): the DP method that beats it at the
        smallest epsilon (then its best point), or, plainly, that no DP method does here and why.
        A point beats the guess when its mean lies above the guess's 95% interval."""
        utility = utility or self.default_utility()
        ref = self.utility_reference(utility)
        s = self.summary()
        col = f"{utility}_mean"
        words = MEASURE_WORDS.get(utility, utility)
        if ref is None or not np.isfinite(ref["guess"]) or col not in s:
            return f"No {words} was measured against a constant guess here, so no method is named."
        dp = s[s["is_dp"].map(lambda v: v is True or isinstance(v, np.bool_) and bool(v)) & s[col].notna()]
        if dp.empty:
            return "No differentially private release was measured here."
        beat = dp[[no_better_than(u, ref["guess"], ref["guess_interval"], meaning=GUESS_MEANING) is None
                   for u in dp[col]]]
        lo, hi = ref["guess_interval"]
        guess = f"{ref['guess']:.3g} (95% interval {lo:.3g} to {hi:.3g})"
        if beat.empty:
            top = dp.loc[dp[col].idxmax()]
            eps = ", ".join(f"{e:g}" for e in sorted(set(dp["epsilon"].dropna())))
            return (f"No differentially private method beats the constant guess on {words} here: at epsilon {eps}, "
                    "the noise each needs on this many training records hides the label's relation; the best"
                    f", {_point(top)}, reaches {top[col]:.3g} against the guess's "
                    f"{guess}, where the non-private model reaches {ref['nonprivate']:.3g}.")
        first = beat.sort_values("epsilon").iloc[0]
        best = beat.loc[beat[col].idxmax()]
        more = "" if best.name == first.name else f"; its best point, {_point(best)}, reaches {best[col]:.3g}"
        model = (" It releases a model, not a table: a table risk's frontier leaves it out."
                 if first.get("kind") == "model" else "")
        return (f"{_point(first)} beats the constant guess on {words}: {first[col]:.3g} against {guess}, "
                f"with the non-private model at {ref['nonprivate']:.3g}{more}.{model}")

    def guess_notes(self, utility: str = "utility") -> list[str]:
        """One sentence per point whose mean ``utility`` cannot be said to beat the constant
        guess on it (accuracy: the majority class of the held-out records): at or below it,
        or inside its 95% interval (:func:`core.evaluation.metrics.no_better_than`), naming
        the point."""
        ref = self.utility_reference(utility)
        s = self.summary()
        if ref is None or not np.isfinite(ref["guess"]) or f"{utility}_mean" not in s:
            return []
        out = []
        for _, r in s.iterrows():
            text = no_better_than(r[f"{utility}_mean"], ref["guess"], ref["guess_interval"], meaning=GUESS_MEANING)
            if text:
                eps = "" if pd.isna(r["epsilon"]) else f" (epsilon {float(r['epsilon']):g})"
                out.append(f"{r['method']}{eps}: {text}")
        return out

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: parameters (the public schema included), method descriptions, runs,
        summary (each point with its audit: ``audit_lower``, ``audit_ceiling``, ``audit_runs``,
        ``audit_pair``, the verdict ...; NaN, as null, for a release that is not DP), skipped,
        seconds, ``audits`` (every audited point, its ``audit_seconds`` included: wall time
        varies between runs, so the summary leaves it out, as ``runs`` leaves out ``seconds``),
        and the note that the measures read the private rows. The kept tables are not in it."""
        names = self.parameters.get("methods", [])
        return {
            "parameters": {k: (list(v) if isinstance(v, tuple) else v) for k, v in self.parameters.items()},
            "methods": {n: {"kind": METHODS[n].kind, "takes_epsilon": METHODS[n].takes_epsilon,
                            "dp": METHODS[n].dp, "description": METHODS[n].description} for n in names},
            "runs": _records(self.runs),
            "summary": _records(self.summary().drop(columns="audit_seconds", errors="ignore")),
            "audits": _records(self.audits),
            "skipped": dict(self.skipped),
            "seconds": {k: float(v) for k, v in self.seconds.items()},
            "references": _plain_tree(self.references),
            "measures_note": PRIVATE_MEASURES_NOTE,
        }
