"""The Tour's steps: one short story per paper and one for the comparison.

Each :class:`TourStep` names the story whose measurements it shows (:data:`core.papers.stories.STORIES`,
computed once per story and cached by ``dashboard/tour/cached.py``), says in our words what
problem the paper addresses and what to look at, and turns the story's result into what
the step draws (:meth:`TourStep.view`): one chart with the tidy data it draws, the
computed facts, the paper's claim checked on our numbers, and the audits' verdicts.
Pure: no streamlit, so the Tour page (``dashboard/tour/tour.py``) and the offline HTML
export (:mod:`dashboard.tour.report`) show the same steps.
"""
from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Callable

import pandas as pd
import plotly.graph_objects as go

from core.audit.result import AuditResult
from core.claims.claim import Claim
from core.evaluation.metrics import below_reference
from dashboard.shared.widgets import audit_chart as audit_charts
from dashboard.cdp import charts as cdp_charts
from dashboard.compare import charts as compare_charts
from dashboard.imposter import charts as imposter_charts
from dashboard.sskm import charts as sskm_charts

__all__ = ["TourStep", "StepView", "STEPS", "step_index"]


@dataclass(frozen=True)
class StepView:
    """What one step shows, computed from its story's result.

    Attributes
    ----------
    figure : plotly Figure or None
    data : DataFrame or None
        The tidy numbers the figure draws (the chart's CSV).
    name : str
        The chart's file name (CSV, PNG).
    facts : list of str
        Computed sentences; they name only the built-in samples' columns.
    claim : Claim or None
        The paper's claim checked on the story's numbers.
    audits : list of (str, AuditResult)
        What each audit checked, and its result.
    """

    figure: go.Figure | None = None
    data: pd.DataFrame | None = None
    name: str = ""
    facts: list[str] = field(default_factory=list)
    claim: Claim | None = None
    audits: list[tuple[str, AuditResult]] = field(default_factory=list)


@dataclass(frozen=True)
class TourStep:
    """One step of the Tour.

    Attributes
    ----------
    key : str
        Stable identifier (URL, tests).
    story : str or None
        The key of :data:`core.papers.stories.STORIES` it draws from (None: nothing to compute).
    chapter : str
        The story's title, shown above the step.
    title : str
        The step's headline.
    text : str
        Our words (markdown): the problem, what to look at.
    page : str
        The full page behind the step (``views/<file>.py``) and its title.
    make : callable(result) -> StepView
    """

    key: str
    story: str | None
    chapter: str
    title: str
    text: str
    page: str
    page_title: str
    make: Callable[[Any], StepView] = field(default=lambda result: StepView(), repr=False)

    def view(self, result: Any) -> StepView:
        """What the step shows, from its story's result (None when it has no story)."""
        return self.make(result)


def _titled(fig: go.Figure, title: str, *, height: int | None = None) -> go.Figure:
    """``fig`` with a title that stands alone (what, on which data)."""
    fig.update_layout(title=dict(text=title))
    if height is not None:
        fig.update_layout(height=height)
    return fig


def _audit_view(result: AuditResult, title: str) -> tuple[go.Figure, pd.DataFrame]:
    kw = dict(claimed=result.claimed_epsilon, lower=result.epsilon_lower, point=result.epsilon_point,
              confidence=result.confidence, ceiling=result.ceiling if math.isfinite(result.ceiling) else None,
              runs=result.runs)
    fig = _titled(audit_charts.audit_interval(**kw), title, height=260)
    return fig, audit_charts.audit_data(**kw)


# ----------------------------------------------------------------------------- paper 000
def _cdp_sensitivity(s) -> StepView:
    gs, cs = s.sensitivity["Group"], s.sensitivity["Proposed"]
    fig = _titled(cdp_charts.sensitivity_bars(cs, gs),
                  "Records one replaced supplier moves: CS (Proposed) vs GS (Group), supplier sample")
    fig.update_layout(xaxis_title="sensitivity of a count query", yaxis_title="records moved")
    return StepView(fig, cdp_charts.sensitivity_data(cs, gs), "tour-cdp-sensitivity", facts=[
        f"Of {s.n_train:,} training records, replacing one can move up to {gs:.0f} correlated records "
        f"(group sensitivity GS, the largest correlated group).",
        f"Counting each record's own correlated records (correlated sensitivity CS, after DC-FBFS feature "
        f"selection) gives {cs:.1f}: the noise of every query scales with this number.",
        "Ordinary differential privacy assumes 1: noise for one record, too little when records move together.",
    ])


def _reference_facts(references) -> list[str]:
    """One sentence naming what every accuracy is read against (constant guess, non-private model)."""
    if not references:
        return []
    words = {"majority class (constant guess)": "always guessing the majority class (the constant guess) scores",
             "non-private model": "the non-private model scores"}
    parts = [f"{words.get(r.name, r.name)} {r.describe()}" for r in references]
    return ["References: " + "; ".join(parts) + "."]


def _cdp_claim(s) -> StepView:
    refs = tuple(getattr(s, "references", ()) or ())
    fig = cdp_charts.curve_with_spread(
        s.curve, group="scheme", value="accuracy", log_x=True, x_title="epsilon (log scale)",
        y_title="test accuracy", title="Fig. 4 on the supplier sample: test accuracy vs epsilon per scheme",
        references=refs)
    top = s.curve[s.curve["epsilon"] == s.curve["epsilon"].max()].set_index("scheme")["accuracy_mean"]
    facts = [f"At epsilon {s.curve['epsilon'].max():g}: " + ", ".join(
        f"{k} {v:.3f}" for k, v in top.sort_values(ascending=False).items()) + " (mean test accuracy)."]
    facts += _reference_facts(refs)
    facts += list(getattr(s, "reference_notes", ()) or ())
    return StepView(fig, cdp_charts.curve_data(s.curve, group="scheme", value="accuracy", references=refs),
                    "tour-cdp-fig4", facts=facts, claim=s.claim)


def _cdp_breaks(s) -> StepView:
    fig, data = _audit_view(s.audit, f"Privacy audit of one CDP-LR training at epsilon {s.audit_epsilon:g}, "
                                     "supplier sample")
    paper, ours = s.paper_preset["paper"], s.paper_preset["sensible"]
    refs = tuple(getattr(s, "references", ()) or ())
    guess = next((r for r in refs if "constant guess" in r.name), None)
    below = [t for t in (below_reference(v, guess.value, what="the constant guess") if guess else None
                         for v in (paper, ours)) if t]
    return StepView(fig, data, "tour-cdp-audit", facts=[
        f"With the paper's own training settings (Table 2: learning rate 1e-6, 100 epochs) the weights barely "
        f"leave 0: accuracy {paper:.3f} at epsilon 5, against {ours:.3f} with a step size chosen from public "
        "quantities. Table 2's accuracies near 50 % come from this, not from the noise."
        + (f" Always guessing the majority class scores {guess.value:.3f}." if guess else ""),
        *below,
        f"CS is only {100 * (1 - s.sensitivity['Proposed'] / s.sensitivity['Group']):.0f} % below GS here, "
        "so calibrating to CS buys little accuracy on this table.",
        f"Guarantee: {s.guarantee}",
    ], audits=[("CDP-LR (Proposed), the correlated group replaced", s.audit)])


# ----------------------------------------------------------------------------- paper 002
def _imposter_problem(s) -> StepView:
    fig = _titled(imposter_charts.nmi_bars(s.scores, theta=s.theta, implicit=s.implicit),
                  f"Fig. 6 on the census sample: how much each attribute says about {s.sensitive} (NMI)")
    below = below_reference(s.tau, s.majority_share, what="the constant guess")
    facts = [
        f"An attacker's classifier predicts {s.sensitive} from {', '.join(s.implicit)} alone with accuracy "
        f"{s.tau:.3f}; always guessing the most common value (the constant guess) scores {s.majority_share:.3f}.",
    ]
    if below is not None:
        facts.append(f"The attacker is no better than the constant guess: {below} There is no leak to remove here.")
    else:
        facts.append(f"Deleting {s.sensitive} from a release does not hide it: these attributes give it away "
                     f"(implicit privacy), {s.tau - s.majority_share:+.3f} over the constant guess.")
    return StepView(fig, imposter_charts.nmi_data(s.scores, theta=s.theta, implicit=s.implicit),
                    "tour-imposter-fig6", facts=facts)


def _imposter_claim(s) -> StepView:
    fig = _titled(imposter_charts.table1_bars(s.table),
                  f"Table 1 on the census sample: predicting {s.sensitive} and {s.label}, real (A) vs "
                  f"IMPOSTER's synthetic table (B)")
    t = s.table
    b_s = float(t[("B", "sensitive", "accuracy")].iloc[0])
    a_s = float(t[("A", "sensitive", "accuracy")].iloc[0])
    a_l = float(t[("A", "label", "accuracy")].iloc[0])
    b_l = float(t[("B", "label", "accuracy")].iloc[0])
    label_guess = float(t.attrs.get("label_majority_real", float("nan")))
    facts = [
        f"Attacker on {s.sensitive}: {a_s:.3f} on the real table, {b_s:.3f} on the synthetic one "
        f"(the majority share, the constant guess, is {t.attrs.get('majority_synthetic', float('nan')):.3f}).",
        f"{s.label}: {a_l:.3f} on the real table (the non-private model), {b_l:.3f} on the synthetic one; always "
        f"guessing the majority class scores {label_guess:.3f} ({s.classifier.upper()} classifier, {s.epochs} "
        "training epochs).",
    ]
    for where, value in (("on the synthetic table", b_l), ("on the real table", a_l)):
        below = below_reference(value, label_guess, what="the constant guess")
        if below is not None:
            facts.append(f"{s.label} {where}: {below}")
    return StepView(fig, imposter_charts.table1_data(s.table), "tour-imposter-table1", facts=facts, claim=s.claim)


def _imposter_breaks(s) -> StepView:
    fig, data = _audit_view(s.krr_audit, f"Privacy audit of the kRR baseline on {s.krr_column} at epsilon "
                                         f"{s.krr_epsilon:g}, census sample")
    return StepView(fig, data, "tour-imposter-audit", facts=[
        f"IMPOSTER: {s.guarantee}",
        "Its generator is trained on every raw record, so nothing bounds what the synthetic table says about "
        "one person: it hides a relation (who is which sex), not a record.",
        f"The baseline, k-ary randomized response, has a formal guarantee per perturbed value; its audit "
        f"on {s.krr_column} is below.",
    ], audits=[(f"kRR on {s.krr_column}, one value changed", s.krr_audit)])


# ----------------------------------------------------------------------------- paper 003
def _sskm_claim(s) -> StepView:
    t = s.table
    fig = _titled(sskm_charts.mse_vs_clusters(t, mode="sound", dataset="census sample"),
                  f"Fig. 5 on the census sample (m = {len(s.columns)}): SSKM_DP's information loss vs the number "
                  "of clusters a, one line per epsilon, sound mode")
    by_eps = t.groupby("epsilon", sort=True)["mse_mean"].mean()
    a_lo, a_hi = t["a_mean"].min(), t["a_mean"].max()
    facts = [
        f"Each record is published as the centre of its self-organising-map cluster; maps of "
        f"{a_lo:.0f} to {a_hi:.0f} clusters were fitted on the census sample's {', '.join(s.columns)}.",
        "MSE averaged over the maps: " + ", ".join(f"{v:.3f} at epsilon {e:g}" for e, v in by_eps.items()) + ".",
    ]
    if "random_mse" in t.columns:
        random_mse = float(t["random_mse"].mean())
        facts.append(f"References: the raw table loses nothing (MSE 0) and protects nothing; a random release "
                     f"(rows drawn uniformly within the public schema's bounds and categories) loses {random_mse:.3f} "
                     "and keeps no information (the dashed line).")
        worse = [f"{e:g}" for e, v in by_eps.items() if v >= random_mse]
        if worse:
            facts.append(f"At epsilon {', '.join(worse)} the release is no better than a random release on "
                         f"utility: its MSE is at or above {random_mse:.3f}.")
    return StepView(fig, sskm_charts.mse_vs_clusters_data(t), "tour-sskm-fig5", facts=facts, claim=s.claim)


def _sskm_breaks(s) -> StepView:
    paper = s.audits["paper"]
    fig, data = _audit_view(paper, f"Privacy audit of the paper's SSKM_DP at its nominal epsilon "
                                   f"{s.audit_epsilon:g}, census sample")
    sound = s.audits["sound"]
    return StepView(fig, data, "tour-sskm-audit", facts=[
        "The paper's algorithm fits the map on every raw record, keeps the rows in order and publishes the "
        "unprotected attributes and the cluster sizes exactly: its epsilon is nominal.",
        f"Paper mode: {s.guarantees['paper']}",
        f"Sound mode (ours): {s.guarantees['sound']}",
    ], audits=[("SSKM_DP, paper mode (the whole algorithm rerun)", paper),
               ("SSKM_DP, sound mode (one published record moved)", sound)])


# ----------------------------------------------------------------------------- comparison
def _compare_reference_facts(s) -> list[str]:
    """The utility's references (accuracy, ROC AUC, balanced accuracy) and, per method on the
    frontier's utility, whether it falls under the constant guess."""
    util = (getattr(s, "references", {}) or {}).get("utility")
    if not util:
        return []
    by = util.get("by_measure") or {"utility": {"guess": util["majority"], "nonprivate": util["nonprivate"],
                                                "words": "accuracy"}}
    refs = "; ".join(f"{ref['words']}: the constant guess {float(ref['guess']):.3f}, the non-private model "
                     f"{float(ref['nonprivate']):.3f}" for ref in by.values() if math.isfinite(float(ref["guess"])))
    facts = [f"References for {s.label} on the held-out records ({refs})."]
    utility = getattr(s, "utility", "utility")
    col, guess = f"{utility}_mean", float(by.get(utility, by["utility"])["guess"])
    if col in s.summary.columns:
        for method, part in s.summary.groupby("method", sort=False):
            best = float(part[col].max())
            below = below_reference(best, guess, what="the constant guess")
            if below is not None:
                where = "below" if best < guess else "no better than"
                facts.append(f"{method}: {where} the constant guess at every epsilon. {below}")
    return facts


def _compare(s) -> StepView:
    utility = getattr(s, "utility", "utility")
    words = compare_charts.MEASURE_WORDS.get(utility, utility).split(": ", 1)[-1].split(" on ")[0]
    fig = _titled(compare_charts.frontier_chart(s.summary, s.front, utility=utility,
                                                references=getattr(s, "references", None) or None),
                  f"Every method on the census sample: {s.label} {words} vs attribute-inference advantage on "
                  f"{s.sensitive}")
    dp = [m for m, v in s.dp.items() if v]
    not_dp = [m for m, v in s.dp.items() if not v]
    cols = [c for c in s.summary.columns if c in ("method", "epsilon", "utility_mean", "utility_auc_mean",
                                                   "utility_balanced_mean", "ai_advantage_mean")]
    headline = getattr(s, "dp_headline", "")
    return StepView(fig, s.summary[cols].copy(), "tour-compare-frontier", facts=[
        *([headline] if headline else []),
        s.takeaway,
        *_compare_reference_facts(s),
        "Differentially private: " + ", ".join(dp) + ". Not differentially private: " + ", ".join(not_dp) + ".",
        f"A seeded sample of {s.extra.get('rows', 0):,} rows (a quarter held out), epsilons "
        f"{', '.join(f'{e:g}' for e in s.epsilons)}, one release each: the full Compare page repeats each "
        "release, audits every differentially private point and adds the distance to the closest record and "
        "membership inference.",
    ])


STEPS: tuple[TourStep, ...] = (
    TourStep(
        "welcome", None, "Welcome", "What privacy costs, and what it still leaks",
        "Three published methods promise to publish or learn from sensitive tables safely. This tour runs "
        "each on a small built-in table, shows the one chart behind its claim, checks the claim on our "
        "numbers, and asks an **audit** whether the promised privacy budget epsilon holds: the audit "
        "replaces one record, reruns the method many times and measures how well the two outputs can be "
        "told apart. Smaller epsilon means more noise and more privacy.\n\n"
        "Use **Next** and **Back**; each step links to the full page behind it.",
        "compare/compare.py", "Compare"),
    TourStep(
        "cdp-problem", "cdp", "Paper 000 · correlated records", "One record is never alone",
        "In the supplier table, firms come in groups (a parent and its subsidiaries) with near-identical "
        "records. Differential privacy protects one record, but when its correlated records move with it, "
        "noise sized for one record is too small. Paper 000 counts how many records move together and "
        "sizes the noise to that count.",
        "cdp/correlations.py", "Correlations", _cdp_sensitivity),
    TourStep(
        "cdp-claim", "cdp", "Paper 000 · correlated records", "The claim: noise sized to CS trains better models",
        "The paper trains logistic regression with noise on the gradient, sized to the correlated "
        "sensitivity CS (Proposed) rather than to the whole group GS (Group), and compares with Zhang's "
        "scheme and a model without noise (Fig. 4). Look at the gap between each scheme and the "
        "non-private model (dotted): that is what privacy costs in accuracy; and at the dashed line, always "
        "guessing the majority class: a scheme under it has learned nothing a constant could not.",
        "cdp/cdp_lr.py", "CDP-LR", _cdp_claim),
    TourStep(
        "cdp-breaks", "cdp", "Paper 000 · correlated records", "Where it breaks, and the audit",
        "A claim can hold and still say little: here the two sensitivities are close, and the paper's own "
        "training settings hardly train. The audit replaces a whole correlated group and checks that one "
        "training's epsilon holds.",
        "cdp/cdp_lr.py", "CDP-LR", _cdp_breaks),
    TourStep(
        "imposter-problem", "imposter", "Paper 002 · implicit privacy", "Public columns give a private one away",
        "Dropping the sensitive column is not enough: in the census table, relationship = Husband says "
        "sex = Male. IMPOSTER measures how much each attribute tells about the sensitive one "
        "(normalised mutual information, Fig. 6) and flags those an attacker can use.",
        "imposter/imposter.py", "IMPOSTER", _imposter_problem),
    TourStep(
        "imposter-claim", "imposter", "Paper 002 · implicit privacy", "The claim: a synthetic table that no longer tells",
        "IMPOSTER trains a generator (a VAE with a conditional GAN) with a second discriminator that "
        "punishes any link between the flagged attributes and the sensitive one. On its synthetic "
        "table an attacker should do no better than guessing, while the label stays predictable "
        "(Table 1: setting A real, B synthetic).",
        "imposter/imposter.py", "IMPOSTER", _imposter_claim),
    TourStep(
        "imposter-breaks", "imposter", "Paper 002 · implicit privacy", "Where it breaks: no epsilon",
        "Hiding a relation is not differential privacy. IMPOSTER makes no promise about any one person, "
        "so there is no epsilon to audit; its baseline, randomized response, has one, and the audit "
        "checks it.",
        "imposter/imposter.py", "IMPOSTER", _imposter_breaks),
    TourStep(
        "sskm-claim", "sskm", "Paper 003 · clustering with noise", "The claim: publish cluster centres with a little noise",
        "SSKM_DP clusters the records with a self-organising map (its starting weights found by a "
        "shuffled-frog-leaping search) and publishes each record as its cluster's centre, with Laplace "
        "noise on the attributes linked to the sensitive one (Fig. 5: information loss falls as epsilon "
        "grows). This is our sound variant, which noises every attribute of every centre. The dashed line is "
        "a random release: a release at or above it keeps no information about the records.",
        "sskm/sskm.py", "SSKM_DP", _sskm_claim),
    TourStep(
        "sskm-breaks", "sskm", "Paper 003 · clustering with noise", "Where it breaks: the paper's release is not private",
        "The paper's algorithm, run as printed, claims epsilon but reads the raw records outside the "
        "noise. The audit reruns it on two tables that differ in one record and measures how well the "
        "outputs tell them apart.",
        "sskm/sskm.py", "SSKM_DP", _sskm_breaks),
    TourStep(
        "compare", "compare", "Every method on one frontier", "One table, every method, the same attacks",
        "Each method releases the same census table; every release is judged by the same utility "
        "(accuracy of a model trained on it, tested on real records held out) and the same attack (how "
        "much better than guessing an attacker predicts the sensitive attribute). Up is useful, left is "
        "private; the dashed line is the best trade-off found.",
        "compare/compare.py", "Compare", _compare),
)


def step_index(key: str) -> int:
    """The position of the step called ``key``; ValueError when there is none."""
    for i, step in enumerate(STEPS):
        if step.key == key:
            return i
    raise ValueError(f"there is no tour step called {key!r}; choose one of {[s.key for s in STEPS]}.")
