"""Cached calls into core for the paper-000 pages (Correlations, DC-FBFS, CDP-LR, Publishing).

Keyed on the dataset's content fingerprint and the parameters; bounded by max_entries and
ttl. The setup steps (DC-FBFS, sensitivities over all records, the schemes and the
publishing setups) are :class:`~dashboard.shared.serving.sweeps.Sweep` descriptions (their work is
:mod:`dashboard.cdp.jobs`) that the page runs with :func:`dashboard.shared.widgets.job_view.setup_view`: a session's job with progress and
time left, whose finished result is shared read-only (a slider move does not copy it).
"""
from __future__ import annotations

from dataclasses import replace
from typing import Callable

import numpy as np
import pandas as pd
import streamlit as st

from core.audit_cases import AuditCase, cdp_lr_case, count_query_case, dpsgd_case
from core.bundle.pages import correlations as correlations_page, dc_fbfs as dc_fbfs_page
from core.cdp import claims as _claims
from core.audit_cases.cdp_pairs import hub_case, new_value_case
from core.cdp.baselines import ALL_SCHEMES, DP_SCHEME, SchemeSetup
from core.cdp.dc_fbfs import DCFBFSResult
from core.cdp.noise_placement import PLD_METHOD
from core.cdp.paper import PAPER_TABLE1, PAPER_TABLE2
from core.cdp.publishing import CountRelease, PublishingSetup, mean_true_count, release_counts, zero_noise_mae
from core.cdp.queries import query_matches
from core.cdp.schedule import PRESETS
from core.cdp.sweeps import (Reference, accuracy_at, constant_guess, accuracy_references as _accuracy_references,
                             reference_sentences as _reference_sentences, scores_table as _scores_table)
from core.data import Dataset
from core.decide import pages as decide_pages
from core.evaluation.metrics import mean_interval
from core.privacy.schema import PublicSchema
from dashboard.cdp.jobs import (MEASURE_FREE, run_association, run_curves, run_dpsgd_curves, run_feature_count,
                                run_mae, run_method_curves, run_publishing, run_schemes, run_selection,
                                run_sensitivity, run_stage_sensitivities)
from dashboard.shared.serving.cache import HASH_FUNCS, TTL, BoundedCache
from dashboard.shared.widgets.charts import number
from dashboard.shared.serving.sweeps import Sweep, warmed

#: the claim checks of paper 000 (pure functions of core.cdp.claims; the pages draw them with
#: dashboard.shared.widgets.claims.claim_box)
fig1_claim, fig2_claim, fig3_claim, table1_claim = _claims.fig1_claim, _claims.fig2_claim, _claims.fig3_claim, _claims.table1_claim
fig4_claim, fig5_claim, fig6_claim, table2_claim = _claims.fig4_claim, _claims.fig5_claim, _claims.fig6_claim, _claims.table2_claim
fig7_claim, fig8_claim = _claims.fig7_claim, _claims.fig8_claim
#: the DP reading's scheme name (CDP-LR and Publishing)
DP_READING = DP_SCHEME

limit_rows = decide_pages.limit_rows  # the page's row sample (the one pux solve and the bundles draw)


def product_columns(dataset: Dataset) -> list[str]:
    """The supplier sample's 0/1 product-line features (``product_*``); empty for other tables."""
    return [c for c in dataset.features if c.startswith("product_")]


def schema_subset(schema: PublicSchema, dataset: Dataset) -> PublicSchema:
    """``schema`` restricted to ``dataset``'s columns (the Publishing page drops the product
    columns), with the dataset's roles; the group bound and every entry's source are kept."""
    cols = list(dataset.frame.columns)
    kept = tuple(c for c in schema.columns if c.name in cols)
    label = dataset.label if dataset.label in cols else None
    return replace(schema, columns=kept, label=label, sensitive=tuple(s for s in dataset.sensitive if s in cols))


def publishing_data(dataset: Dataset, use_products: bool, seed: int, max_rows: int = 5000) -> Dataset:
    """The table the Publishing page queries: without the product columns unless
    ``use_products``, at most ``max_rows`` rows drawn at random."""
    data = dataset
    if not use_products:
        products = set(product_columns(dataset))
        data = dataset.subset([c for c in dataset.frame.columns if c not in products])
    return limit_rows(data, max_rows, seed)


def association(dataset: Dataset, method: str, max_rows: int | None, seed: int) -> Sweep:
    """Attribute x attribute association (Pearson, NMI or MIC) of the features (a setup job)."""
    key = ("association", dataset.fingerprint(), method, max_rows, int(seed))
    return Sweep(key, run_association, dict(dataset=dataset, method=method, max_rows=max_rows, seed=int(seed)),
                 {"mic": "Computing MIC of every attribute pair", "nmi": "Computing NMI of every attribute pair"}
                 .get(method, "Computing attribute association"), in_process=True)


def sensitivity(dataset: Dataset, columns: tuple[str, ...] | None, measure: str, threshold: float) -> Sweep:
    """CS and GS of ``dataset`` on ``columns`` (all features when None), as a setup job."""
    key = ("sensitivity", dataset.fingerprint(), columns, measure, float(threshold))
    return Sweep(key, run_sensitivity, dict(dataset=dataset, columns=columns, measure=measure, threshold=float(threshold)),
                 "Computing CS and GS over all records", in_process=True)


@st.cache_data(max_entries=16, ttl=TTL, hash_funcs=HASH_FUNCS, show_spinner=False)
def record_heatmap(dataset: Dataset, n: int, measure: str, threshold: float, seed: int) -> np.ndarray:
    """Dense thresholded record-correlation matrix of ``n`` random records, sorted for display
    (:func:`core.bundle.pages.correlations.record_heatmap`: what the page's bundle reruns)."""
    return correlations_page.record_heatmap(dataset, records=n, measure=measure, threshold=threshold, seed=seed)[0]


def selection(dataset: Dataset, threshold: float, measure: str, seed: int) -> Sweep:
    """DC-FBFS on the whole dataset (T_c applied later with ``with_tc``), as a setup job."""
    key = ("selection", dataset.fingerprint(), float(threshold), measure, int(seed))
    return Sweep(key, run_selection, dict(dataset=dataset, threshold=float(threshold), measure=measure, seed=int(seed)),
                 "Running DC-FBFS (forest importance, C(x) without each feature, traversals)", in_process=True)


def feature_count(dataset: Dataset, order: tuple[str, ...], threshold: float, measure: str) -> Sweep:
    """Fig. 1 of paper 000: C(x) of the first k features in ``order`` (the DC-FBFS
    selection's importance order), k = 1 .. p, as a setup job."""
    key = ("feature_count", dataset.fingerprint(), tuple(order), float(threshold), measure)
    return Sweep(key, run_feature_count, dict(dataset=dataset, order=tuple(order), measure=measure,
                                           threshold=float(threshold)),
                 "Computing C(x) of the first k features", in_process=True)


def _paper_count(key: str) -> str:
    first, second = PAPER_TABLE1[key]
    return str(first) if first == second else f"{first} (a second run: {second})"


def deleted_sets(res: DCFBFSResult) -> pd.DataFrame:
    """Table 1 of paper 000: each deleted set of a DC-FBFS result, its size and members,
    and the paper's count on its six supplier attributes."""
    return pd.DataFrame([
        {"set": "F_fb_del (traversals)", "n": len(res.F_fb_del), "features": ", ".join(res.F_fb_del) or "none",
         "paper (their supplier data)": _paper_count("F_fb_del")},
        {"set": "F_c_del (DC < T_c)", "n": len(res.F_c_del), "features": ", ".join(res.F_c_del) or "none",
         "paper (their supplier data)": _paper_count("F_c_del")},
        {"set": "F_del = intersection", "n": len(res.F_del), "features": ", ".join(res.F_del) or "none",
         "paper (their supplier data)": _paper_count("F_del")},
        {"set": "selected F'", "n": len(res.selected), "features": ", ".join(res.selected),
         "paper (their supplier data)": "5 of 6"},
    ])


def label_guess(dataset: Dataset) -> Reference:
    """The constant guess on the dataset's labels (what DC-FBFS's cross-validated traversal
    accuracies are read against), with its Wilson interval on the rows."""
    return constant_guess(dataset.frame[dataset.label].astype(str).to_numpy())


tc_range = dc_fbfs_page.tc_range  # the top of the T_c slider (what the page's bundle reruns)


def pairs(n: int) -> float:
    """N(N-1)/2: how many record pairs C(x) sums over."""
    return float(n) * (float(n) - 1.0) / 2.0


def tc_reading(tc: float, res: DCFBFSResult, n_rows: int) -> str:
    """T_c in the scales it is read against: a share of its range (0 to :func:`tc_range`),
    of the largest DC and of C(x), with N."""
    top, cx = tc_range(res), float(res.data_correlation)
    big = float(np.max(res.dc)) if len(res.dc) else 0.0
    return (f"T_c = {number(tc, decimals=1)} is {share_text(tc, top)} of its range (0 to {number(top)}, "
            f"1.1 x the largest DC {number(big)}) and {share_text(tc, cx) if cx else 'n/a'} of "
            f"C(x) = {number(cx, decimals=1)}, summed over the record pairs of N = {n_rows:,} records "
            f"(at most {number(pairs(n_rows))}). The paper uses T_c = 40 on its 1,160 records.")


def paper_table2() -> pd.DataFrame:
    """Table 2 as the paper prints it (its supplier data, 6 attributes): GS, CS and the
    accuracies of GDP-LR and CDP-LR after each selection stage."""
    return pd.DataFrame([{"features deleted": stage, "GS": v["GS"], "CS": v["CS"],
                          "GDP-LR accuracy (%)": round(100 * v["GDP-LR"], 2),
                          "CDP-LR accuracy (%)": round(100 * v["CDP-LR"], 2)} for stage, v in PAPER_TABLE2.items()])


stage_sets = dc_fbfs_page.stage_sets  # the feature sets of Table 2


def scheme_rows(setup: SchemeSetup, *, runs: pd.DataFrame | None = None, reference: Reference | None = None,
                n_rows: int | None = None) -> pd.DataFrame:
    """Beside CDP-LR's bars: each scheme, its number of features, the sensitivity its noise
    is calibrated to (GS for Group, CS otherwise, none for Non-private; the declared group
    bound for the DP reading), with CS / GS also as a share of the N training records they
    were computed on, and whether it is differentially private.

    With ``runs`` (the bars' runs) also each scheme's mean test accuracy with its 95%
    interval over the runs, and with ``reference`` (the constant guess) where it stands
    against it."""
    private = {"Non-private": "no: no noise", DP_SCHEME: "yes (the ledger says what it covers)"}
    n_train = len(setup.train)

    def sens(s: str) -> str:
        if s == "Non-private":
            return "none"
        if s == DP_SCHEME:
            return setup.covers(s)
        v = setup.sensitivity[s]
        return (f"{number(v)} ({'GS' if s == 'Group' else 'CS'}, read from the records; "
                f"{_share(v, n_train)} of N = {n_train:,} training records)")

    rows = []
    for s in ALL_SCHEMES:
        if s not in setup.columns:
            continue
        row = {"scheme": s, "features": len(setup.columns[s]), "sensitivity": sens(s)}
        if runs is not None and s in set(runs["scheme"]):
            mean, lo, hi = mean_interval(runs.loc[runs["scheme"] == s, "accuracy"])
            row["test accuracy"] = f"{mean:.3f}" + (f" ({lo:.3f}-{hi:.3f})" if np.isfinite(lo) else "")
            if reference is not None:
                row["vs the constant guess"] = (
                    f"no better (at or below {reference.value:.3f})" if mean <= reference.value else
                    (f"within its interval (up to {reference.high:.3f})" if reference.covers(mean) else "above"))
        row["differentially private"] = private.get(s, "no: reads the records outside the budget")
        rows.append(row)
    return pd.DataFrame(rows)


def _share(value: float, n: int) -> str:
    """``value`` as a percentage of ``n`` ("0.9%"), or "an unbounded share" for inf."""
    v = float(value)
    if not np.isfinite(v):
        return "an unbounded share"
    return f"{100 * v / n:.2g}%" if n else "n/a"


def accuracy_references(mats: dict, runs: pd.DataFrame | None = None) -> tuple[Reference, ...]:
    """:func:`core.cdp.sweeps.accuracy_references`: the constant guess on the shared test
    part, and the non-private model's accuracy in ``runs``."""
    return _accuracy_references(mats, runs)


def fig4_caption(reading_is_dp: bool) -> str:
    """How to read Fig. 4, saying truly whether the DP reading is differentially private here
    (it is not while the public schema holds entries read from the data)."""
    text = ("Lines are mean accuracy, bands one standard deviation over repetitions; the flat dashed grey line is "
            "the constant guess (majority class), the flat dotted one the non-private model, each with its 95% "
            "interval; the vertical dotted line is the slider's epsilon. ")
    others = ("Group, Zhang and Proposed read your records outside the budget (their sensitivity, features and "
              "scaling), so their epsilon is nominal.")
    if reading_is_dp:
        return text + "Only the DP reading is differentially private at that epsilon; " + others[0].lower() + others[1:]
    return (text + "No scheme is differentially private here: the DP reading's public schema still holds entries "
            "read from your data (review them on the Data page), and " + others[0].lower() + others[1:])


def scores_table(runs: pd.DataFrame, mats: dict) -> pd.DataFrame:
    """:func:`core.cdp.sweeps.scores_table` on the test part every scheme shares."""
    return _scores_table(runs, mats["Non-private"][3])


def reference_sentences(runs: pd.DataFrame, reference: Reference, *, group: str = "scheme") -> list[str]:
    """:func:`core.cdp.sweeps.reference_sentences`: each scheme no better than the constant
    guess, in words."""
    return _reference_sentences(runs, reference, group=group)


def mae_references(setup: PublishingSetup, scheme: str = "Proposed") -> tuple[Reference, ...]:
    """What the Publishing page's MAE is read against: the queries' mean true count (an
    MAE that large is as big as the answers) and ``scheme``'s zero-noise release (its
    reduced-table answers without noise; the MAE left is feature selection's error)."""
    n = len(setup.true_original)
    nan = float("nan")
    return (Reference(MEAN_TRUE, mean_true_count(setup), nan, nan, n),
            Reference(f"{ZERO_NOISE} ({scheme})", zero_noise_mae(setup, scheme), nan, nan, n))


def share_text(value: float, whole: float) -> str:
    """``value`` as a percentage of ``whole`` ("12%"), in words when it is unbounded."""
    v, w = float(value), float(whole)
    if not np.isfinite(v):
        return "an unbounded share (inf: no finite error)"
    return f"{100 * v / w:.3g}%" if w else "n/a (of 0)"


def mae_at(summary: pd.DataFrame, scheme: str, epsilon: float, *, measure: str = "pearson") -> float:
    """The mean MAE of ``scheme`` at ``epsilon`` in a Fig. 6 summary (the scheme named
    "Proposed (pearson)" and so on when both measures were run); NaN when absent."""
    names = {scheme, f"{scheme} ({measure})"}
    rows = summary[summary["scheme"].isin(names) & np.isclose(summary["epsilon"].astype(float), float(epsilon))]
    return float(rows["mae_mean"].iloc[0]) if len(rows) else float("nan")


def over_true_count(summary: pd.DataFrame, epsilon: float, true_mean: float) -> list[str]:
    """The schemes of a Fig. 6 summary whose mean MAE at ``epsilon`` is at least the mean
    true count, each with its MAE ("Zhang (934)"): their answers are mostly noise."""
    rows = summary[np.isclose(summary["epsilon"].astype(float), float(epsilon))]
    return [f"{s} ({number(v)})" for s, v in zip(rows["scheme"], rows["mae_mean"]) if float(v) >= float(true_mean)]


#: the legend names of the Publishing page's references
MEAN_TRUE, ZERO_NOISE = "mean true count", "zero-noise release"


def stage_sensitivities(dataset: Dataset, sets: tuple[tuple[str, tuple[str, ...]], ...], threshold: float,
                        measure: str) -> Sweep:
    """GS and CS after deleting each named feature set (Table 2 of paper 000), as a setup job."""
    key = ("stages", dataset.fingerprint(), tuple(sets), float(threshold), measure)
    return Sweep(key, run_stage_sensitivities, dict(dataset=dataset, sets=tuple(sets), threshold=float(threshold),
                                                 measure=measure),
                 "Computing CS and GS of each feature set", in_process=True)


def schemes(dataset: Dataset, threshold: float, measure: str, tc: float, seed: int,
            schema: PublicSchema | None = None) -> Sweep:
    """Split, DC-FBFS and the sensitivity of each scheme, the DP reading from ``schema`` (the
    session's public schema, :func:`dashboard.shared.serving.schemas.current_schema`), plus each scheme's
    matrices (a setup job whose result is ``(SchemeSetup, {scheme: matrices})``)."""
    key = ("schemes", dataset.fingerprint(), float(threshold), measure, float(tc), int(seed),
           None if schema is None else schema.to_json())
    return Sweep(key, run_schemes, dict(dataset=dataset, threshold=float(threshold), measure=measure, tc=float(tc),
                                     seed=int(seed), schema=schema),
                 "Selecting features and computing sensitivities", in_process=True)


def budget_split(noise_method: int, epochs_text: str) -> str:
    """How a training's budget covers its epochs: split evenly (the paper's methods), or one
    sigma on every epoch composed by the PLD accountant (method 7)."""
    if int(noise_method) == PLD_METHOD:
        return f"the budget covers {epochs_text} together, composed by the PLD accountant (one sigma each)"
    return f"the budget is split evenly over {epochs_text}"


def live_accuracy(setup: SchemeSetup, mats: dict, *, epsilon: float, noise_method: int,
                  preset: str, repetitions: int, seed: int, key: tuple | None = None) -> tuple[pd.DataFrame, dict]:
    """Accuracy of the four schemes at one epsilon. Same seeds as :func:`curves` at that
    epsilon (:func:`core.cdp.sweeps.point_seeds`): on the curve's grid the bars equal the curve.

    With ``key`` (the :func:`schemes` step's key, which ``setup`` and ``mats`` are the result
    of) the runs and models are kept, shared read-only: sessions moving the slider over
    values already seen refit nothing (the same seeds give the same runs anyway)."""
    args = dict(epsilon=float(epsilon), noise_method=int(noise_method), preset=preset,
                repetitions=int(repetitions), seed=int(seed))
    full = None if key is None else (key, *args.values())
    found = None if full is None else _LIVE.get(full)
    if found is None:
        found = accuracy_at(setup, mats, **args)
        if full is not None:
            _LIVE.put(full, found)
    return found


#: the live trainings by their inputs (:func:`live_accuracy`), the last 256 slider values
_LIVE = BoundedCache(max_entries=256, ttl=TTL)


#: Fig. 4's figures without the slider's marker (plain dicts, shared read-only), by their inputs
_CURVE_FIGURES = BoundedCache(max_entries=32, ttl=TTL)


def curve_figure(key: tuple, build: Callable[[], dict]) -> dict:
    """``build()`` (a :func:`dashboard.cdp.charts.curve_dict`) kept under ``key`` (the sweeps'
    keys, naming the dataset, the references, the title): a slider move only adds its marker
    (:func:`dashboard.cdp.charts.with_marker`) to the kept dicts, which nobody changes."""
    figure = _CURVE_FIGURES.get(key)
    if figure is None:
        figure = build()
        _CURVE_FIGURES.put(key, figure)
    return figure


def references_key(references) -> tuple:
    """The references as a cache key, written out (a NaN would never equal itself in a tuple)."""
    return tuple(repr((r.name, float(r.value), float(r.low), float(r.high))) for r in references)


def curves(schemes: Sweep, ready: tuple[SchemeSetup, dict], *, epsilons: tuple[float, ...], noise_method: int,
           preset: str, repetitions: int, seed: int) -> Sweep:
    """Fig. 4: mean and spread of each scheme's accuracy over the epsilon grid (a sweep job
    whose result is ``(summary, runs)``, the runs one row per scheme, epsilon and repetition).

    ``schemes`` is the setup step (:func:`schemes`) and ``ready`` its result. Each point is
    :func:`live_accuracy`'s runs at that epsilon (same seeds), so the bars and the curve
    agree wherever the slider sits on the grid.
    """
    setup, mats = ready
    key = ("curve-runs", schemes.key, tuple(epsilons), int(noise_method), preset, int(repetitions), int(seed))
    return Sweep(key, run_curves, dict(setup=setup, mats=mats, epsilons=tuple(epsilons), noise_method=int(noise_method),
                                    preset=preset, repetitions=int(repetitions), seed=int(seed)),
                 "Sweeping epsilon")


def dpsgd_curves(schemes: Sweep, ready: tuple[SchemeSetup, dict], *, epsilons: tuple[float, ...],
                 repetitions: int, seed: int) -> Sweep:
    """DP-SGD (ordinary DP, beyond the paper) over the epsilon grid on the DP reading's
    matrices (a sweep job, beside :func:`curves`)."""
    setup, mats = ready
    key = ("dpsgd", schemes.key, tuple(epsilons), int(repetitions), int(seed))
    return Sweep(key, run_dpsgd_curves, dict(setup=setup, mats=mats, epsilons=tuple(epsilons),
                                          repetitions=int(repetitions), seed=int(seed)),
                 "Sweeping DP-SGD")


def method_curves(schemes: Sweep, ready: tuple[SchemeSetup, dict], *, epsilons: tuple[float, ...], preset: str,
                  repetitions: int, seed: int) -> Sweep:
    """Fig. 5: each noise method's accuracy over the epsilon grid (Proposed scheme; a sweep job)."""
    key = ("methods", schemes.key, tuple(epsilons), preset, int(repetitions), int(seed))
    return Sweep(key, run_method_curves, dict(setup=ready[0], epsilons=tuple(epsilons), preset=preset,
                                           repetitions=int(repetitions), seed=int(seed)),
                 "Sweeping the noise methods")


def publishing(dataset: Dataset, measure: str, threshold: float, tc: float, n_queries: int, seed: int,
               schema: PublicSchema | None = None) -> Sweep:
    """Queries (from ``schema``, the session's public schema), answers, selection and
    sensitivities of the publishing schemes and their DP reading (a setup job)."""
    key = ("publishing", dataset.fingerprint(), measure, float(threshold), float(tc), int(n_queries), int(seed),
           None if schema is None else schema.to_json())
    return Sweep(key, run_publishing, dict(dataset=dataset, measure=measure, threshold=float(threshold), tc=float(tc),
                                        n_queries=int(n_queries), seed=int(seed), schema=schema),
                 f"Selecting features and drawing queries ({measure})", in_process=True)


def sensitivity_rows(setups: dict[str, PublishingSetup], n_rows: int | None = None) -> pd.DataFrame:
    """Each scheme's sensitivity and attribute count, for the measures of ``setups``
    (measure -> setup); with two measures the schemes are named "Proposed (pearson)" and so
    on, and Group, which counts Pearson-correlated records whatever the measure, appears once.
    With ``n_rows`` (N, the records queried) the sensitivity is also given as a share of N."""
    both = len(setups) > 1
    rows = []
    for m, setup in setups.items():
        for scheme, value in setup.sensitivity.items():
            if both and scheme in MEASURE_FREE and m != "pearson":
                continue
            rows.append({"scheme": scheme if not both or scheme in MEASURE_FREE else f"{scheme} ({m})",
                         "sensitivity": setup.covers(scheme) if scheme == DP_SCHEME else (
                             number(value) + (f" ({_share(value, n_rows)} of N = {n_rows:,} records)"
                                              if n_rows else "")),
                         "attributes": len(setup.columns[scheme]),
                         "differentially private": "yes" if scheme == DP_SCHEME
                         else "no: reads the records outside the budget"})
    return pd.DataFrame(rows)


def mae(setups: dict[str, tuple[Sweep, PublishingSetup]], *, epsilons: tuple[float, ...], repetitions: int,
        budget: str = "per_query", seed: int) -> Sweep:
    """Fig. 6: Eq. 22 MAE of each scheme over the epsilon grid, for each record-correlation
    measure in ``setups`` (measure -> its setup step and result; a sweep job whose result is
    ``(summary, runs)``, the runs one row per scheme, epsilon and repetition; epsilon read
    as ``budget`` says).

    With two measures the schemes are named "Proposed (pearson)" and so on, and Group (which
    does not depend on the measure) appears once.
    """
    key = ("mae-runs", tuple(step.key for step, _ in setups.values()), tuple(epsilons), int(repetitions), budget,
           int(seed))
    return Sweep(key, run_mae, dict(setups=tuple((m, ready) for m, (_, ready) in setups.items()),
                                 epsilons=tuple(epsilons), repetitions=int(repetitions), budget=budget,
                                 seed=int(seed)), "Answering the queries")


#: the legend of Fig. 7's two curves
FIG7_NAMES = ("Proposed with the product columns", "Proposed without them")


def fig7_curves(with_products: pd.DataFrame, without_products: pd.DataFrame) -> pd.DataFrame:
    """Fig. 7: the Proposed scheme's MAE curve with and without the product columns, one
    summary (scheme named as in :data:`FIG7_NAMES`); with both measures run, the Pearson one."""
    parts = []
    for name, summary in zip(FIG7_NAMES, (with_products, without_products)):
        schemes = set(summary["scheme"])
        pick = "Proposed" if "Proposed" in schemes else "Proposed (pearson)"
        parts.append(summary[summary["scheme"] == pick].assign(scheme=name))
    return pd.concat(parts, ignore_index=True)


def lr_audit_case(mats: tuple, sensitivity: float, *, epsilon: float, noise_method: int,
                  preset: str, schema: PublicSchema | None = None) -> AuditCase | list[AuditCase]:
    """The CDP-LR audit scenarios of the DP reading: the noise step on its training matrix and
    settings (its sensitivity the declared group bound, kept by both datasets of the pair),
    and, with ``schema``, the pipeline pair where a hub record would move a sensitivity read
    from the records (:func:`core.audit_cases.cdp_pairs.hub_case`)."""
    Xtr, _, ytr, _ = mats
    noise = cdp_lr_case(Xtr, ytr, sensitivity=float(sensitivity), epsilon=float(epsilon),
                        noise_method=int(noise_method), **PRESETS[preset])
    if schema is None:
        return noise
    return [noise, hub_case(schema, epsilon=float(epsilon))]


def dpsgd_audit_case(mats: tuple, *, epsilon: float) -> AuditCase:
    """The DP-SGD audit scenario (ordinary DP, one record) on the DP reading's training
    matrix (from the public schema): one full-batch step, the tight case of its accounting."""
    Xtr, _, ytr, _ = mats
    return dpsgd_case(Xtr, ytr, epsilon=float(epsilon))


def count_audit_case(dataset: Dataset, setup: PublishingSetup, scheme: str, *,
                     epsilon_per_query: float) -> AuditCase | list[AuditCase]:
    """The count-query audit scenario on the first query of the setup (its true matches);
    for the DP reading also the pipeline pair where one record brings a value no other has
    (:func:`core.audit_cases.cdp_pairs.new_value_case`: query ranges from the schema cannot end there)."""
    matches = query_matches(dataset, setup.queries[0], setup.columns[scheme],
                            schema=setup.schema if setup.query_source == "schema" else None)
    noise = count_query_case(matches, sensitivity=setup.sensitivity[scheme], epsilon=epsilon_per_query)
    if scheme != DP_SCHEME:
        return noise
    return [noise, new_value_case(epsilon=float(epsilon_per_query))]


def count_release(setup: PublishingSetup, scheme: str, *, epsilon: float, budget: str,
                  seed: int) -> CountRelease:
    """One release of every query (for its ledger and the guarantee shown beside the curve)."""
    return release_counts(setup, scheme, epsilon=epsilon, budget=budget, random_state=seed)

# the setup steps and sweeps, first looked up in the warm start's cache on a built-in sample
(association, sensitivity, selection, feature_count, stage_sensitivities, schemes, curves, dpsgd_curves, method_curves,
 publishing, mae) = map(warmed, (association, sensitivity, selection, feature_count, stage_sensitivities, schemes,
                                 curves, dpsgd_curves, method_curves, publishing, mae))
