"""The Compare page's own computations."""

import inspect

import numpy as np
import streamlit as st

from explorer import compute
from explorer.drawing import ui
from explorer.i18n import t
from probcore.registry import MAPPINGS


@st.cache_data(show_spinner=False, max_entries=32)
def reference_source(name: str) -> str:
    """The numpy reference of a mapping as source text (read once; decorated here, once per process,
    not in the page's script, where the decorator would run again on every run)."""
    reference = MAPPINGS[name].reference
    return inspect.getsource(getattr(reference, "func", reference))


def support_text(p: np.ndarray, under: np.ndarray) -> str:
    """The support size in exact arithmetic: the entries > 0, with those that float64 rounds to 0
    (underflow) counted and said."""
    size = compute.support_size(p) + int(under.sum())
    return t("compare.support_underflow", support=size, under=int(under.sum())) if under.any() else str(size)


def statistics_row(name: str, x: tuple, kw: tuple, target: int, p: np.ndarray, under: np.ndarray) -> dict[str, str]:
    """The cells of the statistics table's row of mapping ``name`` (p at logits ``x``, ``under``: its
    underflows): support, entropy -Σ p log p (.4f), max p (.4f), Σ p (.6f), the loss function, the loss
    L(x, target) (.4f) and its gradient ∇ₓ L (autograd; ui.vector); "—" without a loss. The browser's
    table (explorer/live/static/stats.js statistics_row) writes the same strings."""
    loss = compute.loss_and_grad(name, x, kw, target)
    return {
        "support": support_text(p, under),
        "entropy": f"{compute.entropy(p):.4f}",
        "max_p": f"{p.max():.4f}",
        "sum": f"{p.sum():.6f}",
        "loss_fn": MAPPINGS[name].loss or "—",
        "loss": f"{loss[0]:.4f}" if loss else "—",
        "grad": ui.vector(loss[1]) if loss else "—",
    }
