"""probcore explorer: ``streamlit run app.py``.

The sidebar holds what is session-wide (language, presentation mode, reset); each page draws its
own controls next to what they change (explorer.state.controls / mapping_controls), in a fragment
where a step should redraw only that part (explorer.ui.fragment). Every control lives in the URL.
A page is one module under views/ plus one line in PAGES. (Not pages/: Streamlit 1.67 routes a first request
for /<name> straight to pages/<name>.py when that folder exists, bypassing this script.)
"""
import gc
import time

import streamlit as st
import torch

from explorer import client, guard, jobs, lesson_bar, state, ui
from explorer.i18n import t

started = time.time()


@st.cache_resource(show_spinner=False)
def one_torch_thread() -> None:
    """Once per server process, before any computation: torch runs on one intra-op thread. The
    explorer's tensors are small and a server runs many sessions at once; with a second thread the
    hand-offs (and OpenMP's spin-waits while the other core is busy) cost more CPU than they save
    (bench/results/load.md: CPU of a Simplex / Perturb step about halved)."""
    torch.set_num_threads(1)


one_torch_thread()
client.refuse_control_messages()  # issue 25: no client clears the caches of every session
st.set_page_config(page_title="probcore explorer", page_icon=":material/scatter_plot:", layout="wide")
guard.limit_reruns()
state.sidebar()
ui.projector_style()
PAGES = {
    t("nav.core"): [
        st.Page("views/compare.py", title=t("page.compare"), icon=":material/bar_chart:", default=True),
        st.Page("views/simplex.py", title=t("page.simplex"), icon=":material/change_history:", url_path="simplex"),
        st.Page("views/jacobian.py", title=t("page.jacobian"), icon=":material/grid_on:", url_path="jacobian"),
        st.Page("views/loss_landscape.py", title=t("page.loss"), icon=":material/landscape:", url_path="loss"),
        st.Page("views/sweeps.py", title=t("page.sweeps"), icon=":material/animation:", url_path="sweeps"),
    ],
    t("nav.topics"): [
        st.Page("views/perturb.py", title=t("page.perturb"), icon=":material/casino:", url_path="perturb"),
        st.Page("views/margin.py", title=t("page.margin"), icon=":material/radar:", url_path="margin"),
        st.Page("views/overconfidence.py", title=t("page.overconfidence"), icon=":material/trending_up:",
                url_path="overconfidence"),
        st.Page("views/vocab.py", title=t("page.vocab"), icon=":material/account_tree:", url_path="vocab"),
        st.Page("views/attention.py", title=t("page.attention"), icon=":material/visibility:", url_path="attention"),
        st.Page("views/losses.py", title=t("page.losses"), icon=":material/functions:", url_path="losses"),
        st.Page("views/smooth_max.py", title=t("page.smooth_max"), icon=":material/show_chart:", url_path="smooth-max"),
        st.Page("views/sparse_from_exp.py", title=t("page.sparse_from_exp"), icon=":material/content_cut:",
                url_path="sparse-from-exp"),
    ],
    t("nav.tools"): [
        st.Page("views/check.py", title=t("page.check"), icon=":material/fact_check:", url_path="check"),
        st.Page("views/lesson.py", title=t("page.lesson"), icon=":material/school:", url_path="lesson"),
    ],
}
page = st.navigation(PAGES, position="top")
lesson_bar.bar(page)  # lessons (issue 12): the lesson / room bar above the page
page.run()
state.sync_url()


@st.cache_resource(show_spinner=False)
def freeze_imported_objects() -> None:
    """Once per server process, after a first run has imported torch, plotly and pandas: a full
    collection (Python's own; Streamlit's after every run is off in .streamlit/config.toml) would
    hold the GIL ~0.1 s over these ~250k long-lived objects; frozen (gc.freeze), it skips them."""
    gc.freeze()


freeze_imported_objects()
jobs.queue()  # once per server process: its job process starts now, warm before a first Run
ui.log_run(started)
