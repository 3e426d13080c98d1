"""Simplex (n = 3): each mapping's p in the probability triangle, the logits against their
Euclidean projection (sparsemax), the paths of p as the temperature and alpha vary, and the image
of a grid of logits. A logit step reruns only the part that depends on the logits; the grid
images (independent of the logits) rerun with their radius or the mappings."""

import streamlit as st

from explorer import compute
from explorer.drawing import ui
from explorer.i18n import t
from explorer.live import runs_javascript, simplex_view
from explorer.session import state
from views.registry import PAGES
from views.simplex import compute as simplex_compute
from views.simplex import figures as simplex_figures

declared = PAGES["simplex"].option  # this page's own controls (views/registry.py)

ui.header("page.simplex", "simplex.intro")
state.mapping_controls(expanded=not runs_javascript())


def axes_of(x) -> tuple[str, str, str]:
    return tuple(f"p{i} (x{i} = {v:.3g})" for i, v in enumerate(x))


@ui.fragment
def live() -> None:
    ctl = state.controls(expanded=not runs_javascript())
    if ctl.n != 3:
        st.warning(t("simplex.need3", n=ctl.n))
    x = ctl.logits[:3]
    xs = tuple(float(v) for v in x)
    labels = ctl.labels
    axes = axes_of(x)

    points = ui.per_mapping(ctl, lambda name: compute.probabilities(name, xs, ctl.kw(name), ctl.target, ctl.seed))

    def server_figures() -> None:
        left, right = st.columns(2)
        with left:
            ui.show_figure(
                simplex_figures.simplex_points(points, labels, axes),
                "simplex_points",
                table=lambda: ui.frame_rows(points, labels, ("p0", "p1", "p2")),
            )
        with right:
            projection = compute.probabilities("sparsemax", xs, state.default_kw("sparsemax"))
            ui.show_figure(
                simplex_figures.projection_plane(x, {**points, "sparsemax": projection}, "sparsemax", labels),
                "simplex_projection",
            )

    simplex_view(ctl, server_figures)
    st.caption(t("simplex.projection_note"))

    def sharpened() -> str:
        """Support and largest p of each mapping at 3x the logits (computed)."""
        rows = ui.per_mapping(
            ctl,
            lambda name: compute.probabilities(name, tuple(3.0 * v for v in xs), ctl.kw(name), ctl.target, ctl.seed),
            quiet=True,
        )
        return t(
            "q_simplex.a",
            rows="; ".join(
                f"{labels[name]}: max p {points[name].max():.3f} (x{points[name].argmax()}) → {p.max():.3f} (x{p.argmax()}), "
                f"{compute.support_size(points[name])} → {compute.support_size(p)}"
                for name, p in rows.items()
                if name in points
            ),
        )

    ui.predict(
        "q_simplex.q",
        ("q_simplex.c0", "q_simplex.c1", "q_simplex.c2"),
        1,
        sharpened,
        (t("q_simplex.do"), lambda: state.set_logits(ctl.logits * 3.0)),
    )

    st.subheader(t("simplex.paths"))
    left, right = st.columns(2)
    with left:
        paths = ui.per_mapping(
            ctl, lambda name: compute.temperature_sweep(name, xs, ctl.kw(name), ctl.target, ctl.seed)
        )
        ui.show_figure(
            simplex_figures.simplex_paths(
                paths, compute.TEMPERATURES, "T", labels, axes, t("simplex.temperature_path")
            ),
            "simplex_temperature_path",
        )
        ends = "; ".join(
            f"{labels[name]}: ({ui.vector(path[0])[1:-1]}) → ({ui.vector(path[-1])[1:-1]})"
            for name, path in paths.items()
        )
        st.caption(t("simplex.temperature_note", low=compute.TEMPERATURES[0], high=compute.TEMPERATURES[-1], ends=ends))
    with right:
        alpha_maps = [name for name in compute.alpha_names() if name in ctl.mappings]
        alpha_paths = ui.per_mapping(
            ctl, lambda name: compute.alpha_sweep(name, xs, ctl.kw(name), ctl.target, ctl.seed), alpha_maps
        )
        if alpha_paths:
            ui.show_figure(
                simplex_figures.simplex_paths(alpha_paths, compute.ALPHAS, "α", labels, axes, t("simplex.alpha_path")),
                "simplex_alpha_path",
            )
            st.caption(t("simplex.alpha_note", high=f"{compute.ALPHAS[-1]:g}"))
        else:
            st.info(t("ui.no_alpha"))


@ui.fragment
def grid_images() -> None:
    """The image of a grid of logits: it does not depend on the logits, so a logit step leaves it
    alone; its radius reruns only this fragment."""
    ctl, _ = state.checked()  # the mappings' checked parameters (messages: shown by live())
    radius = state.page_slider(declared("radius"), t("simplex.radius"), 0.5)
    clouds = ui.per_mapping(
        ctl,
        lambda name: simplex_compute.simplex_image(name, ctl.kw(name), radius, 41, ctl.target, ctl.seed),
        quiet=True,
    )
    if clouds:
        ui.show_figure(simplex_figures.simplex_images(clouds, ctl.labels, axes_of(ctl.logits[:3])), "simplex_images")
        st.caption(t("simplex.images_note", radius=radius))


live()
st.subheader(t("simplex.images"))
grid_images()
