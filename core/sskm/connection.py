"""Connection strength between sensitive and other attributes (Algorithm 4 of paper 003).

CS(z_i : z_j) = MIC(z_i : z_j) (Eq. 16-17), computed with minepy between each sensitive
attribute and every other attribute (categoricals as ordinal codes). Attributes whose
strength to some sensitive attribute reaches the threshold CS_Tsh are protected together
with the sensitive ones: SSKM_DP adds noise to exactly that set.

MIC's cost grows faster than linearly with the number of rows, so by default it is computed
on a row sample (``max_rows``); ``benchmarks/bench_sskm.py`` measures how far that moves the
values on Adult.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import pandas as pd

from core.correlation.maximal_information import mic_pairs
from core.data.encoding import frame_codes
from core.runtime.progress import Progress, Stop, watch
from core.validation import DataError, check_positive_int, check_probability
from core.runtime.randomness import RandomState, check_random_state

__all__ = ["ConnectionResult", "mic_connections", "DEFAULT_MAX_ROWS"]

#: Rows used for MIC unless the caller asks otherwise: keeps the page interactive on Adult.
DEFAULT_MAX_ROWS = 4000


@dataclass
class ConnectionResult:
    """Connection strengths and the protected set.

    Attributes
    ----------
    strengths : DataFrame
        One row per sensitive attribute, one column per attribute of the frame
        (MIC in [0, 1]; 1.0 on a sensitive attribute's own column).
    sensitive : tuple of str
    threshold : float
        CS_Tsh.
    protected : tuple of str
        The sensitive attributes, then every attribute with strength >= CS_Tsh to at least
        one of them, in frame order.
    rows_used : int
        Rows MIC was computed on.
    """

    strengths: pd.DataFrame
    sensitive: tuple[str, ...]
    threshold: float
    protected: tuple[str, ...]
    rows_used: int

    def with_threshold(self, threshold: float) -> "ConnectionResult":
        """The same strengths with another CS_Tsh (no MIC recomputed: a slider can move)."""
        thr = check_probability(threshold, name="threshold")
        return ConnectionResult(
            self.strengths, self.sensitive, thr,
            _protected(self.strengths, self.sensitive, thr), self.rows_used,
        )


def _protected(strengths: pd.DataFrame, sensitive: tuple[str, ...], threshold: float) -> tuple[str, ...]:
    strongest = strengths.max(axis=0)
    linked = {c for c in strengths.columns if c not in sensitive and strongest[c] >= threshold}
    return tuple(c for c in strengths.columns if c in sensitive or c in linked)


def mic_connections(
    frame: pd.DataFrame,
    sensitive,
    *,
    threshold: float = 0.3,
    alpha: float = 0.6,
    c: float = 15,
    max_rows: int | None = DEFAULT_MAX_ROWS,
    n_jobs: int = 1,
    random_state: RandomState = 0,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> ConnectionResult:
    """MIC connection strength between each sensitive attribute and every other one.

    Parameters
    ----------
    frame : DataFrame
        The attributes (categoricals are coded; the label, if any, should be left out by
        the caller unless it is published too).
    sensitive : str or sequence of str
        Sensitive attributes (at least one).
    threshold : float
        CS_Tsh in [0, 1]: an attribute at or above it toward a sensitive attribute is
        protected, because publishing it unprotected would let the sensitive value be
        inferred. Lower protects more attributes (more noise, less utility).
    alpha, c : float
        minepy parameters (grid bound B = n**alpha, clumps factor).
    max_rows : int or None
        Compute MIC on at most this many rows drawn without replacement; None uses all.
    n_jobs : int
        Processes computing pairs in parallel (pairs are independent).
    random_state : int, Generator or None
        Draws the row sample.
    progress : callable(fraction, message), optional
        Told each pair done when ``n_jobs`` is 1 (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    ConnectionResult
    """
    progress = watch(progress, stop)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    sens = (sensitive,) if isinstance(sensitive, str) else tuple(sensitive)
    if not sens:
        raise ValueError("name at least one sensitive attribute.")
    missing = [s for s in sens if s not in frame.columns]
    if missing:
        raise DataError(f"Sensitive column(s) {missing} are not in the data.")
    if len(frame) < 4:
        raise DataError("MIC needs at least 4 rows; load more data.")
    thr = check_probability(threshold, name="threshold")
    if max_rows is not None:
        max_rows = check_positive_int(max_rows, name="max_rows", minimum=4)
    n_jobs = check_positive_int(n_jobs, name="n_jobs") if n_jobs != -1 else -1
    rng = check_random_state(random_state)

    columns = list(frame.columns)
    X = frame_codes(frame)  # infinite numbers refused
    pos = {col: i for i, col in enumerate(columns)}
    pairs: list[tuple[int, int]] = []
    for s in sens:
        for col in columns:
            if col == s:
                continue
            if col in sens and columns.index(col) < columns.index(s):
                continue  # sensitive pair computed once
            pairs.append((pos[s], pos[col]))
    values = mic_pairs(X, pairs, alpha=alpha, c=c, max_rows=max_rows, n_jobs=n_jobs, random_state=rng,
                       progress=progress)
    table = pd.DataFrame(np.nan, index=list(sens), columns=columns, dtype=float)
    for (i, j), v in zip(pairs, values):
        table.loc[columns[i], columns[j]] = v
        if columns[j] in sens:
            table.loc[columns[j], columns[i]] = v
    for s in sens:
        table.loc[s, s] = 1.0
    rows_used = len(frame) if max_rows is None else min(len(frame), max_rows)
    return ConnectionResult(table, sens, thr, _protected(table, sens, thr), rows_used)
