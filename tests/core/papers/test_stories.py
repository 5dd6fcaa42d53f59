"""core.papers.stories: the Tour's measurements on the built-in samples."""
from __future__ import annotations

import pandas as pd

from core.claims.claim import Claim
from core.papers.stories import STORIES, cdp_story


def test_cdp_story_is_seeded():
    a, b = cdp_story(random_state=3, repetitions=1, audit_runs=50), cdp_story(random_state=3, repetitions=1,
                                                                              audit_runs=50)
    pd.testing.assert_frame_equal(a.curve, b.curve)
    assert a.audit.epsilon_lower == b.audit.epsilon_lower


def test_cdp_story_measures_cs_at_most_gs_and_checks_fig4():
    s = cdp_story(random_state=0, repetitions=1, audit_runs=50)
    assert 1.0 <= s.sensitivity["Proposed"] <= s.sensitivity["Group"]
    assert isinstance(s.claim, Claim) and s.claim.figure.endswith("Fig. 4")
    assert set(s.curve["scheme"]) == {"Non-private", "Group", "Zhang", "Proposed"}
    assert not s.audit.violation


def test_every_story_is_named_and_takes_a_seed_and_progress():
    import inspect

    for key, (fn, title) in STORIES.items():
        params = inspect.signature(fn).parameters
        assert {"random_state", "progress"} <= set(params), key
        assert all(p.kind == p.KEYWORD_ONLY for p in params.values()), key
        assert title


def test_cdp_story_reads_every_accuracy_against_the_constant_guess():
    s = cdp_story(random_state=0, repetitions=1, audit_runs=50)
    names = [r.name for r in s.references]
    assert names == ["majority class (constant guess)", "non-private model"]
    guess = s.references[0]
    assert 0.5 <= guess.value <= 1 and guess.low <= guess.value <= guess.high
    for note in s.reference_notes:  # a scheme no better than the guess is said in words
        assert "constant guess" in note
    if s.claim.holds is None and "majority class" in s.claim.finding:
        assert all(guess.covers(v) for v in s.curve[s.curve["scheme"] != "Non-private"]
                   .groupby("scheme")["accuracy_mean"].mean())
