"""Attention: a toy query attending over a short sequence of keys. The scores c q.k_j / sqrt(d)
go through softmax, sparsemax, alpha-entmax and top-k softmax (probcore's registry); the page
shows the weights as heat maps (exact zeros marked) and the outputs sum_j w_j v_j."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute
from explorer.drawing import figures, ui
from explorer.i18n import mapping_label, t
from explorer.session import state
from probcore.check import parse_vector
from probcore.registry import MAPPINGS
from views.attention import compute as attention_compute
from views.registry import PAGES
from views.attention import figures as attention_figures

declared = PAGES["attention"].option  # this page's own controls (views/registry.py)

ENTRY_LIMIT = 1e3  # |entries| of an edited query or key

ui.header("page.attention", "attention.intro")
st.markdown(t("attention.text"))
st.latex(
    r"s_j = c\,\frac{q \cdot k_j}{\sqrt{d}},\qquad w = \rho(s) \in \Delta^{L-1},\qquad o = \sum_{j=1}^{L} w_j\, v_j,"
    r"\qquad \rho \in \{\operatorname{softmax},\ \operatorname{sparsemax},\ \alpha\text{-entmax},\ "
    r"\text{top-}k \text{ softmax}\}"
)
ss = st.session_state


@ui.fragment
def live() -> None:
    """The controls and all that they change: a step reruns only this fragment."""
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        length = state.page_option(
            declared("attention_L"),
            lambda key: state.slider(t("attention.length"), 2, 16, key),
        )
    with c2:
        dim = state.page_option(declared("attention_d"), lambda key: state.slider(t("attention.dim"), 1, 8, key))
    with c3:
        queries = state.page_option(
            declared("attention_queries"),
            lambda key: state.slider(t("attention.queries"), 1, 6, key),
        )
    with c4:
        seed = state.page_option(
            declared("attention_seed"),
            lambda key: st.number_input(
                t("attention.seed"),
                0,
                state.SEED_MAX,
                step=1,
                key=key,
                help=t("attention.seed_help"),
                persist_state="session",
            ),
        )

    def k_slider(key: str) -> int:
        if ss[key] > length:  # L got shorter (or the URL asked for more)
            st.caption(t("attention.k_clamped", k=ss[key], L=length))
            ss[key] = length
        return state.slider(t("attention.k"), 1, length, key)

    c1, c2, c3 = st.columns(3)
    with c1:
        scale = state.page_slider(declared("attention_scale"), t("attention.scale"), 0.1)
    with c2:
        alpha = state.page_slider(declared("attention_alpha"), t("attention.alpha"), 0.05)
    with c3:
        k = state.page_option(declared("attention_k"), k_slider)

    q, keys, values = attention_compute.attention_inputs(int(length), int(dim), int(queries), int(seed))
    with st.expander(t("attention.edit")):
        query_text = state.page_option(
            declared("attention_query"),
            lambda key: st.text_input(
                t("attention.query_text"), key=key, help=t("attention.query_help"), persist_state="session"
            ),
        )
        edited = st.data_editor(
            pd.DataFrame(keys, columns=[f"k[{i}]" for i in range(dim)]),
            key=f"attention_keys_{length}_{dim}_{seed}",
            num_rows="fixed",
            column_config={f"k[{i}]": st.column_config.NumberColumn(format="%.3f") for i in range(dim)},
        )
        st.caption(t("attention.keys_editor"))

    if str(query_text).strip():
        try:
            q0 = parse_vector(str(query_text).replace("−", "-"), name="query")
            if len(q0) != dim:
                raise ValueError(t("attention.query_len", d=dim, got=len(q0)))
            if np.abs(q0).max() > ENTRY_LIMIT:
                raise ValueError(t("attention.value_limit", name="query", limit=f"{ENTRY_LIMIT:g}"))
            q[0] = q0
        except ValueError as err:
            st.error(state.plain(t("attention.query_bad", error=err)), icon="⚠️")
    typed = attention_compute.finite_matrix(edited, keys.shape, ENTRY_LIMIT)
    if typed is None:
        st.error(
            state.plain(t("attention.keys_bad", error=t("attention.keys_nonfinite", limit=f"{ENTRY_LIMIT:g}"))),
            icon="⚠️",
        )
    else:
        keys = typed

    scores = attention_compute.attention_scores(q, keys, float(scale))
    row_scores = tuple(tuple(float(v) for v in row) for row in scores)
    params = {"softmax": {}, "sparsemax": {}, "entmax": {"alpha": float(alpha)}, "sparse_softmax": {"k": int(k)}}
    weights, labels = {}, {}
    for name in attention_compute.ATTENTION_MAPPINGS:
        try:
            kw = MAPPINGS[name].validate(n=int(length), **params[name])
        except ValueError as err:
            st.warning(state.plain(t("msg.mapping_skipped", mapping=mapping_label(name), error=err)))
            continue
        weights[name] = attention_compute.attention_weights(name, row_scores, compute.items(kw))
        base = mapping_label(name).split(" (")[0]
        labels[name] = {"entmax": f"{base} (α = {alpha:g})", "sparse_softmax": f"{base} (k = {k})"}.get(name, base)

    positions = [str(j) for j in range(length)]
    left, right = st.columns(2)
    with left:
        fig = figures.grouped_bars(
            positions,
            [figures.BarSeries("s", scores[0], figures.ZERO_COLOR)],
            t("attention.key_axis"),
            t("attention.score_axis"),
            t("attention.scores_title"),
        )
        ui.show_figure(
            fig,
            "attention_scores",
            table=lambda: pd.DataFrame(
                {
                    "query": np.repeat(np.arange(queries), length),
                    "key": np.tile(np.arange(length), queries),
                    "score": scores.ravel(),
                }
            ),
        )
    outputs = {name: w @ values for name, w in weights.items()}
    with right:
        fig = figures.grouped_bars(
            [f"o[{i}]" for i in range(dim)],
            [figures.mapping_bars(name, labels[name], o[0]) for name, o in outputs.items()],
            t("attention.output_axis"),
            t("attention.output_value"),
            t("attention.outputs_title"),
            t("attention.mapping_axis"),
        )
        ui.show_figure(
            fig,
            "attention_outputs",
            table=lambda: pd.DataFrame(
                [[labels[name], r, *row] for name, o in outputs.items() for r, row in enumerate(o)],
                columns=["mapping", "query", *[f"o_{i}" for i in range(dim)]],
            ),
        )

    if weights:
        fig = attention_figures.weight_heatmap(
            np.stack([w[0] for w in weights.values()]),
            [labels[n] for n in weights],
            positions,
            t("attention.weights_title"),
            t("attention.key_axis"),
            t("attention.mapping_axis"),
        )
        ui.show_figure(
            fig,
            "attention_weights",
            table=lambda: pd.DataFrame(
                [[labels[name], r, *row] for name, w in weights.items() for r, row in enumerate(w)],
                columns=["mapping", "query", *[f"w_{j}" for j in range(length)]],
            ),
        )
        support = ", ".join(f"{labels[name]} {np.count_nonzero(w[0])}/{length}" for name, w in weights.items())
        st.caption(t("attention.support_note", support=support))
        if queries > 1:
            fig = attention_figures.weight_heatmaps(
                {labels[name]: w for name, w in weights.items()},
                positions,
                [f"q{r}" for r in range(queries)],
                t("attention.multi_title", m=queries),
                t("attention.key_axis"),
                t("attention.query_axis"),
            )
            ui.show_figure(
                fig,
                "attention_weights_all",
                table=lambda: pd.DataFrame(
                    [[labels[name], r, *row] for name, w in weights.items() for r, row in enumerate(w)],
                    columns=["mapping", "query", *[f"w_{j}" for j in range(length)]],
                ),
            )


live()

# ---------------------------------------------------------------- Taylor softmax: long tail, linear attention


def taylor_section() -> None:
    st.subheader(t("attention.taylor"))
    st.markdown(t("attention.taylor_text"))
    st.latex(
        r"f(s) = 1 + s + \tfrac{s^2}{2},\quad f(c\, q\cdot k) = \varphi(q)^\top \varphi(k),\quad "
        r"\varphi(u) = \big(1,\ \sqrt{c}\,u,\ c\,\operatorname{vec}(u u^\top)/\sqrt{2}\big);\qquad "
        r"o_i = \frac{\varphi(q_i)^\top \sum_j \varphi(k_j)\, v_j^\top}{\varphi(q_i)^\top \sum_j \varphi(k_j)}"
    )
    r = attention_compute.taylor_linear_attention()
    st.caption(
        t(
            "attention.taylor_note",
            L=r["length"],
            d=r["dim"],
            diff=f"{r['diff']:.1e}",
            quad=f"{r['quadratic_ops']:,}",
            lin=f"{r['linear_ops']:,}",
            D=r["features"],
            even=f"{r['features'] * (r['dim'] + 1) / r['dim']:.4g}",
            tmin=f"{r['taylor_min']:.3g}",
            smin=f"{r['softmax_min']:.3g}",
        )
    )


taylor_section()
