"""Compare page (beyond the papers): one dataset, every method, the same attacks and utility
measures on one frontier, and a report to hand over. Layout only: the sections live in
:mod:`dashboard.compare.sections`."""
from __future__ import annotations

import streamlit as st

from dashboard.compare import cached, fidelity_section, sections
from dashboard.compare.solve_section import solve_section
from dashboard.shared.widgets.errors import page_errors
from dashboard.shared.widgets.job_view import sweep_view
from dashboard.shared.widgets.preamble import page_data
from dashboard.shared.safe import md
from dashboard.shared.serving.schemas import current_schema

st.title("Compare")
st.caption(
    "Every method releases the same training part of one table; every release meets the same "
    "attacks and the same utility measures on real records it never saw. Up and to the left on "
    "the frontier is better: more utility, less risk."
)

page = page_data("census", needs_label="Choose a label column on the Data page: Compare measures "
                                       "utility as the accuracy of predicting it.", needs_sensitive=True)
dataset, seed = page.dataset, page.seed
with page_errors(stop=True):
    # chart first: the settings folded above the frontier, the frontier's axes under it, the
    # schema's warning after its notes (the releases it concerns are crosses on the frontier)
    chosen = sections.settings(dataset)
    data = dataset.with_roles(label=dataset.label, sensitive=chosen["sensitive"])
    schema = current_schema(data)
    result = sweep_view("cmp_run", cached.comparison(
        data, methods=chosen["methods"], epsilons=chosen["epsilons"], repetitions=chosen["repetitions"],
        max_rows=chosen["max_rows"], epochs=chosen["epochs"], seed=seed, schema=schema,
        audit_runs=chosen["audit_runs"]), draw_partial=sections.partial_frontier)
    if result is not None:
        utility, risk = sections.frontier(result)
    if not schema.is_public():
        st.warning("The public schema has entries read from your data: " + md(schema.describe())
                   + " Review it on the Data page; until then the releases that use them say they are "
                   "not differentially private.", icon=":material/lock_open:")
    if result is None:
        st.stop()
    sections.every_measure(result)
    solve_section(result, config=sections.run_config(result, dataset, risk, utility))
    fidelity_section.real_vs_release_section(result)
    sections.take_it_away(result, dataset, data, risk, utility)
