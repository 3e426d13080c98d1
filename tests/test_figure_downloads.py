"""Downloads of a chart (issue 24): the toolbar's PNG was saved as ``plot-image.png``; every download
of a chart is now named by its page, its chart and the view's parameters (explorer.drawing.ui.file_name),
and the PNG is drawn wide enough for its legend (ui.figure_config). The PNG itself, legend whole, is
checked in a browser by tests/test_e2e_presentation.py."""

from __future__ import annotations

import re

from explorer.drawing import ui
from explorer.session import state


def session(monkeypatch, **values) -> dict:
    ss = {key: option.default for key, option in state.OPTIONS.items()}
    ss.update(values)
    monkeypatch.setattr(state.st, "session_state", ss)
    monkeypatch.setattr(ui.st, "session_state", ss)
    monkeypatch.setattr(state.st, "query_params", {})
    return ss


def test_a_chart_file_is_named_by_its_page_chart_and_parameters(monkeypatch):
    ss = session(monkeypatch, temperature=0.5, preset="custom", logits="3, 1, 0", lang="zh", present=True)
    ss["_page_options"] = {"lesson": state.Option("lesson", "text", ""), "log": state.Option("log", "bool", False)}
    ss["lesson"], ss["log"] = "01_softmax_temperature", True
    assert ui.file_name("compare_bars") == "compare_bars-logits3,1,0-temperature0.5-log1"
    # the viewer's language and presentation mode, and the lesson playing, are not the view
    assert "zh" not in ui.file_name("compare_bars") and "lesson" not in ui.file_name("compare_bars")


def test_defaults_give_the_chart_alone_and_hostile_text_a_safe_name(monkeypatch):
    session(monkeypatch)
    assert ui.file_name("simplex_points") == "simplex_points"
    ss = session(monkeypatch, preset="custom", logits="../../etc/passwd <b>" + "9," * 200)
    name = ui.file_name("compare_bars")
    assert re.fullmatch(r"[A-Za-z0-9.,_+-]+", name) and len(name) <= ui.FILE_NAME_CHARS
    assert "/" not in name and ss["logits"][:2] == ".."


def test_a_control_drawn_below_the_chart_is_named_too(monkeypatch):
    """The chart is drawn before the page registers its later controls in this run: their values
    are the session's, for the keys the URL names."""
    ss = session(monkeypatch)
    ss["losses_n"], ss["losses_alpha"] = 12, 2.5
    monkeypatch.setattr(state.st, "query_params", {"losses_n": "10", "losses_alpha": "2.5"})  # the last run's URL
    assert ui.file_name("losses_surrogate") == "losses_surrogate-losses_n12-losses_alpha2.5"
    del ss["losses_n"]  # a first run: the control never drawn, the URL's text (made safe) names it
    monkeypatch.setattr(state.st, "query_params", {"losses_n": "12/../<x>"})
    assert ui.file_name("losses_surrogate") == "losses_surrogate-losses_n12_.._x"


def test_the_toolbar_png_is_named_and_wide(monkeypatch):
    session(monkeypatch, temperature=2.0)
    options = ui.figure_config("compare_bars")["toImageButtonOptions"]
    assert options["filename"] == "compare_bars-temperature2" and options["format"] == "png"
    assert options["width"] == ui.PNG_WIDTH >= 1280 and options["scale"] == 2
    assert ui.figure_config("compare_bars")["displaylogo"] is False


def test_a_session_without_a_runtime_is_not_a_browser(monkeypatch):
    """state.runs_javascript (whether show_figure may leave a closed Download popover empty): True for a
    browser's session (request headers), False where st.context finds no Streamlit runtime (it raises
    RuntimeError there: AppTests run side by side in threads, one's runtime gone while another draws a
    chart), not an error on the page."""

    class Context:
        def __init__(self, headers):
            self._headers = headers

        @property
        def headers(self):
            if self._headers is None:
                raise RuntimeError("Runtime hasn't been created!")
            return self._headers

    monkeypatch.setattr(state.st, "context", Context({"Host": "127.0.0.1"}))
    assert state.runs_javascript() is True
    monkeypatch.setattr(state.st, "context", Context(None))
    assert state.runs_javascript() is False
