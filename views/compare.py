"""Compare (home): every selected mapping's p side by side, a table of its statistics and of its
loss for the target class, and its formula and numpy reference on demand."""
import inspect

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute, figures, state, ui
from explorer.i18n import t
from probcore.registry import MAPPINGS

ctl = ui.header("page.compare", "compare.intro")
log_y = state.page_option(state.Option("log", "bool", False),
                          lambda key: st.toggle(t("compare.log_y"), key=key, persist_state="session"))
probs = ctl.probabilities()
if probs:
    labels = ctl.labels
    index = compute.view_index(ctl.logits, probs, state.TOP_VIEW)
    if len(index) < ctl.n:
        st.caption(t("ui.top_view", top=len(index), n=ctl.n))
    fig = figures.probability_bars(index, ctl.logits[index], {k: p[index] for k, p in probs.items()}, labels, log_y)
    ui.show_figure(fig, "compare_bars", table=lambda: pd.DataFrame(
        {"class": np.arange(ctl.n), "logit": ctl.logits, **{labels[k]: p for k, p in probs.items()}}))


    def shifted() -> str:
        """Which mappings change when every logit grows by 10 (computed, not claimed)."""
        moved = ui.per_mapping(ctl, lambda name: float(np.abs(compute.probabilities(
            name, tuple(v + 10.0 for v in ctl.x), ctl.kw(name), ctl.target, ctl.seed) - probs[name]).max()), quiet=True)
        changed = [f"{labels[name]} ({d:.2g})" for name, d in moved.items() if d > 1e-9]
        return t("q_compare.a", same=len(moved) - len(changed), changed=", ".join(changed) or "—")

    ui.predict("q_compare", 3, 0, shifted, (t("q_compare.do"), lambda: state.set_logits(ctl.logits + 10.0)))

    st.subheader(t("compare.table"))
    rows = []
    for name, p in probs.items():
        loss = compute.loss_and_grad(name, ctl.x, ctl.kw(name), ctl.target)
        rows.append({
            t("col.mapping"): labels[name],
            t("col.support"): compute.support_size(p),
            t("col.entropy"): float(compute.entropy(p)),
            t("col.max_p"): float(p.max()),
            t("col.sum"): float(p.sum()),
            t("col.loss_fn"): MAPPINGS[name].loss or "—",
            t("col.loss"): loss[0] if loss else None,
            t("col.grad"): ui.vector(loss[1]) if loss else "—",
        })
    st.dataframe(pd.DataFrame(rows), hide_index=True, column_config={
        t("col.entropy"): st.column_config.NumberColumn(format="%.4f"),
        t("col.max_p"): st.column_config.NumberColumn(format="%.4f"),
        t("col.sum"): st.column_config.NumberColumn(format="%.6f"),
        t("col.loss"): st.column_config.NumberColumn(format="%.4f"),
    })
    st.caption(t("compare.table_note", target=ctl.target))

    st.subheader(t("compare.formulas"))

    def pick(key: str):
        if st.session_state[key] not in ctl.mappings:  # a mapping that is no longer shown
            st.session_state[key] = None
        return st.pills(t("compare.formula_pick"), ctl.mappings, key=key, format_func=labels.get,
                        persist_state="session")

    shown = state.page_option(state.Option("formula", "choice", None, tuple(MAPPINGS)), pick)
    if shown in ctl.mappings:  # drawn on demand only: a slider step does not re-render code blocks
        mapping = MAPPINGS[shown]
        st.latex(mapping.latex)
        st.caption(t("compare.reference"))
        st.code(inspect.getsource(getattr(mapping.reference, "func", mapping.reference)), language="python")
