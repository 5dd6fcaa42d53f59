"""The Tour's measurements: one short story per paper and one for the comparison.

Each story runs on a built-in sample (:mod:`core.data.samples`: no data directory, no
network) in a few seconds on 2 cores, and returns everything its steps show: the numbers
its chart draws, the paper's claim checked on those numbers (:class:`core.claims.claim.Claim`),
the guarantee its ledger gives, and a privacy audit's verdict (:mod:`core.audit.auditor`). The
dashboard's Tour page (``dashboard/tour/tour.py``) and its offline HTML export draw them;
no streamlit here.

Every story takes ``random_state`` (the Tour uses the seed 0: its numbers are display
measurements of seeded runs, not releases) and an optional ``progress(fraction, message)``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pandas as pd

from core.audit.result import AuditResult
from core.claims.claim import Claim
from core.runtime.progress import Progress, Stop, stage, watch
from core.runtime.randomness import RandomState, check_random_state, draw_seed

__all__ = ["CDPStory", "ImposterStory", "SSKMStory", "CompareStory", "cdp_story", "imposter_story",
           "sskm_story", "compare_story", "STORIES"]


def _progress(progress: Progress | None) -> Progress:
    return progress if progress is not None else (lambda fraction, message: None)


# ----------------------------------------------------------------------------- paper 000
@dataclass(frozen=True)
class CDPStory:
    """Paper 000 on the supplier sample.

    Attributes
    ----------
    n_train : int
        Training records (80 % of the sample).
    sensitivity : dict
        Records one replaced record can move, per scheme: "Group" (GS), "Proposed" (CS),
        "Zhang" (CS on Zhang's features); ordinary DP would assume 1.
    curve : DataFrame
        Fig. 4: scheme, epsilon, accuracy_mean, accuracy_std, accuracy_n.
    claim : Claim
        Fig. 4's claim on ``curve``.
    paper_preset : dict
        Test accuracy at epsilon 5 of the paper's own training settings (Table 2:
        learning rate 1e-6, 100 epochs) and of the project's, Proposed scheme, mean of the runs.
    audit : AuditResult
        The neighbouring-dataset audit of one Proposed training at ``audit_epsilon``.
    audit_epsilon : float
    guarantee : str
        The Proposed training's ledger sentence at ``audit_epsilon``.
    references : tuple of core.cdp.sweeps.Reference
        What every accuracy is read against: the majority class of the test part (the
        constant guess) and the Non-private scheme's mean accuracy (the non-private model),
        each with its Wilson interval on the test rows.
    reference_notes : tuple of str
        One sentence per scheme no better than the constant guess ("... is below the
        constant guess ..."); empty when every scheme beats it.
    """

    n_train: int
    sensitivity: dict[str, float]
    curve: pd.DataFrame
    claim: Claim
    paper_preset: dict[str, float]
    audit: AuditResult
    audit_epsilon: float
    guarantee: str
    references: tuple = ()
    reference_notes: tuple[str, ...] = ()


def cdp_story(*, epsilons: tuple[float, ...] = (0.5, 1.0, 2.0, 5.0, 10.0), repetitions: int = 10,
              audit_runs: int = 500, audit_epsilon: float = 1.0, random_state: RandomState = 0,
              progress: Progress | None = None, stop: Stop | None = None) -> CDPStory:
    """Correlated records, CS against GS, Fig. 4 and the audit, on the supplier sample.

    Parameters
    ----------
    epsilons : tuple of float
        The budgets of the Fig. 4 curve (each one training's whole epsilon).
    repetitions : int
        Trainings per point (noise is random).
    audit_runs : int
        Audit runs per side of the neighbouring pair (the correlated group replaced).
    audit_epsilon : float
        The budget audited.
    random_state : int, Generator or None
    progress : callable(fraction, message), optional
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    """
    progress = watch(progress, stop)
    import numpy as np

    from core.audit_cases import cdp_lr_case, run_case
    from core.cdp.baselines import fit_scheme, prepare_schemes, scheme_curve
    from core.cdp.claims import fig4_claim
    from core.cdp.schedule import PRESETS
    from core.cdp.sweeps import accuracy_references, reference_sentences
    from core.data import load_sample

    progress = _progress(progress)
    rng = check_random_state(random_state)
    progress(0.0, "Correlated records: selecting features and measuring sensitivities")
    setup = prepare_schemes(load_sample("supplier"), threshold=0.8, measure="pearson", tc=40.0,
                            random_state=draw_seed(rng))
    progress(0.3, "Fig. 4: training the four schemes")
    curve, runs = scheme_curve(setup, epsilons=epsilons, repetitions=repetitions, noise_method=1,
                               random_state=draw_seed(rng), progress=stage(progress, 0.3, 0.6))
    # the constant guess and the non-private model: every accuracy is read against them
    references = accuracy_references({"Non-private": setup.matrices("Non-private")}, runs)
    notes = tuple(reference_sentences(runs[runs["scheme"] != "Non-private"], references[0]))
    mats = setup.matrices("Proposed")
    seeds = [draw_seed(rng) for _ in range(repetitions)]
    paper_preset = {
        preset: float(np.mean([fit_scheme(setup, "Proposed", epsilon=5.0, noise_method=1, preset=preset,
                                          random_state=s, matrices=mats)[1] for s in seeds]))
        for preset in ("paper", "sensible")
    }
    progress(0.7, "Auditing one Proposed training")
    sens = float(setup.sensitivity["Proposed"])
    model, _ = fit_scheme(setup, "Proposed", epsilon=audit_epsilon, noise_method=1, preset="sensible",
                          random_state=draw_seed(rng), matrices=mats)
    case = cdp_lr_case(mats[0], mats[2], sensitivity=sens, epsilon=audit_epsilon, noise_method=1,
                       **PRESETS["sensible"])
    audit = run_case(case, runs=audit_runs, random_state=draw_seed(rng), progress=stage(progress, 0.7, 1.0))
    return CDPStory(
        n_train=int(len(setup.train)),
        sensitivity={k: float(v) for k, v in setup.sensitivity.items() if k != "Non-private"},
        curve=curve, claim=fig4_claim(curve, reference=references[0]), paper_preset=paper_preset, audit=audit,
        audit_epsilon=float(audit_epsilon), guarantee=model.ledger_.describe(), references=tuple(references),
        reference_notes=notes,
    )


# ----------------------------------------------------------------------------- paper 002
@dataclass(frozen=True)
class ImposterStory:
    """Paper 002 on the census sample.

    Attributes
    ----------
    scores : DataFrame
        Detection's NMI of each attribute with ``sensitive`` (Fig. 6).
    implicit : tuple of str
        The detected implicit attributes.
    theta : float
    tau, majority_share : float
        The attacker's accuracy predicting ``sensitive`` from the implicit attributes (real
        data, 3-fold), and the share of the most common value (the no-leak floor).
    table : DataFrame
        Table 1 with one classifier: settings A (real), B (synthetic) and TSTR.
    claim : Claim
        Table 1's claim on ``table``.
    guarantee : str
        IMPOSTER's ledger sentence (not differentially private).
    krr_audit : AuditResult
        The audit of the kRR baseline on one implicit attribute at ``krr_epsilon``.
    krr_epsilon : float
    epochs : int
        Training epochs (the page's default on small tables is 100; the Tour uses fewer).
    """

    sensitive: str
    label: str
    scores: pd.DataFrame
    implicit: tuple[str, ...]
    theta: float
    tau: float
    majority_share: float
    table: pd.DataFrame
    claim: Claim
    guarantee: str
    krr_audit: AuditResult
    krr_column: str
    krr_epsilon: float
    epochs: int
    classifier: str


def imposter_story(*, epochs: int = 30, classifier: str = "lr", audit_runs: int = 2000,
                   krr_epsilon: float = 1.0, random_state: RandomState = 0,
                   progress: Progress | None = None, stop: Stop | None = None) -> ImposterStory:
    """Detection (Fig. 6), one IMPOSTER training and Table 1, the kRR audit, on the census sample.

    Parameters
    ----------
    epochs : int
        IMPOSTER's training epochs (fewer than the page's default, to stay within seconds).
    classifier : str
        The attacker's and the label's classifier (one of Table 1's).
    audit_runs : int
        Audit runs per side for kRR.
    krr_epsilon : float
        The kRR budget audited (per perturbed value).
    random_state : int, Generator or None
    progress : callable(fraction, message), optional
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    """
    progress = watch(progress, stop)
    from core.audit_cases import krr_case, run_case
    from core.data import load_sample
    from core.imposter.claims import table1_claim
    from core.imposter.detection import detect_implicit
    from core.imposter.evaluation import evaluate_settings
    from core.imposter.synthesizer import ImposterSynthesizer

    progress = _progress(progress)
    rng = check_random_state(random_state)
    data = load_sample("census")
    sensitive, label, theta = "sex", "income", 0.01
    progress(0.0, "Detecting the attributes that give sex away")
    det = detect_implicit(data.frame.drop(columns=[label]), sensitive, theta=theta, beta=0.7, classifier="lr",
                          random_state=draw_seed(rng))
    progress(0.1, f"Training IMPOSTER ({epochs} epochs)")
    seed = draw_seed(rng)

    def told(fraction: float, message: str) -> None:
        event = model.events_[-1]
        if event["iteration"] % max(1, event["iterations"] // 50) == 0:  # about 50 reports, not one per batch
            progress(0.1 + 0.7 * fraction, "Training IMPOSTER")

    model = ImposterSynthesizer(epochs=epochs, batch_size=250, random_state=seed)
    model.fit(data, sensitive, det.implicit, progress=told)
    synthetic = model.sample(data.n_rows)
    progress(0.8, "Settings A and B")
    table = evaluate_settings(data.frame, synthetic, sensitive=sensitive, label=label, implicit=det.implicit,
                              classifiers=[classifier], random_state=seed)
    column = det.implicit[0]
    progress(0.9, f"Auditing kRR on {column}")
    audit = run_case(krr_case(sorted(data.frame[column].unique()), epsilon=krr_epsilon), runs=audit_runs,
                     random_state=draw_seed(rng))
    return ImposterStory(
        sensitive=sensitive, label=label, scores=det.scores, implicit=tuple(det.implicit), theta=theta,
        tau=float(det.tau), majority_share=float(det.majority_share), table=table, claim=table1_claim(table),
        guarantee=model.ledger_.describe(), krr_audit=audit, krr_column=str(column),
        krr_epsilon=float(krr_epsilon), epochs=int(epochs), classifier=classifier,
    )


# ----------------------------------------------------------------------------- paper 003
@dataclass(frozen=True)
class SSKMStory:
    """Paper 003 on the census sample.

    Attributes
    ----------
    columns : tuple of str
        The m = 5 attributes published (paper 003's first five on Adult).
    table : DataFrame
        Fig. 5-6 in the sound mode: one row per SOM grid and epsilon
        (:func:`core.sskm.sweeps.grid_summary`: a_mean, mse_mean, rl_mean, ..., and the
        random release's ``random_mse`` and ``random_rl``: what rows drawn at random within
        the public schema's bounds lose and link, :mod:`core.sskm.references`).
    claim : Claim
        Fig. 5's claim on ``table`` (cannot be judged when every release loses as much as
        the random release).
    audits : dict
        Mode ("sound", "paper") -> the audit at ``audit_epsilon``: the sound mode's DP vector
        (one published record moved), and the paper's whole algorithm (map, MIC and noise)
        rerun on a small sample.
    guarantees : dict
        Mode -> the ledger's sentence at ``audit_epsilon``.
    """

    columns: tuple[str, ...]
    sensitive: str
    table: pd.DataFrame
    claim: Claim
    audits: dict[str, AuditResult]
    audit_epsilon: float
    guarantees: dict[str, str]


SSKM_COLUMNS = ("age", "education_num", "relationship", "hours_per_week", "sex")


def sskm_story(*, epsilons: tuple[float, ...] = (0.05, 0.1, 1.0, 5.0),
               grids: tuple[tuple[int, int], ...] = ((4, 4), (6, 6), (8, 8)), repetitions: int = 1,
               audit_epsilon: float = 1.0, sound_runs: int = 1000, paper_runs: int = 200,
               random_state: RandomState = 0, progress: Progress | None = None,
               stop: Stop | None = None) -> SSKMStory:
    """SSKM_DP on the census sample's paper-003 attributes (m = 5): Fig. 5 across the
    number of clusters a in the sound mode, and each mode's audit.

    Parameters
    ----------
    epsilons : tuple of float
        The budgets (each the whole release's; the paper's grid).
    grids : tuple of (rows, cols)
        SOM grids: the number of clusters a is each map's non-empty neurons.
    repetitions : int
        Maps fitted per grid.
    audit_epsilon : float
    sound_runs, paper_runs : int
        Audit runs per side (the paper's mode refits the whole map in each run: fewer).
    random_state : int, Generator or None
    progress : callable(fraction, message), optional
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    """
    progress = watch(progress, stop)
    from core.audit_cases import run_case, sskm_paper_case, sskm_sound_case
    from core.data import load_sample
    from core.sskm.claims import fig5_claim
    from core.sskm.sweeps import clusters_sweep, grid_summary
    from core.sskm.variants import SSKM_VARIANTS

    progress = _progress(progress)
    rng = check_random_state(random_state)
    from core.privacy.schema_builtin import schema_for

    census = load_sample("census")
    schema = schema_for(census)  # the sound mode's public bounds and categories
    frame = census.frame[list(SSKM_COLUMNS)]
    sensitive = "sex"
    runs = clusters_sweep(frame, sensitive=sensitive, m_values=(len(SSKM_COLUMNS),), grids=grids,
                          epsilons=epsilons, repetitions=repetitions, mode="sound", iterations=10_000,
                          random_state=draw_seed(rng), progress=stage(progress, 0.0, 0.4, "Fig. 5: maps and releases"),
                          schema=schema)
    table = grid_summary(runs)
    audits, guarantees = {}, {}
    for i, mode in enumerate(("sound", "paper")):
        progress(0.4 + 0.3 * i, f"Auditing the {mode} mode")
        pub = SSKM_VARIANTS[mode](epsilon=audit_epsilon, sensitive=(sensitive,), cs_threshold=0.3, rows=6, cols=6,
                                  schema=schema if mode == "sound" else None,
                                  iterations=10_000, random_state=draw_seed(rng)).fit(frame)
        pub.publish(epsilon=audit_epsilon)
        guarantees[mode] = pub.ledger_.describe()
        case = (sskm_sound_case(pub, frame, epsilon=audit_epsilon) if mode == "sound" else
                sskm_paper_case(frame, sensitive=(sensitive,), epsilon=audit_epsilon, cs_threshold=0.3,
                                random_state=draw_seed(rng)))
        audits[mode] = run_case(case, runs=sound_runs if mode == "sound" else paper_runs,
                                random_state=draw_seed(rng), progress=stage(progress, 0.4 + 0.3 * i, 0.7 + 0.3 * i))
    return SSKMStory(columns=SSKM_COLUMNS, sensitive=sensitive, table=table,
                     claim=fig5_claim(table, mode="sound"), audits=audits, audit_epsilon=float(audit_epsilon),
                     guarantees=guarantees)


# ----------------------------------------------------------------------------- comparison
#: the comparison story's methods: every paper's method and the baselines that take seconds
COMPARE_METHODS = ("Raw table", "IMPOSTER", "kRR", "SSKM_DP (sound)", "MDAV", "CDP-LR",
                   "Logistic regression (non-private)")


@dataclass(frozen=True)
class CompareStory:
    """Every method on the census sample: one frontier, one takeaway."""

    summary: pd.DataFrame
    front: pd.DataFrame
    takeaway: str
    dp: dict[str, bool]
    epsilons: tuple[float, ...]
    label: str
    sensitive: str
    extra: dict[str, Any] = field(default_factory=dict)
    #: :attr:`core.compare.result.ComparisonResult.references`: the constant guess and the non-private
    #: model for the utility, the raw table and its control for the risk
    references: dict[str, Any] = field(default_factory=dict)
    #: The frontier's utility measure (ROC AUC for a two-class label, else accuracy).
    utility: str = "utility"
    #: The DP releases against the constant guess in one sentence
    #: (:meth:`core.compare.result.ComparisonResult.dp_headline`).
    dp_headline: str = ""


def compare_story(*, epsilons: tuple[float, ...] = (0.5, 2.0), imposter_epochs: int = 15, max_rows: int = 2000,
                  random_state: RandomState = 0, progress: Progress | None = None,
                  stop: Stop | None = None) -> CompareStory:
    """:func:`core.compare.run.compare` on the census sample with :data:`COMPARE_METHODS`, one
    repetition, a short epsilon grid, a short IMPOSTER training and a row sample, without the
    privacy audits (two thirds of its time; the Tour audits CDP-LR and SSKM_DP in their own
    steps, and the Compare page audits every DP point): its frontier shows within seconds.

    Parameters
    ----------
    epsilons : tuple of float
    imposter_epochs : int
    max_rows : int
        Rows sampled (seeded) from the census sample's 3,000.
    random_state : int, Generator or None
    progress : callable(fraction, message), optional
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.
    """
    progress = watch(progress, stop)
    from core.compare.run import compare
    from core.compare.registry import METHODS
    from core.data import load_sample

    data = load_sample("census")
    result = compare(data, methods=COMPARE_METHODS, epsilons=epsilons, repetitions=1, max_rows=max_rows,
                     imposter_epochs=imposter_epochs, random_state=random_state, progress=progress,
                     stop=stop, audit_runs=0)
    summary = result.summary()
    utility = result.default_utility()
    return CompareStory(summary=summary, front=result.pareto_front(utility=utility),
                        takeaway=result.takeaway(utility=utility), utility=utility,
                        dp_headline=result.dp_headline(utility),
                        dp={m: bool(METHODS[m].dp) for m in COMPARE_METHODS}, epsilons=tuple(epsilons),
                        label=str(data.label), sensitive=str(data.sensitive[0]),
                        extra={"rows": min(int(max_rows), data.n_rows)},
                        references=dict(getattr(result, "references", {}) or {}))


#: story key -> (function, what it is about)
STORIES = {
    "cdp": (cdp_story, "Paper 000 · correlated records"),
    "imposter": (imposter_story, "Paper 002 · implicit privacy"),
    "sskm": (sskm_story, "Paper 003 · clustering with noise"),
    "compare": (compare_story, "Every method on one frontier"),
}
