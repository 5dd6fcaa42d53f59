""""Download bundle" on the Correlations and DC-FBFS pages: what the page shows, as a zip a
colleague reruns (:func:`dashboard.shared.widgets.bundle_view.bundle_download`). Both pages measure
the private records and release no table, so only a colleague's bundle is offered; the
numbers are computed by the page modules of :mod:`core.bundle.pages` from the page's data,
seed and settings.
"""
from __future__ import annotations

import streamlit as st

from core.data import Dataset
from dashboard.shared.widgets.bundle_view import bundle_download, page_config

__all__ = ["correlations_bundle", "dc_fbfs_bundle"]

_TITLE = "Download bundle: the settings and every number with a script and notebook that rerun them"


def correlations_bundle(dataset: Dataset, seed: int, *, association: str, mic_rows: int, measure: str,
                        threshold: float, heatmap_records: int) -> None:
    """The Correlations page's bundle: the association matrix, the heatmap's records and CS
    against GS, at the page's settings."""
    settings = {"association": association, "mic_rows": int(mic_rows), "measure": measure,
                "threshold": float(threshold), "heatmap_records": int(heatmap_records)}
    with st.expander(_TITLE, icon=":material/folder_zip:"):
        bundle_download("corr", config=page_config("correlations", dataset, seed=seed, settings=settings),
                        dataset=dataset, releases_table=False)


def dc_fbfs_bundle(dataset: Dataset, seed: int, *, measure: str, threshold: float, max_rows: int, tc: float) -> None:
    """The DC-FBFS page's bundle: the selection at T_c, Fig. 1, Table 2 and the claims, on the
    rows the page uses (``dataset`` is the page's whole table: the bundle draws the same rows)."""
    settings = {"measure": measure, "threshold": float(threshold), "max_rows": int(max_rows), "tc": float(tc)}
    with st.expander(_TITLE, icon=":material/folder_zip:"):
        bundle_download("fb", config=page_config("dc_fbfs", dataset, seed=seed, settings=settings),
                        dataset=dataset, releases_table=False)
