""""Download bundle" on the CDP-LR and Publishing pages: what the page shows, as a zip a
colleague reruns (:func:`dashboard.shared.widgets.bundle_view.bundle_download`). Neither page offers a
release to download (CDP-LR measures models on the private held-out records; Publishing
measures its noisy answers against the true counts), so only a colleague's bundle is offered;
the numbers are computed by :mod:`core.bundle.pages.cdp_lr` and
:mod:`core.bundle.pages.publishing` from the page's whole table, seed, settings and public
schema (they draw the page's rows themselves).
"""
from __future__ import annotations

import streamlit as st

from core.data import Dataset
from core.privacy.schema import PublicSchema
from dashboard.cdp import lr_panels, publishing_panels
from dashboard.shared.widgets.bundle_view import bundle_download, page_config

__all__ = ["cdp_lr_bundle", "publishing_bundle"]

_TITLE = "Download bundle: the settings and every number with a script and notebook that rerun them"


def cdp_lr_bundle(dataset: Dataset, seed: int, choice: lr_panels.Choice, schema: PublicSchema) -> None:
    """The CDP-LR page's bundle: the bars at the slider's epsilon with the references, the
    schemes' table and guarantees, Fig. 4 (with DP-SGD and Fig. 5 when their toggles are on)."""
    settings = lr_panels.page_settings(choice)
    with st.expander(_TITLE, icon=":material/folder_zip:"):
        bundle_download("lr", config=page_config("cdp_lr", dataset, seed=seed, settings=settings, schema=schema),
                        dataset=dataset, releases_table=False)


def publishing_bundle(dataset: Dataset, seed: int, choice: publishing_panels.Choice, schema: PublicSchema) -> None:
    """The Publishing page's bundle: the MAE curves (Fig. 6, Fig. 8; Fig. 7 when asked) with
    their references and claims, the reading at epsilon, the sensitivities and the guarantee."""
    settings = publishing_panels.page_settings(choice)
    with st.expander(_TITLE, icon=":material/folder_zip:"):
        bundle_download("pub", config=page_config("publishing", dataset, seed=seed, settings=settings,
                                                  schema=schema),
                        dataset=dataset, releases_table=False)
