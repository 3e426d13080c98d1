"""Accessibility without a browser (issue 26): WCAG contrast ratios of the mapping and chart text
colours in both themes, each mapping's second cue beyond colour, the charts' computed summaries and
tables (explorer/drawing/speak.py), and, over every page under AppTest, that any two traces of
different mappings differ in a non-colour cue and that every chart comes with its text. The browser
checks (axe-core, keyboard, titles, lang) are in tests/test_a11y_browser.py."""

from __future__ import annotations

import re

import numpy as np
import pytest
from helpers import PAGES, figures, run_app

from explorer.drawing import colors, speak
from explorer.drawing import figures as F
from explorer.drawing.colors import BACKGROUNDS, contrast_ratio, mapping_cue
from explorer.i18n import catalogue
from probcore.registry import MAPPINGS

MARKERS = {"circle", "square", "diamond", "triangle-up", "triangle-down", "cross", "x", "star", "hexagon"}
STREAMLIT_TEXT = {"light": "#2F2D2B", "dark": "#EDEBE8"}  # Streamlit 1.67's body text (captions: 80 % of it)


def blend(color: str, background: str, opacity: float) -> str:
    """``color`` drawn at ``opacity`` over ``background``, as '#RRGGBB'."""
    mix = [
        round(opacity * int(color[i : i + 2], 16) + (1 - opacity) * int(background[i : i + 2], 16)) for i in (1, 3, 5)
    ]
    return "#" + "".join(f"{c:02X}" for c in mix)


def test_contrast_ratio_is_wcags():
    assert contrast_ratio("#000000", "#FFFFFF") == pytest.approx(21.0)
    assert contrast_ratio("#FFFFFF", "#FFFFFF") == pytest.approx(1.0)
    assert contrast_ratio("#767676", "#FFFFFF") == pytest.approx(4.54, abs=0.01)  # the classic AA grey
    assert contrast_ratio("#828180", "#FFFFFF") == pytest.approx(3.88, abs=0.01)  # Streamlit's caption grey (issue 26)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_mapping_colours_have_3_to_1_against_the_background(theme):
    spare = [colors.mapping_color(f"new_mapping_{i}") for i in range(20)]
    for color in [
        *colors.MAPPING_COLORS.values(),
        *spare,
        *colors.EXTRA_COLORS.values(),
        *F.CLASS_COLORS,
        F.ZERO_COLOR,
    ]:
        assert contrast_ratio(color, BACKGROUNDS[theme]) >= 3.0, (color, theme)


@pytest.mark.parametrize("theme", ["light", "dark"])
def test_chart_and_caption_text_have_4_5_to_1(theme):
    assert contrast_ratio(F.TEXT_COLORS[theme], BACKGROUNDS[theme]) >= 4.5
    caption = blend(STREAMLIT_TEXT[theme], BACKGROUNDS[theme], 0.8)  # ui.ACCESSIBILITY_CSS: opacity 0.8
    from explorer.drawing import ui

    assert "opacity: 0.8;" in ui.ACCESSIBILITY_CSS
    assert contrast_ratio(caption, BACKGROUNDS[theme]) >= 4.5, caption


def test_accent_text_has_4_5_to_1():
    """The light accent (.streamlit/config.toml) on white and on a selected pill's tint; the dark
    theme's accent text (ui.DARK_ACCENT_TEXT) on the dark background and its tint."""
    import tomllib
    from pathlib import Path
    from explorer.drawing import ui

    config = tomllib.loads((Path(__file__).resolve().parents[1] / ".streamlit" / "config.toml").read_text())
    accent = config["theme"]["light"]["primaryColor"]
    assert contrast_ratio(accent, "#FFFFFF") >= 4.5
    assert contrast_ratio(accent, blend(accent, "#FFFFFF", 0.14)) >= 4.5  # the pill's tint
    assert contrast_ratio(ui.DARK_ACCENT_TEXT, BACKGROUNDS["dark"]) >= 4.5
    assert contrast_ratio(ui.DARK_ACCENT_TEXT, blend("#CF4250", BACKGROUNDS["dark"], 0.2)) >= 4.5


def test_every_mapping_has_its_own_dash_marker_and_bar_pattern():
    cues = {name: mapping_cue(name) for name in MAPPINGS}
    assert len({c["dash"] for c in cues.values()}) == len(MAPPINGS)
    assert len({c["marker"] for c in cues.values()}) == len(MAPPINGS)
    assert len({tuple(colors.BAR_PATTERNS[name]) for name in MAPPINGS}) == len(MAPPINGS)
    for cue in cues.values():
        assert cue["marker"] in MARKERS
        assert cue["dash"] == "none" or re.fullmatch(r"\d+(,\d+)+", cue["dash"]), cue  # an SVG stroke-dasharray
    assert colors.plotly_dash("softmax") == "solid" and colors.plotly_dash("sparsemax") == "14,5"
    assert mapping_cue("a_future_mapping") == mapping_cue("a_future_mapping")  # stable for unknown names
    assert mapping_cue("a_future_mapping")["marker"] in MARKERS


def test_probability_bars_speak_with_their_exact_zeros():
    probs = {"softmax": np.array([0.7, 0.2, 0.1]), "sparsemax": np.array([0.95, 0.05, 0.0])}
    fig = F.probability_bars(
        np.arange(3),
        np.array([2.0, 0.1, -1.0]),
        probs,
        {"softmax": "softmax", "sparsemax": "sparsemax"},
        title="p per mapping",
    )
    name, summary = speak.describe(fig)
    assert name == "p per mapping"
    assert summary == "softmax: p = 0.7, 0.2, 0.1; sparsemax: p = 0.95, 0.05, 0; one exact zero"
    bars = [tr for tr in fig.to_dict()["data"] if tr["type"] == "bar"]
    assert [b["marker"]["pattern"]["shape"] for b in bars] == ["", "\\"]  # the mappings' fills differ
    themed = F.with_text_color(fig, "dark")
    assert speak.describe(themed) == (name, summary)  # the summary survives the theme colours


def test_a_line_chart_speaks_its_values_or_their_range():
    x = np.linspace(0, 1, 50)
    fig = F.line_chart(
        x,
        [F.mapping_curve("entmax", "α-entmax", x**2), F.Curve("three", np.array([1.0, 0.0, 2.0]), "#8C8C8C")],
        "x",
        "y",
        title="<b>Two</b> curves",
    )
    name, summary = speak.describe(fig)
    assert name == "Two curves"
    assert summary == "α-entmax: 50 values from 0 to 1; one exact zero; three: 1, 0, 2; one exact zero"
    frame = speak.figure_frame(fig)
    assert list(frame.columns) == ["trace", "x", "y"] and len(frame) == 53
    assert frame[frame.trace == "three"].y.tolist() == [1.0, 0.0, 2.0]


def test_grids_and_ternary_points_speak_and_tabulate():
    fig = F.PlainFigure(dict(title=dict(text="J")))
    fig.add_heatmap(z=np.array([[1.0, -2.0], [0.5, 0.0]]), x=["a", "b"], y=["c", "d"], name="Jacobian")
    fig.add_scatterternary(a=[0.2, 0.5], b=[0.3, 0.5], c=[0.5, 0.0], name="sparsemax", mode="markers")
    name, summary = speak.describe(fig)
    assert summary == "Jacobian: a grid of 2 × 2 values from -2 to 1; sparsemax: 2 points"
    frame = speak.figure_frame(fig)
    heat = frame[frame.trace == "Jacobian"]
    assert heat[["x", "y", "z"]].values.tolist() == [
        ["a", "c", 1.0],
        ["b", "c", -2.0],
        ["a", "d", 0.5],
        ["b", "d", 0.0],
    ]
    assert frame[frame.trace == "sparsemax"][["a", "b", "c"]].values.tolist() == [[0.2, 0.3, 0.5], [0.5, 0.5, 0.0]]


def test_summary_words_in_chinese():
    zh, en = catalogue("zh"), catalogue("en")
    for key in (
        "a11y.chart_named",
        "a11y.range",
        "a11y.one_zero",
        "a11y.zeros",
        "a11y.grid",
        "a11y.points",
        "a11y.table_hint",
        "a11y.no_data",
    ):
        assert zh[key] != en[key], key


def test_chart_text_takes_the_themes_colour():
    fig = F.panels(
        [np.arange(3.0)] * 2,
        [[F.Curve("a", np.ones(3), "#4C78A8")]] * 2,
        ["x1", "x2"],
        ["y1", "y2"],
        ["left", "right"],
        title="T",
    )
    fig.add_vline(1.0, annotation_text="mark")
    themed = F.with_text_color(fig, "dark").to_dict()["layout"]
    dark = F.TEXT_COLORS["dark"]
    assert themed["font"]["color"] == dark and themed["title"]["font"]["color"] == dark
    for axis in ("xaxis", "xaxis2", "yaxis", "yaxis2"):
        assert themed[axis]["tickfont"]["color"] == dark and themed[axis]["title"]["font"]["color"] == dark
        assert themed[axis]["title"]["text"]  # the titles kept
    assert all(note["font"]["color"] == dark for note in themed["annotations"])
    assert F.with_text_color(fig, None).to_dict()["layout"]["font"]["color"] == F.TEXT_COLORS["light"]
    assert "color" not in (fig.to_dict()["layout"].get("font") or {})  # the figure itself untouched


def cue(trace: dict) -> tuple:
    """A trace's non-colour look: its dash (lines), marker symbol (markers), fill pattern (bars)."""
    mode = trace.get("mode", "lines+markers" if trace.get("type", "scatter").startswith("scatter") else "")
    dash = (trace.get("line") or {}).get("dash", "solid") if "lines" in mode else None
    marker = trace.get("marker") or {}
    symbol = marker.get("symbol", "circle") if "markers" in mode else None
    pattern = marker.get("pattern") or {}
    return dash, symbol, pattern.get("shape", ""), pattern.get("solidity")


def mapping_of(trace: dict) -> str | None:
    """The mapping a trace draws, told by its colour (one colour per mapping, explorer/drawing/colors.py)."""
    marker, line = trace.get("marker") or {}, trace.get("line") or {}
    color = marker.get("color") if isinstance(marker.get("color"), str) else line.get("color")
    if not isinstance(color, str):
        return None
    if color.startswith("rgba("):
        color = "#" + "".join(f"{int(c):02X}" for c in color[5:].split(",")[:3])
    return next((name for name, c in colors.MAPPING_COLORS.items() if c.upper() == color.upper()), None)


@pytest.mark.slow  # every page under AppTest
@pytest.mark.parametrize("page", PAGES)
def test_mappings_differ_beyond_colour_and_every_chart_speaks(page):
    """On every chart, any two legend traces of different mappings (and the same kind) differ in
    dash, marker or fill; before every chart, its name and summary as text (ui.show_figure)."""
    at = run_app(page)
    assert not at.exception, [e.value for e in at.exception]
    for fig in figures(at):
        shown = [tr for tr in fig["data"] if tr.get("showlegend", True) is not False and mapping_of(tr)]
        for i, a in enumerate(shown):
            for b in shown[i + 1 :]:
                if mapping_of(a) != mapping_of(b) and a.get("type") == b.get("type"):
                    assert cue(a) != cue(b), (fig["layout"]["title"], a.get("name"), b.get("name"), cue(a))
    texts = [h.proto.body for h in at.get("html") if 'class="pc-chart-text"' in h.proto.body]
    assert len(texts) == len(at.get("plotly_chart")) > 0 or page.endswith("check/page.py")
    for text in texts:
        assert re.search(r"Chart: .+\. .+: .+\. Its numbers: Download, CSV\.", text), text
