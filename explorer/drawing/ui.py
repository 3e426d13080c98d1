"""Helpers that put results on a page: a figure with its downloads, its text for a screen reader
(and presentation mode), a page header, per-mapping calls with inline warnings, small tables, a
predict-then-reveal question, and the page-wide accessibility layer (:func:`accessibility`)."""

from __future__ import annotations

import base64
import contextvars
import functools
import html
import io
import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
import pandas as pd
import plotly.graph_objects as go
import streamlit as st
from streamlit.runtime.scriptrunner import get_script_run_ctx

from explorer.drawing import figures, speak
from explorer.i18n import language, mapping_label, t
from explorer.serving import guard
from explorer.session import state
from explorer.session.keys import SessionKey
from probcore.registry import MAPPINGS

PLOTLY_CONFIG = {"displaylogo": False}
# The tab icon, a file of the app sent inline as a data: URL (a `:material/...:` icon is fetched by
# Streamlit's frontend from fonts.gstatic.com, which a classroom offline cannot reach). Made once per
# process: given the file's path, st.set_page_config reads and encodes it on every run (~1.2 ms). The
# URL is the one it makes of an SVG file that has its xmlns (tests/test_ui_page_icon.py).
PAGE_ICON_FILE = Path(__file__).parent / "page_icon.svg"
PAGE_ICON = (
    "data:image/svg+xml;base64," + base64.b64encode(PAGE_ICON_FILE.read_text(encoding="utf-8").encode()).decode()
)
PNG_WIDTH = 1280  # px of a downloaded PNG (x2 scale): wider than a page's column, so a side legend has room
NOT_IN_FILE_NAMES = ("lang", "present", "lesson", "step", "room")  # the viewer's and the player's, not the view's
FILE_NAME_CHARS = 150


def _csv(frame: Callable[[], pd.DataFrame]) -> Callable[[], bytes]:
    def data() -> bytes:
        buffer = io.StringIO()
        frame().to_csv(buffer, index=False)
        return buffer.getvalue().encode()

    return data


def file_name(key: str) -> str:
    """What a download of chart ``key`` ("<page>_<chart>") is, as a file name without extension:
    the chart, then the view's parameters (state.view_values: with the controls the page draws
    below the chart), e.g.
    ``compare_bars-temperature0.5-logits3,1,0``; at most FILE_NAME_CHARS, safe on any file system."""
    shown = [
        f"{name}{value:g}" if isinstance(value, float) else f"{name}{value}"
        for name, value in state.view_values().items()
        if name not in NOT_IN_FILE_NAMES
    ]
    name = re.sub(r"[^A-Za-z0-9.,_+-]+", "_", re.sub(r"\s+", "", "-".join([key, *shown])))
    return name[:FILE_NAME_CHARS].rstrip("-_.,")


def figure_config(key: str, file: str | None = None) -> dict:
    """Plotly's config for chart ``key``: the toolbar's camera saves ``file_name(key).png`` (``file``:
    that name, when the caller has it already), PNG_WIDTH wide at twice the resolution (the height as
    shown), so the whole legend is in the picture."""
    return {
        **PLOTLY_CONFIG,
        "toImageButtonOptions": {
            "format": "png",
            "filename": file_name(key) if file is None else file,
            "width": PNG_WIDTH,
            "height": None,
            "scale": 2,
        },
    }


def theme() -> str:
    """The browser's theme ("light" or "dark"; "light" where the session has not said, as under AppTest)."""
    try:
        kind = st.context.theme.type
    except (AttributeError, RuntimeError):
        kind = None
    return kind if kind in figures.TEXT_COLORS else "light"


def chart_text(name: str, summary: str) -> str:
    """The chart's text for a screen reader: its name, its computed summary and where its numbers are."""
    return f"{t('a11y.chart_named', name=name)} {summary}. {t('a11y.table_hint')}"


def show_figure(fig: go.Figure, key: str, table: Callable[[], pd.DataFrame] | None = None) -> None:
    """The figure (Streamlit theme: follows light/dark; its text in the theme's colour of
    figures.TEXT_COLORS), before it its name and a summary of its numbers as text a screen reader
    reads (explorer/drawing/speak.py; visually hidden), and, in a small popover, downloads of its
    data as CSV (``table`` builds the frame on click; else every drawn value, speak.figure_frame) and
    of the figure as Plotly JSON, each named by :func:`file_name`; the PNG is the toolbar's camera
    (:func:`figure_config`). The popover's content is drawn while it is open (its opening reruns the
    fragment or page; where JavaScript does not run, always): a step does not send three elements
    per figure that nobody sees. In presentation mode (sidebar) the figure gets large fonts and thick lines."""
    name, summary = speak.describe(fig)
    if st.session_state.get("present"):
        fig = figures.for_projector(fig)
    fig = figures.with_text_color(fig, theme())
    st.html(
        f'<div class="pc-chart-text" data-chart-name="{html.escape(name)}">'
        f"{html.escape(chart_text(name, summary))}</div>"
    )
    file = file_name(key)
    st.plotly_chart(fig, theme="streamlit", key=key, config=figure_config(key, file))
    box = st.popover(t("ui.download"), icon=":material/download:", key=f"{key}_downloads", on_change="rerun")
    if not box.open and state.runs_javascript():  # a browser draws the downloads when opened (AppTest: always)
        return
    with box:
        st.download_button(
            "CSV",
            _csv(table or (lambda: speak.figure_frame(fig))),
            file_name=f"{file}.csv",
            mime="text/csv",
            key=f"{key}_csv",
            on_click="ignore",
        )
        st.download_button(
            "JSON",
            lambda: fig.to_json().encode(),
            file_name=f"{file}.json",
            mime="application/json",
            key=f"{key}_json",
            on_click="ignore",
        )
        st.caption(t("ui.png_hint", name=f"{file}.png"))


def log_run(started: float, fragment: str = "app") -> None:
    """When PROBCORE_RUN_LOG is set (bench/bench_explorer.py, tests/test_e2e_live.py): one line with the
    wall-clock start and end of this script run and what ran (``app``, or the fragment function's
    name), to split a step into press -> script -> drawn."""
    if os.environ.get("PROBCORE_RUN_LOG"):
        print(f"RUN {started:.4f} {time.time():.4f} {fragment}", file=sys.stderr, flush=True)


_IN_FRAGMENT = contextvars.ContextVar("in_fragment", default=False)  # fragment() is drawing, in this thread
NOTES = SessionKey[set]("_notes")  # the notes per_mapping showed in this run (of the app, or of a fragment)


def start_run() -> None:
    """Before a page draws (app.py): no note shown yet in this run, no checked controls to reuse."""
    NOTES.set(set())
    state.new_run()


def fragment(draw: Callable[..., None] | None = None, *, key: str | None = None):
    """``st.fragment`` around a part of a page: a widget inside it reruns only ``draw``; with a
    ``key``, a widget callback elsewhere can rerun it alone (``st.rerun(key)``: a live view's release
    reruns only what it changes, explorer.live). A run of the fragment alone spends the session's
    rerun budget as a full run does (app.py: guard.limit_reruns, refused with its warning beyond it);
    after it the URL is written (app.py does it after a full run) and the run is logged
    (:func:`log_run`)."""
    if draw is None:
        return functools.partial(fragment, key=key)

    @functools.wraps(draw)
    def run(*args, **kwargs) -> None:
        started = time.time()
        ctx = get_script_run_ctx()
        # this fragment, not the whole app, nor a fragment this one is drawn in
        alone = ctx is not None and bool(ctx.fragment_ids_this_run) and not _IN_FRAGMENT.get()
        if alone:
            guard.limit_reruns()
            NOTES.set(set())
            state.new_run()
        token = _IN_FRAGMENT.set(True)
        try:
            draw(*args, **kwargs)
        finally:
            _IN_FRAGMENT.reset(token)
        if alone:
            state.sync_url()
            log_run(started, draw.__name__)

    return st.fragment(run, key=key)


PROJECTOR_CSS = """<style>
.stMainBlockContainer { font-size: 1.4rem; }
.stMainBlockContainer p, .stMainBlockContainer li, .stMainBlockContainer label,
.stMainBlockContainer [data-testid="stCaptionContainer"] { font-size: 1.4rem; }
.stMainBlockContainer h1 { font-size: 3.2rem; }
.stMainBlockContainer h2, .stMainBlockContainer h3 { font-size: 2.2rem; }
.stMainBlockContainer .katex { font-size: 1.6em; }
</style>"""


# Presentation mode at 1280x720 with no label cut (issue 24; tests/test_e2e_presentation.py): labels
# that Streamlit cuts with an ellipsis wrap instead, buttons drop their shortcut hint (Page Up / Down
# still work), slider values keep their size (larger, they were drawn on the track) and tables
# (canvas grids, whose font CSS cannot reach) are zoomed as the text is.
PROJECTOR_FIT_CSS = """<style>
.stMainBlockContainer .stMarkdownEllipsis, .stMainBlockContainer .stMarkdownEllipsis p,
.stMainBlockContainer [data-testid="stMetricLabel"] div { white-space: normal; overflow: visible; text-overflow: clip; }
.stMainBlockContainer button kbd { display: none; }
.stMainBlockContainer [data-testid="stSliderThumbValue"] p,
.stMainBlockContainer [data-testid="stSliderTickBar"] p { font-size: 0.875rem; }
.stMainBlockContainer [data-testid="stDataFrame"] { zoom: 1.3; width: calc(100% / 1.3) !important; }
.stMainBlockContainer [data-testid="stTable"] th, .stMainBlockContainer [data-testid="stTable"] td { font-size: 1.3rem; }
</style>"""


DARK_ACCENT_TEXT = "#F07A82"  # accent-coloured text in the dark theme: 6.7:1 (Streamlit's #cf4250: 3.9:1)
ACCESSIBILITY_CSS = f"""
/* issue 26: text a screen reader reads but the eye does not see (a chart's name and summary) */
.pc-chart-text {{ position: absolute !important; width: 1px; height: 1px; padding: 0; margin: -1px;
  overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; border: 0; }}
/* captions: Streamlit's faded grey was 3.9:1 on white; the theme's text colour at 80 % is over 6:1 */
[data-testid="stCaptionContainer"], [data-testid="stCaptionContainer"] p {{ color: inherit !important; }}
[data-testid="stCaptionContainer"] {{ opacity: 0.8; }}
/* focus always visible: toggles and checkboxes (their input is hidden), table toolbar buttons */
*:focus-visible {{ outline: 3px solid #1967D2 !important; outline-offset: 2px; }}
label:has(input:focus-visible) {{ outline: 3px solid #1967D2; outline-offset: 2px; border-radius: 4px; }}
[data-testid="stElementToolbar"]:focus-within {{ opacity: 1 !important; visibility: visible !important; }}
/* the dark theme's accent text (slider values, a selected pill) */
html[data-pc-theme="dark"] [data-testid="stSliderThumbValue"] p,
html[data-pc-theme="dark"] [data-testid="stButtonGroup"] [data-selected="true"] p {{
  color: {DARK_ACCENT_TEXT} !important; }}
"""
# One script in the page (not an iframe), kept across reruns: it puts ACCESSIBILITY_CSS in the
# document's head; sets <html lang> and the theme from the marker .pc-page written on each run; gives
# each chart role="figure", its name and its summary (the .pc-chart-text before it; Plotly's SVG, a
# heap of tick labels, is hidden from screen readers); lets a formula wider than the page (a scroll
# region) take the focus; and moves the focus into a popover when it opens.
ACCESSIBILITY_JS = """<script>
(() => {
  const doc = document;
  const apply = () => {
    if (!doc.getElementById('pc-a11y-style')) {
      const style = doc.createElement('style');
      style.id = 'pc-a11y-style';
      style.textContent = %s;
      doc.head.appendChild(style);
    }
    const marker = doc.querySelector('.pc-page[data-lang]');
    if (marker) {
      if (doc.documentElement.lang !== marker.dataset.lang) doc.documentElement.lang = marker.dataset.lang;
      if (doc.documentElement.dataset.pcTheme !== marker.dataset.theme) doc.documentElement.dataset.pcTheme = marker.dataset.theme;
    }
    doc.querySelectorAll('.pc-chart-text').forEach((text, i) => {
      const holder = text.closest('[data-testid="stElementContainer"]');
      const next = holder && holder.nextElementSibling;
      const chart = next && next.querySelector('[data-testid="stPlotlyChart"]');
      if (!chart) return;
      if (!text.id) text.id = 'pc-chart-text-' + i;
      chart.setAttribute('role', 'figure');
      chart.setAttribute('aria-label', text.dataset.chartName || '');
      chart.setAttribute('aria-describedby', text.id);
      chart.querySelectorAll('.main-svg').forEach(svg => svg.setAttribute('aria-hidden', 'true'));
    });
    doc.querySelectorAll('.katex-display').forEach(math => {
      if (math.scrollWidth > math.clientWidth + 1) math.tabIndex = 0;
    });
  };
  if (!window.__pcA11y) {
    window.__pcA11y = true;
    // The popover opener activated last (click or Enter), until the focus is inside its popover, the
    // popover is closed or the focus went elsewhere: each change of the page (the observer below) and a
    // short retry while its first button is drawn but not yet shown (it does not take the focus) move the
    // focus in, however late the popover's content comes on a busy machine.
    // An open popover whose opener still has the focus takes it too, once per popover body, even where
    // no activation was seen (the CI flake of stop 22: open, its buttons drawn, the focus on the opener).
    let opener = null, opened = false, retry = 0;
    const entered = new WeakSet();  // the popover bodies the focus was moved into
    const focusPopover = () => {
      clearTimeout(retry);
      const active = doc.activeElement;
      if (!opener && active && active.matches && active.matches('[data-testid="stPopoverButton"]')
          && active.getAttribute('aria-expanded') === 'true') {
        const open = doc.querySelector('[data-testid="stPopoverBody"]');
        if (open && !entered.has(open)) opener = active;
      }
      if (!opener) return;
      if (!opener.isConnected || opener.getAttribute('aria-expanded') !== 'true') {  // not open yet, or closed again
        if (opened || !opener.isConnected) opener = null;
        return;
      }
      opened = true;
      const body = doc.querySelector('[data-testid="stPopoverBody"]');
      const first = body && body.querySelector(
        'button:enabled, a[href], input:enabled, select:enabled, textarea:enabled, [tabindex]:not([tabindex="-1"])');
      if (first && !body.contains(doc.activeElement)) first.focus();
      if (body && body.contains(doc.activeElement)) { entered.add(body); opener = null; return; }
      if (first) retry = setTimeout(focusPopover, 50);  // drawn, not yet shown; content still to come: the observer
    };
    let queued = false;
    new MutationObserver(() => {
      if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; apply(); focusPopover(); }); }
    }).observe(doc.body, {childList: true, subtree: true});
    doc.addEventListener('click', (e) => {
      opener = (e.target.closest && e.target.closest('[data-testid="stPopoverButton"]')) || null;
      opened = false;
      setTimeout(focusPopover, 0);
    });
    doc.addEventListener('focusin', (e) => {  // the user moved the focus elsewhere: leave it there
      const body = doc.querySelector('[data-testid="stPopoverBody"]');
      if (opener && e.target !== opener && !(body && body.contains(e.target))) opener = null;
    });
  }
  apply();
})();
</script>""" % json.dumps(ACCESSIBILITY_CSS)


def accessibility() -> None:
    """Every run (app.py), in the sidebar (no gap in the page): the marker of the session's language
    and theme, and the script of ACCESSIBILITY_JS (run once per browser page)."""
    st.sidebar.html(f'<div class="pc-page" data-lang="{language()}" data-theme="{theme()}" hidden></div>')
    st.sidebar.html(ACCESSIBILITY_JS, unsafe_allow_javascript=True)


def projector_style() -> None:
    """Presentation mode: larger text in the main area, fitted (figures: :func:`show_figure`)."""
    if st.session_state.get("present"):
        st.html(PROJECTOR_CSS)
        st.html(PROJECTOR_FIT_CSS)


def header(title_key: str, intro_key: str) -> None:
    """Page title, its one-line introduction and the messages about the URL the session opened
    with (the page's own controls come with the part of the page they change: state.controls)."""
    st.title(t(title_key))
    st.caption(t(intro_key))
    state.show_url_notes()


def per_mapping(controls: state.Controls, fn: Callable[[str], Any], names=None, quiet: bool = False) -> dict[str, Any]:
    """``fn(name)`` for each selected mapping (or ``names``); a ValueError (a parameter that does
    not fit this figure, e.g. k > 2 in a binary slice) skips that mapping with an inline warning
    (a caption when ``quiet``)."""
    out = {}
    for name in controls.mappings if names is None else names:
        try:
            out[name] = fn(name)
        except ValueError as err:
            note = state.plain(t("msg.mapping_skipped", mapping=mapping_label(name), error=err))
            shown = NOTES.get()  # once per run (start_run, fragment)
            if shown is None:
                shown = set()
                NOTES.set(shown)
            if note not in shown:
                shown.add(note)
                st.caption(note) if quiet else st.warning(note)
    return out


FIGURES_SHOWN = ("softmax", "sparsemax")  # of the mappings with one figure each, drawn until others are picked


def figures_option(key: str) -> state.Option:
    """The URL parameter ``key`` of :func:`pick_figures`: the mappings drawn, FIGURES_SHOWN at first."""
    return state.Option(key, "multi", FIGURES_SHOWN, tuple(MAPPINGS))


def pick_figures(option: state.Option, label: str, names: list[str]) -> list[str]:
    """Which of ``names`` get a figure of their own (the page's option of :func:`figures_option`;
    FIGURES_SHOWN at first): a step redraws only those, and the page stays short."""

    def render(k: str):
        st.session_state[k] = [name for name in st.session_state[k] if name in names]
        return st.pills(label, names, selection_mode="multi", key=k, format_func=mapping_label, persist_state="session")

    chosen = state.page_option(option, render)
    return [name for name in names if name in chosen]


def vector(v: np.ndarray, limit: int = 8) -> str:
    """A short text of a vector: all entries up to ``limit``, else its first ones and its norm."""
    head = ", ".join(f"{a:.3g}" for a in v[:limit])
    return f"[{head}]" if len(v) <= limit else f"[{head}, …] ‖·‖₂ = {np.linalg.norm(v):.3g}"


def records_frame(rows: list[dict[str, Any]], index: str | None = None) -> pd.DataFrame:
    """``pd.DataFrame(rows)`` (one dict a row, the same keys in each), built column by column: the
    same frame at about a third of the cost of pandas' path for a list of dicts (a table per step);
    ``index``: that key's column as the index, as ``.set_index(index)``."""
    if not rows:
        return pd.DataFrame(rows)
    columns = {key: [row[key] for row in rows] for key in rows[0]}
    if index is None:
        return pd.DataFrame(columns)
    labels = columns.pop(index)
    return pd.DataFrame(columns, index=pd.Index(labels, name=index))


def frame_rows(rows: dict[str, np.ndarray], labels: dict[str, str], columns: tuple[str, ...]) -> pd.DataFrame:
    """One row per mapping: its label, then the entries of its vector."""
    return pd.DataFrame([[labels[k], *v] for k, v in rows.items()], columns=["mapping", *columns])


def grid_frame(grid: np.ndarray, values: np.ndarray) -> pd.DataFrame:
    """Long format (u, v, value) of values[v, u] over grid x grid."""
    uu, vv = np.meshgrid(grid, grid)
    return pd.DataFrame({"u": uu.ravel(), "v": vv.ravel(), "value": values.ravel()})


def curves_frame(x_name: str, x: np.ndarray, curves) -> pd.DataFrame:
    return pd.DataFrame({x_name: x, **{c.label: c.y for c in curves}})


def predict(
    question: str,
    choices: tuple[str, ...],
    correct: int,
    answer: Callable[[], str],
    action: tuple[str, Callable[[], None]] | None = None,
) -> None:
    """A "predict, then reveal" question: ``t(question)`` with the choices ``t(choices[i])`` (keys
    written out by the page, e.g. "q_simplex.q", "q_simplex.c0"); the reveal says whether the
    guess was right and shows ``answer()``, a text computed from the live values; ``action``
    (label, callback) changes the controls so the live figures show the answer."""
    key = question.removesuffix(".q")  # the widgets' keys: q_simplex_guess, ...
    box = st.expander(t("predict.title"), icon=":material/quiz:", key=f"{key}_open", on_change="rerun")
    if not box.open and state.runs_javascript():  # a browser draws it when opened (AppTest: always)
        return
    with box:
        st.markdown(t(question))
        pick = st.radio(  # the guess and the reveal outlive a closed expander (persist_state)
            t("predict.guess"),
            range(len(choices)),
            index=None,
            key=f"{key}_guess",
            format_func=lambda i: t(choices[i]),
            persist_state="session",
        )
        if action is not None:
            st.button(action[0], on_click=action[1], key=f"{key}_action", icon=":material/play_arrow:")
        if st.toggle(t("predict.reveal"), key=f"{key}_reveal", persist_state="session"):
            if pick is not None:
                (st.success if pick == correct else st.info)(
                    t("predict.right") if pick == correct else t("predict.wrong", answer=t(choices[correct]))
                )
            st.markdown(answer())
