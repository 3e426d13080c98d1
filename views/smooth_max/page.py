"""Smooth max and properties: T logsumexp(x / T) -> max x beside softmax as its gradient (the smooth
argmax); monotonicity and shift invariance tested live on random logits for every mapping (Taylor
softmax fails both); softmax with base b = e^beta (softmin, Boltzmann); saturation 1 - sum p^2 -> 0
and why attention divides its scores by sqrt(d)."""

import math

import numpy as np
import pandas as pd
import streamlit as st

from explorer import compute
from explorer.drawing import figures, ui
from explorer.drawing.colors import EXTRA_COLORS, mapping_color
from explorer.i18n import mapping_label, t
from explorer.session import state
from views.registry import PAGES
from views.smooth_max import compute as smooth_max_compute

declared = PAGES["smooth_max"].option  # this page's own controls (views/registry.py)

ui.header("page.smooth_max", "smooth.intro")
ctl = state.controls(mappings=False)
x = ctl.logits
index = np.arange(ctl.n)


# ---------------------------------------------------------------- smooth max
@ui.fragment
def smooth_max_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("smooth.lse"))
    st.markdown(t("smooth.lse_text"))
    st.latex(
        r"\max_i x_i \;\le\; T \log \sum_i e^{x_i / T} \;\le\; \max_i x_i + T \log n,\qquad "
        r"\nabla_x\, T \log \sum_i e^{x_i/T} = \operatorname{softmax}(x / T)"
    )
    temperature = float(10.0 ** state.page_slider(declared("smooth_log_T"), t("smooth.log_T"), 0.1))
    temps = compute.TEMPERATURES[compute.TEMPERATURES <= 5.0]  # beyond, T log n dwarfs the max
    curve = smooth_max_compute.smooth_max_curve(ctl.x, tuple(temps))
    grad, soft = smooth_max_compute.smooth_max_gradient(ctl.x, temperature)
    left, right = st.columns(2)
    with left:
        fig = figures.line_chart(
            temps,
            [
                figures.Curve(t("smooth.lse_curve"), curve, mapping_color("softmax")),
                figures.Curve(t("smooth.max_line"), np.full_like(temps, x.max()), EXTRA_COLORS["argmax"], "dash"),
                figures.Curve(t("smooth.upper"), x.max() + temps * math.log(ctl.n), EXTRA_COLORS["hinge"], "dot"),
            ],
            t("sweeps.t_axis"),
            t("smooth.value_axis"),
            t("smooth.lse_title"),
            log_x=True,
        )
        fig.add_vline(x=temperature, line_dash="dot", line_color=mapping_color("softmax"))
        ui.show_figure(fig, "smooth_lse", table=lambda: pd.DataFrame({"T": temps, "smooth_max": curve}))
    with right:
        ui.show_figure(
            figures.bars_and_markers(
                index,
                x,
                [figures.BarSeries(t("smooth.grad"), grad, mapping_color("softmax"))],
                [figures.BarSeries(t("smooth.softmax"), soft, mapping_color("softmax"))],
                t("smooth.grad_title", T=f"{temperature:g}"),
                t("fig.probability"),
                t("fig.legend"),
            ),
            "smooth_grad",
            table=lambda: pd.DataFrame({"logit": x, "gradient": grad, "softmax": soft}),
        )
    value = float(smooth_max_compute.smooth_max_curve(ctl.x, (temperature,))[0])
    st.caption(
        t(
            "smooth.lse_note",
            T=f"{temperature:g}",
            value=f"{value:.6g}",
            max=f"{x.max():.6g}",
            gap=f"{value - x.max():.3g}",
            bound=f"{temperature * math.log(ctl.n):.3g}",
            diff=f"{np.abs(grad - soft).max():.1e}",
        )
    )


smooth_max_section()


# ---------------------------------------------------------------- properties
@ui.fragment
def properties_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("smooth.properties"))
    st.markdown(t("smooth.properties_text"))
    c1, c2, c3, c4 = st.columns(4)
    with c1:
        n_prop = int(state.page_slider(declared("smooth_n"), t("smooth.n"), 1))
    with c2:
        draws = int(state.page_slider(declared("smooth_draws"), t("smooth.draws"), 50))
    with c3:
        shift = float(state.page_slider(declared("smooth_shift"), t("smooth.shift"), 0.5))
    with c4:
        seed = int(state.page_slider(declared("smooth_seed"), t("smooth.seed"), 1))
    props = smooth_max_compute.property_tests(n_prop, draws, shift, seed)
    names = list(props)
    ui.show_figure(
        figures.grouped_bars(
            [mapping_label(name) for name in names],
            [
                figures.mapping_bars(
                    "taylor_softmax", t("smooth.order_share"), [props[name]["order"] for name in names]
                ),
                figures.mapping_bars(
                    "softmax",
                    t("smooth.shift_share"),
                    [float(props[name]["shift"] > smooth_max_compute.PROPERTY_TOL) for name in names],
                ),
            ],
            t("fig.mapping"),
            t("smooth.share_axis"),
            t("smooth.properties_title", draws=draws, n=n_prop, shift=f"{shift:g}"),
        ),
        "smooth_properties",
        table=lambda: pd.DataFrame(
            {
                "mapping": names,
                "order_broken_share": [props[m]["order"] for m in names],
                "max_shift_change": [props[m]["shift"] for m in names],
            }
        ),
    )
    rows = pd.DataFrame(
        {
            t("col.mapping"): [mapping_label(name) for name in names],
            t("smooth.col_order"): [props[name]["order"] for name in names],
            t("smooth.col_shift"): [props[name]["shift"] for name in names],
        }
    )
    st.dataframe(
        rows, hide_index=True, column_config={c: st.column_config.NumberColumn(format="%.3g") for c in rows.columns[1:]}
    )
    taylor = props.get("taylor_softmax", {}).get("example")
    if taylor is not None:
        tx, tp = taylor
        i, j = next(
            (i, j)
            for i in range(len(tx))
            for j in range(len(tx))
            if tx[i] > tx[j] and tp[i] < tp[j] - smooth_max_compute.PROPERTY_TOL
        )
        st.caption(
            t(
                "smooth.taylor_example",
                x=ui.vector(tx),
                p=ui.vector(tp),
                i=i,
                j=j,
                xi=f"{tx[i]:.3g}",
                xj=f"{tx[j]:.3g}",
                pi=f"{tp[i]:.3g}",
                pj=f"{tp[j]:.3g}",
            )
        )
    st.caption(t("smooth.properties_note"))


properties_section()


# ---------------------------------------------------------------- base b, softmin, Boltzmann
@ui.fragment
def base_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("smooth.base"))
    st.markdown(t("smooth.base_text"))
    st.latex(
        r"p_i = \frac{b^{x_i}}{\sum_j b^{x_j}} = \operatorname{softmax}(\beta x)_i,\quad b = e^{\beta};\qquad "
        r"\text{Boltzmann: } p_i \propto e^{-E_i / (k_B T)},\ x = -E,\ \beta = 1/(k_B T)"
    )
    beta = float(state.page_slider(declared("smooth_beta"), t("smooth.beta"), 0.1))
    curves = smooth_max_compute.beta_curves(ctl.x)
    p_beta = compute.probabilities("softmax", ctl.x, compute.items({"beta": beta}))
    left, right = st.columns(2)
    shown = index[: state.TOP_VIEW]
    with left:
        fig = figures.line_chart(
            smooth_max_compute.BETAS,
            [
                figures.Curve(
                    f"p{i} (x{i} = {x[i]:.3g})",
                    curves[:, i],
                    figures.CLASS_COLORS[i % len(figures.CLASS_COLORS)],
                    figures.CLASS_DASHES[i % len(figures.CLASS_DASHES)],
                )
                for i in shown
            ],
            "β",
            t("fig.probability"),
            t("smooth.beta_title"),
        )
        fig.add_vline(x=beta, line_dash="dot", line_color=EXTRA_COLORS["argmax"])
        ui.show_figure(
            fig,
            "smooth_beta_curves",
            table=lambda: pd.DataFrame({"beta": smooth_max_compute.BETAS, **{f"p{i}": curves[:, i] for i in index}}),
        )
    with right:
        ui.show_figure(
            figures.probability_bars(
                index[: state.TOP_VIEW],
                x[: state.TOP_VIEW],
                {"softmax": p_beta[: state.TOP_VIEW]},
                {"softmax": t("smooth.base_label", b=f"{math.exp(beta):.3g}", beta=f"{beta:g}")},
                title=t("smooth.base_bars", beta=f"{beta:g}"),
            ),
            "smooth_base_bars",
        )
    if beta == 0:  # every p = 1/n: no most likely class
        st.caption(t("smooth.base_note_uniform", p=f"{1 / len(x):.3g}"))
    else:
        st.caption(
            t(
                "smooth.base_note",
                beta=f"{beta:g}",
                b=f"{math.exp(beta):.3g}",
                top=int(np.argmax(p_beta)),
                kind=t("smooth.kind_max") if beta > 0 else t("smooth.kind_min"),
            )
        )


base_section()


# ---------------------------------------------------------------- saturation and 1/sqrt(d)
@ui.fragment
def saturation_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("smooth.saturation"))
    st.markdown(
        t("smooth.saturation_text", L=smooth_max_compute.ATTENTION_KEYS, m=smooth_max_compute.ATTENTION_QUERIES)
    )
    st.latex(
        r"\tfrac12 \lVert J \rVert_1 = 1 - \sum_i p_i^2,\qquad \operatorname{Var}(q^\top k) = d"
        r"\ \text{ for } q, k \sim \mathcal N(0, I_d)"
    )
    sat_seed = int(state.page_slider(declared("smooth_sat_seed"), t("smooth.seed"), 1))
    sat = smooth_max_compute.saturation(sat_seed)
    k = int(state.page_slider(declared("smooth_log2_d"), t("smooth.log2_d"), 1))
    dim = smooth_max_compute.DIMS[k]
    fig = figures.line_chart(
        sat["d"],
        [
            figures.Curve(
                t("smooth.raw"), sat["raw"], mapping_color("taylor_softmax"), "dash", "lines+markers", symbol="diamond"
            ),
            figures.Curve(t("smooth.scaled"), sat["scaled"], mapping_color("softmax"), mode="lines+markers"),
            figures.Curve(
                t("smooth.uniform", L=smooth_max_compute.ATTENTION_KEYS),
                np.full(len(sat["d"]), sat["uniform"]),
                EXTRA_COLORS["hinge"],
                "dot",
            ),
        ],
        t("smooth.d_axis"),
        t("smooth.sat_axis"),
        t("smooth.sat_title", L=smooth_max_compute.ATTENTION_KEYS, m=smooth_max_compute.ATTENTION_QUERIES),
        log_x=True,
    )
    fig.add_vline(x=dim, line_dash="dot", line_color=EXTRA_COLORS["argmax"])
    ui.show_figure(
        fig,
        "smooth_saturation",
        table=lambda: pd.DataFrame(
            {"d": sat["d"], "raw": sat["raw"], "scaled": sat["scaled"], "score_sd": sat["score_sd"]}
        ),
    )
    st.caption(
        t(
            "smooth.sat_note",
            d=dim,
            sd=f"{sat['score_sd'][k]:.3g}",
            sqrt=f"{math.sqrt(smooth_max_compute.DIMS[k]):.3g}",
            raw=f"{sat['raw'][k]:.3f}",
            scaled=f"{sat['scaled'][k]:.3f}",
        )
    )


saturation_section()

# ---------------------------------------------------------------- four readings of softmax


def readings_section() -> None:
    st.subheader(t("smooth.readings"))
    st.markdown(t("smooth.readings_text"))
    st.latex(
        r"p_i = e^{x_i - A(x)},\ A(x) = \log \sum_j e^{x_j},\ \nabla A = p;\qquad "
        r"\max_{q}\, H(q) \ \text{s.t.}\ \textstyle\sum_i q_i x_i = \sum_i p_i x_i \ \Rightarrow\ q = p;\qquad "
        r"\frac{p_i}{p_j} = e^{\beta (x_i - x_j)} \le e^{2\beta}\ (x \in [-1, 1]^n);\qquad r = \sum_i p_i v_i"
    )
    r = smooth_max_compute.softmax_readings(ctl.x)
    note = t(
        "smooth.readings_note",
        A=f"{r['A']:.6g}",
        diff=f"{r['grad_diff']:.1e}",
        mean=f"{r['mean']:.4g}",
        H=f"{r['entropy']:.6g}",
        r1=f"{r['ratios'][1.0]:.4g}",
        r10=f"{r['ratios'][10.0]:.3g}",
        soft=f"{r['soft_read']:.4g}",
        hard=r["hard_read"],
    )
    if r["draws"]:
        note += " " + t("smooth.readings_maxent", draws=r["draws"], best=f"{r['best_other']:.6g}")
    st.caption(note)


readings_section()

# ---------------------------------------------------------------- 1 - sum p^2 and the collision entropy


def collision_section() -> None:
    st.subheader(t("smooth.collision"))
    st.markdown(t("smooth.collision_text"))
    st.latex(
        r"\sum_i p_i^2 = P[I = J],\ I, J \sim p \text{ independent};\qquad H_2(p) = -\log \sum_i p_i^2 \le H(p);"
        r"\qquad 1 - \sum_i p_i^2 = 1 - e^{-H_2(p)}"
    )
    c = smooth_max_compute.collision(ctl.x)
    st.caption(
        t(
            "smooth.collision_note",
            sq=f"{c['sum_sq']:.4f}",
            pairs=f"{c['pairs']:,}",
            freq=f"{c['frequency']:.4f}",
            h2=f"{c['h2']:.4f}",
            H=f"{c['shannon']:.4f}",
            one=f"{c['one_minus']:.4f}",
        )
    )


collision_section()
