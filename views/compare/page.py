"""Compare (home): every selected mapping's p side by side, a table of its statistics and of its
loss for the target class, and its formula and numpy reference on demand. The controls and all
that they change are one fragment: a step reruns only it."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute
from explorer.drawing import figures, ui
from explorer.live import NOT_LIVE, compare_view, runs_javascript
from explorer.i18n import t
from explorer.session import state
from views.compare import compute as compare_compute
from views.compare import session as compare_session
from probcore.registry import MAPPINGS
from views.registry import PAGES

declared = PAGES["compare"].option  # this page's own controls (views/registry.py)

ui.header("page.compare", "compare.intro")
state.mapping_controls(expanded=not runs_javascript())


VIEW = "compare_view"  # this page's fragment: what reruns it alone from a callback (st.rerun(VIEW))
NUMBERS = "compare_numbers"  # the chart with the question and the server's table (st.rerun(NUMBERS))


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


def server_table(ctl: state.Controls) -> bool:
    """Whether the server draws the statistics table: where JavaScript does not run, or while a mapping
    that the browser cannot compute is shown (Gumbel-softmax: a seeded sample, explorer.live.NOT_LIVE).
    Else the live view draws it (explorer/live/static/stats.js) and follows the hand."""
    return not runs_javascript() or any(name in NOT_LIVE for name in ctl.mappings)


def needs_numbers() -> str | None:
    """After a release: :data:`NUMBERS` when more than the chart shows the logits (the server's table,
    or the question's revealed answer, computed from the current logits), else None (the chart alone)."""
    ss = st.session_state
    revealed = bool(ss.get("q_compare_open")) and bool(ss.get("q_compare_reveal"))
    return NUMBERS if revealed or any(name in NOT_LIVE for name in ss.get("show") or ()) else None


@ui.fragment(key=NUMBERS)
def numbers() -> None:
    """The chart and what the logits change beside it (the question, the server's table): drawn in
    :func:`live`, and with the chart after a release when :func:`needs_numbers` (explorer.live: the
    controls above it are not drawn again, unless the Logits expander is open and shows the logits)."""
    chart()
    ctl, _ = state.checked(update=True)  # the messages are live()'s; no logit widget is drawn below
    labels = ctl.labels

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
        x = state.current_logits()  # (not ctl's: a release reruns the chart alone, not this fragment)
        state.set_logits(x + 10.0)
        compare_session.remember_shift(tuple(x), tuple(state.parse_logits(st.session_state["logits"])))
        st.rerun(VIEW)  # the chart moves too, not only this fragment

    ui.predict(
        "q_compare.q", ("q_compare.c0", "q_compare.c1", "q_compare.c2"), 0, shifted, (t("q_compare.do"), add_ten)
    )
    if server_table(ctl):
        statistics(ctl)


@ui.fragment
def chart() -> None:
    """The chart alone: what a release of the live chart reruns (the browser has drawn the table
    already: explorer/live/static/stats.js), with :data:`NUMBERS` around it when :func:`needs_numbers`."""
    ctl, _ = state.checked(update=True)
    probs = ctl.probabilities()
    labels = ctl.labels
    log_y = bool(st.session_state[declared("log").key])

    def server_figure() -> None:
        index = compute.view_index(ctl.logits, probs, state.TOP_VIEW)
        under = {name: compute.underflows(name, ctl.x, ctl.kw(name), p) for name, p in probs.items()}
        ui.show_figure(
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
        )

    compare_view(ctl, log_y, server_figure, VIEW, None if server_table(ctl) else table_words(ctl), needs_numbers)


def table_words(ctl: state.Controls) -> dict:
    """What the browser's statistics table writes besides its numbers: the title, the column names,
    the captions (``{mappings}`` and the support's ``{support}`` / ``{under}`` filled in there) and
    each shown mapping's loss function."""
    return {
        "title": t("compare.table"),
        "columns": [
            t("col.mapping"),
            t("col.support"),
            t("col.entropy"),
            t("col.max_p"),
            t("col.sum"),
            t("col.loss_fn"),
            t("col.loss"),
            t("col.grad"),
        ],
        "note": t("compare.table_note", target=ctl.target),
        "support_underflow": t("compare.support_underflow", support="{support}", under="{under}"),
        "underflow_note": t("compare.underflow_note", mappings="{mappings}"),
        "no_loss": t("ctl.no_loss", mappings="{mappings}"),
        "loss_fns": {name: MAPPINGS[name].loss or "—" for name in ctl.mappings},
    }


def statistics(ctl: state.Controls) -> None:
    """The server's statistics table (views.compare.compute.statistics_row) and its captions."""
    labels = ctl.labels
    st.subheader(t("compare.table"))
    rows, no_loss, rounded = [], [], []
    for name, p in ctl.probabilities().items():
        under = compute.underflows(name, ctl.x, ctl.kw(name), p)
        cells = compare_compute.statistics_row(name, ctl.x, ctl.kw(name), ctl.target, p, under)
        if cells["loss"] == "—":
            no_loss.append(labels[name])
        if under.any():
            rounded.append(labels[name])
        rows.append(
            {
                t("col.mapping"): labels[name],
                t("col.support"): cells["support"],
                t("col.entropy"): cells["entropy"],
                t("col.max_p"): cells["max_p"],
                t("col.sum"): cells["sum"],
                t("col.loss_fn"): cells["loss_fn"],
                t("col.loss"): cells["loss"],
                t("col.grad"): cells["grad"],
            }
        )
    st.table(ui.records_frame(rows, index=t("col.mapping")))
    st.caption(t("compare.table_note", target=ctl.target))
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
