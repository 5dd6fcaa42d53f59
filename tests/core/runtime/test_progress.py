"""core.runtime.progress: one callback type, stages that fill their share of the whole."""
from __future__ import annotations

import pytest

from core.runtime.progress import report, stage


def test_report_without_a_callback_does_nothing():
    report(None, 0.5, "half")  # no error, nothing to call


def test_report_clips_the_fraction_to_zero_one():
    seen = []
    report(lambda f, m: seen.append(f), 1.5, "over")
    report(lambda f, m: seen.append(f), -0.1, "under")
    assert seen == [1.0, 0.0]


def test_a_stage_fills_its_share_of_the_whole_with_its_label():
    seen = []
    inner = stage(lambda f, m: seen.append((f, m)), 0.2, 0.6, "Feature selection")
    inner(0.0, "start")
    inner(0.5, "half")
    inner(1.0, "")
    assert seen == [(0.2, "Feature selection: start"), (pytest.approx(0.4), "Feature selection: half"),
                    (pytest.approx(0.6), "Feature selection")]


def test_stages_nest():
    seen = []
    outer = stage(lambda f, m: seen.append(f), 0.5, 1.0)
    stage(outer, 0.0, 0.5)(1.0, "inner done")
    assert seen == [pytest.approx(0.75)]


def test_a_stage_of_no_callback_is_none():
    assert stage(None, 0.0, 0.5, "anything") is None


def test_a_stage_outside_zero_one_is_refused():
    with pytest.raises(ValueError, match="0 <= start <= end <= 1"):
        stage(lambda f, m: None, 0.6, 0.4)


def test_watch_raises_at_the_report_after_stop_is_set():
    import threading

    from core.runtime.progress import Stopped, watch

    seen, stop = [], threading.Event()
    watched = watch(lambda f, m: seen.append(f), stop)
    watched(0.5, "half")
    stop.set()
    with pytest.raises(Stopped):
        watched(0.6, "more")
    assert seen == [0.5]


def test_watch_without_stop_gives_the_callback_back():
    from core.runtime.progress import watch

    def callback(fraction, message):
        return None

    assert watch(callback, None) is callback and watch(None, None) is None


def test_watch_refuses_a_stop_that_is_not_an_event():
    from core.runtime.progress import watch

    with pytest.raises(TypeError, match="threading.Event"):
        watch(None, "stop")
