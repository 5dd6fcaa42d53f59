"""Cached calls into core.compare.run for the Compare page (issue 12).

A comparison is one sweep job (:mod:`dashboard.shared.serving.sweeps`): it runs
:func:`core.compare.run.compare` in a child process of this session, with progress and time
left, and its finished :class:`core.compare.result.ComparisonResult` is shared read-only by its
inputs, so changing the chart's axes or the table's sort never recomputes it.
"""
from __future__ import annotations

import math

import numpy as np
import pandas as pd

from core.audit.bounds import audit_ceiling
from core.compare.audits import DEFAULT_AUDIT_RUNS
from core.compare.run import compare
from core.compare.registry import DEFAULT_METHODS, METHODS
from core.compare.result import (
    GUESS_MEANING, NOT_DP_BADGE, PRIVATE_MEASURES_NOTE, ComparisonResult, privacy_label,
)
from core.compare.config import CompareConfig, config_from_result
from core.data import Dataset
from core.privacy.schema import PublicSchema
from core.evaluation.metrics import no_better_than
from core.runtime.progress import Progress
from dashboard.shared.serving.sweeps import Sweep, warmed

__all__ = ["ALL_METHODS", "DEFAULT_METHODS", "EPSILON_CHOICES", "RISKS", "comparison", "method_rows", "table_rows",
           "table_view", "run_config", "report_html", "summary_csv", "runs_csv", "privacy_label", "NOT_DP_BADGE",
           "EPSILON_SETTING", "PRIVATE_MEASURES_NOTE", "reference_rows", "power_note", "below_guess", "BELOW_GUESS",
           "AUDIT_CHOICES", "DEFAULT_AUDIT_RUNS", "SLOW_SECONDS", "slow_methods_note", "AUDIT_COLUMN", "audit_choice", "audit_help", "violations",
           "audit_caption", "row_choices", "rows_words", "max_rows_of", "ROWS_HELP", "marginal_tables"]

#: The table's column that says, in words, when a release's utility is not above the constant guess.
BELOW_GUESS = "utility against the constant guess"

#: The table's column of the epsilon each release was asked for (a setting, not a guarantee).
EPSILON_SETTING = "epsilon (setting)"

#: the epsilon grid's choices (the methods that take a budget get one point each)
EPSILON_CHOICES = ("0.1", "0.2", "0.5", "1", "2", "5", "10")
#: the empirical risks a user can put on the frontier's x axis, by column
RISKS = {
    "ai_advantage": "Attribute inference (tables)",
    "ai_member": "Attribute inference on the people in the release (tables)",
    "dcr_excess": "Distance to closest record (tables)",
    "mia_auc": "Membership inference (models)",
}
#: every method's name, in the order the comparison runs them
ALL_METHODS = tuple(METHODS)
#: the audit's runs per side a user can choose (0: no audit)
AUDIT_CHOICES = (0, 200, 500, 1000)
#: The table's column with each DP point's audit verdict, in words.
AUDIT_COLUMN = "audit"


#: Seconds one release of the OpenDP synthesizers takes on this project's 2-core machine (issue 37's
#: configuration, benchmarks/bench_dp_synth.py: MST, the label's 2-way marginals, 30-60 s on
#: 10,000 Adult rows; AIM over the same workload a few minutes).
SLOW_SECONDS = {"MST": 40.0, "AIM": 180.0}


def slow_methods_note(methods: tuple[str, ...], *, epsilons: int, repetitions: int) -> str | None:
    """What the chosen slow methods will cost, said before the comparison starts (None: none chosen)."""
    slow = [m for m in methods if m in SLOW_SECONDS]
    if not slow:
        return None
    releases = epsilons * repetitions
    plural = "s" if releases != 1 else ""
    parts = [f"{m}: {releases} release{plural} of about {SLOW_SECONDS[m]:.0f} s each on the census sample "
             f"(about {releases * SLOW_SECONDS[m] / 60:.0f} min)" for m in slow]
    memory = " AIM needs about 4-5 GB of memory." if "AIM" in slow else ""
    return ("Slow methods chosen: " + "; ".join(parts) + ". Larger tables take a little longer (MST 30-60 s a "
            "release on 10,000 Adult rows, AIM a few minutes)." + memory)


#: The caps a user can put on the rows of a comparison ("all": every row, the default).
ROW_CAPS = (500, 1_000, 5_000, 10_000, 50_000)
ROWS_HELP = ("Every row by default, and every training record is scored. A seeded sample of n of the N rows is "
             "faster; each interval then widens by about sqrt(N / n), shown beside each choice.")


def row_choices(n: int) -> list[str]:
    """The row settings for a table of ``n`` rows: every row first, then the caps below ``n``."""
    return ["all"] + [str(c) for c in ROW_CAPS if c < n]


def rows_words(choice: str, n: int) -> str:
    """A row setting in words, with what a sample does to the intervals."""
    if choice == "all":
        return f"Every row ({n:,})"
    cap = int(choice)
    return f"{cap:,} (intervals about {math.sqrt(n / cap):.1f}x wider)"


def max_rows_of(choice: str) -> int | None:
    """The comparison's ``max_rows`` of a row setting (None: every row)."""
    return None if choice == "all" else int(choice)


def audit_choice(runs: int) -> str:
    """A choice of the audit's runs in words, with the ceiling it allows."""
    if runs == 0:
        return "0 (no audit)"
    return f"{runs} (ceiling {audit_ceiling(runs):.2g})"


def audit_help() -> str:
    """The help text of the audit's setting: what the ceiling is at each choice."""
    ceilings = "; ".join(f"{r} runs: {audit_ceiling(r):.2f}" for r in AUDIT_CHOICES if r)
    return ("Runs per side of the privacy audit beside every DP point (once per method and epsilon, on a sample "
            f"of the training part): it measures a lower bound on the epsilon each release really has. The bound "
            f"can never exceed the ceiling the runs allow ({ceilings}): a claim above it cannot be tested. 0 skips "
            "the audit. A lower bound above the claim is a violation, drawn as a large red circled cross on the "
            f"frontier. The audits stop after {AUDIT_CAP_S:.0f} s here; a point not audited by then says so "
            "(the command line never stops them).")


#: the page's cap on the audits' time (seconds; the command line and bundles never cap): the
#: points not started by then say so. The whole-release audits run last: at the defaults on
#: the census sample, on 2 busy cores, CDP-LR's and MST's audits took 8 s, SSKM_DP's and
#: IDP-KMeans' 79 s
AUDIT_CAP_S = 60.0


def _compare(progress: Progress, *, dataset: Dataset, methods: tuple[str, ...], epsilons: tuple[float, ...],
             repetitions: int, max_rows: int | None, epochs: int | None, seed: int,
             schema: str | None = None, audit_runs: int = DEFAULT_AUDIT_RUNS, partial=None) -> ComparisonResult:
    return compare(dataset, methods=methods, epsilons=epsilons, repetitions=repetitions, max_rows=max_rows,
                   imposter_epochs=epochs, random_state=seed, progress=progress,
                   schema=None if schema is None else PublicSchema.from_json(schema), audit_runs=audit_runs,
                   on_partial=partial, audit_seconds=AUDIT_CAP_S)


@warmed  # the warm start's result on a built-in sample
def comparison(dataset: Dataset, *, methods: tuple[str, ...], epsilons: tuple[float, ...], repetitions: int,
               max_rows: int | None, epochs: int | None, seed: int, schema: PublicSchema | None = None,
               audit_runs: int = DEFAULT_AUDIT_RUNS) -> Sweep:
    """Every chosen method's releases of ``dataset``, measured the same way (a sweep job).

    ``schema`` is the session's reviewed public schema (default the dataset's own): every
    encoder, bound and category list of the comparison comes from it, and it is part of the
    job's key (a confirmed entry is another comparison). ``audit_runs`` is the privacy audit's
    runs per side beside every DP point (0: none), also part of the key.
    """
    methods = tuple(m for m in METHODS if m in methods)  # the registry's order: one key per set
    epsilons = tuple(sorted(float(e) for e in epsilons))
    text = None if schema is None else schema.to_json()
    key = ("compare", dataset.fingerprint(), methods, epsilons, int(repetitions),
           None if max_rows is None else int(max_rows), None if epochs is None else int(epochs), int(seed), text,
           int(audit_runs))
    return Sweep(key, _compare, dict(dataset=dataset, methods=methods, epsilons=epsilons,
                                     repetitions=int(repetitions), max_rows=max_rows, epochs=epochs, seed=int(seed),
                                     schema=text, audit_runs=int(audit_runs)),
                 f"Comparing {len(methods)} methods", partials=True)


def table_rows(result: ComparisonResult) -> pd.DataFrame:
    """The summary as the page's table: one row per method and epsilon, DP or not (a
    :data:`NOT_DP_BADGE` where not), the guarantee in words (:func:`privacy_label`), a column
    per measure (mean; '± sd' columns beside the main ones; evaluated on the private data,
    not released), the number of runs, then :data:`BELOW_GUESS` (the utility against the
    constant guess and its 95% interval, in words: :func:`core.evaluation.metrics.no_better_than`), the ``reading`` of a
    method that names one (CDP-LR: which CDP-LR it is) and the ledger's sentence with its caveats."""
    s = result.summary()
    eps_col = s["ledger_epsilon_mean"] if "ledger_epsilon_mean" in s else pd.Series(math.inf, index=s.index)
    dlt_col = s["ledger_delta_mean"] if "ledger_delta_mean" in s else pd.Series(0.0, index=s.index)
    out = pd.DataFrame({"method": s["method"], EPSILON_SETTING: s["epsilon"],
                        "DP": s["is_dp"].map({True: "yes", False: NOT_DP_BADGE}),
                        "guarantee": [privacy_label(bool(d), float(e), float(t), x) for d, e, t, x
                                      in zip(s["is_dp"], eps_col, dlt_col, s["epsilon"])]})
    majority = (result.references.get("utility") or {}).get("majority")
    for col, name in (("utility", "utility"), ("utility_auc", "ROC AUC"), ("utility_balanced", "balanced accuracy"),
                      ("ai_advantage", "attribute inference"),
                      ("ai_member", "attribute inference (people in it)"),
                      ("dcr_excess", "DCR excess"), ("mia_auc", "membership AUC"),
                      ("tv_one_way", "TV one-way"), ("tv_two_way", "TV two-way"), ("mse", "MSE")):
        if f"{col}_mean" in s:
            out[name] = s[f"{col}_mean"].round(4)
            if col in ("utility", "utility_auc", "utility_balanced", "ai_advantage", "ai_member", "dcr_excess",
                       "mia_auc"):
                out[f"{name} sd"] = s[f"{col}_std"].round(4)

    out["runs"] = s["utility_n"] if "utility_n" in s else s.filter(like="_n").max(axis=1)
    if majority is not None and "utility_mean" in s:  # after the measures: the grid shows them first
        interval = (result.references.get("utility") or {}).get("majority_interval")
        above = f"above the constant guess ({majority:.3g}" + (
            f") and its 95% interval (to {interval[1]:.3f})" if interval is not None else ")")
        out[BELOW_GUESS] = [no_better_than(u, majority, interval, meaning=GUESS_MEANING)
                            or ("" if pd.isna(u) else above) for u in s["utility_mean"]]
    _audit_columns(out, s, int(result.parameters.get("audit_runs", 0) or 0))
    caveats = s["caveats"] if "caveats" in s else pd.Series("", index=s.index)
    if "reading" in s and s["reading"].fillna("").astype(str).str.len().any():
        out["reading"] = s["reading"].fillna("").astype(str)
    out["ledger"] = [_ledger_text(g, c) for g, c in zip(s["guarantee"], caveats)]
    return out


def _audit_columns(out: pd.DataFrame, s: pd.DataFrame, runs: int) -> None:
    """The audit beside each DP point (in place): the claimed epsilon, the audited lower bound,
    the ceiling its runs allow, and the verdict in words (for a release that is not DP, that
    its epsilon is nominal; with no audit run, that the audit runs were 0)."""
    if "audit_lower" not in s:
        return
    out["claimed epsilon"] = s["audit_claim"].astype(float).round(4)
    out["audited lower bound"] = s["audit_lower"].astype(float).round(4)
    out["audit ceiling"] = s["audit_ceiling"].astype(float).round(4)
    idle = "not audited (audit runs 0)" if runs == 0 else ""
    out[AUDIT_COLUMN] = [v if v else (idle if dp else "not audited: not DP, its epsilon is nominal")
                         for v, dp in zip(s["audit_verdict"].fillna(""), s["is_dp"])]


def violations(result: ComparisonResult) -> list[str]:
    """One sentence per point whose audited lower bound exceeds its claim, naming the point."""
    s = result.summary()
    if "audit_violation" not in s:
        return []
    bad = s[s["audit_violation"].map(lambda v: v is True or isinstance(v, np.bool_) and bool(v))]
    return [f"{r['method']} at epsilon {float(r['epsilon']):g}: {r['audit_verdict']} Worst pair: {r['audit_pair']}."
            for _, r in bad.iterrows()]


def audit_caption(result: ComparisonResult) -> str:
    """One sentence on the audits: how many points, runs per side, ceiling and time."""
    a = result.audits
    runs = int(result.parameters.get("audit_runs", 0) or 0)
    if a is None or a.empty or runs == 0:
        return "No privacy audit was run (audit runs 0)." if runs == 0 else ""
    done = a[a["audit_lower"].notna()]
    skipped = int(a["audit_verdict"].astype(str).str.startswith("not audited").sum())
    idle = f" {skipped} DP point(s) not audited (the table says why)." if skipped else ""
    return ((f"Privacy audit: {len(done)} DP point(s), {runs} runs per side each (ceiling {audit_ceiling(runs):.3g}), "
             f"{float(done['audit_seconds'].sum()):.1f} s in all ({float(done['audit_seconds'].mean()):.1f} s a point); "
             "an audit can only find violations: a bound below the claim proves nothing.") if len(done) else
            "Privacy audit: none of the DP points could be audited.") + idle


def reference_rows(result: ComparisonResult) -> pd.DataFrame:
    """The references of every number (:meth:`ComparisonResult.reference_rows`), to 4 decimals."""
    rows = result.reference_rows()
    for col in ("raw table / non-private model", "control / constant guess"):
        rows[col] = rows[col].astype(float).round(4)
    return rows


def below_guess(result: ComparisonResult, utility: str = "utility") -> list[str]:
    """One sentence per point whose ``utility`` cannot be said to beat the constant guess (at
    or below it, or inside its 95% interval: :meth:`ComparisonResult.guess_notes`)."""
    return result.guess_notes(utility)


#: The utility measures a user can put on the frontier's y axis.
UTILITIES = {"utility_auc": "ROC AUC", "utility": "Accuracy", "utility_balanced": "Balanced accuracy"}


def utility_choices(result: ComparisonResult) -> list[str]:
    """The utility measures this result has, the default first (ROC AUC for a binary label)."""
    s = result.summary()
    have = [u for u in UTILITIES if f"{u}_mean" in s and s[f"{u}_mean"].notna().any()] or ["utility"]
    first = result.default_utility()
    return [first] + [u for u in have if u != first] if first in have else have


def power_note(result: ComparisonResult, risk: str) -> str | None:
    """The sentence saying that ``risk``'s attack has no power on this table, or None."""
    from core.compare.result import NO_POWER

    entry = result.references.get("risks", {}).get(risk)
    if entry is None or entry["power"]:
        return None
    return f"The {NO_POWER[4:]}. {entry['sentence']} No method is recommended from this risk."


def _ledger_text(guarantee: str, caveats: str | None) -> str:
    text = str(guarantee)
    if isinstance(caveats, str) and caveats.strip():
        text += " Not covered or taken as public: " + caveats.strip()
    return text


def table_view(result: ComparisonResult) -> "pd.io.formats.style.Styler":
    """:func:`table_rows` as the page shows it: a method that takes no epsilon shows a dash
    in the epsilon setting column, not "None"; epsilons as written (0.5, 1, 2), measures to 4
    decimals; a release that is not DP has its DP cell highlighted.

    The grid draws every empty cell as "None" whatever its formatting, so the dash is the
    display of an epsilon of infinity (no budget: no differential privacy), which keeps the
    column numeric: sorted, such methods come after every finite epsilon."""
    rows = table_rows(result)
    rows[EPSILON_SETTING] = rows[EPSILON_SETTING].astype(float).fillna(math.inf)
    style = (rows.style.format(precision=4)
             .format(lambda e: "\u2014" if math.isinf(e) else f"{e:g}", subset=[EPSILON_SETTING])
             .map(lambda v: "color: #b00020; font-weight: bold" if v == NOT_DP_BADGE else "", subset=["DP"]))
    if AUDIT_COLUMN in rows:
        style = style.map(lambda v: "color: #b00020; font-weight: bold" if str(v).startswith("VIOLATION") else "",
                          subset=[AUDIT_COLUMN])
    return style


def method_rows(result: ComparisonResult) -> pd.DataFrame:
    """What each compared method releases and guarantees, in words (one row per method):
    DP or :data:`NOT_DP_BADGE`, the ledger's sentence and its caveats."""
    first = result.runs.drop_duplicates("method")
    caveats = first["caveats"] if "caveats" in first else pd.Series("", index=first.index)
    return pd.DataFrame({
        "method": first["method"],
        "DP": first["is_dp"].map({True: "yes", False: NOT_DP_BADGE}),
        "releases": [METHODS[m].description for m in first["method"]],
        "guarantee": first["guarantee"],
        "not covered or taken as public": caveats.fillna(""),
    })


def marginal_tables(result: ComparisonResult) -> dict[str, tuple[pd.DataFrame, pd.DataFrame]]:
    """What each MST or AIM release of ``result`` measured: ``{method: (workload, bins)}``
    (:func:`core.compare.marginal_methods.marginal_settings`), from the result's public schema,
    its released columns (the schema's, identifiers left out), its first epsilon and the rows
    released (each release has as many rows as the training part). Empty when neither ran."""
    from core.compare.marginal_methods import marginal_settings
    from core.marginal.config import ALGORITHMS

    ran = [m for m in result.runs["method"].drop_duplicates() if m in ALGORITHMS]
    if not ran or not result.parameters.get("epsilons"):
        return {}
    schema = PublicSchema.from_dict(result.parameters["schema"])
    columns = [c for c in schema.names if schema[c].kind != "identifier"]
    out = {}
    for method in ran:
        rows = result.runs.loc[result.runs["method"] == method, "rows_released"]
        n = max(1, int(rows.max())) if rows.notna().any() else 1
        out[method] = marginal_settings(schema, columns, algorithm=method, n=n,
                                        epsilon=float(result.parameters["epsilons"][0]))
    return out


def run_config(result: ComparisonResult, *, upload_name: str | None, risk: str,
               utility: str = "utility") -> CompareConfig:
    """The config that reruns ``result`` from the command line (the "save settings" file):
    ``upload_name`` is the file name of an uploaded table (None for a sample or a public
    dataset), which ``pux compare`` then needs as ``--csv PATH``."""
    return config_from_result(result, dataset=None if upload_name is None else f"csv:{upload_name}", risk=risk,
                              utility=utility)


def report_html(result: ComparisonResult, config: CompareConfig, dataset: Dataset) -> bytes:
    """The self-contained HTML report of ``result`` (dashboard.compare.report.build_report)."""
    from dashboard.compare.report import build_report

    return build_report(result, config=config, dataset=dataset).encode("utf-8")


def summary_csv(result: ComparisonResult) -> bytes:
    """The frontier's data: every measure's mean, sd and n per method and epsilon (CSV)."""
    from dashboard.compare.report import summary_csv as text

    return text(result).encode("utf-8")


def runs_csv(result: ComparisonResult) -> bytes:
    """Every release's measures, one row per run (CSV)."""
    from dashboard.compare.report import runs_csv as text

    return text(result).encode("utf-8")
