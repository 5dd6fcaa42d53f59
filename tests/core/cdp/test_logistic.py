"""CDP-LR (Algorithm 2 of paper 000) and its seven noise methods (Table 3)."""
from __future__ import annotations

import numpy as np
import pytest
from scipy import stats
from sklearn.base import clone

from core.cdp.logistic import CDPLogisticRegression
from core.cdp.noise_placement import NOISE_PLACEMENTS
from core.cdp.schedule import DP_METHODS, NOISE_METHODS, auto_schedule
from core.correlation import correlated_sensitivity
from core.privacy.mechanisms import gaussian_sigma
from core.validation import DataError


def _data(n=300, seed=0):
    rng = np.random.default_rng(seed)
    X = rng.normal(size=(n, 3))
    y = (X @ np.array([1.5, -1.0, 0.5]) + 0.3 * rng.normal(size=n) > 0).astype(int)
    return X, y


def test_non_private_model_learns():
    X, y = _data()
    m = CDPLogisticRegression(noise_method=0, epochs=200, learning_rate=1.0).fit(X, y)
    assert m.score(X, y) > 0.9
    assert len(m.ledger_) == 0


@pytest.mark.parametrize("method", [0, 4])
def test_methods_without_noise_on_the_weights_are_not_dp(method):
    X, y = _data(100)
    m = CDPLogisticRegression(noise_method=method, epsilon=0.8, epochs=5, sensitivity=2.0,
                              random_state=0).fit(X, y)
    assert m.ledger_.is_dp is False
    assert m.ledger_.total()[0] == float("inf")
    assert "Not differentially private" in m.ledger_.describe()


def test_same_seed_same_weights_and_other_seed_other_weights():
    X, y = _data()
    kw = dict(noise_method=1, epsilon=1.0, sensitivity=3.0)
    a = CDPLogisticRegression(random_state=5, **kw).fit(X, y).coef_
    b = CDPLogisticRegression(random_state=5, **kw).fit(X, y).coef_
    c = CDPLogisticRegression(random_state=6, **kw).fit(X, y).coef_
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


@pytest.mark.parametrize("method", [1, 2, 3, 6])
def test_ledger_adds_up_to_the_budget(method):
    X, y = _data(100)
    m = CDPLogisticRegression(noise_method=method, epsilon=0.8, epochs=10, sensitivity=2.0,
                              delta=1e-5, random_state=0).fit(X, y)
    assert m.ledger_.is_dp
    eps, delta = m.ledger_.total()
    assert eps == pytest.approx(0.8)
    assert delta == pytest.approx(1e-5 if method == 2 else 0.0)


def test_method_five_delivers_half_the_budget_because_n_is_public():
    X, y = _data(100)
    m = CDPLogisticRegression(noise_method=5, epsilon=0.8, epochs=10, sensitivity=2.0,
                              random_state=0).fit(X, y)
    assert m.ledger_.is_dp
    assert m.ledger_.total() == (pytest.approx(0.4), 0.0)
    assert any("sample size" in a for a in m.ledger_.assumptions)


def test_ledger_says_the_sensitivity_is_read_from_the_data():
    X, y = _data(80)
    m = CDPLogisticRegression(noise_method=1, random_state=0).fit(X, y)
    assert not m.ledger_.is_dp
    assert any("computed from your records" in r for r in m.ledger_.not_dp_reasons)
    assert not any("taken as public" in a for a in m.ledger_.assumptions)


def test_a_sensitivity_marked_as_read_from_the_data_is_not_dp():
    X, y = _data(80)
    m = CDPLogisticRegression(noise_method=1, sensitivity=8.0, sensitivity_source="read from data",
                              random_state=0).fit(X, y)
    assert not m.ledger_.is_dp and "computed from your records" in m.ledger_.describe()


def test_a_declared_bound_keeps_the_guarantee_and_says_what_it_covers():
    X, y = _data(80)
    group = CDPLogisticRegression(noise_method=1, sensitivity=45.0, random_state=0).fit(X, y)
    one = CDPLogisticRegression(noise_method=1, sensitivity=1.0, random_state=0).fit(X, y)
    assert group.ledger_.is_dp and any("group of up to 45" in a for a in group.ledger_.assumptions)
    assert one.ledger_.is_dp and any("covers one record" in a for a in one.ledger_.assumptions)


def test_an_unknown_sensitivity_source_is_refused():
    X, y = _data(80)
    with pytest.raises(ValueError, match="sensitivity_source"):
        CDPLogisticRegression(sensitivity=2.0, sensitivity_source="guessed").fit(X, y)


@pytest.mark.parametrize("method", [1, 2, 3, 5, 7])
def test_every_noise_entry_says_it_was_drawn_by_the_exact_sampler(method):
    X, y = _data(80)
    m = CDPLogisticRegression(noise_method=method, sensitivity=2.0, epochs=2, epsilon=1.0,
                              random_state=0).fit(X, y)
    assert m.ledger_.entries and all("exact discrete" in e.noise for e in m.ledger_.entries)
    assert not m.ledger_.floating_point


def test_output_perturbation_says_its_noise_is_floating_point():
    X, y = _data(80)
    m = CDPLogisticRegression(noise_method=6, sensitivity=1.0, random_state=0).fit(X, y)
    assert m.ledger_.floating_point and "floating-point" in m.ledger_.describe()



def _bias_noise(method, scale_factor, n=40, reps=300):
    """One epoch, lr 1, no features: w_bias = -(mean(p - y) + noise)."""
    X = np.zeros((n, 1))
    y = np.r_[np.ones(n // 4), np.zeros(n - n // 4)].astype(int)
    expected = -(0.5 - y.mean())
    draws = [
        CDPLogisticRegression(noise_method=method, epsilon=0.5, epochs=1, learning_rate=1.0,
                              sensitivity=3.0, clip_norm=1.0, delta=1e-4,
                              random_state=s).fit(X, y).intercept_[0] - expected
        for s in range(reps)
    ]
    return -np.asarray(draws) / scale_factor


def test_mean_gradient_laplace_noise_has_the_stated_scale():
    n, scale = 40, 2 * 3.0 * 1.0 / (40 * 0.5)  # 2 * CS * clip / (N * epsilon): replacement
    assert stats.kstest(_bias_noise(1, scale, n), "laplace").pvalue > 0.01
    assert stats.kstest(_bias_noise(1, 2 * scale, n), "laplace").pvalue < 0.01


def test_mean_gradient_gaussian_noise_has_the_stated_sigma():
    sigma = gaussian_sigma(sensitivity=2 * 3.0 / 40, epsilon=0.5, delta=1e-4)
    assert stats.kstest(_bias_noise(2, sigma), "norm").pvalue > 0.01
    assert stats.kstest(_bias_noise(2, 2 * sigma), "norm").pvalue < 0.01


def test_one_record_moves_the_summed_gradient_by_at_most_the_clip():
    X, y = _data(50)
    X[0] *= 1000.0  # an outlier: its raw gradient term is huge
    kw = dict(noise_method=0, epochs=1, learning_rate=1.0, clip_norm=0.5)
    full = CDPLogisticRegression(**kw).fit(X, y)
    rest = CDPLogisticRegression(**kw).fit(X[1:], y[1:])
    g_full = -50 * np.r_[full.coef_.ravel(), full.intercept_]
    g_rest = -49 * np.r_[rest.coef_.ravel(), rest.intercept_]
    assert np.abs(g_full - g_rest).sum() <= 0.5 + 1e-9


def test_sample_size_noise_only_rescales_the_first_step():
    X, y = _data()
    kw = dict(epochs=1, learning_rate=1.0, sensitivity=5.0, epsilon=0.5)
    w0 = CDPLogisticRegression(noise_method=0, **kw).fit(X, y)
    w4 = CDPLogisticRegression(noise_method=4, random_state=1, **kw).fit(X, y)
    a, b = np.r_[w0.coef_.ravel(), w0.intercept_], np.r_[w4.coef_.ravel(), w4.intercept_]
    assert a @ b / np.linalg.norm(a) / np.linalg.norm(b) == pytest.approx(1.0)


def test_output_perturbation_noise_shrinks_with_epsilon():
    X, y = _data()
    kw = dict(noise_method=6, sensitivity=2.0, l2=0.1)
    ref = CDPLogisticRegression(epsilon=1e9, random_state=0, **kw).fit(X, y).coef_
    dist = lambda eps: np.mean([
        np.linalg.norm(CDPLogisticRegression(epsilon=eps, random_state=s, **kw).fit(X, y).coef_ - ref)
        for s in range(20)
    ])
    assert dist(0.1) > 5 * dist(10.0)


def test_string_sensitivity_is_computed_from_the_record_matrix():
    X, y = _data(120)
    R = np.random.default_rng(1).normal(size=(120, 4))
    m = CDPLogisticRegression(sensitivity="group", threshold=0.6, random_state=0).fit(X, y, record_X=R)
    assert m.sensitivity_ == correlated_sensitivity(R, threshold=0.6).group
    m = CDPLogisticRegression(sensitivity="correlated", threshold=0.6, random_state=0).fit(X, y, record_X=R)
    assert m.sensitivity_ == pytest.approx(correlated_sensitivity(R, threshold=0.6).correlated)


def test_sparse_and_dense_input_give_the_same_model():
    from scipy import sparse

    X, y = _data()
    X = np.where(X > 0.5, 1.0, 0.0)
    kw = dict(noise_method=1, epsilon=2.0, sensitivity=2.0, random_state=3)
    a = CDPLogisticRegression(**kw).fit(X, y).coef_
    b = CDPLogisticRegression(**kw).fit(sparse.csr_matrix(X), y).coef_
    np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_predict_proba_and_clone():
    X, y = _data()
    m = CDPLogisticRegression(noise_method=0).fit(X, y)
    p = m.predict_proba(X)
    np.testing.assert_allclose(p.sum(axis=1), 1.0)
    np.testing.assert_array_equal(m.predict(X), m.classes_[(p[:, 1] >= 0.5).astype(int)])
    assert clone(m).get_params()["noise_method"] == 0


@pytest.mark.parametrize(
    "kwargs, exc",
    [
        ({"noise_method": 8}, ValueError),
        ({"noise_method": "1"}, TypeError),
        ({"epsilon": 0.0}, ValueError),
        ({"epsilon": float("nan")}, ValueError),
        ({"sensitivity": "global"}, ValueError),
        ({"sensitivity": -1.0}, ValueError),
        ({"learning_rate": 0.0}, ValueError),
        ({"clip_norm": 0.0}, ValueError),
        ({"epochs": 0}, ValueError),
        ({"noise_method": 6, "l2": 0.0}, ValueError),
    ],
)
def test_bad_parameters_are_refused(kwargs, exc):
    X, y = _data(50)
    with pytest.raises(exc):
        CDPLogisticRegression(**{"sensitivity": 1.0, **kwargs}).fit(X, y)


def test_bad_data_is_refused():
    X, y = _data(50)
    with pytest.raises(DataError):
        CDPLogisticRegression(sensitivity=1.0).fit(X, np.zeros(50))
    X[3, 1] = np.inf
    with pytest.raises(DataError):
        CDPLogisticRegression(sensitivity=1.0).fit(X, y)


def test_unknown_noise_method_names_the_valid_choices():
    X, y = _data(50)
    message = r"noise_method must be one of 0, 1, 2, 3, 4, 5, 6, 7; got 8\. The methods \(Table 3 and beyond\)"
    with pytest.raises(ValueError, match=message) as err:
        CDPLogisticRegression(noise_method=8, sensitivity=1.0).fit(X, y)
    for m, placement in NOISE_PLACEMENTS.items():
        assert f"{m} ({placement.name})" in str(err.value)


@pytest.mark.parametrize("method", sorted(NOISE_PLACEMENTS))
def test_each_placement_says_what_the_fitted_ledger_reports(method):
    placement = NOISE_PLACEMENTS[method]
    X, y = _data(60)
    m = CDPLogisticRegression(noise_method=method, epsilon=0.8, epochs=4, sensitivity=2.0,
                              random_state=0).fit(X, y)
    assert m.ledger_.is_dp is placement.is_dp
    assert (method in DP_METHODS) is placement.is_dp
    assert NOISE_METHODS[method] == placement.name
    spends = 0 if not placement.ledger_label else 1 if placement.step is None or placement.accountant else 4
    assert len(m.ledger_) == spends
    assert all(e.label.endswith(placement.ledger_label) for e in m.ledger_.entries)


# ---------------------------------------------------------------- automatic schedule
def test_auto_schedule_reads_no_private_data():
    """Same N, d, epsilon, sensitivity and clip: same epochs, step and momentum whatever X and y are."""
    rng = np.random.default_rng(0)
    kw = dict(epsilon=0.7, sensitivity=2.0, clip_norm=0.5, random_state=0)
    schedules = set()
    for seed in range(4):
        X = np.random.default_rng(seed).normal(scale=1 + 10 * seed, size=(400, 5))
        y = rng.integers(0, 2, size=400) if seed % 2 else (X[:, 0] > 0).astype(int)
        m = CDPLogisticRegression(**kw).fit(X, y)
        schedules.add((m.epochs_, m.learning_rate_, m.momentum_))
    assert len(schedules) == 1
    (schedule,) = schedules
    assert schedule == auto_schedule(n=400, epsilon=0.7, sensitivity=2.0, clip_norm=0.5, noise_method=1)


def test_auto_schedule_grows_with_the_budget_per_correlated_group():
    e = [auto_schedule(n=34_000, epsilon=eps, sensitivity=1.0, clip_norm=1.0)[0] for eps in (0.1, 1.0, 10.0)]
    assert e == sorted(e) and e[0] < e[-1]
    assert auto_schedule(n=34_000, epsilon=1.0, sensitivity=40.0, clip_norm=1.0)[0] < e[1]
    assert auto_schedule(n=10, epsilon=0.01, sensitivity=50.0, clip_norm=1.0)[0] == 1  # at least one step
    assert auto_schedule(n=10**9, epsilon=10.0, sensitivity=1.0, clip_norm=1.0)[0] == 100
    # the step scales with 1 / clip; plain gradient descent when the step is given
    assert auto_schedule(n=1000, epsilon=1.0, sensitivity=1.0, clip_norm=0.5)[1] == pytest.approx(
        2 * auto_schedule(n=1000, epsilon=1.0, sensitivity=1.0, clip_norm=1.0)[1])
    X, y = _data(100)
    m = CDPLogisticRegression(epochs=3, learning_rate=2.0, sensitivity=1.0, random_state=0).fit(X, y)
    assert (m.epochs_, m.learning_rate_, m.momentum_) == (3, 2.0, 0.0)


@pytest.mark.parametrize("method", [1, 2, 3, 5, 6, 7])
def test_auto_schedule_keeps_the_ledger_at_the_budget(method):
    X, y = _data(300)
    m = CDPLogisticRegression(noise_method=method, epsilon=0.8, sensitivity=2.0, random_state=0).fit(X, y)
    eps, delta = m.ledger_.total()
    assert eps == pytest.approx(0.8 * NOISE_PLACEMENTS[method].spent_share, rel=1e-4)
    assert eps <= 0.8 * NOISE_PLACEMENTS[method].spent_share + 1e-12
    expected_entries = 1 if method in (6, 7) else m.epochs_
    assert len(m.ledger_) == expected_entries


def test_auto_noise_scale_is_the_plain_gradient_descent_one():
    """Momentum is post-processing: each epoch's noise is still 2 CS clip epochs / (N eps)."""
    n, eps = 40, 0.5
    epochs, _, _ = auto_schedule(n=n, epsilon=eps, sensitivity=3.0, clip_norm=1.0)
    assert epochs == 1  # one step: the bias is -lr * (mean(p - y) + Laplace noise)
    X = np.zeros((n, 1))
    y = np.r_[np.ones(n // 4), np.zeros(n - n // 4)].astype(int)
    lr = auto_schedule(n=n, epsilon=eps, sensitivity=3.0, clip_norm=1.0)[1]
    scale = 2 * 3.0 * 1.0 / (n * eps)
    noise = np.array([CDPLogisticRegression(epsilon=eps, sensitivity=3.0, random_state=s).fit(X, y).intercept_[0]
                      for s in range(300)]) / -lr - (0.5 - y.mean())
    assert stats.kstest(noise / scale, "laplace").pvalue > 0.01
    assert stats.kstest(noise / (2 * scale), "laplace").pvalue < 0.01


@pytest.mark.parametrize("name", ["supplier", "census"])
def test_defaults_beat_the_majority_class_on_the_samples(name):
    """CDPLogisticRegression with no schedule chosen learns at epsilon 1 (ordinary DP, sensitivity 1)."""
    from sklearn.model_selection import train_test_split

    from core.cdp.baselines import model_matrix
    from core.data import load_sample

    ds = load_sample(name)
    X = model_matrix(ds, ds.features)
    y = ds.frame[ds.label].astype(str).to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, random_state=0, stratify=y)
    majority = max(np.mean(yte == c) for c in np.unique(y))
    m = CDPLogisticRegression(epsilon=1.0, sensitivity=1.0, random_state=0).fit(Xtr, ytr)
    assert m.ledger_.total()[0] == pytest.approx(1.0)
    assert m.score(Xte, yte) > majority + 0.05


@pytest.mark.parametrize("name", ["supplier", "census"])
def test_page_default_preset_beats_the_constant_guess_with_cs(name):
    """The page's default preset on the Proposed scheme (CS) at a budget it can afford ranks the
    test records far above a constant guess (ROC AUC 0.5); on the supplier table its accuracy
    also beats the majority class. On the census sample CS is 95, so epsilon 10 is about 0.1 a
    record: the automatic schedule trains one epoch, the model ranks well (AUC 0.81-0.88 over
    five seeds) but its intercept stays near 0 and it predicts the majority class for almost
    every record (accuracy at the guess, balanced accuracy 0.50-0.56): a known limit of the
    paper's scheme that accuracy alone hides."""
    from core.cdp.baselines import fit_scheme, prepare_schemes
    from core.cdp.schedule import PRESETS
    from core.data import load_sample
    from core.evaluation.classification import binary_scores

    setup = prepare_schemes(load_sample(name), random_state=0)
    assert PRESETS["sensible"]["epochs"] == "auto" and PRESETS["sensible"]["learning_rate"] == "auto"
    _, Xte, _, yte = setup.matrices("Proposed")
    majority = max(np.mean(yte == c) for c in np.unique(yte))
    fits = [fit_scheme(setup, "Proposed", epsilon=10.0, random_state=s) for s in range(5)]
    auc = np.mean([binary_scores(yte == m.classes_[1], m.decision_function(Xte))["auc"] for m, _ in fits])
    assert auc > 0.75
    if name == "supplier":
        assert np.mean([acc for _, acc in fits]) > majority + 0.02


@pytest.mark.parametrize("kwargs", [{"epochs": "many"}, {"learning_rate": "fast"}, {"momentum": 1.0},
                                    {"momentum": -0.1}])
def test_bad_schedule_values_are_refused(kwargs):
    X, y = _data(50)
    with pytest.raises(ValueError):
        CDPLogisticRegression(sensitivity=1.0, **kwargs).fit(X, y)


def test_auto_noise_method_reads_only_n_epsilon_and_the_sensitivity():
    """"auto" is the Gaussian method 7 once N eps / sensitivity reaches 300, else Laplace 1."""
    from core.cdp.schedule import AUTO_GAUSSIAN_MIN_M, auto_noise_method

    assert auto_noise_method(n=3000, epsilon=0.1, sensitivity=1.0) == 7
    assert auto_noise_method(n=3000, epsilon=1.0, sensitivity=30.0) == 1
    assert auto_noise_method(n=int(AUTO_GAUSSIAN_MIN_M), epsilon=1.0, sensitivity=1.0) == 7
    X, y = _data(400)
    assert CDPLogisticRegression(epsilon=1.0, sensitivity=1.0, random_state=0).fit(X, y).noise_method_ == 7
    small = CDPLogisticRegression(epsilon=1.0, sensitivity=2.0, random_state=0).fit(X, y)
    assert small.noise_method_ == 1
    assert small.ledger_.total()[1] == 0.0  # Laplace: pure epsilon-DP


def test_auto_noise_method_gives_the_explicit_methods_model():
    X, y = _data(400)
    auto = CDPLogisticRegression(epsilon=1.0, sensitivity=1.0, random_state=3).fit(X, y)
    seven = CDPLogisticRegression(epsilon=1.0, sensitivity=1.0, noise_method=7, random_state=3).fit(X, y)
    np.testing.assert_array_equal(auto.coef_, seven.coef_)
    assert auto.ledger_.total() == seven.ledger_.total()


@pytest.mark.parametrize("epsilon, floor", [(0.1, 0.83), (1.0, 0.843)])
def test_defaults_learn_on_adult_like_tuned_dp_sgd(adult, epsilon, floor):
    """Issue 11's bar at the defaults, ordinary DP (sensitivity 1), 75/25 split: at least 83 %
    at epsilon 0.1 and within 0.5 points of tuned Opacus DP-SGD (84.9 %, benchmarks/bench_peers.py)
    at epsilon 1, on one seed."""
    from sklearn.model_selection import train_test_split

    from core.cdp.baselines import model_matrix

    ds = adult.dropna()
    X = model_matrix(ds, ds.features)
    y = ds.frame[ds.label].astype(str).str.strip().str.rstrip(".").to_numpy()
    Xtr, Xte, ytr, yte = train_test_split(X, y, test_size=0.25, stratify=y, random_state=0)
    model = CDPLogisticRegression(epsilon=epsilon, sensitivity=1.0, random_state=0).fit(Xtr, ytr)
    assert model.noise_method_ == 7 and model.ledger_.total() == pytest.approx((epsilon, 1e-5))
    assert model.score(Xte, yte) >= floor
