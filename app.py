"""probcore explorer: ``streamlit run app.py``.

The sidebar controls (explorer.state) are shared by every page and live in the URL. A page is one
module under views/ plus one line in PAGES. (Not pages/: Streamlit 1.67 routes a first request
for /<name> straight to pages/<name>.py when that folder exists, bypassing this script.)
"""
import streamlit as st

from explorer import state
from explorer.i18n import t

st.set_page_config(page_title="probcore explorer", page_icon=":material/scatter_plot:", layout="wide")
state.sidebar()
PAGES = [
    st.Page("views/compare.py", title=t("page.compare"), icon=":material/bar_chart:", default=True),
    st.Page("views/simplex.py", title=t("page.simplex"), icon=":material/change_history:", url_path="simplex"),
    st.Page("views/jacobian.py", title=t("page.jacobian"), icon=":material/grid_on:", url_path="jacobian"),
    st.Page("views/loss_landscape.py", title=t("page.loss"), icon=":material/landscape:", url_path="loss"),
    st.Page("views/sweeps.py", title=t("page.sweeps"), icon=":material/animation:", url_path="sweeps"),
]
st.navigation(PAGES, position="top").run()
state.sync_url()
