"""Compare (home): every selected mapping's p side by side, a table of its statistics and of its
loss for the target class, and its formula and numpy reference on demand. The controls and all
that they change are one fragment: a step reruns only it."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute
from explorer.drawing import figures, ui
from explorer.live import compare_view, runs_javascript
from explorer.i18n import t
from explorer.session import state
from views.compare import compute as compare_compute
from views.compare import session as compare_session
from probcore.registry import MAPPINGS
from views.registry import PAGES

declared = PAGES["compare"].option  # this page's own controls (views/registry.py)

ui.header("page.compare", "compare.intro")
state.mapping_controls(expanded=not runs_javascript())


def support_text(p: np.ndarray, under: np.ndarray) -> str:
    """The support size in exact arithmetic: the entries > 0, with those that float64 rounds to 0
    (underflow) counted and said."""
    size = compute.support_size(p) + int(under.sum())
    return t("compare.support_underflow", support=size, under=int(under.sum())) if under.any() else str(size)


VIEW = "compare_view"  # this page's fragment: what reruns it alone from a callback (st.rerun(VIEW))


@ui.fragment(key=VIEW)
def live() -> None:
    ctl = state.controls(expanded=not runs_javascript())
    state.page_option(declared("log"), lambda key: st.toggle(t("compare.log_y"), key=key, persist_state="session"))
    if not ctl.probabilities():
        return
    shown = compute.view_index(ctl.logits, ctl.probabilities(), state.TOP_VIEW)
    if len(shown) < ctl.n:
        st.caption(t("ui.top_view", top=len(shown), n=ctl.n))
    numbers()
    formulas(ctl)


@ui.fragment
def numbers() -> None:
    """The chart and what the logits change beside it (the question, the table): drawn in
    :func:`live`, and alone after a release of the live chart (explorer.live: the controls above it
    are not drawn again, unless the Logits expander is open and shows the logits)."""
    ctl, _ = state.checked(update=True)  # the messages are live()'s; no logit widget is drawn below
    probs = ctl.probabilities()
    labels = ctl.labels
    log_y = bool(st.session_state[declared("log").key])
    index = compute.view_index(ctl.logits, probs, state.TOP_VIEW)
    under = {name: compute.underflows(name, ctl.x, ctl.kw(name), p) for name, p in probs.items()}
    compare_view(
        ctl,
        log_y,
        lambda: ui.show_figure(
            figures.probability_bars(
                index,
                ctl.logits[index],
                {k: p[index] for k, p in probs.items()},
                labels,
                log_y,
                underflow={k: u[index] for k, u in under.items()},
            ),
            "compare_bars",
            table=lambda: pd.DataFrame(
                {"class": np.arange(ctl.n), "logit": ctl.logits, **{labels[k]: p for k, p in probs.items()}}
            ),
        ),
        VIEW,
    )

    def shifted() -> str:
        """Which mappings change when every logit grows by 10 (computed, not claimed): from the
        logits before the button was pressed to now, when it was (the move the bars made), else
        from now to x + 10."""
        before, after = compare_session.shift_pair(ctl.x)
        moved = ui.per_mapping(
            ctl,
            lambda name: float(
                np.abs(
                    compute.probabilities(name, after, ctl.kw(name), ctl.target, ctl.seed)
                    - compute.probabilities(name, before, ctl.kw(name), ctl.target, ctl.seed)
                ).max()
            ),
            quiet=True,
        )
        changed = [f"{labels[name]} ({d:.2g})" for name, d in moved.items() if d > 1e-9]
        return t("q_compare.a", same=len(moved) - len(changed), changed=", ".join(changed) or "—")

    def add_ten() -> None:
        state.set_logits(ctl.logits + 10.0)
        compare_session.remember_shift(ctl.x, tuple(state.parse_logits(st.session_state["logits"])))
        st.rerun(VIEW)  # the chart moves too, not only this fragment

    ui.predict(
        "q_compare.q", ("q_compare.c0", "q_compare.c1", "q_compare.c2"), 0, shifted, (t("q_compare.do"), add_ten)
    )

    st.subheader(t("compare.table"))
    rows, no_loss = [], []
    for name, p in probs.items():
        loss = compute.loss_and_grad(name, ctl.x, ctl.kw(name), ctl.target)
        if loss is None:
            no_loss.append(labels[name])
        rows.append(
            {
                t("col.mapping"): labels[name],
                t("col.support"): support_text(p, under[name]),
                t("col.entropy"): f"{compute.entropy(p):.4f}",
                t("col.max_p"): f"{p.max():.4f}",
                t("col.sum"): f"{p.sum():.6f}",
                t("col.loss_fn"): MAPPINGS[name].loss or "—",
                t("col.loss"): f"{loss[0]:.4f}" if loss else "—",
                t("col.grad"): ui.vector(loss[1]) if loss else "—",
            }
        )
    st.table(ui.records_frame(rows, index=t("col.mapping")))
    st.caption(t("compare.table_note", target=ctl.target))
    rounded = [labels[name] for name, u in under.items() if u.any()]
    if rounded:
        st.caption(t("compare.underflow_note", mappings=", ".join(rounded)))
    if no_loss:
        st.caption(t("ctl.no_loss", mappings=", ".join(no_loss)))


def formulas(ctl: state.Controls) -> None:
    """The formula and numpy reference of a shown mapping, on demand (they do not change with the
    logits: a release does not draw them again)."""
    labels = ctl.labels
    st.subheader(t("compare.formulas"))

    def pick(key: str):
        if st.session_state[key] not in ctl.mappings:  # a mapping that is no longer shown
            st.session_state[key] = None
        return st.pills(
            t("compare.formula_pick"), ctl.mappings, key=key, format_func=labels.get, persist_state="session"
        )

    shown = state.page_option(declared("formula"), pick)
    if shown in ctl.mappings:  # drawn on demand only: a step does not re-render code blocks
        st.latex(MAPPINGS[shown].latex)
        st.caption(t("compare.reference"))
        st.code(compare_compute.reference_source(shown), language="python")


live()
