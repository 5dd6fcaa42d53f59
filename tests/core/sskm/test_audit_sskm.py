"""Neighbouring-dataset audits of paper 003's mechanisms (core.audit).

Each audit runs a mechanism many times on two datasets that differ in one record (the
project's relation: one record replaced by any other) and bounds epsilon from below. The
pairs are built near the worst case of the sound calibration: with one attribute in [0, 1]
(m = 1) the (counts, sums) vector has L1 sensitivity 2(m + 1) = 4, and the replaced record
moves from one cluster to the other while both its old and new values are near 1, so the
vector moves by 3.93 of those 4. The statistic is the log-likelihood ratio of the two
Laplace vectors (up to the common 1 / scale), the most powerful test; it is rounded to
1e-6 because the raw floating-point sums at the ratio's atoms (every coordinate beyond both
means) differ in their last bits between the two datasets, a floating-point artefact of
textbook Laplace sampling (Mironov 2012) that is not what these audits measure.

- the sound mechanisms (SSKM_DP ``mode="sound"``, IDP-KMeans) show no violation at the
  claimed epsilon, and a mutant with half the noise (the add/remove calibration (m + 1) /
  epsilon) is flagged;
- the paper's SSKM_DP is audited at the epsilon it names and violates it.
"""
from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from core.audit import audit, replace_pair
from core.sskm import baselines
from core.sskm.baselines import idp_kmeans
from core.sskm.connection import mic_connections
from core.sskm.publisher import SSKMDP

EPS = 1.0
#: published values of the one attribute; the first is the record that gets replaced
PUBLISHED = [0.93, 0.1, 0.3, 0.5, 0.7, 0.2, 0.4, 0.6, 0.8, 0.95]
#: held-out values (sound SSKM_DP): two tight groups, so the 1 x 2 map puts one neuron near
#: 0.88 and one near 1.0, with the border near 0.94
HELD_OUT = [0.88] * 5 + [1.0] * 5
SOM = dict(rows=1, cols=2, iterations=400, sfla_params={"iterations": 3, "n_frogs": 6}, mic_max_rows=None)


def _llr(mu0: np.ndarray, mu1: np.ndarray):
    def statistic(y) -> float:
        return round(float(np.sum(np.abs(y - mu0) - np.abs(y - mu1))), 6)
    return statistic


@pytest.fixture
def half_noise_sskm(monkeypatch):
    """Mutant: the sound SSKM_DP with the add/remove scale (m + 1) / epsilon, half the noise."""
    monkeypatch.setattr(SSKMDP, "_sound_scale", lambda self, eps: (self.table_.X.shape[1] + 1) / eps)


@pytest.fixture
def half_noise_idp(monkeypatch):
    """Mutant: IDP-KMeans with its old add/remove calibration (m + 1) / epsilon_t."""
    monkeypatch.setattr(baselines, "idp_kmeans_scale", lambda m, eps_t: (m + 1) / eps_t)


# --------------------------------------------------------------------------- SSKM_DP sound


@pytest.fixture(scope="module")
def sskm_case():
    """The pair differs only in the published part (record 10 of 20, rows 0-9 held out).

    A record in the held-out part is outside the guarantee by design (it is public and never
    published), so the audit replaces a published record. Because the map, the MIC step
    and the bounds read only the held-out rows (identical in both datasets), each dataset's
    publisher is fitted once and the mechanism is its noisy release: the same function of
    the dataset as a fit per run, at a fraction of the cost.
    """
    frame = pd.DataFrame({"x": HELD_OUT + PUBLISHED})
    hold = np.arange(len(HELD_OUT))
    pair = replace_pair(frame, len(HELD_OUT), {"x": 1.0},
                        description="published record x = 0.93 (neuron near 0.88) replaced by x = 1.0 "
                                    "(the other neuron)")
    pubs = {}
    for d in (pair.d0, pair.d1):
        pubs[id(d)] = SSKMDP(sensitive="x", bounds={"x": (0.0, 1.0)}, random_state=0,
                             **SOM).fit(d, holdout_index=hold)
    p0, p1 = pubs[id(pair.d0)], pubs[id(pair.d1)]
    assert np.array_equal(p0.som_.weights_, p1.som_.weights_)  # one map: only held-out rows
    mu0 = np.concatenate([p0._counts, p0._sums.ravel()])
    mu1 = np.concatenate([p1._counts, p1._sums.ravel()])
    assert np.abs(mu0 - mu1).sum() == pytest.approx(3.93)  # of the sensitivity 2(m + 1) = 4

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
        pub = SSKMDP(sensitive="s", mode="paper", cs_threshold=0.5, random_state=random_state,
                     **{**SOM, "rows": 2, "cols": 2, "iterations": 300})
        return pub.fit(dataset, connections=conns[id(dataset)]).publish(epsilon=EPS)

    probe = SSKMDP(sensitive="s", mode="paper", cs_threshold=0.5, random_state=0, **SOM)
    probe.fit(pair.d0, connections=conns[id(pair.d0)]).publish(epsilon=EPS)
    claimed = probe.ledger_.nominal()[0]
    assert claimed == pytest.approx(EPS) and not probe.ledger_.is_dp
    res = audit(mechanism, pair, claimed_epsilon=claimed, statistic=lambda out: round(float(out["u"].mean()), 9),
                runs=100, random_state=0)
    assert res.violation, res.verdict
    assert res.epsilon_lower > 2.0
