"""Every DP reading runs end to end on the built-in datasets with their shipped schemas.

Issue 23's rule: a release that claims epsilon reads the private rows only through noise it
pays for; its category lists, bounds and group bound come from the public schema. The
shipped schemas of the supplier and census samples, Adult and NLTCS are public ("built-in"),
so every method of Compare that claims DP must keep its claim on them; the same table with a
schema drafted from its rows (an upload) must say "not differentially private" with the
schema's reason.
"""
from __future__ import annotations

import pytest

from core.compare.run import compare
from core.compare.registry import METHODS
from core.data import load_adult, load_nltcs, load_sample
from core.privacy.schema_builtin import schema_for
from core.privacy.schema_draft import draft_schema

# the OpenDP synthesizers take about a minute per release: tests/core/compare/test_marginal_methods.py runs MST
DP_METHODS = [name for name, method in METHODS.items() if method.dp and name not in ("MST", "AIM")]


def _runs(dataset, schema, *, max_rows: int = 400):
    result = compare(dataset, methods=DP_METHODS, epsilons=[1.0], repetitions=1, max_rows=max_rows,
                     random_state=0, schema=schema, audit_runs=0)  # the claims, not the audits (test_audits.py)
    return result, result.runs


#: roles that let every method run (SSKM_DP protects a sensitive attribute)
ROLES = {"census": ("income", ("sex",)), "supplier": ("listed", ("enterprise_type",))}


@pytest.mark.parametrize("name", sorted(ROLES))
def test_dp_methods_keep_their_claim_on_a_built_in_sample(name):
    label, sensitive = ROLES[name]
    dataset = load_sample(name).with_roles(label=label, sensitive=sensitive)
    schema = schema_for(dataset)
    assert all(c.source == "built-in" for c in schema.columns)
    result, runs = _runs(dataset, schema)
    assert not result.skipped
    assert set(runs["method"]) == set(DP_METHODS)
    assert runs["is_dp"].all(), runs.loc[~runs["is_dp"], ["method", "guarantee"]].to_dict("records")
    assert (runs["ledger_epsilon"] <= 1.0 + 1e-9).all()


def test_a_drafted_schema_makes_every_release_say_it_is_not_dp():
    dataset = load_sample("census")
    _, runs = _runs(dataset, draft_schema(dataset))
    assert len(runs) and not runs["is_dp"].any()
    assert runs["guarantee"].str.contains("read from your data").all()


def test_confirming_the_drafted_schema_restores_the_claim():
    dataset = load_sample("census")
    _, runs = _runs(dataset, draft_schema(dataset).confirm())
    assert runs["is_dp"].all()


def test_dp_methods_keep_their_claim_on_adult(data_dir):
    dataset = load_adult(data_dir).sample(2000, random_state=0)
    result, runs = _runs(dataset, schema_for(dataset), max_rows=2000)
    assert not result.skipped
    assert set(runs["method"]) == set(DP_METHODS)
    assert runs["is_dp"].all(), runs.loc[~runs["is_dp"], ["method", "guarantee"]].to_dict("records")


def test_dp_methods_keep_their_claim_on_nltcs(data_dir):
    # NLTCS ships no roles: x1 as the label and x2 as the sensitive attribute let every method run
    dataset = load_nltcs(data_dir).sample(2000, random_state=0).with_roles(label="x1", sensitive=("x2",))
    result, runs = _runs(dataset, schema_for(dataset), max_rows=2000)
    assert not result.skipped
    assert set(runs["method"]) == set(DP_METHODS)
    assert runs["is_dp"].all(), runs.loc[~runs["is_dp"], ["method", "guarantee"]].to_dict("records")
