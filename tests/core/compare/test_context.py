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
