"""Large vocabularies: softmax over n classes without paying O(n) per example. Hierarchical
softmax on a Huffman tree (probabilities sum to 1, expected path length against the entropy
bound), importance sampling of log Z and of its gradient (bias and variance against the number of
samples m, uniform against unigram proposal), NCE against k noise samples, training with NCE (a
learned log Z: self-normalisation) and with sampled softmax, and the cost of each
against n, measured on this machine on request."""

import functools

import numpy as np
import pandas as pd
import streamlit as st

from explorer.drawing import figures, ui
from explorer.i18n import t
from explorer.serving import jobs
from explorer.session import state
from probcore.vocab import COST_METHODS
from views.registry import PAGES
from views.vocab import compute as vocab_compute
from views.vocab import figures as vocab_figures

declared = PAGES["vocab"].option  # this page's own controls (views/registry.py)

N_MAX = 100_000
TRAIN_N_MAX = 20_000  # the training section's cost grows with n (Adam on n scores)


ui.header("page.vocab", "vocab.intro")
st.markdown(t("vocab.explain"))

c1, c2, c3, c4 = st.columns(4)
n = state.page_option(
    declared("vocab_n"),
    lambda key: c1.number_input(
        t("vocab.n"),
        min_value=2,
        max_value=N_MAX,
        step=1,
        key=key,
        help=t("vocab.n_help", high=N_MAX),
        persist_state="session",
    ),
)
s = state.page_option(
    declared("vocab_s"),
    lambda key: c2.slider(t("vocab.s"), 0.0, 3.0, step=0.05, key=key, help=t("vocab.s_help"), persist_state="session"),
)
sigma = state.page_option(
    declared("vocab_sigma"),
    lambda key: c3.slider(
        t("vocab.sigma"), 0.0, 4.0, step=0.1, key=key, help=t("vocab.sigma_help"), persist_state="session"
    ),
)
seed = state.page_option(
    declared("vocab_seed"),
    lambda key: c4.number_input(
        t("vocab.seed"), min_value=0, max_value=state.SEED_MAX, step=1, key=key, persist_state="session"
    ),
)
n, s, sigma, seed = int(n), float(s), float(sigma), int(seed)
proposal_labels = {"uniform": t("vocab.proposal_uniform"), "unigram": t("vocab.proposal_unigram")}  # VOCAB_PROPOSALS

# ---------------------------------------------------------------- hierarchical softmax
st.subheader(t("vocab.hs"))
st.markdown(t("vocab.hs_explain", d=vocab_compute.VOCAB_D))
st.latex(
    r"p(i \mid h) = \prod_{v \in \mathrm{path}(i)} \sigma\!\big(s_v\, h^\top w_v\big),\quad s_v = \pm 1,"
    r"\qquad H(f) \le \mathbb{E}_f[\mathrm{len}] < H(f) + 1"
)
hs = vocab_compute.vocab_hs(n, s, seed)
m1, m2, m3, m4, m5 = st.columns([4, 2, 2, 2, 2])
m1.metric(t("vocab.hs_sum"), f"{hs['sum']:.10f}", help=t("vocab.hs_sum_help"))
m2.metric(t("vocab.hs_sum_err"), f"{abs(hs['sum'] - 1):.1e}")
m3.metric(t("vocab.expected_len"), f"{hs['expected']:.3f}", help=t("vocab.expected_len_help"))
m4.metric(t("vocab.entropy"), f"{hs['entropy']:.3f}")
m5.metric(t("vocab.log2n"), f"{hs['log2_n']:.3f}")
classes = np.arange(n)
if n <= vocab_compute.VOCAB_TREE_MAX_N:
    ui.show_figure(
        vocab_figures.vocab_tree(
            hs["nodes"], hs["codes"], hs["lengths"], hs["p"], hs["freqs"], t("vocab.tree_title", n=n)
        ),
        "vocab_tree",
        table=lambda: pd.DataFrame(
            {
                "class": classes,
                "frequency": hs["freqs"],
                "code": ["".join(map(str, hs["codes"][i, : hs["lengths"][i]])) for i in classes],
                "code_length": hs["lengths"],
                "p_hs": hs["p"],
            }
        ),
    )
else:
    st.caption(t("vocab.tree_hidden", n=n, limit=vocab_compute.VOCAB_TREE_MAX_N))
left, right = st.columns(2)
with left:
    ui.show_figure(
        vocab_figures.vocab_code_lengths(
            hs["lengths"], hs["freqs"], hs["entropy"], hs["expected"], hs["log2_n"], t("vocab.lengths_title", n=n, s=s)
        ),
        "vocab_lengths",
        table=lambda: pd.DataFrame(
            {"class": classes, "frequency": hs["freqs"], "code_length": hs["lengths"], "p_hs": hs["p"]}
        ),
    )
with right:
    bounds = vocab_compute.vocab_bounds(s)
    ui.show_figure(
        vocab_figures.vocab_bound(
            bounds["n"],
            bounds["entropy_bits"],
            bounds["expected_length"],
            bounds["log2_n"],
            bounds["max_length"],
            t("vocab.bound_title", s=s),
        ),
        "vocab_bound",
        table=lambda: pd.DataFrame(bounds),
    )
uniform = vocab_compute.huffman_uniform(n)
st.caption(t("vocab.hs_note", n=n, length=f"{uniform['expected_length']:.3f}", log2n=f"{uniform['log2_n']:.3f}"))

# ---------------------------------------------------------------- importance sampling
st.subheader(t("vocab.is"))
st.markdown(t("vocab.is_explain", repeats=vocab_compute.VOCAB_REPEATS))
st.latex(
    r"\hat Z = \frac1m \sum_{r=1}^m \frac{e^{x_{s_r}}}{q_{s_r}},\ s_r \sim q;\qquad "
    r"\mathbb{E}[\hat Z] = Z,\quad \mathrm{Var}[\hat Z / Z] = \frac{\chi^2(p\,\|\,q)}{m};\qquad "
    r"\widehat{\nabla_x \log Z} = \sum_r \frac{w_r}{\sum_{r'} w_{r'}}\, e_{s_r}"
)
est = vocab_compute.vocab_importance(n, s, sigma, seed)
ms = np.array(vocab_compute.VOCAB_MS, dtype=float)
stats = {q: est[q] for q in vocab_compute.VOCAB_PROPOSALS}
m1, m2, m3 = st.columns(3)
m1.metric(t("vocab.log_z"), f"{est['log_z']:.6f}")
m2.metric(t("vocab.chi2", q=proposal_labels["uniform"]), f"{est['chi2']['uniform']:.4g}", help=t("vocab.chi2_help"))
m3.metric(t("vocab.chi2", q=proposal_labels["unigram"]), f"{est['chi2']['unigram']:.4g}", help=t("vocab.chi2_help"))
exact = [proposal_labels[q] for q in vocab_compute.VOCAB_PROPOSALS if est["chi2"][q] < 1e-12]
if exact:
    st.info(t("vocab.is_exact", proposals=", ".join(exact)))


def is_table() -> pd.DataFrame:
    return pd.concat(
        [pd.DataFrame({"proposal": q, **est[q]}) for q in vocab_compute.VOCAB_PROPOSALS], ignore_index=True
    )


ui.show_figure(
    vocab_figures.vocab_log_z(
        ms, stats, est["log_z"], proposal_labels, t("vocab.log_z_title", repeats=vocab_compute.VOCAB_REPEATS)
    ),
    "vocab_log_z",
    table=is_table,
)
ui.show_figure(
    vocab_figures.vocab_bias_variance(
        ms, stats, est["chi2"], vocab_compute.VOCAB_REPEATS, proposal_labels, t("vocab.bias_var_title")
    ),
    "vocab_bias_var",
    table=is_table,
)
st.caption(t("vocab.bias_var_note"))
ui.show_figure(
    vocab_figures.vocab_grad_error(ms, stats, proposal_labels, t("vocab.grad_title")), "vocab_grad", table=is_table
)
st.caption(t("vocab.grad_note"))

# ---------------------------------------------------------------- NCE
st.subheader(t("vocab.nce"))
st.markdown(t("vocab.nce_explain"))
st.latex(
    r"L_{\mathrm{NCE}} = -\log \sigma\big(x_t - \log k q_t\big) - \sum_{j=1}^{k} \log\Big(1 - \sigma\big(x_{n_j}"
    r" - \log k q_{n_j}\big)\Big),\quad n_j \sim q"
)
nce = vocab_compute.vocab_nce(n, s, sigma, seed)
ks = np.array(vocab_compute.VOCAB_KS, dtype=float)
m1, m2, m3 = st.columns(3)
m1.metric(t("vocab.nce_target"), f"{nce['target']}")
m2.metric(t("vocab.nce_ce"), f"{nce['ce']:.6f}")
m3.metric(t("vocab.nce_pq"), f"{nce['p_t']:.3g} / {nce['q_t']:.3g}")
ui.show_figure(
    vocab_figures.vocab_nce(ks, nce, t("vocab.nce_title", t=nce["target"], repeats=vocab_compute.VOCAB_REPEATS)),
    "vocab_nce",
    table=lambda: pd.DataFrame(
        {
            "k": ks,
            **{
                key: nce[key]
                for key in ("loss_mean", "loss_sd", "loss_exact", "loss_limit", "grad_err_draw", "grad_err_exact")
            },
        }
    ),
)
st.caption(t("vocab.nce_note"))


# ---------------------------------------------------------------- training with NCE and sampled softmax
@ui.fragment
def training_section() -> None:
    """Its controls, Train and the run's figures: a step here reruns only this section."""
    st.subheader(t("vocab.train"))
    st.markdown(t("vocab.train_explain", batch=vocab_compute.TRAIN_BATCH))
    st.latex(
        r"\text{NCE: } \min_c\ L_{\mathrm{NCE}}(x + c)\ \Rightarrow\ c \to -\log Z;\qquad "
        r"\text{sampled softmax: } L = -\log \frac{e^{\theta_t - \log q_t}}{e^{\theta_t - \log q_t} + "
        r"\sum_{r=1}^{m} e^{\theta_{s_r} - \log q_{s_r}}}"
    )
    c1, c2, c3, c4 = st.columns(4)
    train_k = int(
        state.page_option(
            declared("vocab_train_k"),
            lambda key: c1.number_input(
                t("vocab.train_k"), min_value=1, max_value=256, step=1, key=key, persist_state="session"
            ),
        )
    )
    train_m = int(
        state.page_option(
            declared("vocab_train_m"),
            lambda key: c2.number_input(
                t("vocab.train_m"), min_value=1, max_value=1024, step=1, key=key, persist_state="session"
            ),
        )
    )
    train_steps = int(state.page_slider(declared("vocab_train_steps"), t("vocab.train_steps"), 10))
    offset = float(state.page_slider(declared("vocab_train_offset"), t("vocab.train_offset"), 0.5))
    settings = (n, s, sigma, seed, train_k, train_m, train_steps, offset)
    if n > TRAIN_N_MAX:
        st.info(t("vocab.train_too_big", n=n, limit=TRAIN_N_MAX))
    elif st.button(t("vocab.train_button"), key="vocab_train", icon=":material/model_training:"):
        jobs.submit("vocab_training", settings, functools.partial(vocab_compute.vocab_training, settings))
    training_job = jobs.follow("vocab_training", lambda detail: t("vocab.train_running"))
    if training_job is not None:
        st.session_state["_vocab_training"] = training_job.result
    trained = st.session_state.get("_vocab_training")
    if trained is None or n > TRAIN_N_MAX:
        st.caption(t("vocab.train_first"))
    else:
        ran, nce_run, sampled_run = trained
        if ran != settings:
            st.caption(t("vocab.train_stale"))
        steps_axis = np.arange(len(nce_run["c"]))
        left, right = st.columns(2)
        with left:
            ui.show_figure(
                figures.line_chart(
                    steps_axis,
                    [
                        figures.Curve(t("vocab.train_c"), nce_run["c"], vocab_figures.VOCAB_COLORS["unigram"]),
                        figures.Curve(
                            t("vocab.train_minus_log_z", value=nce_run["minus_log_z"]),
                            np.full(len(steps_axis), nce_run["minus_log_z"]),
                            vocab_figures.VOCAB_COLORS["exact"],
                            "dash",
                        ),
                    ],
                    t("vocab.train_step_axis"),
                    "c",
                    t("vocab.train_nce_title", k=ran[4]),
                ),
                "vocab_train_nce",
                table=lambda: pd.DataFrame({"step": steps_axis, "c": nce_run["c"]}),
            )
        kl_axis = np.arange(1, len(sampled_run["full"]) + 1)
        with right:
            ui.show_figure(
                figures.line_chart(
                    kl_axis,
                    [
                        figures.Curve(t("vocab.method_full"), sampled_run["full"], vocab_figures.VOCAB_COLORS["full"]),
                        figures.Curve(
                            t("vocab.train_sampled", m=ran[5]),
                            sampled_run["sampled"],
                            vocab_figures.VOCAB_COLORS["sampled"],
                        ),
                    ],
                    t("vocab.train_step_axis"),
                    t("vocab.train_kl_axis"),
                    t("vocab.train_kl_title"),
                    log_y=True,
                ),
                "vocab_train_sampled",
                table=lambda: pd.DataFrame({"step": kl_axis, **sampled_run}),
            )
        st.caption(
            t(
                "vocab.train_note",
                c=f"{nce_run['c'][-1]:.4f}",
                minus_log_z=f"{nce_run['minus_log_z']:.4f}",
                log_z=f"{nce_run['log_z']:.4f}",
                full=f"{sampled_run['full'][-1]:.4f}",
                sampled=f"{sampled_run['sampled'][-1]:.4f}",
                steps=ran[6],
            )
        )


training_section()


# ---------------------------------------------------------------- cost against n
@ui.fragment
def cost_section() -> None:
    """Measure and its figure: a press reruns only this section."""
    st.subheader(t("vocab.cost"))
    cfg = vocab_compute.VOCAB_COST
    st.markdown(t("vocab.cost_explain", ns=", ".join(f"{v:,}" for v in vocab_compute.VOCAB_COST_NS), **cfg))
    method_labels = {
        "full": t("vocab.method_full"),
        "hierarchical": t("vocab.method_hierarchical"),
        "sampled": t("vocab.method_sampled"),
    }  # probcore.vocab.COST_METHODS
    if st.button(t("vocab.cost_button", s=s), key="vocab_measure", icon=":material/timer:"):
        jobs.submit("vocab_costs", s, functools.partial(vocab_compute.cost_job, s), reuse_finished=False)
    job = jobs.follow("vocab_costs", lambda detail: t("vocab.cost_running"))
    if job is not None:
        st.session_state["_vocab_costs"] = job.result
    measured = st.session_state.get("_vocab_costs")
    if measured is None:
        st.caption(t("vocab.cost_first"))
    else:
        st.caption(t("vocab.cost_done", seconds=measured["seconds"], threads=measured["threads"], s=measured["s"]))
        ui.show_figure(
            vocab_figures.vocab_costs(
                measured["n"], {meth: measured[meth] for meth in COST_METHODS}, method_labels, t("vocab.cost_title")
            ),
            "vocab_costs",
            table=lambda: pd.DataFrame(
                {"n": measured["n"], **{f"{meth}_seconds": measured[meth] for meth in COST_METHODS}}
            ),
        )
        st.caption(t("vocab.cost_note"))


cost_section()
