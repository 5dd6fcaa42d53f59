"""The methods a comparison can run: one :class:`Method` record each, in :data:`METHODS`.

A record names the method, what it releases (a table or a model), whether it takes an
epsilon, whether its release is differentially private, a one-line description, and the
functions of :mod:`core.compare.methods` (:mod:`core.compare.marginal_methods` for MST and AIM)
that check, fit and release it. The registry's
order is the order a comparison runs them in; :data:`DEFAULT_METHODS` is what a first
comparison runs.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Mapping

from core.compare.context import RunContext
from core.compare.marginal_methods import MARGINAL_BINS, marginal_fit, marginal_table, needs_columns
from core.compare.methods import (
    CDP_LR_NOISE_METHOD,
    CDP_LR_PRESET,
    MAX_CLUSTERS,
    MICRO_K,
    Release,
    cdp_lr_model,
    generator_fit,
    generator_sample,
    idp_fit,
    idp_kmeans_table,
    krr_table,
    logistic_model,
    mdav_dp_table,
    mdav_groups,
    mdav_table,
    needs_binary_label,
    needs_binary_model_label,
    needs_implicit,
    needs_numeric,
    needs_sensitive,
    raw_table,
    sskm_fit,
    sskm_table,
)

__all__ = ["Method", "METHODS", "DEFAULT_METHODS"]


@dataclass(frozen=True)
class Method:
    """One method of the comparison.

    Attributes
    ----------
    name : str
    kind : {"table", "model"}
        What it releases: rows (measured by utility, fidelity, attribute inference and
        DCR) or a trained model (accuracy and membership inference).
    takes_epsilon : bool
        One release per epsilon of the grid (True) or one per repetition (False).
    dp : bool
        Whether its release is differentially private under the project's relation (its
        ledger says the same: a test checks it).
    description : str
        One line: what is released and how.
    release : callable(context, fitted, epsilon, seed) -> Release
        One release from the training part (``epsilon`` None when it takes none).
    fit : callable(context, seed, progress) -> object, optional
        The work that does not depend on epsilon, done once per repetition.
    requires : callable(context) -> str or None, optional
        Why the method cannot run on this dataset, or None.
    seed_key : str, optional
        Methods with one key share their seeds (default the name).
    seeded : bool
        Whether its noise follows the comparison's seed (False for MST and AIM, whose noise
        OpenDP draws from the operating system: the same config gives other releases).
    """

    name: str
    kind: str
    takes_epsilon: bool
    dp: bool
    description: str
    release: Callable[..., Release]
    fit: Callable[..., Any] | None = None
    requires: Callable[[RunContext], str | None] | None = None
    seed_key: str | None = None
    seeded: bool = True


def _tables() -> list[Method]:
    """The methods that release rows."""
    return [
        Method("Raw table", "table", False, False,
               "The training records as they are: the no-protection reference.", raw_table),
        Method("IMPOSTER", "table", False, False,
               "IMPOSTER synthetic table (lambda 1): a VAE-GAN whose second discriminator removes what "
               "the implicit attributes say about the first sensitive one; not DP.",
               generator_sample, fit=generator_fit(1.0), requires=needs_sensitive, seed_key="generator"),
        Method("VAE-GAN (lambda 0)", "table", False, False,
               "The same generator without the second discriminator (lambda 0): the ordinary-generator "
               "reference; not DP.",
               generator_sample, fit=generator_fit(0.0), requires=needs_sensitive, seed_key="generator"),
        Method("kRR", "table", True, False,
               "k-ary randomized response on the implicit attributes of the first sensitive attribute "
               "(epsilon per value, local DP, over each column's public domain from the schema); the "
               "columns are chosen on the records and the other columns are exact, so the table is not DP.",
               krr_table, requires=needs_implicit),
        Method("SSKM_DP (sound)", "table", True, True,
               "SSKM_DP sound mode: scaling from the public schema, a map split by the label and fitted "
               "through noisy per-neuron counts and sums (part of epsilon), noisy counts of every column's "
               "cells in every neuron, rows drawn from them; epsilon-DP.",
               sskm_table, fit=sskm_fit("sound"), requires=needs_sensitive),
        Method("SSKM_DP (paper)", "table", True, False,
               "SSKM_DP as published: each record replaced by its cluster centre, Laplace noise on the "
               "protected attributes; not DP (the epsilon is nominal).",
               sskm_table, fit=sskm_fit("paper"), requires=needs_sensitive),
        Method("MDAV", "table", False, False,
               f"MDAV microaggregation (k = {MICRO_K}) of the numeric columns; categorical columns and "
               "the label are kept as they are (sdcMicro's non-key variables); k-anonymity, not DP.",
               mdav_table, fit=mdav_groups, requires=needs_numeric),
        Method("MDAV_DP", "table", True, False,
               f"MDAV groups (k = {MICRO_K}) of the numeric columns with Laplace noise on each centroid; "
               "categorical columns and the label kept as they are; not DP (the partition reads the "
               "raw records).",
               mdav_dp_table, fit=mdav_groups, requires=needs_numeric),
        Method("IDP-KMeans", "table", True, True,
               f"DP k-means on every column (bounds and category lists from the public schema, "
               f"categoricals as codes; at most {MAX_CLUSTERS} clusters, split by the label), released as "
               "rows drawn from each cluster's noisy cell counts; epsilon-DP.",
               idp_kmeans_table, fit=idp_fit),
    ]


def _synthesizers() -> list[Method]:
    """The practitioner's DP synthesizers, through OpenDP (opt-in: each release takes a while)."""
    return [
        Method("MST", "table", True, True,
               "MST through OpenDP (opendp[mbi]), the practitioner's DP synthesizer, configured from the public "
               "schema alone: the noisy 2-way marginal of the label with every other column (a spanning tree fixed "
               "by the schema, the label's star; OpenDP's Fixed workload, epsilon split equally) over the schema's "
               f"cells (categories and OTHER, numbers in the schema's public cuts or {MARGINAL_BINS} bins of their "
               "declared range), no one-way marginals, a graphical model fitted to them, rows sampled from it; "
               "epsilon-DP. OpenDP's noise cannot be seeded. Each release (every epsilon and repetition) takes "
               "about 30-60 s on 10,000 Adult rows (two cores; less for a later release in the same run) and up "
               "to 2 GB of memory.",
               marginal_table, fit=marginal_fit("MST"), requires=needs_columns, seeded=False),
        Method("AIM", "table", True, True,
               "AIM through OpenDP (opendp[mbi]) over the same workload (the label's 2-way marginals and the "
               "one-way marginals they imply): rounds that each choose the worst-fitted marginal with a noisy score "
               "and measure it, at most one round per column; epsilon-DP, its noise not seeded. Slower: each "
               "release (every epsilon and repetition) takes a few minutes and up to 4 GB of memory on 10,000 "
               "Adult rows.",
               marginal_table, fit=marginal_fit("AIM"), requires=needs_columns, seeded=False),
    ]


def _models() -> list[Method]:
    """The methods that release a trained model."""
    return [
        Method("CDP-LR", "model", True, True,
               f"CDP-LR as the CDP-LR page trains its DP reading (noise method {CDP_LR_NOISE_METHOD}, preset "
               f"'{CDP_LR_PRESET}'): one-hot features and scaling from the public schema, sensitivity from the "
               "schema's public correlated-group bound (1 when none: ordinary DP for one record, the relation "
               "every other method is held to).",
               cdp_lr_model, requires=needs_binary_label),
        Method("Logistic regression (non-private)", "model", False, False,
               "Ordinary logistic regression on the same features: the model reference, not DP.",
               logistic_model, requires=needs_binary_model_label),
    ]


#: Every method, in the order the comparison runs them.
METHODS: Mapping[str, Method] = {m.name: m for m in (*_tables(), *_synthesizers(), *_models())}
#: The methods a first comparison runs: every release of a table and both models, without the
#: two teaching variants (the plain VAE-GAN and SSKM_DP's paper mode) and AIM, whose releases
#: take minutes each (a user adds it). MST is the default DP synthesizer: issue 37's
#: benchmark (benchmarks/bench_dp_synth.py) found it the most useful DP table release of Adult.
DEFAULT_METHODS: tuple[str, ...] = tuple(m for m in METHODS if m not in ("VAE-GAN (lambda 0)", "SSKM_DP (paper)",
                                                                         "AIM"))
