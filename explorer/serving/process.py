"""What a server process sets up once: one torch thread before any computation, and the objects of the
first run frozen after it. Here, not in app.py: a decorator in the script would build its cached
function again on every run (Streamlit reads the function's source each time: ~0.5 ms a run)."""

import gc

import streamlit as st
import torch


@st.cache_resource(show_spinner=False)
def one_torch_thread() -> None:
    """Once per server process, before any computation: torch runs on one intra-op thread. The
    explorer's tensors are small and a server runs many sessions at once; with a second thread the
    hand-offs (and OpenMP's spin-waits while the other core is busy) cost more CPU than they save
    (bench/results/load.md: CPU of a Simplex / Perturb step about halved)."""
    torch.set_num_threads(1)


@st.cache_resource(show_spinner=False)
def freeze_imported_objects() -> None:
    """Once per server process, after a first run has imported torch, plotly and pandas: a full
    collection (Python's own; Streamlit's after every run is off in .streamlit/config.toml) would
    hold the GIL ~0.1 s over these ~250k long-lived objects; frozen (gc.freeze), it skips them."""
    gc.freeze()
