"""The one page preamble (dashboard.shared.widgets.preamble): dataset, seed, caption, and the
one fallback rule for pages that need a sensitive attribute."""
from __future__ import annotations

import pytest
from streamlit.testing.v1 import AppTest

SCRIPT = """
import streamlit as st
from core.data import load_sample
from dashboard.shared.widgets.preamble import page_data

name, source, label = {name!r}, {source!r}, {label!r}
if name is not None:
    data = load_sample("census" if name == "census" else "supplier")
    data = data.with_roles(label=data.label if label else None, sensitive=())
    import dataclasses
    st.session_state["pux_dataset"] = dataclasses.replace(data, name=name)
if source is not None:
    st.session_state["pux_data_source"] = source
st.session_state["pux_seed"] = 7
page = page_data("census", needs_sensitive=True, needs_label={needs_label!r})
st.write(f"using {{page.dataset.name}} seed {{page.seed}} swapped {{page.swapped_from}}")
"""


def _run(name, source=None, *, label=True, needs_label=False):
    return AppTest.from_string(SCRIPT.format(name=name, source=source, label=label, needs_label=needs_label),
                               default_timeout=60).run()


def _shown(at):
    return at.markdown[-1].value if at.markdown else ""


def test_nothing_chosen_uses_the_default_sample():
    at = _run(None)
    assert _shown(at) == "using census seed 7 swapped None"
    assert at.caption[0].value.startswith("Dataset **census**: 3,000 rows")


def test_a_builtin_sample_without_sensitive_is_swapped_with_a_caption():
    at = _run("supplier", "Built-in sample")
    assert _shown(at) == "using census seed 7 swapped supplier"
    assert "supplier sample marks no sensitive attribute, so this page uses the census sample" in at.caption[0].value
    assert at.caption[1].value.startswith("Dataset **census**")


@pytest.mark.parametrize("source", ["Upload a CSV", "Adult (public data)"])
def test_a_users_own_table_is_never_swapped_even_when_named_like_a_sample(source):
    at = _run("supplier", source)
    assert _shown(at) == "using supplier seed 7 swapped None"
    assert len(at.caption) == 1 and at.caption[0].value.startswith("Dataset **supplier**")


def test_the_default_sample_itself_is_not_swapped():
    """Its roles were the user's: swapping it for itself would pick 'sex' silently."""
    at = _run("census", "Built-in sample")
    assert _shown(at) == "using census seed 7 swapped None"


def test_needs_label_shows_the_pages_sentence_and_stops():
    at = _run("census", "Built-in sample", label=False, needs_label="Choose a label column on the Data page: X.")
    assert at.warning[0].value.startswith("Choose a label column on the Data page") and not at.error
    assert not at.markdown  # the page stopped


def test_names_in_the_caption_are_escaped():
    at = _run("**bold** [x](http://example.com)", "Upload a CSV")
    assert "\\*\\*bold\\*\\* \\[x\\]" in at.caption[0].value
