"""Association between attributes (columns): |Pearson r|, normalised mutual information, MIC.

An attribute strongly associated with a sensitive one leaks it; paper 000's correlation
page shows this attributes x attributes matrix (docs/design.md section 4).
"""
from __future__ import annotations

import numpy as np
import pandas as pd

from core.correlation.maximal_information import mic_pairs
from core.data.encoding import frame_codes
from core.runtime.progress import Progress, Stop, report, watch
from core.validation import DataError
from core.runtime.randomness import RandomState

__all__ = ["attribute_association"]

_METHODS = ("pearson", "nmi", "mic")


def _nmi_matrix(frame: pd.DataFrame, bins: int, progress: Progress | None = None) -> np.ndarray:
    """Normalised mutual information of every column pair; numbers quantile-binned."""
    from sklearn.metrics import normalized_mutual_info_score

    labels = []
    for name in frame.columns:
        series = frame[name]
        is_number = pd.api.types.is_numeric_dtype(series) and not pd.api.types.is_bool_dtype(series)
        if is_number and series.nunique() > bins:
            ranks = series.rank(method="first")
            labels.append(pd.qcut(ranks, bins, labels=False).fillna(-1).to_numpy())
        else:
            labels.append(series.astype(str).to_numpy())
    width = len(labels)
    out = np.eye(width)
    for i in range(width):
        report(progress, i / width, f"attribute {i + 1} of {width}")
        for j in range(i + 1, width):
            out[i, j] = out[j, i] = normalized_mutual_info_score(labels[i], labels[j])
    return out


def _pearson_matrix(codes: np.ndarray) -> np.ndarray:
    """|Pearson r| of every column pair; a constant column correlates with nothing."""
    spread = codes.std(axis=0)
    standardised = np.zeros_like(codes)
    varies = spread > 0
    standardised[:, varies] = (codes[:, varies] - codes[:, varies].mean(axis=0)) / spread[varies]
    values = np.abs(standardised.T @ standardised) / len(codes)
    np.fill_diagonal(values, 1.0)
    return np.clip(values, 0.0, 1.0)


def _mic_matrix(codes: np.ndarray, max_rows: int | None, random_state: RandomState,
                progress: Progress | None = None) -> np.ndarray:
    """MIC of every column pair, on at most ``max_rows`` rows."""
    width = codes.shape[1]
    pairs = [(i, j) for i in range(width) for j in range(i + 1, width)]
    mics = mic_pairs(codes, pairs, max_rows=max_rows, random_state=random_state, progress=progress)
    values = np.eye(width)
    for (i, j), value in zip(pairs, mics):
        values[i, j] = values[j, i] = value
    return values


def attribute_association(
    frame: pd.DataFrame,
    *,
    method: str = "pearson",
    max_rows: int | None = 2000,
    bins: int = 10,
    random_state: RandomState = 0,
    progress: Progress | None = None,
    stop: Stop | None = None,
) -> pd.DataFrame:
    """Association between every pair of attributes (columns) of ``frame``.

    Parameters
    ----------
    frame : DataFrame
        The attributes; categoricals are taken as ordinal codes (Pearson, MIC) or as
        labels (NMI).
    method : {"pearson", "nmi", "mic"}
        |Pearson r| (linear), normalised mutual information (any dependence; numeric
        columns quantile-binned into ``bins``), or the maximal information coefficient.
        An attribute strongly associated with a sensitive one leaks it.
    max_rows : int or None
        MIC only: computed on at most this many rows drawn at random (MIC's cost grows
        fast with n; the page shows the cap). None uses every row.
    bins : int
        NMI only: quantile bins for numeric columns with more distinct values.
    random_state : int, Generator or None
        Draws the MIC row sample.
    progress : callable(fraction, message), optional
        Told each MIC pair or NMI attribute done (:mod:`core.runtime.progress`).
    stop : threading.Event, optional
        When set, the work ends at its next progress report and raises
        :class:`core.runtime.progress.Stopped`.

    Returns
    -------
    DataFrame
        Symmetric attributes x attributes matrix with 1 on the diagonal.
    """
    progress = watch(progress, stop)
    if not isinstance(frame, pd.DataFrame):
        raise TypeError(f"frame must be a pandas DataFrame, got {type(frame).__name__}.")
    if not isinstance(method, str):
        raise TypeError(f"method must be a string, got {type(method).__name__}.")
    if method not in _METHODS:
        raise ValueError(f"method must be 'pearson', 'nmi' or 'mic', got {method!r}.")
    if frame.shape[1] < 1 or len(frame) < 4:
        raise DataError("Association needs at least 4 rows and one column.")
    names = list(frame.columns)
    if method == "nmi":
        values = _nmi_matrix(frame, bins, progress)
    else:
        # infinite numbers were always passed through here (unlike mic_connections)
        codes = frame_codes(frame, allow_infinite=True)
        if method == "pearson":
            values = _pearson_matrix(codes)
        else:
            values = _mic_matrix(codes, max_rows, random_state, progress)
    return pd.DataFrame(values, index=names, columns=names)
