"""Setup steps (feature selection, a fitted map, detection) as session jobs with progress:
dashboard.shared.widgets.job_view.setup_view."""
from __future__ import annotations

import threading

from streamlit.testing.v1 import AppTest

#: released by the tests: the slow setup below waits for it
GATE = threading.Event()


def _slow_setup_page():
    import uuid

    import streamlit as st

    from dashboard.shared.serving.sweeps import Sweep
    from dashboard.shared.widgets.job_view import setup_view
    from tests.dashboard.test_setup_view import GATE

    key = st.session_state.setdefault("setup_key", str(uuid.uuid4()))  # fresh per test session

    def slow(progress):
        for _ in range(300):  # reports (and so notices Stop) every 0.1 s until released
            progress(0.01, "step 1 of 100")
            if GATE.wait(0.1):
                return "ready"
        raise TimeoutError("the test never released the setup")

    value = setup_view("t_setup", Sweep(("t-setup", key), slow, {}, "Preparing the data", in_process=True),
                       wait=0.3)
    st.write(f"result: {value}")


def _quick_setup_page():
    import uuid

    import streamlit as st

    from dashboard.shared.serving.sweeps import Sweep
    from dashboard.shared.widgets.job_view import setup_view

    key = st.session_state.setdefault("setup_key", str(uuid.uuid4()))
    value = setup_view("t_quick", Sweep(("t-quick", key), lambda progress: 42, {}, "Quick", in_process=True))
    st.write(f"result: {value}")


def _texts(at: AppTest) -> list[str]:
    return [m.value for m in at.markdown]


def _progress_texts(at: AppTest) -> list[str]:
    return [el.proto.text for el in at.get("progress")]


def test_a_long_setup_shows_its_progress_with_time_left_and_the_page_waits():
    GATE.clear()
    at = AppTest.from_function(_slow_setup_page, default_timeout=30).run()
    assert not any(t.startswith("result:") for t in _texts(at))  # the page stopped at the step
    (text,) = _progress_texts(at)
    assert text.startswith("Preparing the data: step 1 of 100, about ") and text.endswith(" s left")
    assert at.button(key="t_setup_stop").label == "Stop"
    job = at.session_state["pux_sweep_jobs"]["t_setup"]
    GATE.set()
    assert job.wait(60)
    at.run()
    assert "result: ready" in _texts(at) and not _progress_texts(at)


def test_stopping_a_setup_offers_to_run_it_again():
    GATE.clear()
    at = AppTest.from_function(_slow_setup_page, default_timeout=30).run()
    at.button(key="t_setup_stop").click().run()
    assert any("was stopped" in i.value for i in at.info)
    assert at.button(key="t_setup_again").label == "Run it again"
    assert not any(t.startswith("result:") for t in _texts(at))


def test_a_quick_setup_is_simply_returned():
    at = AppTest.from_function(_quick_setup_page, default_timeout=30).run()
    assert "result: 42" in _texts(at) and not _progress_texts(at)


def _estimated_page():
    import time

    import streamlit as st

    from dashboard.shared.widgets.job_view import with_estimate

    value = with_estimate(lambda: time.sleep(1.2) or "read", expected_s=2.0, text="Reading 24 MB")
    st.write(f"result: {value}")
    try:
        with_estimate(lambda: int("x"), expected_s=1.5, text="Reading")
    except ValueError:
        st.write("the step's error reached the page")


def test_a_step_without_progress_of_its_own_returns_its_value_and_error():
    at = AppTest.from_function(_estimated_page, default_timeout=30).run()
    assert not at.exception
    assert "result: read" in _texts(at) and "the step's error reached the page" in _texts(at)
    assert not _progress_texts(at)  # the bar is gone once the step ended


def test_the_read_estimate_follows_the_last_big_read():
    from core.data import load_sample
    from dashboard.shared.serving import datasets as cached

    content = cached.csv_bytes(load_sample("census"))
    content = content + b"".join(content.split(b"\n", 1)[1] for _ in range(int(2e6 // len(content)) + 1))
    import time

    start = time.perf_counter()
    cached.parse_upload(content, "big.csv")
    spent = time.perf_counter() - start
    # the next read of the same size is expected to take what this one took (measured inside)
    assert 0 < cached.expected_read_seconds(len(content)) <= spent
    assert cached.expected_read_seconds(2 * len(content)) == 2 * cached.expected_read_seconds(len(content))
