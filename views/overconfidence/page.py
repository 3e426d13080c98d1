"""Why sparse: the logit gap softmax cross-entropy forces (it grows like log n) against the top-k
sparse softmax one (log k), and a small live training run comparing softmax cross-entropy, top-k
sparse softmax, sparsemax and entmax losses from scratch and from a pretrained start. The run
starts on a button; its result stays in the session and the verdict is computed from it."""

import numpy as np
import pandas as pd
import streamlit as st

from explorer import training
from explorer.drawing import figures, prose, ui
from explorer.drawing.colors import mapping_color, mapping_cue
from explorer.i18n import t
from explorer.serving import jobs
from explorer.session import state
from views.overconfidence import compute as overconfidence_compute
from views.registry import PAGES

declared = PAGES["overconfidence"].option  # this page's own controls (views/registry.py)

RESULT = "_oc_result"  # session_state: the last run (settings, seconds, histories)
LOSS_LABELS = {
    "cross_entropy": "overconfidence.loss_cross_entropy",
    "sparse_softmax": "overconfidence.loss_sparse_softmax",
    "sparsemax": "overconfidence.loss_sparsemax",
    "entmax": "overconfidence.loss_entmax",
}  # training.LOSSES
PRETRAIN_STEPS = 150  # training.run_training's default
TIE = 0.01  # accuracy differences below this (1 point) count as "about equal"
SHORT = {"cross_entropy": "CE", "sparse_softmax": "top-k", "sparsemax": "sparsemax", "entmax": "entmax"}


ui.header("page.overconfidence", "overconfidence.intro")

# ---- (a) the bound
prose.section(
    t("overconfidence.bound"),
    t("overconfidence.bound_explain"),
    prose.formula(
        r"\varepsilon = \log\sum_j e^{s_j} - s_t \ \ge\ \log\bigl(1 + (n-1)\,e^{s_{\min} - s_{\max}}\bigr)"
        r"\ \Longrightarrow\ s_{\max} - s_{\min} \ \ge\ \log(n-1) - \log(e^{\varepsilon} - 1)"
    ),
    prose.formula(
        r"\text{top-}k:\quad \varepsilon = \log\sum_{j \in \text{top-}k} e^{s_j} - s_t"
        r"\ \Longrightarrow\ s_{\max} - s_{(k)} \ \ge\ \log(k-1) - \log(e^{\varepsilon} - 1)"
    ),
)


@ui.fragment
def bound() -> None:
    """The bound against n: its controls rerun only this fragment (not the training results below)."""
    c1, c2 = st.columns(2)
    with c1:
        eps = state.page_option(
            declared("oc_eps"),
            lambda key: st.number_input(
                t("overconfidence.eps"),
                min_value=1e-4,
                max_value=5.0,
                step=0.01,
                format="%g",
                key=key,
                persist_state="session",
                help=t("overconfidence.eps_help"),
            ),
        )
    with c2:
        k_bound = state.page_option(
            declared("oc_k"),
            lambda key: st.number_input(
                t("overconfidence.k"), min_value=2, max_value=10**6, step=1, key=key, persist_state="session"
            ),
        )
    eps, k_bound = float(eps), int(k_bound)
    n, ce_bound, topk_bound = overconfidence_compute.oc_bounds(eps, k_bound)
    curves = [
        figures.Curve(t("overconfidence.ce_curve"), ce_bound, mapping_color("softmax")),
        figures.Curve(t("overconfidence.topk_curve", k=k_bound), topk_bound, mapping_color("sparse_softmax"), "dash"),
    ]
    ui.show_figure(
        figures.line_chart(
            n.astype(float),
            curves,
            t("overconfidence.n_axis"),
            t("overconfidence.gap_axis"),
            t("overconfidence.bound_title", eps=f"{eps:g}"),
            log_x=True,
            legend_title=t("overconfidence.loss_legend"),
        ),
        "oc_bound",
        table=lambda: pd.DataFrame({"n": n, "cross_entropy_bound": ce_bound, f"top_{k_bound}_bound": topk_bound}),
    )
    st.caption(
        t(
            "overconfidence.bound_note",
            n=f"{n[-1]:,}",
            ce=f"{ce_bound[-1]:.2f}",
            k=k_bound,
            topk=f"{topk_bound[-1]:.2f}",
            p=f"{np.exp(-eps):.4f}",
        )
    )


bound()

# ---- why train with top-k: decoding drops the tail, and the cut logits get no gradient
TOPK_EXAMPLE = ((2.0, 1.0, 0.5, 0.0, -1.0), 0, 2)  # logits, target, k


def why_topk() -> None:
    prose.section(
        t("overconfidence.why_topk"),
        t("overconfidence.why_topk_text"),
        prose.formula(
            r"L_t = \log \sum_{i \in \Omega_k} e^{x_i} - x_t,\qquad \frac{\partial L_t}{\partial x_j} = 0"
            r"\quad \text{for } j \notin \Omega_k,\ j \ne t"
        ),
    )
    x, target, k = TOPK_EXAMPLE
    r = overconfidence_compute.topk_gradients(x, target, k)
    st.caption(
        t(
            "overconfidence.why_topk_note",
            x=", ".join(f"{v:g}" for v in x),
            target=target,
            k=k,
            mass=f"{r['dropped_mass']:.3f}",
            out=len(r["outside"]),
            ce=", ".join(f"{v:.3g}" for v in r["ce_outside"]),
            topk=", ".join(f"{v:g}" for v in r["topk_outside"]),
        )
    )


why_topk()

# ---- (b) the training demo
prose.section(t("overconfidence.train"), t("overconfidence.train_explain"))
c1, c2, c3, c4 = st.columns(4)
with c1:
    steps = state.page_slider(declared("oc_steps"), t("overconfidence.steps"), 10)
with c2:
    n_classes = state.page_slider(declared("oc_classes"), t("overconfidence.classes"), 5)
with c3:
    k_train = state.page_option(
        declared("oc_train_k"),
        lambda key: st.number_input(
            t("overconfidence.train_k"), min_value=2, max_value=100, step=1, key=key, persist_state="session"
        ),
    )
with c4:
    seed = state.page_option(
        declared("oc_seed"),
        lambda key: st.number_input(
            t("overconfidence.seed"), min_value=0, max_value=10**6, step=1, key=key, persist_state="session"
        ),
    )
steps, n_classes, k_train, seed = int(steps), int(n_classes), int(k_train), int(seed)
if k_train >= n_classes:
    st.warning(t("overconfidence.k_too_big", k=k_train, n=n_classes, used=n_classes - 1))
    k_train = n_classes - 1
settings = dict(steps=steps, n_classes=n_classes, k=k_train, seed=seed)
# The time stated is measured, never promised: the last run on this server, scaled to these settings.
estimate = overconfidence_compute.oc_estimate(steps, n_classes, pretrain_steps=PRETRAIN_STEPS)
updates = overconfidence_compute.oc_updates(steps, pretrain_steps=PRETRAIN_STEPS)
if estimate is None:
    st.caption(t("overconfidence.duration_unmeasured", updates=updates))
else:
    last_seconds, last_steps, last_classes = overconfidence_compute.last_run()
    st.caption(
        t(
            "overconfidence.duration",
            updates=updates,
            seconds=f"{estimate:.1f}",
            last=f"{last_seconds:.1f}",
            last_steps=last_steps,
            last_classes=last_classes,
        )
    )

if st.button(t("overconfidence.run"), key="oc_run", type="primary", icon=":material/play_arrow:"):
    jobs.submit(
        "overconfidence", tuple(settings.items()), jobs.training_demo(**settings, pretrain_steps=PRETRAIN_STEPS)
    )
job = jobs.follow(
    "overconfidence",
    lambda d: (
        t(
            "overconfidence.progress",
            loss=t(LOSS_LABELS[d["loss"]]),
            start=t("overconfidence.pretrained" if d["pretrained"] else "overconfidence.scratch"),
            step=d["step"],
            steps=d["steps"],
        )
        if d
        else t("overconfidence.pretraining")
    ),
)
if job is not None:  # this session's run (or the identical one it joined) has finished
    used = dict(job.key[1])
    st.session_state[RESULT] = {"settings": used, "seconds": job.seconds, "history": job.result}
    overconfidence_compute.record_run(job.seconds, used["steps"], used["n_classes"])

result = st.session_state.get(RESULT)
if result is None:
    st.info(t("overconfidence.not_run"))
else:
    used = result["settings"]
    st.caption(
        t(
            "overconfidence.ran",
            seconds=f"{result['seconds']:.1f}",
            steps=used["steps"],
            n=used["n_classes"],
            k=used["k"],
            seed=used["seed"],
        )
    )
    if used != settings:
        st.warning(t("overconfidence.stale"))
    history = result["history"]
    names = list(training.LOSSES)
    starts = (False, True)
    label = {name: t(LOSS_LABELS[name]) for name in names}

    def final(name, start, metric):
        return history[(name, start)][metric][-1]

    # the verdict, from this run's numbers
    lines = []
    for start in starts:
        accs = ", ".join(f"{SHORT[name]} {final(name, start, 'test_accuracy'):.3f}" for name in names)
        where = t("overconfidence.pretrained") if start else t("overconfidence.scratch")
        lines.append(t("overconfidence.final_line", start=where, accs=accs))
    diff = {
        start: final("sparse_softmax", start, "test_accuracy") - final("cross_entropy", start, "test_accuracy")
        for start in starts
    }

    def compare(d):
        return (
            t("overconfidence.better", d=f"{100 * d:.1f}")
            if d >= TIE
            else (
                t("overconfidence.worse", d=f"{-100 * d:.1f}")
                if d <= -TIE
                else t("overconfidence.equal", d=f"{100 * d:+.1f}")
            )
        )

    lines.append(t("overconfidence.topk_scratch", cmp=compare(diff[False])))
    lines.append(t("overconfidence.topk_pretrained", cmp=compare(diff[True])))
    supported = diff[True] >= TIE and diff[False] <= -TIE
    sparse_gap = [
        final(name, start, "test_accuracy") - final("cross_entropy", start, "test_accuracy")
        for name in ("sparsemax", "entmax")
        for start in starts
    ]
    lines.append(
        t("overconfidence.sparse_line", low=f"{100 * min(sparse_gap):+.1f}", high=f"{100 * max(sparse_gap):+.1f}")
    )
    gaps = {name: final(name, False, "logit_gap") for name in names}
    lines.append(t("overconfidence.gap_line", gaps=", ".join(f"{SHORT[name]} {g:.1f}" for name, g in gaps.items())))
    st.markdown("\n".join(f"- {line}" for line in lines))
    if supported:
        st.success(t("overconfidence.verdict_yes", tie=f"{100 * TIE:g}"))
    else:
        st.warning(t("overconfidence.verdict_no", tie=f"{100 * TIE:g}"))

    table = pd.DataFrame(
        [
            {
                t("overconfidence.col_start"): t("overconfidence.pretrained") if start else t("overconfidence.scratch"),
                t("overconfidence.col_loss"): label[name],
                t("overconfidence.col_test"): final(name, start, "test_accuracy"),
                t("overconfidence.col_peak"): max(history[(name, start)]["test_accuracy"]),
                t("overconfidence.col_train"): final(name, start, "train_accuracy"),
                t("overconfidence.col_lossv"): final(name, start, "loss"),
                t("overconfidence.col_gap"): final(name, start, "logit_gap"),
                t("overconfidence.col_sparsity"): final(name, start, "sparsity"),
            }
            for start in starts
            for name in names
        ]
    )
    st.dataframe(
        table,
        hide_index=True,
        column_config={c: st.column_config.NumberColumn(format="%.4f") for c in list(table.columns)[2:]},
    )

    x = np.asarray(history[(names[0], False)]["step"], dtype=float)
    panel_titles = [t("overconfidence.scratch"), t("overconfidence.pretrained")]

    def metric_figure(title_key, y_key, metrics):
        panel_curves = [
            [
                figures.Curve(
                    f"{label[name]}{suffix}",
                    np.asarray(history[(name, start)][metric], dtype=float),
                    mapping_color(training.LOSSES[name].mapping),
                    dash,
                    "lines+markers",
                    symbol=mapping_cue(training.LOSSES[name].mapping)["marker"],
                )
                for metric, suffix, dash in metrics
                for name in names
            ]
            for start in starts
        ]
        fig = figures.panels(
            [x, x],
            panel_curves,
            [t("overconfidence.step_axis")] * 2,
            [t(y_key)] * 2,
            panel_titles,
            t("overconfidence.loss_legend"),
        )
        fig.update_layout(title=t(title_key), margin=dict(t=80))

        def frame():
            return pd.DataFrame(
                {
                    "step": x,
                    **{
                        f"{'pretrained' if start else 'scratch'}|{c.label}": c.y
                        for start, curves in zip(starts, panel_curves)
                        for c in curves
                    },
                }
            )

        return fig, frame

    plots = [
        (
            "oc_accuracy",
            "overconfidence.acc_title",
            "overconfidence.acc_axis",
            [
                ("test_accuracy", t("overconfidence.held_out"), "solid"),
                ("train_accuracy", t("overconfidence.train_set"), "dot"),
            ],
        ),
        ("oc_loss", "overconfidence.loss_title", "overconfidence.loss_axis", [("loss", "", "solid")]),
        ("oc_gap", "overconfidence.gap_title", "overconfidence.gap_axis2", [("logit_gap", "", "solid")]),
        ("oc_sparsity", "overconfidence.sparsity_title", "overconfidence.sparsity_axis", [("sparsity", "", "solid")]),
    ]
    for key, title_key, y_key, metrics in plots:
        fig, frame = metric_figure(title_key, y_key, metrics)
        ui.show_figure(fig, key, table=frame)
    st.caption(t("overconfidence.plots_note", k=used["k"], n=used["n_classes"]))
