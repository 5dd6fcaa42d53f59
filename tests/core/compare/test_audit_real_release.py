"""The audit beside every DP point runs the real release step, never a stand-in.

Compare's audit of MST used to run a stand-in (a discrete Laplace built like OpenDP's), so an
MST whose release raised still read "no violation found". Now the MST (and AIM) case calls
:func:`core.marginal.synthesizer.measure_marginals`, the function the release calls, and a
point whose real measurement is too slow for its budget (or fails) says "not audited".
These tests stay fast: the mutants raise before OpenDP runs, and the timing is faked where a
real run would take seconds. A real MST audit (seconds a run) is in the slow test at the end.
"""
from __future__ import annotations

import math
from dataclasses import replace

import pytest

import core.compare.audits as compare_audits
import core.compare.methods as compare_methods
import core.marginal.synthesizer as marginal_synthesizer
from core.audit_cases.marginal import MarginalRelease, mst_case, no_fit
from core.compare.audits import AUDITS, audit_verdict, run_audits
from core.compare.context import RunContext
from core.data import load_sample
from core.marginal import MarginalSynthesizer
from core.privacy.schema_builtin import schema_for

COLUMNS = ["age", "sex", "income"]


class ReleaseStepRan(Exception):
    """Raised by the spy in place of OpenDP's measurement."""


@pytest.fixture(scope="module")
def census():
    return load_sample("census")


def _ctx(census, columns=COLUMNS) -> RunContext:
    data = census.subset(columns)
    return RunContext(data.head(300), data.frame.tail(60).reset_index(drop=True), None, 0, schema_for(census))


def _raise(*args, **kwargs):
    raise RuntimeError("the release step is broken")


def test_mutant_stand_in_audit_is_caught(census, monkeypatch):
    """The leak: an audit that measures a stand-in instead of the release passes whatever the
    release does. With MST's measurement replaced by one that raises, the release fails and the
    audit beside the point must fail too (here: "not audited", with the error), never "no
    violation found" from a mechanism the release does not run."""
    monkeypatch.setattr(marginal_synthesizer, "measure_marginals", _raise)
    schema = schema_for(census)
    with pytest.raises(RuntimeError, match="broken"):
        MarginalSynthesizer(epsilon=1.0, schema=schema, columns=COLUMNS).fit(census.frame[COLUMNS].head(50))
    row = run_audits(_ctx(census), ["MST"], [1.0], runs=100).iloc[0]
    assert not row["audit_verdict"].startswith("no violation found")
    assert row["audit_verdict"].startswith("not audited") and "the release step is broken" in row["audit_verdict"]
    assert math.isnan(row["audit_lower"]) and row["audit_violation"] is None


def test_the_audit_and_the_release_call_one_measurement_function(census, monkeypatch):
    calls = []

    def spy(domain, frame, epsilon, algorithm, *, estimator=None):
        calls.append((tuple(domain.names), tuple(domain.sizes.values()), epsilon, algorithm, estimator, len(frame)))
        raise ReleaseStepRan

    monkeypatch.setattr(marginal_synthesizer, "measure_marginals", spy)
    schema = schema_for(census)
    frame = census.frame[COLUMNS].head(80)
    with pytest.raises(ReleaseStepRan):
        MarginalSynthesizer(epsilon=0.7, schema=schema, columns=COLUMNS).fit(frame)
    case = mst_case(frame, schema, epsilon=0.7, columns=COLUMNS)
    assert isinstance(case.mechanism, MarginalRelease) and case.claimed_epsilon == 0.7
    with pytest.raises(ReleaseStepRan):
        case.mechanism(case.pair.d1, 0)
    release, audit = calls
    assert release[:4] == audit[:4] == (tuple(COLUMNS), release[1], 0.7, "MST") and release[5] == audit[5] == 80
    assert release[4] is None and audit[4] is no_fit  # only the model fit (post-processing) differs


def test_the_compare_case_uses_the_releases_columns_and_bins(census, monkeypatch):
    from core.compare.marginal_methods import MARGINAL_BINS, marginal_columns

    ctx = _ctx(census)
    (case,) = AUDITS["MST"](ctx, 1.0)
    assert case.mechanism.domain.names == marginal_columns(ctx)
    assert case.mechanism.domain.sizes == marginal_synthesizer.marginal_domain(
        ctx.schema, columns=marginal_columns(ctx), bins=MARGINAL_BINS).sizes
    assert AUDITS["AIM"](ctx, 1.0)[0].mechanism.algorithm == "AIM"


def test_every_column_of_the_pair_moves_a_cell(census):
    frame = census.frame[COLUMNS].head(100).reset_index(drop=True)
    case = mst_case(frame, schema_for(census), epsilon=1.0)
    stat = case.statistic
    for col in COLUMNS:
        mu0, mu1 = stat.exact((col,))
        assert abs(mu0 - mu1).sum() == 2  # one count out of a cell, one into another
    assert len(case.pair.d1.compare(case.pair.d0)) == 1  # one record replaced


def test_the_statistic_weighs_each_marginal_by_its_noise(census):
    frame = census.frame[COLUMNS].head(100).reset_index(drop=True)
    stat = mst_case(frame, schema_for(census), epsilon=1.0).statistic
    mu0, mu1 = stat.exact(("sex",))
    assert stat(((("sex",), mu0, 2.0),)) == pytest.approx(-abs(mu0 - mu1).sum() / 2.0)
    assert stat(((("sex",), mu1, 2.0),)) == pytest.approx(abs(mu0 - mu1).sum() / 2.0)


class _SlowRelease:
    """A mechanism that says each run takes 10 s (the real MST takes seconds a run)."""

    def __call__(self, frame, random_state):
        raise AssertionError("a point over its budget must not be run")

    def seconds_per_run(self, frame, *, limit=None):
        return 10.0


def test_a_point_too_slow_for_its_budget_says_not_audited(census, monkeypatch):
    real = AUDITS["MST"]

    def slow(ctx, epsilon):
        (case,) = real(ctx, epsilon)
        return [replace(case, mechanism=_SlowRelease())]

    monkeypatch.setitem(AUDITS, "MST", slow)
    row = run_audits(_ctx(census), ["MST"], [2.0], runs=100).iloc[0]
    assert row["audit_verdict"].startswith("not audited: one run of MST marginals")
    assert "10 s" in row["audit_verdict"] and "33 min" in row["audit_verdict"] and "stand-in" in row["audit_verdict"]
    assert row["audit_claim"] == 2.0 and math.isnan(row["audit_lower"]) and row["audit_runs"] is None


def test_not_audited_is_a_verdict_of_its_own():
    assert audit_verdict(1.0, math.nan, math.nan, 0, None) == "not audited"
    assert audit_verdict(1.0, math.nan, math.nan, 0, None, reason="too slow.") == "not audited: too slow."


def test_a_broken_idp_kmeans_release_breaks_its_audit(census, monkeypatch):
    """IDP-KMeans's audit runs Compare's own release (the registry's fit and release): with the
    release's k-means replaced by one that raises, the audit raises instead of passing."""
    monkeypatch.setattr(compare_methods, "idp_kmeans", _raise)
    ctx = RunContext(census.head(300), census.frame.tail(60).reset_index(drop=True), None, 0, None)
    with pytest.raises(RuntimeError, match="broken"):
        run_audits(ctx, ["IDP-KMeans"], [1.0], runs=20)


@pytest.mark.slow
def test_the_real_mst_measurement_passes_a_short_audit(census, monkeypatch):
    """MST on two columns, its real measurement, 20 runs per side: 828 s measured on 2 cores under a load
    of 13 (about 20 s a run; a few seconds a run unloaded)."""
    monkeypatch.setattr(compare_audits, "AUDIT_POINT_SECONDS", 1e6)
    row = run_audits(_ctx(census, ["sex", "income"]), ["MST"], [1.0], runs=20).iloc[0]
    assert row["audit_runs"] == 20 and not row["audit_violation"], row["audit_verdict"]
    assert row["audit_verdict"].startswith(("no violation found", "the audit cannot test"))
    assert row["audit_seconds"] > 0
