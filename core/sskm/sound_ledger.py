"""What a sound SSKM_DP release states: its map's grid (:func:`map_grid`) and its ledger in
words (:func:`sound_ledger`), read from the publisher's public sizes and its noise."""
from __future__ import annotations

import math
from typing import Any

import numpy as np

from core.privacy.ledger import PrivacyLedger
from core.sskm.histogram_release import CellLayout, cluster_count, stratum_clusters

__all__ = ["MIN_NEURONS", "NO_SCHEMA_REASON", "map_grid", "sound_ledger"]

#: the smallest map a cell release draws (2 x 2), when rows x cols allows: a map of two
#: neurons drawn through heavy noise often puts every record in one
MIN_NEURONS = 4
NO_SCHEMA_REASON = ("No public schema was given: the bounds and category lists are read from your data.")


def map_grid(n: int, layout: CellLayout, epsilon: float, *, rows: int, cols: int) -> tuple[int, int, np.ndarray, int]:
    """The noisy map of a cell release: (grid rows, grid cols, each neuron's stratum, the
    neighbourhood's start width).

    :func:`core.sskm.histogram_release.cluster_count` neurons (at most ``rows`` x ``cols``,
    at least :data:`MIN_NEURONS` when the map allows) from n, the layout and the release's
    ``epsilon`` (all public). With a label that splits
    the map, each declared category gets an r x c block of the grid (r x c about the count
    divided among them) and OTHER one row of c neurons, stacked.
    """
    total = max(cluster_count(n, layout, epsilon, max_clusters=rows * cols), min(MIN_NEURONS, rows * cols), 2)
    per = int(stratum_clusters(total, layout)[0])
    r = max(1, math.isqrt(per))
    c = max(1, per // r)
    if layout.label is None:
        return r, c, np.zeros(r * c, dtype=np.int64), max(r, c) / 2.0
    bands = [np.full(r * c, s, dtype=np.int64) for s in range(layout.strata - 1)]
    bands.append(np.full(c, layout.strata - 1, dtype=np.int64))  # OTHER: one row
    return r * (layout.strata - 1) + 1, c, np.concatenate(bands), max(r, c, 1) / 2.0


def sound_ledger(pub: Any, *, K: int, m: int, b: float) -> PrivacyLedger:
    """The ledger of a sound release of :class:`core.sskm.sound.SSKMDP` ``pub``: the noisy map's
    spends (or the public reference it stands on), the counts, then the cells or the sums."""
    ledger = PrivacyLedger()
    if pub.map_fit == "noisy":
        for e, noise, label in pub._map_spends:
            ledger.spend(e, label=label + " (data-independent start; the weights are post-processing)",
                         noise=noise)
    else:
        ledger.assume(f"The map was fitted on a reference table of {pub.reference_rows_} rows that you "
                      "provided and declared public; its records are not protected by this release.")
    (e_c, g_c), *rest = pub._release_spends
    ledger.spend(e_c, label=(
        f"release: noisy count of each of the {K} neurons: L1 sensitivity 2 under replacement "
        f"(a record leaves one neuron, joins another), Laplace scale about {b:.4g}"), noise=g_c)
    if pub.layout_ is not None:
        _cells_spend(pub, ledger, rest, K, b)
    else:
        (e_s, g_s), = rest
        ledger.spend(e_s, label=(
            f"release: noisy sums of the {m} attributes in [0, 1] of each of the {K} neurons: L1 sensitivity "
            f"2m = {2 * m}, Laplace scale about {b:.4g}. Counts and sums are one vector release over all "
            "neurons (not per-cluster parallel: a replaced record moves between two neurons); rows, "
            "centres and their order are post-processing"), noise=g_s)
    if pub.schema is None:  # a DP claim needs the schema: without it, the data set the scaling
        pub.table_.charge(ledger)
        ledger.mark_not_dp(pub.table_.not_dp_reason or NO_SCHEMA_REASON)
    else:
        pub.table_.charge(ledger)
    return ledger

def _cells_spend(pub: Any, ledger: PrivacyLedger, rest: list, K: int, b: float) -> None:
    """The ledger entry of a cell release's cells (none when no column is counted)."""
    layout = pub.layout_
    counted = len(layout.counted)
    split = ""
    if layout.label is not None:
        split = (f" The map is split by the label '{layout.columns[layout.label]}' (its role and "
                 f"categories are the schema's): each neuron holds one of its {layout.strata} categories, so "
                 "the label has no cells and its rows carry their neuron's category.")
    for e_s, g_s in rest:
        ledger.spend(e_s, label=(
            f"release: noisy counts of the {layout.width} cells of the {counted} counted columns "
            f"(categories over the schema's list plus (other), numbers in equal bins of the declared range) "
            f"of each of the {K} neurons: L1 sensitivity 2m = {2 * counted} under replacement, Laplace scale "
            f"about {b:.4g}. Counts and cells are one vector release over all neurons (a replaced record "
            "moves between two neurons); rows drawn from the cells and their order are post-processing."
            + split), noise=g_s)
