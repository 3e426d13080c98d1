"""Perturb-max and Gumbel: Gumbel-max sampling converging to softmax, perturb-max with other
noises (exact quadrature against Monte-Carlo), and Gumbel-softmax samples at a temperature."""

import numpy as np
import pandas as pd
import pyarrow as pa
import streamlit as st

from explorer import compute
from explorer.drawing import figures, prose, ui
from explorer.drawing.colors import mapping_color
from explorer.i18n import t
from explorer.session import state
from probcore._validate import NOISES
from views.perturb import compute as perturb_compute
from views.registry import PAGES
from views.perturb import figures as perturb_figures

declared = PAGES["perturb"].option  # this page's own controls (views/registry.py)

UNIFORM_QUAD_MAX_N = 300  # the uniform-noise quadrature is O(m^2) for the m logits above max - 1: ~0.3 s at m = 300

ui.header("page.perturb", "perturb.intro")
ctl = state.controls(mappings=False)
x, n, seed = ctl.logits, ctl.n, ctl.seed
softmax_p = compute.probabilities("softmax", ctl.x, compute.items({}))


NOISE_LABELS = {
    "gumbel": "perturb.noise_gumbel",
    "normal": "perturb.noise_normal",
    "uniform": "perturb.noise_uniform",
    "logistic": "perturb.noise_logistic",
}  # probcore._validate.NOISES -> i18n key


def noise_label(noise: str) -> str:
    return t(NOISE_LABELS[noise])


def total_variation(f: np.ndarray, p: np.ndarray) -> np.ndarray:
    """½ Σ |f - p| along the last axis."""
    return 0.5 * np.abs(f - p).sum(axis=-1)


shown_notes: set[str] = set()  # this run's (the script runs afresh each time)


def top_caption(index: np.ndarray) -> None:
    """The top-classes note, once per run (the three sections use the same rule)."""
    if len(index) < n and "top" not in shown_notes:
        shown_notes.add("top")
        st.caption(t("ui.top_view", top=len(index), n=n))


@ui.fragment
def sampled() -> None:
    """(a) Gumbel-max and (b) perturb-max: the sample count drives both; a step of it or of the
    noises reruns only this part of the page."""
    shown_notes.clear()
    samples = state.page_option(
        declared("perturb_samples"),
        lambda key: st.select_slider(
            t("perturb.samples"),
            perturb_compute.SAMPLE_GRID,
            key=key,
            format_func=lambda v: f"{v:,}",
            persist_state="session",
        ),
    )
    N = min(int(samples), perturb_compute.sample_cap(n))
    if N < samples:
        st.caption(t("perturb.capped", n=n, cap=N, budget=perturb_compute.MC_DRAW_BUDGET))
    st.caption(t("perturb.seed_note", seed=seed))

    # ---------------------------------------------------------------- (a) Gumbel-max
    prose.section(
        t("perturb.gumbel_max"),
        t("perturb.gumbel_max_text"),
        prose.formula(
            r"g_i = -\log(-\log u_i),\ u_i \sim \mathcal{U}(0, 1):\qquad "
            r"P\big[\arg\max_j\,(x_j + g_j) = i\big] = \operatorname{softmax}(x)_i = \frac{e^{x_i}}{\sum_j e^{x_j}}"
        ),
    )
    ns, freqs = perturb_compute.perturbmax_nested(ctl.x, "gumbel", N, seed)
    f = freqs[-1]
    index = compute.view_index(x, {"softmax": softmax_p, "frequency": f}, state.TOP_VIEW)
    top_caption(index)
    left, right = st.columns(2)
    with left:
        fig = figures.bars_and_markers(
            index,
            x[index],
            [figures.BarSeries(t("perturb.frequency"), f[index], mapping_color("gumbel_softmax"))],
            [figures.BarSeries(t("perturb.softmax_ref"), softmax_p[index], mapping_color("softmax"))],
            t("perturb.hist_title", N=N),
            t("perturb.freq_axis"),
            t("fig.legend"),
            symbol="line-ew-open",
        )
        ui.show_figure(
            fig,
            "perturb_gumbel_max",
            table=lambda: pd.DataFrame({"class": np.arange(n), "logit": x, "softmax": softmax_p, f"frequency_N{N}": f}),
        )
    tv = total_variation(freqs, softmax_p)
    max_err = np.abs(freqs - softmax_p).max(axis=1)
    clt = perturb_compute.clt_total_variation(softmax_p, ns)
    with right:
        curves = [
            figures.Curve(t("perturb.tv"), tv, mapping_color("gumbel_softmax")),
            figures.Curve(t("perturb.max_err"), max_err, mapping_color("perturbmax")),
            figures.Curve(t("perturb.clt"), clt, figures.ZERO_COLOR, "dash"),
        ]
        ui.show_figure(
            perturb_figures.error_chart(
                ns, curves, t("perturb.n_axis"), t("perturb.error_axis"), t("perturb.error_title")
            ),
            "perturb_gumbel_error",
            table=lambda: ui.curves_frame("N", ns, curves),
        )
    st.caption(t("perturb.error_note", N=N, tv=tv[-1], err=max_err[-1], clt=clt[-1]))

    # ---------------------------------------------------------------- (b) perturb-max
    prose.section(
        t("perturb.perturbmax"),
        t("perturb.perturbmax_text"),
        prose.formula(
            r"p_i = P\big[\arg\max_j\,(x_j + \varepsilon_j) = i\big] "
            r"= \mathbb{E}\big[\operatorname{onehot}(\arg\max(x + \varepsilon))\big]_i "
            r"= \int \varphi(t - x_i) \prod_{j \neq i} \Phi(t - x_j)\,dt "
            r"= \mathbb{E}_{\varepsilon}\Big[\prod_{j \neq i} \Phi(x_i - x_j + \varepsilon)\Big]"
        ),
    )
    chosen = state.page_option(
        declared("perturb_noises"),
        lambda key: st.pills(
            t("perturb.noises"),
            NOISES,
            selection_mode="multi",
            key=key,
            format_func=noise_label,
            persist_state="session",
        ),
    )
    noises = [nz for nz in NOISES if nz in (chosen or ())]
    contenders = int(
        np.count_nonzero(ctl.logits > ctl.logits.max() - 1)
    )  # the only ones uniform noise can lift to the top
    if "uniform" in noises and contenders > UNIFORM_QUAD_MAX_N:
        noises.remove("uniform")
        st.caption(t("perturb.uniform_skipped", limit=UNIFORM_QUAD_MAX_N, n=contenders))
    if not noises:
        st.info(t("perturb.no_noise"))
    else:
        quad = {
            nz: compute.probabilities("perturbmax", ctl.x, compute.items({"noise": nz, "temperature": 1.0}))
            for nz in noises
        }
        mc = {nz: perturb_compute.perturbmax_nested(ctl.x, nz, N, seed) for nz in noises}
        index = compute.view_index(x, quad, state.TOP_VIEW)
        top_caption(index)
        left, right = st.columns(2)
        with left:
            fig = figures.bars_and_markers(
                index,
                x[index],
                [
                    figures.BarSeries(
                        t("perturb.quad_label", noise=noise_label(nz)), quad[nz][index], perturb_figures.noise_color(nz)
                    )
                    for nz in noises
                ],
                [
                    figures.BarSeries(
                        t("perturb.mc_label", noise=noise_label(nz)),
                        mc[nz][1][-1][index],
                        perturb_figures.noise_color(nz),
                    )
                    for nz in noises
                ],
                t("perturb.quad_title", N=N),
                t("fig.probability"),
                t("perturb.noises"),
            )
            ui.show_figure(
                fig,
                "perturb_quadrature",
                table=lambda: pd.DataFrame(
                    {
                        "class": np.arange(n),
                        "logit": x,
                        **{f"{nz}_quadrature": quad[nz] for nz in noises},
                        **{f"{nz}_montecarlo_N{N}": mc[nz][1][-1] for nz in noises},
                    }
                ),
            )
        with right:
            curves = []
            for nz in noises:
                curves.append(
                    figures.Curve(
                        noise_label(nz), total_variation(mc[nz][1], quad[nz]), perturb_figures.noise_color(nz)
                    )
                )
            for nz in noises:
                curves.append(
                    figures.Curve(
                        t("perturb.clt_short", noise=noise_label(nz)),
                        perturb_compute.clt_total_variation(quad[nz], mc[nz][0]),
                        perturb_figures.noise_color(nz),
                        "dash",
                    )
                )
            ui.show_figure(
                perturb_figures.error_chart(
                    ns, curves, t("perturb.n_axis"), t("perturb.tv"), t("perturb.mc_error_title"), t("perturb.noises")
                ),
                "perturb_mc_error",
                table=lambda: ui.curves_frame("N", ns, curves),
            )
        errors = ", ".join(f"{noise_label(nz)} {np.abs(mc[nz][1][-1] - quad[nz]).max():.4f}" for nz in noises)
        gumbel_quad = compute.probabilities("perturbmax", ctl.x, compute.items({"noise": "gumbel", "temperature": 1.0}))
        st.caption(t("perturb.quad_note", N=N, errors=errors, gap=float(np.abs(gumbel_quad - softmax_p).max())))


sampled()

# ---------------------------------------------------------------- (c) Gumbel-softmax
prose.section(
    t("perturb.gumbel_softmax"),
    t("perturb.gumbel_softmax_text"),
    prose.formula(
        r"y = \operatorname{softmax}\!\Big(\frac{x + g}{T}\Big),\qquad "
        r"y^{\text{hard}} = \operatorname{onehot}(\arg\max_i y_i) + y - \operatorname{sg}(y),\qquad "
        r"y \xrightarrow[T \to 0]{} \operatorname{onehot}\big(\arg\max_i\,(x_i + g_i)\big)"
    ),
)
TAU_LOW, TAU_HIGH = perturb_compute.TAU_CHOICES[0], perturb_compute.TAU_CHOICES[-1]


def tau_slider(key: str) -> float:
    """The temperature select-slider; a URL value off its grid (within [TAU_LOW, TAU_HIGH], which
    parse_option checks) is snapped to the nearest choice (in log scale) with a note."""
    value = st.session_state[key]
    if value not in perturb_compute.TAU_CHOICES:
        snapped = min(perturb_compute.TAU_CHOICES, key=lambda c: abs(np.log(c / value)))
        st.caption(t("perturb.tau_snapped", value=f"{value:g}", tau=snapped))
        st.session_state[key] = snapped
    return st.select_slider(
        t("perturb.tau"), perturb_compute.TAU_CHOICES, key=key, format_func=lambda v: f"{v:g}", persist_state="session"
    )


@ui.fragment
def gumbel_softmax() -> None:
    """(c) Gumbel-softmax samples: its temperature and draws rerun only this part."""
    c1, c2 = st.columns(2)
    with c1:
        tau = state.page_option(declared("perturb_tau"), tau_slider)
    with c2:
        draws = state.page_option(
            declared("perturb_draws"),
            lambda key: state.slider(t("perturb.draws"), 1, 12, key),
        )
    soft, hard = perturb_compute.gumbel_softmax_draws(ctl.x, float(tau), int(draws), seed)
    index = compute.view_index(x, {"softmax": softmax_p}, state.TOP_VIEW)
    top_caption(index)
    left, right = st.columns(2)
    with left:
        fig = perturb_figures.sample_strips(
            index,
            soft[:, index],
            hard[:, index],
            (t("perturb.soft"), t("perturb.hard")),
            t("perturb.strips_title", draws=int(draws), tau=float(tau)),
        )
        ui.show_figure(
            fig,
            "perturb_gumbel_softmax",
            table=lambda: pd.DataFrame(
                [[r, kind, *row] for kind, rows in (("soft", soft), ("hard", hard)) for r, row in enumerate(rows)],
                columns=["sample", "kind", *[f"class_{i}" for i in range(n)]],
            ),
        )
    with right:
        taus = np.array(perturb_compute.TAUS)
        sharp = perturb_compute.gumbel_softmax_sharpness(ctl.x, seed)
        fig = perturb_figures.sharpness_curve(
            taus, sharp, float(tau), n, t("perturb.sharpness_title", draws=perturb_compute.SHARPNESS_DRAWS)
        )
        ui.show_figure(fig, "perturb_sharpness", table=lambda: pd.DataFrame({"tau": taus, "mean_max_y": sharp}))
    st.caption(t("perturb.strip_note", seed=seed))


gumbel_softmax()

# ---------------------------------------------------------------- quantiles instead of samples; a smooth accuracy


def quantile_section() -> None:
    prose.section(
        t("perturb.quantiles"),
        t("perturb.quantiles_text"),
        prose.formula(
            r"p_i = \mathbb{E}_\varepsilon\Big[\prod_{j \ne i} \Phi(x_i - x_j + \varepsilon)\Big] \approx \frac1M \sum_{m=1}^{M}"
            r" \prod_{j \ne i} \Phi(x_i - x_j + \varepsilon_m),\quad \varepsilon_m = \Phi^{-1}\Big(\frac{m - 1/2}{M}\Big);"
            r"\qquad \mathbf 1[\arg\max x = t] \approx P[\arg\max(x + T\varepsilon) = t]"
        ),
    )
    if ctl.n > perturb_compute.QUANTILE_MAX_N:
        st.caption(t("perturb.quantiles_large_n", limit=perturb_compute.QUANTILE_MAX_N, n=ctl.n))
        return
    q = perturb_compute.quantile_perturbmax(ctl.x)
    acc = perturb_compute.smooth_accuracy(ctl.x, 0)
    left, right = st.columns(2)
    with left:
        st.dataframe(
            pa.table({"M": list(q["errors"]), t("perturb.col_quantile_error"): list(q["errors"].values())}),
            hide_index=True,
            column_config={t("perturb.col_quantile_error"): st.column_config.NumberColumn(format="%.2e")},
        )
    with right:
        smooth = "p₀ = P[argmax(x + Tε) = 0]"  # a formula: the same in both languages
        st.dataframe(
            pa.table({"T": list(acc["p_t"]), smooth: list(acc["p_t"].values())}),
            hide_index=True,
            column_config={smooth: st.column_config.NumberColumn(format="%.4f")},
        )
    st.caption(t("perturb.quantiles_note", accuracy=f"{acc['accuracy']:g}"))


quantile_section()
