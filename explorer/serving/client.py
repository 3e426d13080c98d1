"""Who is asking, in a way a client cannot forge, and which of its messages a server obeys.

:func:`address` names a browser for the limits (room guesses, heavy runs, reruns, rooms): the TCP
peer, except for a request from the project's own HAProxy: it deletes whatever X-Forwarded-For a
client sent, appends the address it sees (``option forwardfor``) and sets ``PROXY_HEADER`` to the
secret serve/cluster.py gives it and its workers (``PROXY_SECRET_ENV``). Without that header the
forwarded address is not believed (a client that reaches a worker directly). (uvicorn, under Streamlit, already replaces the peer by a
forwarded address when the TCP peer is loopback; that replacement is undone here: such a client is
the loopback peer.)

:func:`refuse_control_messages` makes the server ignore the websocket messages that reset state
shared by every session (``clear_cache``: Streamlit clears every st.cache_data / st.cache_resource
and the sender's session state, for any client that sends it; the interface only hides the menu
item).
"""

from __future__ import annotations

import hmac
import logging
import os

import streamlit as st

PROXY_SECRET_ENV = "PROBCORE_PROXY_SECRET"  # as serve/cluster.py gives the proxy and its workers
PROXY_HEADER = "X-Probcore-Proxy"
LOOPBACK = "127.0.0.1"


def address_from(forwarded: list[str], peer: str | None, from_proxy: bool) -> str:
    """The client's address from the X-Forwarded-For header lines ``forwarded`` and the peer
    address Streamlit reports: the proxy's entry (the last) when ``from_proxy``, else the peer
    (loopback when uvicorn took the peer from the header itself)."""
    entries = [e.strip() for line in forwarded for e in line.split(",") if e.strip()]
    if from_proxy and entries:
        return entries[-1]
    if not peer or peer in entries:
        return LOOPBACK
    return peer


def _peer() -> str | None:
    from streamlit.runtime import get_instance
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    client = get_instance().get_client(ctx.session_id) if ctx is not None else None
    peer = getattr(getattr(client, "client_context", None), "remote_ip", None)
    return peer if isinstance(peer, str) else None


def address() -> str:
    """This session's client address (see the module docstring); "" without a browser connection
    (AppTest, bare mode)."""
    try:
        forwarded = st.context.headers.get_all("X-Forwarded-For")
        peer = _peer()
    except Exception:
        return ""
    if peer is None and not forwarded and not isinstance(getattr(st.context, "url", None), str):
        return ""
    secret = os.environ.get(PROXY_SECRET_ENV, "")
    from_proxy = bool(secret) and hmac.compare_digest(
        st.context.headers.get(PROXY_HEADER, "").encode(), secret.encode()
    )
    return address_from(forwarded, peer, from_proxy)


def session_id() -> str:
    """This session's id (empty outside a script run)."""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    ctx = get_script_run_ctx()
    return ctx.session_id if ctx is not None else ""


def session_alive(session: str) -> bool:
    """Whether the session ``session`` still has a browser connected (True outside a server)."""
    from streamlit import runtime

    if not session or not runtime.exists():
        return True
    return runtime.get_instance().is_active_session(session)


_IGNORED = logging.getLogger("probcore.client")


def _ignore_clear_cache(self) -> None:
    """clear_cache from a browser: ignored (it would clear every session's caches and restart the
    process-wide resources)."""
    _IGNORED.warning("probcore: a clear_cache message from a client was ignored")


def refuse_control_messages() -> None:
    """Once per process (idempotent): the server ignores clear_cache from any client."""
    from streamlit.runtime.app_session import AppSession

    AppSession._handle_clear_cache_request = _ignore_clear_cache
