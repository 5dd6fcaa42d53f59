"""Neighbouring-dataset audits of paper 003's mechanisms (core.audit.auditor).

Each audit runs a mechanism many times on two datasets that differ in one record (the
project's relation: one record replaced by any other) and bounds epsilon from below. The
pairs are built near the worst case of the sound calibration: with one attribute in [0, 1]
(m = 1) the (counts, sums) vector of IDP-KMeans has L1 sensitivity 2(m + 1) = 4, and the
replaced record moves from one cluster to the other while both its old and new values are
near 1, so the vector moves by 3.93 of those 4; SSKM_DP's (counts, cells) vector, with the
same sensitivity, moves by all 4 (the record stays in its bin). The statistic is the log-likelihood ratio of the two
Laplace vectors (up to the common 1 / scale), the most powerful test; it is rounded to
1e-6 because the raw floating-point sums at the ratio's atoms (every coordinate beyond both
means) differ in their last bits between the two datasets, a floating-point artefact of
textbook Laplace sampling (Mironov 2012) that is not what these audits measure.

- the sound mechanisms (SSKM_DP's sound publisher ``SSKMDP``, IDP-KMeans) show no violation at the
  claimed epsilon, and a mutant with half the noise (the add/remove calibration (m + 1) /
  epsilon) is flagged;
- pipeline pairs move what a careless pipeline reads from the rows before the noise (a
  record that brings a new category, one far out of range, one in what the old sound mode
  held out); with the public schema the release cannot show them, and mutants that put
  the leak back (categories and bounds from the rows, bounds and map from a held-out part)
  are caught by a statistic that looks at exactly the leaking thing;
- the paper's SSKM_DP is audited at the epsilon it names and violates it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.audit.auditor import audit
from core.audit.pairs import replace_pair
from core.audit.pipeline_pairs import (
    NEW_CATEGORY,
    held_out_pair,
    new_category_pair,
    out_of_range_pair,
)
from core.privacy.schema import PublicSchema
from core.privacy.schema_columns import ColumnSchema
from core.sskm import dp_kmeans
from core.sskm.connection import mic_connections
from core.sskm.dp_kmeans import idp_kmeans
from core.sskm.paper_publisher import PaperSSKMDP
from core.sskm.scaled_table import ScaledTable
from core.sskm.sound import SSKMDP

EPS = 1.0
#: published values of the one attribute; the first is the record that gets replaced
PUBLISHED = [0.93, 0.1, 0.3, 0.5, 0.7, 0.2, 0.4, 0.6, 0.8, 0.95]
#: held-out values (sound SSKM_DP): two tight groups, so the 1 x 2 map puts one neuron near
#: 0.88 and one near 1.0, with the border near 0.94
HELD_OUT = [0.88] * 5 + [1.0] * 5
SOM = {"rows": 1, "cols": 2, "iterations": 400, "sfla_params": {"iterations": 3, "n_frogs": 6}, "mic_max_rows": None}


def _llr(mu0: np.ndarray, mu1: np.ndarray):
    def statistic(y) -> float:
        return round(float(np.sum(np.abs(y - mu0) - np.abs(y - mu1))), 6)
    return statistic


@pytest.fixture
def half_noise_sskm(monkeypatch):
    """Mutant: the sound SSKM_DP's release with twice its epsilon, i.e. half the noise (the
    add/remove calibration (m + 1) / epsilon)."""
    original = SSKMDP._release_epsilon
    monkeypatch.setattr(SSKMDP, "_release_epsilon", lambda self, eps: 2 * original(self, eps))


@pytest.fixture
def half_noise_idp(monkeypatch):
    """Mutant: IDP-KMeans with its old add/remove calibration (m + 1) / epsilon_t."""
    monkeypatch.setattr(dp_kmeans, "idp_kmeans_scale", lambda m, eps_t: (m + 1) / eps_t)


# --------------------------------------------------------------------------- SSKM_DP sound

#: what the user declares public about the audit tables: x in [0, 1], c one of a, b
SCHEMA = PublicSchema((ColumnSchema("x", "numeric", lower=0.0, upper=1.0, source="declared"),
                       ColumnSchema("c", "categorical", categories=("a", "b"), source="declared")),
                      sensitive=("c",), name="audit")
X_ONLY = PublicSchema((ColumnSchema("x", "numeric", lower=0.0, upper=1.0, source="declared"),),
                      sensitive=("x",), name="audit x")
#: a small table holding both declared categories
PIPE = pd.DataFrame({"x": [0.2, 0.9, 0.4, 0.7, 0.1, 0.8, 0.3, 0.6, 0.5, 0.95, 0.05, 0.45],
                     "c": ["a", "b"] * 6})
#: the pipeline pairs audit the centres release: on 12 rows the cell release's neurons stay
#: below its emission threshold (two noise scales) and show almost nothing, so a leaked
#: category or bound would rarely reach the output either way; the scaling before the noise
#: is the same for both releases
PIPE_SOM = {"rows": 1, "cols": 2, "map_iterations": 2, "mic_max_rows": None, "release": "centres"}
PIPE_RUNS = 200


@pytest.fixture(scope="module")
def sskm_case():
    """The sound SSKM_DP with a public reference map: the release is one noisy vector.

    The map is fitted on a public reference table (two tight groups, so the 1 x 2 map puts
    one neuron near 0.88 and one near 1.0, border near 0.94), identical for both datasets:
    each dataset's publisher is fitted once and the mechanism is its noisy release (counts
    and cells, the default), so the likelihood ratio is exact. The replaced record moves from
    one neuron to the other and stays in its bin: the vector moves by the whole sensitivity.
    """
    frame = pd.DataFrame({"x": PUBLISHED})
    reference = pd.DataFrame({"x": HELD_OUT})
    pair = replace_pair(frame, 0, {"x": 1.0},
                        description="record x = 0.93 (neuron near 0.88) replaced by x = 1.0 (the other neuron)")
    pubs = {}
    for d in (pair.d0, pair.d1):
        pubs[id(d)] = SSKMDP(sensitive="x", schema=X_ONLY, map_fit="reference", random_state=0,
                             **SOM).fit(d, reference=reference)
    p0, p1 = pubs[id(pair.d0)], pubs[id(pair.d1)]
    assert np.array_equal(p0.som_.weights_, p1.som_.weights_)  # one map: only the public reference
    mu0 = np.concatenate([p0._counts, p0._sums.ravel()])
    mu1 = np.concatenate([p1._counts, p1._sums.ravel()])
    assert np.abs(mu0 - mu1).sum() == pytest.approx(4.0)  # the sensitivity 2(m + 1) = 4

    def mechanism(dataset, random_state):
        counts, sums = pubs[id(dataset)].release_aggregates(epsilon=EPS, random_state=random_state)
        return np.concatenate([counts, sums.ravel()])

    return mechanism, pair, _llr(mu0, mu1), p0


def test_sound_sskm_passes_its_audit(sskm_case):
    mechanism, pair, statistic, pub = sskm_case
    pub.publish(epsilon=EPS, random_state=0)
    claimed = pub.ledger_.total()[0]
    assert claimed == pytest.approx(EPS)
    res = audit(mechanism, pair, claimed_epsilon=claimed, statistic=statistic, runs=2000, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower < 0.9


def test_sound_sskm_with_half_the_noise_is_flagged(sskm_case, half_noise_sskm):
    mechanism, pair, statistic, _ = sskm_case
    res = audit(mechanism, pair, claimed_epsilon=EPS, statistic=statistic, runs=6000, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 1.2


# ---- pipeline pairs: the steps before the noise


def _schema_from_rows(frame: pd.DataFrame) -> PublicSchema:
    """The leak put back: bounds and categories read from the rows, labelled as declared."""
    cols = []
    for c in frame.columns:
        if pd.api.types.is_numeric_dtype(frame[c]):
            lo, hi = float(frame[c].min()), float(frame[c].max())
            cols.append(ColumnSchema(c, "numeric", lower=lo, upper=max(hi, lo + 1e-9), source="declared"))
        else:
            cols.append(ColumnSchema(c, "categorical", categories=tuple(sorted(frame[c].astype(str).unique())),
                                     source="declared"))
    return PublicSchema(tuple(cols), sensitive=("c",))


@pytest.fixture
def categories_and_bounds_from_the_rows(monkeypatch):
    """Mutant: the sound mode's scaling from a schema drafted from the rows (claimed public)."""
    monkeypatch.setattr(SSKMDP, "_sound_table", lambda self, frame: ScaledTable(frame, schema=_schema_from_rows(frame)))


@pytest.fixture
def bounds_from_a_held_out_part(monkeypatch):
    """Mutant: the old sound mode, bounds (and categories) from the un-noised rows, the
    first four held out."""
    monkeypatch.setattr(SSKMDP, "_sound_table",
                        lambda self, frame: ScaledTable(frame, reference=frame.iloc[:4]))


_CONN = mic_connections(PIPE, "c", threshold=0.3, max_rows=None)


def _whole_sskm(dataset, random_state):
    """The whole sound pipeline: scaling, noisy map, release (MIC is information only, reused)."""
    pub = SSKMDP(sensitive="c", schema=SCHEMA, random_state=random_state, **PIPE_SOM)
    return pub.fit(dataset, connections=_CONN).publish(epsilon=EPS)


def _shows_new_category(out: pd.DataFrame) -> float:
    return float(NEW_CATEGORY in set(out["c"].astype(str)))


def _beyond_the_declared_range(out: pd.DataFrame) -> float:
    return float(out["x"].max() > 1.0)


def _either(out: pd.DataFrame) -> float:
    return max(_shows_new_category(out), _beyond_the_declared_range(out))


def _pipeline_pairs():
    return {
        "new category": (new_category_pair(PIPE, "c", index=0, schema=SCHEMA), _shows_new_category),
        "out of range": (out_of_range_pair(PIPE, "x", index=0), _beyond_the_declared_range),
        "held out": (held_out_pair(PIPE, [0, 1, 2, 3], index=0, schema=SCHEMA), _either),
    }


@pytest.mark.parametrize("name", ["new category", "out of range", "held out"])
def test_sound_sskm_passes_the_pipeline_pairs(name):
    pair, statistic = _pipeline_pairs()[name]
    probe = _whole_sskm(pair.d1, 0)
    assert probe is not None
    res = audit(_whole_sskm, pair, claimed_epsilon=EPS, statistic=statistic, runs=PIPE_RUNS, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower == 0.0  # the leaking output never appears, on either side


@pytest.mark.parametrize("name", ["new category", "out of range"])
def test_categories_and_bounds_from_the_rows_are_caught(name, categories_and_bounds_from_the_rows):
    pair, statistic = _pipeline_pairs()[name]
    res = audit(_whole_sskm, pair, claimed_epsilon=EPS, statistic=statistic, runs=PIPE_RUNS, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 1.5


def test_bounds_from_a_held_out_part_are_caught(bounds_from_a_held_out_part):
    pair, statistic = _pipeline_pairs()["held out"]
    res = audit(_whole_sskm, pair, claimed_epsilon=EPS, statistic=statistic, runs=PIPE_RUNS, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 1.5


def _idp_from_schema(dataset, random_state):
    table = ScaledTable(dataset, schema=SCHEMA)
    return table.decode(idp_kmeans(table, 2, EPS, iterations=2, random_state=random_state).published)


def _idp_from_rows(dataset, random_state):
    """Mutant: IDP-KMeans with its categories read from the (training) rows."""
    table = ScaledTable(dataset)
    return table.decode(idp_kmeans(table, 2, EPS, iterations=2, random_state=random_state).published)


def test_idp_kmeans_with_schema_categories_passes_the_new_category_pair():
    pair = new_category_pair(PIPE, "c", index=0, schema=SCHEMA)
    res = audit(_idp_from_schema, pair, claimed_epsilon=EPS, statistic=_shows_new_category, runs=PIPE_RUNS,
                random_state=0)
    assert not res.violation and res.epsilon_lower == 0.0, res.verdict


def test_idp_kmeans_with_categories_from_the_rows_is_caught():
    pair = new_category_pair(PIPE, "c", index=0, schema=SCHEMA)
    res = audit(_idp_from_rows, pair, claimed_epsilon=EPS, statistic=_shows_new_category, runs=PIPE_RUNS,
                random_state=0)
    assert res.violation, res.verdict


# --------------------------------------------------------------------------- IDP-KMeans


@pytest.fixture(scope="module")
def idp_case():
    """One Lloyd iteration from public initial centres 0.88 and 1.0: the release is one
    noisy (counts, sums) vector, so the likelihood ratio is exact (more iterations compose)."""
    X = np.array(PUBLISHED + [0.88, 1.0])[:, None]
    init = np.array([[0.88], [1.0]])
    pair = replace_pair(X, 0, np.array([1.0]),
                        description="record x = 0.93 (cluster at 0.88) replaced by x = 1.0 (cluster at 1.0)")

    def exact(d):
        lab = np.argmin(np.abs(d - init.T), axis=1)
        return np.concatenate([np.bincount(lab, minlength=2), np.bincount(lab, weights=d[:, 0], minlength=2)])

    mu0, mu1 = exact(pair.d0), exact(pair.d1)
    assert np.abs(mu0 - mu1).sum() == pytest.approx(3.93)

    def mechanism(dataset, random_state):
        res = idp_kmeans(dataset, 2, EPS, iterations=1, init=init, random_state=random_state)
        return np.concatenate([res.noisy_counts, res.noisy_sums.ravel()])

    return mechanism, pair, _llr(mu0, mu1), init


def test_idp_kmeans_passes_its_audit(idp_case):
    mechanism, pair, statistic, init = idp_case
    claimed = idp_kmeans(pair.d0, 2, EPS, iterations=1, init=init, random_state=0).ledger.total()[0]
    assert claimed == pytest.approx(EPS)
    res = audit(mechanism, pair, claimed_epsilon=claimed, statistic=statistic, runs=2000, random_state=0)
    assert not res.violation, res.verdict
    assert res.epsilon_lower < 0.9


def test_idp_kmeans_with_the_add_remove_calibration_is_flagged(idp_case, half_noise_idp):
    mechanism, pair, statistic, _ = idp_case
    res = audit(mechanism, pair, claimed_epsilon=EPS, statistic=statistic, runs=6000, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 1.2


# --------------------------------------------------------------------------- SSKM_DP paper


def test_paper_sskm_violates_the_epsilon_it_names():
    """The paper's mode publishes unprotected attributes exactly: the mean of one over the
    release is the data's mean, whatever the map and the noise, so one replaced record is
    told apart every time. The map is refitted on every run (the whole mechanism); the MIC
    step, deterministic on these few rows, is computed once per dataset."""
    rng = np.random.default_rng(0)
    frame = pd.DataFrame({"s": rng.integers(0, 2, 40).astype(float), "u": rng.random(40)})
    pair = replace_pair(frame, 1)  # the extreme record: every attribute at its maximum
    conns = {id(d): mic_connections(d, "s", threshold=0.5, max_rows=None) for d in (pair.d0, pair.d1)}
    assert all(c.protected == ("s",) for c in conns.values())  # u is published without noise

    def mechanism(dataset, random_state):
        pub = PaperSSKMDP(sensitive="s", cs_threshold=0.5, random_state=random_state,
                          **{**SOM, "rows": 2, "cols": 2, "iterations": 300})
        return pub.fit(dataset, connections=conns[id(dataset)]).publish(epsilon=EPS)

    probe = PaperSSKMDP(sensitive="s", cs_threshold=0.5, random_state=0, **SOM)
    probe.fit(pair.d0, connections=conns[id(pair.d0)]).publish(epsilon=EPS)
    claimed = probe.ledger_.nominal()[0]
    assert claimed == pytest.approx(EPS) and not probe.ledger_.is_dp
    res = audit(mechanism, pair, claimed_epsilon=claimed, statistic=lambda out: round(float(out["u"].mean()), 9),
                runs=100, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 2.0


# --------------------------------------------------------------------------- the page's pipeline cases


def _fitted_pipe():
    return SSKMDP(sensitive="c", schema=SCHEMA, random_state=0, **PIPE_SOM).fit(PIPE, connections=_CONN)


def test_pipeline_cases_cover_each_column_and_the_whole_record():
    from core.audit_cases import sskm_sound_pipeline_cases

    cases = sskm_sound_pipeline_cases(_fitted_pipe(), PIPE, epsilon=EPS)
    descriptions = [c.pair.description for c in cases]
    assert len(cases) == 3  # c: a new category; x: far out of range; both at once
    assert any("'c'" in d and "new category" in d for d in descriptions)
    assert any("'x'" in d and "above its maximum" in d for d in descriptions)
    assert "every column" in cases[-1].note
    assert len(sskm_sound_pipeline_cases(_fitted_pipe(), PIPE, epsilon=EPS, columns=())) == 1


def test_pipeline_cases_pass_with_the_schema_and_catch_the_rows_mutant(monkeypatch):
    from core.audit_cases import run_case, sskm_sound_pipeline_cases

    whole = sskm_sound_pipeline_cases(_fitted_pipe(), PIPE, epsilon=EPS, columns=())[0]
    res = run_case(whole, runs=PIPE_RUNS, random_state=0)
    assert not res.violation and res.epsilon_lower == 0.0, res.verdict
    monkeypatch.setattr(SSKMDP, "_sound_table",
                        lambda self, frame: ScaledTable(frame, schema=_schema_from_rows(frame)))
    leaky = sskm_sound_pipeline_cases(_fitted_pipe(), PIPE, epsilon=EPS, columns=())[0]
    res = run_case(leaky, runs=PIPE_RUNS, random_state=0)
    assert res.violation, res.verdict


def test_the_noise_step_case_runs_the_whole_release_and_passes():
    from core.audit_cases import run_case, sskm_sound_case

    pub = SSKMDP(sensitive="c", schema=SCHEMA, map_fit="reference", random_state=0,
                 **{**SOM, "mic_max_rows": None}).fit(PIPE, connections=_CONN, reference=PIPE.iloc[::-1])
    case = sskm_sound_case(pub, PIPE, epsilon=EPS)
    assert case.claimed_epsilon == EPS and "calibrated to 6" in case.note
    res = run_case(case, runs=PIPE_RUNS, random_state=0)
    assert not res.violation, res.verdict
