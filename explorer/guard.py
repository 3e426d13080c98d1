"""Refusing floods of reruns from one session: a token bucket per session (``BURST`` runs at once,
refilled at ``RATE`` a second). A run beyond it shows a warning and stops before the sidebar and
the page are computed, so one client re-sending widget states in a loop cannot take the worker's
time from the class; a person changing controls by hand stays far below the rate. The buckets live
outside st.session_state: a write there at the top of every run raced the lesson bar's button
shortcuts (PageDown on a lesson step was lost in the browser test)."""
import threading
import time

import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.i18n import t

RATE = 5.0  # runs a second, sustained
BURST = 30.0
_BUCKETS: dict[str, tuple[float, float]] = {}  # session id -> (tokens, time): outside st.session_state
_LOCK = threading.Lock()


def limit_reruns() -> None:
    """Spend one token of this session's bucket (tokens = min(BURST, tokens + RATE * elapsed));
    with none left, warn and end this run (st.stop(): widget values are kept)."""
    ctx = get_script_run_ctx()
    session = ctx.session_id if ctx else ""
    now = time.monotonic()
    with _LOCK:
        tokens, last = _BUCKETS.get(session, (BURST, now))
        tokens = min(BURST, tokens + RATE * (now - last))
        allowed = tokens >= 1.0
        _BUCKETS[session] = (tokens - 1.0 if allowed else tokens, now)
        if len(_BUCKETS) > 1000:  # sessions that ended: their buckets refilled long ago
            for key in [k for k, (_, seen) in _BUCKETS.items() if now - seen > 60.0]:
                del _BUCKETS[key]
    if not allowed:
        st.warning(t("guard.too_fast", rate=RATE), icon=":material/speed:")
        st.stop()
