"""Losses: the stop-gradient surrogate (gradient p - onehot for any mapping), -p_t as a smooth
accuracy and its vanishing gradient, why cross-entropy does not fit sparsemax (log 0) and the
smoothed -log((p_t + eps)/(1 + n eps)) is not convex, sparse losses that reach exactly 0 once the
gap is >= 1/(alpha - 1), and the sparsemax loss for multi-label targets."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer.drawing import figures, ui
from explorer.drawing.colors import ALPHA_MAPPINGS, EXTRA_COLORS, mapping_color
from explorer.i18n import mapping_label, t
from explorer.session import state
from views.losses import compute as losses_compute
from views.registry import PAGES

declared = PAGES["losses"].option  # this page's own controls (views/registry.py)

ui.header("page.losses", "losses.intro")
ctl = state.controls(mappings=False, target=True)
labels = ctl.labels
margins = losses_compute.MARGINS
index = np.arange(ctl.n)


# ---------------------------------------------------------------- stop-gradient surrogate
@ui.fragment
def surrogate_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("losses.surrogate"))
    st.markdown(t("losses.surrogate_text"))
    st.latex(
        r"L_{\mathrm{sg}}(x) = \operatorname{sg}\!\big(p(x) - e_t\big)^{\top} x,\qquad "
        r"\nabla_x L_{\mathrm{sg}} = p(x) - e_t"
    )
    surrogate = losses_compute.surrogate_gradients(ctl.x, ctl.target)
    shown = [name for name in ctl.mappings if name in surrogate] or list(surrogate)
    ui.show_figure(
        figures.bars_and_markers(
            index,
            ctl.logits,
            [figures.mapping_bars(name, labels[name], surrogate[name]["grad"]) for name in shown],
            [
                figures.mapping_bars(
                    name, t("losses.p_minus_onehot", mapping=labels[name]), surrogate[name]["p_minus_onehot"]
                )
                for name in shown
            ],
            t("losses.surrogate_title", target=ctl.target),
            t("losses.gradient_axis"),
            t("fig.mapping"),
        ),
        "losses_surrogate",
        table=lambda: pd.DataFrame(
            {f"{name}_{key}": surrogate[name][key] for name in shown for key in ("grad", "p_minus_onehot")}
        ),
    )
    worst = max(float(np.abs(surrogate[name]["grad"] - surrogate[name]["p_minus_onehot"]).max()) for name in shown)
    st.caption(
        t(
            "losses.surrogate_note",
            worst=f"{worst:.1e}",
            values=", ".join(f"{labels[name]} {surrogate[name]['value']:.4g}" for name in shown),
        )
    )


surrogate_section()


# ---------------------------------------------------------------- -p_t
@ui.fragment
def neg_prob_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("losses.accuracy"))
    st.markdown(t("losses.accuracy_text"))
    n_acc = int(state.page_slider(declared("losses_n"), t("losses.n"), 1))
    acc = losses_compute.accuracy_losses(n_acc)
    left, right = st.columns(2)
    with left:
        ui.show_figure(
            figures.line_chart(
                margins,
                [
                    figures.Curve(t("losses.ce"), acc["ce"], mapping_color("softmax")),
                    figures.Curve(t("losses.neg_p"), acc["neg_p"], EXTRA_COLORS["hinge"], "dash"),
                ],
                t("losses.t_axis", n=n_acc),
                t("fig.loss"),
                t("losses.accuracy_title", n=n_acc),
            ),
            "losses_accuracy",
            table=lambda: pd.DataFrame(acc),
        )
    with right:
        ui.show_figure(
            figures.line_chart(
                margins,
                [
                    figures.Curve(t("losses.ce_grad"), np.abs(acc["ce_grad"]), mapping_color("softmax")),
                    figures.Curve(t("losses.neg_p_grad"), np.abs(acc["neg_p_grad"]), EXTRA_COLORS["hinge"], "dash"),
                ],
                t("losses.t_axis", n=n_acc),
                t("losses.grad_abs_axis"),
                t("losses.accuracy_grad_title"),
                log_y=True,
            ),
            "losses_accuracy_grad",
            table=lambda: pd.DataFrame(acc),
        )
    at = int(np.argmin(np.abs(margins + 6.0)))
    st.caption(
        t(
            "losses.accuracy_note",
            t=f"{margins[at]:g}",
            ce=f"{abs(acc['ce_grad'][at]):.3g}",
            neg=f"{abs(acc['neg_p_grad'][at]):.3g}",
            ratio=f"{abs(acc['ce_grad'][at] / acc['neg_p_grad'][at]):.3g}",
        )
    )


neg_prob_section()


# ---------------------------------------------------------------- CE with sparsemax
@ui.fragment
def sparse_ce_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("losses.sparse_ce"))
    st.markdown(t("losses.sparse_ce_text"))
    st.latex(
        r"-\log p_t = +\infty \ \text{ when } p_t = 0;\qquad "
        r"L_\varepsilon = -\log\frac{p_t + \varepsilon}{1 + n\varepsilon}"
    )
    c1, c2 = st.columns(2)
    with c1:
        log_eps = state.page_slider(declared("losses_log_eps"), t("losses.log_eps"), 0.5)
    with c2:
        n_sp = int(state.page_slider(declared("losses_sparse_n"), t("losses.n"), 1))
    eps = float(10.0**log_eps)
    sp = losses_compute.sparsemax_cross_entropy(eps, n_sp)
    left, right = st.columns(2)
    with left:
        ui.show_figure(
            figures.line_chart(
                margins,
                [
                    figures.Curve(
                        t("losses.plain_ce"),
                        np.where(np.isfinite(sp["plain"]), sp["plain"], np.nan),
                        EXTRA_COLORS["hinge"],
                        "dot",
                    ),
                    figures.Curve(
                        t("losses.smoothed", eps=f"{eps:.0e}"), sp["smoothed"], mapping_color("taylor_softmax")
                    ),
                    figures.Curve(t("losses.sparsemax_loss"), sp["sparsemax"], mapping_color("sparsemax"), "dash"),
                ],
                t("losses.t_axis", n=n_sp),
                t("fig.loss"),
                t("losses.sparse_ce_title", n=n_sp),
            ),
            "losses_sparse_ce",
            table=lambda: pd.DataFrame({k: v for k, v in sp.items() if np.ndim(v)}),
        )
    with right:
        ui.show_figure(
            figures.line_chart(
                margins,
                [
                    figures.Curve(
                        t("losses.smoothed", eps=f"{eps:.0e}"), sp["smoothed_grad"], mapping_color("taylor_softmax")
                    ),
                    figures.Curve(t("losses.sparsemax_loss"), sp["sparsemax_grad"], mapping_color("sparsemax"), "dash"),
                ],
                t("losses.t_axis", n=n_sp),
                t("losses.grad_axis"),
                t("losses.sparse_grad_title"),
            ),
            "losses_sparse_grad",
            table=lambda: pd.DataFrame({k: v for k, v in sp.items() if np.ndim(v)}),
        )
    dead = margins[sp["p0"] == 0]
    st.caption(
        t(
            "losses.sparse_ce_note",
            dead=f"{dead.max():.3g}" if len(dead) else "—",
            flat=f"{np.log1p(n_sp * eps) - np.log(eps):.4g}",
            smoothed=f"{sp['smoothed_curvature']:.3g}",
            sparsemax=f"{sp['sparsemax_curvature']:.1e}",
        )
    )


sparse_ce_section()


# ---------------------------------------------------------------- exact zeros
@ui.fragment
def zeros_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("losses.zero"))
    st.markdown(t("losses.zero_text"))
    alpha = float(state.page_slider(declared("losses_alpha"), t("losses.alpha"), 0.05))
    alphas = tuple(dict.fromkeys((1.0, 1.5, 2.0, alpha)))
    zero = losses_compute.zero_loss_curves(alphas)
    fig = figures.line_chart(
        margins,
        [  # each alpha with its mapping's colour and dash; the chosen one with markers too
            figures.mapping_curve(
                ALPHA_MAPPINGS.get(a, "entmax"),
                t("losses.alpha_curve", alpha=f"{a:g}"),
                zero[a],
                "lines+markers" if a == alpha else "lines",
            )
            for a in alphas
        ],
        t("losses.gap_axis"),
        t("fig.loss"),
        t("losses.zero_title"),
        legend_title="α",
    )
    fig.add_vline(
        x=1 / (alpha - 1),
        line_dash="dash",
        line_color=mapping_color("entmax"),
        annotation_text=f"1/(α − 1) = {1 / (alpha - 1):.3g}",
    )
    ui.show_figure(
        fig, "losses_zero", table=lambda: pd.DataFrame({"t": margins, **{f"alpha_{a:g}": zero[a] for a in alphas}})
    )
    reached = losses_compute.first_zero(margins, zero[alpha])
    if np.isnan(reached):  # 1/(alpha - 1) beyond the grid: no zero to show on it
        st.caption(
            t(
                "losses.zero_note_beyond",
                alpha=f"{alpha:g}",
                bound=f"{1 / (alpha - 1):.4g}",
                end=f"{margins[-1]:g}",
                least=f"{zero[alpha].min():.3g}",
                ce=f"{zero[1.0].min():.3g}",
            )
        )
    else:
        st.caption(
            t(
                "losses.zero_note",
                alpha=f"{alpha:g}",
                bound=f"{1 / (alpha - 1):.4g}",
                reached=f"{reached:.4g}",
                step=f"{margins[1] - margins[0]:.3g}",
                ce=f"{zero[1.0].min():.3g}",
                end=f"{margins[-1]:g}",
            )
        )


zeros_section()


# ---------------------------------------------------------------- multi-label
@ui.fragment
def multilabel_section() -> None:
    """This section's controls and what they change: a step reruns only it."""
    st.subheader(t("losses.multilabel"))
    st.markdown(t("losses.multilabel_text"))
    st.latex(
        r"L(z; q) = -q^{\top} z + \tfrac12 \sum_{j \in S(z)} \big(z_j^2 - \lambda(z)^2\big) + \tfrac12 \lVert q\rVert^2,"
        r"\qquad \nabla_z L = \operatorname{sparsemax}(z) - q"
    )
    c1, c2 = st.columns(2)
    with c1:
        n_labels = int(state.page_slider(declared("losses_labels"), t("losses.labels"), 1))
    with c2:
        steps = int(state.page_slider(declared("losses_steps"), t("losses.steps"), 5))
    n_labels = min(n_labels, ctl.n)
    run = losses_compute.multilabel_training(ctl.x, n_labels, steps, 0.5)
    value, p, grad = losses_compute.multilabel_sparsemax_loss(ctl.logits, run["q"])
    left, right = st.columns(2)
    with left:
        ui.show_figure(
            figures.bars_and_markers(
                index,
                ctl.logits,
                [
                    figures.mapping_bars("entmax", t("losses.after", steps=steps), run["p"]),
                    figures.mapping_bars("sparsemax", mapping_label("sparsemax"), p),
                ],
                [figures.BarSeries(t("losses.q", m=n_labels), run["q"], EXTRA_COLORS["hinge"])],
                t("losses.multilabel_title", m=n_labels),
                t("fig.probability"),
                t("fig.legend"),
            ),
            "losses_multilabel",
            table=lambda: pd.DataFrame(
                {"logit": ctl.logits, "q": run["q"], "p": p, "gradient": grad, "p_after": run["p"]}
            ),
        )
    with right:
        ui.show_figure(
            figures.line_chart(
                np.arange(steps + 1),
                [figures.Curve(t("losses.multilabel_loss"), run["loss"], mapping_color("sparsemax"))],
                t("losses.step_axis"),
                t("fig.loss"),
                t("losses.training_title"),
            ),
            "losses_multilabel_training",
            table=lambda: pd.DataFrame({"step": np.arange(steps + 1), "loss": run["loss"], "support": run["support"]}),
        )
    predicted, _, _ = losses_compute.predicted_labels(p)
    final, tiny, largest = losses_compute.predicted_labels(run["p"])
    st.caption(
        t(
            "losses.multilabel_note",
            loss=f"{value:.4g}",
            support=predicted,
            m=n_labels,
            steps=steps,
            final=f"{run['loss'][-1]:.2e}",
            final_support=final,
        )
    )
    if tiny:
        st.caption(t("losses.multilabel_tiny", count=tiny, largest=f"{largest:.2g}"))


multilabel_section()

# ---------------------------------------------------------------- the sparsemax loss derived, the entmax loss written out


def derivation_section() -> None:
    st.subheader(t("losses.derivation"))
    st.markdown(t("losses.derivation_text"))
    st.latex(
        r"L_t(x) = \tfrac12 - x_t + \tfrac12 \sum_{i \in S} \big(x_i^2 - \lambda^2\big),\quad "
        r"\lambda = \frac{\sum_{i \in S} x_i - 1}{|S|},\quad \frac{\partial \lambda}{\partial x_j} = \frac{[j \in S]}{|S|}"
        r"\ \Rightarrow\ \nabla_x L_t = p - e_t"
    )
    d = losses_compute.sparsemax_loss_derivation(ctl.x, ctl.target)
    st.caption(
        t(
            "losses.derivation_note",
            target=ctl.target,
            lam=f"{d['lambda']:.6g}",
            support=", ".join(str(i) for i in np.flatnonzero(d["support"])),
            written=f"{d['written']:.6g}",
            lib=f"{d['probcore']:.6g}",
            dlam=", ".join(f"{v:.4g}" for v in d["dlam"][: state.TOP_VIEW]),
            gdiff=f"{np.abs(d['grad'] - d['p_minus_onehot']).max():.1e}",
            plam=f"{d['perfect_lambda']:g}",
            tail=f"{d['perfect_tail']:g}",
        )
    )


derivation_section()


def fenchel_young_section() -> None:
    st.subheader(t("losses.fy"))
    st.markdown(t("losses.fy_text"))
    st.latex(
        r"L_\alpha(z; t) = \langle p - e_t,\, z\rangle + H_\alpha(p),\quad p = \alpha\text{-entmax}(z),\quad "
        r"H_\alpha(p) = \frac{1 - \sum_i p_i^\alpha}{\alpha(\alpha - 1)},\quad \nabla_z L_\alpha = p - e_t"
    )
    rows = losses_compute.fenchel_young_table(ctl.x, ctl.target)
    columns = ("H_α(p)", "⟨p − eₜ, z⟩ + H_α(p)", "probcore.losses.entmax_loss")  # formulas: the same in both languages
    st.dataframe(
        pd.DataFrame(
            {
                "α": [r["alpha"] for r in rows],
                **{
                    column: [r[field] for r in rows]
                    for column, field in zip(columns, ("tsallis", "written", "probcore"))
                },
            }
        ),
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.6g") for c in columns},
    )
    st.caption(
        t("losses.fy_note", target=ctl.target, diff=f"{max(abs(r['written'] - r['probcore']) for r in rows):.1e}")
    )


fenchel_young_section()
