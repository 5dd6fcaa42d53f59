"""Distance to closest record (DCR): is a release closer to its training records than to other real records?

:func:`distance_to_closest_record` measures one release; :class:`DCRReference` does the
training / holdout side once so that many releases of the same split each cost one
search. Distances are those of :mod:`core.evaluation.attacks.nearest`.
"""
from __future__ import annotations

from typing import Any, Sequence

import numpy as np
import pandas as pd

from core.data.dataset import is_quantity
from core.evaluation.attacks.common import _as_frame, _check_columns, _text_codes
from core.evaluation.attacks.nearest import encode_for_distance
from core.evaluation.attacks.search import NearestSearch, nearest_search
from core.runtime.randomness import RandomState, check_random_state, draw_seed
from core.validation import DataError, check_positive_int

__all__ = ["distance_to_closest_record", "DCRReference"]


def _row_keys(frames: list[pd.DataFrame], columns: list[str], numeric: set[str]) -> list[np.ndarray]:
    """A 64-bit hash of each row's values in each frame: numbers as float64, any other
    column as one integer code per distinct text shared by the frames."""
    canon: list[dict[str, np.ndarray]] = [{} for _ in frames]
    for c in columns:
        if c in numeric:
            for out, f in zip(canon, frames):
                out[c] = pd.to_numeric(f[c], errors="coerce").to_numpy(dtype=np.float64, na_value=np.nan)
            continue
        coded = [_text_codes(f[c]) for f in frames]
        shared, _ = pd.factorize(pd.Index(np.concatenate([np.asarray(t, dtype=object) for _, t in coded])))
        offset = 0
        for out, (codes, texts) in zip(canon, coded):
            out[c] = shared[offset:offset + len(texts)][codes]
            offset += len(texts)
    return [pd.util.hash_pandas_object(pd.DataFrame(d, columns=columns), index=False).to_numpy()
            for d in canon]


def distance_to_closest_record(release: pd.DataFrame, train: pd.DataFrame, holdout: pd.DataFrame, *,
                               columns: Sequence[str] | None = None, block_rows: int | None = None,
                               max_records: int | None = None, search: str = "auto",
                               scheduler: str | None = None,
                               random_state: RandomState = None) -> dict[str, Any]:
    """Distance to closest record (DCR): is the release closer to its training records
    than to other real records?

    For each real *training* record t (the records the release was made from) let
    d_R(t) be the distance to its nearest released row and d_H(t) the distance to its
    nearest *holdout* record (real records drawn like the training ones but not used).
    Distances are Euclidean on :func:`encode_for_distance` with ``train`` as the
    reference. The risk is the share of training records with d_R(t) < d_H(t) (ties
    count one half).

    Baseline: if the released rows were drawn independently of the training records,
    from the same distribution as the holdout (the ideal generalising generator), the
    nearest of the n_R + n_H rows of release and holdout to a training record would be
    any one of them with equal chance, so the expected share is n_R / (n_R + n_H) (0.5
    for equal sizes), with no second real sample and no assumption about the data.
    Counting ties one half keeps it exact for equal sizes even on discrete data; with
    unequal sizes and many ties (few distinct rows) the expected share moves towards
    0.5, so prefer a release of the holdout's size. ``excess = risk - baseline``: 0 for
    a release that generalises, up to ``1 - baseline`` for an exact copy of the training
    records (every training record at distance 0 from the release); negative when the
    release is farther from the training records than fresh real data (noisy or coarse
    releases).

    Mapping to the references: SDMetrics' DCROverfittingProtection asks the same
    question from the other side (the share of *synthetic* rows closer to the training
    data than to a validation set of equal size, ideal 50 %, per-attribute Gower
    distances averaged); asking it per training record measures how many *people* have a
    row made close to them. Anonymeter (Giomi et al. 2023, PoPETs) compares an attack on
    training records with the same attack on control (holdout) records and reports
    (r_train - r_control) / (1 - r_control); ``normalised_excess`` is that ratio for
    this attack, ``excess / (1 - baseline)``. SDMetrics' DCRBaselineProtection (a
    release against uniform random data) is not computed: it says how far the release
    is from the data, not whether it is closer to the training records.

    Parameters
    ----------
    release : DataFrame or Dataset
        The published (synthetic, perturbed) table.
    train : DataFrame or Dataset
        The real records the release was made from.
    holdout : DataFrame or Dataset
        Real records from the same population, not used to make the release.
    columns : sequence of str, optional
        Columns to measure on (default: every column of ``train``).
    block_rows : int, optional
        Query rows per block of the search (see :func:`nearest_distances`).
    max_records : int, optional
        Measure a seeded sample of this many training records instead of all of them
        (the risk is then an estimate, standard error at most 0.5 / sqrt(max_records);
        the baseline does not change). To measure many releases against the same
        records, build a :class:`DCRReference` once.
    search : {"auto", "exact", "tree", "approximate"}
        How nearest records are found (:func:`~core.evaluation.attacks.search.nearest_search`):
        ``"auto"`` is exact up to about 45,000 x 45,000 records (or by a k-d tree on
        tables of few columns), else an HNSW index whose recall is measured and reported.
    scheduler : str, optional
        Where the search's blocks run (this process or a Dask cluster).
    random_state : int, Generator or None
        Draws the sample of ``max_records`` and the queries that check an approximate
        search's recall.

    Returns
    -------
    dict
        ``risk``: share in [0, 1] of training records closer to the release than to the
        holdout, ties one half (higher is worse; an exact copy gives 1). ``baseline``: n_R / (n_R + n_H),
        the risk of a release that does not depend on the training records.
        ``excess``: risk - baseline (0 is ideal; positive means training records are
        reproduced). ``normalised_excess``: excess / (1 - baseline), at most 1 (an exact
        copy). ``median_dcr_train_to_release`` and ``median_dcr_train_to_holdout``: median
        d_R and d_H (a release much closer than the holdout copies records).
        ``exact_copies``: share of released rows equal to some training row in every
        column (0 is ideal; a copy gives 1; discrete data can reach it by chance; always
        over every training record). ``n_release``, ``n_train``, ``n_holdout``,
        ``n_measured`` (training records measured), ``columns``. ``search``: how the
        nearest records were found (``"exact"``, ``"tree"``, ``"approximate"``: the less
        exact of the two searches), ``search_recall``: the smaller recall of the two (1
        when exact; an approximate search finds distances too large, never too small, so
        with recall below 1 the risk may be underestimated), ``search_note``: a sentence.

    Raises
    ------
    TypeError
        A table is not a DataFrame / Dataset.
    ValueError
        ``max_records`` below 1.
    DataError
        A table is empty or lacks a column.
    """
    reference = DCRReference(train, holdout, columns=columns, block_rows=block_rows,
                             max_records=max_records, search=search, scheduler=scheduler,
                             random_state=random_state)
    return reference.measure(release)


class DCRReference:
    """The training and holdout side of :func:`distance_to_closest_record`, done once.

    Each measured training record's distance to its nearest holdout record does not
    depend on the release, so a comparison that measures many releases of the same
    split computes it once here and then calls :meth:`measure` per release: the result
    is the same as :func:`distance_to_closest_record` with the same arguments.

    Parameters
    ----------
    train, holdout, columns, block_rows, max_records, search, scheduler, random_state
        As in :func:`distance_to_closest_record`. ``random_state`` draws the sample of
        ``max_records``, then one seed for the recall checks of every search (the same
        queries are checked for every release, whatever the order they are measured in).

    Attributes
    ----------
    records_ : ndarray of int
        Row positions (in ``train``) of the training records measured, sorted.
    holdout_distances_ : ndarray
        Their distances to the nearest holdout record.
    holdout_search_ : NearestSearch
        How they were found (method, recall).
    """

    def __init__(self, train: pd.DataFrame, holdout: pd.DataFrame, *, columns: Sequence[str] | None = None,
                 block_rows: int | None = None, max_records: int | None = None, search: str = "auto",
                 scheduler: str | None = None, random_state: RandomState = None) -> None:
        tr, ho = _as_frame(train, "train"), _as_frame(holdout, "holdout")
        for name, frame in (("train", tr), ("holdout", ho)):
            if len(frame) == 0:
                raise DataError(f"The {name} table is empty; DCR needs at least one row in each table.")
        self.columns = _check_columns(columns, tr, {"train": tr, "holdout": ho})
        self.block_rows = None if block_rows is None else check_positive_int(block_rows, name="block_rows")
        n = len(tr)
        self._rng = check_random_state(random_state)
        if max_records is not None and check_positive_int(max_records, name="max_records") < n:
            self.records_ = np.sort(self._rng.choice(n, size=max_records, replace=False))
        else:
            self.records_ = np.arange(n)
        # one seed for every search's recall check: the same queries checked for every release,
        # whatever order the releases are measured in (here or on a cluster)
        self._recall_seed = draw_seed(self._rng)
        self.search, self.scheduler = search, scheduler
        self._train, self._n_holdout = tr, len(ho)
        T, H = encode_for_distance(tr, ho, columns=self.columns)
        self.holdout_search_ = self._search(T[self.records_], H)
        self.holdout_distances_ = self.holdout_search_.distances

    def _search(self, queries: np.ndarray, reference: np.ndarray) -> NearestSearch:
        kwargs = {} if self.block_rows is None else {"block_rows": self.block_rows}
        return nearest_search(queries, reference, method=self.search, scheduler=self.scheduler,
                              random_state=self._recall_seed, **kwargs)

    def measure(self, release: pd.DataFrame) -> dict[str, Any]:
        """DCR of one release against this reference (the keys of
        :func:`distance_to_closest_record`)."""
        rel, tr = _as_frame(release, "release"), self._train
        if len(rel) == 0:
            raise DataError("The release table is empty; DCR needs at least one row in each table.")
        cols = _check_columns(self.columns, tr, {"release": rel})
        # the release is encoded on the training records' scales, as the holdout was: each
        # attribute's distance is defined the same way in both pairs
        T, R = encode_for_distance(tr, rel, columns=cols)
        found = self._search(T[self.records_], R)
        d_rel, d_hold = found.distances, self.holdout_distances_
        worst = min((found, self.holdout_search_), key=lambda s: (s.recall, s.method != "approximate"))
        risk = float(np.mean(d_rel < d_hold) + 0.5 * np.mean(d_rel == d_hold))
        baseline = len(rel) / (len(rel) + self._n_holdout)
        numeric = {c for c in cols if is_quantity(tr[c])}
        rel_keys, tr_keys = _row_keys([rel, tr], cols, numeric)
        copies = np.isin(rel_keys, tr_keys)
        return {
            "risk": risk,
            "baseline": float(baseline),
            "excess": risk - baseline,
            "normalised_excess": (risk - baseline) / (1.0 - baseline),
            "median_dcr_train_to_release": float(np.median(d_rel)),
            "median_dcr_train_to_holdout": float(np.median(d_hold)),
            "exact_copies": float(copies.mean()),
            "n_release": len(rel), "n_train": len(tr), "n_holdout": self._n_holdout,
            "n_measured": len(self.records_),
            "columns": cols,
            "search": worst.method, "search_recall": worst.recall, "search_note": worst.describe(),
        }
