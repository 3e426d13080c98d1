"""Refusing floods of reruns from one session: a token bucket per session (``BURST`` runs at once,
refilled at ``RATE`` a second). A run beyond it shows a warning and stops before the sidebar and
the page are computed, so one client re-sending widget states in a loop cannot take the worker's
time from the class; a person changing controls by hand stays far below the rate."""

import time

import streamlit as st

from explorer.serving import client, limits
from explorer.i18n import t

RATE = 5.0  # runs a second, sustained
BURST = 30.0


def limit_reruns() -> None:
    """Spend one token of this session's bucket (tokens = min(BURST, tokens + RATE * elapsed));
    with none left, warn and end this run (st.stop(): widget values are kept)."""
    now = time.monotonic()
    tokens, last = st.session_state.get("_rerun_budget", (BURST, now))
    tokens = min(BURST, tokens + RATE * (now - last))
    if tokens < 1.0:
        st.session_state["_rerun_budget"] = (tokens, now)
        st.warning(t("guard.too_fast", rate=RATE), icon=":material/speed:")
        st.stop()
    st.session_state["_rerun_budget"] = (tokens - 1.0, now)
    address = (
        client.address()
    )  # the sessions of one client together (explorer/limits.py): fresh sessions get no fresh budget
    if address and not limits.reruns_per_client().take(address):
        st.warning(t("guard.too_fast_client", rate=limits.CLIENT_RERUN_RATE), icon=":material/speed:")
        st.stop()
