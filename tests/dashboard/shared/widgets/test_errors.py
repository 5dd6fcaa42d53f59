"""page_errors: one escaped sentence for the user's problems; anything else, Streamlit's
control flow included, is left to propagate (as the try/except blocks it replaced did)."""
from __future__ import annotations

from streamlit.runtime.scriptrunner_utils.exceptions import RerunException, StopException
from streamlit.testing.v1 import AppTest

from dashboard.shared.widgets.errors import PAGE_ERRORS


def _value_error_page():
    import streamlit as st

    from dashboard.shared.widgets.errors import page_errors

    with page_errors():
        raise ValueError("Column *x* is missing")
    st.write("after the block")


def _runtime_error_page():
    from dashboard.shared.widgets.errors import page_errors

    with page_errors():
        raise RuntimeError("boom")


def _stop_page():
    import streamlit as st

    from dashboard.shared.widgets.errors import page_errors

    with page_errors():
        st.stop()
    st.write("never shown")


def _stop_after_error_page():
    import streamlit as st

    from dashboard.shared.widgets.errors import page_errors

    with page_errors(stop=True):
        raise TypeError("wrong type")
    st.write("never shown")


def test_value_error_shows_one_escaped_error_and_the_page_goes_on():
    at = AppTest.from_function(_value_error_page).run()
    assert not at.exception
    assert [e.value for e in at.error] == [r"Column \*x\* is missing"]
    assert [m.value for m in at.markdown] == ["after the block"]


def test_unexpected_error_is_not_caught():
    at = AppTest.from_function(_runtime_error_page).run()
    assert len(at.exception) == 1  # Streamlit's own box (details redacted by the config)
    assert not at.error


def test_st_stop_inside_passes_through():
    at = AppTest.from_function(_stop_page).run()
    assert not at.exception
    assert not at.error
    assert not at.markdown


def test_stop_true_ends_the_page_after_the_error():
    at = AppTest.from_function(_stop_after_error_page).run()
    assert not at.exception
    assert [e.value for e in at.error] == ["wrong type"]
    assert not at.markdown


def test_streamlit_control_flow_is_not_caught():
    assert not issubclass(StopException, PAGE_ERRORS)
    assert not issubclass(RerunException, PAGE_ERRORS)


def _data_error_page():
    import streamlit as st

    from core.validation import DataError
    from dashboard.shared.widgets.errors import page_errors

    with page_errors():
        raise DataError("Every class needs at least 3 records for 3-fold accuracy.")
    st.markdown("after the block")


def test_a_data_error_is_a_warning_for_the_user_and_the_page_goes_on():
    """The real-table sweep: what a table cannot give (a rare class, a one-class label) is the
    user's step to take, shown as a warning, not as an error box."""
    at = AppTest.from_function(_data_error_page).run()
    assert not at.exception and not at.error
    assert [w.value for w in at.warning] == [r"Every class needs at least 3 records for 3\-fold accuracy\."]
    assert [m.value for m in at.markdown] == ["after the block"]
