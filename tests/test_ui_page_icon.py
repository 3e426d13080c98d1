"""The tab icon's data: URL, made once per process (explorer.drawing.ui.PAGE_ICON), is the URL
Streamlit makes of the icon file on every run when given its path, and Streamlit passes it on as it is."""

from __future__ import annotations

from streamlit.commands.page_config import _get_favicon_string

from explorer.drawing import ui


def test_page_icon_url_is_what_streamlit_makes_of_the_file():
    made_from_file = _get_favicon_string(ui.PAGE_ICON_FILE)
    assert made_from_file.startswith("data:image/svg+xml;base64,")
    assert ui.PAGE_ICON == made_from_file


def test_streamlit_sends_the_data_url_unchanged():
    assert _get_favicon_string(ui.PAGE_ICON) == ui.PAGE_ICON
