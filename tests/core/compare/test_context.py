"""What a comparison's tasks share (core.compare.context): DCR on every record, or a cap."""
from __future__ import annotations

import numpy as np
import pytest

from core.compare import methods as M
from core.compare.context import RunContext, split
from core.data import load_sample


@pytest.fixture(scope="module")
def parts():
    return split(load_sample("census"), test_size=0.25, max_rows=None, rng=np.random.default_rng(0))


def test_dcr_scores_every_training_record_by_default(parts):
    train, holdout = parts
    ref = RunContext(train, holdout, None, 0).dcr_reference()
    assert len(ref.records_) == len(train.frame)


def test_a_dcr_cap_scores_a_seeded_sample_with_the_full_risk_inside_its_sampling_error(parts):
    train, holdout = parts
    release = train.frame.sample(frac=1.0, random_state=1).reset_index(drop=True)
    full = RunContext(train, holdout, None, 0).dcr_reference().measure(release)
    capped = RunContext(train, holdout, None, 0, dcr_records=400).dcr_reference().measure(release)
    assert capped["n_measured"] == 400 and full["n_measured"] == len(train.frame)
    assert abs(capped["risk"] - full["risk"]) <= 3 * 0.5 / np.sqrt(400)
    again = RunContext(train, holdout, None, 0, dcr_records=400).dcr_reference().measure(release)
    assert again["risk"] == capped["risk"]


def test_mdav_is_left_out_above_its_stated_size_with_a_reason(parts, monkeypatch):
    train, holdout = parts
    ctx = RunContext(train, holdout, None, 0)
    assert M.needs_numeric(ctx) is None
    monkeypatch.setattr(M, "MDAV_MAX_ROWS", len(train.frame) - 1)
    reason = M.needs_numeric(ctx)
    assert "square of the rows" in reason and "left out above" in reason


def test_the_training_part_is_recognised_by_its_values_not_its_object(parts):
    train, holdout = parts
    ctx = RunContext(train, holdout, None, 0)
    assert ctx.is_training_table(train.frame) and ctx.is_training_table(train.frame.copy())
    changed = train.frame.copy()
    changed.iloc[0, 0] = changed.iloc[1, 0] if changed.iloc[0, 0] != changed.iloc[1, 0] else changed.iloc[2, 0]
    assert not ctx.is_training_table(changed)
    assert not ctx.is_training_table(train.frame.iloc[:-1])


def test_the_raw_tables_measures_are_computed_once_for_the_references_and_its_release(parts, monkeypatch):
    from core.compare import measures
    from core.compare.references import references
    from core.evaluation import attacks

    train, holdout = parts
    ctx = RunContext(train, holdout, None, 0)
    calls = {"dcr": 0, "utility": 0, "ai": 0}

    def counted(key, fn):
        def wrapper(*args, **kwargs):
            calls[key] += 1
            return fn(*args, **kwargs)
        return wrapper

    monkeypatch.setattr(attacks.DCRReference, "measure", counted("dcr", attacks.DCRReference.measure))
    monkeypatch.setattr(measures, "score_task", counted("utility", measures.score_task))
    monkeypatch.setattr(attacks, "attribute_inference", counted("ai", attacks.attribute_inference))
    refs = references(ctx, 7, models=False)
    row = measures.measure_table(ctx, M.raw_table(ctx, None, None, 0), 7)
    assert calls == {"dcr": 1, "utility": 1, "ai": len(train.sensitive)}
    assert row["utility"] == refs["utility"]["nonprivate"]
    assert row["dcr_excess"] == max(0.0, refs["risks"]["dcr_excess"]["raw"])
    measures.measure_table(ctx, M.raw_table(ctx, None, None, 0), 8)  # another seed: measured again
    assert calls["utility"] == 2 and calls["dcr"] == 1  # DCR does not depend on the seed


def test_the_non_private_logistic_regression_is_fitted_once(parts):
    train, holdout = parts
    ctx = RunContext(train, holdout, None, 0)
    assert M.logistic_model(ctx, None, None, 1).model is M.nonprivate_logistic(ctx)
