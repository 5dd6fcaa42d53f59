"""The sidebar every page shows: the seed, the present switch, the cluster, the privacy model
and the dataset in use with the session's privacy total."""
from __future__ import annotations

import streamlit as st

from core.data import Dataset
from core.privacy.ledger import NEIGHBOURING_RELATION
from dashboard.shared.serving import cluster
from dashboard.shared.serving.memory import watch_session
from dashboard.shared.widgets.present import present_toggle
from dashboard.shared.safe import md
from dashboard.shared.serving.session_ledger import session_total_text
from dashboard.shared.serving.state import DATASET_KEY, DEFAULT_SEED, SEED_KEY, roles_text


def _describe(dataset: Dataset | None) -> str:
    if not isinstance(dataset, Dataset):
        return "Chosen dataset: none yet, each page uses its built-in sample (choose one on the Data page)."
    return f"Chosen dataset: **{md(dataset.name)}** · {roles_text(dataset)}"


def render_sidebar():
    """The sidebar shown on every page: the seed, and a slot for the dataset in use.

    Returns a callable that fills the dataset slot; the app calls it after the page ran,
    so the slot shows the dataset the page just chose. Registers the session with
    :mod:`dashboard.shared.serving.memory`, which releases its memory once its tab is gone.
    """
    watch_session()
    with st.sidebar:
        slot = st.empty()
        st.number_input(
            "Seed",
            min_value=0,
            max_value=2**31 - 1,
            value=DEFAULT_SEED,
            step=1,
            key=SEED_KEY,
            help="Every random draw shown on the pages (noise, splits, training) follows this seed: "
            "the same seed gives the same picture. Releases you download draw fresh noise instead, "
            "unless you tick 'reproducible (not private)'.",
        )
        present_toggle()
        problem = cluster.prepare()
        if problem is not None:
            st.error(problem, icon=":material/cloud_off:")
        elif cluster.where() is not None:
            st.caption(cluster.where())
        with st.expander("Privacy model", icon=":material/policy:"):
            st.caption("**Neighbouring relation.** " + NEIGHBOURING_RELATION)
            st.caption("Every epsilon on the pages is the total a method's privacy ledger reports under "
                       "this relation; methods without a guarantee say 'not differentially private'. "
                       "Each method page has a privacy audit that measures a lower bound on epsilon.")

    def fill() -> None:
        with slot.container():
            st.caption(_describe(st.session_state.get(DATASET_KEY)))
            st.caption(session_total_text())

    return fill
