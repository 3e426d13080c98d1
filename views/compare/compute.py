"""The Compare page's own computations."""

import inspect

import streamlit as st

from probcore.registry import MAPPINGS


@st.cache_data(show_spinner=False, max_entries=32)
def reference_source(name: str) -> str:
    """The numpy reference of a mapping as source text (read once; decorated here, once per process,
    not in the page's script, where the decorator would run again on every run)."""
    reference = MAPPINGS[name].reference
    return inspect.getsource(getattr(reference, "func", reference))
