"""The one preamble of a paper page: the dataset, the seed and the caption naming them.

Every paper page starts with ``page = page_data("supplier")`` (or ``"census"``) and reads
``page.dataset`` and ``page.seed``; the preamble draws the caption
``Dataset **name**: rows · label · sensitive`` (names escaped, never markdown).

The rule for pages that need a sensitive attribute (``needs_sensitive=True``), the same
on every page:

* a **built-in sample** that marks no sensitive attribute is swapped for the page's
  default sample, and a caption says so (the default sample itself is never swapped: its
  roles were the user's choice);
* a **user's own table** (an upload, a public dataset) is never swapped, and no sensitive
  attribute is ever picked silently: the page draws its sensitive widget with
  :func:`choose_sensitive` (no default unless the dataset marks one that fits, a
  placeholder) and calls :func:`stop_until_chosen`, which shows an ``st.info`` and stops
  the page until the user has chosen.

``needs_label`` (the page's own sentence, "Choose a label column on the Data page: ...")
shows that sentence as the page's warning (a step for the user, not a failure) and stops it
when the dataset has no label.
"""
from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import streamlit as st

from core.data import SAMPLES, Dataset
from dashboard.shared.safe import md
from dashboard.shared.serving.state import (
    SOURCE_KEY, SOURCES, current_dataset, current_seed, roles_text, user_chose_dataset,
)

#: the placeholder of a sensitive widget that has no default
SENSITIVE_PLACEHOLDER = "Choose the sensitive attribute(s)"


@dataclass(frozen=True)
class PageData:
    """What a paper page works on.

    Attributes
    ----------
    dataset : Dataset
        The dataset chosen on the Data page, the page's default sample while none is, or
        the default sample in place of a built-in sample without a sensitive attribute.
    seed : int
        The sidebar's seed.
    swapped_from : str or None
        The name of the built-in sample the default sample replaced, or None.
    """

    dataset: Dataset
    seed: int
    swapped_from: str | None = None


def is_builtin_sample(dataset: Dataset) -> bool:
    """True for a built-in sample (the page's default while nothing is chosen, or a sample
    picked on the Data page); False for an upload or a public dataset, whatever its name."""
    if not user_chose_dataset():
        return True
    return dataset.name in SAMPLES and st.session_state.get(SOURCE_KEY, SOURCES[0]) == SOURCES[0]


def dataset_caption(dataset: Dataset) -> str:
    """'Dataset **name**: 1,160 rows · label listed · sensitive none.' (names escaped)."""
    return f"Dataset **{md(dataset.name)}**: {roles_text(dataset)}."


def page_data(default_sample: str, *, needs_label: bool | str = False, needs_sensitive: bool = False) -> PageData:
    """The page's dataset and seed, with the caption naming the dataset drawn.

    Parameters
    ----------
    default_sample : str
        The built-in sample the page uses while nothing is chosen on the Data page
        ("supplier" for the paper-000 pages, "census" for IMPOSTER and SSKM_DP).
    needs_label : bool or str
        The page trains or selects with the label: without one the page shows this
        sentence (True: a generic one) as a warning and stops.
    needs_sensitive : bool
        The page protects a sensitive attribute: a built-in sample that marks none is
        swapped for ``default_sample`` (with a caption saying so); a user's own table is
        kept (the page asks with :func:`choose_sensitive` / :func:`stop_until_chosen`).
    """
    dataset = current_dataset(default_sample)
    swapped_from = None
    if (needs_sensitive and not dataset.sensitive and dataset.name != default_sample
            and is_builtin_sample(dataset)):
        from dashboard.shared.serving.datasets import sample_dataset

        swapped_from = dataset.name
        dataset = sample_dataset(default_sample)
        st.caption(f"The {md(swapped_from)} sample marks no sensitive attribute, so this page uses the "
                   f"{md(default_sample)} sample. Mark a sensitive column on the Data page to use the "
                   f"{md(swapped_from)} sample instead.")
    st.caption(dataset_caption(dataset))
    if needs_label and dataset.label is None:
        sentence = needs_label if isinstance(needs_label, str) else "Choose a label column on the Data page."
        st.warning(md(sentence), icon=":material/label:")  # a step for the user, not a failure
        st.stop()
    return PageData(dataset, current_seed(), swapped_from)


def marked_sensitive(dataset: Dataset, options: Sequence[str]) -> list[str]:
    """The sensitive attributes the dataset marks that are among ``options``, in order."""
    return [s for s in dataset.sensitive if s in options]


def choose_sensitive(where: Any, label: str, options: Sequence[str], dataset: Dataset, *, key: str,
                     multiple: bool = False, help: str | None = None) -> Any:
    """The sensitive widget: preset to what the dataset marks (when it fits ``options``),
    otherwise empty with a placeholder, never a silent first option.

    ``where`` is ``st`` or a column; ``multiple`` draws a multiselect (returns a list),
    otherwise a selectbox (returns the column, or None while none is chosen).
    """
    marked = marked_sensitive(dataset, options)
    if multiple:
        return where.multiselect(label, list(options), default=marked, key=key,
                                 placeholder=SENSITIVE_PLACEHOLDER, help=help)
    index = list(options).index(marked[0]) if marked else None
    return where.selectbox(label, list(options), index=index, key=key,
                           placeholder="Choose the sensitive attribute", help=help)


def stop_until_chosen(chosen: Any, dataset: Dataset, ask: str) -> None:
    """Stop the page with an ``st.info`` while no sensitive attribute is chosen.

    ``ask`` is the page's sentence; its ``{marked}`` becomes "this table marks none, so "
    when the dataset marks no sensitive attribute at all (and nothing otherwise).
    """
    if chosen:
        return
    marked = "this table marks none, so " if not dataset.sensitive else ""
    st.info(ask.replace("{marked}", marked), icon=":material/touch_app:")
    st.stop()
