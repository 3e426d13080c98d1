"""probcore explorer: ``streamlit run app.py``.

The sidebar holds what is session-wide (language, presentation mode, reset); each page draws its
own controls next to what they change (explorer.session.state.controls / mapping_controls), in a fragment
where a step should redraw only that part (explorer.drawing.ui.fragment). Every control lives in the URL.
A page is its folder under views/ plus one entry in views/registry.py (docs/architecture.md; not
pages/: views/__init__.py says why).
"""

import time

import streamlit as st

from explorer.classroom import lesson_bar
from explorer.drawing import ui
from views import registry
from explorer.serving import client, guard, jobs, process
from explorer.session import state

started = time.time()

process.one_torch_thread()  # once per server process, before any computation
client.refuse_control_messages()  # issue 25: no client clears the caches of every session
st.set_page_config(page_title="probcore explorer", page_icon=ui.PAGE_ICON, layout="wide")  # a data: URL, made once
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
process.freeze_imported_objects()  # once per server process, after a first run imported what it needs
jobs.queue()  # once per server process: its job process starts now, warm before a first Run
ui.log_run(started)
