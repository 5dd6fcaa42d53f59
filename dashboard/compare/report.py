"""The Compare report: one self-contained HTML page to hand over, and the CSV of its numbers.

:func:`build_report` writes one HTML file that opens offline: plotly.js is embedded once,
inline (no ``<script src>``, no web fonts, no style sheet links), the CSS is inline, and
the config and the CSV files are embedded as ``data:`` download links. Its sections:

1. title and creation time, and the note that the numbers are display measurements of
   seeded releases, not a release;
2. the takeaway sentence (:meth:`core.compare.result.ComparisonResult.takeaway`);
3. the frontier (:func:`dashboard.compare.charts.frontier_chart` with the Pareto front) on
   the config's axes (a point whose audit found a lower bound above its claim marked, and
   said in a box under it), and for models their accuracy against the membership-inference AUC;
4. the table of every measure per method and epsilon (mean ± sd over repetitions, n), with
   the epsilon each release was asked for ("epsilon (setting)"), a "NOT DP" badge and the
   guarantee in words (:func:`core.compare.result.privacy_label`: a release that is not DP never
   shows its nominal epsilon as a guarantee), each DP point's claimed epsilon, audited lower
   bound and audit ceiling, and the note that the measures are evaluated on the private
   data, not released;
4b. the privacy audit beside every DP point (:attr:`ComparisonResult.audits`): claim, lower
   bound, ceiling, runs, seconds, worst pair and verdict;
5. per method: its description, whether it is DP (a "not differentially private" badge
   where not), the ledger's sentence (per epsilon when it differs) with its caveats, its
   wall time; the skipped methods with their reasons;
6. the dataset: name, fingerprint, rows and columns (when the Dataset is given), label,
   sensitive attributes;
7. the public schema the comparison used: each column's kind, bounds or categories and
   where they came from (an entry "read from data" makes the releases that use it not DP);
8. every parameter and seed (``result.parameters``, the schema apart);
9. package versions;
10. the config as JSON, and how to rerun it: ``pux compare --config run.json --out report.html``.

Every string a user supplied (dataset, file and column names) is HTML-escaped; no
streamlit import here (the command line builds the same report).
"""
from __future__ import annotations

import base64
import math
from datetime import datetime, timezone
from typing import Any, Iterable

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from core.compare.registry import METHODS
from core.compare.result import (
    NOT_DP_BADGE, PRIVATE_MEASURES_NOTE, ComparisonResult, privacy_label,
)
from core.compare.config import CompareConfig
from core.data import Dataset
from core.data.export import guard_formulas
from core.evaluation.classification import INTERVAL_WORDS
from core.runtime.versions import PACKAGES, package_versions
from dashboard.compare.charts import MEASURE_WORDS, frontier_chart
from dashboard.compare.html_parts import escape, html_table
from dashboard.compare.report_fidelity import fidelity_html
from dashboard.shared.widgets.layout import for_export

__all__ = ["build_report", "html_document", "summary_csv", "runs_csv", "package_versions", "PACKAGES"]

_STAT_COLUMNS = ("method", "kind", "epsilon", "is_dp", "guarantee")
_CSS = """
body { font-family: system-ui, -apple-system, "Segoe UI", Roboto, Helvetica, Arial, sans-serif;
       max-width: 1100px; margin: 2em auto; padding: 0 1em; color: #222; line-height: 1.45; }
h1 { font-size: 1.6em; margin-bottom: 0.2em; } h2 { font-size: 1.25em; margin-top: 2em;
       border-bottom: 1px solid #ddd; padding-bottom: 0.2em; } h3 { font-size: 1.05em; }
.meta, .note { color: #555; font-size: 0.92em; }
.takeaway { font-size: 1.15em; background: #f3f6fa; border-left: 4px solid #4c78a8; padding: 0.7em 1em; }
table { border-collapse: collapse; font-size: 0.85em; margin: 0.5em 0; }
th, td { border: 1px solid #ddd; padding: 0.25em 0.5em; text-align: left; vertical-align: top; }
th { background: #f5f5f5; } td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.scroll { overflow-x: auto; } pre { background: #f7f7f7; padding: 0.8em; overflow-x: auto; font-size: 0.85em; }
code { background: #f3f3f3; padding: 0 0.2em; }
.notdp { color: #fff; background: #b00020; padding: 0.05em 0.4em; border-radius: 3px; font-weight: bold;
         font-size: 0.85em; white-space: nowrap; }
.dp { color: #fff; background: #2e7d32; padding: 0.05em 0.4em; border-radius: 3px; font-size: 0.85em; }
"""


# ----------------------------------------------------------------------------- CSV
def _csv(frame: pd.DataFrame) -> str:
    return guard_formulas(frame).to_csv(index=False)


def summary_csv(result: ComparisonResult) -> str:
    """CSV of :meth:`ComparisonResult.summary` (one row per method and epsilon), formulas guarded."""
    if not isinstance(result, ComparisonResult):
        raise TypeError(f"result must be a ComparisonResult, got {type(result).__name__}.")
    return _csv(result.summary())


def runs_csv(result: ComparisonResult) -> str:
    """CSV of :attr:`ComparisonResult.runs` (one row per release), formulas guarded."""
    if not isinstance(result, ComparisonResult):
        raise TypeError(f"result must be a ComparisonResult, got {type(result).__name__}.")
    return _csv(result.runs)


# ----------------------------------------------------------------------------- pieces
_e = escape


def _number(value: Any, digits: int = 3) -> str:
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return ""
    if isinstance(value, float):
        return f"{value:.{digits}g}" if math.isfinite(value) else ("∞" if value > 0 else "-∞")
    return str(value)


_table = html_table


def _pairs(items: dict[str, Any]) -> str:
    return _table(("name", "value"), ((k, v if isinstance(v, str) else _json_text(v)) for k, v in items.items()))


def _json_text(value: Any) -> str:
    import json

    return json.dumps(value, ensure_ascii=False, default=str)


def _download(text: str, *, filename: str, mime: str, words: str) -> str:
    data = base64.b64encode(text.encode("utf-8")).decode("ascii")
    return f'<a download="{_e(filename)}" href="data:{mime};base64,{data}">{_e(words)}</a>'


def _figures_html(figures: list[tuple[str, go.Figure]]) -> list[str]:
    """Each figure as a div; plotly.js is inlined with the first only."""
    out = []
    for i, (div_id, fig) in enumerate(figures):
        out.append(pio.to_html(for_export(fig), full_html=False, include_plotlyjs=(i == 0), div_id=div_id,
                               config={"displaylogo": False, "responsive": True}))
    return out


def _measure_columns(summary: pd.DataFrame) -> list[str]:
    """Measures of the summary with at least one value, in the summary's order."""
    out = []
    for col in summary.columns:
        if col.endswith("_mean") and summary[col].notna().any():
            out.append(col[: -len("_mean")])
    return out


def _mean_sd(mean: Any, sd: Any) -> str:
    """"0.71 ± 0.014"; the mean alone where the spread is undefined (an infinite epsilon)."""
    if pd.isna(mean):
        return ""
    if pd.isna(sd) or not math.isfinite(float(mean)):
        return _number(float(mean))
    return f"{_number(float(mean))} ± {_number(float(sd))}"


#: The nominal epsilon and delta are left out of the table: the guarantee column and the
#: ledger epsilon (infinite for a release that is not DP) say what a release delivers.
_FORMAL_MEASURES = ("nominal_epsilon", "nominal_delta")


def _true(value: Any) -> bool:
    """Whether an audit's violation cell says yes (None or NaN where nothing was audited)."""
    return value is not None and not pd.isna(value) and bool(value)


def _audit_cells(r: pd.Series) -> list[str]:
    """The claimed epsilon, the audited lower bound and the ceiling of one summary row ("" where
    nothing was audited); a lower bound above its claim is marked VIOLATION."""
    lower = r.get("audit_lower", math.nan)
    if pd.isna(lower):
        if str(r.get("audit_verdict", "")).startswith("not audited"):  # the reason is in the audit section
            claim = r.get("audit_claim", math.nan)
            return ["" if pd.isna(claim) else _number(float(claim)), "not audited", ""]
        return ["", "", ""]
    bad = _true(r.get("audit_violation"))
    return [_number(float(r["audit_claim"])), _number(float(lower)) + (" VIOLATION" if bad else ""),
            _number(float(r["audit_ceiling"]))]


def _summary_table(summary: pd.DataFrame) -> str:
    measures = [m for m in _measure_columns(summary) if m not in _FORMAL_MEASURES]
    audited = "audit_verdict" in summary and summary["audit_verdict"].fillna("").astype(bool).any()
    audit_header = ["claimed epsilon", "audited lower bound", "audit ceiling"] if audited else []
    header = ["method", "epsilon (setting)", "DP", "guarantee", *audit_header, "n", *measures]
    rows = []
    for _, r in summary.iterrows():
        n = max((int(r[f"{m}_n"]) for m in measures if pd.notna(r.get(f"{m}_n"))), default=0)
        dp = bool(r["is_dp"])
        guarantee = privacy_label(dp, float(r.get("ledger_epsilon_mean", math.inf)),
                                  float(r.get("ledger_delta_mean", 0.0) or 0.0), r["epsilon"])
        cells = [r["method"], _number(float(r["epsilon"])), "yes" if dp else NOT_DP_BADGE, guarantee,
                 *(_audit_cells(r) if audited else []), str(n)]
        for m in measures:
            mean, sd = r[f"{m}_mean"], r[f"{m}_std"]
            cells.append(_mean_sd(mean, sd))
        rows.append(cells)
    return _table(header, rows, numeric=[1, *range(4, len(header))])


def _audit_section(result: ComparisonResult) -> str:
    """The audit beside every DP point: the claim, the audited lower bound from the worst
    neighbouring pair, the ceiling the runs allow, the runs and seconds, the worst pair and the
    verdict (every string escaped); each violation first, in a box."""
    runs = int(result.parameters.get("audit_runs", 0) or 0)
    audits = result.audits
    if runs == 0 or audits is None or audits.empty:
        return ("<p>No privacy audit was run (audit runs 0)." if runs == 0 else
                "<p>No point claims differential privacy: nothing to audit.") + "</p>"
    parts = [f'<p class="takeaway">{_e(text)}</p>' for text in _violations(audits)]
    done = audits[audits["audit_lower"].notna()]
    parts.append(
        f'<p class="note">Each DP point (method and epsilon, once, not per repetition) was audited on a seeded '
        f"sample of {_e(result.parameters.get('audit_rows', ''))} training records: the step that spends its "
        f"budget ran {runs} times on each of a pair of neighbouring datasets, and a threshold test on its output "
        "gives a lower bound on the epsilon it really has (95% confidence; the worst pair of each point is shown). "
        f"No audit can show more than the ceiling its runs allow; a claim above it cannot be tested. An audit can "
        f"only find violations: a bound below the claim proves nothing. {len(done)} point(s), "
        f"{float(done['audit_seconds'].sum()):.1f} s in all.{_not_audited(audits)}</p>")
    rows = [[r["method"], _number(float(r["epsilon"])), _number(float(r["audit_claim"])),
             _number(float(r["audit_lower"])), _number(float(r["audit_ceiling"])),
             "" if r["audit_runs"] is None or pd.isna(r["audit_runs"]) else str(int(r["audit_runs"])),
             _number(float(r["audit_seconds"]), 2), r["audit_pair"], r["audit_verdict"], r["audit_note"]]
            for _, r in audits.iterrows()]
    parts.append(_table(("method", "epsilon", "claimed epsilon", "audited lower bound", "ceiling", "runs per side",
                         "seconds", "worst pair", "verdict", "note"), rows, numeric=range(1, 7)))
    return "\n".join(parts)


def _not_audited(audits: pd.DataFrame) -> str:
    """A sentence on the DP points that were not audited (their reasons are in the table), or ""."""
    n = int(audits["audit_verdict"].astype(str).str.startswith("not audited").sum())
    return (f" {n} DP point(s) not audited (the verdict says why): no bound from a stand-in is shown for them."
            if n else "")


def _violations(audits: pd.DataFrame) -> list[str]:
    """One sentence per audited point whose lower bound exceeds its claim."""
    bad = audits[[_true(v) for v in audits["audit_violation"]]]
    return [f"{r['method']} at epsilon {float(r['epsilon']):g}: {r['audit_verdict']} Worst pair: {r['audit_pair']}."
            for _, r in bad.iterrows()]


def _guarantees(runs: pd.DataFrame, name: str) -> list[tuple[str, str, bool, str]]:
    """(epsilon words, guarantee sentence, is DP, caveats) per distinct sentence of a method's runs."""
    mine = runs[runs["method"] == name]
    seen: dict[str, list] = {}
    for _, r in mine.iterrows():
        eps = "" if pd.isna(r["epsilon"]) else f"epsilon {float(r['epsilon']):g}"
        caveats = r.get("caveats", "")
        caveats = caveats if isinstance(caveats, str) else ""
        entry = seen.setdefault(str(r["guarantee"]), [[], bool(r["is_dp"]), caveats])
        if eps and eps not in entry[0]:
            entry[0].append(eps)
    return [(", ".join(e), g, dp, c) for g, (e, dp, c) in seen.items()]


def _badge(is_dp: bool) -> str:
    return '<span class="dp">DP</span>' if is_dp else '<span class="notdp">not differentially private</span>'


def _method_section(result: ComparisonResult, name: str) -> str:
    method = METHODS[name]
    ran = result.runs[result.runs["method"] == name]
    dp = bool(ran["is_dp"].all()) if len(ran) else method.dp
    parts = [f"<h3>{_e(name)} {_badge(dp)}</h3>",
             f"<p>{_e(method.description)}</p>",
             f"<p>Releases {'a table' if method.kind == 'table' else 'a model'}; "
             f"differentially private: <b>{'yes' if dp else 'no'}</b>"
             + (f"; wall time {result.seconds[name]:.1f} s" if name in result.seconds else "") + ".</p>"]
    if name in result.skipped:
        parts.append(f"<p><b>Skipped:</b> {_e(result.skipped[name])}</p>")
    for eps, sentence, is_dp, caveats in _guarantees(result.runs, name):
        parts.append(f"<p><b>Guarantee{(' (' + _e(eps) + ')') if eps else ''}:</b> "
                     + ("" if is_dp else _badge(False) + " ") + f"{_e(sentence)}</p>")
        if caveats:
            parts.append(f'<p class="note">Not covered or taken as public: {_e(caveats)}</p>')
    return "\n".join(parts)


def _schema_section(result: ComparisonResult) -> str:
    """The public schema the comparison used, one row per column (every string escaped)."""
    schema = result.schema
    if schema is None:
        return "<p>No public schema was recorded with this result.</p>"
    rows = []
    for c in schema.columns:
        if c.kind == "numeric":
            what = f"{c.lower:g} to {c.upper:g}" + (" (whole numbers)" if c.integer else "")
        elif c.kind == "categorical":
            cats = [str(v) for v in c.categories]
            what = ", ".join(cats[:12]) + (f" and {len(cats) - 12} more" if len(cats) > 12 else "")
        else:
            what = "never used nor published"
        role = "label" if c.name == schema.label else ("sensitive" if c.name in schema.sensitive else "")
        rows.append((c.name, c.kind, role, what, c.source, c.note))
    group = ("none declared: CDP-LR's guarantee covers one record" if schema.max_group_size is None
             else f"{schema.max_group_size} records ({schema.max_group_source})")
    return (f"<p>{_e(schema.describe())} Bounds, category lists and encoders of every method come from "
            f"it, never from the records. Correlated group bound: {_e(group)}.</p>"
            + _table(("column", "kind", "role", "bounds or categories", "source", "note"), rows))


def _dataset_items(result: ComparisonResult, config: CompareConfig, dataset: Dataset | None) -> dict[str, Any]:
    p = result.parameters
    items: dict[str, Any] = {"dataset (config)": config.dataset, "name": p.get("dataset"),
                             "fingerprint": p.get("fingerprint")}
    if dataset is not None:
        items["rows"] = str(dataset.n_rows)
        items["columns"] = ", ".join(map(str, dataset.frame.columns))
    items["rows compared (max_rows)"] = "all" if p.get("max_rows") is None else str(p["max_rows"])
    items["label"] = "none" if p.get("label") is None else str(p["label"])
    items["sensitive"] = ", ".join(map(str, p.get("sensitive", []))) or "none"
    return items


def _frontiers(result: ComparisonResult, config: CompareConfig) -> list[tuple[str, go.Figure]]:
    summary = result.summary()
    if summary.empty:
        return []
    words = {m: MEASURE_WORDS.get(m, m) for m in (config.utility, config.risk)}
    words = {k: _e(v) for k, v in words.items()}  # a risk may carry a column name
    figs = [("frontier", frontier_chart(summary, result.pareto_front(utility=config.utility, risk=config.risk),
                                        utility=config.utility, risk=config.risk, words=words,
                                        references=result.references))]
    models = summary[summary["kind"] == "model"]
    if config.risk not in ("mia_auc", "mia_advantage") and len(models) and models["mia_auc_mean"].notna().any():
        figs.append(("frontier-models", frontier_chart(
            models, None, utility="utility", risk="mia_auc",
            title="Models: accuracy against membership-inference AUC", references=result.references)))
    return figs


def _references_section(result: ComparisonResult, risk: str, utility: str = "utility") -> str:
    """The references of every number, the no-power sentence of the frontier's risk, and the
    points whose utility cannot be said to beat the constant guess (every string escaped)."""
    from core.compare.result import NO_POWER

    refs = result.reference_rows()
    if refs.empty:
        return "<p>No reference was measured with this result.</p>"
    parts = ['<p class="note">Each utility (accuracy, ROC AUC, balanced accuracy) beside the constant guess '
             "(the majority class of the held-out records: its accuracy is the majority share, its ROC AUC 0.5, "
             "its balanced accuracy 1/K) and the non-private model; each risk beside the raw table (no protection) and its "
             "control, with 95% intervals. An attack that does not separate the raw table from its control has "
             "no power on this table, and nothing is recommended from it. " + _e(INTERVAL_WORDS) + "</p>"]
    entry = result.references.get("risks", {}).get(risk)
    if entry is not None and not entry["power"]:
        parts.append(f'<p class="takeaway">The {_e(NO_POWER[4:])} for the frontier\'s risk. '
                     f'{_e(entry["sentence"])}</p>')
    below = result.guess_notes(utility)
    if below:
        parts.append("<p><b>No better than the constant guess:</b> " + _e(" ".join(below)) + "</p>")
    rows = [[r["measure"], _number(float(r["raw table / non-private model"])), r["interval"],
             _number(float(r["control / constant guess"])), r["control interval"], r["attack has power"],
             r["reading"]] for _, r in refs.iterrows()]
    parts.append(_table(list(refs.columns), rows, numeric=[1, 3]))
    return "\n".join(parts)


# ----------------------------------------------------------------------------- report
def _every_measure(result: ComparisonResult, summary: pd.DataFrame) -> list[str]:
    """The notes, CSV downloads and table of the report's "Every measure" section."""
    return [
        f'<p class="note">{_e(PRIVATE_MEASURES_NOTE)} The epsilon setting is what each release was '
        "asked for; the guarantee column says what it delivers (a release marked "
        f"{_e(NOT_DP_BADGE)} has none, whatever epsilon it names).</p>",
        '<p class="note">Mean ± standard deviation over the repetitions (n); empty cells do not apply '
        "to that kind of release. " + _download(summary_csv(result), filename="compare_summary.csv",
                                               mime="text/csv", words="Summary as CSV") + " · "
        + _download(runs_csv(result), filename="compare_runs.csv", mime="text/csv",
                    words="Every release as CSV") + "</p>",
        _summary_table(summary) if not summary.empty else "<p>No runs.</p>",
    ]


def build_report(result: ComparisonResult, *, config: CompareConfig, created: str | None = None,
                 dataset: Dataset | None = None) -> str:
    """One self-contained HTML page of a comparison (see the module docstring for its sections).

    Parameters
    ----------
    result : ComparisonResult
    config : CompareConfig
        What ran (its JSON is embedded so a reader can rerun it); its ``utility`` and
        ``risk`` are the frontier's axes.
    created : str, optional
        The creation time shown (default now, UTC, ISO 8601 to the second); pass a fixed
        one for a byte-identical report.
    dataset : Dataset, optional
        The compared dataset, for its row count and columns.

    Returns
    -------
    str
        A complete HTML document; it loads nothing from the network.
    """
    if not isinstance(result, ComparisonResult):
        raise TypeError(f"result must be a ComparisonResult, got {type(result).__name__}.")
    if not isinstance(config, CompareConfig):
        raise TypeError(f"config must be a CompareConfig, got {type(config).__name__}.")
    if created is None:
        created = datetime.now(timezone.utc).isoformat(timespec="seconds")
    summary = result.summary()
    title = f"Privacy-utility comparison: {result.parameters.get('dataset', config.dataset)}"
    takeaway = (result.takeaway(utility=config.utility, risk=config.risk) if not summary.empty
                else "No method produced a release, so there is nothing to compare.")
    figures = _figures_html(_frontiers(result, config))
    names = list(dict.fromkeys([*result.parameters.get("methods", []), *result.skipped]))
    body = [
        f"<h1>{_e(title)}</h1>",
        f'<p class="meta">Created {_e(created)} by the privacy-utility explorer '
        f"(<code>pux compare</code>).</p>",
        '<p class="note">These numbers are display measurements of seeded releases: nothing in this '
        "report is itself a private release, and anyone with the config can regenerate every release "
        "it measures.</p>",
        "<h2>Takeaway</h2>", f'<p class="takeaway">{_e(takeaway)}</p>',
        "<h2>Frontier</h2>", *figures,
        *(f'<p class="takeaway">{_e(text)}</p>' for text in _violations(result.audits)),
        "<h2>References</h2>", _references_section(result, config.risk, config.utility),
        "<h2>Every measure</h2>", *_every_measure(result, summary),
        fidelity_html(result),
        "<h2>Privacy audit beside every DP point</h2>", _audit_section(result),
        "<h2>Methods, ledgers and guarantees</h2>",
        *(_method_section(result, n) for n in names if n in METHODS),
        "<h2>Dataset</h2>", _pairs(_dataset_items(result, config, dataset)),
        "<h2>Public schema</h2>", _schema_section(result),
        "<h2>Parameters and seed</h2>", _pairs({k: v for k, v in result.parameters.items() if k != "schema"}),
        "<h2>Package versions</h2>", _pairs(package_versions()),
        "<h2>Config: rerun this comparison</h2>",
        "<p>Save the config below as <code>run.json</code> and run "
        "<code>pux compare --config run.json --out report.html</code> (add <code>--data-dir DIR</code> "
        "for a public dataset, <code>--csv PATH</code> for an uploaded CSV): the same config and seed "
        "give the same numbers. "
        + _download(config.to_json(), filename="run.json", mime="application/json", words="Download run.json")
        + "</p>",
        f"<pre>{_e(config.to_json())}</pre>",
    ]
    return html_document(title, body)


def html_document(title: str, body: Iterable[str], *, css: str = "") -> str:
    """A complete offline HTML page: ``title`` (escaped here), the report's inline style
    (and ``css``), and the already-escaped ``body`` parts one per line."""
    return ("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
            f"<title>{_e(title)}</title>\n<style>{_CSS}{css}</style>\n</head>\n<body>\n"
            + "\n".join(body) + "\n</body>\n</html>\n")
