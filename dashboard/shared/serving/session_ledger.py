"""The session's ledger: every release that left the app in this session, and its total."""
from __future__ import annotations

import streamlit as st

from core.privacy.ledger import PrivacyLedger


SESSION_LEDGER_KEY = "pux_session_ledger"


RELEASES_KEY = "pux_releases"



def session_ledger() -> PrivacyLedger:
    """Everything this session has released (downloaded), composed sequentially."""
    ledger = st.session_state.get(SESSION_LEDGER_KEY)
    if not isinstance(ledger, PrivacyLedger):
        ledger = st.session_state[SESSION_LEDGER_KEY] = PrivacyLedger()
    return ledger



def record_release(ledger: PrivacyLedger, label: str) -> PrivacyLedger:
    """Add one release that leaves the app to the session's ledger; returns the session's."""
    session = session_ledger()
    n = st.session_state.get(RELEASES_KEY, 0) + 1
    st.session_state[RELEASES_KEY] = n
    session.extend(ledger, prefix=f"release {n} ({label})")
    return session



def released_count() -> int:
    """How many releases this session has prepared for download."""
    return int(st.session_state.get(RELEASES_KEY, 0))



def session_total_text() -> str:
    """'Released this session: epsilon = 3 over 2 releases' for the sidebar."""
    n = released_count()
    if n == 0:
        return "Released this session: nothing yet (epsilon = 0)."
    ledger = session_ledger()
    if not ledger.is_dp:
        return (f"Released this session: {n} release(s), at least one not differentially private, "
                "so the session has no overall guarantee.")
    eps, dlt = ledger.total()
    return (f"Released this session: epsilon = {eps:.4g}" + (f", delta = {dlt:.2g}" if dlt else "")
            + f" over {n} release(s) (sequential composition).")
