"""The explorer under ``streamlit.testing.v1.AppTest`` (no browser): every page with default and
extreme settings, hostile URLs, widgets -> URL state, and what the figures contain."""

from __future__ import annotations

import re
import string

import numpy as np
import pytest
from streamlit.testing.v1 import AppTest

from explorer import compute
from explorer.i18n import EN
from helpers import CORE_PAGES, PAGES, assert_ok, assert_readable, figures, label, run_app, trace
from probcore.registry import MAPPINGS
from views.registry import PAGES as REGISTRY

pytestmark = pytest.mark.slow  # whole pages run under AppTest


def params_of(at: AppTest, name: str) -> None:
    """Open the parameters of mapping ``name`` (one mapping's parameters are drawn at a time)."""
    [pills] = [g for g in at.get("button_group") if g.key == "w_params_of"]
    pills.set_value(name).run()


@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_with_defaults(page):
    at = run_app(page)
    assert_ok(at)
    for fig in figures(at):
        assert_readable(fig)


EXTREME = {
    "large_n": dict(
        preset="random",
        n=1000,
        seed=3,
        present=1,
        temperature=0.05,
        alpha=3.5,
        k=1000,
        scale=64,
        target=999,
        show=",".join(MAPPINGS),
    ),
    "softmin_extreme_logits": dict(
        logits="1000, -1000, 0.5, 0, 0",
        temperature=-0.5,
        order=8,
        margin=1.0,
        noise="uniform",
        hard=1,
        show=",".join(MAPPINGS),
    ),
}


@pytest.mark.parametrize("page", PAGES)
@pytest.mark.parametrize("setting", EXTREME)
def test_every_page_renders_with_extreme_settings(page, setting):
    at = run_app(page, **EXTREME[setting])
    assert_ok(at, errors=True)  # gumbel-softmax refuses T < 0: that is an inline message
    assert not any("Traceback" in e.value for e in at.error)
    if page == PAGES[0] and setting == "large_n":
        bars = trace(figures(at)[0], label("softmax"), type="bar")
        assert len(bars["x"]) == 50  # the top-50 view


def test_the_app_computes_on_one_torch_thread():
    """explorer/serving/process.py: one_torch_thread: many sessions share a worker's cores, so torch
    runs one intra-op thread (set once per process, before the first computation)."""
    import threading

    import streamlit as st
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(2)
    st.cache_resource.clear()  # as in a fresh server process
    try:
        run_app()
        seen = []  # in a new thread, as the next script run (OpenMP keeps a count per thread)
        thread = threading.Thread(target=lambda: seen.append(torch.get_num_threads()))
        thread.start()
        thread.join()
        assert seen == [1]
    finally:
        torch.set_num_threads(before)


def test_sparsemax_has_exact_zeros_for_the_default_logits():
    fig = figures(run_app())[0]
    sparse = trace(fig, label("sparsemax"), type="bar")
    np.testing.assert_allclose(sparse["y"][:2], [0.95, 0.05])
    assert np.isnan(sparse["y"][2])  # an exact zero is not drawn as a bar ...
    zero = trace(fig, label("sparsemax"), type="scatter")  # ... but as a cross on the axis
    assert zero["y"] == [0.0] and zero["marker"]["symbol"] == "x-thin-open"
    soft = trace(fig, label("softmax"), type="bar")
    assert all(v > 0 for v in soft["y"])
    assert not [tr for tr in fig["data"] if tr["name"] == label("softmax") and tr["type"] == "scatter"]


def test_hostile_url_gives_messages_and_a_usable_page():
    at = run_app(logits="abc", alpha="-3", k="9999", temperature="0")
    assert_ok(at, errors=True)
    text = " ".join(e.value for e in at.error)
    for word in ("logits", "alpha", "k must be", "temperature"):
        assert word in text.replace("\\", ""), (word, text)
    ticks = figures(at)[0]["layout"]["xaxis"]["ticktext"]
    assert [tick.split("<br>")[1] for tick in ticks] == ["1.2", "0.3", "-0.5"]  # the default logits
    shown = {tr["name"] for tr in figures(at)[0]["data"]}
    assert {label("entmax"), label("sparse_softmax"), label("softmax")} <= shown  # defaults stand in


@pytest.mark.parametrize(
    "params",
    [
        {"n": "-inf", "preset": "random"},
        {"n": "5000", "preset": "random"},
        {"k": "2.5"},
        {"alpha": "nan"},
        {"temperature": "inf"},
        {"beta": "1e309"},
        {"logits": "nan, 1"},
        {"logits": "1e400, 2"},
        {"logits": "1"},
        {"logits": ",".join(["1"] * 1001)},
        {"logits": "1, 2e5"},
        {"show": "softmax,evil"},
        {"lang": "xx"},
        {"target": "99"},
        {"seed": "-1"},
        {"noise": "cauchy"},
        {"hard": "maybe"},
        {"top_p": "1.5"},
        {"order": "3"},
        {"preset": "nope"},
        {"logits": "![x](https://example.com/x.png) [link](https://example.com)"},
    ],
    ids=lambda p: "&".join(f"{k}={v[:12]}" for k, v in p.items()),
)
def test_bad_query_parameters_are_refused_inline(params):
    at = run_app(**params)
    assert_ok(at, errors=True)
    assert at.error, "expected an inline message"
    for message in at.error:  # user text is escaped: no link or image renders
        assert "](" not in message.value


def test_slider_updates_chart_and_url():
    at = run_app()
    before = trace(figures(at)[0], label("sparsemax"), type="bar")["y"]
    at.slider(key="x_2").set_value(2.0).run()
    assert_ok(at)
    assert at.text_input(key="w_logits").value == "1.2, 0.3, 2"
    assert at.query_params["logits"] == "1.2, 0.3, 2"
    after = trace(figures(at)[0], label("sparsemax"), type="bar")["y"]
    assert after != before and after[2] > 0.5


def test_typed_bad_values_keep_the_last_valid_ones():
    at = run_app()
    at.text_input(key="w_logits").input("2, 1, 0, -1").run()
    at.text_input(key="w_logits").input("2, one, 0").run()
    assert_ok(at, errors=True)
    assert "one" in at.error[0].value
    assert len(trace(figures(at)[0], label("softmax"), type="bar")["y"]) == 4  # last valid logits
    params_of(at, "entmax")
    at.number_input(key="w_alpha").set_value(0.0).run()
    assert any("alpha" in e.value for e in at.error)


def test_url_round_trip_restores_the_view():
    at = run_app()
    at.selectbox(key="w_preset").set_value("random").run()
    at.number_input(key="w_n").set_value(7).run()
    at.number_input(key="w_seed").set_value(11).run()
    params_of(at, "entmax")
    at.number_input(key="w_alpha").set_value(2.5).run()
    at.multiselect(key="w_show").set_value(["softmax", "entmax"]).run()
    at.toggle(key="log").set_value(True).run()
    params = dict(at.query_params)
    assert params == {"preset": "random", "n": "7", "seed": "11", "alpha": "2.5", "show": "softmax,entmax", "log": "1"}
    again = run_app(**params)
    assert_ok(again)
    assert again.get("plotly_chart")[0].proto.spec == at.get("plotly_chart")[0].proto.spec
    params_of(again, "entmax")
    assert again.number_input(key="w_alpha").value == 2.5 and again.toggle(key="log").value


def test_reset_restores_defaults_and_clears_the_url():
    at = run_app(alpha="3", logits="1, 2, 3, 4")
    at.button[-1].click().run()
    assert_ok(at)
    assert at.session_state["alpha"] == 1.25
    assert at.text_input(key="w_logits").value == "1.2, 0.3, -0.5"
    assert not at.query_params


def test_top_p_with_the_default_k_needs_no_message():
    at = run_app(top_p="0.7", logits="2, 1, 0, -1")
    assert_ok(at)
    support = [v for v in trace(figures(at)[0], label("sparse_softmax"), type="bar")["y"] if v > 0]
    assert len(support) == 2  # softmax(2, 1, 0, -1) = (.64, .24, ...): two classes reach 0.7


def test_chinese_interface():
    at = run_app(lang="zh")
    assert_ok(at)
    assert at.title[0].value == "对比"


def test_simplex_points_are_not_clipped_and_images_differ():
    figs = {fig["layout"]["title"]["text"]: fig for fig in figures(run_app(PAGES[1]))}
    for fig in figs.values():
        for tr in fig["data"]:
            if tr["type"] == "scatterternary":
                assert tr["cliponaxis"] is False
    images = next(fig for title, fig in figs.items() if "grid" in title)
    soft, sparse = trace(images, label("softmax")), trace(images, label("sparsemax"))
    assert min(map(min, (soft["a"], soft["b"], soft["c"]))) > 0  # softmax: interior only
    assert min(sparse["c"]) == 0 and max(sparse["a"]) == 1  # sparsemax: edges and vertices


def test_jacobian_analytic_matches_autograd_and_the_l1_identity():
    at = run_app(PAGES[2])
    assert_ok(at)
    assert len(figures(at)) == 2  # heat maps of softmax and sparsemax until others are picked
    table = at.dataframe[0].value.set_index("mapping")
    assert (table["max |analytic − autograd|"] < 1e-8).all()
    np.testing.assert_allclose(table.loc[label("softmax"), "½ ‖J‖₁"], table.loc[label("softmax"), "1 − Σ p²"])
    assert table.loc[label("sparsemax"), "rank J"] == table.loc[label("sparsemax"), "support"] - 1


def test_binary_slice_sparsemax_is_modified_huber_and_ce_is_logistic():
    figs = figures(run_app(PAGES[3]))
    binary = next(fig for fig in figs if fig["layout"]["title"]["text"].startswith("Loss of logits"))
    np.testing.assert_allclose(
        trace(binary, label("sparsemax"))["y"], trace(binary, "modified Huber / 4")["y"], atol=1e-12
    )
    np.testing.assert_allclose(
        trace(binary, label("softmax"))["y"], trace(binary, "logistic log(1 + e⁻ᵗ)")["y"], atol=1e-12
    )
    planes = [fig for fig in figs if fig["data"][0]["type"] == "contour"]
    assert len(planes) == 2  # softmax and sparsemax until others are picked
    with_loss = [n for n in MAPPINGS if MAPPINGS[n].loss is not None and not MAPPINGS[n].stochastic]
    at = run_app(PAGES[3], planes=",".join(with_loss))
    planes = [fig for fig in figures(at) if fig["data"][0]["type"] == "contour"]
    assert len(planes) == len(with_loss)
    assert at.query_params["planes"] == ",".join(with_loss)


def test_sweeps_animate_with_plotly_frames():
    figs = figures(run_app(PAGES[4]))
    animated = [fig for fig in figs if fig.get("frames")]
    assert {len(fig["frames"]) for fig in animated} == {len(compute.TEMPERATURES), len(compute.ALPHAS)}
    for fig in animated:
        buttons = fig["layout"]["updatemenus"][0]["buttons"]
        assert buttons[0]["method"] == "animate"  # client-side: no rerun


QUESTIONS = {  # page -> (question key, the answer's live number that must appear after the action)
    REGISTRY["compare"].script: "q_compare",
    REGISTRY["simplex"].script: "q_simplex",
    REGISTRY["jacobian"].script: "q_jacobian",
    REGISTRY["loss"].script: "q_loss",
    REGISTRY["sweeps"].script: "q_sweeps",
}


def reveal(at: AppTest, key: str, guess: int) -> str:
    at.radio(key=f"{key}_guess").set_value(guess).run()
    at.toggle(key=f"{key}_reveal").set_value(True).run()
    assert_ok(at)
    return "\n".join(m.value for m in at.markdown)


@pytest.mark.parametrize("page", QUESTIONS)
def test_every_core_page_asks_a_question_and_reveals_a_computed_answer(page):
    at = run_app(page)
    key = QUESTIONS[page]
    assert at.radio(key=f"{key}_guess").value is None  # nothing given away before the guess
    assert not at.success and not at.info or all("Right" not in s.value for s in at.success)
    before = {m.value for m in at.markdown}
    reveal(at, key, 0)
    shown = [m.value for m in at.markdown if m.value not in before]
    verdicts = [e.value for e in (*at.success, *at.info)]
    assert any(v.startswith(("Right", "Not quite")) for v in verdicts), verdicts
    # the answer: its template with every field filled from the live values, numbers among them
    template = EN[f"{key}.a"]
    pattern = "".join(
        re.escape(literal) + ("(.+?)" if name else "") for literal, name, _, _ in string.Formatter().parse(template)
    )
    filled = [m.groups() for m in map(re.compile(pattern, re.S).fullmatch, shown) if m]
    assert filled and any(re.search(r"\d", value) for value in filled[0]), (template, shown)


def test_compare_question_shift_leaves_sparsemax_unchanged_in_the_chart():
    at = run_app()
    before = trace(figures(at)[0], label("sparsemax"), type="bar")["y"]
    reveal(at, "q_compare", 0)
    assert "Right" in at.success[0].value
    [button] = [b for b in at.button if b.key == "q_compare_action"]
    button.click().run()
    assert_ok(at)
    assert at.session_state["logits"] == "11.2, 10.3, 9.5"
    after = trace(figures(at)[0], label("sparsemax"), type="bar")["y"]
    np.testing.assert_allclose(after, before, atol=1e-12)
    assert "Taylor softmax (" in "\n".join(m.value for m in at.markdown)  # the one mapping that moved


def test_loss_question_margin_one_gives_zero_sparsemax_loss():
    at = run_app(REGISTRY["loss"].script)
    reveal(at, "q_loss", 1)
    [button] = [b for b in at.button if b.key == "q_loss_action"]
    button.click().run()
    text = "\n".join(m.value for m in at.markdown)
    assert "margin x_t − max_j≠t x_j = 1, sparsemax loss = 0," in text
    x = [float(v) for v in at.session_state["logits"].split(",")]
    assert x[0] - max(x[1:]) == pytest.approx(1.0)


def test_sweeps_question_reports_the_logit_gap():
    at = run_app(REGISTRY["sweeps"].script, logits="2, 0.5, 0")
    text = reveal(at, "q_sweeps", 1)
    assert "T ≤ 1.5 here" in text
    assert "Right" in at.success[0].value


def test_presentation_mode_enlarges_fonts_and_lines():
    plain_figs = figures(run_app(REGISTRY["sweeps"].script))
    at = run_app(REGISTRY["sweeps"].script, present=1)
    assert at.toggle(key="present").value is True
    big = figures(at)
    assert all(fig["layout"]["font"]["size"] == 22 for fig in big)
    assert all(fig["layout"]["xaxis"]["tickfont"]["size"] == 22 for fig in big)  # not left to the theme
    assert all("size" not in fig["layout"].get("font", {}) for fig in plain_figs)
    lines = [
        tr for fig in big for tr in fig["data"] if tr.get("type") == "scatter" and "lines" in tr.get("mode", "lines")
    ]
    assert lines and all(tr["line"]["width"] >= 5 for tr in lines)


def test_every_english_sentence_has_a_chinese_one():
    """Keys missing in ZH may only be formulas or names (no English word of 3+ letters)."""
    import re

    from explorer.i18n import EN, ZH

    missing = {k: v for k, v in EN.items() if k not in ZH and k not in ("lang.en", "lang.zh")}
    assert not {k: v for k, v in missing.items() if re.search(r"[A-Za-z]{3}", v)}
    assert all(k in EN or k.startswith(("param.", "mapping.", "help.", "error.")) for k in ZH)


def test_url_numbers_are_checked_against_their_range():
    from explorer.session.state import OPTIONS, parse_option

    radius = REGISTRY["simplex"].option("radius")
    assert parse_option(radius, ["20"]) == 20.0
    for bad in ("20.5", "0.1", "nan", "1e400"):
        with pytest.raises(ValueError, match="radius"):
            parse_option(radius, [bad])
    assert parse_option(OPTIONS["seed"], [str(2**31 - 1)]) == 2**31 - 1  # the largest seed the sidebar takes
    with pytest.raises(ValueError, match="seed"):
        parse_option(OPTIONS["seed"], [str(2**31)])


def test_a_linked_logit_is_never_snapped_to_the_slider_grid():
    """Issue 10: opened from ?logits=1.2,0.3,-0.72,-0.83, the per-logit sliders can only show grid points
    (step 0.05: -0.70, -0.85), and a browser reports the point it shows with every rerun (five busy
    sessions did, each stepping only x0). Only the slider the user moves may change its logit."""
    at = run_app(logits="1.2,0.3,-0.72,-0.83")
    for step in range(1, 4):
        at.slider(key="x_2").set_value(-0.7)  # what the browser shows and sends back, untouched
        at.slider(key="x_3").set_value(-0.85)
        at.slider(key="x_0").set_value(round(1.2 + 0.05 * step, 2)).run()
        assert_ok(at)
        assert at.session_state["logits"] == f"{1.2 + 0.05 * step:.6g}, 0.3, -0.72, -0.83"
    assert at.query_params["logits"] == "1.35, 0.3, -0.72, -0.83"
    at.slider(key="x_2").set_value(-0.65).run()  # moved by the user: taken
    assert at.session_state["logits"] == "1.35, 0.3, -0.65, -0.83"


def test_pages_show_only_the_controls_they_use():
    """Logit controls only where a page uses the logits, mapping controls only where it draws them."""
    logit_pages = CORE_PAGES + (
        REGISTRY["perturb"].script,
        REGISTRY["losses"].script,
        REGISTRY["smooth_max"].script,
        REGISTRY["sparse_from_exp"].script,
    )
    uses = {page: (page in logit_pages, page in CORE_PAGES) for page in PAGES}
    for page, (logits, mappings) in uses.items():
        at = run_app(page)
        keys = {el.key for kind in ("text_input", "multiselect", "slider") for el in at.get(kind)}
        assert ("w_logits" in keys) == logits, page
        assert ("w_show" in keys) == mappings, page
        assert not at.sidebar.get("text_input") and not at.sidebar.get("multiselect")  # the sidebar: language etc.


def test_parameter_names_and_defaults_that_cannot_be_confused():
    from explorer.i18n import param_label
    from explorer.session.state import PARAM_OPTIONS

    assert "k" not in param_label("order").split() and param_label("k") != param_label("order")
    assert PARAM_OPTIONS["alpha"].default != 1.5  # α-entmax does not draw 1.5-entmax again
    at = run_app(show="entmax15,entmax")
    bars = figures(at)[0]
    assert trace(bars, label("entmax"), type="bar")["y"] != trace(bars, label("entmax15"), type="bar")["y"]


def test_a_mapping_without_a_loss_says_so_instead_of_none():
    at = run_app(show="softmax,perturbmax")
    table = at.table[0].value
    row = table.loc[label("perturbmax")]
    assert (row == "—").sum() >= 2 and "None" not in table.to_string()
    assert any("no loss function for Perturb-max" in c.value for c in at.caption)
