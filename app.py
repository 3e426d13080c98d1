"""probcore explorer: ``streamlit run app.py``.

The sidebar holds what is session-wide (language, presentation mode, reset); each page draws its
own controls next to what they change (explorer.session.state.controls / mapping_controls), in a fragment
where a step should redraw only that part (explorer.drawing.ui.fragment). Every control lives in the URL.
A page is its folder under views/ plus one entry in views/registry.py (docs/architecture.md; not
pages/: views/__init__.py says why).
"""

import gc
import time
from pathlib import Path

import streamlit as st
import torch

from explorer.classroom import lesson_bar
from explorer.drawing import ui
from views import registry
from explorer.serving import client, guard, jobs
from explorer.session import state

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
# The tab icon is a file of the app (sent inline as a data: URL): a `:material/...:` page icon is
# fetched by Streamlit's frontend from fonts.gstatic.com, which a classroom offline cannot reach.
PAGE_ICON = Path(__file__).parent / "explorer" / "drawing" / "page_icon.svg"
st.set_page_config(page_title="probcore explorer", page_icon=PAGE_ICON, layout="wide")
guard.limit_reruns()
state.sidebar()
ui.start_run()
ui.projector_style()
ui.accessibility()  # issue 26: <html lang>, chart names and summaries, focus into popovers, visible focus
page = st.navigation(registry.navigation(), position="top")
st.set_page_config(page_title=registry.window_title(page.title))  # the window title: this page, this language
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
