"""Large vocabularies page figures: the Huffman tree, code lengths and their bound, log Z estimates,
bias and variance of sampled softmax, NCE and the costs."""

from __future__ import annotations

import numpy as np
import plotly.graph_objects as go

from explorer.drawing.figures import Curve, finish, line_chart, panels
from explorer.drawing.plain_figure import PlainFigure
from explorer.i18n import t

PROPOSAL_SYMBOLS = {"uniform": "diamond", "unigram": "circle"}
PROPOSAL_DASHES = {"uniform": "dash", "unigram": "dot"}  # their theory curves
VOCAB_COLORS = {
    "uniform": "#E45756",
    "unigram": "#4C78A8",
    "exact": "#8C8C8C",
    "full": "#4C78A8",
    "hierarchical": "#53A04A",
    "sampled": "#DD720A",
    "classes": "#4C78A8",
    "mass": "#DD720A",
    "entropy": "#53A04A",
    "expected": "#E45756",
    "log2_n": "#8C8C8C",
    "max_length": "#B279A2",
}


def _tree_layout(nodes: np.ndarray, codes: np.ndarray, lengths: np.ndarray):
    """Positions of a binary code tree: leaves left to right in code order (x = 0, 1, ...),
    an internal node above the middle of its children, y = -depth. Returns (internal (n-1, 2),
    leaves (n, 2), edges [(parent xy, child xy, bit)])."""
    n = len(lengths)
    children: dict[int, dict[int, tuple[str, int]]] = {}
    for i in range(n):
        path, bits = nodes[i, : lengths[i]], codes[i, : lengths[i]]
        for k, (v, bit) in enumerate(zip(path, bits)):
            child = ("node", int(path[k + 1])) if k + 1 < lengths[i] else ("leaf", i)
            children.setdefault(int(v), {})[int(bit)] = child
    internal, leaves = np.zeros((max(n - 1, 0), 2)), np.zeros((n, 2))
    edges = []
    order = [0]

    def place(kind: str, idx: int, depth: int) -> tuple[float, float]:
        if kind == "leaf":
            leaves[idx] = (order[0], -depth)
            order[0] += 1
            return tuple(leaves[idx])
        xy = [place(*children[idx][bit], depth + 1) for bit in (0, 1)]
        internal[idx] = ((xy[0][0] + xy[1][0]) / 2, -depth)
        for bit in (0, 1):
            edges.append((tuple(internal[idx]), xy[bit], bit))
        return tuple(internal[idx])

    if n == 1:
        leaves[0] = (0, 0)
    else:
        place("node", 0, 0)
    return internal, leaves, edges


def vocab_tree(
    nodes: np.ndarray, codes: np.ndarray, lengths: np.ndarray, p: np.ndarray, freqs: np.ndarray, title: str
) -> go.Figure:
    """The Huffman tree: internal nodes (one sigmoid each), leaves = classes coloured by their
    hierarchical-softmax probability, edges labelled with the code bit (0 = left, 1 = right)."""
    internal, leaves, edges = _tree_layout(nodes, codes, lengths)
    fig = PlainFigure()
    xs, ys = [], []
    for (x0, y0), (x1, y1), _ in edges:
        xs += [x0, x1, None]
        ys += [y0, y1, None]
    fig.add_scatter(
        x=xs,
        y=ys,
        mode="lines",
        name=t("vocab.fig_edge"),
        line=dict(color=VOCAB_COLORS["exact"], width=1.2),
        hoverinfo="skip",
    )
    mid = np.array([((a[0] + b[0]) / 2, (a[1] + b[1]) / 2) for a, b, _ in edges]).reshape(-1, 2)
    fig.add_scatter(
        x=mid[:, 0],
        y=mid[:, 1],
        mode="text",
        text=[str(bit) for *_, bit in edges],
        showlegend=False,
        name=t("vocab.fig_bit"),
        hoverinfo="skip",
        textfont=dict(color=VOCAB_COLORS["exact"]),
    )
    fig.add_scatter(
        x=internal[:, 0],
        y=internal[:, 1],
        mode="markers",
        name=t("vocab.fig_internal"),
        marker=dict(symbol="circle", size=10, color=VOCAB_COLORS["exact"]),
        customdata=np.arange(len(internal)),
        hovertemplate="node %{customdata}<extra></extra>",
    )
    code_text = ["".join(map(str, codes[i, : lengths[i]])) for i in range(len(lengths))]
    fig.add_scatter(
        x=leaves[:, 0],
        y=leaves[:, 1],
        mode="markers+text",
        name=t("vocab.fig_leaf"),
        text=[str(i) for i in range(len(lengths))],
        textposition="bottom center",
        marker=dict(
            symbol="square",
            size=14,
            color=p,
            colorscale="Viridis",
            cmin=0,
            colorbar=dict(title=dict(text=t("vocab.fig_hs_p"))),
        ),
        customdata=np.stack([np.arange(len(lengths)), freqs, p], axis=1),
        hovertext=code_text,
        hovertemplate="class %{customdata[0]}<br>code %{hovertext}<br>freq %{customdata[1]:.4g}"
        "<br>p_HS %{customdata[2]:.4g}<extra></extra>",
    )
    fig.update_xaxes(showticklabels=False, zeroline=False, showgrid=False)
    fig.update_yaxes(zeroline=False, dtick=1)
    fig.update_layout(title=title)
    finish(fig, t("vocab.fig_leaf_order"), t("vocab.fig_depth"), None, height=460)
    fig.update_layout(legend=dict(orientation="h", yanchor="top", y=-0.15, xanchor="left", x=0))
    return fig


def vocab_code_lengths(
    lengths: np.ndarray, freqs: np.ndarray, entropy: float, expected: float, log2_n: float, title: str
) -> go.Figure:
    """Share of classes and share of frequency mass at each code length, with the entropy H, the
    expected length E[len] (H <= E[len] < H + 1) and log2 n (a balanced tree) as vertical lines."""
    p = freqs / freqs.sum()
    ls = np.arange(1, int(lengths.max()) + 1)
    classes = np.array([(lengths == k).mean() for k in ls])
    mass = np.array([p[lengths == k].sum() for k in ls])
    fig = PlainFigure()
    fig.add_bar(
        x=ls,
        y=classes,
        name=t("vocab.fig_share_classes"),
        marker_color=VOCAB_COLORS["classes"],
        hovertemplate="len %{x}: %{y:.3f}<extra>%{fullData.name}</extra>",
    )
    fig.add_bar(
        x=ls,
        y=mass,
        name=t("vocab.fig_share_mass"),
        marker_color=VOCAB_COLORS["mass"],
        marker_pattern=dict(shape="/", solidity=0.3, fillmode="overlay", fgcolor="rgba(0, 0, 0, 0.55)"),
        hovertemplate="len %{x}: %{y:.3f}<extra>%{fullData.name}</extra>",
    )
    top = float(max(classes.max(), mass.max())) * 1.08
    for key, label, value, dash in (
        ("entropy", "vocab.fig_entropy", entropy, "dot"),
        ("expected", "vocab.fig_expected", expected, "solid"),
        ("log2_n", "vocab.fig_log2_n", log2_n, "dash"),
    ):
        fig.add_scatter(
            x=[value, value],
            y=[0, top],
            mode="lines",
            name=t(label, value=value),
            line=dict(color=VOCAB_COLORS[key], dash=dash, width=2.5),
            hoverinfo="name",
        )
    fig.update_layout(title=title, barmode="group")
    return finish(fig, t("vocab.fig_code_length"), t("vocab.fig_share"), None)


def vocab_bound(
    ns: np.ndarray, entropy: np.ndarray, expected: np.ndarray, log2_n: np.ndarray, max_length: np.ndarray, title: str
) -> go.Figure:
    """Expected Huffman path length against n, between the entropy H and H + 1, beside log2 n
    (a balanced tree, or the uniform distribution) and the longest path."""
    c = VOCAB_COLORS
    series = [
        Curve(t("vocab.fig_expected_n"), expected, c["expected"], mode="lines+markers"),
        Curve(t("vocab.fig_entropy_n"), entropy, c["entropy"], "dot", "lines"),
        Curve(t("vocab.fig_entropy_1"), entropy + 1, c["entropy"], "dash", "lines"),
        Curve(t("vocab.fig_log2_n_curve"), log2_n, c["log2_n"], "dash", "lines"),
        Curve(t("vocab.fig_max_length"), max_length, c["max_length"], "dot", "lines+markers"),
    ]
    return line_chart(ns, series, t("vocab.fig_n"), t("vocab.fig_bits"), title, log_x=True)


def vocab_log_z(
    ms: np.ndarray, stats: dict[str, dict[str, np.ndarray]], log_z: float, labels: dict[str, str], title: str
) -> go.Figure:
    """Mean of log Z_hat ± one standard deviation over the repeats, per proposal, against m, and the exact log Z."""
    series = [
        Curve(
            labels[q],
            s["log_z"] + s["log_z_bias"],
            VOCAB_COLORS[q],
            mode="lines+markers",
            error=np.sqrt(s["log_z_var"]),
            symbol=PROPOSAL_SYMBOLS.get(q),
        )  # told apart by their marker too, not by colour alone
        for q, s in stats.items()
    ]
    series.append(
        Curve(t("vocab.fig_exact_log_z", value=log_z), np.full(len(ms), log_z), VOCAB_COLORS["exact"], "dash", "lines")
    )
    return line_chart(
        ms, series, t("vocab.fig_m"), t("vocab.fig_log_z"), title, log_x=True, legend_title=t("vocab.fig_proposal")
    )


def vocab_bias_variance(
    ms: np.ndarray,
    stats: dict[str, dict[str, np.ndarray]],
    chi2: dict[str, float],
    repeats: int,
    labels: dict[str, str],
    title: str,
) -> go.Figure:
    """Left: bias mean(log Z_hat) - log Z (± 2 standard errors) and the large-m approximation
    -chi^2 / (2m), drawn where chi^2 / m <= 1. Right: Var[Z_hat / Z] measured and its exact value chi^2 / m."""
    bias, var = [], []
    for q, s in stats.items():
        theory = chi2[q] / ms
        symbol, dash = PROPOSAL_SYMBOLS.get(q), PROPOSAL_DASHES.get(q, "dash")  # not told apart by colour alone
        bias.append(
            Curve(
                labels[q],
                s["log_z_bias"],
                VOCAB_COLORS[q],
                mode="lines+markers",
                error=2 * np.sqrt(s["log_z_var"] / repeats),
                symbol=symbol,
            )
        )
        bias.append(
            Curve(
                t("vocab.fig_bias_theory", q=labels[q]),
                np.where(theory <= 1, -theory / 2, np.nan),
                VOCAB_COLORS[q],
                dash,
                "lines",
            )
        )
        var.append(Curve(labels[q], s["ratio_var"], VOCAB_COLORS[q], mode="markers", symbol=symbol))
        var.append(Curve(t("vocab.fig_var_theory", q=labels[q]), theory, VOCAB_COLORS[q], dash, "lines"))
    return panels(
        [ms, ms],
        [bias, var],
        [t("vocab.fig_m")] * 2,
        [t("vocab.fig_bias"), t("vocab.fig_var")],
        [t("vocab.fig_bias_title"), t("vocab.fig_var_title")],
        log_x=True,
        log_y=(False, True),
        title=title,
        legend_title=t("vocab.fig_proposal"),
    )


def vocab_grad_error(
    ms: np.ndarray, stats: dict[str, dict[str, np.ndarray]], labels: dict[str, str], title: str
) -> go.Figure:
    """Mean total-variation distance between the self-normalised gradient estimate and softmax(x)."""
    series = [
        Curve(labels[q], s["grad_tv"], VOCAB_COLORS[q], mode="lines+markers", symbol=PROPOSAL_SYMBOLS.get(q))
        for q, s in stats.items()
    ]
    return line_chart(
        ms,
        series,
        t("vocab.fig_m"),
        t("vocab.fig_grad_tv"),
        title,
        log_x=True,
        log_y=True,
        legend_title=t("vocab.fig_proposal"),
    )


def vocab_nce(ks: np.ndarray, nce: dict, title: str) -> go.Figure:
    """Left: NCE loss against k (mean ± sd over draws, its exact expectation, the large-k limit
    CE + log(k q_t) + 1). Right: relative L1 error of the NCE gradient against the softmax
    cross-entropy gradient p - onehot(t), for one draw and for the exact expectation."""
    c = VOCAB_COLORS
    loss = [
        Curve(t("vocab.fig_nce_sampled"), nce["loss_mean"], c["unigram"], "solid", "markers", nce["loss_sd"]),
        Curve(t("vocab.fig_nce_exact"), nce["loss_exact"], c["unigram"], "solid", "lines"),
        Curve(t("vocab.fig_nce_limit"), nce["loss_limit"], c["expected"], "dash", "lines"),
        Curve(t("vocab.fig_ce", value=nce["ce"]), np.full(len(ks), nce["ce"]), c["exact"], "dot", "lines"),
    ]
    grad = [
        Curve(t("vocab.fig_nce_grad_draw"), nce["grad_err_draw"], c["unigram"], "solid", "lines+markers"),
        Curve(t("vocab.fig_nce_grad_exact"), nce["grad_err_exact"], c["expected"], "dash", "lines+markers"),
    ]
    return panels(
        [ks, ks],
        [loss, grad],
        [t("vocab.fig_k")] * 2,
        [t("vocab.fig_loss"), t("vocab.fig_grad_rel")],
        [t("vocab.fig_nce_loss_title"), t("vocab.fig_nce_grad_title")],
        log_x=True,
        log_y=(False, True),
        title=title,
    )


def vocab_costs(ns: np.ndarray, seconds: dict[str, np.ndarray], labels: dict[str, str], title: str) -> go.Figure:
    """Measured wall time of one loss against n, log-log, per method."""
    series = [Curve(labels[meth], 1e3 * y, VOCAB_COLORS[meth], mode="lines+markers") for meth, y in seconds.items()]
    return line_chart(
        ns,
        series,
        t("vocab.fig_n"),
        t("vocab.fig_ms"),
        title,
        log_x=True,
        log_y=True,
        legend_title=t("vocab.fig_method"),
    )
