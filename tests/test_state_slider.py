"""state.slider gives the element st.slider gives without a value (same id, default, bounds, step,
format), and keeps the value set in the session state, also one seeded before it is drawn."""

from __future__ import annotations

from streamlit.testing.v1 import AppTest


def _drawn(cheap: bool, seed: float | None = None):
    def script(cheap: bool, seed: float | None) -> None:
        import streamlit as st

        from explorer.session import state

        if seed is not None and "s" not in st.session_state:
            st.session_state["s"] = seed
        if cheap:
            state.slider("angle", -180.0, 180.0, "s", step=1.0, format="%.0f°", help="h")
        else:
            st.slider("angle", -180.0, 180.0, step=1.0, format="%.0f°", key="s", persist_state="session", help="h")

    at = AppTest.from_function(script, args=(cheap, seed)).run()
    assert not at.exception
    return at, at.slider(key="s")


def test_same_element_as_a_slider_without_value():
    (_, cheap), (_, plain) = _drawn(True), _drawn(False)
    assert cheap.proto.id == plain.proto.id
    for field in ("label", "default", "min", "max", "step", "format", "help", "data_type"):
        assert getattr(cheap.proto, field) == getattr(plain.proto, field), field
    assert cheap.value == plain.value == -180.0


def test_seeded_value_and_a_change_are_kept():
    at, s = _drawn(True, seed=42.0)
    assert s.value == 42.0
    s.set_value(7.0).run()
    assert at.slider(key="s").value == 7.0 and at.session_state["s"] == 7.0
