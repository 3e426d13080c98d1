"""Sparse mappings from exp: exp(x) ~ relu(1 + beta x)^(1/beta) turns softmax into (1 + beta)-entmax
(beta = 1: sparsemax), and the sparsemax threshold derived from the KKT conditions, step by step,
beside probcore's threshold for the page's logits."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer.drawing import figures, ui
from explorer.drawing.colors import EXTRA_COLORS, mapping_color
from explorer.i18n import mapping_label, t
from explorer.session import state
from views.registry import PAGES
from views.sparse_from_exp import compute as sparse_from_exp_compute

declared = PAGES["sparse_from_exp"].option  # this page's own controls (views/registry.py)

ui.header("page.sparse_from_exp", "sfe.intro")
ctl = state.controls(mappings=False)
x = ctl.logits
index = np.arange(ctl.n)


# ---------------------------------------------------------------- exp -> relu power
@ui.fragment
def relu_power_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("sfe.approx"))
    st.markdown(t("sfe.approx_text"))
    st.latex(
        r"e^{x} = \lim_{\beta \to 0} (1 + \beta x)^{1/\beta} \;\approx\; \operatorname{relu}(1 + \beta x)^{1/\beta};\qquad "
        r"p_i = \operatorname{relu}\big(\beta x_i - \lambda\big)^{1/\beta},\ \textstyle\sum_i p_i = 1"
        r"\ \Longleftrightarrow\ p = (1 + \beta)\text{-entmax}(x)"
    )
    beta = float(state.page_slider(declared("sfe_beta"), t("sfe.beta"), 0.05))
    grid = sparse_from_exp_compute.EXP_GRID
    left, right = st.columns(2)
    with left:
        ui.show_figure(
            figures.line_chart(
                grid,
                [
                    figures.mapping_curve("softmax", "exp(x)", np.exp(grid)),
                    figures.mapping_curve(
                        "entmax", t("sfe.relu_curve", beta=f"{beta:g}"), sparse_from_exp_compute.relu_power(grid, beta)
                    ),
                    figures.mapping_curve(
                        "sparsemax", t("sfe.relu_curve", beta="1"), sparse_from_exp_compute.relu_power(grid, 1.0)
                    ),
                ],
                "x",
                t("sfe.value_axis"),
                t("sfe.approx_title"),
            ),
            "sfe_approx",
            table=lambda: pd.DataFrame(
                {"x": grid, "exp": np.exp(grid), "relu_power": sparse_from_exp_compute.relu_power(grid, beta)}
            ),
        )
    ent = sparse_from_exp_compute.entmax_from_threshold(ctl.x, beta)
    with right:
        ui.show_figure(
            figures.bars_and_markers(
                index,
                x,
                [
                    figures.mapping_bars("entmax", t("sfe.by_hand", alpha=f"{ent['alpha']:g}"), ent["by_hand"]),
                    figures.mapping_bars("softmax", mapping_label("softmax"), ent["softmax"]),
                ],
                [
                    figures.BarSeries(
                        t("sfe.probcore", alpha=f"{ent['alpha']:g}"), ent["probcore"], mapping_color("entmax")
                    )
                ],
                t("sfe.entmax_title", alpha=f"{ent['alpha']:g}"),
                t("fig.probability"),
                t("fig.legend"),
            ),
            "sfe_entmax",
            table=lambda: pd.DataFrame(
                {"logit": x, "softmax": ent["softmax"], "by_hand": ent["by_hand"], "probcore_entmax": ent["probcore"]}
            ),
        )
    st.caption(
        t(
            "sfe.approx_note",
            beta=f"{beta:g}",
            alpha=f"{ent['alpha']:g}",
            lam=f"{ent['lambda']:.6g}",
            total=f"{ent['by_hand'].sum():.12f}",
            diff=f"{np.abs(ent['by_hand'] - ent['probcore']).max():.1e}",
            zeros=int((ent["probcore"] == 0).sum()),
            n=ctl.n,
            cut=f"{-1 / beta:g}",
        )
    )


relu_power_section()


# ---------------------------------------------------------------- KKT
@ui.fragment
def kkt_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("sfe.kkt"))
    st.markdown(t("sfe.kkt_problem"))
    st.latex(
        r"\operatorname{sparsemax}(z) = \arg\min_{p} \tfrac12 \lVert p - z \rVert^2"
        r"\quad\text{s.t.}\quad p_i \ge 0,\ \textstyle\sum_i p_i = 1"
    )
    st.markdown(t("sfe.kkt_lagrangian"))
    st.latex(
        r"\mathcal L = \tfrac12 \lVert p - z\rVert^2 - \mu^{\top} p + \lambda\Big(\textstyle\sum_i p_i - 1\Big),"
        r"\qquad \mu_i \ge 0"
    )
    st.markdown(t("sfe.kkt_stationarity"))
    st.latex(r"\frac{\partial \mathcal L}{\partial p_i} = p_i - z_i - \mu_i + \lambda = 0,\qquad \mu_i\, p_i = 0")
    st.markdown(t("sfe.kkt_cases"))
    st.latex(
        r"p_i > 0 \Rightarrow \mu_i = 0,\ p_i = z_i - \lambda;\qquad "
        r"p_i = 0 \Rightarrow \mu_i = \lambda - z_i \ge 0,\ z_i \le \lambda"
        r"\qquad\Longrightarrow\qquad p_i = \operatorname{relu}(z_i - \lambda)"
    )
    st.markdown(t("sfe.kkt_threshold"))
    st.latex(
        r"\sum_{i \in S} (z_i - \lambda) = 1 \;\Rightarrow\; \lambda = \frac{\sum_{i\in S} z_i - 1}{|S|},\qquad "
        r"S = \{(1), \dots, (K)\},\ K = \max\Big\{k : 1 + k\, z_{(k)} > \textstyle\sum_{j \le k} z_{(j)}\Big\}"
    )
    st.markdown(t("sfe.kkt_live"))
    steps = sparse_from_exp_compute.kkt_steps(ctl.x)
    rows = pd.DataFrame(
        {
            "k": steps["k"],
            "z₍ₖ₎": steps["z_sorted"],
            "Σⱼ≤ₖ z₍ⱼ₎": steps["cumsum"],
            "1 + k z₍ₖ₎": steps["lhs"],
            t("sfe.col_passes"): [t("sfe.yes") if v else t("sfe.no") for v in steps["passes"]],
            "λₖ = (Σⱼ≤ₖ z₍ⱼ₎ − 1)/k": steps["lambda_k"],
        }
    )
    left, right = st.columns(2)
    with left:
        st.dataframe(
            rows.head(state.TOP_VIEW),
            hide_index=True,
            column_config={
                c: st.column_config.NumberColumn(format="%.4g") for c in rows.columns[1:4].tolist() + [rows.columns[-1]]
            },
        )
        m1, m2, m3 = st.columns(3)
        m1.metric(t("sfe.support"), f"{steps['support']}")
        m2.metric(t("sfe.lambda"), f"{steps['lambda']:.6g}")
        m3.metric(t("sfe.lambda_probcore"), f"{steps['lambda_probcore']:.6g}")
    with right:
        shown = index[: state.TOP_VIEW]
        fig = figures.bars_and_markers(
            shown,
            x[shown],
            [figures.BarSeries(t("sfe.logits"), x[shown], EXTRA_COLORS["hinge"])],
            [figures.BarSeries(t("sfe.p_relu"), steps["p"][shown], mapping_color("sparsemax"))],
            t("sfe.kkt_title"),
            t("sfe.value_axis"),
            t("fig.legend"),
        )
        fig.add_hline(
            y=steps["lambda"],
            line_dash="dash",
            line_color=mapping_color("sparsemax"),
            annotation_text=f"λ = {steps['lambda']:.4g}",
        )
        fig.update_yaxes(rangemode="normal")
        ui.show_figure(fig, "sfe_kkt", table=lambda: pd.DataFrame({"z": x, "p": steps["p"], "lambda": steps["lambda"]}))
    st.caption(
        t(
            "sfe.kkt_note",
            K=steps["support"],
            lam=f"{steps['lambda']:.6g}",
            diff=f"{abs(steps['lambda'] - steps['lambda_probcore']):.1e}",
            pdiff=f"{np.abs(steps['p'] - steps['p_probcore']).max():.1e}",
        )
    )


kkt_section()

# ---------------------------------------------------------------- exact 1.5-entmax, bisection bracket
BRACKET_ALPHA = 1.25  # the bracket shown for this alpha (the explorer's default alpha-entmax)


def entmax15_section() -> None:
    st.subheader(t("sfe.entmax15"))
    st.markdown(t("sfe.entmax15_text"))
    st.latex(
        r"z = \tfrac{x}{2},\ z_{(1)} \ge \dots \ge z_{(n)}:\quad \sum_{i \le k} (z_{(i)} - \lambda)^2 = 1"
        r"\ \Rightarrow\ \lambda_k = \mu_k - \sqrt{1/k - \sigma_k^2},\qquad z_{(k)} \ge \lambda_k \ge z_{(k+1)}"
    )
    steps = sparse_from_exp_compute.entmax15_sorted_steps(ctl.x)
    shown = slice(0, state.TOP_VIEW)
    st.dataframe(
        pd.DataFrame(
            {
                "k": np.arange(1, ctl.n + 1)[shown],
                "z₍ₖ₎": steps["z"][shown],
                "μₖ": steps["mu"][shown],
                "σₖ²": steps["sigma2"][shown],
                "λₖ": steps["lambda_k"][shown],
                "z₍ₖ₎ ≥ λₖ ≥ z₍ₖ₊₁₎": [t("sfe.yes") if c else t("sfe.no") for c in steps["chosen"][shown]],
            }
        ),
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.4g") for c in ("z₍ₖ₎", "μₖ", "σₖ²", "λₖ")},
    )
    bracket = sparse_from_exp_compute.bisection_bracket(ctl.x, BRACKET_ALPHA)
    st.caption(
        t(
            "sfe.entmax15_note",
            k=steps["support"],
            lam=f"{steps['lambda']:.6g}",
            diff=f"{abs(steps['lambda'] - steps['probcore_lambda']):.1e}",
            pdiff=f"{np.abs(steps['p'] - steps['probcore']).max():.1e}",
            alpha=f"{BRACKET_ALPHA:g}",
            g0=f"{bracket['g0']:.4g}",
            g1=f"{bracket['g1']:.4g}",
            blam=f"{bracket['lambda']:.4g}",
            g=f"{bracket['g']:.6g}",
        )
    )


entmax15_section()

# ---------------------------------------------------------------- binary sparsemax = hard sigmoid


def hard_sigmoid_section() -> None:
    st.subheader(t("sfe.hard_sigmoid"))
    st.markdown(t("sfe.hard_sigmoid_text"))
    st.latex(
        r"\text{softmax: } p_1 = \sigma(z_1 - z_2) = \frac{1}{1 + e^{-(z_1 - z_2)}},\qquad "
        r"\text{sparsemax: } p_1 = \operatorname{clip}\!\Big(\frac{z_1 - z_2 + 1}{2},\, 0,\, 1\Big)"
    )
    curves = sparse_from_exp_compute.binary_sparsemax()
    gaps = curves["t"]
    ui.show_figure(
        figures.line_chart(
            gaps,
            [
                figures.mapping_curve("softmax", mapping_label("softmax"), curves["softmax"]),
                figures.mapping_curve("sparsemax", mapping_label("sparsemax"), curves["sparsemax"]),
            ],
            "t = z₁ − z₂",
            t("fig.probability"),
            t("sfe.hs_title"),
            height=300,
        ),
        "sfe_hard_sigmoid",
        table=lambda: pd.DataFrame({"t": gaps, "softmax": curves["softmax"], "sparsemax": curves["sparsemax"]}),
    )
    at_one = int(np.argmin(np.abs(gaps - 1.0)))
    st.caption(
        t(
            "sfe.hs_note",
            diff=f"{np.abs(curves['sparsemax'] - curves['hard_sigmoid']).max():.1e}",
            s1=f"{curves['sparsemax'][at_one]:.4g}",
            sig1=f"{curves['softmax'][at_one]:.4g}",
        )
    )


hard_sigmoid_section()
