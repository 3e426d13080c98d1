"""Typed access to the session's private keys (``st.session_state["_..."]``).

Each concern declares its keys once, in its own module, as :class:`SessionKey` objects; only that
module writes them, and another module that must change them calls a function of the owner (the
lesson bar asks the Check page to fill its example in again: views/check/session.py).
tests/test_layering.py checks that no private key is written by two modules.
"""

from __future__ import annotations

from typing import Generic, TypeVar

import streamlit as st

T = TypeVar("T")


class SessionKey(Generic[T]):
    """One private session key: its name (starting with "_") and the type of its value."""

    def __init__(self, name: str):
        if not name.startswith("_"):
            raise ValueError(f"a private session key starts with '_', got {name!r}")
        self.name = name

    def get(self, default: T | None = None) -> T | None:
        return st.session_state.get(self.name, default)

    def set(self, value: T) -> None:
        st.session_state[self.name] = value

    def pop(self) -> T | None:
        return st.session_state.pop(self.name, None)

    def is_set(self) -> bool:
        return self.name in st.session_state
